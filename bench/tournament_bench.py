"""Tournaments: a Hokito Swiss played to its end, and the pairing of a big field.

1. A Swiss with no-shows, played on a simulated clock (deadlines pass when the benchmark
   moves the clock on; nothing sleeps). Players who turn up make a few moves each, then
   one of them resigns; a no-show never moves, and their game is won for the waiting
   player by the clock (`expire_due`), which takes them out of later rounds. Each round
   ends with a /resign, so the step from a round's last result to the next round's games
   is timed around it, and a round that needed the clock's tick to start counts as stuck.
   On SQLite (one process), and on PostgreSQL with two shard processes each running an
   event of its own server at the same time: every round must be started by the process
   holding its event's shard, and by that one only (each process notes the rounds it
   started from the product's own log lines, so nothing of the product is changed).
2. `host.events.pairing.swiss` on 1,000 entrants before round 6 of random results.

    python -m bench --table tournament
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import queue
import random
import re
import signal
import statistics
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from multiprocessing.synchronize import Barrier
from pathlib import Path

from bench.common import cores, ms, quantile, row
from data.events import TableRecord, WholeEvent
from data.repository import Shards, TimeKeeping
from data.storage import Storage, open_storage
from host.events.pairing import Standing, swiss
from host.events.running import STARTING_LEASE
from host.events.service import EventSetup
from host.events.standings import Bye, Entrant, TableResult, standings
from host.face import FrontEnd, House
from host.model import Channel, User
from tests.houses import BOT, house_of
from tests.postgres_server import PostgresServer

#: The shard processes on PostgreSQL.
SHARDS = 2
ADMIN = User(1004, "root", is_admin=True)
#: The product's log lines of a round's start: the event's first round by its command,
#: a later one by the finish hook or the clock.
_EVENT_STARTED = re.compile(r"event (\d+) started:")
_ROUND_PAIRED = re.compile(r"event (\d+): round (\d+) paired")
#: How long a shard process waits for the other to be ready: a guard against a hang if
#: the other died, far past the few seconds a process takes to start.
_READY_WAIT = 600.0


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    players: int = 64
    rounds: int = 7
    #: The share of players who never move.
    no_show_share: float = 0.2
    #: Plies played in a game before its resignation.
    plies: int = 4
    #: A decision's deadline in the events' games.
    deadline_minutes: int = 60
    #: Whether the PostgreSQL run (two shard processes) is measured too.
    postgres: bool = True
    pairing_entrants: int = 1000
    #: Rounds of random results before the pairing that is timed.
    pairing_rounds: int = 5
    pairing_runs: int = 7
    seed: int = 7

    @property
    def no_shows(self) -> int:
        return round(self.players * self.no_show_share)


QUICK = TournamentConfig(players=16, rounds=4, pairing_entrants=200, pairing_runs=3)
#: The least that still measures every figure: the tests run it to see that it runs.
SMOKE = replace(
    QUICK, players=8, rounds=3, plies=2, pairing_entrants=50, pairing_rounds=2, pairing_runs=2
)


class SimulatedClock:
    """The house's clock: time passes only when the benchmark moves `now` on."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True, slots=True)
class Place:
    """Where one event is played: its server and channel, the shards of the process
    running it, and its players' ids."""

    guild_id: int
    channel_id: int
    shards: TimeKeeping | None
    first_user: int
    seed: int


@dataclass(frozen=True, slots=True)
class EventRun:
    """What one event played through showed."""

    event_id: int
    #: Seconds from the call that ended each round to every game of the next one stored.
    changes: tuple[float, ...]
    #: Rounds whose next round did not start by itself: the clock's tick started it.
    stuck: int
    rounds: int
    #: Seconds from /tournament start to the final standings.
    wall: float
    games: int
    moves: int
    #: Games won by the clock for the player waiting on a no-show.
    claimed: int
    #: No-shows out of the event at its end.
    out: int
    #: The round starts this process made, (event id, round), from its log.
    started: tuple[tuple[int, int], ...]


class RoundStarts(logging.Filter):
    """The rounds this process started, read from the product's own log lines as they
    pass (a filter, not a handler: what the log shows is left as it was)."""

    #: The loggers of the events' commands and of their running.
    LOGGERS = ("host.events.service", "host.events.running")

    def __init__(self) -> None:
        super().__init__()
        self.started: list[tuple[int, int]] = []

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if first := _EVENT_STARTED.match(text):
            self.started.append((int(first[1]), 1))
        elif later := _ROUND_PAIRED.match(text):
            self.started.append((int(later[1]), int(later[2])))
        return True


