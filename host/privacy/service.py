"""`/mydata`: a person's copy of what is stored about them, and forgetting them.

Forgetting first ends what the person is still playing, as they would themselves: a
challenge is withdrawn or declined, a game of two is resigned, and in a larger game a
computer takes their seats and the game goes on. Then the storage's steps run
(`data.privacy`), each one transaction; whatever stops them midway, running the
forgetting again finishes it. The games they sat in are marked changed as the steps run,
so every process on the database draws them anew, with "a former player" in their seat.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from data.privacy import PrivacyRepository
from data.repository import GameRepository
from engine.text import Text, t
from host.model import Channel, Choice, Reply, ServiceError, User, Where
from host.payloads import Action, Payload
from host.play.playing import Resign
from host.play.starting import Decline

log = logging.getLogger(__name__)

#: A forgetting still under way this long after it began was left by a stopped process.
RESUME_AFTER_SECONDS = 600

#: Changes a game's live state with an act, as a command does (`Announcer.change`).
Change = Callable[[int, Any], Awaitable[object]]


class Forgotten(StrEnum):
    """How a request to forget someone ended."""

    #: Everything is forgotten now.
    DONE = "done"
    #: Nothing is stored about that id (never a player here, or forgotten before).
    UNKNOWN = "unknown"
    #: The id is a former player's: someone forgotten already.
    ALREADY = "already"
    #: The id is a computer player's (the bot's own): no person, nothing to forget.
    COMPUTER = "computer"


@dataclass(frozen=True, slots=True)
class Export:
    """A person's copy: the file's name and its JSON text."""

    filename: str
    text: str


class Privacy:
    """The copy and the forgetting, over the storage and the games' service."""

    def __init__(
        self,
        repository: PrivacyRepository,
        games: GameRepository,
        change: Change,
        clock: Callable[[], float],
        drop: Callable[[int], None] = lambda game_id: None,
        settle: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.repository = repository
        self.games = games
        self.change = change
        self.clock = clock
        #: Drops a game from this process's memory of games (it is read again, renamed);
        #: the other processes read each changed game again as its updated_at tells them.
        self.drop = drop
        #: Rates the finished games not rated yet: a game of the person's rated after
        #: their seats pass to the former player would rate the former player.
        self.settle = settle
        #: Told the number of each step once it is committed (a test stops one midway).
        self.after_step: Callable[[int], Awaitable[None]] | None = None

    async def export(self, user_id: int) -> Export | None:
        """Everything stored about `user_id`, as one JSON file; None: nothing is (no such
        person, a former player, or a computer player: the bot's own, no person's)."""
        stored = await self.repository.user(user_id)
        if stored is None or stored.former or stored.is_bot:
            return None
        tables = await self.repository.export(user_id)
        for game in tables["games"]:
            for key in ("options", "result"):
                if isinstance(game.get(key), str):
                    game[key] = json.loads(game[key])
        for row in tables["user_settings"]:
            row["settings"] = json.loads(row["settings"])
        body = {"user_id": user_id, "name": stored.name, "tables": tables}
        text = json.dumps(body, indent=2, sort_keys=True, default=str)
        return Export(f"hilltop-data-{user_id}.json", text)

    async def forget(self, user: User) -> Forgotten:
        """Forget `user` (their id; the name is what the games knew them by): their live
        games ended as they would end them, then every stored row of theirs removed or
        passed to a former player. A forgetting interrupted before is finished."""
        stored = await self.repository.user(user.id)
        under_way = await self.repository.forgetting(user.id)
        if under_way is None:
            if stored is None:
                return Forgotten.UNKNOWN
            if stored.former:
                return Forgotten.ALREADY
            if stored.is_bot:
                return Forgotten.COMPUTER
            await self._leave_live_games(User(user.id, stored.name, stored.is_bot))
            if self.settle is not None:
                await self.settle()
        forgetting = await self.repository.begin(user.id, self.clock())
        if forgetting is None:
            return Forgotten.UNKNOWN
        for game_id in await self.repository.run(forgetting, self.after_step):
            self.drop(game_id)
        return Forgotten.DONE

    # --- /mydata ---------------------------------------------------------------------
    async def mydata_export(self, channel: Channel, user: User) -> list[Reply]:
        """`/mydata export`: the person's copy, to them alone. Only one's own: there is
        no way to ask for anyone else's."""
        exported = await self.export(user.id)
        if exported is None:
            return [Reply(text=str(t("Nothing is stored about you.")), ephemeral=True)]
        return [
            Reply(
                text=str(
                    t(
                        "Everything stored about you, as JSON: your games with their records,"
                        " ratings, daily runs, preferences, away time, follows, web sessions"
                        " and tournaments."
                    )
                ),
                file=(exported.filename, exported.text.encode()),
                ephemeral=True,
            )
        ]

    async def mydata_forget(self, channel: Channel, user: User) -> list[Reply]:
        """`/mydata forget`: what forgetting does, and a button that does it."""
        stored = await self.repository.user(user.id)
        if stored is None or stored.former:
            return [Reply(text=str(told(Forgotten.UNKNOWN, yourself=True)), ephemeral=True)]
        confirm = Choice(Payload(Action.FORGET_ME, user.id, 0), str(t("Forget me")), "danger")
        return [
            Reply(
                title=str(t("Forget everything stored about you?")),
                text=str(
                    t(
                        "Your games in play are resigned; your preferences, follows, away"
                        " time, web sessions and ratings are deleted. In games others played"
                        " your seat stays, as “a former player”, so that their results still"
                        " read. This cannot be undone."
                    )
                ),
                actions=(confirm,),
                ephemeral=True,
                tone="error",
            )
        ]

    async def pressed_forget(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        """The confirmation was pressed, by the person it was shown to: forget them."""
        if payload.game_id != user.id:
            raise ServiceError(t("That button is someone else's: only they can press it."))
        outcome = await self.forget(user)
        return [Reply(text=str(told(outcome, yourself=True)), ephemeral=True, edit=True)]

    async def tick(self, now: float) -> list[tuple[Where, list[Reply]]]:
        """Forgettings a stopped process left midway are finished (those begun a while
        ago: one begun just now is still being run by its command). Nobody is told."""
        await self.finish_interrupted(now - RESUME_AFTER_SECONDS)
        return []

    async def finish_interrupted(self, before: float | None = None) -> int:
        """Finish the forgettings a stopped process left midway; how many."""
        pending = await self.repository.unfinished(before)
        for user_id in pending:
            forgetting = await self.repository.forgetting(user_id)
            if forgetting is not None:
                for game_id in await self.repository.run(forgetting, self.after_step):
                    self.drop(game_id)
        return len(pending)

    async def _leave_live_games(self, user: User) -> None:
        """Challenges withdrawn or declined, games resigned (a larger game goes on, a
        computer in their seats). One that changed meanwhile is looked at again."""
        for _ in range(3):
            live = await self.games.live_games_of_user(user.id)
            if not live:
                return
            for record in live:
                act = Decline(user) if record.status == "challenge" else Resign(user)
                try:
                    await self.change(record.id, act)
                except ServiceError:
                    log.info("game %s changed while its player was being forgotten", record.id)


def told(outcome: Forgotten, *, yourself: bool = False) -> Text:
    """What the person (`yourself`) or the operator is told of a forgetting."""
    if outcome is Forgotten.DONE:
        return t(
            "Everything stored about you is forgotten. Your seats in games others played"
            " now read “a former player”."
        )
    if yourself and outcome in (Forgotten.ALREADY, Forgotten.UNKNOWN):
        return t("Nothing is stored about you.")
    if outcome is Forgotten.ALREADY:
        return t("That player is forgotten already: nothing is stored about them.")
    if outcome is Forgotten.COMPUTER:
        return t("That is a computer player, not a person: there is nothing to forget.")
    return t("Nothing is stored about that player: there is nothing to forget.")
