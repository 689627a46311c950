"""The PostgreSQL implementation of `DailyRepository`: runs, leaderboards, streak data
and par.

The same rules as in SQLite, kept by the database for several processes at once: one
scored run per player and day (the primary key), a run recorded once (its `finished_at`
is set once), each notice of a run scored unfinished handed out once. The reads are
shared with SQLite's (`data.shared`); a read of several statements sees one snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from typing import TYPE_CHECKING

from data.daily import DailyRun
from data.postgresql.db import PgDatabase, rowcount
from data.postgresql.games import insert_game, load_game, upsert_user
from data.queries import RUN_COLUMNS
from data.repository import GameRecord, NewGame, UserRecord
from data.results import GameResult, dump_result
from data.rows import run_of
from data.shared import Reads, SharedDailyRepository

if TYPE_CHECKING:
    from data.postgresql.db import Connection


class PgDailyRepository(SharedDailyRepository[PgDatabase]):
    def _reading(self) -> AbstractAsyncContextManager[Reads]:
        return self.db.snapshot()

    async def start_run(
        self, new: NewGame, user: UserRecord, day: str, week: str, now: float
    ) -> tuple[GameRecord, bool]:
        """Today's run of `user`: the existing one, or a new game created with it in the
        same transaction. The (user, day) key makes a second attempt impossible, even
        from two processes at once: the one that loses the race takes back its game and
        gets the winner's. Returns (game, created)."""
        async with self.db.transaction() as conn:
            existing = await _run(conn, "user_id = $1 AND day = $2", (user.id, day))
            if existing is None:
                try:
                    # A savepoint: a game made for a run that another process started
                    # first is rolled back with it.
                    async with conn.transaction():
                        game_id = await insert_game(conn, new, now)
                        stored = await conn.fetchval(
                            "INSERT INTO daily_runs (user_id, day, week, game_id, started_at)"
                            " VALUES ($1, $2, $3, $4, $5)"
                            " ON CONFLICT (user_id, day) DO NOTHING RETURNING game_id",
                            user.id,
                            day,
                            week,
                            game_id,
                            now,
                        )
                        if stored is None:
                            raise _StartedElsewhere
                    return await load_game(conn, game_id), True
                except _StartedElsewhere:
                    # Each statement sees what was committed before it: the winner's run.
                    existing = await _run(conn, "user_id = $1 AND day = $2", (user.id, day))
            assert existing is not None
            return await load_game(conn, existing.game_id), False

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
                status = await conn.execute(
                    "UPDATE games SET status = 'aborted', result = $1, updated_at = $2,"
                    " finished_at = $3, deadline_at = NULL"
                    " WHERE id = $4 AND ply = $5 AND status = 'active'",
                    dump_result(result),
                    now,
                    now,
                    game_id,
                    expected_ply,
                )
                if rowcount(status) != 1 or not await _record(
                    conn, game_id, score, turns, sizes, now, True
                ):
                    raise _NothingToClose
        except _NothingToClose:
            return False
        return True

    async def take_untold(self, user_id: int) -> list[DailyRun]:
        """The runs of `user` scored unfinished that they have not been told about, oldest
        first; each is handed out once, even to several processes asking together (one
        statement takes them: a second waits for the first and finds none left)."""
        rows = await self.db.write(
            f"UPDATE daily_runs SET untold = 0 WHERE user_id = $1 AND untold = 1"
            f" RETURNING {RUN_COLUMNS}",
            (user_id,),
        )
        # As they stood when taken: untold.
        runs = [replace(run_of(row), untold=True) for row in rows]
        return sorted(runs, key=lambda run: run.day)

    async def note_member(self, guild_id: int, user: UserRecord) -> None:
        async with self.db.transaction() as conn:
            await upsert_user(conn, user)
            await conn.execute(
                "INSERT INTO guild_members (guild_id, user_id) VALUES ($1, $2)"
                " ON CONFLICT DO NOTHING",
                guild_id,
                user.id,
            )

    # --- par --------------------------------------------------------------------------
    async def set_par(
        self, day: str, score: int, turns: int, now: float, moves: Sequence[str] = ()
    ) -> None:
        """Store a day's par, with its line of turns if given (the first store wins)."""
        await self.db.execute(
            "INSERT INTO daily_par (day, score, turns, computed_at, moves)"
            " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (day) DO NOTHING",
            (day, score, turns, now, "\n".join(moves) if moves else None),
        )

    async def keep_par_line(self, day: str, moves: Sequence[str]) -> None:
        """Store the turns of a par stored without them."""
        await self.db.execute(
            "UPDATE daily_par SET moves = $1 WHERE day = $2 AND moves IS NULL",
            ("\n".join(moves), day),
        )


class _StartedElsewhere(Exception):
    """Rolls back a new run's game when another process started the run first."""


class _NothingToClose(Exception):
    """Rolls back a close that found the game moved on or the run already recorded."""


async def _record(
    conn: Connection,
    game_id: int,
    score: int,
    turns: int,
    sizes: str,
    now: float,
    unfinished: bool,
) -> bool:
    """Record a run's result and move its totals, in the caller's transaction; False if
    it was already recorded, so that no run is ranked twice (a second process recording
    it at once waits for the first, then finds it recorded)."""
    row = await conn.fetchrow(
        "UPDATE daily_runs SET finished_at = $1, score = $2, turns = $3, sizes = $4,"
        " unfinished = $5, untold = $5 WHERE game_id = $6 AND finished_at IS NULL"
        f" RETURNING {RUN_COLUMNS}",
        now,
        score,
        turns,
        sizes,
        int(unfinished),
        game_id,
    )
    if row is None:
        return False
    run = run_of(row)
    for period in ("all", run.week):
        await conn.execute(
            "INSERT INTO daily_totals (period, user_id, total, best, runs, last_at, unfinished)"
            " VALUES ($1, $2, $3, $4, 1, $5, $6) ON CONFLICT (period, user_id) DO UPDATE SET"
            " total = daily_totals.total + excluded.total,"
            " best = GREATEST(daily_totals.best, excluded.best),"
            " runs = daily_totals.runs + 1, last_at = excluded.last_at,"
            " unfinished = daily_totals.unfinished + excluded.unfinished",
            period,
            run.user_id,
            score,
            score,
            now,
            int(unfinished),
        )
    return True


async def _run(conn: Connection, where: str, params: tuple[object, ...]) -> DailyRun | None:
    runs = await _runs(conn, where, params)
    return runs[0] if runs else None


async def _runs(conn: Connection, where: str, params: tuple[object, ...]) -> list[DailyRun]:
    rows = await conn.fetch(f"SELECT {RUN_COLUMNS} FROM daily_runs WHERE {where}", *params)
    return [run_of(row) for row in rows]
