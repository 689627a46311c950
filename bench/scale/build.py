"""Building a stored history fast, in SQLite or PostgreSQL, with the product's own schema.

The database is opened first as the product opens it (`Database.open`, `PgDatabase.open`),
which runs every migration; then the rows of `bench.scale.shape.Plan` are written in
bulk, one transaction per chunk: the moves of each copied game by one INSERT … SELECT
from the pool's moves, the other rows by executemany (SQLite) or COPY (PostgreSQL).
Secondary indexes are dropped while the rows go in and made again from their own
definitions at the end, so the schema is the migrations' to the letter. SQLite writes in
a thread of its own while the next chunk is made.

    python -m bench.scale.build var/bench.sqlite3 --finished 1000000   # one file, timed
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import asyncpg

from bench.scale.shape import (
    CHANGE_COLUMNS,
    TABLES,
    Chunk,
    Manifest,
    Plan,
    Scale,
    daily_pool_moves,
    pool_moves,
)
from data.postgresql.db import PgDatabase
from data.sqlite.db import Database
from data.storage import backend_of

Progress = Callable[[str], None]

_POOL_TABLE = (
    "CREATE TEMP TABLE bench_pool_moves (pool INTEGER NOT NULL, ply INTEGER NOT NULL,"
    " seat INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (pool, ply))"
)
_COPIES_TABLE = (
    "CREATE TEMP TABLE bench_copies (game_id BIGINT PRIMARY KEY, pool INTEGER NOT NULL,"
    " ply INTEGER NOT NULL, t0 DOUBLE PRECISION NOT NULL, dt DOUBLE PRECISION NOT NULL,"
    " u0 BIGINT, u1 BIGINT, u2 BIGINT, u3 BIGINT)"
)
COPY_COLUMNS = ("game_id", "pool", "ply", "t0", "dt", "u0", "u1", "u2", "u3")
#: Every copied game's moves, from the pool's: seat by seat, their players and times.
_EXPAND_MOVES = (
    "INSERT INTO moves (game_id, ply, seat, user_id, text, created_at)"
    " SELECT c.game_id, m.ply, m.seat,"
    " CASE m.seat WHEN 0 THEN c.u0 WHEN 1 THEN c.u1 WHEN 2 THEN c.u2 ELSE c.u3 END,"
    " m.text, c.t0 + m.ply * c.dt"
    " FROM bench_copies c JOIN bench_pool_moves m ON m.pool = c.pool AND m.ply <= c.ply"
    " ORDER BY c.game_id, m.ply"
)


@dataclass(frozen=True, slots=True)
class Built:
    """A history as built: where, what is in it, and how long it took."""

    target: str
    manifest: Manifest
    seconds: float


class Sink(Protocol):
    async def start(self, pool: list[tuple[int, int, int, str]]) -> None: ...

    async def write(self, chunk: Chunk) -> None: ...

    async def finish(self) -> None: ...


class SqliteSink:
    """Bulk writes into an SQLite file the product has migrated, on a connection of its
    own: no journal and no syncing while it fills (a file that is thrown away if the
    build fails), its write-ahead log back on at the end.

    A chunk's rows are bound in the event loop's thread; its moves are expanded and
    committed in a thread of its own (SQLite lets go of the interpreter meanwhile), while
    the next chunk is made. Rating changes, whose table is kept in key order, are staged
    and go in sorted, once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bench-sqlite")
        self.conn: sqlite3.Connection | None = None
        self.indexes: list[str] = []
        self.pending: asyncio.Future[None] | None = None

    async def start(self, pool: list[tuple[int, int, int, str]]) -> None:
        db = await Database.open(self.path)
        await db.close()
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.conn = conn
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute("PRAGMA cache_size=-1000000")
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        rows = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        ).fetchall()
        self.indexes = [sql for _, sql in rows]
        for name, _ in rows:
            conn.execute(f'DROP INDEX "{name}"')
        conn.execute(_POOL_TABLE)
        conn.execute(_COPIES_TABLE)
        conn.execute(f"CREATE TEMP TABLE bench_changes ({', '.join(CHANGE_COLUMNS)})")
        conn.executemany("INSERT INTO bench_pool_moves VALUES (?,?,?,?)", pool)

    async def write(self, chunk: Chunk) -> None:
        if self.pending is not None:
            await self.pending
        conn = self.conn
        assert conn is not None
        conn.execute("BEGIN")
        for table, columns in TABLES.items():
            rows = chunk.rows.get(table)
            if rows:
                into = "bench_changes" if table == "rating_changes" else table
                marks = ",".join("?" * len(columns))
                conn.executemany(
                    f"INSERT INTO {into} ({', '.join(columns)}) VALUES ({marks})", rows
                )
        conn.execute("DELETE FROM bench_copies")
        conn.executemany("INSERT INTO bench_copies VALUES (?,?,?,?,?,?,?,?,?)", chunk.copies)
        loop = asyncio.get_running_loop()
        self.pending = loop.run_in_executor(self.executor, self._expand)

    def _expand(self) -> None:
        conn = self.conn
        assert conn is not None
        conn.execute(_EXPAND_MOVES)
        conn.execute("COMMIT")

    async def finish(self) -> None:
        try:
            if self.pending is not None:
                await self.pending
            await asyncio.get_running_loop().run_in_executor(self.executor, self._finish)
        finally:
            self.executor.shutdown()

    def _finish(self) -> None:
        conn = self.conn
        assert conn is not None
        columns = ", ".join(CHANGE_COLUMNS)
        conn.execute("BEGIN")
        conn.execute(
            f"INSERT INTO rating_changes ({columns}) SELECT {columns} FROM bench_changes"
            " ORDER BY scope, user_id, game_id"
        )
        conn.execute("COMMIT")
        for table in ("bench_changes", "bench_copies", "bench_pool_moves"):
            conn.execute(f"DROP TABLE {table}")
        for sql in self.indexes:
            conn.execute(sql)
        conn.execute("PRAGMA locking_mode=NORMAL")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.close()
        self.conn = None


