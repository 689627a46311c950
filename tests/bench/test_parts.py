"""The benchmark's own parts: CPU accounting, the crash check, sampled positions, the
load driver's tasks."""

from __future__ import annotations

import asyncio
import resource
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from bench.discord_load import HOKITO, check_plies
from bench.load_driver import Driver, Run, Table, finishing
from bench.procstat import CLOCK_TICKS, CpuTimes, cpu_times
from bench.strength import sample_positions
from engine import registry
from tests.cogs.fake_discord import FakeDiscord

#: CPU the child spends spinning, in whole clock ticks (the unit of /proc): far more than
#: the rounding of a count.
BUSY_TICKS = 30


def in_ticks(seconds: float) -> int:
    """Seconds as `cpu_times` gives them, back in the whole clock ticks they were read in."""
    return round(seconds * CLOCK_TICKS)


def test_cpu_of_a_child_is_counted_apart_while_it_runs_and_after_it_ends() -> None:
    # A shell runs a child that spins for BUSY_TICKS of CPU, says so and waits to be let
    # go; the shell then waits too, so that it can be read once it has reaped the child.
    # Nothing else runs under the shell, so every count is exact up to the kernel's
    # rounding: utime and stime are each rounded down to a tick, so the count of a child
    # that spun for BUSY_TICKS may fall one tick short.
    busy = (
        "import sys, time\n"
        f"while time.process_time_ns() < {BUSY_TICKS * 1_000_000_000 // CLOCK_TICKS}: pass\n"
        "print('spun', flush=True)\n"
        "sys.stdin.readline()\n"
    )
    shell = '"$0" -c "$1" || exit; echo reaped; read _'
    reaped_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with subprocess.Popen(
        ["sh", "-c", shell, sys.executable, busy],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as parent:
        assert parent.stdin is not None and parent.stdout is not None
        assert parent.stdout.readline() == "spun\n"
        running = cpu_times(parent.pid)
        parent.stdin.write("go\n")
        parent.stdin.flush()
        assert parent.stdout.readline() == "reaped\n"
        ended = cpu_times(parent.pid)
        parent.stdin.close()
    reaped_after = resource.getrusage(resource.RUSAGE_CHILDREN)

    assert in_ticks(running.children) >= BUSY_TICKS - 1
    assert in_ticks(ended.children) >= in_ticks(running.children)
    # Counted once, in `children`: neither in `own` too nor twice. The CPU the shell and
    # its child used in all is what this process was told when it reaped the shell, in
    # microseconds, each of utime and stime rounded down.
    used_us = round(
        (reaped_after.ru_utime - reaped_before.ru_utime) * 1_000_000
        + (reaped_after.ru_stime - reaped_before.ru_stime) * 1_000_000
    )
    counted_us = (in_ticks(ended.own) + in_ticks(ended.children)) * (1_000_000 // CLOCK_TICKS)
    assert counted_us < used_us + 2


def test_the_crash_check_counts_lost_and_doubled_plies(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, channel_id INTEGER, ply INT)")
        conn.executemany(
            "INSERT INTO games (channel_id, ply) VALUES (?, ?)",
            [(1, 30), (2, 4), (1, 5), (3, 7), (4, 2), (5, 1)],
        )
        conn.commit()
    tables = [Table(c, HOKITO) for c in (1, 2, 3, 4, 5)]
    tables[0].games = [[30, 0], [5, 0]]  # two games, both as answered
    tables[1].games = [[6, 0]]  # two answered moves are not stored
    tables[2].games = [[5, 1]]  # one move too many, beyond the one never answered
    tables[3].games = [[1, 1]]  # the unanswered move was applied: right either way
    check = check_plies(db, tables)
    assert (check.games, check.lost, check.doubled, check.unknown) == (5, 2, 1, 2)
    assert check.mismatched == 1  # channel 5 holds a game nobody started


def test_every_sampled_position_has_a_seat_to_act() -> None:
    for game in registry.all_games():
        positions = list(sample_positions(game, game.min_players, 4))
        assert len(positions) == 4
        assert all(p.to_act for p in positions)
    hillbert = registry.get("hillbert")
    assert any(
        p.to_text() != hillbert.new_state(s + 1, 1, None).to_text()
        for s, p in enumerate(sample_positions(hillbert, 1, 4))
    )


class IdleBot:
    """A bot under load that is always idle and costs nothing."""

    async def idle(self) -> None:
        pass

    def cpu(self) -> CpuTimes:
        return CpuTimes(0.0, 0.0)


def hokito_tables(driver: Driver) -> list[Table]:
    table = Table(driver.fake.text_channel("hokito"), HOKITO)
    table.follow(registry.get("hokito").new_state(1, 2, None))
    table.games.append([0, 0])
    return [table]


def driver_without_discord() -> Driver:
    return Driver(FakeDiscord(), None, seed=1)


async def test_a_move_that_fails_unexpectedly_fails_its_run_once_every_move_is_done() -> None:
    driver = driver_without_discord()
    finished: list[str] = []

    async def play(table: Table, seat: int, run: Run) -> None:
        await asyncio.sleep(0)
        finished.append("move")
        raise ConnectionResetError("Cannot write to closing transport")

    driver._play = play  # type: ignore[method-assign]
    # A rate this high makes the first arrival due within the run, whatever the draw.
    with pytest.raises(ConnectionResetError):
        await driver.offer(hokito_tables(driver), 10_000.0, 0.05, IdleBot())
    assert finished and driver._tasks == set()


async def test_a_block_beside_a_run_that_fails_cancels_the_run_and_waits_for_it() -> None:
    driver = driver_without_discord()
    moving = asyncio.Event()

    async def play(table: Table, seat: int, run: Run) -> None:
        moving.set()
        await asyncio.Event().wait()  # an answer that never comes

    driver._play = play  # type: ignore[method-assign]
    run = asyncio.ensure_future(driver.offer(hokito_tables(driver), 10_000.0, 60.0, IdleBot()))
    with pytest.raises(RuntimeError, match="did not come back"):
        async with finishing(run):
            await moving.wait()
            raise RuntimeError("the bot did not come back")
    assert run.cancelled() and driver._tasks == set()
