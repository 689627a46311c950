"""The repository methods both backends run alike, written once.

A method belongs here when its statements differ between SQLite and PostgreSQL only in
their placeholders: it is written with the connection's own (`mark`) and sent through
what both connection classes have (`Statements`). Each backend's repository derives
from these and adds the methods whose statements differ, and the few things the shared
ones ask of it (how it reads whole games, and several reads together).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from typing import Any, Generic, Literal, Protocol, TypeVar

from data.console import Button, ConsoleMemoryError
from data.daily import BoardRow, DailyRecord, DailyRun, DaySpread
from data.queries import (
    DAYS_PLAYED,
    LIVE,
    MEETINGS,
    NEWEST_FIRST,
    RANKED_RUN,
    RATING_QUERY,
    RESULT_QUERY,
    RUN_COLUMNS,
    SETTINGS_TABLES,
    STANDING_QUERY,
    TABLE_QUERY,
    Params,
    ahead_query,
    finished_page_query,
    marks,
    median_offset,
)
from data.ratings import Change, Meeting, RatedResult, Standing
from data.repository import GameRecord, MoveRecord, TimeKeeping, UserRecord, is_stored_id
from data.rows import (
    change_of,
    day_rows,
    numbered,
    parse_buttons,
    record_from,
    result_of,
    run_of,
    standing_of,
    total_rows,
)


class Reads(Protocol):
    """Where a repository's reads go: the rows of one statement."""

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Any]: ...


class Statements(Reads, Protocol):
    """What both backends' connection classes have: one statement read or written, and
    the placeholder they write parameters with."""

    def mark(self, n: int) -> str: ...

    async def write(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Any]: ...

    def exclusive(self, name: str) -> AbstractAsyncContextManager[bool]: ...


D = TypeVar("D", bound=Statements)


