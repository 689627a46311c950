"""Lists of games: the ones played in this server (`/games here`) and a player's own in
every server and channel (`/games mine`), those waiting for the player first."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import partial

from data.repository import GameRecord
from engine.text import t, tn
from host.away.absences import Absences
from host.model import Channel, Reply, ServiceError, User
from host.payloads import Action, Payload
from host.play.live import LiveGames, game_of
from host.present.lists import paged
from host.present.presenter import Presenter
from host.present.waiting import Turn, acting_ids, deadline_words, soonest_first, turn_of
from host.present.words import move_number
from host.privacy.names import shown_name

#: Games on one page of `/games mine` and `/games here`.
PAGE_SIZE = 8


@dataclass(frozen=True, slots=True)
class _Line:
    game_id: int
    text: str
    waiting_on_you: bool
    #: Where the game stands for the player (sorts their lists).
    turn: Turn


class GameLists:
    def __init__(
        self, live: LiveGames, presenter: Presenter, absences: Absences | None = None
    ) -> None:
        self.live = live
        self.presenter = presenter
        #: Who is away: a list says so where their deadline would be.
        self.absences = absences

    async def _away(self, records: Iterable[GameRecord]) -> dict[int, float]:
        """Of the people these games wait for, those away, with when they are back."""
        if self.absences is None:
            return {}
        acting = acting_ids(turn_of(r, 0) for r in records if r.status == "active")
        return {u: a.until for u, a in (await self.absences.of(acting)).items()}

    async def here(
        self, channel: Channel, user: User, page: int = 0, *, edit: bool = False
    ) -> list[Reply]:
        """The live games of this server (in a direct message: the user's own there), the
        ones waiting on `user` first, paged with buttons. The caller's games come from
        their own seats; the others are one page of the server's, so a busy server's list
        costs no more than a quiet one's."""
        records = [
            record
            for record in await self.live.repository.live_games_of_user(user.id)
            if record.guild_id == channel.guild_id
        ]
        away = await self._away(records)
        own = [self._line(record, user=user, away=away) for record in records]
        mine = sorted((line for line in own if line.waiting_on_you), key=_order)
        start = page * PAGE_SIZE
        if channel.guild_id is None:
            every = mine + [line for line in own if not line.waiting_on_you]
            total = len(every)
            lines = every[start : start + PAGE_SIZE]
        else:
            shown = mine[start : start + PAGE_SIZE]
            records, rest = await self.live.repository.live_games(
                channel.guild_id,
                PAGE_SIZE - len(shown),
                max(0, start - len(mine)),
                excluding=[line.game_id for line in mine],
            )
            total = len(mine) + rest
            away = await self._away(records)
            # A game listed among the others is not the caller's to play, even if its
            # turn came to them in the moment between the two reads.
            lines = shown + [
                replace(self._line(record, user=user, away=away), waiting_on_you=False)
                for record in records
            ]
        pages = max(1, -(-total // PAGE_SIZE))
        if not 0 <= page < pages:
            raise ServiceError(t("That page is gone: use /games here again."))
        if not total:
            text = str(t("No games are being played here. Start one with /play."))
        else:
            text = _sections(lines)
        title = tn("{n} active game", "{n} active games", n=total) if total else t("Active games")
        turn = partial(Payload, Action.GAMES_HERE, user.id)
        return [paged(str(title), text, page, pages, turn, edit=edit)]

    async def mine(self, user: User, page: int = 0, *, edit: bool = False) -> list[Reply]:
        """Every live game `user` plays in, waiting on them first (the soonest to run out
        first), with a link to its latest board; paged with buttons."""
        records = await self.live.repository.live_games_of_user(user.id)
        away = await self._away(records)
        lines = [self._line(record, user=user, away=away) for record in records]
        lines.sort(key=_order)
        pages = max(1, -(-len(lines) // PAGE_SIZE))
        if not 0 <= page < pages:
            raise ServiceError(t("That page is gone: use /games mine again."))
        if not lines:
            text = str(t("You are in no game now. Start one with /play, or try /daily."))
        else:
            text = _sections(lines[page * PAGE_SIZE : (page + 1) * PAGE_SIZE])
        waiting = sum(line.waiting_on_you for line in lines)
        title = t("Your games: {n} waiting for you", n=waiting) if waiting else t("Your games")
        turn = partial(Payload, Action.MY_GAMES, user.id)
        return [paged(str(title), text, page, pages, turn, edit=edit)]

    def _line(
        self, record: GameRecord, *, user: User, away: Mapping[int, float] | None = None
    ) -> _Line:
        """One game's line. Whose turn it is comes from the game's stored position: no
        game is loaded, locked or replayed to list it."""
        game = game_of(record.game)
        names = " vs ".join(shown_name(s.user.name) for s in record.seats)
        place = f"<#{record.channel_id}>"
        link = self.presenter.link(record)
        # Outside the f-string, so that the catalogue's extraction finds the word.
        label = t("board")
        board = f" · [{label}]({link})" if link else ""
        turn = turn_of(record, user.id)
        if record.status == "challenge":
            text = t(
                "{where} · {game}: {names} (challenge)", where=place, game=game.name, names=names
            )
        else:
            text = t(
                "{where} · {game}: {names} · move {n}",
                where=place,
                game=game.name,
                names=names,
                n=move_number(record),
            )
        due = deadline_words(turn, away)
        clock = f" · {due}" if due else ""
        return _Line(record.id, str(text) + clock + board, turn.waiting, turn)


def _order(line: _Line) -> tuple[bool, bool, float, float]:
    return soonest_first(line.turn)


def _sections(lines: list[_Line]) -> str:
    mine = [line.text for line in lines if line.waiting_on_you]
    others = [line.text for line in lines if not line.waiting_on_you]
    parts = []
    if mine:
        parts.append(str(t("**Your turn**")) + "\n" + "\n".join(mine))
    if others:
        parts.append(str(t("**Other games**")) + "\n" + "\n".join(others))
    return "\n\n".join(parts)
