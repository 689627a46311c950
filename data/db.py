"""The SQLite connection: pragmas, numbered migrations, one writer at a time.

A `Database` owns one aiosqlite connection. SQLite allows one writer, and a connection
shared by coroutines must not interleave two transactions, so every unit of work runs
under `Database.transaction()` (writes) or `Database.read()` (reads), which take the
same lock. WAL with synchronous=NORMAL keeps every committed transaction across a process
crash (only an OS crash or power loss can drop the last few).
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path

import aiosqlite

DEFAULT_PATH = Path("var") / "hilltop.sqlite3"
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def default_path() -> Path:
    """`HILLTOP_DB` if set, else ./var/hilltop.sqlite3 (outside the source packages)."""
    return Path(os.environ.get("HILLTOP_DB") or DEFAULT_PATH)


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) for every bundled migration, in order."""
    found = []
    for entry in (resources.files("data") / "migrations").iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..n without gaps, found {versions}")
    return found


class Database:
    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path | str | None = None) -> Database:
        target = Path(path) if path is not None else default_path()
        if str(target) != ":memory:":
            target.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(str(target), isolation_level=None)
        conn.row_factory = aiosqlite.Row
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute("PRAGMA synchronous=NORMAL")
        await conn.execute("PRAGMA foreign_keys=ON")
        await conn.execute("PRAGMA busy_timeout=5000")
        db = cls(conn, target)
        await db.migrate()
        return db

    async def close(self) -> None:
        await self._conn.close()

    async def migrate(self) -> int:
        """Apply the migrations not applied yet; returns the schema version."""
        async with self.transaction() as conn:
            async with conn.execute("PRAGMA user_version") as cur:
                row = await cur.fetchone()
            current = int(row[0]) if row else 0
            for version, _name, sql in migrations():
                if version > current:
                    # executescript would commit; run statement by statement instead.
                    for statement in _split_sql(sql):
                        await conn.execute(statement)
                    await conn.execute(f"PRAGMA user_version={version:d}")
                    current = version
            return current

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """A write transaction: committed on success, rolled back on any exception."""
        async with self._lock:
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise
            await self._conn.execute("COMMIT")

    @asynccontextmanager
    async def read(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            yield self._conn


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
