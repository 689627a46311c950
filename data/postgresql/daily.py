"""Daily challenge storage: runs, leaderboards, streak data and par (PostgreSQL).

The same rules as in SQLite, kept by the database for several processes at once: one
scored run per player and day (the primary key), a run recorded once (its `finished_at`
is set once), each notice of a run scored unfinished handed out once.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from typing import TYPE_CHECKING

from data.daily import BoardRow, DailyRecord, DailyRun, DaySpread
from data.postgresql.db import PgDatabase, mark, rowcount
from data.postgresql.games import insert_game, load_game, upsert_user
from data.queries import DAYS_PLAYED, RANKED_RUN, RUN_COLUMNS, ahead_query, median_offset
from data.repository import GameRecord, NewGame, UserRecord
from data.results import GameResult, dump_result
from data.rows import day_rows, record_from, run_of, total_rows

if TYPE_CHECKING:
    from data.postgresql.db import Connection


class PgDailyRepository:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db

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

    async def run_for(self, user_id: int, day: str) -> DailyRun | None:
        async with self.db.read() as conn:
            return await _run(conn, "user_id = $1 AND day = $2", (user_id, day))

    async def run_by_game(self, game_id: int) -> DailyRun | None:
        async with self.db.read() as conn:
            return await _run(conn, "game_id = $1", (game_id,))

    async def pending_runs(self, user_id: int) -> list[DailyRun]:
        """The runs of `user` not recorded yet, and those scored unfinished that they have
        not been told about, oldest first."""
        async with self.db.read() as conn:
            return await _runs(
                conn,
                "user_id = $1 AND (finished_at IS NULL OR untold = 1) ORDER BY day",
                (user_id,),
            )

    async def open_runs_before(self, day: str) -> list[DailyRun]:
        """Every run of a day before `day` that is not recorded yet."""
        async with self.db.read() as conn:
            return await _runs(conn, "day < $1 AND finished_at IS NULL ORDER BY day", (day,))

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

    # --- leaderboards ------------------------------------------------------------------
    async def day_board(self, day: str, guild_id: int | None, limit: int) -> list[BoardRow]:
        where, params = _scoped("r.day = $1 AND r.finished_at IS NOT NULL", (day,), guild_id, "r.")
        rows = await self.db.fetch(
            "SELECT r.user_id, u.name, r.score, r.turns FROM daily_runs r"
            f" JOIN users u ON u.id = r.user_id WHERE {where}"
            f" ORDER BY r.score DESC, r.turns ASC, r.finished_at ASC LIMIT ${len(params) + 1}",
            (*params, limit),
        )
        return day_rows(rows)

    async def day_spread(self, day: str) -> DaySpread | None:
        # Both read the index of the day's finished scores, not the runs.
        [row] = await self.db.fetch(
            "SELECT count(*), max(score) FROM daily_runs"
            " WHERE day = $1 AND finished_at IS NOT NULL",
            (day,),
        )
        if not row[0]:
            return None
        [median] = await self.db.fetch(
            "SELECT score FROM daily_runs WHERE day = $1 AND finished_at IS NOT NULL"
            " ORDER BY score DESC LIMIT 1 OFFSET $2",
            (day, median_offset(row[0])),
        )
        return DaySpread(int(row[0]), int(row[1]), int(median[0]))

    async def day_rank(self, day: str, guild_id: int | None, user_id: int) -> BoardRow | None:
        async with self.db.read() as conn:
            mine = await conn.fetchrow(
                "SELECT r.score, r.turns, r.finished_at, u.name FROM daily_runs r"
                " JOIN users u ON u.id = r.user_id"
                " WHERE r.day = $1 AND r.user_id = $2 AND r.finished_at IS NOT NULL",
                day,
                user_id,
            )
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
            ahead = await conn.fetchval(query, *params)
        return BoardRow(int(ahead or 0) + 1, user_id, name, score, turns, score, 1)

    async def total_board(self, period: str, guild_id: int | None, limit: int) -> list[BoardRow]:
        where, params = _scoped("t.period = $1", (period,), guild_id, "t.")
        rows = await self.db.fetch(
            "SELECT t.user_id, u.name, t.total, t.best, t.runs FROM daily_totals t"
            f" JOIN users u ON u.id = t.user_id WHERE {where}"
            f" ORDER BY t.total DESC, t.best DESC, t.last_at ASC LIMIT ${len(params) + 1}",
            (*params, limit),
        )
        return total_rows(rows)

    async def total_rank(self, period: str, guild_id: int | None, user_id: int) -> BoardRow | None:
        async with self.db.read() as conn:
            mine = await conn.fetchrow(
                "SELECT t.total, t.best, t.runs, t.last_at, u.name FROM daily_totals t"
                " JOIN users u ON u.id = t.user_id WHERE t.period = $1 AND t.user_id = $2",
                period,
                user_id,
            )
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
            ahead = await conn.fetchval(query, *params)
        return BoardRow(int(ahead or 0) + 1, user_id, name, total, 0, best, runs)

    async def record_of(self, user_id: int) -> DailyRecord | None:
        async with self.db.read() as conn:
            totals = await conn.fetch(
                "SELECT runs, total, best, unfinished FROM daily_totals"
                " WHERE period = 'all' AND user_id = $1",
                user_id,
            )
            last = await _run(
                conn,
                "user_id = $1 AND finished_at IS NOT NULL ORDER BY day DESC LIMIT 1",
                (user_id,),
            )
        return record_from(totals, last)

    async def days_played(self, user_id: int, limit: int) -> list[str]:
        rows = await self.db.fetch(DAYS_PLAYED.format("$1", "$2"), (user_id, limit))
        return [row[0] for row in rows]

    async def get_par(self, day: str) -> tuple[int, int] | None:
        rows = await self.db.fetch("SELECT score, turns FROM daily_par WHERE day = $1", (day,))
        return (rows[0][0], rows[0][1]) if rows else None

    async def set_par(
        self, day: str, score: int, turns: int, now: float, moves: Sequence[str] = ()
    ) -> None:
        """Store a day's par, with its line of turns if given (the first store wins)."""
        await self.db.execute(
            "INSERT INTO daily_par (day, score, turns, computed_at, moves)"
            " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (day) DO NOTHING",
            (day, score, turns, now, "\n".join(moves) if moves else None),
        )

    async def par_line(self, day: str) -> tuple[str, ...] | None:
        """The turns of a day's par run (None: no par stored, or stored without them)."""
        rows = await self.db.fetch("SELECT moves FROM daily_par WHERE day = $1", (day,))
        if not rows or rows[0][0] is None:
            return None
        return tuple(move for move in rows[0][0].split("\n") if move)

    async def keep_par_line(self, day: str, moves: Sequence[str]) -> None:
        """Store the turns of a par stored without them."""
        await self.db.execute(
            "UPDATE daily_par SET moves = $1 WHERE day = $2 AND moves IS NULL",
            ("\n".join(moves), day),
        )

    def exclusive(self, name: str) -> AbstractAsyncContextManager[bool]:
        """Whether this process is the one (of all sharing the database) doing the work
        that must happen once, `name`, for the block; False at once if another is."""
        return self.db.exclusive(name)


def _scoped(
    where: str, params: tuple[object, ...], guild_id: int | None, alias: str
) -> tuple[str, tuple[object, ...]]:
    """Restrict a query to the members of a server when `guild_id` is given (its
    parameter numbered after those of `where`)."""
    if guild_id is None:
        return where, params
    member = (
        f"EXISTS (SELECT 1 FROM guild_members m WHERE m.guild_id = ${len(params) + 1}"
        f" AND m.user_id = {alias}user_id)"
    )
    return f"{where} AND {member}", (*params, guild_id)


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
