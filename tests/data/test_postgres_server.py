"""The throwaway PostgreSQL server, and the PostgreSQL schema against the SQLite one.

After every migration step both backends must have the same tables, columns (in order),
keys, indexes, and the same rules enforced by the database itself.
"""

from __future__ import annotations

import re
import sqlite3
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from data.migrations import migrations, steps
from tests.postgres_server import PostgresServer, find_binaries

Schema = dict[str, Any]

#: Columns holding Discord ids (or other 64-bit ids): BIGINT in PostgreSQL.
ID_COLUMNS = {
    "id",
    "guild_id",
    "channel_id",
    "user_id",
    "created_by",
    "game_id",
    "last_user_id",
    "board_message_id",
    "scope",
    "seed",
}
#: 0/1 flags: INTEGER in both.
FLAG_COLUMNS = {"is_bot", "accepted", "unfinished", "untold"}
#: PostgreSQL's types for each SQLite declared type.
TYPES = {"INTEGER": {"integer", "bigint"}, "REAL": {"double precision"}, "TEXT": {"text"}}


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    with PostgresServer() as running:
        yield running


@pytest.fixture
async def pg(server: PostgresServer) -> AsyncIterator[asyncpg.Connection]:
    url = await server.create_database_async(f"t_{uuid.uuid4().hex[:16]}")
    conn = await asyncpg.connect(url)
    yield conn
    await conn.close()


@pytest.fixture
def lite(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(tmp_path / "schema.sqlite3", isolation_level=None)
    conn.execute("PRAGMA foreign_keys=ON")  # as the application's connections do
    yield conn
    conn.close()


async def migrate_pg(conn: asyncpg.Connection, upto: int | None = None) -> None:
    for version, _name, sql in migrations("postgresql"):
        if upto is None or version <= upto:
            async with conn.transaction():
                await conn.execute(sql)


def migrate_lite(conn: sqlite3.Connection, upto: int | None = None) -> None:
    for version, _name, sql in migrations("sqlite"):
        if upto is None or version <= upto:
            conn.executescript(sql)


# The schema of each database, in the same shape.


def lite_schema(conn: sqlite3.Connection) -> Schema:
    tables = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    columns: dict[str, list[tuple[str, str, bool, str | None]]] = {}
    keys: dict[str, list[str]] = {}
    uniques: dict[str, list[list[str]]] = {}
    foreign: set[tuple[str, str, str, str]] = set()
    indexes: dict[str, tuple[str, bool, bool, list[str]]] = {}
    for table in tables:
        info = conn.execute(f"PRAGMA table_info({table})").fetchall()
        # (cid, name, type, notnull, default, pk): a primary key column counts as NOT NULL,
        # as PostgreSQL makes it.
        columns[table] = [(r[1], r[2], bool(r[3] or r[5]), r[4]) for r in info]
        keys[table] = [r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5])]
        for fk in conn.execute(f"PRAGMA foreign_key_list({table})"):
            foreign.add((table, fk[3], fk[2], fk[4]))
        for _seq, name, unique, origin, partial in conn.execute(f"PRAGMA index_list({table})"):
            if origin == "pk":
                continue
            parts = [
                f"{r[2]} DESC" if r[3] else r[2]
                for r in conn.execute(f"PRAGMA index_xinfo({name})")
                if r[5]
            ]
            if origin == "u":
                uniques.setdefault(table, []).append(parts)
            else:
                indexes[name] = (table, bool(unique), bool(partial), parts)
    return {
        "columns": columns,
        "keys": keys,
        "uniques": uniques,
        "foreign": foreign,
        "indexes": indexes,
        "triggers": {
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        },
    }


