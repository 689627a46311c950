"""The PostgreSQL connections: a pool, the numbered migrations, advisory locks, and clear
errors while the server cannot be reached.

Every bot process (shard) has its own pool on the one database. A single-statement write
(`write`) commits on its own; `transaction()` runs several statements on one pooled
connection and commits them together or not at all; `read()` gives a consistent view of
several reads. Rules that keep the data whole (a game's ply steps by one, the move log
is append-only, one scored daily run per player and day) are the database's own
constraints and triggers, as in SQLite.

Opening a database that cannot be used (the server cannot be reached or refuses the
login, the database is missing or cannot be migrated) raises `DatabaseUnusableError`,
saying why without the URL's password, and leaves no connection open.

While the server is down or restarting, every call raises `DatabaseUnavailableError`
at once (nothing was half written: each statement or transaction is atomic), and the
pool connects again by itself when the server is back.

A bot process holds its shards under session advisory locks on a connection of its own
(`hold_shards`). The server lets them go when that connection ends, so the holder
watches it, takes the locks again on a new connection when it is lost, and tells the
process if another took them first (`PgShardHold`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote

import asyncpg
import asyncpg.exceptions as pg

from data.migrations import migrations
from data.repository import (
    DatabaseUnavailableError,
    DatabaseUnusableError,
    Shards,
    ShardsHeldError,
    ShardsLost,
    shards_named,
    this_process,
)

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

    #: A pooled connection, as the repositories use it.
    Connection = PoolConnectionProxy[asyncpg.Record]

log = logging.getLogger(__name__)

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
#: How many of a hold's locks ($2: shards of $1; $4: count of $3) its connection holds.
_HELD_HERE = (
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted"
    " AND pid = pg_backend_pid()"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND ((classid = $1::bigint::oid AND objid = ANY($2::bigint[]::oid[]))"
    " OR (classid = $3::bigint::oid AND objid = $4::bigint::oid))"
)
#: Seconds between checks that the connection holding a process's shards still answers
#: and still holds their locks (a network that drops a connection silently gives no
#: other sign; a connection the server ends is noticed at once).
HOLD_CHECK_EVERY = 5.0
#: Seconds that check may take before the connection is taken for lost.
HOLD_CHECK_TIMEOUT = 5.0
#: Seconds to wait before trying again to take lost shards while the database cannot be
#: reached: doubled after each failure, up to the last.
HOLD_FIRST_RETRY = 0.25
HOLD_LAST_RETRY = 5.0

#: What the server or the network does while the database is unreachable or restarting.
_UNREACHABLE: tuple[type[BaseException], ...] = (
    pg.PostgresConnectionError,  # includes a connection that no longer exists
    pg.OperatorInterventionError,  # shutting down, starting up, crashed
    pg.InsufficientResourcesError,  # too many connections
    OSError,  # refused, reset
    TimeoutError,
)


def _url_parts(url: str) -> tuple[str, str, str, str]:
    """(login, hosts, database, query) of a postgresql:// URL, split by hand: a password
    may hold characters (`[`, `]`, `@`) that urllib refuses or splits elsewhere."""
    rest = url.split("://", 1)[-1]
    rest, _, query = rest.partition("?")
    netloc, _, path = rest.partition("/")
    login, _, hosts = netloc.rpartition("@")
    return login, hosts, path, query


def _secrets(login: str) -> set[str]:
    """What of a URL's login may be a password, in every form a message could quote it:
    all after the first colon, as written and decoded, and its pieces between the
    characters a parser may split it at."""
    password = login.partition(":")[2]
    found = {password, unquote(password)}
    for text in tuple(found):
        found.update(p for p in re.split(r"[@:\[\]/]", text) if len(p) >= 3)
    return {s for s in found if s}


def server_of(url: str) -> str:
    """Where the server of `url` is, as host:port (without who logs in, or a password)."""
    _, server, _, query = _url_parts(url)
    if not server:
        server = parse_qs(query).get("host", [""])[0] or "localhost"
    if (":" not in server or server.endswith("]")) and not server.startswith("/"):
        port = parse_qs(query).get("port", ["5432"])[0]
        server = f"{server}:{port}"
    return server


def unusable(url: str, exc: Exception, *, migrating: bool = False) -> str:
    """Why `exc`, met while opening the database at `url`, makes it unusable: one line,
    naming the server and the database, never the password."""
    if isinstance(exc, DatabaseUnavailableError) and isinstance(exc.__cause__, Exception):
        exc = exc.__cause__
    login, _, path, _ = _url_parts(url)
    said = " ".join((str(exc) or type(exc).__name__).split())
    for secret in sorted(_secrets(login), key=len, reverse=True):
        said = said.replace(secret, "***")
    server = server_of(url)
    name = unquote(path) or "(the default database)"
    if isinstance(exc, pg.InvalidCatalogNameError):
        return f"the PostgreSQL database {name} at {server} does not exist"
    if isinstance(exc, pg.InvalidAuthorizationSpecificationError):
        return f"the PostgreSQL server at {server} refused the login ({said})"
    if isinstance(exc, _UNREACHABLE):
        return f"the PostgreSQL server at {server} cannot be reached: {said}"
    if isinstance(exc, ValueError | pg.ClientConfigurationError):
        return f"the PostgreSQL URL for {server} is not valid ({said})"
    if migrating and isinstance(exc, pg.PostgresError):
        return (
            f"the PostgreSQL database {name} at {server} cannot be brought to this "
            f"version's tables ({said})"
        )
    return f"the PostgreSQL database {name} at {server} cannot be used ({said})"


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
        """Connect a pool to `url` and apply the migrations not applied yet.
        DatabaseUnusableError, with the pool closed again, if the database cannot be
        used (cannot be reached, refuses the login, does not exist, cannot be migrated)."""
        size = size or pool_size()
        try:
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
        except Exception as exc:
            raise DatabaseUnusableError(unusable(url, exc)) from exc
        db = cls(pool, url)
        try:
            # The first statement: the pool connects for it.
            await db.migrate()
        except BaseException as exc:
            await db.close()
            if isinstance(exc, Exception):
                raise DatabaseUnusableError(unusable(url, exc, migrating=True)) from exc
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

    async def hold_shards(
        self, shards: Shards | None, *, wait: float = 0.0, on_lost: ShardsLost | None = None
    ) -> PgShardHold:
        """Hold `shards` (None: every shard) for as long as this process runs, on a
        connection of its own outside the pool: the server lets the locks go when the
        connection ends, however the process ends. ShardsHeldError if another process
        holds one of them, or holds shards of another count, still so after `wait`
        seconds (a process that was just killed may not have let go of them yet).

        The hold is kept while the process runs: see `PgShardHold` for a lost connection,
        and `on_lost` for shards another process took meanwhile."""
        ids, count = (shards.ids, shards.count) if shards is not None else ((0,), 1)
        loop = asyncio.get_running_loop()
        give_up = loop.time() + wait
        # The same name on every connection of the hold: the process a refused one names.
        name = f"hilltop {this_process()}"[:63]
        with unavailable_as_error():
            conn = await _connect_holder(self.url, name)
        try:
            with unavailable_as_error():
                while (held := await _take_shards(conn, ids, count)) is not None:
                    if loop.time() >= give_up:
                        raise ShardsHeldError(_refusal(held, shards, count))
                    await asyncio.sleep(_SHARDS_RETRY)
        except BaseException:
            await conn.close()
            raise
        return PgShardHold(self.url, name, shards, conn, on_lost)


class Snapshot:
    """The reads of one `PgDatabase.snapshot`."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[asyncpg.Record]:
        """The rows of one query."""
        return list(await self._conn.fetch(sql, *params))