class Players:
    """The people of one event, playing its games through the house's service."""

    def __init__(
        self, house: House, clock: SimulatedClock, config: TournamentConfig, place: Place
    ) -> None:
        self.house = house
        self.clock = clock
        self.config = config
        self.guild_id = place.guild_id
        self.people = {
            uid: User(uid, f"player-{i + 1}")
            for i, uid in enumerate(range(place.first_user, place.first_user + config.players))
        }
        self.rng = random.Random(place.seed)
        self.no_shows = frozenset(self.rng.sample(sorted(self.people), config.no_shows))
        self.moves = 0

    def where(self, table: TableRecord) -> Channel:
        assert table.thread_id is not None, f"board {table.board} has no thread"
        return Channel(table.thread_id, self.guild_id)

    async def play(self, table: TableRecord, plies: int) -> None:
        """`plies` moves, seat 0 first, each the first move suggested, a second apart."""
        where = self.where(table)
        for ply in range(plies):
            player = self.people[table.user_ids[ply % 2]]
            [move, *_] = await self.house.service.suggest_moves(where, player, "")
            await self.house.service.move(where, player, move.value)
            self.moves += 1
            self.clock.now += 1.0

    async def resign(self, table: TableRecord) -> None:
        loser = self.people[self.rng.choice(table.user_ids)]
        await self.house.service.resign(self.where(table), loser, confirmed=True)


async def whole(house: House, event_id: int) -> WholeEvent:
    found = await house.events.repository.whole(event_id)
    assert found is not None, f"no event {event_id}"
    return found


def _started(event: WholeEvent, round_: int) -> bool:
    """Whether round `round_` is the event's, with every game of it stored."""
    return event.event.round == round_ and all(
        t.game_id is not None for t in event.round_tables(round_) if not t.bye and not t.decided_at
    )


async def play_event(
    storage: Storage,
    config: TournamentConfig,
    place: Place,
    ready: Callable[[], Awaitable[None]] | None = None,
) -> EventRun:
    """One Swiss made, entered, started (once `ready` returns) and played to its end."""
    clock = SimulatedClock()
    house = house_of(storage, clock=clock, front=FrontEnd(BOT, shards=place.shards))
    starts = RoundStarts()
    loggers = [logging.getLogger(name) for name in RoundStarts.LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.INFO)
        logger.addFilter(starts)
    try:
        channel = Channel(place.channel_id, place.guild_id, "tournament")
        setup = EventSetup(
            "hokito", "swiss", rounds=config.rounds, deadline_minutes=config.deadline_minutes
        )
        await house.events.create(channel, ADMIN, setup)
        [event] = await house.events.repository.live_in_channel(channel.channel_id)
        players = Players(house, clock, config, place)
        for person in players.people.values():
            await house.events.join(channel, person, event.id)
        if ready is not None:
            await ready()
        began = time.perf_counter()
        await house.events.start(channel, ADMIN, event.id)
        changes: list[float] = []
        stuck = games = claimed = 0
        while (current := await whole(house, event.id)).event.state == "running":
            round_ = current.event.round
            playing = [t for t in current.round_tables(round_) if not t.bye and not t.decided_at]
            games += len(playing)
            absent = [t for t in playing if players.no_shows & set(t.user_ids)]
            present = [t for t in playing if t not in absent]
            final = await _all_but_the_last_result(house, players, event.id, absent, present)
            claimed += len(absent)
            before = time.perf_counter()
            await final()
            after = await whole(house, event.id)
            if after.event.state != "running":
                continue
            if _started(after, round_ + 1):
                changes.append(time.perf_counter() - before)
                continue
            stuck += 1
            await _nudge(house, clock, event.id, round_ + 1)
        wall = time.perf_counter() - began
        ended = await whole(house, event.id)
        out = sum(
            1 for e in ended.entrants if e.user.id in players.no_shows and e.state == "absent"
        )
        return EventRun(
            event.id,
            tuple(changes),
            stuck,
            ended.event.round,
            wall,
            games,
            players.moves,
            claimed,
            out,
            tuple(starts.started),
        )
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeFilter(starts)
            logger.setLevel(level)
        house.close()


