"""Servers the bot is in and servers it was removed from, and deleting everything of a
server, for both backends: their SQL is the same but for placeholders, and each lends its
transactions (`Tx`).

A server the bot leaves is kept `FORGET_AFTER` seconds, in case it is invited back; then
everything of it is deleted in steps, each one transaction doing a bounded amount, so a
deletion interrupted (a restart, another process's sweep) is continued where it stopped.
While a server is being forgotten (`forgetting`), the move log of its games may be
deleted: the log is append-only for every other game.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from data.events import Tx
from data.queries import SharedStatements
from data.shared import Statements

#: A server the bot left is deleted this long after (seconds), unless it comes back.
FORGET_AFTER = 30 * 86_400
#: Games (with their seats, moves, follows and rating changes) one step deletes at most.
GAMES_PER_STEP = 50
#: Rows of one other table one step deletes at most.
ROWS_PER_STEP = 1000
#: Servers read from the sweep's index at one tick at most.
DUE_BATCH = 10
#: Stored servers read at a time when the bot compares them with those it is in.
PRESENT_PAGE = 1000


@dataclass(frozen=True, slots=True)
class ServerRecord:
    guild_id: int
    #: When the bot last found itself in it.
    seen_at: float
    #: When the bot was removed from it (None: it is in it).
    left_at: float | None
    #: When everything of it is deleted (None: never).
    forget_at: float | None
    #: Its data is being deleted now.
    forgetting: bool


@dataclass(frozen=True, slots=True)
class ServerContents:
    """What deleting a server's data takes away, counted."""

    games: int
    #: Rated results of players in its games (one a player a game).
    results: int
    #: Its own rating tables' rows (one a player a game).
    ratings: int
    #: Players on its daily boards.
    members: int
    events: int

    @property
    def empty(self) -> bool:
        return not (self.games or self.results or self.ratings or self.members or self.events)


