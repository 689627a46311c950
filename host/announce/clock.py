"""What happens as time runs, told: the reminders due are sent, the decisions past their
deadline get their defaults (or the win is offered), the challenges nobody answered are
closed. The front-end's timer calls `expire_due`; so does the console before each line.
What is due is committed by `host.play.timeouts`, guarded by the stored ply, and told by
the announcer, so nothing is handled twice, by two processes or across a restart."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from data.repository import TimeKeeping
from engine.text import speaking
from host.announce.announcer import Announcer
from host.away.absences import Absences
from host.model import Channel, Direct, Reply, ServiceError, User, Where
from host.play.live import user_of
from host.play.timeouts import (
    CHALLENGE_SECONDS,
    CloseChallenge,
    PauseForAway,
    PlayDefaults,
    take_reminder,
)
from host.settings import SettingsStore

log = logging.getLogger(__name__)


#: Called at each tick, after the games' own deadlines: what else is due (an event's round
#: to start), as the replies to post with where.
TickHook = Callable[[float], Awaitable[list[tuple[Where, list[Reply]]]]]


class Clock:
    def __init__(
        self,
        announcer: Announcer,
        settings: SettingsStore,
        clock: Callable[[], float],
        shards: TimeKeeping | None = None,
        tick_hooks: Sequence[TickHook] = (),
        absences: Absences | None = None,
    ) -> None:
        self.announcer = announcer
        self.commits = announcer.commits
        self.repository = announcer.live.repository
        self.presenter = announcer.presenter
        self.settings = settings
        self.clock = clock
        #: The games this process keeps time for: its shards' servers', or the console's
        #: own server's (None: all).
        self.shards = shards
        self.tick_hooks = tick_hooks
        #: Who is away (None: away time is not kept).
        self.absences = absences

    async def expire_due(self) -> list[tuple[Where, list[Reply]]]:
        """Send the reminders due, play the default for every decision whose deadline has
        passed (or offer the win), and close the challenges nobody answered. Returns the
        replies to post, with where."""
        posts: list[tuple[Where, list[Reply]]] = []
        now = self.clock()
        # Nobody asked for these posts: they are in the language of the game's server.
        for game_id in await self.repository.reminders_due(now, self.shards):
            try:
                with speaking(await self._language(game_id)):
                    posts += await self._remind(game_id, now)
            except Exception:
                log.exception("game %s: a reminder failed", game_id)
        for game_id in await self.repository.due_games(now, self.shards):
            try:
                with speaking(await self._language(game_id)):
                    if not await self._held(game_id):
                        posts += await self._told(game_id, PlayDefaults(now))
            except Exception:
                # One broken game must not hold up every other deadline.
                log.exception("game %s: playing the default after its deadline failed", game_id)
        stale = await self.repository.stale_challenges(now - CHALLENGE_SECONDS, self.shards)
        for game_id in stale:
            try:
                with speaking(await self._language(game_id)):
                    posts += await self._told(game_id, CloseChallenge(now))
            except Exception:
                log.exception("game %s: closing an unanswered challenge failed", game_id)
        for hook in self.tick_hooks:
            try:
                posts += await hook(now)
            except Exception:
                log.exception("a clock hook failed")
        return posts

    async def _told(
        self, game_id: int, act: PlayDefaults | CloseChallenge
    ) -> list[tuple[Where, list[Reply]]]:
        """`act` committed and told in the game's channel (nothing if it was not due)."""
        try:
            change, replies = await self.announcer.change(game_id, act)
        except ServiceError:
            return []  # answered, moved on, or handled by another process meanwhile
        record = change.after.record
        if record.channel_id is None or not replies:
            return []
        return [(Channel(record.channel_id, record.guild_id), replies)]

    async def _held(self, game_id: int) -> bool:
        """A decision past its deadline whose player is away is not late: its clock
        stops instead, keeping the time it had (a game that forbids away time, such as a
        tournament's that says so, runs on)."""
        if self.absences is None:
            return False
        loaded = await self.announcer.live.locked_load(game_id, fresh=True)
        record = loaded.record
        if record.status != "active" or record.options.get("away") is False:
            return False
        people = [
            record.seats[s].user.id for s in loaded.state.to_act if not record.seats[s].user.is_bot
        ]
        away = await self.absences.of(people, fresh=True)
        if not away:
            return False
        try:
            await self.commits.apply(game_id, PauseForAway(min(a.since for a in away.values())))
        except ServiceError:
            return False
        return True

    async def _language(self, game_id: int) -> str:
        """The language of the server a game is played in."""
        record = await self.repository.get_game(game_id)
        guild = record.guild_id if record is not None else None
        return (await self.settings.server(guild)).language

    async def _remind(self, game_id: int, now: float) -> list[tuple[Where, list[Reply]]]:
        """Remind the people to act in one game, once per reminder."""
        loaded = await take_reminder(self.commits, game_id, now)
        if loaded is None:
            return []
        record = loaded.record
        people = [
            user_of(record.seats[s].user)
            for s in sorted(loaded.state.to_act)
            if not record.seats[s].user.is_bot
        ]
        posts: list[tuple[Where, list[Reply]]] = []
        in_channel: list[User] = []
        away = await self.absences.of(p.id for p in people) if self.absences else {}
        for person in people:
            if person.id in away:
                continue  # away: their clock waits for them, and so does the reminder
            settings = await self.settings.player(person.id)
            # With a daily digest, only the last reminder (none follows it) reaches them.
            if not settings.reminders or (settings.digested and record.remind_at is not None):
                continue
            if settings.direct:
                fallback = (
                    Channel(record.channel_id, record.guild_id) if record.channel_id else None
                )
                reminder = self.presenter.reminder(loaded, [person])
                posts.append((Direct(person, fallback), [reminder]))
            else:
                in_channel.append(person)
        if in_channel and record.channel_id is not None:
            where = Channel(record.channel_id, record.guild_id)
            posts.append((where, [self.presenter.reminder(loaded, in_channel)]))
        return posts