async def _all_but_the_last_result(
    house: House,
    players: Players,
    event_id: int,
    absent: list[TableRecord],
    present: list[TableRecord],
) -> Callable[[], Awaitable[object]]:
    """Every game of the round decided but one, which the returned call decides: the games
    of players who turned up are played and resigned, the last one held before its
    resignation; then the clock is moved past the no-shows' deadlines (not past the held
    game's) and its tick gives the waiting players the win. A round of no-shows alone ends
    with that tick."""
    clock = players.clock
    start = clock.now
    for table in absent:
        if table.user_ids[0] not in players.no_shows:
            await players.play(table, 1)
    # The games played next have their deadlines well after the no-shows' ones.
    clock.now = start + 60.0 * players.config.deadline_minutes / 2
    held = present[-1] if present else None
    for table in present:
        await players.play(table, players.config.plies)
        if table is not held:
            await players.resign(table)
    if not absent:
        assert held is not None
        return lambda: players.resign(held)
    clock.now = max([await _deadline(house, t) for t in absent]) + 1.0
    if held is None:
        return house.service.expire_due
    if await _deadline(house, held) <= clock.now:
        raise RuntimeError("the held game's deadline passed with the no-shows'")
    # A tick claims a page of games: a big round's no-shows take a few, as on the bot's
    # timer.
    left = absent
    while left:
        await house.service.expire_due()
        seen = await whole(house, event_id)
        still = [t for t in left if not _decided(seen, t)]
        if len(still) == len(left):
            boards = [t.board for t in still]
            raise RuntimeError(f"the clock did not decide the no-shows' boards {boards}")
        left = still
    return lambda: players.resign(held)


async def _deadline(house: House, table: TableRecord) -> float:
    record = await house.service.repository.get_game(table.game_id or 0)
    assert record is not None and record.deadline_at is not None, f"board {table.board}"
    return record.deadline_at


def _decided(event: WholeEvent, table: TableRecord) -> bool:
    stored = event.table(table.round, table.board)
    return stored is not None and stored.decided_at is not None


async def _nudge(house: House, clock: SimulatedClock, event_id: int, round_: int) -> None:
    """The clock's tick, as the bot's timer would run it: at once, then past the lease of
    a table whose start was begun and not finished."""
    for wait in (0.0, STARTING_LEASE + 1.0):
        clock.now += wait
        await house.service.expire_due()
        if _started(await whole(house, event_id), round_):
            return
    raise RuntimeError(f"event {event_id}: round {round_} did not start, even by the clock")


# === SQLite ============================================================================
async def sqlite_event(config: TournamentConfig) -> EventRun:
    with tempfile.TemporaryDirectory(prefix="hilltop-tournament-") as tmp:
        storage = await open_storage(Path(tmp) / "hilltop.sqlite3")
        try:
            return await play_event(storage, config, _place(0, None, config))
        finally:
            await storage.close()


def _place(shard: int, shards: TimeKeeping | None, config: TournamentConfig) -> Place:
    """A server of shard `shard` (of `SHARDS`): Discord sends a server's events to shard
    `(guild_id >> 22) % count`."""
    guild = (1_000 * SHARDS + shard) << 22
    return Place(guild, guild + 1, shards, 100_000 * (shard + 1), config.seed + shard)


# === PostgreSQL, two shard processes =====================================================
def _shard_process(
    config: TournamentConfig,
    url: str,
    shard: int,
    ready: Barrier,
    results: multiprocessing.Queue[tuple[int, EventRun | None, str | None]],
) -> None:
    """One shard process: its house, holding shard `shard`, runs its server's event."""
    try:
        played = asyncio.run(_shard_event(config, url, shard, ready))
    except BaseException:
        ready.abort()
        results.put((shard, None, traceback.format_exc()))
    else:
        results.put((shard, played, None))


async def _shard_event(config: TournamentConfig, url: str, shard: int, ready: Barrier) -> EventRun:
    storage = await open_storage(url)
    try:
        place = _place(shard, Shards((shard,), SHARDS), config)

        async def both_ready() -> None:
            await asyncio.to_thread(ready.wait, _READY_WAIT)

        return await play_event(storage, config, place, both_ready)
    finally:
        await storage.close()