async def pg_schema(conn: asyncpg.Connection) -> Schema:
    columns: dict[str, list[tuple[str, str, bool, str | None]]] = {}
    types: dict[tuple[str, str], str] = {}
    for r in await conn.fetch(
        "SELECT table_name, column_name, data_type, is_nullable, column_default"
        " FROM information_schema.columns WHERE table_schema = 'public'"
        " ORDER BY table_name, ordinal_position"
    ):
        default = r["column_default"]
        if default is not None:
            default = re.sub(r"::[a-z ]+$", "", default)  # '{}'::text -> '{}'
        columns.setdefault(r["table_name"], []).append(
            (r["column_name"], r["data_type"], r["is_nullable"] == "NO", default)
        )
        types[(r["table_name"], r["column_name"])] = r["data_type"]
    keys: dict[str, list[str]] = {}
    uniques: dict[str, list[list[str]]] = {}
    indexes: dict[str, tuple[str, bool, bool, list[str]]] = {}
    for r in await conn.fetch(
        "SELECT i.relname AS name, t.relname AS table_name, ix.indisprimary AS is_primary,"
        " ix.indisunique AS is_unique, ix.indpred IS NOT NULL AS is_partial,"
        " c.contype::text AS constraint_type,"
        " ARRAY(SELECT a.attname || CASE WHEN ix.indoption[k.ord - 1] & 1 = 1"
        "        THEN ' DESC' ELSE '' END"
        "       FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)"
        "       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum"
        "       ORDER BY k.ord) AS parts"
        " FROM pg_index ix"
        " JOIN pg_class i ON i.oid = ix.indexrelid"
        " JOIN pg_class t ON t.oid = ix.indrelid"
        " JOIN pg_namespace n ON n.oid = t.relnamespace"
        " LEFT JOIN pg_constraint c ON c.conindid = ix.indexrelid AND c.conrelid = t.oid"
        " WHERE n.nspname = 'public'"
    ):
        parts = list(r["parts"])
        if r["is_primary"]:
            keys[r["table_name"]] = parts
        elif r["constraint_type"] == "u":
            uniques.setdefault(r["table_name"], []).append(parts)
        else:
            indexes[r["name"]] = (r["table_name"], r["is_unique"], r["is_partial"], parts)
    foreign = {
        (r["table_name"], r["column_name"], r["ref_table"], r["ref_column"])
        for r in await conn.fetch(
            # Each column of a key of several columns on its own, as SQLite lists them.
            "SELECT cl.relname AS table_name, a.attname AS column_name,"
            " rt.relname AS ref_table, ra.attname AS ref_column"
            " FROM pg_constraint c"
            " CROSS JOIN LATERAL unnest(c.conkey, c.confkey) AS k (col, ref_col)"
            " JOIN pg_class cl ON cl.oid = c.conrelid"
            " JOIN pg_class rt ON rt.oid = c.confrelid"
            " JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.col"
            " JOIN pg_attribute ra ON ra.attrelid = c.confrelid AND ra.attnum = k.ref_col"
            " WHERE c.contype = 'f'"
        )
    }
    triggers = {
        r["tgname"]
        for r in await conn.fetch("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")
    }
    return {
        "columns": columns,
        "types": types,
        "keys": keys,
        "uniques": uniques,
        "foreign": foreign,
        "indexes": indexes,
        "triggers": triggers,
    }


# The server itself.


def test_binaries_are_found() -> None:
    bin_dir = find_binaries()
    for name in ("initdb", "pg_ctl", "postgres"):
        assert (bin_dir / name).exists(), name


async def test_a_created_database_answers(server: PostgresServer) -> None:
    url = await server.create_database_async("answers")
    assert url == server.database_url("answers") and url.startswith("postgresql://hilltop@")
    conn = await asyncpg.connect(url)
    try:
        assert await conn.fetchval("SELECT 1") == 1
        assert await conn.fetchval("SELECT current_database()") == "answers"
        assert await conn.fetchval("SHOW server_encoding") == "UTF8"
        assert await conn.fetchval("SHOW fsync") == "off"  # a throwaway server
        assert await conn.fetchval("SHOW synchronous_commit") == "on"
    finally:
        await conn.close()


