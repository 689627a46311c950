"""The SQLite connections: pragmas, numbered migrations, one writer and lock-free reads.

A `Database` owns two aiosqlite connections to one file, each with its own thread:

- the writer. SQLite allows one writer at a time, and a connection shared by coroutines
  must not interleave two transactions, so writes are serialised here: a single-statement
  write (`write`, one round trip to the connection's thread) or a multi-statement
  `transaction()`. Only writers wait for each other.
- the reader, for `read()`. Nothing is locked: WAL gives every statement a consistent view
  of the last committed state while the writer works, and the connection's thread runs
  the statements of all readers one after another. It is opened `query_only`.

As the writer commits, the games it changed are announced (`changes`, data.sqlite.feed).

Other processes on the same file are serialised by SQLite itself (WAL, busy timeout), so
several bot processes can share one database. WAL with synchronous=NORMAL keeps every
committed transaction across a process crash (only an OS crash or power loss can drop the
last few).
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import re
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from data.migrations import migrations
from data.repository import Shards, ShardsHeldError, shards_named, this_process
from data.sqlite.feed import NOTE_FUNCTION, TRIGGERS, SqliteChangeFeed

#: What a lock's name may keep in its file's name.
_LOCK_NAME = re.compile(r"[^A-Za-z0-9_.-]")


async def _connect(target: Path, *, query_only: bool) -> aiosqlite.Connection:
    conn = await aiosqlite.connect(str(target), isolation_level=None)
    conn.row_factory = aiosqlite.Row
    await conn.execute("PRAGMA journal_mode=WAL")
    await conn.execute("PRAGMA synchronous=NORMAL")
    await conn.execute("PRAGMA foreign_keys=ON")
    await conn.execute("PRAGMA busy_timeout=5000")
    if query_only:
        await conn.execute("PRAGMA query_only=ON")
    return conn


class Database:
    def __init__(self, writer: aiosqlite.Connection, reader: aiosqlite.Connection, path: Path):
        self._writer = writer
        self._reader = reader
        self.path = path
        #: Held by writes only; readers never wait for it.
        self._write_lock = asyncio.Lock()
        #: The games the writer's committed statements change.
        self.changes = SqliteChangeFeed()

    @classmethod
    async def open(cls, path: Path | str) -> Database:
        """Open (creating it if need be) and migrate the database file at `path`."""
        target = Path(path)
        if str(target) == ":memory:":
            raise ValueError("Database needs a file: its reader and writer share it")
        target.parent.mkdir(parents=True, exist_ok=True)
        writer = await _connect(target, query_only=False)
        try:
            db = cls(writer, await _connect(target, query_only=True), target)
        except BaseException:
            await writer.close()
            raise
        try:
            await db.migrate()
            await db._announce_changes()
        except BaseException:
            await db.close()
            raise
        return db

    @staticmethod
    def mark(_n: int) -> str:
        """The placeholder of a statement's n-th parameter (SQLite's are positional)."""
        return "?"

    async def close(self) -> None:
        await self._reader.close()
        await self._writer.close()

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
            try:
                return list(await self._writer.execute_fetchall(sql, params))
            except Exception:
                self.changes.rolled_back()  # the statement failed: SQLite undid it
                raise
            finally:
                # Committed; or its caller was cancelled while it ran, and it may have
                # committed all the same: a change announced that did not happen only
                # has a page read the game again, one not announced leaves it behind.
                self.changes.committed()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """A write transaction of several statements: committed on success, rolled back
        on any exception."""
        async with self._write_lock:
            await self._writer.execute("BEGIN IMMEDIATE")
            try:
                yield self._writer
            except BaseException:
                self.changes.rolled_back()
                await self._writer.execute("ROLLBACK")
                raise
            try:
                await self._writer.execute("COMMIT")
            except Exception:
                self.changes.rolled_back()  # the commit failed: nothing was committed
                raise
            finally:
                self.changes.committed()  # (or cancelled while it ran: as in `write`)

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