def postgres_events(config: TournamentConfig) -> list[EventRun]:
    """Two shard processes on one PostgreSQL database (fsync on), each playing an event
    of its own server at the same time; the runs by shard."""
    server = PostgresServer(durable=True).start()
    processes: list[multiprocessing.process.BaseProcess] = []
    try:
        url = server.create_database("hilltop")
        asyncio.run(_migrated(url))
        context = multiprocessing.get_context("spawn")
        ready = context.Barrier(SHARDS)
        results: multiprocessing.Queue[tuple[int, EventRun | None, str | None]] = context.Queue()
        for shard in range(SHARDS):
            process = context.Process(
                target=_shard_process,
                args=(config, url, shard, ready, results),
                name=f"tournament shard {shard}",
            )
            process.start()
            processes.append(process)
        runs: dict[int, EventRun] = {}
        while len(runs) < SHARDS:
            try:
                which, played, failure = results.get(timeout=1.0)
            except queue.Empty:
                dead = [p for p in processes if p.exitcode not in (None, 0)]
                if dead:
                    raise RuntimeError(f"{dead[0].name} exited with {dead[0].exitcode}") from None
                continue
            if played is None:
                raise RuntimeError(f"shard process {which} failed:\n{failure}")
            runs[which] = played
        return [runs[shard] for shard in range(SHARDS)]
    finally:
        for child in processes:
            child.join(timeout=30)
            if child.is_alive():
                child.kill()
                child.join()
        server.stop()


async def _migrated(url: str) -> None:
    """The database made and migrated once, before the processes open it together."""
    storage = await open_storage(url)
    await storage.close()


# === pairing ============================================================================
def mid_event(entrants: int, rounds: int, seed: int) -> list[Standing]:
    """A Swiss field as pairing sees it before round `rounds + 1`: each round paired by
    `swiss`, its games won by either seat (one in ten drawn), ranked by the standings."""
    rng = random.Random(seed)
    field = [Entrant(uid, f"entrant-{uid}", uid, True) for uid in range(1, entrants + 1)]
    results: list[TableResult] = []
    byes: list[Bye] = []
    for round_ in range(1, rounds + 1):
        pairing = swiss(_standings(field, results, byes))
        for seats in pairing.tables:
            draw = rng.random()
            places = (1, 1) if draw < 0.1 else (1, 2) if draw < 0.55 else (2, 1)
            results.append(TableResult(round_, seats, places, False, None))
        byes += [Bye(round_, uid) for uid in pairing.byes]
    return _standings(field, results, byes)


def _standings(
    field: Sequence[Entrant], results: Sequence[TableResult], byes: Sequence[Bye]
) -> list[Standing]:
    met: dict[int, set[int]] = {e.user_id: set() for e in field}
    seats: dict[int, list[bool]] = {e.user_id: [] for e in field}
    for result in results:
        for seat, uid in enumerate(result.seats):
            met[uid].update(other for other in result.seats if other != uid)
            seats[uid].append(seat == 0)
    had = Counter(bye.user_id for bye in byes)
    return [
        Standing(
            line.user_id,
            Fraction(line.points),
            rank,
            frozenset(met[line.user_id]),
            had[line.user_id],
            sum(seats[line.user_id]),
            len(seats[line.user_id]) - sum(seats[line.user_id]),
            seats[line.user_id][-1] if seats[line.user_id] else None,
        )
        for rank, line in enumerate(standings(field, results, byes), start=1)
    ]


def pairing_times(config: TournamentConfig) -> list[float]:
    """Seconds of each timed pairing of the mid-event field."""
    field = mid_event(config.pairing_entrants, config.pairing_rounds, config.seed)
    times = []
    for _ in range(config.pairing_runs):
        began = time.perf_counter()
        swiss(field)
        times.append(time.perf_counter() - began)
    return times


# === the table ==========================================================================
def _event_rows(
    figure: str,
    conditions: str,
    config: TournamentConfig,
    runs: Sequence[EventRun],
    started: str | None = None,
) -> Iterator[str]:
    changes = [c for run in runs for c in run.changes]
    stuck = sum(run.stuck for run in runs)
    yield row(
        f"{figure}: stuck rounds (the next round started only by the clock's tick)",
        conditions,
        f"{stuck} of {len(changes) + stuck} round changes",
        "0",
    )
    if started is not None:
        yield row(
            f"{figure}: rounds started by the process without the event's shard",
            f"{conditions}; each process's round starts read from its log",
            started,
            "0",
        )
    yield row(
        f"{figure}: a round's last result to every game of the next round p50 / p95 / max",
        f"{conditions}; from the call of the round's final /resign to its return, "
        f"{len(changes)} round changes",
        " / ".join(ms(quantile(changes, q)) for q in (0.5, 0.95, 1.0)),
        "report",
    )
    walls = " and ".join(f"{run.wall:.1f} s" for run in runs)
    yield row(
        f"{figure}: a whole event, /tournament start to its final standings",
        conditions,
        f"{walls}: {sum(r.games for r in runs):,} games, {sum(r.moves for r in runs):,} moves, "
        f"{sum(r.claimed for r in runs):,} won by the clock, "
        f"{sum(r.out for r in runs)} of {config.no_shows * len(runs)} no-shows out at the end",
        "report",
    )


