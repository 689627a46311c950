"""Moving an SQLite database into PostgreSQL, and checking that everything arrived.

    python bot.py --db var/hilltop.sqlite3 --copy-to postgresql://hilltop@db/hilltop

Both databases are first brought to the same schema version, each by its own migrations
(an older SQLite file is migrated in place, as the bot would on starting). The copy is
one PostgreSQL transaction: it lands whole or not at all, and only into a database
whose tables are all empty (no bot has run on it). Then every table is compared, row by row: the
count and a digest of all its rows must be the same on both sides. Running the command
again on a finished copy copies nothing and checks again.

Both the copy and the comparison go through each table `BATCH_ROWS` rows at a time, so a
database of millions of games needs no more memory than one batch.

The web pages' sign-in sessions (`web_sessions`) are not copied: they are disposable,
and whoever was signed in signs in again on the new database.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite
import asyncpg

from data.postgresql.db import PgDatabase
from data.sqlite.db import Database

if TYPE_CHECKING:
    from data.postgresql.db import Connection

#: Every table, parents before the tables that refer to them (but the web sessions).
TABLES = (
    "users",
    "games",
    "seats",
    "moves",
    "daily_runs",
    "daily_totals",
    "guild_members",
    "daily_par",
    "console_buttons",
    "console_channels",
    "guild_settings",
    "user_settings",
    "follows",
    "rating_changes",
    "ratings",
    "head_to_head",
    "events",
    "event_entrants",
    "event_tables",
    "event_seats",
    "digests",
    "away",
    "guilds",
    "forgetting",
)
#: Rows read, sent and compared at a time: what the copy and the comparison hold in memory.
BATCH_ROWS = 5000
_FLOAT_TYPES = ("double precision", "real")
_INT_TYPES = ("bigint", "integer", "smallint")
#: A digest is a sum of 256-bit row hashes, kept to 256 bits.
_DIGEST_MODULUS = 1 << 256


class CopyError(Exception):
    """The copy cannot be made (nothing was written), or the databases differ."""


@dataclass(frozen=True, slots=True)
class Compared:
    """One table on both sides: its rows and whether their digests agree."""

    table: str
    sqlite_rows: int
    postgresql_rows: int
    same: bool


async def copy_database(source: Path | str, target: str) -> tuple[int, list[Compared]]:
    """Copy the SQLite file `source` (which must exist) into the PostgreSQL database
    `target` if it has no games yet, then compare every table. Returns (rows copied,
    the comparison)."""
    sqlite = await Database.open(source)
    try:
        pg = await PgDatabase.open(target, size=2)
        try:
            copied = await _copy(sqlite, pg)
            return copied, await compare(sqlite, pg)
        finally:
            await pg.close()
    finally:
        await sqlite.close()


async def compare(sqlite: Database, pg: PgDatabase) -> list[Compared]:
    """Every table's rows and digest on both sides, each table read in batches."""
    found = []
    for table in TABLES:
        columns = await _sqlite_columns(sqlite, table)
        query = f"SELECT {', '.join(columns)} FROM {table}"
        mine = await _sqlite_summary(sqlite, query)
        theirs = await _pg_summary(pg, query)
        found.append(Compared(table, mine[0], theirs[0], mine == theirs))
    return found


async def _sqlite_summary(sqlite: Database, query: str) -> tuple[int, int]:
    """The rows of `query` and their digest. One statement sees one state of the file
    (WAL) for as long as its cursor is open."""
    count = digest = 0
    async with sqlite.read() as reader, reader.execute(query) as rows:
        while batch := list(await rows.fetchmany(BATCH_ROWS)):
            count += len(batch)
            digest = _digest(batch, digest)
    return count, digest


async def _pg_summary(pg: PgDatabase, query: str) -> tuple[int, int]:
    """The rows of `query` and their digest, through a cursor (which lives in the read's
    transaction)."""
    count = digest = 0
    async with pg.read() as conn:
        rows = await conn.cursor(query)
        while batch := await rows.fetch(BATCH_ROWS):
            count += len(batch)
            digest = _digest(batch, digest)
    return count, digest