async def test_databases_copy_a_migrated_template(server: PostgresServer) -> None:
    template = server.create_database("migrated_template")
    conn = await asyncpg.connect(template)
    try:
        await migrate_pg(conn)
        await conn.execute("INSERT INTO users (id, name) VALUES (7, 'seven')")
    finally:
        await conn.close()
    copies = [
        server.create_database("copy_sync", template="migrated_template"),
        await server.create_database_async("copy_async", template="migrated_template"),
    ]
    for url in copies:
        conn = await asyncpg.connect(url)
        try:
            assert await conn.fetchval("SELECT name FROM users WHERE id = 7") == "seven"
        finally:
            await conn.close()
    server.drop_database("copy_sync")
    await server.drop_database_async("copy_async")
    conn = await asyncpg.connect(server.url)
    try:
        names = {r[0] for r in await conn.fetch("SELECT datname FROM pg_database")}
    finally:
        await conn.close()
    assert "copy_sync" not in names and "copy_async" not in names
    assert "migrated_template" in names


def test_missing_binaries_fail_with_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HILLTOP_PG_BIN", str(tmp_path))
    with pytest.raises(RuntimeError, match="pip install pgserver"):
        find_binaries()


async def test_a_restarted_server_keeps_its_port_and_data(server: PostgresServer) -> None:
    url = await server.create_database_async("restarted")
    conn = await asyncpg.connect(url)
    try:
        # Acknowledged, so it must survive the crash below, even with fsync off.
        await conn.execute("CREATE TABLE kept (n int); INSERT INTO kept VALUES (1)")
    finally:
        await conn.close()
    port = server.port
    server.restart()
    server.stop_server("immediate")  # a crash: recovered on the next start
    with pytest.raises(OSError):
        await asyncpg.connect(url)
    server.start_server()
    assert server.running and server.port == port
    conn = await asyncpg.connect(url)
    try:
        assert await conn.fetchval("SELECT n FROM kept") == 1
    finally:
        await conn.close()


def test_names_that_are_not_plain_are_refused(server: PostgresServer) -> None:
    with pytest.raises(ValueError):
        server.create_database('x"; DROP DATABASE postgres; --')


# The schema, step by step.


def test_both_backends_have_the_same_steps() -> None:
    assert steps("postgresql") == steps("sqlite")
    assert len(steps("sqlite")) >= 8


async def test_schema_matches_sqlite_after_every_step(
    pg: asyncpg.Connection, lite: sqlite3.Connection
) -> None:
    for version, name, sql in migrations("postgresql"):
        async with pg.transaction():
            await pg.execute(sql)
        lite.executescript(dict((v, s) for v, _, s in migrations("sqlite"))[version])
        want, got = lite_schema(lite), await pg_schema(pg)
        where = f"after {name}"

        assert sorted(got["columns"]) == sorted(want["columns"]), where
        for table, lite_columns in want["columns"].items():
            pg_columns = got["columns"][table]
            assert [c[0] for c in pg_columns] == [c[0] for c in lite_columns], (where, table)
            for (column, lite_type, lite_notnull, lite_default), (
                _,
                pg_type,
                pg_notnull,
                pg_default,
            ) in zip(lite_columns, pg_columns, strict=True):
                at = (where, table, column)
                assert pg_type in TYPES[lite_type], at
                if column in ID_COLUMNS:
                    assert pg_type == "bigint", at
                if column in FLAG_COLUMNS:
                    assert pg_type == "integer", at
                assert pg_notnull == lite_notnull, at
                assert pg_default == lite_default, at
        assert got["keys"] == want["keys"], where
        assert got["uniques"] == want["uniques"], where
        assert got["foreign"] == want["foreign"], where
        assert got["indexes"] == want["indexes"], where
        assert want["triggers"] <= got["triggers"], where

    # The index names, checked plainly as well.
    names = {
        r[0]
        for r in await pg.fetch(
            "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'"
            " AND indexname NOT LIKE '%\\_pkey' AND indexname NOT LIKE '%\\_key'"
        )
    }
    lite_names = {
        r[0]
        for r in lite.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index'"
            " AND name NOT LIKE 'sqlite_autoindex_%'"
        )
    }
    assert names == lite_names and "games_one_live_per_channel" in names


