"""Load through Discord: the real bot in its own process, a fake Discord in this one.

The fake (`tests/cogs/fake_discord.py`) serves the REST API and the gateway on 127.0.0.1
and holds the bot to Discord's rules; `bench.bot_process` runs `bot.main()` against it on
a temporary SQLite file; `bench.load_driver` plays the users.

A /move's latency runs from dispatching the interaction until its answer is visible: the
callback, or after a deferral the follow-up or edit that fills it in, or the message that
replaces it. An interaction fails when no callback comes within Discord's 3 s, Discord
refuses a request made for it, or a deferred answer does not come within 10 s.

1. Paced: Hokito in every channel, moves at a steady Poisson rate; latencies, failures,
   the bot's CPU and REST requests per move.
2. Crash: SIGKILL, a new bot process on the same file, and every game's stored ply
   against the moves answered as accepted.
3. Capacity: the offered rate stepped up until a step misses 95% of it or /move p99 > 1 s.
4. Mixed: every game, Everest against computer yeti at the default level, with a probe
   autocomplete in an idle channel; then the same with the yeti at level easy, which
   decides in a few milliseconds: the probe's difference is what the computers' thinking
   costs other channels.

    python -m bench.discord_load            # 200 channels at 50 moves/s for 30 s, and more
    python -m bench.discord_load --quick    # the same tables on tiny budgets
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sqlite3
import sys
import tempfile
import traceback
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace
from pathlib import Path

from bench.bot_control import BotProcess
from bench.common import cores, ms, quantile, row
from bench.load_driver import (
    FILL_WITHIN,
    PROBE_EVERY,
    Driver,
    Run,
    Setup,
    Table,
    requests_of,
)
from tests.cogs.fake_discord import CALLBACK_DEADLINE, FakeDiscord

#: Offered rates of the capacity run, moves per second, tried in order.
CAPACITY_STEPS = (60.0, 80.0, 100.0, 130.0, 160.0, 200.0, 250.0, 320.0, 400.0)
#: A step holds when this share of its offered rate is achieved...
CAPACITY_SHARE = 0.95
#: ...and /move p99 stays within this many seconds.
CAPACITY_P99 = 1.0
#: Computer seats in the mixed run's Everest games: one person against three yeti.
EVEREST_COMPUTERS = 3
#: The computers' level in the mixed run that measures them (None: the bot's default), and
#: in the run that stands for computers that hardly think.
THINKING = None
HARDLY_THINKING = "easy"

TARGET_MOVE_P99 = 0.250
TARGET_AUTOCOMPLETE_P99 = 0.100
TARGET_CAPACITY = 100.0
TARGET_MIXED_P99 = 0.400
TARGET_COMPUTER_DELAY = 0.050
TARGET_REQUESTS = 2.0
TARGET_CPU_MS = 12.0

HOKITO = Setup("hokito", ("alice", "bob"))


@dataclass(frozen=True, slots=True)
class LoadConfig:
    channels: int = 200
    rate: float = 50.0
    seconds: float = 30.0
    capacity_steps: tuple[float, ...] = CAPACITY_STEPS
    step_seconds: float = 10.0
    mixed_rate: float = 20.0
    mixed_seconds: float = 30.0
    #: Channels of each game in the mixed run.
    mixed_channels: int = 4


QUICK = LoadConfig(
    channels=20,
    seconds=3.0,
    capacity_steps=CAPACITY_STEPS[:2],
    step_seconds=1.0,
    mixed_seconds=2.0,
    mixed_channels=1,
)
#: The least that still measures every figure: the tests run it to see that it runs.
SMOKE = replace(
    QUICK,
    channels=10,
    seconds=1.5,
    capacity_steps=CAPACITY_STEPS[:1],
    step_seconds=1.0,
    mixed_seconds=1.0,
)


def mixed_setups(level: str | None, channels: int) -> list[Setup]:
    """`channels` of every game, and twice as many of Everest against computer yeti at
    `level`: each game gets a fifth of the moves, and Everest's take the longest."""
    return [
        Setup("everest", ("alice",), EVEREST_COMPUTERS, level),
        Setup("everest", ("alice",), EVEREST_COMPUTERS, level),
        Setup("molehill", ("alice", "bob")),
        Setup("hollowtown", ("alice", "bob")),
        HOKITO,
        Setup("hillbert", ("alice",), practice=True),
    ] * channels


