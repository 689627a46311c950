"""A person's stored data on PostgreSQL: the shared statements (`data.privacy`) in the
pool's transactions."""

from __future__ import annotations

from data.postgresql.events import PgTransactions
from data.postgresql.feed import CHANNEL, FORGOTTEN
from data.privacy import PrivacyRepository


class PgPrivacyRepository(PgTransactions, PrivacyRepository):
    #: Every process's copies of a renamed game are dropped (`PgChangeFeed.when_forgotten`),
    #: once the step that renamed it commits.
    ANNOUNCE = f"SELECT pg_notify('{CHANNEL}', '{FORGOTTEN}' || CAST({{game}} AS BIGINT))"
