"""Steady under saturation: the slowest hundredth of moves when every channel moves as
fast as the bot answers.

The fake Discord, the users and the Hokito games of `bench.discord_load`, in a closed
loop: each channel sends its next move (an autocomplete, then /move, a tenth of them
twice) as soon as the answer to its last one is in, for a fixed time. The real bot
(`bench.bot_process`) and the floor of the same stack, `bench.minimal_bot` (discord.py
answering each command at once with a message of a board's size), are measured by the
same driver in the same sitting, one after the other, so that their figures compare on
however loaded a machine.

1. Saturation: N channels (60) in a closed loop, the minimal bot then the real one:
   moves per second, /move p50 / p95 / p99 / max, failures, every game's stored ply
   against the moves answered as accepted.
2. A burst: 30 games started at once (/play against the computer in 30 new channels of
   one server) while 30 other channels play on in a closed loop, five times, 5 s apart;
   the others' /move p99 while the starts are answered (the moves in flight during the
   five bursts together, some 500 or more), against their p99 in the same loop without
   bursts. The servers take turns at what they share, so where the others play matters:
   each in a server of its own, as a bot's channels mostly are (the target), and all in
   one server as busy as the bursting one, which then has an equal share of the bot with
   it: twice as long a wait at most, by design (reported).

With `--trace DIR`, both bots note where each interaction's time went (`bench.bot_trace`)
and the table ends with the slowest hundredth of the real bot's moves taken apart
(`bench.tail`), of the saturation run and of the others' moves during the bursts.

    python -m bench.saturation              # 60 channels, 30 s each
    python -m bench.saturation --trace var/t # and where the slowest moves' time went
    python -m bench.saturation --only-burst # the bursts alone (and the loops without them)
    python -m bench --table saturation      # as part of `make bench`
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import tempfile
import time
import traceback
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from bench import tail
from bench.bot_control import BotProcess
from bench.common import cores, ms, quantile, row, run_table
from bench.discord_load import HOKITO, check_plies, check_row, failed_row, not_measured
from bench.load_driver import START_WITHIN, Driver, Measured, Run, Table
from tests.cogs.fake_discord import Exchange, FakeDiscord

#: The product's /move p99 under saturation: at most this many times its own p50...
TARGET_P99_OVER_P50 = 2.0
#: ...and its moves per second at least this many times the minimal bot's.
TARGET_THROUGHPUT = 1.3
#: The other channels' /move p99 during a burst, over their p99 without one.
TARGET_BURST = 2.0


@dataclass(frozen=True, slots=True)
class SaturationConfig:
    channels: int = 60
    seconds: float = 30.0
    #: An unmeasured closed loop first, so that caches and worker pools are warm.
    warm_seconds: float = 5.0
    #: The burst: channels playing on, games started at once, when in the run the first
    #: comes, how many come and how far apart.
    burst_channels: int = 30
    burst_games: int = 30
    burst_seconds: float = 28.0
    burst_at: float = 3.0
    bursts: int = 5
    burst_every: float = 5.0
    #: Measure only the burst (and the same loop without it), not the saturation runs.
    only_burst: bool = False
    #: A folder to note where each interaction's time goes in (a file per bot), and to
    #: take the slowest moves apart from; None: not noted.
    trace: Path | None = None


QUICK = SaturationConfig(
    channels=20, seconds=5.0, warm_seconds=2.0, burst_channels=10, burst_games=10,
    burst_seconds=5.0, burst_at=1.5, bursts=2, burst_every=2.0,
)  # fmt: skip
#: The least that still measures every figure: the tests run it to see that it runs.
SMOKE = SaturationConfig(
    channels=4, seconds=1.5, warm_seconds=0.5, burst_channels=3, burst_games=3,
    burst_seconds=2.0, burst_at=0.5, bursts=2, burst_every=0.8,
)  # fmt: skip


class ClosedLoop(Driver):
    """The driver's users, each channel's moving as soon as its last move is answered.

    This process keeps every exchange of the sitting (the fake's requests and messages),
    hundreds of thousands of objects a run: a full collection of them takes this process
    (and with it the fake Discord) away for up to a second, which would show as the bot's
    pause. So no collection runs during a run (what it leaves is collected after it),
    and the longest one that runs anyway is noted (`pauses`)."""

    def __init__(self, fake: FakeDiscord, db: Path | None, *, seed: int) -> None:
        super().__init__(fake, db, seed=seed)
        #: The longest garbage collection of this process during each run, in seconds.
        self.pauses: dict[int, float] = {}

    async def saturate(
        self,
        tables: list[Table],
        seconds: float,
        bot: Measured,
        *,
        meanwhile: Callable[[Run], Awaitable[object]] | None = None,
    ) -> Run:
        """Every channel in a closed loop for `seconds`; `meanwhile` (a burst) runs beside
        it. Returns once every answer is in."""
        run = Run(0.0, seconds, len(tables))
        await bot.idle()
        gc.collect()
        gc.disable()
        began = [0.0]
        self.pauses[id(run)] = 0.0

        def timed(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                began[0] = time.perf_counter()
            else:
                longest = max(self.pauses[id(run)], time.perf_counter() - began[0])
                self.pauses[id(run)] = longest

        gc.callbacks.append(timed)
        calls, rejections = len(self.fake.calls), len(self.fake.rejections)
        cpu_before, bench_before = bot.cpu(), time.process_time()
        run.start = time.perf_counter()
        until = run.start + seconds

        async def loop(table: Table) -> None:
            while time.perf_counter() < until and not table.retired:
                run.arrivals += 1
                run.arrived_at.append(time.perf_counter())
                await self._move(table, run)

        for table in tables:
            self._spawn(loop(table))
        if meanwhile is not None:
            self._spawn(meanwhile(run))
        try:
            await self._drain()
        finally:
            gc.callbacks.remove(timed)
            gc.enable()
        run.elapsed = max(seconds, time.perf_counter() - run.start)
        run.bot_cpu = bot.cpu() - cpu_before
        run.bench_cpu = time.process_time() - bench_before
        run.requests = len(self.fake.calls) - calls
        run.rejections = len(self.fake.rejections) - rejections
        return run


@dataclass(slots=True)
class Burst:
    """Games started at once in new channels of one server, while others play on; again
    every `every` seconds, so that the others' moves in flight during a burst are enough
    to take a p99 of."""

    games: int
    at: float
    every: float
    times: int
    starts: list[Exchange] = field(default_factory=list)
    #: When each burst's starts were dispatched and when the last of them was answered.
    spans: list[tuple[float, float]] = field(default_factory=list)
    failed: int = 0

    async def __call__(self, driver: ClosedLoop, run: Run) -> None:
        began = time.perf_counter()
        for n in range(self.times):
            await asyncio.sleep(max(0.0, began + self.at + n * self.every - time.perf_counter()))
            await self.once(driver)

    async def once(self, driver: ClosedLoop) -> None:
        fake = driver.fake
        stamp = len(fake.channels)
        server = fake.guild_ids[-1]
        channels = [fake.text_channel(f"burst-{stamp}-{i}", server) for i in range(self.games)]
        person = driver.people["carol"]
        began = fake.now()
        starts = list(
            await asyncio.gather(
                *(
                    fake.dispatch_slash(
                        person,
                        "play",
                        channel_id=channel,
                        game=HOKITO.game_id,
                        opponent=fake.bot_user,
                        seed=next(driver.seeds),
                    )
                    for channel in channels
                )
            )
        )
        settled = await asyncio.gather(*(driver._settle(e, START_WITHIN) for e in starts))
        self.spans.append((began, fake.now()))
        self.starts.extend(starts)
        answered = zip(settled, starts, strict=True)
        self.failed += sum(not ok or e.reply_ephemeral for ok, e in answered)

    def during(self, run: Run) -> list[Exchange]:
        """The others' accepted moves in flight while a burst's starts were answered."""
        return [
            e
            for e, _ in run.moves
            if run.ok(e)
            and not e.reply_ephemeral
            and any(e.sent_at <= b and e.sent_at + e.latency >= a for a, b in self.spans)
        ]


# === table rows ===========================================================================
def _met(ok: bool) -> str:
    return "yes" if ok else "no"


def figures(run: Run) -> tuple[float, float, float, float]:
    moves = run.move_latencies()
    p50, p95, p99, top = (quantile(moves, q) for q in (0.5, 0.95, 0.99, 1.0))
    return p50, p95, p99, top


def where(run: Run, extra: str = "") -> str:
    parts = [f"{run.channels} channels, closed loop", f"{run.seconds:g} s", "Hokito"]
    load = f"load average {os.getloadavg()[0]:.1f} after"
    return ", ".join([*parts, *([extra] if extra else []), load, cores()])


def run_row(label: str, run: Run, pause: float) -> str:
    p50, p95, p99, top = figures(run)
    return row(
        f"saturation, {label}: moves/s; /move p50 / p95 / p99 / max",
        where(run),
        f"{run.achieved:.1f} moves/s; {ms(p50)} / {ms(p95)} / {ms(p99)} / {ms(top)} "
        f"({len(run.move_latencies())} boards, {run.doubles} sent twice, {run.refused} "
        f"legal moves refused; bot CPU {1000 * run.bot_cpu.own / max(run.accepted, 1):.1f} "
        f"ms per move, workers {1000 * run.bot_cpu.children / max(run.accepted, 1):.1f} ms; "
        f"this process {100 * run.bench_cpu / run.elapsed:.0f}% of a core, its longest "
        f"garbage collection {ms(pause)})",
        "report",
        "",
    )


def saturation_rows(product: Run, minimal: Run, pauses: dict[int, float]) -> Iterator[str]:
    yield run_row("the bot", product, pauses.get(id(product), 0.0))
    yield run_row("a minimal bot on the same stack", minimal, pauses.get(id(minimal), 0.0))
    p50, _, p99, _ = figures(product)
    floor = figures(minimal)[2]
    yield row(
        "saturation: the bot's /move p99 against its own p50 and the minimal bot's p99",
        where(product, "the same sitting"),
        f"p99 {ms(p99)} = {p99 / p50:.1f}× its p50 {ms(p50)}; minimal bot's p99 {ms(floor)}",
        f"≤ {TARGET_P99_OVER_P50:g}× p50 and ≤ the minimal bot's p99",
        _met(p99 <= TARGET_P99_OVER_P50 * p50 and p99 <= floor),
    )
    ratio = product.achieved / max(minimal.achieved, 1e-9)
    yield row(
        "saturation: the bot's moves/s over the minimal bot's",
        where(product, "the same sitting"),
        f"{ratio:.2f}× ({product.achieved:.1f} / {minimal.achieved:.1f} moves/s)",
        f"≥ {TARGET_THROUGHPUT:g}×",
        _met(ratio >= TARGET_THROUGHPUT),
    )
    yield failed_row("saturation, the bot: failed interactions", where(product), product)
    yield failed_row("saturation, the minimal bot: failed interactions", where(minimal), minimal)


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the channels playing on beside a burst are: `label` names them in a row's
    title; with `target`, their row is judged against TARGET_BURST, else reported."""

    label: str
    conditions: str
    target: bool
    #: The prefix of the files a traced run keeps its moves in.
    name: str


#: The others each in a server of their own, as a bot's channels mostly are.
SPREAD = Layout(
    "the others each in a server of their own",
    "the others in as many servers",
    True,
    "spread",
)
#: The others all in one server as busy as the bursting one: an equal share of the bot.
TOGETHER = Layout(
    "the others all in one server",
    "the others in one server, which has an equal share of the bot with the bursting one",
    False,
    "together",
)


def burst_rows(calm: Run, busy: Run, burst: Burst, layout: Layout) -> Iterator[str]:
    during = [e.latency for e in burst.during(busy)]
    before, now = quantile(calm.move_latencies(), 0.99), quantile(during, 0.99)
    whole = quantile(busy.move_latencies(), 0.99)
    starts = [e.latency for e in burst.starts if e.replied_at is not None]
    spans = [end - begin for begin, end in burst.spans]
    conditions = where(
        busy,
        f"{burst.games} games started at once (/play against the computer in new channels "
        f"of another server), {burst.times} times, {burst.every:g} s apart from {burst.at:g} s "
        f"in, {layout.conditions}",
    )
    title = f"burst, {layout.label}"
    yield row(
        f"{title}: their /move p99 while the starts are answered, against it without a burst",
        conditions,
        f"{ms(now)} against {ms(before)} ({now / before:.1f}×; {len(during)} moves in flight "
        f"during the bursts, each {min(spans, default=0):.1f}–{max(spans, default=0):.1f} s "
        f"long; the whole run with the bursts: p99 {ms(whole)} ({whole / before:.1f}×), "
        f"{busy.achieved:.1f} moves/s against {calm.achieved:.1f})",
        f"≤ {TARGET_BURST:g}×" if layout.target else "report",
        _met(now <= TARGET_BURST * before) if layout.target else "",
    )
    yield row(
        f"{title}: the started games' first answer, p50 / max",
        conditions,
        f"{ms(quantile(starts, 0.5))} / {ms(quantile(starts, 1.0))} ({burst.failed} of "
        f"{burst.games * burst.times} failed)",
        "0 failed",
        _met(burst.failed == 0),
    )
    yield failed_row(f"{title}: their failed interactions", conditions, busy)


# === the whole measurement ================================================================
async def _bot(
    fake: FakeDiscord, driver: ClosedLoop, tmp: Path, name: str, module: str, trace: Path | None
) -> BotProcess:
    env = {"HILLTOP_BENCH_TRACE": str(trace / f"{name}.trace")} if trace else {}
    bot = BotProcess(fake, tmp / f"{name}.sqlite3", tmp / f"{name}.log", env, module=module)
    await bot.start(driver.admin)
    return bot


async def _product(
    config: SaturationConfig,
    fake: FakeDiscord,
    tmp: Path,
    minimal: tuple[Run, dict[int, float]] | None,
    emit: Callable[[str], None],
) -> None:
    """The real bot: warm-up, saturation (against the `minimal` bot's, unless only the
    burst is measured), then the burst and the same loop without it."""
    driver = ClosedLoop(fake, tmp / "product.sqlite3", seed=11)
    bot = await _bot(fake, driver, tmp, "product", "bench.bot_process", config.trace)
    try:
        channels = [fake.text_channel(f"saturated-{i}") for i in range(config.channels)]
        tables = await driver.open_tables(channels, [HOKITO] * len(channels))
        await driver.saturate(tables, config.warm_seconds, bot)
        if minimal is not None:
            saturated = await driver.saturate(tables, config.seconds, bot)
            floor, pauses = minimal
            for line in saturation_rows(saturated, floor, driver.pauses | pauses):
                emit(line)
            emit(check_row(check_plies(Path(bot.db), tables), len(tables), "saturation, the bot"))
            if config.trace:
                tail.keep(config.trace / "product.moves", saturated)
                for line in tail.rows(config.trace / "product.trace", saturated):
                    emit(line)
        # The others each in a server of their own (the servers after the first, but the
        # last, where the bursts come), then as many all in the first. The second layout
        # runs on a bot that has seen the bursting server's starts: it is only reported.
        servers = fake.guild_ids[1 : 1 + config.burst_channels]
        try:
            spread = [fake.text_channel(f"spread-{i}", s) for i, s in enumerate(servers)]
            spread_tables = await driver.open_tables(spread, [HOKITO] * len(spread))
            await driver.saturate(spread_tables, config.warm_seconds, bot)
        except Exception as exc:
            traceback.print_exc()
            emit(not_measured(f"burst, {SPREAD.label}", exc))
        else:
            await _burst(config, driver, bot, spread_tables, SPREAD, emit)
        await _burst(config, driver, bot, tables[: config.burst_channels], TOGETHER, emit)
    finally:
        bot.stop()


async def _burst(
    config: SaturationConfig,
    driver: ClosedLoop,
    bot: BotProcess,
    others: list[Table],
    layout: Layout,
    emit: Callable[[str], None],
) -> None:
    """The others' loop without bursts, then with them: the burst's rows."""
    try:
        calm = await driver.saturate(others, config.burst_seconds, bot)
        burst = Burst(config.burst_games, config.burst_at, config.burst_every, config.bursts)
        busy = await driver.saturate(
            others, config.burst_seconds, bot, meanwhile=lambda run: burst(driver, run)
        )
        for line in burst_rows(calm, busy, burst, layout):
            emit(line)
        if config.trace:
            tail.keep(config.trace / f"{layout.name}.calm.moves", calm)
            tail.keep(config.trace / f"{layout.name}.busy.moves", busy)
            tail.keep(config.trace / f"{layout.name}.burst.starts", busy, burst.starts)
            label = f"the others' moves during the bursts, {layout.label}"
            trace = config.trace / "product.trace"
            for line in tail.rows(trace, busy, only=burst.during(busy), label=label):
                emit(line)
    except Exception as exc:
        traceback.print_exc()
        emit(not_measured(f"burst, {layout.label}", exc))


async def _minimal(
    config: SaturationConfig, fake: FakeDiscord, tmp: Path
) -> tuple[Run, dict[int, float]]:
    """The minimal bot's saturation run, and this process's pauses in its runs."""
    driver = ClosedLoop(fake, None, seed=11)
    bot = await _bot(fake, driver, tmp, "minimal", "bench.minimal_bot", config.trace)
    try:
        channels = [fake.text_channel(f"minimal-{i}") for i in range(config.channels)]
        tables = await driver.open_tables(channels, [HOKITO] * len(channels))
        await driver.saturate(tables, config.warm_seconds, bot)
        return await driver.saturate(tables, config.seconds, bot), driver.pauses
    finally:
        bot.stop()


async def measure(config: SaturationConfig, emit: Callable[[str], None]) -> None:
    with tempfile.TemporaryDirectory(prefix="hilltop-saturation-") as tmp:
        # The saturated channels are in the first server; the bursts come in the last; the
        # servers between have one channel each playing on beside them.
        fake = FakeDiscord(keep_uploads=False, guilds=config.burst_channels + 2)
        await fake.start()
        try:
            # The floor first, then the bot: both measured in this one sitting.
            minimal = None if config.only_burst else await _minimal(config, fake, Path(tmp))
            await _product(config, fake, Path(tmp), minimal, emit)
        except Exception as exc:
            traceback.print_exc()
            emit(not_measured("saturation", exc))
        finally:
            await fake.close()


HEADER = (
    row("Saturation: every channel moving as fast as the bot answers", "conditions",
        "measured", "target", "met"),
    row("---", "---", "---", "---", "---"),
)  # fmt: skip


def run(config: SaturationConfig) -> None:
    run_table(HEADER, lambda emit: measure(config, emit))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Saturation and a burst, as a Markdown table.")
    parser.add_argument("--quick", action="store_true", help="tiny budgets, fewer channels")
    parser.add_argument(
        "--trace",
        type=Path,
        metavar="DIR",
        help="note each bot's steps in DIR, take the tail apart",
    )
    parser.add_argument("--seconds", type=float, help="length of each saturation run (30)")
    parser.add_argument("--channels", type=int, help="channels in the closed loop (60)")
    parser.add_argument(
        "--only-burst", action="store_true", help="only the burst and the loop without it"
    )
    args = parser.parse_args(argv)
    if args.trace:
        args.trace.mkdir(parents=True, exist_ok=True)
        for old in args.trace.glob("*.trace"):
            old.unlink()
    config = replace(
        QUICK if args.quick else SaturationConfig(), trace=args.trace, only_burst=args.only_burst
    )
    changes = {k: v for k in ("seconds", "channels") if (v := getattr(args, k)) is not None}
    config = replace(config, **changes)
    if config.channels < config.burst_channels:
        # Both layouts of the burst play on as many channels, of the saturated ones too.
        parser.error(f"--channels: at least {config.burst_channels} (the burst's others)")
    run(config)


if __name__ == "__main__":
    main()
