"""An event running by itself: a finished game's table records its result, the last
result of a round pairs the next and starts its games (each in a thread of its own, off
the event's channel), and the clock does what a crash or a restart left undone.

Exactly once, in the process that tells the event's server: a round's start is one
guarded write (`EventRepository.start_round`), each table's game is stored with the
table's link to it, and a table's result is recorded once. The clock (`tick`) starts the
tables whose threads could not be made, follows a round completed before a crash, claims
the win for a player whose opponent's clock stopped (a round never waits on a no-show)
and closes a cup's window.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from typing import Any

from data.events import EventRecord, EventRepository, TableRecord, WholeEvent
from data.repository import GameRecord, NewGame, TimeKeeping, UserRecord
from data.results import Ending, GameResult
from engine.text import Text, speaking, t
from host.announce.announcer import Poster
from host.events import rounds, words
from host.model import Channel, Direct, Reply, ServiceError, User, Where
from host.play import seats
from host.play.changes import Change, Kind
from host.play.commit import Act, Commits
from host.play.live import Loaded, user_of
from host.play.playing import Claim
from host.privacy.names import shown_name
from host.service import GameService
from host.setup import GameSetup

log = logging.getLogger(__name__)

#: Makes a public thread off a channel for a game, named so; ServiceError, saying which
#: permission is missing, where the front-end may not.
ThreadMaker = Callable[[Channel, str], Awaitable[Channel]]
#: A table's game being started by a process is left to it this long before another
#: process (or a restart) starts it instead.
STARTING_LEASE = 120.0


class Running:
    def __init__(
        self,
        service: GameService,
        repository: EventRepository,
        *,
        make_thread: ThreadMaker,
        post: Poster | None,
        shards: TimeKeeping | None,
    ) -> None:
        self.service = service
        self.repository = repository
        self.make_thread = make_thread
        #: Posts outside any command; None: what a command sets off is in its replies.
        self.post = post
        self.shards = shards
        self.clock = service.clock
        self._tasks: set[asyncio.Task[None]] = set()
        #: Rounds whose games could not all start, told so once by this process (the
        #: clock tries again quietly).
        self._refusals_told: set[tuple[int, int]] = set()
        #: One moving on of an event at a time in this process (a finish hook's and the
        #: clock's): the database guards against other processes.
        self._moving: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    async def on_finish(self, loaded: Loaded) -> list[Reply]:
        """A game ended: if it is an event's, its table records the result; the last result
        of a round starts the next."""
        found = (await self.repository.of_games([loaded.id])).get(loaded.id)
        if found is None:
            return []
        # Read by key, not the whole event: a game's end costs the same in any event.
        event = await self.repository.get(found.event_id)
        table = await self.repository.table(found.event_id, found.round, found.board)
        if event is None or table is None or table.decided_at is not None:
            return []
        decided = rounds.decided(loaded, table)
        if not await self.repository.decide_table(
            found.event_id,
            found.round,
            found.board,
            decided.results,
            self.clock(),
            forfeit=decided.forfeit,
            absent=decided.absent,
        ):
            return []
        table = await self.repository.table(found.event_id, found.round, found.board)
        assert table is not None
        names = {s.user.id: shown_name(s.user.name) for s in loaded.record.seats}
        names |= {
            s.left.id: shown_name(s.left.name) for s in loaded.record.seats if s.left is not None
        }
        replies = [words.counted(event, table, [names.get(u, "?") for u in decided.absent])]
        current = event.state == "running" and event.round == found.round
        if current and not await self.repository.undecided(found.event_id, found.round):
            replies += await self.spread(self._advance(found.event_id), event.guild_id)
        return replies

    async def tick(self, now: float) -> list[tuple[Where, list[Reply]]]:
        """What the clock finds due: stopped clocks in event games (the waiting player is
        given the win), rounds complete but not yet followed, tables without their game,
        cups whose window closed."""
        # Nobody asked for these posts: they are in the language of the event's server.
        replies: list[Reply] = []
        for game_id in await self.repository.expired_games(self.shards):
            try:
                record = await self.service.repository.get_game(game_id)
                with speaking(await self._language(record.guild_id if record else None)):
                    replies += await self._claim_for_waiting(game_id)
            except Exception:
                log.exception("game %s: claiming for the waiting player failed", game_id)
        for event_id in await self.repository.due(now, now - STARTING_LEASE, self.shards):
            try:
                event = await self.repository.get(event_id)
                with speaking(await self._language(event.guild_id if event else None)):
                    replies += await self._catch_up(event_id, now)
            except Exception:
                log.exception("event %s: its round could not be moved on", event_id)
        return _posts(replies)

    async def _language(self, guild_id: int | None) -> str:
        return (await self.service.settings.server(guild_id)).language

    async def _claim_for_waiting(self, game_id: int) -> list[Reply]:
        loaded = await self.service.loaded(game_id)
        waiting = seats.claimants(loaded)
        if loaded.record.expired_at is None or not waiting:
            return []
        claim = Claim(user_of(waiting[0].user), loaded.record.ply)
        change, replies = await self.service.announcer.change(game_id, claim)
        return _placed(change, replies)

    async def _catch_up(self, event_id: int, now: float) -> list[Reply]:
        whole = await self.whole(event_id)
        event = whole.event
        if event.state != "running":
            return []
        current = whole.round_tables(event.round)
        if event.closes_at is not None and event.closes_at <= now:
            replies = await self._close_cup(whole)
            if replies:
                return replies
        if not any(t_.decided_at is None for t_ in current):
            return await self._advance(event_id)
        return await self.open_round(event_id)

    async def _close_cup(self, whole: WholeEvent) -> list[Reply]:
        """A cup's window closed: every run still going is scored as it stands, and a run
        never begun scores nothing."""
        replies: list[Reply] = []
        for table in whole.round_tables(whole.event.round):
            if table.decided_at is not None:
                continue
            if table.game_id is None:
                await self.repository.decide_table(
                    whole.event.id,
                    table.round,
                    table.board,
                    [replace(s, place=1) for s in table.seats],
                    self.clock(),
                    forfeit=True,
                )
                continue
            replies += await self.in_thread(table, CloseRun())
        return replies

    def _turn(self, event_id: int) -> asyncio.Lock:
        lock = self._moving.get(event_id)
        if lock is None:
            lock = self._moving[event_id] = asyncio.Lock()
        return lock

    async def _advance(self, event_id: int) -> list[Reply]:
        """The round under way is complete: the next round, or the end."""
        async with self._turn(event_id):
            return await self._advanced(event_id)

    async def _advanced(self, event_id: int) -> list[Reply]:
        whole = await self.whole(event_id)
        event = whole.event
        if event.state != "running" or any(
            t_.decided_at is None for t_ in whole.round_tables(event.round)
        ):
            return []
        playing = [e for e in whole.entrants if e.state == "in"]
        planned = event.rounds or event.round
        if event.round >= planned or len(playing) < rounds.least_entrants(event):
            if not await self.repository.finish(event_id, "finished", self.clock()):
                return []
            log.info("event %s finished after round %d", event_id, event.round)
            return [replace(words.final_post(await self.whole(event_id)), where=_channel(event))]
        tables = rounds.next_tables(whole, event.round + 1)
        if not await self.repository.start_round(event_id, event.round + 1, tables, self.clock()):
            return []  # another process, or an earlier try, made it
        log.info("event %s: round %d paired", event_id, event.round + 1)
        return await self._opened(event_id)

    async def open_round(self, event_id: int) -> list[Reply]:
        """Start the games of the round under way that have none yet (each in a thread of
        its own), then post the round in the event's channel, with direct messages to the
        players who take them."""
        if self._turn(event_id).locked():
            return []  # being moved on here already: that telling posts the round
        async with self._turn(event_id):
            return await self._opened(event_id)

    async def _opened(self, event_id: int) -> list[Reply]:
        whole = await self.whole(event_id)
        event = whole.event
        replies: list[Reply] = []
        opened = 0
        refused: Text | None = None
        for table in whole.round_tables(event.round):
            if table.bye or table.decided_at is not None or table.game_id is not None:
                continue
            if not await self.repository.claim_table(
                event_id, table.round, table.board, self.clock(), STARTING_LEASE
            ):
                continue
            try:
                replies += await self._open_table(whole, table)
                opened += 1
            except ServiceError as exc:
                refused = exc.text
                log.warning("event %s: a table could not start: %s", event_id, exc.text)
                break
        whole = await self.whole(event_id)
        if refused is not None:
            if (event_id, event.round) in self._refusals_told:
                return replies
            self._refusals_told.add((event_id, event.round))
            note = t(
                "Round {round} could not start every game: {reason} It starts them as soon as it "
                "can.",
                round=event.round,
                reason=refused,
            )
            return [*replies, Reply(text=str(note), tone="error", where=_channel(event))]
        if not opened:
            return replies
        people = words.people_of(whole)
        post = replace(words.round_post(whole, event.round, people), where=_channel(event))
        return [*replies, post, *await self._direct_messages(whole, people)]

    async def _open_table(self, whole: WholeEvent, table: TableRecord) -> list[Reply]:
        event = whole.event
        players = [user_of(record_in(whole, uid)) for uid in table.user_ids]
        parent = _channel(event)
        if table.thread_id is None:
            name = words.thread_name(event, table.round, [p.name for p in players])
            thread = await self.make_thread(parent, name)
            await self.repository.set_thread(event.id, table.round, table.board, thread.channel_id)
        else:
            thread = Channel(table.thread_id, event.guild_id)
        setup = GameSetup(
            event.game,
            seed=event.seed if event.format == "cup" else None,
            deadline_minutes=None if event.format == "cup" else event.deadline_minutes,
            away=event.away,
        )
        # The bot seats the players, as it would for a rematch it was asked for.
        creator = self.service.bot_user

        async def store(new: NewGame, now: float) -> GameRecord:
            stored = await self.repository.start_table(event.id, table.round, table.board, new, now)
            if stored is None:
                raise ServiceError(t("That game has already started."))
            return stored

        change = await self.service.starting.seated_start(thread, creator, players, setup, store)
        told = await self.service.announcer.tell(change)
        return [replace(r, where=thread) for r in told]

    async def _direct_messages(self, whole: WholeEvent, people: dict[int, User]) -> list[Reply]:
        event = whole.event
        replies: list[Reply] = []
        for table in whole.round_tables(event.round):
            for uid in table.user_ids:
                settings = await self.service.settings.player(uid)
                if not settings.direct:
                    continue
                with_whom = ", ".join(
                    people[o].name for o in table.user_ids if o != uid and o in people
                )
                where = f" <#{table.thread_id}>" if table.thread_id else ""
                text = (
                    t(
                        "You have a bye in round {round} of {name}: it counts as a win.",
                        round=table.round,
                        name=words.event_name(event),
                    )
                    if table.bye
                    else t(
                        "Round {round} of {name}: you play {others}.",
                        round=table.round,
                        name=words.event_name(event),
                        others=with_whom or "—",
                    )
                )
                replies.append(
                    Reply(text=str(text) + where, where=Direct(people[uid], _channel(event)))
                )
        return replies

    # --- helpers --------------------------------------------------------------------------
    async def in_thread(self, table: TableRecord, act: Act) -> list[Reply]:
        """`act` committed on a table's game and told, in its thread."""
        assert table.game_id is not None
        try:
            change, replies = await self.service.announcer.change(table.game_id, act)
        except ServiceError as exc:
            log.info("game %s: %s", table.game_id, exc.text)
            return []
        return _placed(change, replies)

    async def deliver(self, replies: list[Reply]) -> list[Reply]:
        """Replies already made for other channels: posted there now where the front-end
        can post outside commands, else returned with the command's own."""
        if self.post is None:
            return replies
        for where, posts in _posts(replies):
            await self.post(where, posts)
        return []

    async def spread(
        self, work: Coroutine[Any, Any, list[Reply]], guild_id: int | None
    ) -> list[Reply]:
        """What a command sets off in other channels: posted as it is done (in the
        language of the server, `guild_id`) where the front-end can post outside
        commands, else returned to go with the command's replies."""
        if self.post is None:
            return await work
        language = await self._language(guild_id)
        task = asyncio.get_running_loop().create_task(self._post_when_done(work, language))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return []

    async def _post_when_done(self, work: Coroutine[Any, Any, list[Reply]], language: str) -> None:
        assert self.post is not None
        try:
            with speaking(language):
                replies = await work
        except Exception:
            log.exception("an event's round could not be set up; the clock tries again")
            return
        for where, posts in _posts(replies):
            try:
                await self.post(where, posts)
            except Exception:
                log.exception("posting an event's news in %s failed", where)

    async def settled(self) -> None:
        """Wait for what commands set off in the background (for tests and shutdown)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def whole(self, event_id: int) -> WholeEvent:
        whole = await self.repository.whole(event_id)
        if whole is None:
            raise ServiceError(t("There is no tournament #{id}.", id=event_id))
        return whole


@dataclass(frozen=True, slots=True)
class CloseRun:
    """A cup's window closed: the run ends where it stands, scored as it stood."""

    fresh: bool = True

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        if not before.record.is_live:
            raise ServiceError(t("This game is over."))
        result = GameResult(Ending.HILL_CLOSED, scores=tuple(before.state.scores()))
        after = await commits.close(before, result)
        return Change(Kind.CLOSED, after)


def _posts(replies: Sequence[Reply]) -> list[tuple[Where, list[Reply]]]:
    """Replies grouped by where they go, in order."""
    posts: list[tuple[Where, list[Reply]]] = []
    for reply in replies:
        where = reply.where
        if where is None:
            continue
        plain = replace(reply, where=None)
        if posts and posts[-1][0] == where:
            posts[-1][1].append(plain)
        else:
            posts.append((where, [plain]))
    return posts


def _placed(change: Change, replies: list[Reply]) -> list[Reply]:
    record = change.after.record
    if record.channel_id is None:
        return []
    here = Channel(record.channel_id, record.guild_id)
    return [replace(r, where=r.where or here) for r in replies if not r.ephemeral]


def _channel(event: EventRecord) -> Channel:
    return Channel(event.channel_id, event.guild_id)


def record_in(whole: WholeEvent, user_id: int) -> UserRecord:
    """An entrant's stored name, by id."""
    found = next((e.user for e in whole.entrants if e.user.id == user_id), None)
    return found if found is not None else UserRecord(user_id, "?")
