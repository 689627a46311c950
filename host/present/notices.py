"""Messages about a game outside its board: a challenge and its end, and the direct
messages and reminders that tell a player their turn has come or the game is over."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from data.repository import GameRecord
from engine.core import Game
from engine.text import Text, t
from host.model import Choice, Reply, User
from host.payloads import Action, Payload
from host.play.live import Loaded, user_of
from host.present.words import Words, move_number
from host.privacy.names import shown_name


class Notices(Words):
    """Challenges, direct messages and reminders: each names the game, the players and
    the way to the board."""

    #: A link to a game's latest board, where the front-end keeps one.
    link: Callable[[GameRecord], str | None]

    def turn_message(self, loaded: Loaded, person: User) -> Reply:
        """A direct message: it is `person`'s turn, where, and the way to the board."""
        record = loaded.record
        lines = [
            str(
                t(
                    "Your turn in <#{channel}> ({game}: {players}).",
                    channel=record.channel_id,
                    game=loaded.game.name,
                    players=" vs ".join(self.names(loaded)),
                )
            )
        ]
        if record.deadline_at is not None:
            lines.append(str(t("Time runs out <t:{when}:R>.", when=int(record.deadline_at))))
        return self._notice(loaded, t("{game}: your move", game=loaded.game.name), lines, "turn")

    def game_over_message(self, loaded: Loaded) -> Reply:
        """A direct message to a player: the game is over, how it ended, and where."""
        record = loaded.record
        lines = [
            str(
                t(
                    "Your game in <#{channel}> is over ({game}: {players}).",
                    channel=record.channel_id,
                    game=loaded.game.name,
                    players=" vs ".join(self.names(loaded)),
                )
            ),
            self.result_line(loaded),
        ]
        title = t("{game}: game over", game=loaded.game.name)
        return self._notice(loaded, title, lines, "over")

    def challenged(self, loaded: Loaded) -> Reply:
        """A direct message: a challenge waits for your answer, and where."""
        record = loaded.record
        challenger = next(
            shown_name(s.user.name) for s in record.seats if s.user.id == record.created_by
        )
        line = t(
            "{name} challenges you to {game} in <#{channel}>: accept or decline there.",
            name=challenger,
            game=loaded.game.name,
            channel=record.channel_id,
        )
        title = t("{game}: a challenge", game=loaded.game.name)
        return self._notice(loaded, title, [str(line)], "turn")

    def follow_message(self, loaded: Loaded) -> Reply:
        """A direct message to a follower: the game they follow has moved on, or ended."""
        record = loaded.record
        if record.status != "active":
            what = self.result_line(loaded)
        else:
            waiting = ", ".join(self.seat_label(loaded, s) for s in sorted(loaded.state.to_act))
            what = str(t("Now waiting for: {names}.", names=waiting))
        lines = [
            str(
                t(
                    "In <#{channel}> ({game}: {players}), after move {n}:",
                    channel=record.channel_id,
                    game=loaded.game.name,
                    players=" vs ".join(self.names(loaded)),
                    n=move_number(record),
                )
            ),
            what,
        ]
        title = t("{game}: a game you follow", game=loaded.game.name)
        return self._notice(loaded, title, lines, "over" if record.status != "active" else "info")

    def reminder(self, loaded: Loaded, people: Sequence[User]) -> Reply:
        """A reminder that a decision is pending, with where it is and when it runs out."""
        record = loaded.record
        lines = [
            str(
                t(
                    "Reminder: {names}, your move in {game} ({players}) runs out <t:{when}:R>.",
                    names=", ".join(p.name for p in people),
                    game=loaded.game.name,
                    players=" vs ".join(self.names(loaded)),
                    when=int(record.deadline_at or 0),
                )
            )
        ]
        title = t("{game}: your move", game=loaded.game.name)
        return self._notice(loaded, title, lines, "turn", tuple(people))

    def _notice(
        self,
        loaded: Loaded,
        title: Text,
        lines: list[str],
        tone: str,
        mentions: tuple[User, ...] = (),
    ) -> Reply:
        """A message about a game outside its channel's flow (a reminder, a direct
        message), ending with a link to its board where there is one."""
        link = self.link(loaded.record)
        if link:
            lines = [*lines, str(t("The board: {link}", link=link))]
        return Reply(
            title=str(title),
            text="\n".join(lines),
            mentions=mentions,
            tone=tone,
            footer=self.footer(loaded.record),
        )

    def challenge(
        self, record: GameRecord, game: Game[Any], extra: Text | None = None, *, edit: bool = False
    ) -> Reply:
        challenger = next(s.user for s in record.seats if s.user.id == record.created_by)
        pending = [s.user for s in record.seats if not s.accepted]
        lines = [
            str(
                t(
                    "{name} challenges {others} to {game}.",
                    name=challenger.name,
                    others=", ".join(u.name for u in pending),
                    game=game.name,
                )
            )
        ]
        if extra is not None:
            lines.insert(0, str(extra))
        lines.append(str(t("Accept or decline with the buttons (or /accept, /decline).")))
        return Reply(
            title=str(t("{game}: a challenge", game=game.name)),
            text="\n".join(lines),
            actions=(
                Choice(Payload(Action.ACCEPT, record.id, 0), str(t("Accept")), "success"),
                Choice(Payload(Action.DECLINE, record.id, 0), str(t("Decline")), "danger"),
            ),
            mentions=tuple(user_of(u) for u in pending),
            tone="turn",
            edit=edit,
            game_id=record.id,
        )

    def challenge_closed(self, game_id: int, reason: Text, *, edit: bool = False) -> Reply:
        """A challenge that needs no answer any more: its message, without buttons."""
        return Reply(
            title=str(t("Challenge closed")),
            text=str(reason),
            tone="over",
            edit=edit,
            game_id=game_id,
        )

    # --- the move builder -----------------------------------------------------------------
