"""The game repository of each backend on a real database: an SQLite file, and a
PostgreSQL database."""

from __future__ import annotations

import asyncio
import sqlite3

import asyncpg
import pytest

from data.migrations import migrations
from data.repository import (
    HandOver,
    LiveGameExistsError,
    NewGame,
    StalePlyError,
    UserRecord,
)
from data.results import Ending, GameResult
from data.storage import Storage, open_storage
from tests.waiting import PATIENCE

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


#: What the database itself raises when a statement breaks one of its rules (a constraint,
#: a trigger); the message says which.
REFUSED: dict[str, type[Exception]] = {
    "sqlite": sqlite3.IntegrityError,
    "postgresql": asyncpg.PostgresError,
}


async def schema_version(storage: Storage) -> int:
    """The schema version the database records: SQLite's user_version pragma, or the
    highest row of PostgreSQL's schema_version table."""
    if storage.backend == "sqlite":
        [row] = await storage.database.fetch("PRAGMA user_version")
    else:
        [row] = await storage.database.fetch("SELECT max(version) FROM schema_version")
    return int(row[0])


async def test_migrations_from_zero_set_the_schema_version(empty_storage_target: str) -> None:
    storage = await open_storage(empty_storage_target)
    try:
        steps = len(migrations(storage.backend))
        assert await schema_version(storage) == steps >= 1
        assert await storage.database.migrate() == steps  # a second run changes nothing
        assert await schema_version(storage) == steps
    finally:
        await storage.close()


async def test_sqlite_keeps_a_write_ahead_log(sqlite_storage: Storage) -> None:
    [mode] = await sqlite_storage.database.fetch("PRAGMA journal_mode")
    assert mode[0] == "wal"


async def test_create_and_reload_game(storage: Storage) -> None:
    repo = storage.games
    record = await repo.create_game(new_game(), now=100.0)
    loaded = await repo.get_game(record.id)
    assert loaded == record
    assert [s.user.name for s in record.seats] == ["alice", "bob"]
    assert record.ply == 0 and record.options == {"level": "easy"}
    assert (await repo.live_game_in_channel(10)) == record
    page, count = await repo.live_games(5, 10, 0)
    assert [g.id for g in page] == [record.id] and count == 1


async def test_one_live_game_per_channel(storage: Storage) -> None:
    repo = storage.games
    first = await repo.create_game(new_game(), now=1.0)
    with pytest.raises(LiveGameExistsError):
        await repo.create_game(new_game(), now=2.0)
    await repo.close_game(first.id, 0, "aborted", GameResult(Ending.ADMIN), now=3.0)
    second = await repo.create_game(new_game(), now=4.0)
    assert second.id != first.id
    aborted = await repo.get_game(first.id)
    assert aborted is not None and aborted.status == "aborted"  # kept, never deleted


async def test_append_move_is_guarded_by_ply(storage: Storage) -> None:
    repo = storage.games
    game = await repo.create_game(new_game(), now=1.0)
    await repo.append_move(game.id, 0, 0, ALICE.id, "c2-e4", "s1", now=2.0)
    after = await repo.get_game(game.id)
    assert after is not None and after.ply == 1 and after.snapshot == "s1"
    with pytest.raises(StalePlyError):
        await repo.append_move(game.id, 0, 0, ALICE.id, "c2-e4", "s1-again", now=3.0)
    reloaded = await repo.get_game(game.id)
    assert reloaded is not None and reloaded.snapshot == "s1" and reloaded.ply == 1
    assert [(m.ply, m.text) for m in await repo.moves(game.id)] == [(1, "c2-e4")]


async def test_finishing_move_records_result(storage: Storage) -> None:
    repo = storage.games
    game = await repo.create_game(new_game(), now=1.0)
    await repo.append_move(
        game.id, 0, 0, 1, "x", "end", now=2.0, result=GameResult(Ending.RULES, (0,))
    )
    done = await repo.get_game(game.id)
    assert (
        done is not None
        and done.status == "finished"
        and done.result == GameResult(Ending.RULES, (0,))
        and done.finished_at == 2.0
    )
    with pytest.raises(StalePlyError):
        await repo.append_move(game.id, 1, 1, 2, "y", "more", now=3.0)


