"""The SQLite implementation of `DailyRepository`: runs, leaderboards, streak data and
par. Its writes are its own; its reads are shared with PostgreSQL's (`data.shared`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import aiosqlite

from data.daily import DailyRun
from data.queries import RUN_COLUMNS
from data.repository import GameRecord, NewGame, UserRecord
from data.results import GameResult, dump_result
from data.rows import run_of
from data.shared import Reads, SharedDailyRepository
from data.sqlite.db import Database
from data.sqlite.games import insert_game, load_game, upsert_user


class SqliteDailyRepository(SharedDailyRepository[Database]):
    @asynccontextmanager
    async def _reading(self) -> AsyncIterator[Reads]:
        # The reader connection: each statement sees the last commit, and waits for no
        # writer.
        yield self.db

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

    # --- par --------------------------------------------------------------------------
    async def set_par(
        self, day: str, score: int, turns: int, now: float, moves: Sequence[str] = ()
    ) -> None:
        await self.db.write(
            "INSERT OR IGNORE INTO daily_par (day, score, turns, computed_at, moves)"
            " VALUES (?,?,?,?,?)",
            (day, score, turns, now, "\n".join(moves) if moves else None),
        )

    async def keep_par_line(self, day: str, moves: Sequence[str]) -> None:
        await self.db.write(
            "UPDATE daily_par SET moves = ? WHERE day = ? AND moves IS NULL",
            ("\n".join(moves), day),
        )


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