async def _copy(sqlite: Database, pg: PgDatabase) -> int:
    version = (await sqlite.fetch("PRAGMA user_version"))[0][0]
    pg_version = (await pg.fetch("SELECT max(version) FROM schema_version"))[0][0]
    if version != pg_version:
        raise CopyError(f"schema versions differ: SQLite {version}, PostgreSQL {pg_version}")
    if (await pg.fetch("SELECT count(*) FROM games"))[0][0]:
        return 0  # copied before (the comparison says whether it is whole) or in use
    try:
        # One snapshot of the SQLite file, one transaction in PostgreSQL.
        async with sqlite.read() as reader, pg.transaction() as conn:
            await reader.execute("BEGIN")
            try:
                copied = await _copy_tables(sqlite, reader, conn)
            finally:
                await reader.execute("COMMIT")
    except asyncpg.PostgresError as exc:
        raise CopyError(f"PostgreSQL refused the copy ({exc}); nothing was written") from exc
    return copied


async def _copy_tables(sqlite: Database, reader: aiosqlite.Connection, conn: Connection) -> int:
    """Every table, inside the caller's transaction and the snapshot open on `reader`,
    into empty tables only, `BATCH_ROWS` rows at a time."""
    # No bot may write while the tables are filled.
    await conn.execute(f"LOCK TABLE {', '.join(TABLES)} IN EXCLUSIVE MODE")
    # Nothing can be watching a database being filled: its games are not announced
    # (each would be held in memory until the commit).
    await conn.execute("SET LOCAL hilltop.announce = 'off'")
    for table in TABLES:
        if await conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM {table})"):
            raise CopyError(f"PostgreSQL's {table} is not empty: copy only into a new database")
    copied = 0
    for table in TABLES:
        columns = await _sqlite_columns(sqlite, table)
        types = {
            row["column_name"]: row["data_type"]
            for row in await conn.fetch(
                "SELECT column_name, data_type FROM information_schema.columns"
                " WHERE table_schema = current_schema() AND table_name = $1",
                table,
            )
        }
        missing = [c for c in columns if c not in types]
        if missing:
            raise CopyError(f"PostgreSQL's {table} has no column {', '.join(missing)}")
        kinds = [types[c] for c in columns]
        async with reader.execute(f"SELECT {', '.join(columns)} FROM {table}") as rows:
            while batch := list(await rows.fetchmany(BATCH_ROWS)):
                records = [_typed(row, kinds) for row in batch]
                await conn.copy_records_to_table(table, records=records, columns=columns)
                copied += len(records)
    # New games and events continue the numbering after the copied ones.
    for numbered in ("games", "events"):
        await conn.execute(
            f"SELECT setval(pg_get_serial_sequence('{numbered}', 'id'),"
            f" COALESCE(max(id), 1), max(id) IS NOT NULL) FROM {numbered}"
        )
    return copied


async def _sqlite_columns(sqlite: Database, table: str) -> list[str]:
    rows = await sqlite.fetch(f"PRAGMA table_info({table})")
    if not rows:
        raise CopyError(f"the SQLite database has no table {table}")
    return [row[1] for row in rows]


def _typed(row: Sequence[Any], types: Sequence[str]) -> tuple[Any, ...]:
    """A row as PostgreSQL's columns take it (SQLite keeps an integral REAL as int)."""
    return tuple(
        None
        if value is None
        else float(value)
        if kind in _FLOAT_TYPES
        else int(value)
        if kind in _INT_TYPES
        else value
        for value, kind in zip(row, types, strict=True)
    )


def _digest(rows: Iterable[Any], total: int = 0) -> int:
    """A digest of a table's rows in any order: the sum of each row's hash. `total`, the
    digest of the rows before, is carried on, so a table is digested batch by batch."""
    for row in rows:
        text = "\x1f".join(
            "\x00" if v is None else repr(float(v)) if isinstance(v, float) else repr(v)
            for v in row
        )
        total += int.from_bytes(hashlib.sha256(text.encode()).digest(), "big")
    return total % _DIGEST_MODULUS
