"""Servers the bot is removed from, and deleting everything of a server.

When the bot is removed from a server (kicked, banned, the server deleted: never an
outage), the server stops at once: its games are ended, its tournaments stopped, and its
web pages answer "no such page" in every process (they read whether it is gone each
time). Its data is kept 30 days (`data.servers.FORGET_AFTER`) in case the bot is invited
back, which calls the deletion off; then the clock's sweep deletes it, a bounded step at a
time, in whichever one process holds the sweep's lock. An admin may have it deleted at
once (`/admin forget-server`), after a confirmation that names what goes and within
`CONFIRM_MINUTES` of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from data.events import EventRepository
from data.repository import StalePlyError, TimeKeeping
from data.results import Ending
from data.servers import ServerContents, ServerRepository
from engine.text import Text, t, tn
from host.model import Channel, Choice, Reply, ServiceError, User, Where
from host.payloads import Action, Payload
from host.play.changes import Change, Kind, seen
from host.play.commit import Commits
from host.play.live import Loaded
from host.play.results import ended
from host.settings import SettingsStore

log = logging.getLogger("hilltop.servers")

#: Steps of deletion one tick of the clock takes at most (the rest wait for the next).
STEPS_PER_TICK = 20
#: Steps of deletion a confirmed `/admin forget-server` takes before it answers (a very
#: large server's rest is taken by the sweep, which finds it under way).
STEPS_AT_ONCE = 200
#: The name of the lock that one process holds while it sweeps.
SWEEP_LOCK = "hilltop:forget-servers"
#: Tries of ending one game that keeps moving under the write.
END_TRIES = 5
#: Minutes a confirmation of `/admin forget-server` may be pressed in: what it counted
#: may have grown since.
CONFIRM_MINUTES = 15


@dataclass(frozen=True, slots=True)
class ServerGone:
    """The bot was removed from the game's server (or its data is being deleted): the
    game ends where it stands, aborted, and nothing more is told in its channel."""

    fresh: bool = True

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        if not before.record.is_live:
            return seen(before)
        result = replace(ended(before, Ending.ADMIN), aborted=True)
        record = await commits.live.repository.close_game(
            before.id, before.record.ply, "aborted", result, commits.clock()
        )
        return Change(Kind.CLOSED, commits.live.remember(replace(before, record=record)))


class Servers:
    def __init__(
        self,
        repository: ServerRepository,
        commits: Commits,
        events: EventRepository,
        settings: SettingsStore,
        clock: Callable[[], float],
    ) -> None:
        self.repository = repository
        self.commits = commits
        self.events = events
        self.settings = settings
        self.clock = clock

    # --- the bot comes and goes ---------------------------------------------------------
    async def joined(self, guild_id: int) -> bool:
        """The bot was invited to a server: a deletion pending for it is called off.
        Whether it had been removed from it before."""
        return bool(await self.repository.joined((guild_id,), self.clock()))

    async def left(self, guild_id: int) -> bool:
        """The bot was removed from a server: it stops now, and its data goes 30 days
        later. False if it had been removed already."""
        if not await self.repository.left(guild_id, self.clock()):
            return False
        await self.stop(guild_id)
        return True

    async def connected(self, guild_ids: Iterable[int], shards: TimeKeeping | None) -> list[int]:
        """The bot connected, finding itself in `guild_ids`, all of the servers of
        `shards` (None: every server): those it is in are noted (a deletion pending for
        them is called off), and those stored as its own that are not among them were
        removed while it was away. The servers found removed."""
        present = set(guild_ids)
        await self.repository.joined(present, self.clock())
        removed: list[int] = []
        after = -1
        while page := await self.repository.stored_present(after):
            after = page[-1]
            removed += [g for g in page if g not in present and (shards is None or shards.owns(g))]
        for guild_id in removed:
            await self.left(guild_id)
        return removed

    async def is_gone(self, guild_id: int) -> bool:
        return await self.repository.is_gone(guild_id)

    async def stop(self, guild_id: int) -> None:
        """End the server's games and stop its tournaments, now."""
        after = 0
        while game_ids := await self.repository.live_games(guild_id, after):
            after = game_ids[-1]
            for game_id in game_ids:
                await self._end(game_id)
        now = self.clock()
        for event_id in await self.repository.live_events(guild_id):
            await self.events.finish(event_id, "ended", now)
        self.settings.forget_server(guild_id)

    async def _end(self, game_id: int) -> None:
        for _ in range(END_TRIES):
            try:
                await self.commits.apply(game_id, ServerGone())
                return
            except StalePlyError:
                continue  # it moved under the write: end it as it stands now
        log.warning("game %s of a removed server kept moving; the sweep ends it", game_id)

    # --- forgetting -----------------------------------------------------------------------
    async def tick(self, now: float) -> list[tuple[Where, list[Reply]]]:
        """Delete the data of the servers due, a bounded number of steps a tick, in the
        one process that holds the sweep's lock."""
        due = await self.repository.due(now)
        if not due:
            return []
        async with self.repository.db.exclusive(SWEEP_LOCK) as mine:
            steps = STEPS_PER_TICK if mine else 0
            for guild_id in due:
                if steps <= 0:
                    break
                steps = await self._forget(guild_id, now, steps)
        return []

    async def _forget(self, guild_id: int, now: float, steps: int) -> int:
        """Up to `steps` steps of deleting a due server's data: the steps left."""
        if not await self.repository.begin_forgetting(guild_id, now):
            return steps
        # A game started after the server was stopped (a racing command) ends first.
        await self.stop(guild_id)
        while steps > 0:
            steps -= 1
            if not await self.repository.forget_step(guild_id):
                log.info("the data of server %s is deleted", guild_id)
                break
        return steps

    async def forget_server(self, channel: Channel, user: User) -> list[Reply]:
        """`/admin forget-server`: what deleting this server's data takes away, and a
        button that does it."""
        guild_id = self._admins_server(channel, user)
        contents = await self.repository.contents(guild_id)
        if contents.empty:
            return [Reply(text=str(t("This server has nothing stored to delete.")), ephemeral=True)]
        # The button carries the minute it was shown in (a payload's ply), for its expiry.
        shown = int(self.clock() // 60)
        confirm = Choice(
            Payload(Action.FORGET_SERVER, guild_id, shown), str(t("Delete everything")), "danger"
        )
        return [
            Reply(
                title=str(t("Delete this server's data?")),
                text=str(_what_goes(contents)),
                ephemeral=True,
                actions=(confirm,),
                tone="error",
            )
        ]

    async def pressed_forget(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        """The confirmation was pressed: the server's games end, and everything of it is
        deleted now."""
        guild_id = self._admins_server(channel, user)
        if payload.game_id != guild_id:
            raise ServiceError(t("That button belongs to another server."))
        now = self.clock()
        if not 0 <= now // 60 - payload.ply <= CONFIRM_MINUTES:
            raise ServiceError(t("That confirmation has expired: use /admin forget-server again."))
        await self.stop(guild_id)
        await self.repository.forget_now(guild_id, now)
        for _ in range(STEPS_AT_ONCE):
            if not await self.repository.forget_step(guild_id):
                break
        self.settings.forget_server(guild_id)
        return [
            Reply(
                text=str(t("Everything this server had stored is deleted.")),
                ephemeral=True,
                edit=True,
            )
        ]

    @staticmethod
    def _admins_server(channel: Channel, user: User) -> int:
        if channel.guild_id is None:
            raise ServiceError(t("This command works only in a server."))
        if not user.is_admin:
            raise ServiceError(t("Only server admins (Manage Server permission) can do that."))
        return channel.guild_id


def _what_goes(contents: ServerContents) -> Text:
    """The confirmation's words: each kind of thing that goes, counted."""
    return t(
        "This deletes, for good: {games}, {results}, {ratings}, {members} and {events}."
        " Players keep their own daily runs and their global ratings.",
        games=tn("{n} game", "{n} games", n=contents.games),
        results=tn("{n} rated result", "{n} rated results", n=contents.results),
        ratings=tn("{n} rating", "{n} ratings", n=contents.ratings),
        members=tn(
            "{n} player on the daily boards", "{n} players on the daily boards", n=contents.members
        ),
        events=tn("{n} tournament", "{n} tournaments", n=contents.events),
    )