class SharedGameRepository(ABC, Generic[D]):
    """The half of `GameRepository` both backends share."""

    def __init__(self, db: D) -> None:
        self.db = db

    @abstractmethod
    async def _games(
        self, where: str, params: Sequence[Any], *, tail: str = "ORDER BY g.id"
    ) -> list[GameRecord]:
        """The games matching `where` (on `games g`), ordered and cut by `tail`, each read
        whole in the same statement."""

    @abstractmethod
    def _of_shards(self, shards: TimeKeeping | None, p: Params) -> str:
        """The condition for games in the servers of `shards` (`owns`); games in direct
        messages are shard 0's."""

    def _params(self) -> Params:
        return Params(self.db.mark)

    # --- writes -----------------------------------------------------------------------
    async def set_reminder(
        self, game_id: int, ply: int, due: float, following: float | None
    ) -> bool:
        p = self._params()
        rows = await self.db.write(
            f"UPDATE games SET remind_at = {p(following)} WHERE id = {p(game_id)}"
            f" AND ply = {p(ply)} AND remind_at = {p(due)} AND status = 'active' RETURNING id",
            p.values,
        )
        return bool(rows)

    async def pause_clock(self, game_id: int, ply: int, left: float) -> bool:
        p = self._params()
        rows = await self.db.write(
            f"UPDATE games SET paused_left = {p(max(0.0, left))}, deadline_at = NULL,"
            f" remind_at = NULL WHERE id = {p(game_id)} AND ply = {p(ply)}"
            " AND status = 'active' AND deadline_at IS NOT NULL RETURNING id",
            p.values,
        )
        return bool(rows)

    async def resume_clock(
        self, game_id: int, ply: int, deadline: float, started: float, remind: float | None
    ) -> bool:
        p = self._params()
        rows = await self.db.write(
            f"UPDATE games SET deadline_at = {p(deadline)}, deadline_from = {p(started)},"
            f" remind_at = {p(remind)}, paused_left = NULL WHERE id = {p(game_id)}"
            f" AND ply = {p(ply)} AND status = 'active' AND paused_left IS NOT NULL"
            " RETURNING id",
            p.values,
        )
        return bool(rows)

    async def paused_of(self, user_id: int) -> list[tuple[int, int, float]]:
        p = self._params()
        rows = await self.db.fetch(
            "SELECT g.id, g.ply, g.paused_left FROM games g WHERE g.id IN"
            f" (SELECT game_id FROM seats WHERE user_id = {p(user_id)} AND live = 1)"
            " AND g.paused_left IS NOT NULL AND g.status = 'active'",
            p.values,
        )
        return [(int(row[0]), int(row[1]), float(row[2])) for row in rows]

    async def mark_expired(self, game_id: int, ply: int, now: float) -> bool:
        p = self._params()
        rows = await self.db.write(
            "UPDATE games SET expired_at = deadline_at, deadline_at = NULL, remind_at = NULL"
            f" WHERE id = {p(game_id)} AND ply = {p(ply)} AND status = 'active'"
            f" AND deadline_at <= {p(now)} RETURNING id",
            p.values,
        )
        return bool(rows)

    async def untold(
        self, game_id: int, shards: TimeKeeping | None = None
    ) -> tuple[int, int] | None:
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT untold_from, untold_last FROM games WHERE id = {p(game_id)}"
            f" AND untold_from IS NOT NULL{self._of_shards(shards, p)}",
            p.values,
        )
        return (int(rows[0][0]), int(rows[0][1])) if rows else None

    async def mark_told(self, told: Mapping[int, int]) -> None:
        if not told:
            return
        p = self._params()

        def told_of_game() -> str:
            cases = " ".join(
                f"WHEN {p(game)} THEN CAST({p(ply)} AS INTEGER)" for game, ply in told.items()
            )
            return f"CAST(CASE id {cases} END AS INTEGER)"

        cleared = f"untold_last <= {told_of_game()}"
        kept = f"untold_from >= {told_of_game()}"
        moved_on = told_of_game()
        still = f"untold_last <= {told_of_game()}"
        games = ", ".join(p(game) for game in told)
        await self.db.write(
            f"UPDATE games SET untold_from = CASE WHEN {cleared} THEN NULL"
            f" WHEN {kept} THEN untold_from ELSE {moved_on} END,"
            f" untold_last = CASE WHEN {still} THEN NULL ELSE untold_last END"
            f" WHERE id IN ({games}) AND untold_from IS NOT NULL",
            p.values,
        )

    async def untold_games(self, shards: TimeKeeping | None = None, limit: int = 100) -> list[int]:
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT id FROM games WHERE untold_from IS NOT NULL{self._of_shards(shards, p)}"
            f" ORDER BY id LIMIT {p(limit)}",
            p.values,
        )
        return [row[0] for row in rows]

    # --- the clock's queues -----------------------------------------------------------
    async def due_games(self, now: float, shards: TimeKeeping | None = None) -> list[int]:
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT id FROM games WHERE deadline_at IS NOT NULL AND deadline_at <= {p(now)}"
            f" AND status = 'active'{self._of_shards(shards, p)} ORDER BY deadline_at",
            p.values,
        )
        return [row[0] for row in rows]

    async def reminders_due(self, now: float, shards: TimeKeeping | None = None) -> list[int]:
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT id FROM games WHERE remind_at IS NOT NULL AND remind_at <= {p(now)}"
            f" AND status = 'active'{self._of_shards(shards, p)} ORDER BY remind_at",
            p.values,
        )
        return [row[0] for row in rows]

    async def stale_challenges(self, before: float, shards: TimeKeeping | None = None) -> list[int]:
        p = self._params()
        # No ORDER BY: asked for the ids' order, the planner would read every game in it
        # rather than the partial index of open challenges alone.
        rows = await self.db.fetch(
            f"SELECT id FROM games WHERE status = 'challenge' AND created_at < {p(before)}"
            f"{self._of_shards(shards, p)}",
            p.values,
        )
        return sorted(row[0] for row in rows)

    # --- reads ------------------------------------------------------------------------
    async def get_game(self, game_id: int) -> GameRecord | None:
        if not is_stored_id(game_id):
            return None
        p = self._params()
        found = await self._games(f"g.id = {p(game_id)}", p.values)
        return found[0] if found else None

    async def live_game_in_channel(self, channel_id: int) -> GameRecord | None:
        p = self._params()
        found = await self._games(f"g.channel_id = {p(channel_id)} AND {LIVE}", p.values)
        return found[0] if found else None

    async def live_games_of_user(self, user_id: int, limit: int | None = None) -> list[GameRecord]:
        p = self._params()
        mine = f"SELECT game_id FROM seats WHERE user_id = {p(user_id)} AND live = 1"
        tail = "ORDER BY g.id" if limit is None else f"ORDER BY g.id LIMIT {p(limit)}"
        return await self._games(f"{LIVE} AND g.id IN ({mine})", p.values, tail=tail)

    async def finished_games(
        self,
        guild_id: int | None,
        user_id: int | None,
        game: str | None,
        limit: int,
        *,
        older_than: int | None = None,
        newer_than: int | None = None,
    ) -> list[GameRecord]:
        where, params = finished_page_query(
            guild_id, user_id, game, limit, older_than, newer_than, mark=self.db.mark
        )
        return await self._games(where, params, tail=NEWEST_FIRST)

    async def moves(self, game_id: int) -> list[MoveRecord]:
        rows = await self.db.fetch(
            "SELECT ply, seat, user_id, text, created_at FROM moves"
            f" WHERE game_id = {self.db.mark(1)} ORDER BY ply",
            (game_id,),
        )
        return [MoveRecord(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    async def settings(self, scope: Literal["guild", "user"], key: int) -> dict[str, Any]:
        table, column = SETTINGS_TABLES[scope]
        rows = await self.db.fetch(
            f"SELECT settings FROM {table} WHERE {column} = {self.db.mark(1)}", (key,)
        )
        stored = json.loads(rows[0][0]) if rows else {}
        return stored if isinstance(stored, dict) else {}

    async def followers(self, game_id: int) -> list[UserRecord]:
        rows = await self.db.fetch(
            "SELECT u.id, u.name, u.is_bot FROM follows f JOIN users u ON u.id = f.user_id"
            f" WHERE f.game_id = {self.db.mark(1)} ORDER BY u.id",
            (game_id,),
        )
        return [UserRecord(r[0], r[1], bool(r[2])) for r in rows]


class SharedDailyRepository(ABC, Generic[D]):
    """The half of `DailyRepository` both backends share: its reads."""

    def __init__(self, db: D) -> None:
        self.db = db

    @abstractmethod
    def _reading(self) -> AbstractAsyncContextManager[Reads]:
        """Where the statements of one read of several go: on PostgreSQL, one snapshot."""

    def _params(self) -> Params:
        return Params(self.db.mark)

    async def _runs_where(self, where: str, params: Sequence[Any]) -> list[DailyRun]:
        async with self._reading() as reads:
            return await _runs(reads, where, params)

    async def run_for(self, user_id: int, day: str) -> DailyRun | None:
        p = self._params()
        runs = await self._runs_where(f"user_id = {p(user_id)} AND day = {p(day)}", p.values)
        return runs[0] if runs else None

    async def run_by_game(self, game_id: int) -> DailyRun | None:
        runs = await self._runs_where(f"game_id = {self.db.mark(1)}", (game_id,))
        return runs[0] if runs else None

    async def pending_runs(self, user_id: int) -> list[DailyRun]:
        """The runs of `user` not recorded yet, and those scored unfinished that they have
        not been told about, oldest first."""
        return await self._runs_where(
            f"user_id = {self.db.mark(1)} AND (finished_at IS NULL OR untold = 1) ORDER BY day",
            (user_id,),
        )

    async def open_runs_before(self, day: str) -> list[DailyRun]:
        """Every run of a day before `day` that is not recorded yet."""
        return await self._runs_where(
            f"day < {self.db.mark(1)} AND finished_at IS NULL ORDER BY day", (day,)
        )

    # --- leaderboards ------------------------------------------------------------------
    async def day_board(self, day: str, guild_id: int | None, limit: int) -> list[BoardRow]:
        p = self._params()
        where = f"r.day = {p(day)} AND r.finished_at IS NOT NULL{_members(guild_id, 'r', p)}"
        rows = await self.db.fetch(
            "SELECT r.user_id, u.name, r.score, r.turns FROM daily_runs r"
            f" JOIN users u ON u.id = r.user_id WHERE {where}"
            f" ORDER BY r.score DESC, r.turns ASC, r.finished_at ASC LIMIT {p(limit)}",
            p.values,
        )
        return day_rows(rows)

    async def day_spread(self, day: str) -> DaySpread | None:
        # Both read the index of the day's finished scores, not the runs.
        mark = self.db.mark
        [row] = await self.db.fetch(
            "SELECT count(*), max(score) FROM daily_runs"
            f" WHERE day = {mark(1)} AND finished_at IS NOT NULL",
            (day,),
        )
        if not row[0]:
            return None
        [median] = await self.db.fetch(
            f"SELECT score FROM daily_runs WHERE day = {mark(1)} AND finished_at IS NOT NULL"
            f" ORDER BY score DESC LIMIT 1 OFFSET {mark(2)}",
            (day, median_offset(row[0])),
        )
        return DaySpread(int(row[0]), int(row[1]), int(median[0]))

    async def day_rank(self, day: str, guild_id: int | None, user_id: int) -> BoardRow | None:
        p = self._params()
        async with self._reading() as reads:
            mine = await reads.fetch(
                "SELECT r.score, r.turns, r.finished_at, u.name FROM daily_runs r"
                " JOIN users u ON u.id = r.user_id"
                f" WHERE r.day = {p(day)} AND r.user_id = {p(user_id)}"
                " AND r.finished_at IS NOT NULL",
                p.values,
            )
            if not mine:
                return None
            score, turns, finished, name = mine[0]
            query, params = ahead_query(
                "daily_runs",
                ("day", day),
                (("score", ">", score), ("turns", "<", turns), ("finished_at", "<", finished)),
                guild_id,
                self.db.mark,
                RANKED_RUN,
            )
            [ahead] = await reads.fetch(query, params)
        return BoardRow(int(ahead[0] or 0) + 1, user_id, name, score, turns, score, 1)

    async def total_board(self, period: str, guild_id: int | None, limit: int) -> list[BoardRow]:
        p = self._params()
        where = f"t.period = {p(period)}{_members(guild_id, 't', p)}"
        rows = await self.db.fetch(
            "SELECT t.user_id, u.name, t.total, t.best, t.runs FROM daily_totals t"
            f" JOIN users u ON u.id = t.user_id WHERE {where}"
            f" ORDER BY t.total DESC, t.best DESC, t.last_at ASC LIMIT {p(limit)}",
            p.values,
        )
        return total_rows(rows)

    async def total_rank(self, period: str, guild_id: int | None, user_id: int) -> BoardRow | None:
        p = self._params()
        async with self._reading() as reads:
            mine = await reads.fetch(
                "SELECT t.total, t.best, t.runs, t.last_at, u.name FROM daily_totals t"
                f" JOIN users u ON u.id = t.user_id WHERE t.period = {p(period)}"
                f" AND t.user_id = {p(user_id)}",
                p.values,
            )
            if not mine:
                return None
            total, best, runs, last_at, name = mine[0]
            query, params = ahead_query(
                "daily_totals",
                ("period", period),
                (("total", ">", total), ("best", ">", best), ("last_at", "<", last_at)),
                guild_id,
                self.db.mark,
            )
            [ahead] = await reads.fetch(query, params)
        return BoardRow(int(ahead[0] or 0) + 1, user_id, name, total, 0, best, runs)

    async def record_of(self, user_id: int) -> DailyRecord | None:
        mark = self.db.mark
        async with self._reading() as reads:
            totals = await reads.fetch(
                "SELECT runs, total, best, unfinished FROM daily_totals"
                f" WHERE period = 'all' AND user_id = {mark(1)}",
                (user_id,),
            )
            last = await _runs(
                reads,
                f"user_id = {mark(1)} AND finished_at IS NOT NULL ORDER BY day DESC LIMIT 1",
                (user_id,),
            )
        return record_from(totals, last[0] if last else None)

    async def days_played(self, user_id: int, limit: int) -> list[str]:
        rows = await self.db.fetch(DAYS_PLAYED.format(*marks(self.db.mark, 2)), (user_id, limit))
        return [row[0] for row in rows]

    # --- par --------------------------------------------------------------------------
    async def get_par(self, day: str) -> tuple[int, int] | None:
        rows = await self.db.fetch(
            f"SELECT score, turns FROM daily_par WHERE day = {self.db.mark(1)}", (day,)
        )
        return (rows[0][0], rows[0][1]) if rows else None

    async def par_line(self, day: str) -> tuple[str, ...] | None:
        """The turns of a day's par run (None: no par stored, or stored without them)."""
        rows = await self.db.fetch(
            f"SELECT moves FROM daily_par WHERE day = {self.db.mark(1)}", (day,)
        )
        if not rows or rows[0][0] is None:
            return None
        return tuple(move for move in rows[0][0].split("\n") if move)

    def exclusive(self, name: str) -> AbstractAsyncContextManager[bool]:
        """Whether this process is the one (of all sharing the database) doing the work
        that must happen once, `name`, for the block; False at once if another is."""
        return self.db.exclusive(name)


async def _runs(reads: Reads, where: str, params: Sequence[Any]) -> list[DailyRun]:
    rows = await reads.fetch(f"SELECT {RUN_COLUMNS} FROM daily_runs WHERE {where}", params)
    return [run_of(row) for row in rows]


def _members(guild_id: int | None, alias: str, p: Params) -> str:
    """The condition that keeps the rows (of the table aliased `alias`) of a server's
    members when `guild_id` is given: one look-up per row read."""
    if guild_id is None:
        return ""
    return (
        f" AND EXISTS (SELECT 1 FROM guild_members m WHERE m.guild_id = {p(guild_id)}"
        f" AND m.user_id = {alias}.user_id)"
    )


class SharedRatingRepository(Generic[D]):
    """The half of `RatingRepository` both backends share: the tables' reads."""

    def __init__(self, db: D) -> None:
        self.db = db

    def _params(self) -> Params:
        return Params(self.db.mark)

    async def table(self, game: str, scope: int, limit: int) -> list[Standing]:
        query = TABLE_QUERY.format(*marks(self.db.mark, 3))
        return numbered(await self.db.fetch(query, (game, scope, limit)))

    async def standing(
        self, game: str, scope: int, user_id: int, *, placed: bool = True
    ) -> Standing | None:
        query = (STANDING_QUERY if placed else RATING_QUERY).format(*marks(self.db.mark, 3))
        rows = await self.db.fetch(query, (game, scope, user_id))
        return standing_of(rows[0]) if rows else None

    async def standings_of(self, user_id: int, scope: int) -> list[Standing]:
        """The player's rating in every game they have one in, in that scope."""
        first, second = marks(self.db.mark, 2)
        games = await self.db.fetch(
            f"SELECT game FROM ratings WHERE scope = {first} AND user_id = {second} ORDER BY game",
            (scope, user_id),
        )
        found = [await self.standing(row[0], scope, user_id) for row in games]
        return [s for s in found if s is not None]

    async def best_win(self, user_id: int, scope: int, game: str) -> RatedResult | None:
        """The win over the strongest opposition (by their mean μ before the game)."""
        p = self._params()
        rows = await self.db.fetch(
            f"{RESULT_QUERY} WHERE scope = {p(scope)} AND user_id = {p(user_id)}"
            f" AND game = {p(game)} AND outcome = 'win'"
            " ORDER BY others_mu DESC, finished_at DESC LIMIT 1",
            p.values,
        )
        return result_of(rows[0]) if rows else None

    async def head_to_head(self, user_id: int, other_id: int, scope: int) -> list[Meeting]:
        query = MEETINGS.format(*marks(self.db.mark, 3))
        rows = await self.db.fetch(query, (scope, user_id, other_id))
        return [Meeting(*row) for row in rows]

    async def changes_of(self, game_id: int) -> list[Change]:
        """What a rated game changed (empty: not rated, or not yet)."""
        rows = await self.db.fetch(
            "SELECT scope, user_id, outcome, place, mu_before, sigma_before, mu_after,"
            f" sigma_after, others_mu, others FROM rating_changes WHERE game_id = {self.db.mark(1)}"
            " ORDER BY scope, user_id",
            (game_id,),
        )
        return [change_of(row) for row in rows]


class SharedConsoleRepository(ABC, Generic[D]):
    """The half of `ConsoleRepository` both backends share."""

    def __init__(self, db: D) -> None:
        self.db = db

    @abstractmethod
    def _memory_errors(self) -> AbstractContextManager[None]:
        """The database's refusals (a missing table, a damaged value) as
        ConsoleMemoryError; an unreachable server stays DatabaseUnavailableError."""

    async def visible(self, channel: str, user: str) -> list[Button]:
        """The newest buttons `user` sees in `channel`: everyone's or their own."""
        first, second = marks(self.db.mark, 2)
        with self._memory_errors():
            rows = await self.db.fetch(
                f"SELECT buttons FROM console_buttons WHERE channel = {first}"
                f" AND owner IN ('', {second}) ORDER BY shown DESC LIMIT 1",
                (channel, user),
            )
        try:
            return parse_buttons(json.loads(rows[0][0])) if rows else []
        except (ValueError, TypeError) as exc:
            raise ConsoleMemoryError(str(exc)) from exc

    async def name_channel(self, channel_id: int, name: str) -> None:
        first, second = marks(self.db.mark, 2)
        with self._memory_errors():
            await self.db.write(
                f"INSERT INTO console_channels (channel_id, name) VALUES ({first}, {second})"
                " ON CONFLICT (channel_id) DO UPDATE SET name = excluded.name",
                (channel_id, name),
            )
