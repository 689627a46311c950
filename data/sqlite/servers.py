"""Servers on SQLite: the shared statements (`data.servers`) in SQLite's transactions."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from data.events import Tx
from data.servers import ServerRepository
from data.sqlite.db import Database
from data.sqlite.events import SqliteTx


class SqliteServerRepository(ServerRepository):
    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.database = db

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Tx]:
        async with self.database.transaction() as conn:
            yield SqliteTx(conn)
