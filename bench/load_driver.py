"""The users of a load run: they start games and play moves through a fake Discord.

Each channel has a `Table`: how its games start and the driver's copy of the position, to
choose legal moves from. A move is an autocomplete of `/move` with the first characters of
a legal move, answered before `/move` itself is sent; a tenth of the moves are sent twice
at once (a double Enter). `Driver.offer` sends moves as a Poisson process, each in a random
channel whose game is live and has no move in flight, and returns a `Run`: every exchange,
what the bot accepted, and the CPU and requests it took.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bench.common import cores
from bench.procstat import CpuTimes
from engine import registry
from engine.core import GameState
from tests.cogs.fake_discord import (
    CALLBACK_DEADLINE,
    MANAGE_GUILD,
    MEMBER_PERMISSIONS,
    Exchange,
    FakeDiscord,
)

#: How long a deferred answer may take before its interaction counts as failed.
FILL_WITHIN = 10.0
#: Time for a callback refused as late to reach the fake, beyond Discord's deadline.
CALLBACK_GRACE = 0.5
#: A game start may be slow (computers move first); longer than this is a failure.
START_WITHIN = 30.0
#: Beyond the sum of the limits above: a task still running then is cut short.
DRAIN_WITHIN = 60.0
DOUBLE_SHARE = 0.10
PROBE_EVERY = 0.1
PEOPLE = ("alice", "bob", "carol", "dave")


class Measured(Protocol):
    """The bot under load: one process, or several sharing the work."""

    async def idle(self) -> None: ...

    def cpu(self) -> CpuTimes: ...


class StartError(RuntimeError):
    """The bot did not start a game it was asked to."""


@dataclass(frozen=True, slots=True)
class Setup:
    """How a channel's games are started."""

    game_id: str
    #: The people in seat order; computers take the seats after them.
    people: tuple[str, ...]
    computers: int = 0
    #: The computers' level; None for the bot's default.
    level: str | None = None
    #: Started with /play by its one player (a practice game), not /admin start.
    practice: bool = False

    @property
    def label(self) -> str:
        name = registry.get(self.game_id).name
        if not self.computers:
            return name
        level = f", {self.level}" if self.level else ""
        return f"{name} ({len(self.people)} + {self.computers} computers{level})"


@dataclass(slots=True)
class Table:
    """A channel and the driver's copy of its game."""

    channel_id: int
    setup: Setup
    state: GameState[Any] | None = None
    #: Per game started here, in order: moves answered as accepted, and moves whose fate
    #: is unknown because their answers never came.
    games: list[list[int]] = field(default_factory=list)
    busy: bool = False
    #: Left alone after an answer went missing: its position is no longer known.
    retired: bool = False
    #: Sent nothing for a while (its bot process is down).
    paused: bool = False
    #: A person's seat that must act in `state`; None when only computers can, or none.
    to_move: int | None = None

    def follow(self, state: GameState[Any]) -> None:
        self.state = state
        people = [s for s in sorted(state.to_act) if s < len(self.setup.people)]
        self.to_move = people[0] if people else None

    def seat_to_move(self) -> int | None:
        """A person's seat that must act, if the game is live and nothing is in flight."""
        return None if self.busy or self.retired or self.paused else self.to_move


