"""A person's stored data on SQLite: the shared statements (`data.privacy`) in SQLite's
transactions."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from data.forgetting import Tx
from data.privacy import PrivacyRepository
from data.sqlite.db import Database
from data.sqlite.events import SqliteTx


class SqlitePrivacyRepository(PrivacyRepository):
    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.database = db

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Tx]:
        async with self.database.transaction() as conn:
            yield SqliteTx(conn)
