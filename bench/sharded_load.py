"""Load through Discord on PostgreSQL: the bot as two shard processes on one database.

The same fake Discord, users and Hokito load as `bench.discord_load`, with the fake's
servers spread over two shards, a PostgreSQL server of this machine's (durable: fsync
on) and two bot processes, `HILLTOP_SHARDS=0/2` and `1/2`, on one database. Each process
gets the interactions of its own servers only, as from Discord.

1. Paced: 200 channels at 50 moves/s, as on SQLite.
2. A shard killed: SIGKILL to the second process in the middle of the load, a new one
   started; every game's stored ply against the moves answered as accepted.
3. The database restarted in the middle of the load: the moves it refuses meanwhile get
   a clear answer, nothing is half applied, and the bot takes moves again by itself.
4. Capacity: the offered rate stepped up, with both processes, then with one process
   holding both shards: what the second process adds.

    python -m bench.sharded_load            # the full tables
    python -m bench.sharded_load --quick    # tiny budgets
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import asyncpg

from bench.bot_control import BotProcess
from bench.common import cores, ms, quantile, row
from bench.discord_load import (
    CAPACITY_SHARE,
    HOKITO,
    TARGET_CAPACITY,
    PlyCheck,
    check_row,
    compare_plies,
    not_measured,
    paced_rows,
    step_holds,
)
from bench.load_driver import Driver, Run, Table, finishing
from bench.procstat import CpuTimes
from tests.cogs.fake_discord import Exchange, FakeDiscord, FakeUser
from tests.postgres_server import PostgresServer

#: The words of the answer to a command the database could not take.
UNREACHABLE = "cannot reach the game database"
SHARDS = 2
#: Names this table's figures apart from the SQLite ones.
PREFIX = f"PostgreSQL, {SHARDS} shard processes: "
#: Servers in the fake: the channels are spread over them, and they over the shards.
GUILDS = 4


@dataclass(frozen=True, slots=True)
class ShardedConfig:
    channels: int = 200
    rate: float = 50.0
    seconds: float = 30.0
    #: The faults' runs: how long, and when in them the fault comes.
    fault_seconds: float = 20.0
    fault_at: float = 6.0
    #: How long the database stays down.
    outage: float = 2.0
    capacity_steps: tuple[float, ...] = (100.0, 130.0, 160.0, 200.0, 250.0, 320.0, 400.0)
    step_seconds: float = 10.0
    #: A new process's unmeasured run before its capacity steps.
    warm_seconds: float = 10.0


QUICK = ShardedConfig(
    channels=20,
    seconds=3.0,
    fault_seconds=4.0,
    fault_at=1.0,
    outage=1.0,
    capacity_steps=(60.0, 80.0),
    step_seconds=1.5,
    warm_seconds=1.0,
)
#: The least that still measures every figure: the tests run it to see that it runs.
SMOKE = replace(
    QUICK,
    channels=10,
    seconds=1.5,
    fault_seconds=2.5,
    fault_at=0.8,
    outage=0.5,
    capacity_steps=(60.0,),
    step_seconds=1.0,
    warm_seconds=0.5,
)


@dataclass
class Bots:
    """The bot processes sharing the load: their CPU together, idle together."""

    processes: list[BotProcess]

    async def idle(self) -> None:
        await asyncio.gather(*(p.idle() for p in self.processes))

    def cpu(self) -> CpuTimes:
        total = CpuTimes(0.0, 0.0)
        for process in self.processes:
            total = total + process.cpu()
        return total

    async def start(self, probe: FakeUser) -> None:
        # The process holding shard 0 first: it syncs the commands for all.
        for process in self.processes:
            await process.start(probe)

    def stop(self) -> None:
        for process in self.processes:
            process.stop()


@dataclass
class Fault:
    """What a run with a fault in it showed."""

    run: Run
    check: PlyCheck
    #: Moves answered with the database's clear error.
    told: int = 0
    #: Seconds from the database's return to the next move the bot accepted.
    recovered: float | None = None
    #: Seconds the killed process took to answer again.
    restarted: float | None = None
    notes: list[str] = field(default_factory=list)


def _said(fake: FakeDiscord, exchange: Exchange) -> str:
    if exchange.reply_id is None or exchange.reply_id not in fake.messages:
        return ""
    message = fake.message(exchange.reply_id)
    return f"{message.content} {message.text}"


async def stored_plies(url: str, tables: list[Table]) -> PlyCheck:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT channel_id, ply FROM games ORDER BY id")
    finally:
        await conn.close()
    return compare_plies([(r[0], r[1]) for r in rows], tables)


class ShardedBench:
    def __init__(
        self,
        config: ShardedConfig,
        server: PostgresServer,
        url: str,
        fake: FakeDiscord,
        logs: Path,
        emit: Callable[[str], None],
    ) -> None:
        self.config = config
        self.server = server
        self.url = url
        self.fake = fake
        self.logs = logs
        self.emit = emit
        self.driver = Driver(fake, None, seed=11)
        #: Every bot process made, to stop them all at the end.
        self.launched: list[BotProcess] = []
        self.processes = [self._process(f"{i}/{SHARDS}") for i in range(SHARDS)]
        self.bots = Bots(self.processes)
        self.channels = [
            fake.text_channel(f"hokito-{i}", guild_id=fake.guild_ids[i % len(fake.guild_ids)])
            for i in range(config.channels)
        ]
        self.tables: list[Table] = []

    def _process(self, shards: str) -> BotProcess:
        name = shards.replace("/", "-of-").replace(",", "+")
        process = BotProcess(
            self.fake, self.url, self.logs / f"bot-{name}.log", env={"HILLTOP_SHARDS": shards}
        )
        self.launched.append(process)
        return process

    def where(self, run: Run, extra: str) -> str:
        return run.conditions(f"PostgreSQL, {SHARDS} shard processes, {extra}")

    async def paced(self) -> None:
        await self.bots.start(self.driver.admin)
        self.tables = await self.driver.open_tables(self.channels, [HOKITO] * len(self.channels))
        run = await self.driver.offer(self.tables, self.config.rate, self.config.seconds, self.bots)
        for line in paced_rows(run):
            self.emit(f"| {PREFIX}{line.removeprefix('| ')}")

    async def killed_shard(self) -> None:
        victim = self.processes[-1]
        owned = set(victim.shard_ids)
        mine = [t for t in self.tables if self.fake.shard_of(self._guild(t)) in owned]
        run_task = asyncio.ensure_future(
            self.driver.offer(self.tables, self.config.rate, self.config.fault_seconds, self.bots)
        )
        async with finishing(run_task):
            await asyncio.sleep(self.config.fault_at)
            # Killed with moves of its in flight: sent, not yet answered.
            for _ in range(2000):
                if any(t.busy for t in mine):
                    break
                await asyncio.sleep(0.001)
            in_flight = sum(t.busy for t in mine)
            victim.kill()
            for table in mine:
                table.paused = True
            began = time.perf_counter()
            await victim.start(self.driver.admin)
            restarted = time.perf_counter() - began
            for table in mine:
                table.paused = False
            run = await run_task
        check = await stored_plies(self.url, self.tables)
        figure = f"{PREFIX}after SIGKILL to one in the middle of the load and a new one"
        self.emit(check_row(check, len(self.tables), figure))
        self.emit(
            row(
                f"{PREFIX}a killed shard process answering again",
                self.where(run, f"SIGKILL {self.config.fault_at:g} s into the run"),
                f"{restarted:.1f} s from SIGKILL to the new process answering; "
                f"{in_flight} of its moves in flight at the kill; its {len(mine)} channels "
                f"sent nothing meanwhile; {run.failed()} interactions failed (those in "
                "flight at the kill)",
                "report",
                "",
            )
        )

    async def database_restart(self) -> None:
        run_task = asyncio.ensure_future(
            self.driver.offer(
                [t for t in self.tables if not t.retired],
                self.config.rate,
                self.config.fault_seconds,
                self.bots,
            )
        )
        async with finishing(run_task):
            await asyncio.sleep(self.config.fault_at)
            await asyncio.to_thread(self.server.stop_server, "fast")
            down = time.perf_counter()
            await asyncio.sleep(self.config.outage)
            await asyncio.to_thread(self.server.start_server)
            back = time.perf_counter()
            run = await run_task
        check = await stored_plies(self.url, self.tables)
        told = [e for e, _ in run.moves if e.reply_ephemeral and UNREACHABLE in _said(self.fake, e)]
        after = sorted(t for t in run.accepted_at if t >= back)
        recovered = after[0] - back if after else None
        figure = "PostgreSQL restarted in the middle of the load"
        self.emit(check_row(check, len(self.tables), figure))
        self.emit(
            row(
                "PostgreSQL restarted in the middle of the load: moves told the database is "
                "unreachable / failed interactions / first accepted move after it is back",
                self.where(
                    run,
                    f"server stopped (fast) {self.config.fault_at:g} s into the run, down "
                    f"{back - down:.1f} s",
                ),
                f"{len(told)} / {run.failed()} / "
                + (f"{recovered:.2f} s" if recovered is not None else "none"),
                "clear answers; moves accepted again",
                "yes" if recovered is not None and check.lost == check.doubled == 0 else "no",
            )
        )

    async def capacity(self, label: str, bots: Bots) -> float | None:
        best: float | None = None
        for rate in self.config.capacity_steps:
            tables = [t for t in self.tables if not t.retired]
            run = await self.driver.offer(tables, rate, self.config.step_seconds, bots)
            moves = run.move_latencies()
            self.emit(
                row(
                    f"PostgreSQL capacity step, {label}: {rate:g} moves/s offered",
                    run.conditions("Hokito"),
                    f"{run.achieved:.1f}/s achieved of {run.offered:.1f}, /move p99 "
                    f"{ms(quantile(moves, 0.99))}, {run.failed()} failed",
                    f"≥ {CAPACITY_SHARE:.0%} achieved, p99 ≤ 1 s",
                    "yes" if step_holds(run) else "no",
                )
            )
            if not step_holds(run):
                break
            best = rate
        return best

    async def capacities(self) -> None:
        two = await self.capacity(f"{SHARDS} processes", self.bots)
        self.bots.stop()
        single = Bots([self._process(",".join(str(i) for i in range(SHARDS)) + f"/{SHARDS}")])
        await single.start(self.driver.admin)
        # Not measured: the new process's first move in each game reads and replays it,
        # which the two processes did before their steps.
        tables = [t for t in self.tables if not t.retired]
        await self.driver.offer(tables, self.config.rate, self.config.warm_seconds, single)
        one = await self.capacity("1 process holding both shards", single)
        single.stop()
        first = self.config.capacity_steps[0]
        shown = {
            n: f"{c:g} moves/s" if c else f"under {first:g} moves/s"
            for n, c in ((1, one), (2, two))
        }
        ratio = f"{two / one:.2f}×" if one and two else "no ratio: a first step missed"
        self.emit(
            row(
                "PostgreSQL capacity: most moves/s with ≥ 95% achieved and /move p99 ≤ 1 s, "
                "two shard processes against one holding both",
                f"{len(self.tables)} channels, {self.config.step_seconds:g} s per step, {cores()}",
                f"{shown[2]} with two processes; {shown[1]} with one ({ratio})",
                f"≥ {TARGET_CAPACITY:g} moves/s; more with the second process",
                "yes" if two and two >= TARGET_CAPACITY and (one is None or two > one) else "no",
            )
        )

    def _guild(self, table: Table) -> int:
        guild = self.fake.guild_of(table.channel_id)
        assert guild is not None
        return guild


async def measure(config: ShardedConfig, emit: Callable[[str], None]) -> None:
    with tempfile.TemporaryDirectory(prefix="hilltop-sharded-") as tmp:
        server = await asyncio.to_thread(PostgresServer(durable=True).start)
        fake = FakeDiscord(keep_uploads=False, guilds=GUILDS, shard_count=SHARDS)
        fake.lose_unrouted = True  # a killed shard's interactions fail, as on Discord
        await fake.start()
        bench: ShardedBench | None = None
        try:
            url = await asyncio.to_thread(server.create_database, "hilltop")
            bench = ShardedBench(config, server, url, fake, Path(tmp), emit)
            phases: list[tuple[str, Callable[[], Awaitable[None]]]] = [
                (f"{PREFIX}/move under a steady load", bench.paced),
                (f"{PREFIX}a shard killed", bench.killed_shard),
                ("PostgreSQL restarted in the middle of the load", bench.database_restart),
                ("PostgreSQL capacity", bench.capacities),
            ]
            for figure, phase in phases:
                try:
                    await phase()
                except Exception as exc:
                    traceback.print_exc()
                    for process in bench.launched:
                        if process.log.exists():
                            print(f"{process.log.name}:\n{process.tail()}", file=sys.stderr)
                    emit(not_measured(figure, exc))
        finally:
            for process in bench.launched if bench is not None else ():
                process.stop()
            await fake.close()
            await asyncio.to_thread(server.stop)


def run(config: ShardedConfig) -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(
        row(
            "PostgreSQL and shard processes: the bot as two processes, a fake Discord",
            "conditions",
            "measured",
            "target",
            "met",
        )
    )
    print(row("---", "---", "---", "---", "---"))

    def emit(line: str) -> None:
        print(line, flush=True)

    asyncio.run(measure(config, emit))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Load on PostgreSQL with shard processes.")
    parser.add_argument("--quick", action="store_true", help="tiny budgets, fewer channels")
    parser.add_argument("--seconds", type=float, help="length of the paced run (30)")
    args = parser.parse_args(argv)
    config = QUICK if args.quick else ShardedConfig()
    if args.seconds is not None:
        config = replace(config, seconds=args.seconds)
    run(config)


if __name__ == "__main__":
    main()