async def test_games_ids_are_generated_and_may_be_given(pg: asyncpg.Connection) -> None:
    await migrate_pg(pg)
    await pg.execute("INSERT INTO users (id, name) VALUES ($1, 'big')", 2**63 - 1)
    insert = (
        "INSERT INTO games (id, game, status, seed, rules_version, snapshot, created_by,"
        " created_at, updated_at) VALUES ({}, 'hokito', 'finished', $1, 1, 's', $2, 1, 1)"
        " RETURNING id"
    )
    assert await pg.fetchval(insert.format("DEFAULT"), 2**53 - 1, 2**63 - 1) == 1
    assert await pg.fetchval(insert.format("1000"), 1, 2**63 - 1) == 1000  # a copied game


# The rules the database enforces.


async def test_the_triggers_work_in_postgresql(pg: asyncpg.Connection) -> None:
    await migrate_pg(pg)
    await pg.execute("INSERT INTO users (id, name) VALUES (1, 'alice'), (2, 'bob')")
    game_id = await pg.fetchval(
        "INSERT INTO games (game, status, seed, rules_version, snapshot, created_by,"
        " created_at, updated_at) VALUES ('hokito', 'active', 42, 1, 'start', 1, 10, 10)"
        " RETURNING id"
    )

    with pytest.raises(asyncpg.PostgresError, match="one move at a time"):
        await pg.execute("UPDATE games SET ply = 5 WHERE id = $1", game_id)
    with pytest.raises(asyncpg.PostgresError, match="one move at a time"):
        await pg.execute("UPDATE games SET ply = ply WHERE id = $1", game_id)
    # Raising the ply without saying which move did it: the log refuses the move.
    with pytest.raises(asyncpg.NotNullViolationError):
        await pg.execute("UPDATE games SET ply = ply + 1 WHERE id = $1", game_id)
    assert await pg.fetchval("SELECT ply FROM games WHERE id = $1", game_id) == 0

    for ply, (seat, user, move) in enumerate([(0, 1, "a1"), (1, 2, "b2")], start=1):
        await pg.execute(
            "UPDATE games SET ply = ply + 1, last_seat = $2, last_user_id = $3,"
            " last_move = $4, updated_at = $5 WHERE id = $1",
            game_id,
            seat,
            user,
            move,
            10.0 + ply,
        )
    rows = await pg.fetch(
        "SELECT game_id, ply, seat, user_id, text, created_at FROM moves ORDER BY ply"
    )
    assert [tuple(r) for r in rows] == [
        (game_id, 1, 0, 1, "a1", 11.0),
        (game_id, 2, 1, 2, "b2", 12.0),
    ]

    with pytest.raises(asyncpg.PostgresError, match="append-only"):
        await pg.execute("UPDATE moves SET text = 'x'")
    with pytest.raises(asyncpg.PostgresError, match="append-only"):
        await pg.execute("DELETE FROM moves")
    with pytest.raises(asyncpg.PostgresError, match="append-only"):
        await pg.execute("TRUNCATE moves")
    assert await pg.fetchval("SELECT count(*) FROM moves") == 2
    # The trigger errors are integrity errors, as SQLite's RAISE(ABORT) ones are.
    with pytest.raises(asyncpg.IntegrityConstraintViolationError):
        await pg.execute("DELETE FROM moves")


class _Rollback(Exception):
    pass


def _pg_sql(sql: str) -> str:
    count = iter(range(1, 100))
    return re.sub(r"\?", lambda _m: f"${next(count)}", sql)


async def pg_outcome(conn: asyncpg.Connection, sql: str, args: tuple[Any, ...]) -> str | None:
    """None if `sql` succeeds (it is rolled back), else the error message."""
    try:
        async with conn.transaction():
            await conn.execute(_pg_sql(sql), *args)
            raise _Rollback
    except _Rollback:
        return None
    except asyncpg.PostgresError as exc:
        return str(exc)


