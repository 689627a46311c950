"""The benchmark's own parts: CPU accounting, the crash check, sampled positions."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

from bench.discord_load import HOKITO, check_plies
from bench.load_driver import Table
from bench.procstat import cpu_times
from bench.strength import sample_positions
from engine import registry


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
