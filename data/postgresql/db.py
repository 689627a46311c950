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
from data.repository import (
    DatabaseUnavailableError,
    Shards,
    ShardsHeldError,
    shards_named,
    this_process,
)

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

#: The advisory locks of the shards, two keys each: (SHARD_LOCKS, shard id) held by the
#: one process handling that shard; (SHARD_COUNT_LOCKS, count) shared by every process
#: of that count, so that processes of another count see them. ("Hill" and "Hilm".)
SHARD_LOCKS = 0x48696C6C
SHARD_COUNT_LOCKS = 0x48696C6D
#: The lock processes take one at a time to check and take their shards.
_SHARDS_LOCK = "hilltop:shards"
#: How often a process waiting for its shards (one that just died is still letting them
#: go) tries again.
_SHARDS_RETRY = 0.25
#: The first advisory lock of this database of each kind, and who holds it.
_HELD_BY = (
    "SELECT l.objid::bigint AS key, a.application_name AS holder, l.pid FROM pg_locks l"
    " LEFT JOIN pg_stat_activity a ON a.pid = l.pid"
    " WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.granted"
    " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND l.classid = $1::bigint::oid AND l.pid <> pg_backend_pid() {where}"
    " ORDER BY l.objid LIMIT 1"
)

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

    @staticmethod
    def mark(n: int) -> str:
        """The placeholder of a statement's n-th parameter."""
        return f"${n}"

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
    async def snapshot(self) -> AsyncIterator[Snapshot]:
        """Reads of several statements, each sent as `fetch` sends one, all seeing the
        same snapshot (`read`)."""
        async with self.read() as conn:
            yield Snapshot(conn)

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

    async def hold_shards(self, shards: Shards | None, *, wait: float = 0.0) -> PgShardHold:
        """Hold `shards` (None: every shard) for as long as this process runs, on a
        connection of its own outside the pool: the server lets the locks go when the
        connection ends, however the process ends. ShardsHeldError if another process
        holds one of them, or holds shards of another count, still so after `wait`
        seconds (a process that was just killed may not have let go of them yet)."""
        ids, count = (shards.ids, shards.count) if shards is not None else ((0,), 1)
        loop = asyncio.get_running_loop()
        give_up = loop.time() + wait
        with unavailable_as_error():
            conn = await asyncpg.connect(
                self.url,
                timeout=CONNECT_TIMEOUT,
                server_settings={"application_name": f"hilltop {this_process()}"[:63]},
            )
        try:
            with unavailable_as_error():
                while (refusal := await _take_shards(conn, shards, ids, count)) is not None:
                    if loop.time() >= give_up:
                        raise ShardsHeldError(refusal)
                    await asyncio.sleep(_SHARDS_RETRY)
        except BaseException:
            await conn.close()
            raise
        return PgShardHold(conn)


class Snapshot:
    """The reads of one `PgDatabase.snapshot`."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[asyncpg.Record]:
        """The rows of one query."""
        return list(await self._conn.fetch(sql, *params))


class PgShardHold:
    """Shards held on a connection of their own; `release` lets them go."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self._conn = conn

    async def release(self) -> None:
        try:
            await asyncio.wait_for(self._conn.close(), 5.0)
        except Exception:
            self._conn.terminate()  # the server lets the locks go with the connection


async def _take_shards(
    conn: asyncpg.Connection, shards: Shards | None, ids: tuple[int, ...], count: int
) -> str | None:
    """Take the shard locks of `ids` of `count`, one process at a time; None if taken,
    else why not (and nothing is held)."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", _SHARDS_LOCK)
        other = await conn.fetchrow(
            _HELD_BY.format(where="AND l.objid <> $2::bigint::oid"), SHARD_COUNT_LOCKS, count
        )
        if other is not None:
            theirs = (
                "one process holding every shard"
                if other["key"] == 1
                else (f"{other['key']} shards")
            )
            return (
                f"this database's servers are handled by {theirs} ({_holder(other)}), and "
                f"this process was given {shards_named(shards)}: give every process the "
                "same shard count in HILLTOP_SHARDS"
            )
        held = await conn.fetchrow(
            _HELD_BY.format(where="AND l.objid = ANY($2::bigint[]::oid[])"), SHARD_LOCKS, list(ids)
        )
        if held is not None:
            return (
                f"shard {held['key']} of {count} is held by another process ({_holder(held)}):"
                " one process per shard; stop that one first, or give this one other shards"
                " in HILLTOP_SHARDS"
            )
        for shard in ids:
            await conn.execute("SELECT pg_advisory_lock($1, $2)", SHARD_LOCKS, shard)
        await conn.execute("SELECT pg_advisory_lock_shared($1, $2)", SHARD_COUNT_LOCKS, count)
    return None


def _holder(row: asyncpg.Record) -> str:
    return str(row["holder"] or f"server process {row['pid']}").removeprefix("hilltop ")