class PgShardHold:
    """Shards held on a connection of their own; `release` lets them go.

    The locks live as long as the server's session of that connection, so the hold
    watches it: asyncpg tells at once of a connection the server ended (a restart,
    `pg_terminate_backend`) or the network reset, and a check every HOLD_CHECK_EVERY
    seconds finds one that stopped answering without a word (a network cut) or whose
    locks are gone. A lost hold is taken again on a new connection, at once and then,
    while the database cannot be reached, after waits growing to HOLD_LAST_RETRY, for as
    long as it takes. If another process took the shards meanwhile, this one must stop
    handling them: `on_lost` is told who holds them (without it, the loss is logged).
    """

    def __init__(
        self,
        url: str,
        name: str,
        shards: Shards | None,
        conn: asyncpg.Connection,
        on_lost: ShardsLost | None,
    ) -> None:
        self._url = url
        self._name = name
        self._shards = shards
        self._ids, self._count = (shards.ids, shards.count) if shards is not None else ((0,), 1)
        self._conn: asyncpg.Connection | None = conn
        self._on_lost = on_lost
        #: The server processes of this hold's connections, the present one included.
        self._backends = {conn.get_server_pid()}
        self._takes = 1
        self._lost: str | None = None
        self._changed = asyncio.Event()
        self._keeping = asyncio.get_running_loop().create_task(
            self._keep(), name=f"hilltop hold of {shards_named(shards)}"
        )

    @property
    def takes(self) -> int:
        """How often the locks were taken: once at first, once more each time they were
        taken again after the connection holding them was lost."""
        return self._takes

    async def taken(self, takes: int) -> None:
        """Return once the locks were taken `takes` times in all; ShardsHeldError, saying
        who holds them, once another process took them instead."""
        while self._takes < takes:
            if self._lost is not None:
                raise ShardsHeldError(self._lost)
            await self._changed.wait()

    async def release(self) -> None:
        self._keeping.cancel()
        await asyncio.wait([self._keeping])
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            await asyncio.wait_for(conn.close(), 5.0)
        except Exception:
            conn.terminate()  # the server lets the locks go with the connection

    def _tell(self) -> None:
        """Wake whoever waits in `taken`."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def _keep(self) -> None:
        """Watch the connection holding the locks, and take them again whenever it is
        lost, until they are released or another process takes them."""
        named = shards_named(self._shards)
        while self._conn is not None:
            why = await _until_lost(self._conn, self._ids, self._count)
            self._conn.terminate()
            self._conn = None
            log.warning("The hold of %s was lost (%s); taking it again", named, why)
            held = await self._take_again()
            if held is not None:
                self._lost = _loss(held, self._shards, self._count)
                self._tell()
                if self._on_lost is None:
                    log.error("%s", self._lost)
                    return
                try:
                    self._on_lost(self._lost)
                except Exception:
                    log.exception("telling of the lost hold of %s failed", named)
                return
            self._takes += 1
            self._tell()
            log.info("The hold of %s is taken again", named)

    async def _take_again(self) -> _Held | None:
        """Take the locks again on a new connection (then `self._conn`), trying until
        the database answers; None once taken, else who took them meanwhile."""
        retry = HOLD_FIRST_RETRY
        failures = 0
        while True:
            try:
                return await self._take_anew()
            except Exception as exc:  # whatever the cause, try again later
                failures += 1
                level = logging.WARNING if failures == 1 else logging.DEBUG
                named = shards_named(self._shards)
                log.log(
                    level,
                    "Cannot take the hold of %s again yet (%s); trying again",
                    named,
                    _said(exc),
                )
            await asyncio.sleep(retry)
            retry = min(retry * 2, HOLD_LAST_RETRY)

    async def _take_anew(self) -> _Held | None:
        """Take the locks on a new connection, kept as `self._conn` if they are taken;
        None if they are, else who holds them."""
        conn = await _connect_holder(self._url, self._name)
        try:
            self._backends.add(conn.get_server_pid())
            held = await self._take_on(conn)
        except BaseException:
            conn.terminate()
            raise
        if held is None:
            self._conn = conn
        else:
            conn.terminate()
        return held

    async def _take_on(self, conn: asyncpg.Connection) -> _Held | None:
        """Take the locks on `conn`; None once taken, else who holds them. A connection
        of this hold that the server has not yet seen end (the network was cut: the
        server's side of it waits on) is ended, and the locks taken from it."""
        while (held := await _take_shards(conn, self._ids, self._count)) is not None:
            if held.pid not in self._backends or held.holder != self._name:
                return held
            log.warning(
                "Ending server process %d, an earlier connection of the hold of %s that the"
                " server still keeps",
                held.pid,
                shards_named(self._shards),
            )
            await conn.execute("SELECT pg_terminate_backend($1)", held.pid)
            await asyncio.sleep(_SHARDS_RETRY)  # the server lets its locks go as it ends
        return None


async def _connect_holder(url: str, name: str) -> asyncpg.Connection:
    return await asyncpg.connect(
        url, timeout=CONNECT_TIMEOUT, server_settings={"application_name": name}
    )


async def _until_lost(conn: asyncpg.Connection, ids: tuple[int, ...], count: int) -> str:
    """Return once `conn` is closed, stops answering or no longer holds the locks of
    shards `ids` of `count`: how it was lost."""
    ended = asyncio.Event()
    conn.add_termination_listener(lambda _conn: ended.set())
    while not conn.is_closed():
        try:
            await asyncio.wait_for(ended.wait(), HOLD_CHECK_EVERY)
        except TimeoutError:
            try:
                held = await conn.fetchval(
                    _HELD_HERE,
                    SHARD_LOCKS,
                    list(ids),
                    SHARD_COUNT_LOCKS,
                    count,
                    timeout=HOLD_CHECK_TIMEOUT,
                )
            except Exception as exc:
                return f"its connection does not answer: {_said(exc)}"
            if held != len(ids) + 1:
                return "its connection no longer holds the locks"
        else:
            break
    return "its connection ended"


def _said(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


@dataclass(frozen=True, slots=True)
class _Held:
    """Another process's lock in the way of taking shards."""

    #: The shard it holds, or None: it holds shards of another count.
    shard: int | None
    #: The count of the shards it holds (known when `shard` is None).
    count: int
    #: Its application name, if it gave one, and its server process.
    holder: str | None
    pid: int

    @property
    def who(self) -> str:
        return str(self.holder or f"server process {self.pid}").removeprefix("hilltop ")


def _counted(count: int) -> str:
    return "one process holding every shard" if count == 1 else f"{count} shards"


def _refusal(held: _Held, shards: Shards | None, count: int) -> str:
    """Why a process cannot start on `shards`."""
    if held.shard is None:
        return (
            f"this database's servers are handled by {_counted(held.count)} ({held.who}), and "
            f"this process was given {shards_named(shards)}: give every process the "
            "same shard count in HILLTOP_SHARDS"
        )
    return (
        f"shard {held.shard} of {count} is held by another process ({held.who}):"
        " one process per shard; stop that one first, or give this one other shards"
        " in HILLTOP_SHARDS"
    )


def _loss(held: _Held, shards: Shards | None, count: int) -> str:
    """Who took the shards of a process whose hold was lost."""
    who = held.who if held.holder is None else f"{held.who}, server process {held.pid}"
    if held.shard is None:
        return (
            f"this database's servers are now handled by {_counted(held.count)} ({who}),"
            f" not by {shards_named(shards)}"
        )
    return f"shard {held.shard} of {count} is now held by {who}"


async def _take_shards(conn: asyncpg.Connection, ids: tuple[int, ...], count: int) -> _Held | None:
    """Take the shard locks of `ids` of `count`, one process at a time; None if taken,
    else who holds what is in the way (and nothing is held)."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", _SHARDS_LOCK)
        other = await conn.fetchrow(
            _HELD_BY.format(where="AND l.objid <> $2::bigint::oid"), SHARD_COUNT_LOCKS, count
        )
        if other is not None:
            return _Held(None, other["key"], other["holder"], other["pid"])
        held = await conn.fetchrow(
            _HELD_BY.format(where="AND l.objid = ANY($2::bigint[]::oid[])"), SHARD_LOCKS, list(ids)
        )
        if held is not None:
            return _Held(held["key"], count, held["holder"], held["pid"])
        for shard in ids:
            await conn.execute("SELECT pg_advisory_lock($1, $2)", SHARD_LOCKS, shard)
        await conn.execute("SELECT pg_advisory_lock_shared($1, $2)", SHARD_COUNT_LOCKS, count)
    return None
