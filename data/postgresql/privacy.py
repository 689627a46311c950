"""A person's stored data on PostgreSQL: the shared statements (`data.privacy`) in the
pool's transactions."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from data.forgetting import Tx
from data.postgresql.db import PgDatabase
from data.postgresql.events import PgTx
from data.postgresql.feed import CHANNEL, FORGOTTEN
from data.privacy import PrivacyRepository


class PgPrivacyRepository(PrivacyRepository):
    #: Every process's copies of a renamed game are dropped (`PgChangeFeed.when_forgotten`),
    #: once the step that renamed it commits.
    ANNOUNCE = f"SELECT pg_notify('{CHANNEL}', '{FORGOTTEN}' || CAST({{game}} AS BIGINT))"

    def __init__(self, db: PgDatabase) -> None:
        super().__init__(db)
        self.database = db

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Tx]:
        async with self.database.transaction() as conn:
            yield PgTx(conn)
