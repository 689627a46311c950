"""The PostgreSQL connections: a pool, the numbered migrations, advisory locks, and clear
errors while the server cannot be reached.

Every bot process (shard) has its own pool on the one database. A single-statement write
(`write`) commits on its own; `transaction()` runs several statements on one pooled
connection and commits them together or not at all; `read()` gives a consistent view of
several reads. Rules that keep the data whole (a game's ply steps by one, the move log
is append-only, one scored daily run per player and day) are the database's own
constraints and triggers, as in SQLite.

While the server is down or restarting, every call raises `DatabaseUnavailableError`
at once (nothing was half written: each statement or transaction is atomic), and the
pool connects again by itself when the server is back.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any

import asyncpg
import asyncpg.exceptions as pg

from data.migrations import migrations
from data.repository import DatabaseUnavailableError

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

    #: A pooled connection, as the repositories use it.
    Connection = PoolConnectionProxy[asyncpg.Record]

#: Connections per process: enough for the commands a process answers at once; the
#: server's max_connections must cover every process's pool.
DEFAULT_POOL_SIZE = 10
#: Seconds to wait for a new connection, or for a free one of the pool, before telling
#: the player the database cannot be reached.
CONNECT_TIMEOUT = 5.0
#: Seconds a statement may take before it is given up (a server that stopped answering
#: without closing the connection): far beyond any statement of the bot's.
STATEMENT_TIMEOUT = 30.0
#: The lock migrations take, so that processes starting together migrate once.
_MIGRATION_LOCK = "hilltop:migrations"

#: What the server or the network does while the database is unreachable or restarting.
_UNREACHABLE: tuple[type[BaseException], ...] = (
    pg.PostgresConnectionError,  # includes a connection that no longer exists
    pg.OperatorInterventionError,  # shutting down, starting up, crashed
    pg.InsufficientResourcesError,  # too many connections
    OSError,  # refused, reset
    TimeoutError,
)


def is_postgres_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def pool_size() -> int:
    value = os.environ.get("HILLTOP_DB_POOL", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else DEFAULT_POOL_SIZE


@contextmanager
def unavailable_as_error() -> Iterator[None]:
    """Turn the ways a connection fails into `DatabaseUnavailableError`."""
    try:
        yield
    except pg.QueryCanceledError:
        raise  # a statement cancelled (by an operator, a server timeout): not an outage
    except _UNREACHABLE as exc:
        raise DatabaseUnavailableError(f"the database cannot be reached: {exc}") from exc


async def _keep_session(conn: object) -> None:
    """Nothing to reset: see `PgDatabase.open`."""


def rowcount(status: str) -> int:
    """The rows a statement touched, from its status ("UPDATE 1", "INSERT 0 1")."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PgDatabase:
    def __init__(self, pool: asyncpg.Pool, url: str) -> None:
        self.pool = pool
        self.url = url

    @classmethod
    async def open(cls, url: str, *, size: int | None = None) -> PgDatabase:
        """Connect a pool to `url` and apply the migrations not applied yet."""
        size = size or pool_size()
        with unavailable_as_error():
            pool = await asyncpg.create_pool(
                url,
                # No floor of idle connections: none to restore while the server is away.
                min_size=0,
                max_size=size,
                timeout=CONNECT_TIMEOUT,
                command_timeout=STATEMENT_TIMEOUT,
                # A connection that sat idle is closed, so a restarted server is found
                # by new connections rather than by a player's command.
                max_inactive_connection_lifetime=60.0,
                # A connection goes back to the pool as it is: its transaction is always
                # over (the pool rolls back one left open), and no session state is ever
                # set, so the default reset's extra round trip per statement buys nothing.
                reset=_keep_session,
            )
        db = cls(pool, url)
        try:
            await db.migrate()
        except BaseException:
            await pool.close()
            raise
        return db

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.pool.close(), 10.0)
        except Exception:
            # A server that is gone cannot take a clean goodbye.
            self.pool.terminate()

    async def migrate(self) -> int:
        """Apply the migrations not applied yet, each in its own transaction, under a
        lock that makes processes starting together wait for each other; returns the
        schema version."""
        with unavailable_as_error():
            async with self.pool.acquire() as conn:
                await conn.execute(
                    "SELECT pg_advisory_lock(hashtextextended($1, 0))", _MIGRATION_LOCK
                )
                try:
                    await conn.execute(
                        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
                    )
                    current = await conn.fetchval("SELECT max(version) FROM schema_version") or 0
                    for version, _name, sql in migrations("postgresql"):
                        if version > current:
                            async with conn.transaction():
                                await conn.execute(sql)
                                await conn.execute(
                                    "INSERT INTO schema_version (version) VALUES ($1)", version
                                )
                            current = version
                    return int(current)
                finally:
                    await conn.execute(
                        "SELECT pg_advisory_unlock(hashtextextended($1, 0))", _MIGRATION_LOCK
                    )

    async def write(self, sql: str, params: Sequence[Any] = ()) -> list[asyncpg.Record]:
        """One statement, atomic on its own, in one round trip; its RETURNING rows."""
        with unavailable_as_error():
            async with self.pool.acquire(timeout=CONNECT_TIMEOUT) as conn:
                return list(await conn.fetch(sql, *params))

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """One statement, atomic on its own; how many rows it touched."""
        with unavailable_as_error():
            async with self.pool.acquire(timeout=CONNECT_TIMEOUT) as conn:
                return rowcount(await conn.execute(sql, *params))

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        """A write transaction of several statements on one connection: committed on
        success, rolled back on any exception."""
        with unavailable_as_error():
            async with self.pool.acquire(timeout=CONNECT_TIMEOUT) as conn, conn.transaction():
                yield conn

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[asyncpg.Record]:
        """The rows of one query, in one round trip."""
        with unavailable_as_error():
            async with self.pool.acquire(timeout=CONNECT_TIMEOUT) as conn:
                return list(await conn.fetch(sql, *params))

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Connection]:
        """A connection for reads of several statements, all seeing the same snapshot."""
        with unavailable_as_error():
            async with (
                self.pool.acquire(timeout=CONNECT_TIMEOUT) as conn,
                conn.transaction(isolation="repeatable_read", readonly=True),
            ):
                yield conn

    @asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """Whether this process holds the advisory lock `name` (no other process of any
        host does) for the block; False at once when another holds it. The lock belongs
        to a transaction kept open for the block, so it ends with it however the block
        ends: the pool rolls back a connection returned in a transaction, and the server
        releases it if this process dies."""
        with unavailable_as_error():
            async with self.pool.acquire(timeout=CONNECT_TIMEOUT) as conn, conn.transaction():
                yield bool(
                    await conn.fetchval(
                        "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))", name
                    )
                )
