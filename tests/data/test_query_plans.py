"""Every read a command makes is an indexed look-up or a bounded page: the statements
the commands send (each as the console front-end runs it) are recorded, and the
database's own planner is asked how it would run each one. A plan that scans a table
growing with the history (all of it, or all of one of its indexes) fails the test: such
a command would slow down year after year."""

from __future__ import annotations

import io
import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import aiosqlite
import asyncpg

from console.front import Console
from data.repository import Shards
from data.sqlite import db as sqlite_db
from data.storage import Storage
from data.web import token_hash
from host.service import GameService
from tests.data.season import SEASON

#: Tables that grow with the history kept (games, their seats and moves, runs, ratings,
#: players and servers): none may be read whole by a command.
GROWING = {
    "games",
    "seats",
    "moves",
    "rating_changes",
    "ratings",
    "daily_runs",
    "daily_totals",
    "daily_par",
    "follows",
    "users",
    "guild_members",
    "console_buttons",
    "console_channels",
    "guild_settings",
    "user_settings",
    "web_sessions",
    "events",
    "event_entrants",
    "event_tables",
    "event_seats",
    "digests",
    "away",
    "guilds",
    "forgetting",
}
#: Partial indexes that hold only work still to do (games to rate, deadlines and
#: reminders due, challenges unanswered, daily runs still open or untold, tournaments
#: running and their tables undecided, players away): each entry leaves the index once it
#: is handled, so reading one whole costs the backlog, not the history.
QUEUES = {
    "games_unrated",
    "games_due",
    "games_reminders",
    "games_open_challenges",
    "daily_runs_open",
    "daily_runs_pending",
    "events_running",
    "event_tables_undecided",
    "away_ending",
    "guilds_to_forget",
}
#: Statements that read nothing (or only what they write by key).
_NOT_READS = re.compile(
    r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA|SET|LOCK|SELECT pg_)", re.I
)


@contextmanager
def recording() -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    """Every statement the test's own thread sends to either database while the block
    runs, with its parameters (the drivers' connection classes are wrapped for that
    time). The test databases' administration, which copies the next tests' databases
    on a thread of its own meanwhile, is not recorded."""
    sent: list[tuple[str, tuple[Any, ...]]] = []
    patched: list[tuple[type, str, Any]] = []
    mine = threading.get_ident()

    def wrap_sqlite(name: str) -> None:
        original = getattr(aiosqlite.Connection, name)

        def method(self: Any, sql: str, parameters: Any = None) -> Any:
            if threading.get_ident() == mine:
                sent.append((sql, tuple(parameters or ())))
            return original(self, sql, parameters)

        patched.append((aiosqlite.Connection, name, original))
        setattr(aiosqlite.Connection, name, method)

    def wrap_pg(name: str) -> None:
        original = getattr(asyncpg.connection.Connection, name)

        async def method(self: Any, query: str, *args: Any, **kwargs: Any) -> Any:
            if name != "executemany" and threading.get_ident() == mine:
                sent.append((query, args))
            return await original(self, query, *args, **kwargs)

        patched.append((asyncpg.connection.Connection, name, original))
        setattr(asyncpg.connection.Connection, name, method)

    for name in ("execute", "execute_fetchall"):
        wrap_sqlite(name)
    # Single-statement writes go to the writer's thread without these methods.
    write = sqlite_db.Database.write

    async def writing(self: Any, sql: str, params: Any = ()) -> Any:
        sent.append((sql, tuple(params)))
        return await write(self, sql, params)

    patched.append((sqlite_db.Database, "write", write))
    sqlite_db.Database.write = writing  # type: ignore[method-assign]
    for name in ("fetch", "fetchval", "fetchrow", "execute", "executemany"):
        wrap_pg(name)
    try:
        yield sent
    finally:
        for owner, name, original in patched:
            setattr(owner, name, original)


def sqlite_scans(path: str, sql: str, params: tuple[Any, ...]) -> list[str]:
    """The steps of SQLite's plan that read a growing table or index whole."""
    with sqlite3.connect(path) as conn:
        steps = [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params)]
    return [
        step
        for step in steps
        if (m := re.match(r"SCAN (\w+)(?: USING (?:COVERING )?INDEX (\w+))?", step))
        and _table_of(m.group(1), sql) in GROWING
        and m.group(2) not in QUEUES
    ]


def _table_of(name: str, sql: str) -> str:
    """The table an alias in `sql` stands for (or the name itself)."""
    m = re.search(rf"\b(\w+)\s+(?:AS\s+)?{name}\b(?!\s*\.)", sql)
    if name in GROWING or m is None:
        return name
    return m.group(1)


