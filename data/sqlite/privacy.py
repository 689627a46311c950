"""A person's stored data on SQLite: the shared statements (`data.privacy`) in SQLite's
transactions."""

from __future__ import annotations

from data.privacy import PrivacyRepository
from data.sqlite.events import SqliteTransactions


class SqlitePrivacyRepository(SqliteTransactions, PrivacyRepository):
    """A person's stored data, in SQLite's transactions."""
