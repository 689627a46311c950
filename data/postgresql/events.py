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


class PgTransactions:
    """A shared repository's transactions (events, away time, servers, a person's data),
    each a `PgTx` on a connection of the pool. Named first among a repository's bases."""

    #: The repository's database (the shared base sets it): a `PgDatabase`.
    db: Any

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Tx]:
        database: PgDatabase = self.db
        async with database.transaction() as conn:
            yield PgTx(conn)


class PgEventRepository(PgTransactions, EventRepository):
    def _of_shards(self, shards: TimeKeeping | None, p: Params, column: str = "guild_id") -> str:
        if shards is None:
            return ""
        if isinstance(shards, OneServer):
            return f" AND {column} = {p(shards.guild_id)}"
        return f" AND ({column} >> 22) % {p(shards.count)} = ANY({p(list(shards.ids))}::int[])"