# === the crash check ======================================================================
@dataclass(frozen=True, slots=True)
class PlyCheck:
    games: int
    lost: int
    doubled: int
    #: Moves whose answers never came: either count is right for them.
    unknown: int
    #: Channels whose stored games are not the ones the driver started.
    mismatched: int


def check_plies(db: Path, tables: list[Table]) -> PlyCheck:
    """Each game's stored ply against the moves the bot answered as accepted."""
    with closing(sqlite3.connect(db, timeout=5)) as conn:
        rows = conn.execute("SELECT channel_id, ply FROM games ORDER BY id").fetchall()
    return compare_plies(rows, tables)


def compare_plies(rows: Sequence[tuple[int, int]], tables: list[Table]) -> PlyCheck:
    """The stored (channel, ply) of every game, in the order they were made, against
    the moves the bot answered as accepted."""
    stored: dict[int, list[int]] = {}
    for channel, ply in rows:
        stored.setdefault(channel, []).append(ply)
    games = lost = doubled = unknown = mismatched = 0
    for table in tables:
        plies = stored.get(table.channel_id, [])
        mismatched += len(plies) != len(table.games)
        for (accepted, uncertain), ply in zip(table.games, plies, strict=False):
            games += 1
            lost += max(0, accepted - ply)
            doubled += max(0, ply - accepted - uncertain)
            unknown += uncertain
    return PlyCheck(games, lost, doubled, unknown, mismatched)


# === table rows ===========================================================================
def _met(ok: bool) -> str:
    return "yes" if ok else "no"


def _p99(samples: list[float]) -> float:
    return quantile(samples, 0.99)


def paced_rows(run: Run) -> Iterator[str]:
    where = run.conditions("Hokito, a tenth sent twice")
    moves = run.move_latencies()
    p50, p95, p99 = (quantile(moves, q) for q in (0.5, 0.95, 0.99))
    yield row(
        "/move: dispatch to visible answer, p50 / p95 / p99",
        where,
        f"{ms(p50)} / {ms(p95)} / {ms(p99)} ({len(moves)} boards; refusals, "
        f"{len(run.refusal_latencies())}: p99 {ms(_p99(run.refusal_latencies()))})",
        f"p99 ≤ {ms(TARGET_MOVE_P99)}",
        _met(p99 <= TARGET_MOVE_P99),
    )
    hints = run.latencies(run.autocompletes)
    a99 = _p99(hints)
    yield row(
        "autocomplete of /move, p50 / p99",
        where,
        f"{ms(quantile(hints, 0.5))} / {ms(a99)} (the move among the choices "
        f"{run.offered_moves} times of {len(run.autocompletes)})",
        f"p99 ≤ {ms(TARGET_AUTOCOMPLETE_P99)}",
        _met(a99 <= TARGET_AUTOCOMPLETE_P99),
    )
    begin, end = run.window
    yield row(
        "moves per second achieved: boards shown / time, steady part of the run",
        where,
        f"{run.achieved:.1f} of {run.offered:.1f} offered, over the last {end - begin:g} s "
        f"({run.accepted} accepted of {run.arrivals} arrivals, {run.doubles} sent twice; "
        f"{run.skipped} found no idle game; {run.refused} legal moves refused)",
        f"≥ {CAPACITY_SHARE:.0%} of offered",
        _met(run.keeps_up(CAPACITY_SHARE)),
    )
    yield failed_row("failed interactions", where, run)
    accepted = max(run.accepted, 1)
    own, workers = (1000 * t / accepted for t in (run.bot_cpu.own, run.bot_cpu.children))
    yield row(
        "bot CPU per accepted move (autocomplete included)",
        where,
        f"{own:.1f} ms in the bot process; {workers:.1f} ms in its worker processes",
        f"≤ {TARGET_CPU_MS:g} ms in the bot process",
        _met(own <= TARGET_CPU_MS),
    )
    answering = sum(requests_of(e) for e, _ in run.moves) / accepted
    completing = sum(requests_of(e) for e in run.autocompletes) / accepted
    yield row(
        "REST requests per accepted move",
        where,
        f"{answering:.2f} answering /move; {completing:.2f} answering autocomplete; "
        f"{run.requests / accepted:.2f} in all",
        f"≤ {TARGET_REQUESTS:g} answering /move",
        _met(answering <= TARGET_REQUESTS),
    )
    yield bench_cpu_row(where, run)