class PgSink:
    """Bulk writes into a PostgreSQL database the product has migrated: COPY, on one
    connection, with the foreign keys and secondary indexes made again at the end (each
    checked over the whole table at once), then VACUUM ANALYZE (what autovacuum does by
    itself after a while)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.conn: asyncpg.Connection | None = None
        self.indexes: list[str] = []
        self.keys: list[str] = []

    async def start(self, pool: list[tuple[int, int, int, str]]) -> None:
        db = await PgDatabase.open(self.url, size=1)
        await db.close()
        conn = self.conn = await asyncpg.connect(self.url)
        rows = await conn.fetch(
            "SELECT i.indexname, i.indexdef FROM pg_indexes i"
            " WHERE i.schemaname = current_schema()"
            " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)"
        )
        self.indexes = [row["indexdef"] for row in rows]
        for row in rows:
            await conn.execute(f'DROP INDEX "{row["indexname"]}"')
        # Foreign keys are checked once, as they are made again at the end, rather than
        # row by row.
        keys = await conn.fetch(
            "SELECT conname, conrelid::regclass::text AS tab, pg_get_constraintdef(oid) AS def"
            " FROM pg_constraint WHERE contype = 'f'"
            " AND connamespace = current_schema()::regnamespace"
        )
        self.keys = [
            f'ALTER TABLE {key["tab"]} ADD CONSTRAINT "{key["conname"]}" {key["def"]}'
            for key in keys
        ]
        for key in keys:
            await conn.execute(f'ALTER TABLE {key["tab"]} DROP CONSTRAINT "{key["conname"]}"')
        await conn.execute(_POOL_TABLE)
        await conn.execute(_COPIES_TABLE)
        await conn.copy_records_to_table("bench_pool_moves", records=pool)

    async def write(self, chunk: Chunk) -> None:
        conn = self.conn
        assert conn is not None
        async with conn.transaction():
            for table, columns in TABLES.items():
                rows = chunk.rows.get(table)
                if rows:
                    await conn.copy_records_to_table(table, records=rows, columns=list(columns))
            if chunk.copies:
                await conn.execute("TRUNCATE bench_copies")
                await conn.copy_records_to_table(
                    "bench_copies", records=chunk.copies, columns=list(COPY_COLUMNS)
                )
                await conn.execute(_EXPAND_MOVES)

    async def finish(self) -> None:
        conn = self.conn
        assert conn is not None
        try:
            await conn.execute("DROP TABLE bench_copies")
            await conn.execute("DROP TABLE bench_pool_moves")
            for sql in self.indexes + self.keys:
                await conn.execute(sql)
            # New games are numbered after the ones written here.
            await conn.execute(
                "SELECT setval(pg_get_serial_sequence('games', 'id'), max(id)) FROM games"
            )
            await conn.execute("VACUUM ANALYZE")
        finally:
            await conn.close()
            self.conn = None


async def build(
    target: str | Path,
    scale: Scale,
    *,
    now: float | None = None,
    progress: Progress | None = None,
) -> Built:
    """A history of `scale` at `target` (an SQLite file that must not exist yet, or the URL
    of an empty PostgreSQL database)."""
    started = time.perf_counter()
    say = progress or (lambda _text: None)
    where = str(target)
    moment = now if now is not None else time.time()
    sink: Sink
    if backend_of(where) == "postgresql":
        sink = PgSink(where)
    elif Path(where).exists():  # noqa: ASYNC240 (one look, before anything is written)
        raise FileExistsError(f"{where}: a history is built into a new file")
    else:
        sink = SqliteSink(Path(where))
    plan = Plan(scale, moment)
    await sink.start(pool_moves() + daily_pool_moves(plan.daily))
    games = moves = 0
    next_report = time.perf_counter() + 10.0
    for chunk in plan.chunks():
        games += len(chunk.copies)
        moves += sum(copy[2] for copy in chunk.copies)
        await sink.write(chunk)
        if time.perf_counter() >= next_report:
            next_report += 10.0
            say(
                f"{scale.name}: {games:,} games and {moves:,} moves written,"
                f" {time.perf_counter() - started:.0f} s"
            )
    manifest = plan.manifest()
    say(f"{scale.name}: indexes and statistics, {time.perf_counter() - started:.0f} s")
    await sink.finish()
    seconds = time.perf_counter() - started
    say(f"{scale.name}: built in {seconds:.0f} s ({_counted(manifest)})")
    return Built(where, manifest, seconds)


def _counted(manifest: Manifest) -> str:
    counts = manifest.counts
    return ", ".join(
        f"{counts.get(table, 0):,} {table}"
        for table in ("games", "moves", "seats", "rating_changes", "daily_runs")
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Build a stored history of a given size.")
    parser.add_argument("target", help="a new SQLite file, or an empty database's URL")
    parser.add_argument("--finished", type=int, default=1000)
    parser.add_argument("--live", type=int, default=None)
    parser.add_argument("--users", type=int, default=None)
    parser.add_argument("--guilds", type=int, default=None)
    parser.add_argument("--daily-runs", type=int, default=None)
    args = parser.parse_args(argv)
    scale = scale_for(args.finished)
    scale = replace(
        scale,
        live=args.live if args.live is not None else scale.live,
        users=args.users or scale.users,
        guilds=args.guilds or scale.guilds,
        daily_runs=args.daily_runs or scale.daily_runs,
    )
    built = asyncio.run(build(args.target, scale, progress=lambda t: print(t, file=sys.stderr)))
    print(built.manifest.to_json())


def scale_for(finished: int, busy_live: int = 3700, busy_members: int = 2000) -> Scale:
    """A history with `finished` games: a tenth as many players, a hundredth as many
    servers, a live game for every ten finished ones, a daily run a day per thousand
    finished games (each at least what the busy server needs)."""
    return Scale(
        name=f"{finished:,}",
        finished=finished,
        live=max(finished // 10, min(finished, 1000)),
        busy_live=busy_live,
        busy_members=busy_members,
        users=max(finished // 10, 2 * busy_members + 1000),
        guilds=max(finished // 100, 30),
        daily_runs=max(finished // 1000, 2),
    )


if __name__ == "__main__":
    main()