@dataclass(slots=True)
class Run:
    """What happened during one offered load."""

    rate: float
    seconds: float
    channels: int
    #: `time.perf_counter()` when the run began.
    start: float = 0.0
    #: When each arrival came (skipped ones too), and when each accepted move's board
    #: showed.
    arrived_at: list[float] = field(default_factory=list)
    accepted_at: list[float] = field(default_factory=list)
    arrivals: int = 0
    #: Arrivals that found no channel live and idle: not sent, not counted as moves.
    skipped: int = 0
    doubles: int = 0
    #: Moves that were among their autocomplete's choices.
    offered_moves: int = 0
    accepted: int = 0
    #: Legal moves every copy of which the bot refused.
    refused: int = 0
    #: Every /move sent, with its game's id.
    moves: list[tuple[Exchange, str]] = field(default_factory=list)
    autocompletes: list[Exchange] = field(default_factory=list)
    probes: list[Exchange] = field(default_factory=list)
    #: Ids of exchanges given up on: no callback in time, or no answer within FILL_WITHIN.
    late: set[int] = field(default_factory=set)
    start_failures: int = 0
    #: Seconds from the first arrival until every answer was in.
    elapsed: float = 0.0
    bot_cpu: CpuTimes = field(default_factory=lambda: CpuTimes(0.0, 0.0))
    #: CPU seconds of this process (the fake Discord and the users).
    bench_cpu: float = 0.0
    #: REST requests the fake received, and refused, during the run.
    requests: int = 0
    rejections: int = 0

    def ok(self, exchange: Exchange) -> bool:
        return (
            exchange.id not in self.late
            and exchange.callback is not None
            and exchange.replied_at is not None
            and not exchange.refusals
            and all(c.status < 400 for c in exchange.calls)
        )

    def exchanges(self) -> list[Exchange]:
        return [e for e, _ in self.moves] + self.autocompletes + self.probes

    def failed(self) -> int:
        return sum(not self.ok(e) for e in self.exchanges()) + self.start_failures

    def move_latencies(self, game_id: str | None = None) -> list[float]:
        """Seconds until the board showed, for every /move the bot accepted."""
        return [
            e.latency
            for e, g in self.moves
            if self.ok(e) and not e.reply_ephemeral and game_id in (None, g)
        ]

    def refusal_latencies(self) -> list[float]:
        """Seconds until a refusal showed (the second copy of a double Enter, mostly)."""
        return [e.latency for e, _ in self.moves if self.ok(e) and e.reply_ephemeral]

    def latencies(self, exchanges: list[Exchange]) -> list[float]:
        return [e.latency for e in exchanges if self.ok(e)]

    @property
    def window(self) -> tuple[float, float]:
        """The steady part of the run: all but its first fifth (at most a second), while
        boards of moves sent earlier are still arriving and the last ones not yet sent."""
        return self.start + min(1.0, 0.2 * self.seconds), self.start + self.seconds

    def _rate_in_window(self, times: list[float]) -> float:
        begin, end = self.window
        return sum(1 for t in times if begin <= t < end) / (end - begin)

    @property
    def achieved(self) -> float:
        """Accepted moves per second: boards shown within the window over its length."""
        return self._rate_in_window(self.accepted_at)

    @property
    def offered(self) -> float:
        """Arrivals per second within the window: `rate` give or take a Poisson draw."""
        return self._rate_in_window(self.arrived_at)

    def keeps_up(self, share: float) -> bool:
        return self.achieved >= share * self.offered

    def conditions(self, extra: str = "") -> str:
        parts = [f"{self.channels} channels", f"{self.rate:g}/s offered", f"{self.seconds:g} s"]
        return ", ".join([*parts, *([extra] if extra else []), cores()])


@contextlib.asynccontextmanager
async def finishing(task: asyncio.Future[Any]) -> AsyncIterator[None]:
    """A block that runs beside `task`: should it fail, `task` is cancelled and waited
    for, so that no move of a run outlives the fake Discord it talks to."""
    try:
        yield
    finally:
        if not task.done():
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def requests_of(exchange: Exchange) -> int:
    """Requests the bot made for one interaction: callbacks (refused ones too), follow-ups,
    edits, deletes."""
    return (exchange.callback is not None) + len(exchange.refusals) + len(exchange.calls)


