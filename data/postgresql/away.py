"""Away time on PostgreSQL: the shared statements (`data.away`) in the pool's
transactions."""

from __future__ import annotations

from data.away import AwayRepository
from data.postgresql.events import PgTransactions


class PgAwayRepository(PgTransactions, AwayRepository):
    """Away time, in the pool's transactions."""