def failed_row(figure: str, where: str, run: Run) -> str:
    failed = run.failed()
    exchanges = run.exchanges()
    late = [e for e in exchanges if e.id in run.late]
    no_callback = sum(1 for e in late if e.callback is None)
    return row(
        figure,
        where,
        f"{failed} of {len(exchanges)} ({no_callback} without a callback within "
        f"{CALLBACK_DEADLINE:g} s, {len(late) - no_callback} deferred answers not in within "
        f"{FILL_WITHIN:g} s, {run.rejections} requests refused by Discord, "
        f"{run.start_failures} game starts failed)",
        "0",
        _met(failed == 0 and run.rejections == 0),
    )


def bench_cpu_row(where: str, run: Run) -> str:
    return row(
        "CPU of the benchmark process (fake Discord and users)",
        where,
        f"{100 * run.bench_cpu / run.elapsed:.0f}% of one core",
        "report",
        "",
    )


def check_row(
    check: PlyCheck,
    channels: int,
    figure: str = "after SIGKILL and a new bot process on the same file",
) -> str:
    return row(
        f"{figure}: plies lost / applied twice",
        f"{check.games} games in {channels} channels, read from the database",
        f"{check.lost} / {check.doubled} ({check.unknown} moves never answered, either way "
        f"right; {check.mismatched} channels holding other games than started)",
        "0 / 0",
        _met(check.lost == check.doubled == check.mismatched == 0),
    )


def step_holds(run: Run) -> bool:
    return run.keeps_up(CAPACITY_SHARE) and _p99(run.move_latencies()) <= CAPACITY_P99


def step_row(run: Run) -> str:
    return row(
        f"capacity step: {run.rate:g} moves/s offered",
        run.conditions(f"Hokito, load average {os.getloadavg()[0]:.1f} after"),
        f"{run.achieved:.1f}/s achieved of {run.offered:.1f} offered, /move p99 "
        f"{ms(_p99(run.move_latencies()))}, {run.failed()} failed, {run.skipped} arrivals "
        f"found no idle game; this process {100 * run.bench_cpu / run.elapsed:.0f}% of a core",
        f"≥ {CAPACITY_SHARE:.0%} achieved, p99 ≤ {CAPACITY_P99:g} s",
        _met(step_holds(run)),
    )


def capacity_row(steps: list[Run]) -> str:
    held = [r for r in steps if step_holds(r)]
    best = held[-1] if held else None
    first = steps[0]
    measured = (
        f"{best.rate:g} moves/s (p99 {ms(_p99(best.move_latencies()))})"
        if best
        else f"under {first.rate:g} moves/s (that step: {first.achieved:.1f}/s achieved, "
        f"p99 {ms(_p99(first.move_latencies()))})"
    )
    return row(
        f"capacity: most moves/s with ≥ {CAPACITY_SHARE:.0%} achieved and /move p99 ≤ "
        f"{CAPACITY_P99:g} s",
        f"{steps[0].channels} channels, {steps[0].seconds:g} s per step, {cores()}",
        measured,
        f"≥ {TARGET_CAPACITY:g} moves/s",
        _met(best is not None and best.rate >= TARGET_CAPACITY),
    )


