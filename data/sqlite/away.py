"""Away time on SQLite: the shared statements (`data.away`) in SQLite's transactions."""

from __future__ import annotations

from data.away import AwayRepository
from data.sqlite.events import SqliteTransactions


class SqliteAwayRepository(SqliteTransactions, AwayRepository):
    """Away time, in SQLite's transactions."""