def lite_outcome(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> str | None:
    conn.execute("SAVEPOINT probe")
    try:
        conn.execute(sql, args)
        return None
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        conn.execute("ROLLBACK TO probe")
        conn.execute("RELEASE probe")


GAME = (
    "INSERT INTO games (game, kind, channel_id, status, seed, rules_version, ply, snapshot,"
    " created_by, created_at, updated_at) VALUES ('hokito', ?, ?, ?, 7, 1, ?, 's', ?, 1, 1)"
)
MOVE = "INSERT INTO moves (game_id, ply, seat, user_id, text, created_at) VALUES (?,?,?,?,?,1)"
#: (statement, arguments, whether it is allowed) on the database of `_same_rules_setup`.
SCENARIOS: list[tuple[str, tuple[Any, ...], bool]] = [
    (GAME, ("channel", 11, "active", 0, 1), True),
    (GAME, ("weekly", 11, "active", 0, 1), False),
    (GAME, ("channel", 11, "paused", 0, 1), False),
    (GAME, ("channel", 11, "active", -1, 1), False),
    (GAME, ("channel", 11, "active", 0, 99), False),  # no such user
    (GAME, ("channel", 10, "challenge", 0, 1), False),  # channel 10 has a live game
    (GAME, ("channel", 10, "finished", 0, 1), True),
    (GAME, ("daily", 10, "active", 0, 1), True),
    ("INSERT INTO users (id, name) VALUES (?, ?)", (2**63 - 1, "max"), True),
    ("INSERT INTO users (id, name) VALUES (?, ?)", (1, "again"), False),
    ("INSERT INTO users (id, name) VALUES (?, ?)", (3, None), False),
    ("INSERT INTO seats (game_id, seat, user_id) VALUES (?,?,?)", (1, 2, 1), True),
    ("INSERT INTO seats (game_id, seat, user_id) VALUES (?,?,?)", (1, -1, 1), False),
    ("INSERT INTO seats (game_id, seat, user_id) VALUES (?,?,?)", (1, 0, 1), False),
    ("INSERT INTO seats (game_id, seat, user_id) VALUES (?,?,?)", (2, 0, 1), True),
    ("INSERT INTO seats (game_id, seat, user_id) VALUES (?,?,?)", (3, 0, 1), False),
    (MOVE, (1, 2, 1, 2, "b2"), True),
    (MOVE, (1, 1, 1, 2, "b2"), False),  # move 1 is logged already
    (MOVE, (1, 0, 0, 1, "a0"), False),
    (MOVE, (1, 2, 0, 99, "a1"), False),
    ("UPDATE moves SET text = ? WHERE game_id = 1", ("x",), False),
    ("DELETE FROM moves WHERE ply = ?", (1,), False),
    ("UPDATE games SET ply = ply WHERE id = ?", (1,), False),
    ("UPDATE games SET ply = ply + 2 WHERE id = ?", (1,), False),
    # Without saying which move: refused while no move was ever made (game 2), but the
    # previous move's last_* values are taken again once one was (game 1), in both.
    ("UPDATE games SET ply = ply + 1 WHERE id = ?", (2,), False),
    ("UPDATE games SET ply = ply + 1 WHERE id = ?", (1,), True),
    (
        "UPDATE games SET ply = ply + 1, last_seat = 0, last_user_id = ?, last_move = 'a1'"
        " WHERE id = ?",
        (1, 1),
        True,
    ),
    (
        "UPDATE games SET ply = ply + 1, last_seat = 0, last_user_id = ?, last_move = 'a1'"
        " WHERE id = ?",
        (99, 1),
        False,
    ),
    ("UPDATE games SET status = 'finished', result = '{}' WHERE id = ?", (1,), True),
    ("UPDATE games SET status = 'won' WHERE id = ?", (1,), False),
    ("DELETE FROM games WHERE id = ?", (1,), False),  # its seats and moves refer to it
    ("DELETE FROM seats WHERE game_id = ?", (1,), True),
    (
        "INSERT INTO daily_runs (user_id, day, week, game_id, started_at) VALUES (?,?,?,?,1)",
        (2, "2024-01-01", "2024-W01", 2),
        True,
    ),
    (
        "INSERT INTO daily_runs (user_id, day, week, game_id, started_at) VALUES (?,?,?,?,1)",
        (1, "2024-01-01", "2024-W01", 2),
        False,  # one run per user and day
    ),
    (
        "INSERT INTO daily_runs (user_id, day, week, game_id, started_at) VALUES (?,?,?,?,1)",
        (2, "2024-01-02", "2024-W01", 1),
        False,  # one run per game
    ),
    ("INSERT INTO guild_members (guild_id, user_id) VALUES (?, ?)", (5, 1), False),
    ("INSERT INTO guild_members (guild_id, user_id) VALUES (?, ?)", (2**62, 1), True),
    ("INSERT INTO follows (game_id, user_id) VALUES (?, ?)", (1, 2), True),
    ("INSERT INTO follows (game_id, user_id) VALUES (?, ?)", (3, 2), False),
    (
        "INSERT INTO rating_changes (scope, user_id, game_id, game, finished_at, outcome,"
        " place, mu_before, sigma_before, mu_after, sigma_after, others_mu, others)"
        " VALUES (?, 1, 1, 'hokito', 1, ?, 1, 25, 8, 26, 7, 25, '[2]')",
        (2**62, "win"),
        True,
    ),
    (
        "INSERT INTO rating_changes (scope, user_id, game_id, game, finished_at, outcome,"
        " place, mu_before, sigma_before, mu_after, sigma_after, others_mu, others)"
        " VALUES (?, 1, 1, 'hokito', 1, ?, 1, 25, 8, 26, 7, 25, '[2]')",
        (0, "tie"),
        False,
    ),
]


async def _same_rules_setup(run: Any) -> None:
    for sql in (
        "INSERT INTO users (id, name) VALUES (1, 'alice'), (2, 'bob')",
        "INSERT INTO games (game, kind, guild_id, channel_id, status, seed, rules_version,"
        " snapshot, created_by, created_at, updated_at)"
        " VALUES ('hokito', 'channel', 5, 10, 'active', 42, 1, 'start', 1, 10, 10),"
        " ('hokito', 'daily', NULL, NULL, 'finished', 43, 1, 'end', 2, 10, 10)",
        "INSERT INTO seats (game_id, seat, user_id, accepted) VALUES (1, 0, 1, 1), (1, 1, 2, 1)",
        "INSERT INTO guild_members (guild_id, user_id) VALUES (5, 1)",
        "INSERT INTO daily_runs (user_id, day, week, game_id, started_at)"
        " VALUES (1, '2024-01-01', '2024-W01', 1, 1)",
        "UPDATE games SET ply = 1, last_seat = 0, last_user_id = 1, last_move = 'a1' WHERE id = 1",
    ):
        await run(sql)


async def test_both_backends_enforce_the_same_rules(
    pg: asyncpg.Connection, lite: sqlite3.Connection
) -> None:
    await migrate_pg(pg)
    migrate_lite(lite)

    async def run_lite(sql: str) -> None:
        lite.execute(sql)

    await _same_rules_setup(pg.execute)
    await _same_rules_setup(run_lite)
    for sql, args, allowed in SCENARIOS:
        in_pg, in_lite = await pg_outcome(pg, sql, args), lite_outcome(lite, sql, args)
        assert (in_lite is None) == allowed, (sql, args, in_lite)
        assert (in_pg is None) == allowed, (sql, args, in_pg)
        for message in ("append-only", "one move at a time"):
            assert (message in (in_pg or "")) == (message in (in_lite or "")), (sql, args)
