"""Events on PostgreSQL: the shared statements (`data.events`) in the pool's
transactions, so that every bot process on the database starts a round once."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from data.events import EventRepository, Tx
from data.postgresql.db import PgDatabase
from data.postgresql.games import insert_game, load_game, upsert_user
from data.queries import Params
from data.repository import GameRecord, NewGame, OneServer, TimeKeeping, UserRecord

if TYPE_CHECKING:
    from data.postgresql.db import Connection


class PgTx:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Any]:
        return list(await self.conn.fetch(sql, *params))

    async def insert_game(self, new: NewGame, now: float) -> int:
        return await insert_game(self.conn, new, now)

    async def load_game(self, game_id: int) -> GameRecord:
        return await load_game(self.conn, game_id)

    async def upsert_user(self, user: UserRecord) -> None:
        await upsert_user(self.conn, user)


class PgEventRepository(EventRepository):
    def __init__(self, db: PgDatabase) -> None:
        super().__init__(db)
        self.database = db

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Tx]:
        async with self.database.transaction() as conn:
            yield PgTx(conn)

    def _of_shards(self, shards: TimeKeeping | None, p: Params, column: str = "guild_id") -> str:
        if shards is None:
            return ""
        if isinstance(shards, OneServer):
            return f" AND {column} = {p(shards.guild_id)}"
        return f" AND ({column} >> 22) % {p(shards.count)} = ANY({p(list(shards.ids))}::int[])"