def mixed_rows(thinking: Run, hardly: Run) -> Iterator[str]:
    where = thinking.conditions(
        f"every game, a fifth of the moves each; Everest 1 person + {EVEREST_COMPUTERS} "
        f"computers at the default level; a probe every {PROBE_EVERY * 1000:.0f} ms in one "
        "more channel"
    )
    moves = thinking.move_latencies()
    p99 = _p99(moves)
    yield row(
        "mixed: /move p50 / p99",
        where,
        f"{ms(quantile(moves, 0.5))} / {ms(p99)} ({len(moves)} boards; {thinking.skipped} "
        f"arrivals found no idle game of their kind, {hardly.skipped} at level "
        f"{HARDLY_THINKING})",
        f"p99 ≤ {ms(TARGET_MIXED_P99)}",
        _met(p99 <= TARGET_MIXED_P99),
    )
    per_game = "; ".join(
        f"{s.label} {ms(_p99(thinking.move_latencies(s.game_id)))} "
        f"({ms(_p99(hardly.move_latencies(s.game_id)))})"
        for s in dict.fromkeys(mixed_setups(THINKING, 1))
    )
    yield row(
        f"mixed: /move p99 per game (in brackets: computers at level {HARDLY_THINKING})",
        where,
        per_game,
        "report",
        "",
    )
    probe_p99, probe_max = (quantile(thinking.latencies(thinking.probes), q) for q in (0.99, 1))
    base_p99, base_max = (quantile(hardly.latencies(hardly.probes), q) for q in (0.99, 1))
    delay = probe_p99 - base_p99
    yield row(
        "computer delay: how much longer an autocomplete in an idle channel takes while "
        f"computers think; probe p99 minus its p99 with computers at level {HARDLY_THINKING}",
        where,
        f"{ms(delay)} (p99 / max: {ms(probe_p99)} / {ms(probe_max)}; at level "
        f"{HARDLY_THINKING} {ms(base_p99)} / {ms(base_max)})",
        f"≤ {ms(TARGET_COMPUTER_DELAY)}",
        _met(delay <= TARGET_COMPUTER_DELAY),
    )
    yield failed_row("mixed: failed interactions", where, thinking)
    yield failed_row(
        f"mixed: failed interactions, computers at level {HARDLY_THINKING}", where, hardly
    )
    yield bench_cpu_row(where, thinking)


def not_measured(figure: str, error: BaseException) -> str:
    reason = " ".join(str(error).split())[:300] or type(error).__name__
    return row(figure, cores(), f"not measured: {reason}", "", "no")


# === the whole measurement ================================================================
@dataclass
class Bench:
    """The fake, one bot process (replaced once, after a crash) and the users."""

    config: LoadConfig
    fake: FakeDiscord
    bot: BotProcess
    driver: Driver
    emit: Callable[[str], None]
    hokito: list[int]
    #: Channels for the mixed runs, by the computers' level; the last is the probe's.
    mixed: dict[str | None, list[int]]
    tables: list[Table] = field(default_factory=list)

    async def paced(self) -> None:
        await self.bot.start(self.driver.admin)
        self.tables = await self.driver.open_tables(self.hokito, [HOKITO] * len(self.hokito))
        run = await self.driver.offer(self.tables, self.config.rate, self.config.seconds, self.bot)
        for line in paced_rows(run):
            self.emit(line)

    async def crash(self) -> None:
        self.bot.kill()
        await self.bot.start(self.driver.admin)
        self.emit(check_row(check_plies(Path(self.bot.db), self.tables), len(self.tables)))

    async def capacity(self) -> None:
        steps: list[Run] = []
        for rate in self.config.capacity_steps:
            steps.append(
                await self.driver.offer(self.tables, rate, self.config.step_seconds, self.bot)
            )
            self.emit(step_row(steps[-1]))
            if not step_holds(steps[-1]):
                break
        self.emit(capacity_row(steps))

    async def mixed_runs(self) -> None:
        self.driver.from_db = True
        rate, seconds = self.config.mixed_rate, self.config.mixed_seconds
        tables: dict[str | None, tuple[list[Table], Table]] = {}
        for level, channels in self.mixed.items():
            setups = mixed_setups(level, self.config.mixed_channels)
            moving = await self.driver.open_tables(channels[:-1], setups)
            [probe] = await self.driver.open_tables(channels[-1:], [HOKITO])
            tables[level] = moving, probe
        # Not measured: whichever run came first would pay for the bot's first moves of
        # every game (caches filled once, worker pools started).
        await self.driver.offer(tables[HARDLY_THINKING][0], rate, seconds / 3, self.bot)
        runs: dict[str | None, Run] = {}
        for level, (moving, probe) in tables.items():
            runs[level] = await self.driver.offer(moving, rate, seconds, self.bot, probe=probe)
        for line in mixed_rows(runs[THINKING], runs[HARDLY_THINKING]):
            self.emit(line)


