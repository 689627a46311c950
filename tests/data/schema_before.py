"""A database as an older version of the bot left it: the schema's migrations up to a
given version, then rows written as that version wrote them; the current code's
migrations then take it from there when the storage is opened."""

from __future__ import annotations

import sqlite3
from typing import Any

import asyncpg

from data.migrations import migrations
from data.sqlite.db import _split_sql

#: Statements written with SQLite's `?` placeholders, each with its rows.
Statements = list[tuple[str, list[tuple[Any, ...]]]]


def numbered(sql: str) -> str:
    """`sql` with PostgreSQL's `$1, $2…` in place of `?`."""
    parts = sql.split("?")
    return parts[0] + "".join(f"${i}{part}" for i, part in enumerate(parts[1:], start=1))


async def database_before(target: str, version: int, statements: Statements) -> None:
    """Bring the empty database at `target` (an SQLite path or a PostgreSQL URL) to
    schema `version` and write `statements` into it."""
    if "://" in target:
        conn = await asyncpg.connect(target)
        try:
            await conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
            for number, _, sql in migrations("postgresql"):
                if number <= version:
                    await conn.execute(sql)
                    await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", number)
            for sql, rows in statements:
                await conn.executemany(numbered(sql), rows)
        finally:
            await conn.close()
        return
    lite = sqlite3.connect(target)
    try:
        for number, _, sql in migrations("sqlite"):
            if number <= version:
                for statement in _split_sql(sql):
                    lite.execute(statement)
        lite.execute(f"PRAGMA user_version={version:d}")
        for sql, rows in statements:
            lite.executemany(sql, rows)
        lite.commit()
    finally:
        lite.close()
