"""Memory under load: the bot's resident memory (RSS) after 100 and after 1,000 games.

The real bot in its own process against a fake Discord (as `bench.discord_load`), Hokito
games in many channels at a steady rate of moves, each game played to its end and a new
one started in its channel. The load is offered a few seconds at a time; after each
stretch the bot is let go idle and its RSS is read from /proc, so that every reading is
taken at rest, not in the middle of a burst. The growth from the first mark to the last
is what a long-running bot would keep: a process that keeps what it frees grows with
every game, one that gives it back levels off.

    python -m bench.memory_load            # 1,000 games (several minutes)
    python -m bench.memory_load --quick    # 1 and 2 games
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bench.bot_control import BotProcess
from bench.common import cores, row
from bench.discord_load import HOKITO
from bench.load_driver import Driver, Table
from tests.cogs.fake_discord import FakeDiscord

#: At most this growth of the bot's RSS from the first mark to the last.
TARGET_GROWTH = 0.10


@dataclass(frozen=True, slots=True)
class MemoryConfig:
    channels: int = 100
    rate: float = 60.0
    #: Finished games after which the bot's RSS is read.
    marks: tuple[int, ...] = (100, 1000)
    #: Seconds of load between two looks at the games finished.
    stretch: float = 15.0


QUICK = MemoryConfig(channels=4, rate=40.0, marks=(1, 2), stretch=2.0)
#: The least that still measures every figure: the tests run it to see that it runs.
SMOKE = QUICK


def rss_kib(pid: int) -> int:
    """The resident memory of `pid` in KiB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise ProcessLookupError(pid)


def finished_games(tables: list[Table]) -> int:
    """Games played to their end: every game a table started but its last, unless the
    last is over too."""
    return sum(
        len(t.games) - (t.state is not None and bool(t.state.to_act)) for t in tables if t.games
    )


async def revive(driver: Driver, tables: list[Table]) -> None:
    """Tables left alone after an answer went missing (a machine too busy to answer in
    Discord's time) play on from their game as stored, or start the next one: this
    measure needs games played, not every answer in time."""
    for table in tables:
        if table.retired and not table.busy:
            driver._learn(table)
            table.retired = False
            if table.state is not None and not table.state.to_act:
                await driver.start_game(table)


@dataclass(frozen=True, slots=True)
class Reading:
    games: int
    rss_kib: int


async def readings(config: MemoryConfig, emit_progress: Callable[[str], None]) -> list[Reading]:
    """The bot's RSS at each mark of finished games."""
    with tempfile.TemporaryDirectory(prefix="hilltop-memory-") as tmp:
        fake = FakeDiscord(keep_uploads=False)
        await fake.start()
        db = Path(tmp) / "hilltop.sqlite3"
        bot = BotProcess(fake, db, Path(tmp) / "bot.log")
        try:
            channels = [fake.text_channel(f"memory-{i}") for i in range(config.channels)]
            driver = Driver(fake, db, seed=11)
            await bot.start(driver.admin)
            tables = await driver.open_tables(channels, [HOKITO] * len(channels))
            found: list[Reading] = []
            marks = list(config.marks)
            while marks:
                stretch = await driver.offer(tables, config.rate, config.stretch, bot)
                if not stretch.accepted:
                    raise RuntimeError(f"no move was accepted in {config.stretch:g} s of load")
                await revive(driver, tables)
                games = finished_games(tables)
                if games >= marks[0]:
                    await bot.idle()
                    reading = Reading(games, rss_kib(bot.pid))
                    emit_progress(f"{games} games: bot RSS {reading.rss_kib / 1024:.1f} MiB")
                    while marks and games >= marks[0]:
                        marks.pop(0)
                        found.append(reading)  # every mark this stretch passed
            return found
        except Exception:
            if bot.log.exists():
                print(f"the bot's last output:\n{bot.tail()}", file=sys.stderr)
            raise
        finally:
            bot.stop()
            await fake.close()


def memory_rows(config: MemoryConfig, found: list[Reading]) -> list[str]:
    where = (
        f"Hokito in {config.channels} channels, {config.rate:g} moves/s, each game played "
        f"to its end; read at rest; {cores()}"
    )
    rows = [
        row(
            f"bot RSS after {config.marks[i]:,} game{'' if config.marks[i] == 1 else 's'}",
            where,
            f"{reading.rss_kib / 1024:.1f} MiB (at {reading.games:,} finished)",
            "report",
            "",
        )
        for i, reading in enumerate(found)
    ]
    first, last = found[0], found[-1]
    growth = last.rss_kib / first.rss_kib - 1
    per_hundred = (last.rss_kib - first.rss_kib) / 1024 / max(1, last.games - first.games) * 100
    rows.append(
        row(
            f"bot RSS growth from {config.marks[0]:,} to {config.marks[-1]:,} games",
            where,
            f"{growth:+.1%} ({per_hundred:+.2f} MiB per 100 games)",
            f"≤ {TARGET_GROWTH:.0%}",
            "yes" if growth <= TARGET_GROWTH else "no",
        )
    )
    return rows


HEADER = (
    row(
        "Memory: the bot in its own process, a fake Discord",
        "conditions",
        "measured",
        "target",
        "met",
    ),
    row("---", "---", "---", "---", "---"),
)


def run(config: MemoryConfig) -> None:
    # A plain SIGTERM would skip the exit handlers that stop the bot process.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    for line in HEADER:
        print(line, flush=True)
    try:
        found = asyncio.run(readings(config, lambda text: print(text, file=sys.stderr)))
    except Exception as exc:
        traceback.print_exc()
        reason = " ".join(str(exc).split())[:300] or type(exc).__name__
        print(row("bot RSS under load", cores(), f"not measured: {reason}", "", "no"), flush=True)
        return
    for line in memory_rows(config, found):
        print(line, flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The bot's memory under load, as a table.")
    parser.add_argument("--quick", action="store_true", help="a few games")
    parser.add_argument("--games", type=int, nargs="+", help="the marks, in games (100 1000)")
    args = parser.parse_args(argv)
    config = QUICK if args.quick else MemoryConfig()
    if args.games:
        config = replace(config, marks=tuple(sorted(args.games)))
    run(config)


if __name__ == "__main__":
    main()