async def measure(config: LoadConfig, emit: Callable[[str], None]) -> None:
    """Every scenario, emitting table rows; a scenario the bot breaks is reported as not
    measured (its traceback and the bot's last output on stderr) and the rest still run."""
    with tempfile.TemporaryDirectory(prefix="hilltop-load-") as tmp:
        fake = FakeDiscord(keep_uploads=False)
        await fake.start()
        db = Path(tmp) / "hilltop.sqlite3"
        bot = BotProcess(fake, db, Path(tmp) / "bot.log")
        try:
            # Channels made before the bot connects are in its guild cache from the start.
            bench = Bench(
                config,
                fake,
                bot,
                Driver(fake, db, seed=7),
                emit,
                [fake.text_channel(f"hokito-{i}") for i in range(config.channels)],
                {
                    level: [
                        fake.text_channel(f"mixed-{i}")
                        for i in range(len(mixed_setups(level, config.mixed_channels)) + 1)
                    ]
                    for level in (HARDLY_THINKING, THINKING)
                },
            )
            phases: list[tuple[str, Callable[[], Awaitable[None]]]] = [
                ("/move under a steady load", bench.paced),
                ("plies after a crash and restart", bench.crash),
                ("capacity", bench.capacity),
                ("mixed games with computers", bench.mixed_runs),
            ]
            for figure, phase in phases:
                try:
                    await phase()
                except Exception as exc:
                    traceback.print_exc()
                    if bot.log.exists():
                        print(f"the bot's last output:\n{bot.tail()}", file=sys.stderr)
                    emit(not_measured(figure, exc))
        finally:
            bot.stop()
            await fake.close()


HEADER = (
    row(
        "Discord load: the bot in its own process, a fake Discord",
        "conditions",
        "measured",
        "target",
        "met",
    ),
    row("---", "---", "---", "---", "---"),
)


def run(config: LoadConfig) -> None:
    # A plain SIGTERM would skip the exit handlers that stop the bot process.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    for line in HEADER:
        print(line)

    def emit(line: str) -> None:
        print(line, flush=True)

    asyncio.run(measure(config, emit))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Load through Discord, as a Markdown table.")
    parser.add_argument("--quick", action="store_true", help="tiny budgets, fewer channels")
    parser.add_argument("--seconds", type=float, help="length of the paced run (30)")
    parser.add_argument("--channels", type=int, help="channels with a Hokito game (200)")
    parser.add_argument("--rate", type=float, help="moves per second offered (50)")
    args = parser.parse_args(argv)
    config = QUICK if args.quick else LoadConfig()
    changes = {k: v for k in ("seconds", "channels", "rate") if (v := getattr(args, k)) is not None}
    run(replace(config, **changes))


if __name__ == "__main__":
    main()
