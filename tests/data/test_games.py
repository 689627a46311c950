"""The SQLite repository on a real database file."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from data.db import Database, migrations
from data.games import SqliteGameRepository
from data.repository import LiveGameExistsError, NewGame, StalePlyError, UserRecord

ALICE = UserRecord(1, "alice")
BOB = UserRecord(2, "bob")


def new_game(channel: int = 10, status: str = "active") -> NewGame:
    return NewGame(
        game="hokito",
        guild_id=5,
        channel_id=channel,
        status=status,  # type: ignore[arg-type]
        seed=42,
        variant=None,
        rules_version=1,
        start_position=None,
        snapshot="start",
        created_by=ALICE,
        seats=((ALICE, True), (BOB, status == "active")),
        options={"level": "easy"},
    )


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "t.sqlite3")
    yield database
    await database.close()


async def test_migrations_from_zero_set_the_schema_version(tmp_path: Path) -> None:
    database = await Database.open(tmp_path / "fresh.sqlite3")
    try:
        async with database.read() as conn, conn.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        assert row is not None and row[0] == len(migrations()) >= 1
        async with database.read() as conn, conn.execute("PRAGMA journal_mode") as cur:
            mode = await cur.fetchone()
        assert mode is not None and mode[0] == "wal"
        assert await database.migrate() == len(migrations())  # a second run changes nothing
    finally:
        await database.close()


async def test_create_and_reload_game(db: Database) -> None:
    repo = SqliteGameRepository(db)
    record = await repo.create_game(new_game(), now=100.0)
    loaded = await repo.get_game(record.id)
    assert loaded == record
    assert [s.user.name for s in record.seats] == ["alice", "bob"]
    assert record.ply == 0 and record.options == {"level": "easy"}
    assert (await repo.live_game_in_channel(10)) == record
    assert [g.id for g in await repo.live_games(5)] == [record.id]


async def test_one_live_game_per_channel(db: Database) -> None:
    repo = SqliteGameRepository(db)
    first = await repo.create_game(new_game(), now=1.0)
    with pytest.raises(LiveGameExistsError):
        await repo.create_game(new_game(), now=2.0)
    await repo.close_game(first.id, 0, "aborted", {"reason": "ended by an admin"}, now=3.0)
    second = await repo.create_game(new_game(), now=4.0)
    assert second.id != first.id
    aborted = await repo.get_game(first.id)
    assert aborted is not None and aborted.status == "aborted"  # kept, never deleted


async def test_append_move_is_guarded_by_ply(db: Database) -> None:
    repo = SqliteGameRepository(db)
    game = await repo.create_game(new_game(), now=1.0)
    await repo.append_move(game.id, 0, 0, ALICE.id, "c2-e4", "s1", now=2.0)
    after = await repo.get_game(game.id)
    assert after is not None and after.ply == 1 and after.snapshot == "s1"
    with pytest.raises(StalePlyError):
        await repo.append_move(game.id, 0, 0, ALICE.id, "c2-e4", "s1-again", now=3.0)
    reloaded = await repo.get_game(game.id)
    assert reloaded is not None and reloaded.snapshot == "s1" and reloaded.ply == 1
    assert [(m.ply, m.text) for m in await repo.moves(game.id)] == [(1, "c2-e4")]


async def test_finishing_move_records_result(db: Database) -> None:
    repo = SqliteGameRepository(db)
    game = await repo.create_game(new_game(), now=1.0)
    await repo.append_move(game.id, 0, 0, 1, "x", "end", now=2.0, result={"w": [0]})
    done = await repo.get_game(game.id)
    assert (
        done is not None
        and done.status == "finished"
        and done.result == {"w": [0]}
        and done.finished_at == 2.0
    )
    with pytest.raises(StalePlyError):
        await repo.append_move(game.id, 1, 1, 2, "y", "more", now=3.0)


async def test_move_log_is_append_only(db: Database) -> None:
    repo = SqliteGameRepository(db)
    game = await repo.create_game(new_game(), now=1.0)
    await repo.append_move(game.id, 0, 0, 1, "a1-a2", "s1", now=2.0)
    async with db.transaction() as conn:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            await conn.execute("UPDATE moves SET text = 'x'")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            await conn.execute("DELETE FROM moves")


async def test_concurrent_writers_apply_a_ply_once(db: Database) -> None:
    repo = SqliteGameRepository(db)
    game = await repo.create_game(new_game(), now=1.0)

    async def attempt(i: int) -> bool:
        try:
            await repo.append_move(game.id, 0, 0, 1, f"m{i}", f"s{i}", now=2.0)
        except StalePlyError:
            return False
        return True

    results = await asyncio.gather(*(attempt(i) for i in range(20)))
    assert results.count(True) == 1
    assert len(await repo.moves(game.id)) == 1


async def test_two_connections_on_one_file_see_each_other(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    first, second = await Database.open(path), await Database.open(path)
    try:
        repo1, repo2 = SqliteGameRepository(first), SqliteGameRepository(second)
        game = await repo1.create_game(new_game(), now=1.0)
        await repo2.append_move(game.id, 0, 0, 1, "a", "s1", now=2.0)
        with pytest.raises(StalePlyError):
            await repo1.append_move(game.id, 0, 0, 1, "b", "s2", now=3.0)
        reloaded = await repo1.get_game(game.id)
        assert reloaded is not None and reloaded.snapshot == "s1"
    finally:
        await first.close()
        await second.close()


async def test_data_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "persist.sqlite3"
    database = await Database.open(path)
    repo = SqliteGameRepository(database)
    game = await repo.create_game(new_game(status="challenge"), now=1.0)
    await repo.accept_seat(game.id, 1, now=2.0)
    await repo.append_move(game.id, 0, 0, 1, "a", "s1", now=3.0)
    await database.close()
    reopened = await Database.open(path)
    try:
        loaded = await SqliteGameRepository(reopened).get_game(game.id)
        assert loaded is not None
        assert (loaded.status, loaded.ply, loaded.snapshot) == ("active", 1, "s1")
        assert all(seat.accepted for seat in loaded.seats)
    finally:
        await reopened.close()


async def test_accept_only_once_and_only_while_challenged(db: Database) -> None:
    repo = SqliteGameRepository(db)
    game = await repo.create_game(new_game(status="challenge"), now=1.0)
    await repo.accept_seat(game.id, 1, now=2.0)
    with pytest.raises(StalePlyError):
        await repo.accept_seat(game.id, 1, now=3.0)


async def test_replace_seats_with_the_options_that_say_so(db: Database) -> None:
    repo = SqliteGameRepository(db)
    game = await repo.create_game(new_game(), now=1.0)
    bot = UserRecord(99, "hilltop", is_bot=True)
    record = await repo.replace_seats(game.id, (1,), bot, {"level": "hard", "taken_over": [1]})
    assert record.seats[1].user == bot and record.seats[0].user != bot
    assert record.options == {"level": "hard", "taken_over": [1]}
    again = await repo.get_game(game.id)
    assert again is not None and again.options == record.options


async def test_reads_do_not_wait_for_an_open_write_transaction(db: Database) -> None:
    repo = SqliteGameRepository(db)
    game = await repo.create_game(new_game(), now=1.0)
    async with db.transaction() as conn:
        await conn.execute("UPDATE games SET snapshot = 'uncommitted' WHERE id = ?", (game.id,))
        # The writer is busy inside its transaction: a read answers at once, with the
        # last committed state.
        seen = await asyncio.wait_for(repo.get_game(game.id), timeout=2)
        assert seen is not None and seen.snapshot == "start"
        await conn.execute("UPDATE games SET snapshot = 'start' WHERE id = ?", (game.id,))


async def test_game_with_moves_reads_record_and_log_together(db: Database) -> None:
    repo = SqliteGameRepository(db)
    game = await repo.create_game(new_game(), now=1.0)
    assert await repo.game_with_moves(game.id) == (game, [])
    await repo.append_move(game.id, 0, 0, ALICE.id, "a1-a2", "s1", now=2.0)
    await repo.append_move(game.id, 1, 1, BOB.id, "b1-b2", "s2", now=3.0)
    found = await repo.game_with_moves(game.id)
    assert found is not None
    record, log = found
    assert record.ply == 2 and record.snapshot == "s2"
    assert [(m.ply, m.seat, m.user_id, m.text, m.created_at) for m in log] == [
        (1, 0, ALICE.id, "a1-a2", 2.0),
        (2, 1, BOB.id, "b1-b2", 3.0),
    ]
    assert await repo.game_with_moves(game.id + 100) is None


async def test_the_ply_only_moves_up_one_logged_move_at_a_time(db: Database) -> None:
    repo = SqliteGameRepository(db)
    game = await repo.create_game(new_game(), now=1.0)
    with pytest.raises(sqlite3.IntegrityError, match="one move at a time"):
        await db.write("UPDATE games SET ply = 5 WHERE id = ?", (game.id,))
    with pytest.raises(sqlite3.IntegrityError, match="NOT NULL"):
        await db.write("UPDATE games SET ply = ply + 1 WHERE id = ?", (game.id,))  # no move
    unchanged = await repo.get_game(game.id)
    assert unchanged is not None and unchanged.ply == 0 and await repo.moves(game.id) == []


async def test_the_reader_connection_cannot_write(db: Database) -> None:
    async with db.read() as conn:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            await conn.execute("DELETE FROM users")
