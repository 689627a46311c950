"""Servers on PostgreSQL: the shared statements (`data.servers`) in the pool's
transactions."""

from __future__ import annotations

from data.postgresql.events import PgTransactions
from data.servers import ServerRepository


class PgServerRepository(PgTransactions, ServerRepository):
    """The servers' rows, in the pool's transactions."""
