"""Daily challenge storage: runs, leaderboards, streak data and par (SQLite)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

import aiosqlite

from data.db import Database
from data.games import insert_game, load_game, upsert_user
from data.repository import GameRecord, NewGame, UserRecord

Scope = Literal["server", "global"]


@dataclass(frozen=True, slots=True)
class DailyRun:
    user_id: int
    day: str
    week: str
    game_id: int
    started_at: float
    finished_at: float | None
    score: int | None
    turns: int | None
    sizes: str | None


@dataclass(frozen=True, slots=True)
class BoardRow:
    """One line of a leaderboard. For a day: `score` and `turns` of the run. For a week
    or all time: `score` is the total, `best` the best run, `runs` how many."""

    rank: int
    user_id: int
    name: str
    score: int
    turns: int
    best: int
    runs: int


class DailyRepository(Protocol):
    async def start_run(
        self, new: NewGame, user: UserRecord, day: str, week: str, now: float
    ) -> tuple[GameRecord, bool]: ...

    async def run_for(self, user_id: int, day: str) -> DailyRun | None: ...

    async def run_by_game(self, game_id: int) -> DailyRun | None: ...

    async def finish_run(
        self, game_id: int, score: int, turns: int, sizes: str, now: float
    ) -> bool: ...

    async def note_member(self, guild_id: int, user: UserRecord) -> None: ...

    async def day_board(self, day: str, guild_id: int | None, limit: int) -> list[BoardRow]: ...

    async def day_rank(self, day: str, guild_id: int | None, user_id: int) -> BoardRow | None: ...

    async def total_board(
        self, period: str, guild_id: int | None, limit: int
    ) -> list[BoardRow]: ...

    async def total_rank(
        self, period: str, guild_id: int | None, user_id: int
    ) -> BoardRow | None: ...

    async def finished_runs(self, user_id: int) -> list[DailyRun]: ...

    async def get_par(self, day: str) -> tuple[int, int] | None: ...

    async def set_par(self, day: str, score: int, turns: int, now: float) -> None: ...


_RUN_COLUMNS = "user_id, day, week, game_id, started_at, finished_at, score, turns, sizes"
_MEMBER = "user_id IN (SELECT user_id FROM guild_members WHERE guild_id = ?)"


class SqliteDailyRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def start_run(
        self, new: NewGame, user: UserRecord, day: str, week: str, now: float
    ) -> tuple[GameRecord, bool]:
        """Today's run of `user`: the existing one, or a new game created with it in the
        same transaction. The (user, day) key makes a second attempt impossible, even
        from two processes at once. Returns (game, created)."""
        async with self.db.transaction() as conn:
            existing = await _run(conn, "user_id = ? AND day = ?", (user.id, day))
            if existing is not None:
                return await load_game(conn, existing.game_id), False
            game_id = await insert_game(conn, new, now)
            await conn.execute(
                "INSERT INTO daily_runs (user_id, day, week, game_id, started_at)"
                " VALUES (?,?,?,?,?)",
                (user.id, day, week, game_id, now),
            )
            return await load_game(conn, game_id), True

    async def run_for(self, user_id: int, day: str) -> DailyRun | None:
        async with self.db.read() as conn:
            return await _run(conn, "user_id = ? AND day = ?", (user_id, day))

    async def run_by_game(self, game_id: int) -> DailyRun | None:
        async with self.db.read() as conn:
            return await _run(conn, "game_id = ?", (game_id,))

    async def finish_run(
        self, game_id: int, score: int, turns: int, sizes: str, now: float
    ) -> bool:
        """Record a validated result once; the totals move in the same transaction.
        False if the run was already recorded."""
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "UPDATE daily_runs SET finished_at = ?, score = ?, turns = ?, sizes = ?"
                " WHERE game_id = ? AND finished_at IS NULL",
                (now, score, turns, sizes, game_id),
            )
            if cur.rowcount != 1:
                return False
            run = await _run(conn, "game_id = ?", (game_id,))
            assert run is not None
            for period in ("all", run.week):
                await conn.execute(
                    "INSERT INTO daily_totals (period, user_id, total, best, runs, last_at)"
                    " VALUES (?,?,?,?,1,?) ON CONFLICT (period, user_id) DO UPDATE SET"
                    " total = total + excluded.total, best = MAX(best, excluded.best),"
                    " runs = runs + 1, last_at = excluded.last_at",
                    (period, run.user_id, score, score, now),
                )
            return True

    async def note_member(self, guild_id: int, user: UserRecord) -> None:
        async with self.db.transaction() as conn:
            await upsert_user(conn, user)
            await conn.execute(
                "INSERT OR IGNORE INTO guild_members (guild_id, user_id) VALUES (?, ?)",
                (guild_id, user.id),
            )

    # --- leaderboards ------------------------------------------------------------------
    async def day_board(self, day: str, guild_id: int | None, limit: int) -> list[BoardRow]:
        where, params = _scoped("r.day = ? AND r.finished_at IS NOT NULL", (day,), guild_id, "r.")
        async with (
            self.db.read() as conn,
            conn.execute(
                "SELECT r.user_id, u.name, r.score, r.turns FROM daily_runs r"
                f" JOIN users u ON u.id = r.user_id WHERE {where}"
                " ORDER BY r.score DESC, r.turns ASC, r.finished_at ASC LIMIT ?",
                (*params, limit),
            ) as cur,
        ):
            rows = await cur.fetchall()
        return [BoardRow(i + 1, r[0], r[1], r[2], r[3], r[2], 1) for i, r in enumerate(rows)]

    async def day_rank(self, day: str, guild_id: int | None, user_id: int) -> BoardRow | None:
        async with self.db.read() as conn:
            async with conn.execute(
                "SELECT r.score, r.turns, r.finished_at, u.name FROM daily_runs r"
                " JOIN users u ON u.id = r.user_id"
                " WHERE r.day = ? AND r.user_id = ? AND r.finished_at IS NOT NULL",
                (day, user_id),
            ) as cur:
                mine = await cur.fetchone()
            if mine is None:
                return None
            score, turns, finished, name = mine
            where, params = _scoped(
                "day = ? AND finished_at IS NOT NULL AND (score > ? OR (score = ? AND"
                " (turns < ? OR (turns = ? AND finished_at < ?))))",
                (day, score, score, turns, turns, finished),
                guild_id,
                "",
            )
            async with conn.execute(f"SELECT COUNT(*) FROM daily_runs WHERE {where}", params) as c:
                ahead = await c.fetchone()
        return BoardRow((ahead[0] if ahead else 0) + 1, user_id, name, score, turns, score, 1)

    async def total_board(self, period: str, guild_id: int | None, limit: int) -> list[BoardRow]:
        where, params = _scoped("t.period = ?", (period,), guild_id, "t.")
        async with (
            self.db.read() as conn,
            conn.execute(
                "SELECT t.user_id, u.name, t.total, t.best, t.runs FROM daily_totals t"
                f" JOIN users u ON u.id = t.user_id WHERE {where}"
                " ORDER BY t.total DESC, t.best DESC, t.last_at ASC LIMIT ?",
                (*params, limit),
            ) as cur,
        ):
            rows = await cur.fetchall()
        return [BoardRow(i + 1, r[0], r[1], r[2], 0, r[3], r[4]) for i, r in enumerate(rows)]

    async def total_rank(self, period: str, guild_id: int | None, user_id: int) -> BoardRow | None:
        async with self.db.read() as conn:
            async with conn.execute(
                "SELECT t.total, t.best, t.runs, t.last_at, u.name FROM daily_totals t"
                " JOIN users u ON u.id = t.user_id WHERE t.period = ? AND t.user_id = ?",
                (period, user_id),
            ) as cur:
                mine = await cur.fetchone()
            if mine is None:
                return None
            total, best, runs, last_at, name = mine
            where, params = _scoped(
                "period = ? AND (total > ? OR (total = ? AND (best > ? OR (best = ? AND"
                " last_at < ?))))",
                (period, total, total, best, best, last_at),
                guild_id,
                "",
            )
            async with conn.execute(
                f"SELECT COUNT(*) FROM daily_totals WHERE {where}", params
            ) as c:
                ahead = await c.fetchone()
        return BoardRow((ahead[0] if ahead else 0) + 1, user_id, name, total, 0, best, runs)

    async def finished_runs(self, user_id: int) -> list[DailyRun]:
        async with (
            self.db.read() as conn,
            conn.execute(
                f"SELECT {_RUN_COLUMNS} FROM daily_runs WHERE user_id = ?"
                " AND finished_at IS NOT NULL ORDER BY day",
                (user_id,),
            ) as cur,
        ):
            return [DailyRun(*row) for row in await cur.fetchall()]

    async def get_par(self, day: str) -> tuple[int, int] | None:
        async with (
            self.db.read() as conn,
            conn.execute("SELECT score, turns FROM daily_par WHERE day = ?", (day,)) as cur,
        ):
            row = await cur.fetchone()
        return (row[0], row[1]) if row else None

    async def set_par(self, day: str, score: int, turns: int, now: float) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT OR IGNORE INTO daily_par (day, score, turns, computed_at) VALUES (?,?,?,?)",
                (day, score, turns, now),
            )


def _scoped(
    where: str, params: tuple[object, ...], guild_id: int | None, alias: str
) -> tuple[str, tuple[object, ...]]:
    """Restrict a query to the members of a server when `guild_id` is given."""
    if guild_id is None:
        return where, params
    return f"{where} AND {alias}{_MEMBER}", (*params, guild_id)


async def _run(
    conn: aiosqlite.Connection, where: str, params: tuple[object, ...]
) -> DailyRun | None:
    async with conn.execute(f"SELECT {_RUN_COLUMNS} FROM daily_runs WHERE {where}", params) as c:
        row = await c.fetchone()
    return DailyRun(*row) if row else None
