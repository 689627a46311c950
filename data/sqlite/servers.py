"""Servers on SQLite: the shared statements (`data.servers`) in SQLite's transactions."""

from __future__ import annotations

from data.servers import ServerRepository
from data.sqlite.events import SqliteTransactions


class SqliteServerRepository(SqliteTransactions, ServerRepository):
    """The servers' rows, in SQLite's transactions."""