async def test_move_log_is_append_only(storage: Storage) -> None:
    repo = storage.games
    game = await repo.create_game(new_game(), now=1.0)
    await repo.append_move(game.id, 0, 0, 1, "a1-a2", "s1", now=2.0)
    refused = REFUSED[storage.backend]
    with pytest.raises(refused, match="append-only"):
        await storage.database.write("UPDATE moves SET text = 'x'")
    with pytest.raises(refused, match="append-only"):
        await storage.database.write("DELETE FROM moves")
    assert [(m.ply, m.text) for m in await repo.moves(game.id)] == [(1, "a1-a2")]


async def test_concurrent_writers_apply_a_ply_once(storage: Storage) -> None:
    repo = storage.games
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


async def test_two_processes_on_one_database_see_each_other(storage_target: str) -> None:
    first, second = await open_storage(storage_target), await open_storage(storage_target)
    try:
        repo1, repo2 = first.games, second.games
        game = await repo1.create_game(new_game(), now=1.0)
        await repo2.append_move(game.id, 0, 0, 1, "a", "s1", now=2.0)
        with pytest.raises(StalePlyError):
            await repo1.append_move(game.id, 0, 0, 1, "b", "s2", now=3.0)
        reloaded = await repo1.get_game(game.id)
        assert reloaded is not None and reloaded.snapshot == "s1"
    finally:
        await first.close()
        await second.close()


async def test_data_survives_reopen(storage_target: str) -> None:
    storage = await open_storage(storage_target)
    repo = storage.games
    game = await repo.create_game(new_game(status="challenge"), now=1.0)
    await repo.accept_seat(game.id, 1, now=2.0)
    await repo.append_move(game.id, 0, 0, 1, "a", "s1", now=3.0)
    await storage.close()
    reopened = await open_storage(storage_target)
    try:
        loaded = await reopened.games.get_game(game.id)
        assert loaded is not None
        assert (loaded.status, loaded.ply, loaded.snapshot) == ("active", 1, "s1")
        assert all(seat.accepted for seat in loaded.seats)
    finally:
        await reopened.close()


async def test_accept_only_once_and_only_while_challenged(storage: Storage) -> None:
    repo = storage.games
    game = await repo.create_game(new_game(status="challenge"), now=1.0)
    await repo.accept_seat(game.id, 1, now=2.0)
    with pytest.raises(StalePlyError):
        await repo.accept_seat(game.id, 1, now=3.0)


async def test_replace_seats_with_the_options_that_say_so(storage: Storage) -> None:
    repo = storage.games
    game = await repo.create_game(new_game(), now=1.0)
    bot = UserRecord(99, "hilltop", is_bot=True)
    record = await repo.replace_seats(game.id, (1,), bot, {"level": "hard", "taken_over": [1]})
    assert record.seats[1].user == bot and record.seats[0].user != bot
    assert record.options == {"level": "hard", "taken_over": [1]}
    again = await repo.get_game(game.id)
    assert again is not None and again.options == record.options


async def test_seats_change_hands_as_the_game_closes_or_not_at_all(storage: Storage) -> None:
    repo = storage.games
    game = await repo.create_game(new_game(), now=1.0)
    bot = UserRecord(99, "hilltop", is_bot=True)
    hand_over = HandOver((0, 1), bot, {"level": "easy", "taken_over": [0, 1]})
    result = GameResult(Ending.RESIGNED, by=(0,))
    with pytest.raises(StalePlyError):  # the game moved on: nothing changes hands
        await repo.close_game(game.id, 1, "finished", result, now=2.0, hand_over=hand_over)
    unchanged = await repo.get_game(game.id)
    assert unchanged is not None and unchanged.status == "active"
    assert [s.user for s in unchanged.seats] == [ALICE, BOB]
    assert unchanged.options == {"level": "easy"}
    closed = await repo.close_game(game.id, 0, "finished", result, now=3.0, hand_over=hand_over)
    stored = await repo.get_game(game.id)
    assert stored == closed
    assert stored.status == "finished" and stored.result == result
    assert [s.user for s in stored.seats] == [bot, bot]
    assert stored.options == {"level": "easy", "taken_over": [0, 1]}


