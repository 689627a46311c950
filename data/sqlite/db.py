"""The SQLite connections: pragmas, numbered migrations, one writer and lock-free reads.

A `Database` owns two aiosqlite connections to one file, each with its own thread:

- the writer. SQLite allows one writer at a time, and a connection shared by coroutines
  must not interleave two transactions, so writes are serialised here: a single-statement
  write (`write`, one round trip to the connection's thread) or a multi-statement
  `transaction()`. Single statements go to the thread several at a time (it runs them
  one after another): the thread goes from one to the next without waiting for the
  event loop to hand it each, which under load is most of a statement's time. So does
  work done in the thread as one transaction (`atomic`). A transaction of several round
  trips has the writer to itself. Only writers wait for each other.
- the reader, for `read()`. Nothing is locked: WAL gives every statement a consistent view
  of the last committed state while the writer works, and the connection's thread runs
  the statements of all readers one after another. It is opened `query_only`.

As the writer commits, the games it changed are announced (`changes`, data.sqlite.feed).

Other processes on the same file are serialised by SQLite itself (WAL, busy timeout), so
several bot processes can share one database. WAL with synchronous=NORMAL keeps every
committed transaction across a process crash (only an OS crash or power loss can drop the
last few).

Opening waits for the other processes as any statement does, even those opening a fresh
file at the same moment. A file that cannot be used is refused (`DatabaseUnusableError`,
saying why) with nothing of it left open.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import re
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from data.fair import FairGate
from data.migrations import migrations
from data.repository import (
    DatabaseUnusableError,
    Shards,
    ShardsHeldError,
    shards_named,
    this_process,
)
from data.sqlite.feed import NOTE_FUNCTION, TRIGGERS, SqliteChangeFeed

#: What a lock's name may keep in its file's name.
_LOCK_NAME = re.compile(r"[^A-Za-z0-9_.-]")
#: Seconds a statement waits for another process's lock before it fails; opening waits
#: as long for the lock that puts a fresh file in WAL mode.
BUSY_SECONDS = 5.0
#: Seconds between tries of that switch while another process holds the lock.
_WAL_RETRY = 0.01
#: Single-statement writes handed to the writer's thread at once: enough that it never
#: waits for the event loop between them, few enough that a server's turn comes soon.
WRITES_IN_FLIGHT = 4


async def _connect(target: Path, *, query_only: bool, deadline: float) -> aiosqlite.Connection:
    """A connection to `target` with the pragmas every connection has. Whatever fails
    closes it again: an open one keeps a thread, and with it the process, alive."""
    conn = await aiosqlite.connect(str(target), isolation_level=None, timeout=BUSY_SECONDS)
    try:
        conn.row_factory = aiosqlite.Row
        # First: every statement after it waits for another process's lock.
        await conn.execute(f"PRAGMA busy_timeout={round(BUSY_SECONDS * 1000)}")
        await _write_ahead_log(conn, deadline)
        await conn.execute("PRAGMA synchronous=NORMAL")
        await conn.execute("PRAGMA foreign_keys=ON")
        if query_only:
            await conn.execute("PRAGMA query_only=ON")
    except BaseException:
        await _close(conn)
        raise
    return conn


async def _write_ahead_log(conn: aiosqlite.Connection, deadline: float) -> None:
    """Put the file in WAL mode. SQLite does not wait for the lock this takes on a fresh
    file: while another process switches it too, it fails at once, whatever the busy
    timeout. So it is tried again until `deadline` (the loop's clock)."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            await conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if not _is_locked(exc) or loop.time() >= deadline:
                raise
        await asyncio.sleep(_WAL_RETRY)


async def _close(conn: aiosqlite.Connection) -> None:
    """Close `conn` (and end its thread) without hiding why it is closed."""
    with contextlib.suppress(Exception):
        await conn.close()


def _is_locked(exc: sqlite3.Error) -> bool:
    return _code(exc) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _code(exc: sqlite3.Error) -> int | None:
    """SQLite's primary result code of `exc`, if it has one."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def _prepare(target: Path) -> None:
    """Create `target`'s folder, and `target` itself (empty: a new database) unless it
    exists, and check that it can be written: SQLite would only say that it is "unable to
    open database file", whatever the cause."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseUnusableError(f"cannot create {target}: {_why(exc, target)}") from exc
    existed = target.exists()
    try:
        os.close(os.open(target, os.O_RDWR | os.O_CREAT, 0o644))
    except OSError as exc:
        doing = "open" if existed else "create"
        raise DatabaseUnusableError(f"cannot {doing} {target}: {_why(exc, target)}") from exc


def _why(exc: OSError, target: Path) -> str:
    """What the system's refusal `exc` to create or open `target` means, in a few words."""
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        blocker = next((p for p in reversed(target.parents) if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            return f"{blocker} is a file, not a folder"
    if exc.errno == errno.EROFS:
        return "the folder is read-only"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return (
            "permission denied"
            if target.exists()
            else "the folder is read-only (permission denied)"
        )
    if exc.errno == errno.ENOENT and target.parent.is_dir():
        return "the folder takes no new files"
    if exc.errno == errno.EISDIR:
        return "it is a folder"
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    said = exc.strerror or str(exc)
    return said[:1].lower() + said[1:]


def _unusable(target: Path, exc: sqlite3.Error, *, migrating: bool) -> str:
    """Why the SQLite error `exc`, met while opening `target`, makes it unusable."""
    said = " ".join(str(exc).split())
    code = _code(exc)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return f"{target} is locked by another process for more than {BUSY_SECONDS:g} s"
    if code == sqlite3.SQLITE_NOTADB:
        return f"{target} is not a Hilltop database ({said})"
    if code == sqlite3.SQLITE_CORRUPT:
        return f"{target} is damaged ({said})"
    if code == sqlite3.SQLITE_READONLY:
        return f"{target} cannot be written ({said})"
    if code == sqlite3.SQLITE_CANTOPEN:
        return f"cannot open {target} ({said})"
    if code == sqlite3.SQLITE_FULL:
        return f"cannot write {target}: the disk is full"
    if migrating:
        return f"{target} cannot be brought to this version's tables ({said})"
    return f"{target} cannot be used ({said})"


class Database:
    def __init__(self, writer: aiosqlite.Connection, reader: aiosqlite.Connection, path: Path):
        self._writer = writer
        self._reader = reader
        self.path = path
        #: Held by writes only; readers never wait for it. Servers take turns at it: no
        #: server's moves wait behind another's burst of writes. A transaction holds all
        #: of it.
        self._write_lock = FairGate(WRITES_IN_FLIGHT)
        #: The games the writer's committed statements change.
        self.changes = SqliteChangeFeed()

    @classmethod
    async def open(cls, path: Path | str) -> Database:
        """Open (creating it if need be) and migrate the database file at `path`; waits
        up to BUSY_SECONDS for other processes opening it. DatabaseUnusableError, with
        everything it opened closed again, if it cannot be used."""
        target = Path(path)
        if str(target) == ":memory:":
            raise DatabaseUnusableError(
                "the SQLite database must be a file (not :memory:): its reader and writer share it"
            )
        _prepare(target)
        deadline = asyncio.get_running_loop().time() + BUSY_SECONDS
        migrating = False
        try:
            writer = await _connect(target, query_only=False, deadline=deadline)
            try:
                db = cls(writer, await _connect(target, query_only=True, deadline=deadline), target)
            except BaseException:
                await _close(writer)
                raise
            try:
                migrating = True
                await db.migrate()
                migrating = False
                await db._announce_changes()
            except BaseException:
                await db._close_quietly()
                raise
        except sqlite3.Error as exc:
            raise DatabaseUnusableError(_unusable(target, exc, migrating=migrating)) from exc
        except OSError as exc:
            raise DatabaseUnusableError(f"cannot open {target}: {_why(exc, target)}") from exc
        return db

    @staticmethod
    def mark(_n: int) -> str:
        """The placeholder of a statement's n-th parameter (SQLite's are positional)."""
        return "?"

    async def close(self) -> None:
        try:
            await self._reader.close()
        finally:
            await self._writer.close()

    async def _close_quietly(self) -> None:
        await _close(self._reader)
        await _close(self._writer)

    async def migrate(self) -> int:
        """Apply the migrations not applied yet; returns the schema version."""
        async with self.transaction() as conn:
            async with conn.execute("PRAGMA user_version") as cur:
                row = await cur.fetchone()
            current = int(row[0]) if row else 0
            for version, _name, sql in migrations("sqlite"):
                if version > current:
                    # executescript would commit; run statement by statement instead.
                    for statement in _split_sql(sql):
                        await conn.execute(statement)
                    await conn.execute(f"PRAGMA user_version={version:d}")
                    current = version
            return current

    async def _announce_changes(self) -> None:
        """Have the writer's triggers note the games its statements change (on the
        schema migrated: they name its columns)."""
        await self._writer.create_function(NOTE_FUNCTION, 1, self.changes.note)
        for statement in _split_sql(TRIGGERS):
            await self._writer.execute(statement)

    async def write(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """One statement, atomic on its own, in one round trip; its RETURNING rows."""
        async with self._write_lock:
            return await self._in_writer(_statement, sql, tuple(params))

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """A write transaction of several statements: committed on success, rolled back
        on any exception."""
        async with self._write_lock.whole():
            await self._writer.execute("BEGIN IMMEDIATE")
            try:
                yield self._writer
            except BaseException:
                await self._in_writer(_roll_back)
                raise
            await self._in_writer(_commit)

    async def atomic(self, work: Callable[..., T], *args: Any) -> T:
        """`work(connection, *args)`, a plain function of the sqlite3 connection, in the
        writer's thread as one transaction: committed if it returns, rolled back if it
        raises. For writes with nothing to await between their statements: the writer is
        held for one hand-over to its thread, not one for each statement, which under
        load is what a transaction's time is made of. Nothing can come between its
        statements (the thread runs one call at a time), so it goes beside the single
        statements, one of the places at the writer, not all of them."""
        async with self._write_lock:
            return await self._in_writer(_atomically, work, *args)

    async def _in_writer(self, call: _InWriter[T], *args: Any) -> T:
        """`call(connection, feed, *args)` in the writer's thread, whose statements it
        runs; the games its committed statements changed are then announced. Announced
        even if the caller is cancelled meanwhile, since the thread goes on with it: a
        change announced has a page read the game again, one not announced would leave
        it behind."""
        ran = asyncio.ensure_future(in_thread(self._writer, call, self.changes, *args))
        ran.add_done_callback(self._announce)
        result, _ = await asyncio.shield(ran)
        return result

    def _announce(self, ran: asyncio.Future[tuple[Any, list[int]]]) -> None:
        if not ran.cancelled() and ran.exception() is None:
            self.changes.committed(ran.result()[1])

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """The rows of one query, in one round trip, without waiting for any writer."""
        return list(await self._reader.execute_fetchall(sql, params))

    @asynccontextmanager
    async def read(self) -> AsyncIterator[aiosqlite.Connection]:
        """The reader connection, for reads of several statements."""
        yield self._reader

    @asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """Whether this holder has the lock `name` (no other process or database
        connection on this file does) for the block; False at once when another has it.
        Each name is a file in `<database>-locks/`, locked with `flock`, which the system
        releases when its holder dies."""
        folder = f"{self.path}-locks"
        os.makedirs(folder, exist_ok=True)
        fd = os.open(os.path.join(folder, _LOCK_NAME.sub("_", name)), os.O_RDWR | os.O_CREAT)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    async def hold_shards(self, shards: Shards | None, *, wait: float = 0.0) -> SqliteShardHold:
        """Hold this file for the one bot process it may have (whatever its shards), for
        as long as the process runs: the system lets the lock go however it ends.
        ShardsHeldError, naming the holder, if another bot process has it; `wait` is
        unused (a killed process's lock goes with it at once). Consoles and
        `--recompute-ratings` share the file with the bot freely."""
        return _hold_file(os.path.join(f"{self.path}-locks", "bot-process"), shards)


class SqliteShardHold:
    """The lock file of the one bot process on an SQLite file; `release` lets it go."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing the file lets the lock go
            self._fd = -1


def _hold_file(path: str, shards: Shards | None) -> SqliteShardHold:
    """Lock `path` for this process, writing who holds it into it."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "unknown"
            raise ShardsHeldError(
                f"another bot process uses this SQLite file ({holder}): SQLite is for one "
                "bot process; several share a PostgreSQL database (HILLTOP_DB)"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{this_process()}, {shards_named(shards)}\n".encode(), 0)
    except BaseException:
        os.close(fd)
        raise
    return SqliteShardHold(fd)


T = TypeVar("T")


def in_thread(conn: aiosqlite.Connection, call: Callable[..., T], *args: Any) -> Awaitable[T]:
    """`call(connection, *args)`, a plain function of the sqlite3 connection, in `conn`'s
    own thread, after the statements queued there before it: aiosqlite's own way into
    its thread, as each of its statements takes."""
    queue: Callable[..., Awaitable[T]] = conn._execute
    return queue(call, conn._conn, *args)


#: What runs in the writer's thread: its result, and the games its committed statements
#: changed (`SqliteChangeFeed.take`).
_InWriter = Callable[..., tuple[T, list[int]]]


def _statement(
    conn: sqlite3.Connection, feed: SqliteChangeFeed, sql: str, params: tuple[Any, ...]
) -> tuple[list[sqlite3.Row], list[int]]:
    """One statement (committed on its own); its rows. In the writer's thread."""
    try:
        rows = conn.execute(sql, params).fetchall()
    except BaseException:
        feed.take()  # the statement failed: SQLite undid it
        raise
    return rows, feed.take()


def _commit(conn: sqlite3.Connection, feed: SqliteChangeFeed) -> tuple[None, list[int]]:
    """End the transaction begun, keeping what it did. In the writer's thread."""
    try:
        conn.execute("COMMIT")
    except BaseException:
        feed.take()  # the commit failed: nothing was committed
        raise
    return None, feed.take()


def _atomically(
    conn: sqlite3.Connection, feed: SqliteChangeFeed, work: Callable[..., T], *args: Any
) -> tuple[T, list[int]]:
    """`work` in a transaction of its own. In the writer's thread."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = work(conn, *args)
        conn.execute("COMMIT")
    except BaseException:
        feed.take()  # undone, or never committed
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result, feed.take()


def _roll_back(conn: sqlite3.Connection, feed: SqliteChangeFeed) -> tuple[None, list[int]]:
    """End the transaction begun, undoing what it did. In the writer's thread."""
    feed.take()
    conn.execute("ROLLBACK")
    return None, []


def _split_sql(script: str) -> list[str]:
    """Statements of a migration script (triggers keep their inner semicolons)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip() and not all(
        not ln.strip() or ln.strip().startswith("--") for ln in buffer.splitlines()
    ):
        raise RuntimeError(f"migration ends with an incomplete statement: {buffer.strip()!r}")
    return statements
