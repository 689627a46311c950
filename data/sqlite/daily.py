"""The SQLite implementation of `DailyRepository`: runs, leaderboards, streak data and par."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager

import aiosqlite

from data.daily import BoardRow, DailyRecord, DailyRun, DaySpread
from data.queries import DAYS_PLAYED, RANKED_RUN, RUN_COLUMNS, ahead_query, median_offset
from data.repository import GameRecord, NewGame, UserRecord
from data.results import GameResult, dump_result
from data.rows import day_rows, record_from, run_of, total_rows
from data.sqlite.db import Database, mark
from data.sqlite.games import insert_game, load_game, upsert_user

_RECORD = (
    "SELECT runs, total, best, unfinished FROM daily_totals WHERE period = 'all' AND user_id = ?"
)
_LAST_FINISHED = "user_id = ? AND finished_at IS NOT NULL ORDER BY day DESC LIMIT 1"
#: A server member's row (of the table aliased {0}), one look-up per row read.
_MEMBER = "EXISTS (SELECT 1 FROM guild_members m WHERE m.guild_id = ? AND m.user_id = {0}user_id)"


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

    async def pending_runs(self, user_id: int) -> list[DailyRun]:
        """The runs of `user` not recorded yet, and those scored unfinished that they have
        not been told about, oldest first."""
        async with self.db.read() as conn:
            return await _runs(
                conn, "user_id = ? AND (finished_at IS NULL OR untold = 1) ORDER BY day", (user_id,)
            )

    async def open_runs_before(self, day: str) -> list[DailyRun]:
        """Every run of a day before `day` that is not recorded yet."""
        async with self.db.read() as conn:
            return await _runs(conn, "day < ? AND finished_at IS NULL ORDER BY day", (day,))

    async def finish_run(
        self,
        game_id: int,
        score: int,
        turns: int,
        sizes: str,
        now: float,
        *,
        unfinished: bool = False,
    ) -> bool:
        """Record a validated result once; the totals move in the same transaction.
        False if the run was already recorded. An `unfinished` run waits for its player
        to be told."""
        async with self.db.transaction() as conn:
            return await _record(conn, game_id, score, turns, sizes, now, unfinished)

    async def close_run(
        self,
        game_id: int,
        expected_ply: int,
        result: GameResult,
        score: int,
        turns: int,
        sizes: str,
        now: float,
    ) -> bool:
        """End a run's game where it stands (still active at `expected_ply`) and record
        the run as unfinished, together, so that a scored run takes no further move.
        False, with nothing written, if the game has moved on or the run is recorded."""
        try:
            async with self.db.transaction() as conn:
                cur = await conn.execute(
                    "UPDATE games SET status = 'aborted', result = ?, updated_at = ?,"
                    " finished_at = ?, deadline_at = NULL"
                    " WHERE id = ? AND ply = ? AND status = 'active'",
                    (dump_result(result), now, now, game_id, expected_ply),
                )
                if cur.rowcount != 1 or not await _record(
                    conn, game_id, score, turns, sizes, now, True
                ):
                    raise _NothingToClose
        except _NothingToClose:
            return False
        return True

    async def take_untold(self, user_id: int) -> list[DailyRun]:
        """The runs of `user` scored unfinished that they have not been told about; each
        is handed out once, even to several processes asking together."""
        async with self.db.transaction() as conn:
            runs = await _runs(conn, "user_id = ? AND untold = 1 ORDER BY day", (user_id,))
            await conn.execute(
                "UPDATE daily_runs SET untold = 0 WHERE user_id = ? AND untold = 1", (user_id,)
            )
            return runs

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
        return day_rows(rows)

    async def day_spread(self, day: str) -> DaySpread | None:
        async with self.db.read() as conn:
            # Both read the index of the day's finished scores, not the runs.
            async with conn.execute(
                "SELECT count(*), max(score) FROM daily_runs"
                " WHERE day = ? AND finished_at IS NOT NULL",
                (day,),
            ) as cur:
                row = await cur.fetchone()
            if row is None or not row[0]:
                return None
            async with conn.execute(
                "SELECT score FROM daily_runs WHERE day = ? AND finished_at IS NOT NULL"
                " ORDER BY score DESC LIMIT 1 OFFSET ?",
                (day, median_offset(row[0])),
            ) as cur:
                median = await cur.fetchone()
        assert median is not None
        return DaySpread(int(row[0]), int(row[1]), int(median[0]))

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
            query, params = ahead_query(
                "daily_runs",
                ("day", day),
                (("score", ">", score), ("turns", "<", turns), ("finished_at", "<", finished)),
                guild_id,
                mark,
                RANKED_RUN,
            )
            async with conn.execute(query, params) as c:
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
        return total_rows(rows)

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
            query, params = ahead_query(
                "daily_totals",
                ("period", period),
                (("total", ">", total), ("best", ">", best), ("last_at", "<", last_at)),
                guild_id,
                mark,
            )
            async with conn.execute(query, params) as c:
                ahead = await c.fetchone()
        return BoardRow((ahead[0] if ahead else 0) + 1, user_id, name, total, 0, best, runs)

    async def record_of(self, user_id: int) -> DailyRecord | None:
        async with self.db.read() as conn:
            totals = await conn.execute_fetchall(_RECORD, (user_id,))
            last = await _run(conn, _LAST_FINISHED, (user_id,))
        return record_from(totals, last)

    async def days_played(self, user_id: int, limit: int) -> list[str]:
        rows = await self.db.fetch(DAYS_PLAYED.format("?", "?"), (user_id, limit))
        return [row[0] for row in rows]

    async def get_par(self, day: str) -> tuple[int, int] | None:
        async with (
            self.db.read() as conn,
            conn.execute("SELECT score, turns FROM daily_par WHERE day = ?", (day,)) as cur,
        ):
            row = await cur.fetchone()
        return (row[0], row[1]) if row else None

    async def set_par(
        self, day: str, score: int, turns: int, now: float, moves: Sequence[str] = ()
    ) -> None:
        await self.db.write(
            "INSERT OR IGNORE INTO daily_par (day, score, turns, computed_at, moves)"
            " VALUES (?,?,?,?,?)",
            (day, score, turns, now, "\n".join(moves) if moves else None),
        )

    async def par_line(self, day: str) -> tuple[str, ...] | None:
        rows = await self.db.fetch("SELECT moves FROM daily_par WHERE day = ?", (day,))
        if not rows or rows[0][0] is None:
            return None
        return tuple(move for move in rows[0][0].split("\n") if move)

    async def keep_par_line(self, day: str, moves: Sequence[str]) -> None:
        await self.db.write(
            "UPDATE daily_par SET moves = ? WHERE day = ? AND moves IS NULL",
            ("\n".join(moves), day),
        )

    def exclusive(self, name: str) -> AbstractAsyncContextManager[bool]:
        return self.db.exclusive(name)


def _scoped(
    where: str, params: tuple[object, ...], guild_id: int | None, alias: str
) -> tuple[str, tuple[object, ...]]:
    """Restrict a query to the members of a server when `guild_id` is given."""
    if guild_id is None:
        return where, params
    return f"{where} AND {_MEMBER.format(alias)}", (*params, guild_id)


class _NothingToClose(Exception):
    """Rolls back a close that found the game moved on or the run already recorded."""


async def _record(
    conn: aiosqlite.Connection,
    game_id: int,
    score: int,
    turns: int,
    sizes: str,
    now: float,
    unfinished: bool,
) -> bool:
    """Record a run's result and move its totals, in the caller's transaction; False if
    it was already recorded, so that no run is ranked twice."""
    cur = await conn.execute(
        "UPDATE daily_runs SET finished_at = ?, score = ?, turns = ?, sizes = ?,"
        " unfinished = ?, untold = ? WHERE game_id = ? AND finished_at IS NULL",
        (now, score, turns, sizes, int(unfinished), int(unfinished), game_id),
    )
    if cur.rowcount != 1:
        return False
    run = await _run(conn, "game_id = ?", (game_id,))
    assert run is not None
    for period in ("all", run.week):
        await conn.execute(
            "INSERT INTO daily_totals (period, user_id, total, best, runs, last_at, unfinished)"
            " VALUES (?,?,?,?,1,?,?) ON CONFLICT (period, user_id) DO UPDATE SET"
            " total = total + excluded.total, best = MAX(best, excluded.best),"
            " runs = runs + 1, last_at = excluded.last_at,"
            " unfinished = unfinished + excluded.unfinished",
            (period, run.user_id, score, score, now, int(unfinished)),
        )
    return True


async def _run(
    conn: aiosqlite.Connection, where: str, params: tuple[object, ...]
) -> DailyRun | None:
    runs = await _runs(conn, where, params)
    return runs[0] if runs else None


async def _runs(
    conn: aiosqlite.Connection, where: str, params: tuple[object, ...]
) -> list[DailyRun]:
    async with conn.execute(f"SELECT {RUN_COLUMNS} FROM daily_runs WHERE {where}", params) as c:
        return [run_of(row) for row in await c.fetchall()]