async def pg_scans(conn: asyncpg.Connection, sql: str, args: tuple[Any, ...]) -> list[str]:
    """The nodes of PostgreSQL's plan that read a growing table whole. Sequential scans
    are turned off, so one is left only where no index can serve. (On tables this small
    the planner's choice among indexes says nothing of its choice at scale, so only a
    missing index is judged here; SQLite, which plans without statistics, is held to
    the stricter test.)"""
    [plan] = json.loads(await conn.fetchval(f"EXPLAIN (FORMAT JSON) {sql}", *args))
    found: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        if node["Node Type"] == "Seq Scan" and node.get("Relation Name") in GROWING:
            found.append(f"Seq Scan on {node['Relation Name']}")
        for child in node.get("Plans", ()):
            walk(child)

    walk(plan["Plan"])
    return found


async def test_no_command_reads_a_growing_table_whole(console: Console, storage: Storage) -> None:
    with recording() as sent:
        for line in SEASON:
            await console.run_line(line)
        await console.service.settle_ratings()
        await console.expire_deadlines()
        # The bot's own sweep: every shard in one process, and some of them in each.
        for shards in (None, Shards((0, 1), 4)):
            bot = GameService(storage.games, bot_user=console.service.bot_user, shards=shards)
            await bot.expire_due()
            bot.close()
    output = console.stream.getvalue() if isinstance(console.stream, io.StringIO) else ""
    assert "Traceback" not in output and "! " not in output, output
    reads = _reads(sent)
    assert len(reads) > 40, "the commands sent too few statements to judge"
    offenders = await _whole_reads(storage, reads)
    assert not offenders, "\n\n".join(f"{sql}\n  -> {scans}" for sql, scans in offenders.items())


async def test_mydata_reads_a_person_by_their_indexes(console: Console, storage: Storage) -> None:
    """The copy and the forgetting find a person's rows in each table's index; the games
    they are named in without a seat are read a bounded page at a time."""
    for line in SEASON:
        await console.run_line(line)
    await console.service.settle_ratings()
    with recording() as sent:
        for line in ("alice /mydata export", "alice /mydata forget", "alice /press Forget me"):
            await console.run_line(line)
    output = console.stream.getvalue() if isinstance(console.stream, io.StringIO) else ""
    assert "Everything stored about you is forgotten" in output, output
    reads = _reads(sent)
    assert len(reads) > 40, "the commands sent too few statements to judge"
    offenders = await _whole_reads(storage, reads)
    assert not offenders, "\n\n".join(f"{sql}\n  -> {scans}" for sql, scans in offenders.items())


async def test_web_sessions_are_found_and_pruned_by_their_indexes(storage: Storage) -> None:
    key = token_hash("a cookie's token")
    with recording() as sent:
        await storage.web.create_session(key, 1, "alice", [5], now=1.0, expires_at=2.0)
        await storage.web.session(key, now=1.5)
        await storage.web.prune_sessions(now=3.0, limit=100)
        await storage.web.end_session(key)
    reads = _reads(sent)
    assert len(reads) == 4, reads
    offenders = await _whole_reads(storage, reads)
    assert not offenders, "\n\n".join(f"{sql}\n  -> {scans}" for sql, scans in offenders.items())


def _reads(sent: list[tuple[str, tuple[Any, ...]]]) -> list[tuple[str, tuple[Any, ...]]]:
    """The statements sent that read something, each once."""
    reads = list({repr((sql, params)): (sql, params) for sql, params in sent}.values())
    return [(sql, params) for sql, params in reads if not _NOT_READS.match(sql)]


async def _whole_reads(
    storage: Storage, reads: list[tuple[str, tuple[Any, ...]]]
) -> dict[str, list[str]]:
    """The statements of `reads` that read a growing table whole, with how."""
    offenders: dict[str, list[str]] = {}
    if storage.backend == "sqlite":
        for sql, params in reads:
            if scans := sqlite_scans(storage.target, sql, params):
                offenders[sql] = scans
    else:
        conn = await asyncpg.connect(storage.target)
        try:
            await conn.execute("SET enable_seqscan = off")
            for sql, params in reads:
                if sql.lstrip().upper().startswith(("INSERT", "CREATE", "ALTER", "DROP")):
                    continue
                if scans := await pg_scans(conn, sql, params):
                    offenders[sql] = scans
        finally:
            await conn.close()
    return offenders