async def test_reads_do_not_wait_for_an_open_write_transaction(storage: Storage) -> None:
    repo = storage.games
    game = await repo.create_game(new_game(), now=1.0)
    async with storage.database.transaction() as conn:
        await conn.execute(f"UPDATE games SET snapshot = 'uncommitted' WHERE id = {game.id:d}")
        # The writer is busy inside its transaction, which ends only after the read: a
        # read answers without waiting for it, with the last committed state.
        seen = await asyncio.wait_for(repo.get_game(game.id), timeout=PATIENCE)
        assert seen is not None and seen.snapshot == "start"
        await conn.execute(f"UPDATE games SET snapshot = 'start' WHERE id = {game.id:d}")


async def test_game_with_moves_reads_record_and_log_together(storage: Storage) -> None:
    repo = storage.games
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


async def test_the_ply_only_moves_up_one_logged_move_at_a_time(storage: Storage) -> None:
    repo = storage.games
    game = await repo.create_game(new_game(), now=1.0)
    refused = REFUSED[storage.backend]
    with pytest.raises(refused, match="one move at a time"):
        await storage.database.write(f"UPDATE games SET ply = 5 WHERE id = {game.id:d}")
    # No move to log: SQLite says "NOT NULL constraint failed", PostgreSQL "violates
    # not-null constraint".
    with pytest.raises(refused, match=r"(?i)not.null"):
        await storage.database.write(f"UPDATE games SET ply = ply + 1 WHERE id = {game.id:d}")
    unchanged = await repo.get_game(game.id)
    assert unchanged is not None and unchanged.ply == 0 and await repo.moves(game.id) == []


#: How each backend refuses a write on a connection given out for reads.
READ_ONLY: dict[str, tuple[type[Exception], str]] = {
    "sqlite": (sqlite3.OperationalError, "readonly"),  # the reader connection, query_only
    "postgresql": (asyncpg.exceptions.ReadOnlySQLTransactionError, "read-only transaction"),
}


async def test_the_reader_connection_cannot_write(storage: Storage) -> None:
    error, message = READ_ONLY[storage.backend]
    async with storage.database.read() as conn:
        with pytest.raises(error, match=message):
            await conn.execute("DELETE FROM users")


async def test_settings_change_by_key(storage: Storage) -> None:
    repo = storage.games
    await repo.change_settings("guild", 5, {("threads",): True, ("deadlines", "hokito"): 60})
    await repo.change_settings("guild", 5, {("deadlines", "everest"): 120, ("language",): "pl"})
    await repo.change_settings("guild", 5, {("deadlines", "hokito"): 90})
    assert await repo.settings("guild", 5) == {
        "threads": True,
        "deadlines": {"hokito": 90, "everest": 120},
        "language": "pl",
    }
    assert await repo.settings("user", 5) == {}  # a server's, not a player's
    await storage.database.write("INSERT INTO user_settings (user_id, settings) VALUES (7, '[1]')")
    await repo.change_settings("user", 7, {("dm",): True})  # not an object: replaced
    assert await repo.settings("user", 7) == {"dm": True}
    with pytest.raises(ValueError, match="plain keys"):
        await repo.change_settings("user", 7, {("a", "b", "c"): 1})


async def test_concurrent_changes_of_different_keys_are_all_kept(storage_target: str) -> None:
    processes = [await open_storage(storage_target) for _ in range(2)]
    try:
        await asyncio.gather(
            *(
                processes[i % 2].games.change_settings("user", 1, {(f"key{i}",): i})
                for i in range(20)
            ),
            *(
                processes[i % 2].games.change_settings("guild", 1, {("deadlines", f"g{i}"): i})
                for i in range(20)
            ),
        )
        assert await processes[0].games.settings("user", 1) == {f"key{i}": i for i in range(20)}
        assert await processes[1].games.settings("guild", 1) == {
            "deadlines": {f"g{i}": i for i in range(20)}
        }
    finally:
        for opened in processes:
            await opened.close()
