"""The daily challenge: leaderboard queries over many stored results, and par."""

from __future__ import annotations

import statistics
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from bench.common import percentiles
from data.sqlite.daily import SqliteDailyRepository
from data.sqlite.db import Database
from engine.hillbert_par import greedy, par
from host.daily.calendar import iso_week

USERS = 5000
DAYS = 20  # 5,000 players x 20 days = 100,000 results
FIRST_DAY = date(2026, 11, 1)


async def _fill(db: Database) -> None:
    """100,000 finished runs written straight into the tables (the same rows the service
    writes), with the running totals they imply."""
    async with db.transaction() as conn:
        await conn.executemany(
            "INSERT INTO users (id, name) VALUES (?, ?)",
            [(u, f"player{u}") for u in range(1, USERS + 1)],
        )
        await conn.executemany(
            "INSERT INTO guild_members (guild_id, user_id) VALUES (?, ?)",
            [(1 + u % 20, u) for u in range(1, USERS + 1)],
        )
        games, runs = [], []
        totals: dict[tuple[str, int], list[int]] = {}
        game_id = 0
        for d in range(DAYS):
            day = FIRST_DAY + timedelta(days=d)
            for u in range(1, USERS + 1):
                game_id += 1
                score = (u * 7919 + d * 104729) % 500
                turns = 20 + (u * 31 + d) % 200
                games.append((game_id, u))
                runs.append(
                    (
                        u,
                        day.isoformat(),
                        iso_week(day),
                        game_id,
                        d * 86400.0,
                        d * 86400.0 + u,
                        score,
                        turns,
                        "1" * 10,
                    )
                )
                for period in ("all", iso_week(day)):
                    entry = totals.setdefault((period, u), [0, 0, 0])
                    entry[0] += score
                    entry[1] = max(entry[1], score)
                    entry[2] += 1
        await conn.executemany(
            "INSERT INTO games (id, game, kind, status, seed, rules_version, snapshot,"
            " created_by, created_at, updated_at) VALUES (?, 'hillbert', 'daily',"
            " 'finished', 1, 1, 'x', ?, 0, 0)",
            games,
        )
        await conn.executemany(
            "INSERT INTO daily_runs (user_id, day, week, game_id, started_at, finished_at,"
            " score, turns, sizes) VALUES (?,?,?,?,?,?,?,?,?)",
            runs,
        )
        await conn.executemany(
            "INSERT INTO daily_totals (period, user_id, total, best, runs, last_at)"
            " VALUES (?,?,?,?,?,0)",
            [(p, u, *v) for (p, u), v in totals.items()],
        )


async def leaderboard_query(repeats: int = 200) -> dict[str, tuple[float, float]]:
    """p50/p95 ms of one board query plus the caller's rank, per period and scope."""
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "daily.sqlite3")
        try:
            await _fill(db)
            repo = SqliteDailyRepository(db)
            day = (FIRST_DAY + timedelta(days=DAYS - 1)).isoformat()
            week = iso_week(FIRST_DAY + timedelta(days=DAYS - 1))
            out = {}
            for label, guild in (("global", None), ("server", 3)):
                for period in ("today", "week", "all"):
                    samples = []
                    for i in range(repeats):
                        user = 1 + (i * 37) % USERS
                        start = time.perf_counter()
                        if period == "today":
                            await repo.day_board(day, guild, 10)
                            await repo.day_rank(day, guild, user)
                        else:
                            key = week if period == "week" else "all"
                            await repo.total_board(key, guild, 10)
                            await repo.total_rank(key, guild, user)
                        samples.append((time.perf_counter() - start) * 1000)
                    p50, p95, _ = percentiles(samples)
                    out[f"{period} / {label}"] = (p50, p95)
            return out
        finally:
            await db.close()


def par_against_greedy(seeds: int = 30) -> tuple[float, float, float, float]:
    """(mean par, mean greedy, median seconds per par search, max seconds)."""
    pars, greedies, seconds = [], [], []
    for seed in range(1, seeds + 1):
        start = time.perf_counter()
        pars.append(par(seed).score)
        seconds.append(time.perf_counter() - start)
        greedies.append(greedy(seed))
    return (
        statistics.mean(pars),
        statistics.mean(greedies),
        statistics.median(seconds),
        max(seconds),
    )
