"""Events on SQLite: the shared statements (`data.events`) in SQLite's transactions."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import aiosqlite

from data.events import EventRepository, Tx
from data.queries import Params
from data.repository import GameRecord, NewGame, OneServer, TimeKeeping, UserRecord
from data.sqlite.db import Database
from data.sqlite.games import insert_game, load_game, upsert_user


class SqliteTx:
    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Any]:
        return list(await self.conn.execute_fetchall(sql, params))

    async def insert_game(self, new: NewGame, now: float) -> int:
        return await insert_game(self.conn, new, now)

    async def load_game(self, game_id: int) -> GameRecord:
        return await load_game(self.conn, game_id)

    async def upsert_user(self, user: UserRecord) -> None:
        await upsert_user(self.conn, user)


class SqliteTransactions:
    """A shared repository's transactions (events, away time, servers, a person's data),
    each a `SqliteTx` on the writer. Named first among a repository's bases."""

    #: The repository's database (the shared base sets it): a `Database`.
    db: Any

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Tx]:
        database: Database = self.db
        async with database.transaction() as conn:
            yield SqliteTx(conn)


class SqliteEventRepository(SqliteTransactions, EventRepository):
    def _of_shards(self, shards: TimeKeeping | None, p: Params, column: str = "guild_id") -> str:
        if shards is None:
            return ""
        if isinstance(shards, OneServer):
            return f" AND {column} = {p(shards.guild_id)}"
        shard = f"({column} >> 22) % {p(shards.count)}"
        return f" AND {shard} IN ({','.join(p(held) for held in shards.ids)})"
