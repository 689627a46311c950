"""The benchmark's own parts: CPU accounting, the crash check, sampled positions, the
load driver's tasks."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from bench.discord_load import HOKITO, check_plies
from bench.load_driver import Driver, Run, Table, finishing
from bench.procstat import CpuTimes, cpu_times
from bench.strength import sample_positions
from engine import registry
from tests.cogs.fake_discord import FakeDiscord


def test_cpu_of_a_child_is_counted_apart_while_it_runs_and_after_it_ends() -> None:
    before = cpu_times(os.getpid())
    busy = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass"
    child = subprocess.Popen([sys.executable, "-c", busy])
    deadline = time.monotonic() + 5
    while (running := cpu_times(os.getpid()) - before).children < 0.1:
        assert time.monotonic() < deadline and child.poll() is None
        time.sleep(0.01)
    child.wait(10)
    ended = cpu_times(os.getpid()) - before
    assert running.children < ended.children
    assert 0.3 <= ended.children < 1.5
    assert ended.own < 0.2


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