class ServerRepository(SharedStatements[Statements, Tx]):
    """The servers' rows, and their deletion, on either backend."""

    # --- the bot comes and goes ---------------------------------------------------------
    async def get(self, guild_id: int) -> ServerRecord | None:
        p = self._params()
        rows = await self.db.fetch(
            "SELECT guild_id, seen_at, left_at, forget_at, forgetting FROM guilds"
            f" WHERE guild_id = {p(guild_id)}",
            p.values,
        )
        if not rows:
            return None
        row = rows[0]
        return ServerRecord(
            int(row[0]),
            float(row[1]),
            None if row[2] is None else float(row[2]),
            None if row[3] is None else float(row[3]),
            bool(row[4]),
        )

    async def joined(self, guild_ids: Iterable[int], now: float) -> list[int]:
        """The bot is in these servers (invited, or found there as it connects): a
        deletion pending for any of them is called off (one under way is finished). The
        servers among them it had left."""
        ids = list(dict.fromkeys(guild_ids))
        back: list[int] = []
        for start in range(0, len(ids), PRESENT_PAGE):
            batch = ids[start : start + PRESENT_PAGE]
            p = self._params()
            listed = ", ".join(p(guild_id) for guild_id in batch)
            rows = await self.db.fetch(
                f"SELECT guild_id FROM guilds WHERE guild_id IN ({listed}) AND left_at IS NOT NULL",
                p.values,
            )
            back += [int(row[0]) for row in rows]
            p = self._params()
            values = ", ".join(f"({p(guild_id)}, {p(now)})" for guild_id in batch)
            await self.db.write(
                f"INSERT INTO guilds (guild_id, seen_at) VALUES {values}"
                " ON CONFLICT (guild_id) DO UPDATE SET seen_at = excluded.seen_at,"
                " left_at = NULL,"
                " forget_at = CASE WHEN guilds.forgetting = 1 THEN guilds.forget_at END",
                p.values,
            )
        return back

    async def left(self, guild_id: int, now: float) -> bool:
        """The bot was removed from the server: everything of it goes `FORGET_AFTER` from
        `now`. False if it had left already (the first date stands)."""
        p = self._params()
        forget_at = now + FORGET_AFTER
        rows = await self.db.write(
            "INSERT INTO guilds (guild_id, seen_at, left_at, forget_at)"
            f" VALUES ({p(guild_id)}, {p(now)}, {p(now)}, {p(forget_at)})"
            " ON CONFLICT (guild_id) DO UPDATE SET left_at = excluded.left_at,"
            " forget_at = COALESCE(guilds.forget_at, excluded.forget_at)"
            " WHERE guilds.left_at IS NULL RETURNING guild_id",
            p.values,
        )
        return bool(rows)

    async def stored_present(self, after: int = -1, limit: int = PRESENT_PAGE) -> list[int]:
        """A page of the servers the bot is in as stored, by id, after `after`."""
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT guild_id FROM guilds WHERE guild_id > {p(after)} AND left_at IS NULL"
            f" ORDER BY guild_id LIMIT {p(limit)}",
            p.values,
        )
        return [int(row[0]) for row in rows]

    async def is_gone(self, guild_id: int) -> bool:
        """Whether the bot was removed from the server (its data may remain a while)."""
        found = await self.get(guild_id)
        return found is not None and found.left_at is not None

    # --- what a server holds --------------------------------------------------------------
    async def live_games(self, guild_id: int, after: int = 0, limit: int = 100) -> list[int]:
        """A page of the server's challenges and games under way, by id."""
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT id FROM games WHERE guild_id = {p(guild_id)} AND id > {p(after)}"
            " AND kind = 'channel' AND status IN ('challenge', 'active')"
            f" ORDER BY id LIMIT {p(limit)}",
            p.values,
        )
        return [int(row[0]) for row in rows]

    async def live_events(self, guild_id: int) -> list[int]:
        """The server's tournaments still open or running (a server has a handful)."""
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT id FROM events WHERE guild_id = {p(guild_id)}"
            f" AND state IN ('open', 'running') ORDER BY id LIMIT {p(ROWS_PER_STEP)}",
            p.values,
        )
        return [int(row[0]) for row in rows]

    async def contents(self, guild_id: int) -> ServerContents:
        """What deleting the server's data would take away, each counted in its index."""
        counts = []
        for sql in (
            "SELECT count(*) FROM games WHERE guild_id = {g}",
            "SELECT count(*) FROM rating_changes WHERE scope = {g}",
            "SELECT count(*) FROM ratings WHERE scope = {g}",
            "SELECT count(*) FROM guild_members WHERE guild_id = {g}",
            "SELECT count(*) FROM events WHERE guild_id = {g}",
        ):
            p = self._params()
            rows = await self.db.fetch(sql.format(g=p(guild_id)), p.values)
            counts.append(int(rows[0][0]))
        return ServerContents(*counts)

    # --- forgetting -----------------------------------------------------------------------
    async def due(self, now: float, limit: int = DUE_BATCH) -> list[int]:
        """The servers whose data is due to go at `now`, the longest due first (those whose
        deletion is under way among them)."""
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT guild_id FROM guilds WHERE forget_at <= {p(now)}"
            f" ORDER BY forget_at LIMIT {p(limit)}",
            p.values,
        )
        return [int(row[0]) for row in rows]

    async def begin_forgetting(self, guild_id: int, now: float) -> bool:
        """Start deleting the server's data if it is due at `now`: False if it is not
        (the bot was invited back meanwhile)."""
        p = self._params()
        rows = await self.db.write(
            f"UPDATE guilds SET forgetting = 1 WHERE guild_id = {p(guild_id)}"
            f" AND forget_at <= {p(now)} RETURNING guild_id",
            p.values,
        )
        return bool(rows)

    async def forget_now(self, guild_id: int, now: float) -> None:
        """Delete the server's data now (an admin asked). A server the bot is not known to
        be in (the console's own) is noted as left, so that nothing of it is kept once
        its data is gone: the bot never compares it with the servers it finds itself in."""
        p = self._params()
        await self.db.write(
            "INSERT INTO guilds (guild_id, seen_at, left_at, forget_at, forgetting)"
            f" VALUES ({p(guild_id)}, {p(now)}, {p(now)}, {p(now)}, 1)"
            " ON CONFLICT (guild_id) DO UPDATE SET forget_at = excluded.forget_at,"
            " forgetting = 1",
            p.values,
        )

    async def forget_step(self, guild_id: int) -> bool:
        """One step of deleting the server's data, in one transaction: False once all of
        it is gone (or its deletion was never begun)."""
        async with self._transaction() as tx:
            p = self._params()
            rows = await tx.rows(
                f"SELECT forgetting FROM guilds WHERE guild_id = {p(guild_id)}", p.values
            )
            if not rows or not rows[0][0]:
                return False
            for step in (
                self._event,
                self._scoped_rows,
                self._games,
                self._members,
            ):
                if await step(tx, guild_id):
                    return True
            await self._finish(tx, guild_id)
        return False

    async def _event(self, tx: Tx, guild_id: int) -> bool:
        """One of the server's tournaments, with its entrants, tables and seats."""
        p = self._params()
        rows = await tx.rows(
            f"SELECT id FROM events WHERE guild_id = {p(guild_id)} ORDER BY id LIMIT 1",
            p.values,
        )
        if not rows:
            return False
        event_id = int(rows[0][0])
        for table in ("event_seats", "event_tables", "event_entrants"):
            p = self._params()
            await tx.rows(f"DELETE FROM {table} WHERE event_id = {p(event_id)}", p.values)
        p = self._params()
        await tx.rows(f"DELETE FROM events WHERE id = {p(event_id)}", p.values)
        return True

    async def _scoped_rows(self, tx: Tx, guild_id: int) -> bool:
        """A batch of the server's own rating tables: its head-to-head records, rating
        changes and ratings (the global tables keep theirs)."""
        for table, key in (
            ("head_to_head", "scope, user_id, other_id, game"),
            ("rating_changes", "scope, user_id, game_id"),
            ("ratings", "game, scope, user_id"),
        ):
            p = self._params()
            rows = await tx.rows(
                f"DELETE FROM {table} WHERE ({key}) IN (SELECT {key} FROM {table}"
                f" WHERE scope = {p(guild_id)} LIMIT {p(ROWS_PER_STEP)}) RETURNING scope",
                p.values,
            )
            if rows:
                return True
        return False

    async def _games(self, tx: Tx, guild_id: int) -> bool:
        """A batch of the server's games, with everything that refers to them."""
        p = self._params()
        rows = await tx.rows(
            f"SELECT id FROM games WHERE guild_id = {p(guild_id)}"
            f" ORDER BY id LIMIT {p(GAMES_PER_STEP)}",
            p.values,
        )
        if not rows:
            return False
        ids = [int(row[0]) for row in rows]
        await self._repoint_head_to_head(tx, guild_id, ids)
        for table, column in (
            ("rating_changes", "game_id"),
            ("follows", "game_id"),
            ("daily_runs", "game_id"),
            ("moves", "game_id"),
            ("seats", "game_id"),
            ("games", "id"),
        ):
            p = self._params()
            listed = ", ".join(p(game_id) for game_id in ids)
            await tx.rows(f"DELETE FROM {table} WHERE {column} IN ({listed})", p.values)
        return True

    async def _repoint_head_to_head(self, tx: Tx, guild_id: int, ids: Sequence[int]) -> None:
        """Head-to-head records of other tables (the global one) whose last game is among
        `ids` are told of the pair's latest game elsewhere instead; a pair that met only
        in this server loses its record."""
        newest = (
            "SELECT {columns} FROM rating_changes a"
            " JOIN rating_changes b ON b.scope = a.scope AND b.game_id = a.game_id"
            " AND b.user_id = head_to_head.other_id"
            " JOIN games g ON g.id = a.game_id"
            " WHERE a.scope = head_to_head.scope AND a.user_id = head_to_head.user_id"
            " AND a.game = head_to_head.game"
            " AND (g.guild_id IS NULL OR g.guild_id <> {guild})"
            " ORDER BY a.finished_at DESC, a.game_id DESC LIMIT 1"
        )
        p = self._params()
        listed = ", ".join(p(game_id) for game_id in ids)
        elsewhere = newest.format(columns="1", guild=p(guild_id))
        await tx.rows(
            f"DELETE FROM head_to_head WHERE last_game_id IN ({listed})"
            f" AND NOT EXISTS ({elsewhere})",
            p.values,
        )
        p = self._params()
        columns = (
            "a.game_id, a.finished_at, CASE WHEN a.place < b.place THEN 'win'"
            " WHEN a.place = b.place THEN 'draw' ELSE 'loss' END"
        )
        latest = newest.format(columns=columns, guild=p(guild_id))
        listed = ", ".join(p(game_id) for game_id in ids)
        await tx.rows(
            "UPDATE head_to_head SET (last_game_id, last_finished_at, last_outcome) ="
            f" ({latest}) WHERE last_game_id IN ({listed})",
            p.values,
        )

    async def _members(self, tx: Tx, guild_id: int) -> bool:
        """A batch of the players on the server's daily boards, or its settings."""
        p = self._params()
        rows = await tx.rows(
            "DELETE FROM guild_members WHERE (guild_id, user_id) IN (SELECT guild_id, user_id"
            f" FROM guild_members WHERE guild_id = {p(guild_id)} LIMIT {p(ROWS_PER_STEP)})"
            " RETURNING guild_id",
            p.values,
        )
        if rows:
            return True
        p = self._params()
        rows = await tx.rows(
            f"DELETE FROM guild_settings WHERE guild_id = {p(guild_id)} RETURNING guild_id",
            p.values,
        )
        return bool(rows)

    async def _finish(self, tx: Tx, guild_id: int) -> None:
        """Everything is gone: a server the bot left is no longer known; one it is in
        (an admin had its data deleted) stays known, with nothing pending."""
        p = self._params()
        await tx.rows(
            f"DELETE FROM guilds WHERE guild_id = {p(guild_id)} AND left_at IS NOT NULL",
            p.values,
        )
        p = self._params()
        await tx.rows(
            f"UPDATE guilds SET forgetting = 0, forget_at = NULL WHERE guild_id = {p(guild_id)}",
            p.values,
        )
