"""What is stored about a person: a copy of it, and forgetting it. Both backends share one
implementation (`PrivacyRepository`): their SQL is the same but for placeholders, and each
lends its transactions (`Tx`).

Forgetting a person keeps what other people's games need: their seats in games others
played, their moves, their daily runs on the shared tables, their places in tournaments.
Those pass to "a former player", a users row made for this one forgetting, with a fresh
random id (negative: Discord's ids and the console's are not) and no name, that nothing
links back to them. What is theirs alone is removed: preferences, follows, away time,
digests, memberships, web sessions, ratings and rating changes.

A forgetting is a sequence of steps (`STEPS`), each one transaction. The `forgetting` row
says which are done, so a forgetting interrupted (a process killed midway) is finished by
running it again. That row alone links the person's id to the former player's, and it is
removed by the last step, with the person's own users row.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from data.forgetting import STEPS, Forgetting, Step, Tx
from data.queries import SharedStatements

#: The columns that hold a person's id, in every table that has one. `users.id` is the
#: person; the console remembers its buttons by its person's name (`owner`).
USER_COLUMNS: dict[str, tuple[str, ...]] = {
    "users": ("id",),
    "games": ("created_by", "last_user_id"),
    "seats": ("user_id", "left_by"),
    "moves": ("user_id",),
    "daily_runs": ("user_id",),
    "daily_totals": ("user_id",),
    "guild_members": ("user_id",),
    "user_settings": ("user_id",),
    "follows": ("user_id",),
    "rating_changes": ("user_id",),
    "ratings": ("user_id",),
    "head_to_head": ("user_id", "other_id"),
    "events": ("created_by",),
    "event_entrants": ("user_id",),
    "event_seats": ("user_id",),
    "digests": ("user_id",),
    "away": ("user_id",),
    "web_sessions": ("user_id",),
    "forgetting": ("user_id",),
}
#: The former player ids: negative 63-bit numbers, apart from every Discord snowflake and
#: console id (both are never negative).
FORMER_IDS = 1 << 62


class Db(Protocol):
    def mark(self, n: int) -> str: ...

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Any]: ...


@dataclass(frozen=True, slots=True)
class StoredUser:
    id: int
    name: str
    is_bot: bool
    #: A former player: the seats of someone forgotten.
    former: bool


def new_former_id() -> int:
    """A fresh former player's id: random, so nothing derives it from the person's."""
    return -1 - secrets.randbelow(FORMER_IDS)


def as_dict(row: Any) -> dict[str, Any]:
    """A row of either backend as {column: value}."""
    return dict(zip(row.keys(), tuple(row), strict=True))


class PrivacyRepository(SharedStatements[Db, Tx]):
    """A person's stored data on either backend."""

    #: The statement that tells every process on the database, once its step commits,
    #: that a game's people were renamed (`{game}`); None: one process, which drops its
    #: own copies.
    ANNOUNCE: str | None = None

    # --- reads ------------------------------------------------------------------------
    async def user(self, user_id: int) -> StoredUser | None:
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT id, name, is_bot, former FROM users WHERE id = {p(user_id)}", p.values
        )
        if not rows:
            return None
        row = rows[0]
        return StoredUser(int(row[0]), str(row[1]), bool(row[2]), bool(row[3]))

    async def computer(self) -> StoredUser | None:
        """The bot's own user, as its games seat it (the first computer stored)."""
        rows = await self.db.fetch(
            "SELECT id, name, is_bot, former FROM users WHERE is_bot = 1 ORDER BY id LIMIT 1"
        )
        if not rows:
            return None
        row = rows[0]
        return StoredUser(int(row[0]), str(row[1]), bool(row[2]), bool(row[3]))

    async def forgetting(self, user_id: int) -> Forgetting | None:
        p = self._params()
        rows = await self.db.fetch(
            "SELECT user_id, former_id, step, after_game FROM forgetting"
            f" WHERE user_id = {p(user_id)}",
            p.values,
        )
        return _forgetting(rows[0]) if rows else None

    async def unfinished(self, before: float | None = None) -> list[int]:
        """The people whose forgetting is under way (begun before `before`, if given): a
        few at a time, the oldest first. The table holds only forgettings under way."""
        p = self._params()
        since = "" if before is None else f" WHERE started_at < {p(before)}"
        rows = await self.db.fetch(
            f"SELECT user_id FROM forgetting{since} ORDER BY started_at LIMIT 100", p.values
        )
        return [int(row[0]) for row in rows]

    async def _select(self, table: str, where: str, values: Sequence[Any]) -> list[dict[str, Any]]:
        rows = await self.db.fetch(f"SELECT * FROM {table} WHERE {where}", values)
        return [as_dict(row) for row in rows]

    async def _rows_of(
        self, table: str, column: str, value: int, order: str | None = None
    ) -> list[dict[str, Any]]:
        p = self._params()
        ordered = f" ORDER BY {order}" if order else ""
        return await self._select(table, f"{column} = {p(value)}{ordered}", p.values)

    async def export(self, user_id: int) -> dict[str, list[dict[str, Any]]]:
        """Every row stored about the person, by table: their own rows, and the games
        they sat in (or made, or left) with every seat and move of them. Web sessions
        are given without the hash of their token."""
        found: dict[str, list[dict[str, Any]]] = {}
        for table, columns in USER_COLUMNS.items():
            if table in ("games", "moves"):
                continue
            p = self._params()
            where = " OR ".join(f"{column} = {p(user_id)}" for column in columns)
            found[table] = await self._select(table, where, p.values)
        for session in found["web_sessions"]:
            session.pop("token_hash", None)
        found["games"] = []
        found["moves"] = []
        for game_id in await self._game_ids(user_id):
            game = await self._rows_of("games", "id", game_id)
            if not game:
                continue
            record = game[0]
            record["seats"] = await self._rows_of("seats", "game_id", game_id, "seat")
            record["moves"] = await self._rows_of("moves", "game_id", game_id, "ply")
            found["games"].append(record)
            found["moves"].extend(m for m in record["moves"] if m["user_id"] == user_id)
        return found

    async def _game_ids(self, user_id: int) -> list[int]:
        """The games the person sat in, left, or made, each read in its own index."""
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT game_id FROM seats WHERE user_id = {p(user_id)}"
            f" UNION SELECT game_id FROM seats WHERE left_by = {p(user_id)}"
            f" UNION SELECT id FROM games WHERE created_by = {p(user_id)}",
            p.values,
        )
        return sorted({int(row[0]) for row in rows})

    # --- forgetting -------------------------------------------------------------------
    async def begin(self, user_id: int, now: float) -> Forgetting | None:
        """The person's forgetting: begun now (with its former player), or the one under
        way. None: no such person (or a former player: they are forgotten). Begun by
        another process meanwhile (the confirmation pressed twice), it is theirs."""
        async with self._transaction() as tx:
            under_way = await self._under_way(tx, user_id)
            if under_way is not None:
                return under_way
            p = self._params()
            rows = await tx.rows(f"SELECT former FROM users WHERE id = {p(user_id)}", p.values)
            if not rows or int(rows[0][0]):
                return None
            former_id = new_former_id()
            p = self._params()
            begun = await tx.rows(
                "INSERT INTO forgetting (user_id, former_id, step, after_game, started_at)"
                f" VALUES ({p(user_id)}, {p(former_id)}, 0, 0, {p(now)})"
                " ON CONFLICT (user_id) DO NOTHING RETURNING user_id",
                p.values,
            )
            if not begun:
                return await self._under_way(tx, user_id)
            p = self._params()
            await tx.rows(
                f"INSERT INTO users (id, name, is_bot, former) VALUES ({p(former_id)}, '', 0, 1)",
                p.values,
            )
            return Forgetting(user_id, former_id, 0, 0)

    async def _under_way(self, tx: Tx, user_id: int) -> Forgetting | None:
        p = self._params()
        rows = await tx.rows(
            "SELECT user_id, former_id, step, after_game FROM forgetting"
            f" WHERE user_id = {p(user_id)}",
            p.values,
        )
        return _forgetting(rows[0]) if rows else None

    async def run(
        self, forgetting: Forgetting, after_step: Callable[[int], Awaitable[None]] | None = None
    ) -> set[int]:
        """Every step not yet done, each in its own transaction (a step that pages, one
        per page); `after_step` is told each step's number once it is committed. Returns
        the games whose pages change."""
        touched: set[int] = set()
        current = forgetting
        while current.step < len(STEPS):
            async with self._transaction() as tx:
                step = Step(tx, self._params, current, touched, self.ANNOUNCE)
                cursor = await STEPS[current.step](step)
                done = cursor is None
                current = Forgetting(
                    current.user_id,
                    current.former_id,
                    current.step + 1 if done else current.step,
                    0 if cursor is None else cursor,
                )
                if current.step < len(STEPS):
                    await step.run(
                        "UPDATE forgetting SET step = {step}, after_game = {after}"
                        " WHERE user_id = {old}",
                        step=current.step,
                        after=current.after_game,
                    )
            if after_step is not None and done:
                await after_step(current.step)
        return touched


def _forgetting(row: Any) -> Forgetting:
    return Forgetting(int(row[0]), int(row[1]), int(row[2]), int(row[3]))
