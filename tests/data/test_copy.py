"""Moving an SQLite database into PostgreSQL: everything arrives, the games go on there,
and the check finds any difference."""

from __future__ import annotations

import math
import re
import sqlite3
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
import pytest

from data import copy
from data.copy import TABLES, CopyError, copy_database
from data.repository import UserRecord
from data.storage import Storage, open_storage
from engine.hillbert_par import ParResult
from host.daily.service import DailyService
from host.model import Channel, User
from host.service import GameService
from host.setup import GameSetup
from tests.conftest import PostgresDatabases
from tests.host.conftest import ALICE, BOB, BOT, CAROL, HERE, each_moves_once
from tests.houses import house_of

ROOT = Path(__file__).resolve().parents[2]
NOON = datetime(2026, 11, 22, 12, 0, tzinfo=UTC).timestamp()
ELSEWHERE = Channel(channel_id=502, guild_id=7, name="elsewhere")
DAVE = User(1005, "dave")


@pytest.fixture
def postgres_target(postgres: PostgresDatabases) -> Iterator[str]:
    name, url = postgres.create()
    yield url
    postgres.drop(name)


async def fixed_par(seed: int) -> ParResult:
    return ParResult(40, 120, ("d",))


def services(storage: Storage) -> tuple[GameService, DailyService]:
    house = house_of(storage, bot=BOT, clock=lambda: NOON, secret="s", par_runner=fixed_par)
    return house.service, house.daily


async def played(path: Path) -> None:
    """A database with a bit of everything: a finished rated game, a live game, a
    follower, settings, a daily run, console memory."""
    storage = await open_storage(path)
    games, daily = services(storage)
    try:
        await games.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
        await games.accept(HERE, BOB)
        await each_moves_once(games, HERE, ALICE, BOB)
        await games.resign(HERE, BOB, confirmed=True)
        await games.start(ELSEWHERE, ALICE, GameSetup("hokito", seed=2), [CAROL])
        await games.accept(ELSEWHERE, CAROL)
        move = (await games.suggest_moves(ELSEWHERE, CAROL, ""))[0].value
        await games.move(ELSEWHERE, CAROL, move)
        await games.notify(BOB, reminders=False, dm=None)
        await daily.play(HERE, ALICE)
        await daily.par.reply("2026-11-22", 0)  # the day's par stored, its search over
        await storage.console.remember("general", None, [("accept:1", "Accept")])
        await storage.console.name_channel(500, "general")
        await games.settle_ratings()
    finally:
        daily.close()
        games.close()
        await storage.close()


async def test_everything_arrives_and_the_games_go_on(tmp_path: Path, postgres_target: str) -> None:
    source = tmp_path / "old.sqlite3"
    await played(source)
    copied, tables = await copy_database(source, postgres_target)
    assert copied > 10
    assert [t.table for t in tables] == list(TABLES)
    assert all(t.same for t in tables), tables
    counts = {t.table: t.postgresql_rows for t in tables}
    assert counts["games"] == 3 and counts["moves"] == 3 and counts["rating_changes"] == 4
    assert counts["daily_runs"] == 1 and counts["console_buttons"] == 1

    target = await open_storage(postgres_target)
    games, daily = services(target)
    try:
        # The live game goes on from its stored position, and new games are numbered on.
        move = (await games.suggest_moves(ELSEWHERE, ALICE, ""))[0].value
        [board] = await games.move(ELSEWHERE, ALICE, move)
        assert board.game_id == 2
        [challenge] = await games.start(HERE, BOB, GameSetup("molehill", seed=3), [CAROL])
        assert challenge.game_id == 4
        table = await target.ratings.table("hokito", 0, 10)
        assert [(s.name, s.wins, s.losses) for s in table] == [("alice", 1, 0), ("bob", 0, 1)]
        assert (await daily.daily.run_for(ALICE.id, "2026-11-22")) is not None
        assert await target.console.visible("general", "alice") == [("accept:1", "Accept")]
    finally:
        daily.close()
        games.close()
        await target.close()


async def test_a_second_run_copies_nothing_and_finds_a_difference(
    tmp_path: Path, postgres_target: str
) -> None:
    source = tmp_path / "old.sqlite3"
    await played(source)
    await copy_database(source, postgres_target)
    copied, tables = await copy_database(source, postgres_target)
    assert copied == 0 and all(t.same for t in tables)
    target = await open_storage(postgres_target)
    try:
        await target.database.write("UPDATE users SET name = 'mallory' WHERE id = 1002")
    finally:
        await target.close()
    _, tables = await copy_database(source, postgres_target)
    assert [t.table for t in tables if not t.same] == ["users"]


