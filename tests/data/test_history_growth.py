"""No command's cost grows with the history kept. The season is played on two SQLite
databases, then one is given years of history (games played and rated, daily runs,
players and their ratings) ten times the other's; every command that reads is run on
both, and SQLite's own count of the steps of its virtual machine (the same on a busy
machine as on an idle one) must be about the same."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from console.front import Console
from data.storage import Storage, open_storage
from tests.data.conftest import make_console
from tests.data.season import PLAYED, READS

#: History added to the smaller database; the larger one gets ten times as much.
SMALL = 150
#: The most a command's steps may grow with ten times the history: a read that grew with
#: it would take several times the steps.
MOST = 1.25
#: The reads measured: each command, a later page of `/history` by its button, and the
#: sweep for deadlines and unanswered challenges the bot runs every few seconds.
MEASURED = [*READS, "alice /history", "alice /press ▶"]


def add_history(path: str, copies: int) -> None:
    """`copies` more of the season's finished game (with its seats, moves and rating
    changes) and of alice's daily run, on every other earlier day; as many other players,
    rated and members of the server, with daily totals.

    The other players are rated and ranked below the season's: a place is one more than
    the rows ahead, counted in the ranking's index, so its cost is the place (measured by
    the data-scale benchmark), not the history; and a streak is read back to the first
    day missed, so its cost is the streak."""
    with sqlite3.connect(path) as conn:
        count = (
            f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {copies})"
        )
        [[daily]] = conn.execute(
            "SELECT game_id FROM daily_runs WHERE day = (SELECT max(day) FROM daily_runs)"
        )
        for source, offset in ((1, 1_000_000), (daily, 2_000_000)):
            conn.execute(
                f"{count} INSERT INTO games (id, game, kind, guild_id, channel_id, status, seed,"
                " variant, rules_version, start_position, ply, snapshot, options, result,"
                " created_by, created_at, updated_at, finished_at, rated_at)"
                f" SELECT {offset} + i, game, kind, guild_id, channel_id, 'finished', seed,"
                " variant, rules_version, start_position, ply, snapshot, options,"
                ' COALESCE(result, \'{"ending": "rules"}\'), created_by, 1000.0 + i,'
                " 1000.0 + i, 1000.0 + i, 1000.0 + i FROM games, n WHERE id = ?",
                (source,),
            )
            conn.execute(
                f"{count} INSERT INTO seats (game_id, seat, user_id, is_bot, accepted, live,"
                f" finished_at) SELECT {offset} + i, seat, user_id, is_bot, accepted, 0,"
                " 1000.0 + i FROM seats, n WHERE game_id = ?",
                (source,),
            )
            conn.execute(
                f"{count} INSERT INTO moves (game_id, ply, seat, user_id, text, created_at)"
                f" SELECT {offset} + i, ply, seat, user_id, text, 1000.0 + i FROM moves, n"
                " WHERE game_id = ?",
                (source,),
            )
        conn.execute(
            f"{count} INSERT INTO rating_changes (scope, user_id, game_id, game, finished_at,"
            " outcome, place, mu_before, sigma_before, mu_after, sigma_after, others_mu, others)"
            " SELECT scope, user_id, 1000000 + i, game, 1000.0 + i, outcome, place, mu_before,"
            " sigma_before, mu_after, sigma_after, others_mu + i, others FROM rating_changes, n"
            " WHERE game_id = 1"
        )
        conn.execute(
            f"{count} INSERT INTO daily_runs (user_id, day, week, game_id, started_at,"
            " finished_at, score, turns, sizes)"
            " SELECT user_id, date(day, '-' || (2 * i + 1) || ' days'),"
            " strftime('%Y-W%W', date(day, '-' || (2 * i + 1) || ' days')), 2000000 + i,"
            " 1000.0 + i,"
            " 1000.0 + i, 5 + i % 7, 10, '1' FROM daily_runs, n WHERE game_id = ?",
            (daily,),
        )
        conn.execute(
            f"{count} INSERT INTO users (id, name, is_bot) SELECT 3000000 + i, 'player' || i, 0"
            " FROM n"
        )
        [[guild]] = conn.execute("SELECT guild_id FROM games WHERE id = 1")
        for scope in (0, guild):
            conn.execute(
                f"{count} INSERT INTO ratings (game, scope, user_id, mu, sigma, games, wins,"
                " draws, losses, streak) SELECT 'hokito', ?, 3000000 + i, -10.0 - (i % 301) / 10.0,"
                " 4.0, 10 + i % 5, 5, 0, 5, 0 FROM n",
                (scope,),
            )
        conn.execute(
            f"{count} INSERT INTO guild_members (guild_id, user_id) SELECT ?, 3000000 + i FROM n",
            (guild,),
        )
        # Today's runs of the other players, each with its game, and everyone's totals.
        [[alice, day, week]] = conn.execute(
            "SELECT user_id, day, week FROM daily_runs WHERE game_id = ?", (daily,)
        )
        conn.execute(
            f"{count} INSERT INTO games (id, game, kind, guild_id, channel_id, status, seed,"
            " variant, rules_version, start_position, ply, snapshot, options, result,"
            " created_by, created_at, updated_at, finished_at)"
            " SELECT 4000000 + i, game, kind, guild_id, channel_id, 'finished', seed, variant,"
            ' rules_version, start_position, ply, snapshot, options, \'{"ending": "rules"}\','
            " 3000000 + i, 1000.0, 1000.0, 1000.0 FROM games, n WHERE id = ?",
            (daily,),
        )
        conn.execute(
            f"{count} INSERT INTO daily_runs (user_id, day, week, game_id, started_at,"
            " finished_at, score, turns, sizes)"
            " SELECT 3000000 + i, ?, ?, 4000000 + i, 1000.0, 1000.0 + i, i % 40, 10, '1' FROM n",
            (day, week),
        )
        conn.execute(
            f"{count} INSERT INTO daily_totals (period, user_id, total, best, runs, last_at)"
            " SELECT period, 3000000 + i, i % 5, i % 4, 1 + i % 4, 1000.0 + i"
            " FROM n, (SELECT 'all' AS period UNION ALL SELECT ?)",
            (week,),
        )
        for period, runs in (("all", copies), (week, 1)):
            conn.execute(
                "INSERT INTO daily_totals (period, user_id, total, best, runs, last_at,"
                " unfinished) VALUES (?, ?, ?, 11, ?, 1000.0, 0)",
                (period, alice, 5 * runs, runs),
            )


async def steps_of(storage: Storage) -> list[int]:
    """A counter of the virtual machine's steps on both of the database's connections."""
    counted = [0]

    def step() -> int:
        counted[0] += 1
        return 0

    db = storage.database
    for conn in (db._reader, db._writer):  # type: ignore[attr-defined]
        await conn.set_progress_handler(step, 100)
    return counted


async def measure(tmp_path: Path, name: str, copies: int) -> dict[str, int]:
    target = str(tmp_path / f"{name}.sqlite3")
    storage = await open_storage(target)
    try:
        async with make_console(storage, tmp_path / name) as console:
            for line in PLAYED:
                await console.run_line(line)
            add_history(target, copies)
            found = await _steps(console, storage)
            output = console.stream.getvalue()  # type: ignore[attr-defined]
            assert "! " not in output and "Traceback" not in output, output
            return found
    finally:
        await storage.close()


async def _steps(console: Console, storage: Storage) -> dict[str, int]:
    counted = await steps_of(storage)
    found = {}
    for line in [*MEASURED, "sweep"]:
        for _ in range(2):  # the second time, as a player asking again would
            before = counted[0]
            if line == "sweep":
                await console.expire_deadlines()
            else:
                await console.run_line(line)
        found[line] = counted[0] - before
    return found


async def test_no_command_costs_more_with_ten_times_the_history(tmp_path: Path) -> None:
    small = await measure(tmp_path, "small", SMALL)
    large = await measure(tmp_path, "large", 10 * SMALL)
    grown = {
        line: round(large[line] / max(small[line], 1), 2)
        for line in small
        if large[line] > MOST * max(small[line], 1)
    }
    assert not grown, f"steps ×100 with 10× the history grew: {grown}\nsmall {small}\nlarge {large}"
    assert sum(small.values()) > 100  # the commands ran on the database at all
