"""Opening the database a deployment names: the repositories of its backend, together.

`HILLTOP_DB` (or `--db`) is a file path for SQLite, the embedded default for one
process, or a `postgresql://…` URL for PostgreSQL, shared by several bot processes
(shards). Everything above this layer sees only the repository interfaces.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from data.away import AwayRepository
from data.console import ConsoleRepository
from data.daily import DailyRepository
from data.digests import Digests
from data.events import EventRepository
from data.migrations import Backend
from data.postgresql.db import PgDatabase, is_postgres_url
from data.privacy import PrivacyRepository
from data.ratings import RatingRepository
from data.repository import (
    ChangeFeed,
    DatabaseUnusableError,
    GameRepository,
    ShardHold,
    Shards,
    ShardsLost,
)
from data.servers import ServerRepository
from data.web import WebSessionRepository
from data.web_sessions import WebSessions

if TYPE_CHECKING:
    from data.sqlite.db import Database

DEFAULT_PATH = Path("var") / "hilltop.sqlite3"


@dataclass(frozen=True, slots=True)
class Storage:
    """One backend's repositories, sharing its connections."""

    backend: Backend
    #: Where it is: the SQLite file, or the PostgreSQL URL.
    target: str
    games: GameRepository
    daily: DailyRepository
    ratings: RatingRepository
    #: Tournaments: their entrants and rounds.
    events: EventRepository
    #: When each player's daily digest is due.
    digests: Digests[Any]
    #: Away time: balances, absences, and the clocks stopped for them.
    away: AwayRepository
    console: ConsoleRepository
    #: The servers the bot is in or left, and deleting everything of one.
    servers: ServerRepository
    #: What is stored about a person: its copy, and forgetting it.
    privacy: PrivacyRepository
    #: The sign-in sessions of the web pages.
    web: WebSessionRepository
    #: Committed changes to games, from every process on the database.
    changes: ChangeFeed
    database: Database | PgDatabase

    async def close(self) -> None:
        await self.changes.close()
        await self.database.close()

    async def hold_shards(
        self, shards: Shards | None, *, wait: float = 0.0, on_lost: ShardsLost | None = None
    ) -> ShardHold:
        """Hold the Discord shards of this bot process against every other process for
        its life (ShardsHeldError, naming the holder, if another has them). PostgreSQL's
        locks go with the connection holding them, so a lost connection is replaced and
        the locks taken again; `on_lost` is told if another process took them meanwhile.
        SQLite's lock file is never lost while the process runs: `on_lost` is not called."""
        if isinstance(self.database, PgDatabase):
            return await self.database.hold_shards(shards, wait=wait, on_lost=on_lost)
        return await self.database.hold_shards(shards, wait=wait)


def default_target() -> str:
    """`HILLTOP_DB` if set, else ./var/hilltop.sqlite3 (outside the source packages)."""
    return os.environ.get("HILLTOP_DB", "").strip() or str(DEFAULT_PATH)


def backend_of(target: str | Path) -> Backend:
    return "postgresql" if is_postgres_url(str(target)) else "sqlite"


async def open_storage(target: str | Path | None = None) -> Storage:
    """Open (creating and migrating it if need be) the database at `target`: a PostgreSQL
    URL, else an SQLite file. DatabaseUnusableError, saying why on one line, if it cannot
    be used: whatever the opening had opened is closed again."""
    where = str(target) if target is not None else default_target()
    if "://" in where and backend_of(where) != "postgresql":
        scheme = where.split("://", 1)[0]
        raise DatabaseUnusableError(
            f"the database {scheme}://… is neither an SQLite file nor a postgresql:// URL"
        )
    if backend_of(where) == "postgresql":
        from data.postgresql.away import PgAwayRepository
        from data.postgresql.console import PgConsoleRepository
        from data.postgresql.daily import PgDailyRepository
        from data.postgresql.events import PgEventRepository
        from data.postgresql.feed import PgChangeFeed
        from data.postgresql.games import PgGameRepository
        from data.postgresql.privacy import PgPrivacyRepository
        from data.postgresql.ratings import PgRatingRepository
        from data.postgresql.servers import PgServerRepository

        pg = await PgDatabase.open(where)
        return Storage(
            "postgresql",
            where,
            games=PgGameRepository(pg),
            daily=PgDailyRepository(pg),
            ratings=PgRatingRepository(pg),
            events=PgEventRepository(pg),
            digests=Digests(pg),
            away=PgAwayRepository(pg),
            console=PgConsoleRepository(pg),
            servers=PgServerRepository(pg),
            privacy=PgPrivacyRepository(pg),
            web=WebSessions(pg),
            changes=PgChangeFeed(where),
            database=pg,
        )
    from data.sqlite.away import SqliteAwayRepository
    from data.sqlite.console import SqliteConsoleRepository
    from data.sqlite.daily import SqliteDailyRepository
    from data.sqlite.db import Database
    from data.sqlite.events import SqliteEventRepository
    from data.sqlite.games import SqliteGameRepository
    from data.sqlite.privacy import SqlitePrivacyRepository
    from data.sqlite.ratings import SqliteRatingRepository
    from data.sqlite.servers import SqliteServerRepository

    db = await Database.open(where)
    return Storage(
        "sqlite",
        where,
        games=SqliteGameRepository(db),
        daily=SqliteDailyRepository(db),
        ratings=SqliteRatingRepository(db),
        events=SqliteEventRepository(db),
        digests=Digests(db),
        away=SqliteAwayRepository(db),
        console=SqliteConsoleRepository(db),
        servers=SqliteServerRepository(db),
        privacy=SqlitePrivacyRepository(db),
        web=WebSessions(db),
        changes=db.changes,
        database=db,
    )