async def test_schemas_of_different_versions_are_not_copied(
    tmp_path: Path, postgres_target: str
) -> None:
    source = tmp_path / "old.sqlite3"
    await played(source)
    storage = await open_storage(source)
    try:
        await storage.database.write("PRAGMA user_version = 99")
    finally:
        await storage.close()
    with pytest.raises(CopyError, match="schema versions differ"):
        await copy_database(source, postgres_target)


def test_the_command_copies_and_checks(tmp_path: Path, postgres_target: str) -> None:
    source = tmp_path / "old.sqlite3"
    missing = subprocess.run(
        [sys.executable, "bot.py", "--db", str(tmp_path / "none.sqlite3"), "--copy-to", "x"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode != 0 and "there is none at" in missing.stderr
    import asyncio

    asyncio.run(played(source))
    done = subprocess.run(
        [sys.executable, "bot.py", "--db", str(source), "--copy-to", postgres_target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Everything arrived" in done.stdout
    assert "games                    3           3  identical" in done.stdout


async def test_a_database_a_bot_has_used_is_not_copied_into(
    tmp_path: Path, postgres_target: str
) -> None:
    source = tmp_path / "old.sqlite3"
    await played(source)
    used = await open_storage(postgres_target)
    try:
        await used.daily.set_par("2026-11-20", 40, 120, NOON)  # a bot ran here, no game yet
    finally:
        await used.close()
    with pytest.raises(CopyError, match="daily_par is not empty"):
        await copy_database(source, postgres_target)
    target = await open_storage(postgres_target)
    try:
        [row] = await target.database.fetch("SELECT count(*) FROM users")
        assert row[0] == 0  # nothing was written
    finally:
        await target.close()


#: Tables with more rows in `bigger` than several small batches hold, WITHOUT ROWID
#: tables among them.
LONG_TABLES = ("games", "seats", "moves", "guild_members", "follows", "rating_changes", "ratings")


async def bigger(path: Path) -> None:
    """`played`, then more finished rated games between four players, servers' members
    and followers of games."""
    await played(path)
    storage = await open_storage(path)
    games, daily = services(storage)
    try:
        pairs = [(ALICE, BOB), (BOB, CAROL), (CAROL, DAVE), (DAVE, ALICE), (BOB, ALICE)]
        for seed, (first, second) in enumerate(pairs, start=10):
            await games.start(HERE, first, GameSetup("hokito", seed=seed, seat="first"), [second])
            await games.accept(HERE, second)
            await each_moves_once(games, HERE, first, second)
            await games.resign(HERE, second, confirmed=True)
        await games.settle_ratings()
        watchers = [UserRecord(2000 + n, f"watcher{n}") for n in range(5)]
        for watcher in watchers:
            for guild in (7, 8):
                await storage.daily.note_member(guild, watcher)
            for game_id in (1, 2):
                await storage.games.follow(game_id, watcher, True)
    finally:
        daily.close()
        games.close()
        await storage.close()


def sqlite_rows(path: Path, table: str) -> tuple[list[str], Counter[tuple[Any, ...]]]:
    """A table's columns and every one of its rows, read whole."""
    with closing(sqlite3.connect(path)) as db:
        columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
        return columns, Counter(db.execute(f"SELECT {', '.join(columns)} FROM {table}"))


async def pg_rows(url: str, table: str, columns: Iterable[str]) -> Counter[tuple[Any, ...]]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(f"SELECT {', '.join(columns)} FROM {table}")
    finally:
        await conn.close()
    return Counter(tuple(row) for row in rows)


async def test_a_copy_in_small_batches_arrives_whole(
    tmp_path: Path, postgres_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(copy, "BATCH_ROWS", 2)
    source = tmp_path / "old.sqlite3"
    await bigger(source)
    copied, tables = await copy_database(source, postgres_target)
    assert all(t.same for t in tables), tables
    counts = {t.table: t.sqlite_rows for t in tables}
    assert all(counts[table] > 3 * 2 for table in LONG_TABLES), counts
    assert copied == sum(counts.values())
    for table in TABLES:
        # Row by row, apart from the comparison's digest: every row arrived, once.
        columns, mine = sqlite_rows(source, table)
        assert await pg_rows(postgres_target, table, columns) == mine, table
        assert counts[table] == sum(mine.values())


async def test_the_batched_comparison_finds_a_row_changed_after_the_copy(
    tmp_path: Path, postgres_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(copy, "BATCH_ROWS", 2)
    source = tmp_path / "old.sqlite3"
    await bigger(source)
    await copy_database(source, postgres_target)
    conn = await asyncpg.connect(postgres_target)
    try:
        # One rating's μ, in a row the update moves to the end of its table: same count,
        # only the digest can tell. And one follower fewer: the count tells.
        changed = await conn.execute(
            "UPDATE ratings SET mu = mu + 0.5 WHERE scope = 7 AND user_id = 1003"
        )
        assert changed == "UPDATE 1"
        await conn.execute("DELETE FROM follows WHERE game_id = 2 AND user_id = 2004")
    finally:
        await conn.close()
    copied, tables = await copy_database(source, postgres_target)
    assert copied == 0
    differ = {t.table: t for t in tables if not t.same}
    assert sorted(differ) == ["follows", "ratings"]
    assert differ["ratings"].sqlite_rows == differ["ratings"].postgresql_rows > 3 * 2
    assert differ["follows"].sqlite_rows == differ["follows"].postgresql_rows + 1


async def test_the_copy_and_the_comparison_read_and_send_in_batches(
    tmp_path: Path, postgres_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = 3
    monkeypatch.setattr(copy, "BATCH_ROWS", batch)
    source = tmp_path / "old.sqlite3"
    await bigger(source)
    fetched: list[int] = []  # rows of each batch read from SQLite
    whole: list[tuple[str, int]] = []  # whole results of queries reading a table
    sent: defaultdict[str, list[int]] = defaultdict(list)  # rows of each COPY, by table
    cursored: list[int] = []  # rows of each batch read from PostgreSQL
    reads_a_table = re.compile(rf"\bFROM ({'|'.join(TABLES)})$")

    fetchmany = aiosqlite.Cursor.fetchmany
    fetchall = aiosqlite.Cursor.fetchall
    execute_fetchall = aiosqlite.Connection.execute_fetchall
    copy_records = asyncpg.connection.Connection.copy_records_to_table
    pg_fetch = asyncpg.connection.Connection.fetch
    cursor_fetch = asyncpg.cursor.Cursor.fetch

    async def spy_fetchmany(self: aiosqlite.Cursor, size: int | None = None) -> list[Any]:
        rows = list(await fetchmany(self, size))
        fetched.append(len(rows))
        return rows

    async def spy_fetchall(self: aiosqlite.Cursor) -> list[Any]:
        rows = list(await fetchall(self))
        whole.append(("a cursor's fetchall", len(rows)))
        return rows

    async def spy_execute_fetchall(
        self: aiosqlite.Connection, sql: str, parameters: Any = None
    ) -> list[Any]:
        rows = list(await execute_fetchall(self, sql, parameters))
        if reads_a_table.search(sql.strip()):
            whole.append((sql, len(rows)))
        return rows

    async def spy_copy_records(
        self: asyncpg.Connection, table: str, *, records: Iterable[Any], **kw: Any
    ) -> str:
        listed = list(records)
        sent[table].append(len(listed))
        return await copy_records(self, table, records=listed, **kw)

    async def spy_pg_fetch(self: asyncpg.Connection, query: str, *args: Any, **kw: Any) -> Any:
        rows = await pg_fetch(self, query, *args, **kw)
        if reads_a_table.search(query.strip()):
            whole.append((query, len(rows)))
        return rows

    async def spy_cursor_fetch(self: Any, n: int, **kw: Any) -> Any:
        rows = await cursor_fetch(self, n, **kw)
        cursored.append(len(rows))
        return rows

    monkeypatch.setattr(aiosqlite.Cursor, "fetchmany", spy_fetchmany)
    monkeypatch.setattr(aiosqlite.Cursor, "fetchall", spy_fetchall)
    monkeypatch.setattr(aiosqlite.Connection, "execute_fetchall", spy_execute_fetchall)
    monkeypatch.setattr(asyncpg.connection.Connection, "copy_records_to_table", spy_copy_records)
    monkeypatch.setattr(asyncpg.connection.Connection, "fetch", spy_pg_fetch)
    monkeypatch.setattr(asyncpg.cursor.Cursor, "fetch", spy_cursor_fetch)

    copied, tables = await copy_database(source, postgres_target)
    assert all(t.same for t in tables), tables
    counts = {t.table: t.sqlite_rows for t in tables}
    assert all(counts[table] > 2 * batch for table in LONG_TABLES), counts
    # No table was read whole, on either side.
    assert [(query, rows) for query, rows in whole if rows > batch] == []
    # Every row was sent once, in batches no larger than a batch, as few as that allows.
    assert copied == sum(counts.values()) == sum(map(sum, sent.values()))
    for table in TABLES:
        assert max(sent[table], default=0) <= batch, (table, sent[table])
        assert sum(sent[table]) == counts[table], table
        assert len(sent[table]) == math.ceil(counts[table] / batch), (table, sent[table])
    # SQLite's rows were read in batches twice (for the copy, for the comparison),
    # PostgreSQL's once (for the comparison).
    assert max(fetched) == max(cursored) == batch
    assert sum(fetched) == 2 * copied and sum(cursored) == copied
    assert len(fetched) > 2 * len(TABLES) and len(cursored) > len(TABLES)