class Driver:
    """Plays the users of every channel through the fake."""

    def __init__(self, fake: FakeDiscord, db: Path | None, *, seed: int) -> None:
        self.fake = fake
        self.db = db
        self.admin = fake.user("root", permissions=MEMBER_PERMISSIONS | MANAGE_GUILD)
        self.people = {name: fake.user(name) for name in PEOPLE}
        self.rng = random.Random(seed)
        self.seeds = itertools.count(seed * 1000 + 1)
        #: Learn each position from the database after every answer, for games where
        #: computers move inside the bot; otherwise the driver plays its own moves.
        self.from_db = False
        self._tasks: set[asyncio.Future[object]] = set()
        #: Errors of finished tasks that the run does not count, raised by `_drain`.
        self._failures: list[BaseException] = []

    # --- starting games ------------------------------------------------------------------
    async def open_tables(self, channels: Sequence[int], setups: Sequence[Setup]) -> list[Table]:
        tables = [Table(c, s) for c, s in zip(channels, setups, strict=True)]
        gate = asyncio.Semaphore(4)

        async def start(table: Table) -> None:
            async with gate:
                await self.start_game(table)

        await asyncio.gather(*(start(t) for t in tables))
        return tables

    async def start_game(self, table: Table) -> None:
        """A new game in the table's channel, through the real commands."""
        setup = table.setup
        seed = next(self.seeds)
        if setup.practice:
            exchange = await self.fake.dispatch_slash(
                self.people[setup.people[0]],
                "play",
                channel_id=table.channel_id,
                game=setup.game_id,
                seed=seed,
            )
        else:
            players = {f"player{i + 1}": self.people[p] for i, p in enumerate(setup.people)}
            extra: dict[str, object] = {"computers": setup.computers} if setup.computers else {}
            if setup.level:
                extra["level"] = setup.level
            exchange = await self.fake.dispatch_slash(
                self.admin,
                "admin start",
                channel_id=table.channel_id,
                game=setup.game_id,
                seed=seed,
                **players,
                **extra,
            )
        if not await self._settle(exchange, START_WITHIN) or exchange.reply_ephemeral:
            said = "no answer"
            if exchange.reply_id in self.fake.messages:
                message = self.fake.message(exchange.reply_id)
                said = " ".join(f"{message.content} {message.text}".split())
            raise StartError(f"{setup.label} did not start in a channel: {said}")
        table.games.append([0, 0])
        if self.from_db:
            self._learn(table)
        else:
            seats = len(setup.people) + setup.computers
            table.follow(registry.get(setup.game_id).new_state(seed, seats, None))

    def _learn(self, table: Table) -> None:
        """The table's position as the bot stored it (in the SQLite file)."""
        if self.db is None:
            raise StartError("positions are read from an SQLite database only")
        with closing(sqlite3.connect(self.db, timeout=5)) as conn:
            found = conn.execute(
                "SELECT game, snapshot FROM games WHERE channel_id = ? ORDER BY id DESC LIMIT 1",
                (table.channel_id,),
            ).fetchone()
        if found is None:
            raise StartError(f"no game stored for channel {table.channel_id}")
        table.follow(registry.get(found[0]).from_text(found[1]))

    async def _settle(self, exchange: Exchange, within: float, run: Run | None = None) -> bool:
        """Wait for the callback, then up to `within` seconds more for a deferred answer;
        False if the interaction failed (noted in `run` if it was given up on)."""
        try:
            await asyncio.wait_for(exchange.answered.wait(), CALLBACK_DEADLINE + CALLBACK_GRACE)
            if exchange.callback is not None and not exchange.replied.is_set():
                await asyncio.wait_for(exchange.replied.wait(), within)
        except TimeoutError:
            if run is not None:
                run.late.add(exchange.id)
            return False
        return exchange.callback is not None

    # --- load -----------------------------------------------------------------------------
    async def offer(
        self,
        tables: list[Table],
        rate: float,
        seconds: float,
        bot: Measured,
        *,
        probe: Table | None = None,
    ) -> Run:
        """Poisson arrivals at `rate` per second for `seconds`, each one move in a random
        live, idle channel; then wait for every answer. Each kind of game (`Setup`) gets an
        equal share of the arrivals, however long its moves take, so that runs differing in
        one kind load the others alike. With `probe`, an autocomplete in that channel every
        PROBE_EVERY seconds meanwhile."""
        if not tables:
            raise StartError("no games to play")
        run = Run(rate, seconds, len(tables))
        arrivals = random.Random(self.rng.random())
        kinds: dict[Setup, list[Table]] = {}
        for table in tables:
            kinds.setdefault(table.setup, []).append(table)
        shares = list(kinds.values())
        await bot.idle()
        calls, rejections = len(self.fake.calls), len(self.fake.rejections)
        cpu_before, bench_before = bot.cpu(), time.process_time()
        start = run.start = time.perf_counter()
        if probe is not None:
            self._spawn(self._probe(probe, run, start + seconds))
        due = start
        try:
            while (due := due + arrivals.expovariate(rate)) < start + seconds:
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                run.arrivals += 1
                run.arrived_at.append(due)
                idle = [t for t in arrivals.choice(shares) if t.seat_to_move() is not None]
                if not idle:
                    run.skipped += 1
                    continue
                self._spawn(self._move(self.rng.choice(idle), run))
        except BaseException:
            # Cut short: nothing of this run may outlive it; its own error is the one told.
            for task in self._tasks:
                task.cancel()
            with contextlib.suppress(Exception):
                await asyncio.shield(self._drain())
            raise
        await self._drain()
        run.elapsed = max(seconds, time.perf_counter() - start)
        run.bot_cpu = bot.cpu() - cpu_before
        run.bench_cpu = time.process_time() - bench_before
        run.requests = len(self.fake.calls) - calls
        run.rejections = len(self.fake.rejections) - rejections
        return run

    def _spawn(self, work: Awaitable[object]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Future[object]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            self._failures.append(error)

    async def _drain(self) -> None:
        """Every move and game start in flight finished, each bounded by its own time
        limits, and its outcome retrieved: a task that failed in a way the run does not
        count makes this raise its error once all are done."""
        while self._tasks:
            _, late = await asyncio.wait(set(self._tasks), timeout=DRAIN_WITHIN)
            for task in late:
                task.cancel()
        failures, self._failures = self._failures, []
        if failures:
            raise failures[0]

    async def _move(self, table: Table, run: Run) -> None:
        seat = table.seat_to_move()
        if seat is None:
            # Taken (or paused) between the offer and this task's start: the offer lapses.
            run.skipped += 1
            return
        table.busy = True
        try:
            await self._play(table, seat, run)
        except asyncio.CancelledError:
            table.retired = True
            raise
        except StartError:
            run.start_failures += 1
            table.retired = True
        finally:
            table.busy = False

    async def _play(self, table: Table, seat: int, run: Run) -> None:
        state = table.state
        assert state is not None
        moves = state.legal_moves(seat)
        move = moves[self.rng.randrange(len(moves))]
        text = state.move_text(move)
        user = self.people[table.setup.people[seat]]
        channel = table.channel_id
        typed = text[: self.rng.choice((1, 2))]
        hint = await self.fake.dispatch_autocomplete(
            user, "move", "text", channel_id=channel, text=typed
        )
        run.autocompletes.append(hint)
        # As a Discord client does: picking a choice sends its value (the move and the turn
        # it was offered for), whatever its name shows; a move not offered is typed out.
        if await self._settle(hint, 0.0, run) and (
            offered := [c["value"] for c in hint.choices if c["value"].rsplit(" @", 1)[0] == text]
        ):
            run.offered_moves += 1
            text = str(offered[0])
        copies = 2 if self.rng.random() < DOUBLE_SHARE else 1
        run.doubles += copies == 2
        sent = [
            await self.fake.dispatch_slash(user, "move", channel_id=channel, text=text)
            for _ in range(copies)
        ]
        run.moves += [(e, table.setup.game_id) for e in sent]
        try:
            answered = await asyncio.gather(*(self._settle(e, FILL_WITHIN, run) for e in sent))
        except asyncio.CancelledError:
            table.games[-1][1] += 1
            raise
        boards = [e for e, ok in zip(sent, answered, strict=True) if ok and not e.reply_ephemeral]
        if boards:
            run.accepted += 1
            run.accepted_at.append(min(e.sent_at + e.latency for e in boards))
            table.games[-1][0] += 1
        elif all(answered):
            run.refused += 1
        else:
            table.games[-1][1] += 1
            table.retired = True
            return
        if self.from_db:
            self._learn(table)
        elif boards:
            table.follow(state.play(seat, move))
        if table.state is not None and not table.state.to_act:
            await self.start_game(table)

    async def _probe(self, table: Table, run: Run, until: float) -> None:
        """An autocomplete in an idle channel every PROBE_EVERY seconds: how long a quick
        answer in any channel waits while the bot is busy elsewhere."""
        user = self.people[table.setup.people[0]]
        due = time.perf_counter()
        while (due := due + PROBE_EVERY) < until:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            exchange = await self.fake.dispatch_autocomplete(
                user, "move", "text", channel_id=table.channel_id, text=""
            )
            run.probes.append(exchange)
            self._spawn(self._settle(exchange, 0.0, run))