def _starters(runs: Sequence[EventRun]) -> str:
    """Rounds started by the process not holding their event's shard, and whether every
    round of each event was started exactly once."""
    owner = {run.event_id: shard for shard, run in enumerate(runs)}
    starts = [
        (event, round_, shard) for shard, run in enumerate(runs) for event, round_ in run.started
    ]
    foreign = sum(1 for event, _, shard in starts if owner.get(event) != shard)
    counted = Counter((event, round_) for event, round_, _ in starts)
    wanted = [(run.event_id, r) for run in runs for r in range(1, run.rounds + 1)]
    once = sum(1 for key in wanted if counted[key] == 1)
    extra = len(starts) - sum(counted[key] for key in wanted)
    said = f"{foreign} of {len(starts)} round starts; {once} of {len(wanted)} rounds started once"
    return said + (f", {extra} starts of rounds never played" if extra else "")


def measure(config: TournamentConfig, emit: Callable[[str], None]) -> None:
    """Each figure's rows as it is measured; a figure that raised is "not measured"."""
    parts: list[tuple[str, Callable[[], Iterator[str]]]] = [
        ("tournament, SQLite", lambda: _sqlite_rows(config)),
    ]
    if config.postgres:
        parts.append(
            (f"tournament, PostgreSQL, {SHARDS} shard processes", lambda: _postgres_rows(config))
        )
    parts.append(
        (f"Swiss pairing of {config.pairing_entrants:,} entrants", lambda: _pairing_rows(config))
    )
    for figure, rows in parts:
        try:
            for line in list(rows()):
                emit(line)
        except Exception as exc:
            traceback.print_exc()
            reason = " ".join(str(exc).split())[:300] or type(exc).__name__
            emit(row(figure, cores(), f"not measured: {reason}", ""))


def _sqlite_rows(config: TournamentConfig) -> Iterator[str]:
    machine = _machine()
    run = asyncio.run(sqlite_event(config))
    conditions = _event_conditions(config, "SQLite, one process", machine)
    yield from _event_rows("tournament, SQLite", conditions, config, [run])


def _postgres_rows(config: TournamentConfig) -> Iterator[str]:
    machine = _machine()
    runs = postgres_events(config)
    conditions = _event_conditions(
        config,
        f"PostgreSQL (fsync on), {SHARDS} shard processes on one database, each running an "
        "event of its own server at the same time",
        machine,
    )
    figure = f"tournament, PostgreSQL, {SHARDS} shard processes"
    yield from _event_rows(figure, conditions, config, runs, _starters(runs))


def _pairing_rows(config: TournamentConfig) -> Iterator[str]:
    machine = _machine()
    times = pairing_times(config)
    yield row(
        f"Swiss pairing of {config.pairing_entrants:,} entrants best / median",
        f"host.events.pairing.swiss before round {config.pairing_rounds + 1}, after "
        f"{config.pairing_rounds} rounds of random results (one in ten drawn), "
        f"{config.pairing_runs} runs, one process, {machine}",
        f"{ms(min(times))} / {ms(statistics.median(times))}",
        "< 1 s",
    )


def _event_conditions(config: TournamentConfig, backend: str, machine: str) -> str:
    return (
        f"{config.players} players of whom {config.no_shows} ({config.no_show_share:.0%}) never "
        f"move, {config.rounds} rounds of Hokito Swiss, {config.plies} plies a game then a "
        f"resignation; {backend}; simulated clock; replies returned with the command, boards "
        f"not drawn; {machine}"
    )


def _machine() -> str:
    """The cores, and how busy the (shared) machine was as a figure began."""
    return f"{cores()}, load average {os.getloadavg()[0]:.1f} at the start"


def run(config: TournamentConfig) -> None:
    # A plain SIGTERM would skip the exit handlers that stop the PostgreSQL server.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(
        row(
            "Tournaments: a Swiss played to its end, a big field paired",
            "conditions",
            "measured",
            "target",
        )
    )
    print(row("---", "---", "---", "---"))

    def emit(line: str) -> None:
        print(line, flush=True)

    measure(config, emit)
