"""The PostgreSQL game and console repositories on a real server: one throwaway server
per module, a fresh migrated database per test."""

from __future__ import annotations

import asyncio
import itertools
import math
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from data.console import ConsoleMemoryError
from data.postgresql.console import PgConsoleRepository
from data.postgresql.db import PgDatabase
from data.postgresql.games import (
    PgGameRepository,
    finished_in_order,
    insert_game,
    load_game,
    unrated_finished,
    upsert_user,
)
from data.repository import (
    DatabaseUnavailableError,
    GameRepository,
    LiveGameExistsError,
    NewGame,
    Shards,
    StalePlyError,
    Status,
    Timer,
    UserRecord,
)
from data.results import Ending, GameResult
from data.sqlite import games as sqlite_games
from data.sqlite.console import SqliteConsoleRepository
from data.sqlite.db import Database
from data.sqlite.games import SqliteGameRepository
from tests.postgres_server import PostgresServer
from tests.waiting import PATIENCE

ALICE = UserRecord(1, "alice")
BOB = UserRecord(2, "bob")
CAROL = UserRecord(3, "carol")
COMPUTER = UserRecord(99, "hilltop", is_bot=True)
GUILD = 5
#: Times that no short decimal writes exactly: they must come back bit for bit.
AWKWARD_TIMES = (1_700_000_000 + 1 / 3, 1_700_000_001 + math.pi / 10, 0.1 + 0.2)


def new_game(
    channel: int | None = 10,
    status: Status = "active",
    *,
    guild_id: int | None = GUILD,
    seats: tuple[tuple[UserRecord, bool], ...] | None = None,
    kind: str = "channel",
    game: str = "hokito",
    timer: Timer | None = None,
) -> NewGame:
    return NewGame(
        game=game,
        guild_id=guild_id,
        channel_id=channel,
        status=status,
        seed=42,
        variant=None,
        rules_version=1,
        start_position=None,
        snapshot="start",
        created_by=ALICE,
        seats=seats if seats is not None else ((ALICE, True), (BOB, status == "active")),
        options={"level": "easy"},
        kind=kind,  # type: ignore[arg-type]
        timer=timer,
    )


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    with PostgresServer() as running:
        yield running


@pytest.fixture(scope="module")
def template(server: PostgresServer) -> str:
    """A migrated database that each test's database is copied from."""
    name = "games_template"
    url = server.create_database(name)

    async def migrate() -> None:
        await (await PgDatabase.open(url, size=1)).close()

    asyncio.run(migrate())
    return name


@pytest.fixture
async def url(server: PostgresServer, template: str) -> AsyncIterator[str]:
    name = f"t_{uuid.uuid4().hex[:16]}"
    yield await server.create_database_async(name, template=template)
    await server.drop_database_async(name)


@pytest.fixture
async def db(url: str) -> AsyncIterator[PgDatabase]:
    database = await PgDatabase.open(url, size=4)
    yield database
    await database.close()


@pytest.fixture
async def other_db(url: str) -> AsyncIterator[PgDatabase]:
    """A second pool on the same database: another bot process."""
    database = await PgDatabase.open(url, size=4)
    yield database
    await database.close()


@pytest.fixture
def repo(db: PgDatabase) -> PgGameRepository:
    return PgGameRepository(db)


# --- creating and loading ---------------------------------------------------------------


async def test_create_and_reload_game(repo: PgGameRepository) -> None:
    record = await repo.create_game(new_game(timer=Timer(100.0, 160.0, 130.0)), now=100.0)
    assert await repo.get_game(record.id) == record
    assert [(s.seat, s.user, s.accepted) for s in record.seats] == [
        (0, ALICE, True),
        (1, BOB, True),
    ]
    assert (record.game, record.kind, record.guild_id, record.channel_id) == (
        "hokito",
        "channel",
        GUILD,
        10,
    )
    assert (record.status, record.ply, record.snapshot, record.seed) == ("active", 0, "start", 42)
    assert record.options == {"level": "easy"} and record.result is None
    assert (record.created_by, record.created_at, record.updated_at) == (ALICE.id, 100.0, 100.0)
    assert (record.deadline_from, record.deadline_at, record.remind_at) == (100.0, 160.0, 130.0)
    assert record.finished_at is None and record.expired_at is None
    assert await repo.live_game_in_channel(10) == record
    assert await repo.live_game_in_channel(11) is None
    page, count = await repo.live_games(GUILD, 10, 0)
    assert [g.id for g in page] == [record.id] and count == 1
    assert await repo.get_game(record.id + 1000) is None


async def test_seats_come_back_in_seat_order_with_the_last_name_seen(
    repo: PgGameRepository,
) -> None:
    renamed = UserRecord(ALICE.id, "alice the second")
    seats = ((CAROL, True), (ALICE, True), (BOB, False), (renamed, False))
    record = await repo.create_game(new_game(status="challenge", seats=seats), now=1.0)
    # Alice sits twice (seats 1 and 3) and made the game: her name is the last one given.
    alice = UserRecord(ALICE.id, "alice")
    assert [(s.seat, s.user, s.accepted) for s in record.seats] == [
        (0, CAROL, True),
        (1, alice, True),
        (2, BOB, False),
        (3, alice, False),
    ]
    assert await repo.get_game(record.id) == record


async def test_one_live_game_per_channel(repo: PgGameRepository, db: PgDatabase) -> None:
    first = await repo.create_game(new_game(), now=1.0)
    with pytest.raises(LiveGameExistsError):
        await repo.create_game(new_game(), now=2.0)
    with pytest.raises(LiveGameExistsError):
        await repo.create_game(new_game(status="challenge"), now=2.0)
    # Nothing of the refused game was kept.
    assert [r[0] for r in await db.fetch("SELECT id FROM games")] == [first.id]
    daily = await repo.create_game(new_game(kind="daily"), now=2.5)  # not a channel's game
    elsewhere = await repo.create_game(new_game(channel=11), now=2.5)
    await repo.close_game(first.id, 0, "aborted", GameResult(Ending.ADMIN), now=3.0)
    second = await repo.create_game(new_game(), now=4.0)
    assert len({first.id, daily.id, elsewhere.id, second.id}) == 4
    aborted = await repo.get_game(first.id)
    assert aborted is not None and aborted.status == "aborted"  # kept, never deleted


async def test_a_race_for_a_channel_leaves_one_live_game(
    db: PgDatabase, other_db: PgDatabase
) -> None:
    repos = [PgGameRepository(db), PgGameRepository(other_db)]

    async def attempt(i: int) -> bool:
        try:
            await repos[i % 2].create_game(new_game(channel=77), now=float(i))
        except LiveGameExistsError:
            return False
        return True

    results = await asyncio.gather(*(attempt(i) for i in range(8)))
    assert results.count(True) == 1
    assert len(await db.fetch("SELECT id FROM games WHERE channel_id = 77")) == 1


async def test_the_shared_helpers_work_inside_a_callers_transaction(
    repo: PgGameRepository, db: PgDatabase
) -> None:
    await repo.create_game(new_game(), now=1.0)
    async with db.transaction() as conn:
        await upsert_user(conn, UserRecord(BOB.id, "robert", is_bot=True))
        game_id = await insert_game(conn, new_game(channel=12, status="challenge"), now=2.0)
        loaded = await load_game(conn, game_id)
        assert loaded.status == "challenge" and loaded.channel_id == 12
        assert loaded.seats[1].user == BOB  # the seat's own name wins over the first upsert
        # A savepoint keeps the transaction usable after a refused game.
        with pytest.raises(LiveGameExistsError):
            async with conn.transaction():
                await insert_game(conn, new_game(channel=10), now=3.0)
        await upsert_user(conn, UserRecord(CAROL.id, "carol"))
    assert await repo.get_game(game_id) == loaded
    names = {r[0]: (r[1], r[2]) for r in await db.fetch("SELECT id, name, is_bot FROM users")}
    assert names == {ALICE.id: ("alice", 0), BOB.id: ("bob", 0), CAROL.id: ("carol", 0)}


# --- moves ------------------------------------------------------------------------------


async def test_append_move_is_guarded_by_ply(repo: PgGameRepository) -> None:
    game = await repo.create_game(new_game(), now=1.0)
    await repo.append_move(game.id, 0, 0, ALICE.id, "c2-e4", "s1", now=2.0)
    after = await repo.get_game(game.id)
    assert after is not None and (after.ply, after.snapshot, after.updated_at) == (1, "s1", 2.0)
    for stale in (0, 2):
        with pytest.raises(StalePlyError):
            await repo.append_move(game.id, stale, 0, ALICE.id, "c2-e4", "again", now=3.0)
    with pytest.raises(StalePlyError):
        await repo.append_move(game.id + 1000, 0, 0, ALICE.id, "x", "s", now=3.0)
    reloaded = await repo.get_game(game.id)
    assert reloaded == after
    assert [(m.ply, m.text) for m in await repo.moves(game.id)] == [(1, "c2-e4")]


async def test_append_move_sets_the_next_clock_and_clears_a_run_out_mark(
    repo: PgGameRepository,
) -> None:
    game = await repo.create_game(new_game(timer=Timer(1.0, 5.0, 3.0)), now=1.0)
    assert await repo.mark_expired(game.id, 0, now=6.0)
    await repo.append_move(game.id, 0, 0, ALICE.id, "a", "s1", now=7.0, timer=Timer(7.0, 9.5))
    after = await repo.get_game(game.id)
    assert after is not None
    assert (after.deadline_from, after.deadline_at, after.remind_at, after.expired_at) == (
        7.0,
        9.5,
        None,
        None,
    )
    await repo.append_move(game.id, 1, 1, BOB.id, "b", "s2", now=8.0)
    untimed = await repo.get_game(game.id)
    assert untimed is not None
    assert (untimed.deadline_from, untimed.deadline_at, untimed.status) == (None, None, "active")


async def test_finishing_move_records_result(repo: PgGameRepository) -> None:
    game = await repo.create_game(new_game(), now=1.0)
    await repo.append_move(
        game.id, 0, 0, ALICE.id, "x", "end", now=2.5, result=GameResult(Ending.RULES, (0,))
    )
    done = await repo.get_game(game.id)
    assert done is not None
    assert (done.status, done.result, done.finished_at) == (
        "finished",
        GameResult(Ending.RULES, (0,)),
        2.5,
    )
    assert done.ply == 1
    with pytest.raises(StalePlyError):
        await repo.append_move(game.id, 1, 1, BOB.id, "y", "more", now=3.0)
    assert await repo.live_game_in_channel(10) is None


async def test_moves_only_in_active_games(repo: PgGameRepository) -> None:
    challenge = await repo.create_game(new_game(status="challenge"), now=1.0)
    with pytest.raises(StalePlyError):
        await repo.append_move(challenge.id, 0, 0, ALICE.id, "a", "s1", now=2.0)
    assert await repo.moves(challenge.id) == []


async def test_the_trigger_logs_each_move_with_its_exact_time(repo: PgGameRepository) -> None:
    game = await repo.create_game(new_game(), now=1.0)
    assert await repo.game_with_moves(game.id) == (game, [])
    players = itertools.cycle([(0, ALICE.id), (1, BOB.id)])
    for ply, (when, (seat, user_id)) in enumerate(zip(AWKWARD_TIMES, players, strict=False)):
        await repo.append_move(game.id, ply, seat, user_id, f"m{ply}", f"s{ply + 1}", now=when)
    found = await repo.game_with_moves(game.id)
    assert found is not None
    record, log = found
    assert record == await repo.get_game(game.id)
    assert (record.ply, record.snapshot, record.updated_at) == (3, "s3", AWKWARD_TIMES[-1])
    expected = [
        (1, 0, ALICE.id, "m0", AWKWARD_TIMES[0]),
        (2, 1, BOB.id, "m1", AWKWARD_TIMES[1]),
        (3, 0, ALICE.id, "m2", AWKWARD_TIMES[2]),
    ]
    assert [(m.ply, m.seat, m.user_id, m.text, m.created_at) for m in log] == expected
    assert await repo.moves(game.id) == log
    assert await repo.game_with_moves(game.id + 1000) is None


async def test_a_long_log_comes_back_in_ply_order(repo: PgGameRepository) -> None:
    game = await repo.create_game(new_game(), now=1.0)
    for ply in range(120):
        await repo.append_move(game.id, ply, ply % 2, 1 + ply % 2, f"m{ply}", "s", now=ply / 7)
    found = await repo.game_with_moves(game.id)
    assert found is not None
    assert [(m.ply, m.text, m.created_at) for m in found[1]] == [
        (ply + 1, f"m{ply}", ply / 7) for ply in range(120)
    ]


async def test_concurrent_moves_in_one_process_apply_a_ply_once(repo: PgGameRepository) -> None:
    game = await repo.create_game(new_game(), now=1.0)

    async def attempt(i: int) -> bool:
        try:
            await repo.append_move(game.id, 0, 0, ALICE.id, f"m{i}", f"s{i}", now=2.0)
        except StalePlyError:
            return False
        return True

    results = await asyncio.gather(*(attempt(i) for i in range(20)))
    assert results.count(True) == 1
    winner = results.index(True)
    assert [m.text for m in await repo.moves(game.id)] == [f"m{winner}"]
    record = await repo.get_game(game.id)
    assert record is not None and record.snapshot == f"s{winner}"


async def test_two_processes_moving_at_the_same_ply_one_wins(
    db: PgDatabase, other_db: PgDatabase
) -> None:
    first, second = PgGameRepository(db), PgGameRepository(other_db)
    game = await first.create_game(new_game(), now=1.0)
    winners = []
    for ply in range(15):

        async def attempt(repo: PgGameRepository, name: str, ply: int = ply) -> str | None:
            try:
                await repo.append_move(game.id, ply, 0, ALICE.id, name, name, now=2.0 + ply)
            except StalePlyError:
                return None
            return name

        results = await asyncio.gather(attempt(first, "first"), attempt(second, "second"))
        assert sum(r is not None for r in results) == 1
        winners.append(next(r for r in results if r is not None))
    log = await second.moves(game.id)
    assert [m.text for m in log] == winners and [m.ply for m in log] == list(range(1, 16))
    seen_by_first = await first.get_game(game.id)
    assert seen_by_first is not None and seen_by_first.ply == 15


# --- challenges, closing, seats ---------------------------------------------------------


async def test_accepting_the_last_seat_starts_the_game(repo: PgGameRepository) -> None:
    seats = ((ALICE, True), (BOB, False), (CAROL, False))
    game = await repo.create_game(new_game(status="challenge", seats=seats), now=1.0)
    half = await repo.accept_seat(game.id, 1, now=2.0, timer=Timer(2.0, 9.0))
    assert half.status == "challenge" and [s.accepted for s in half.seats] == [True, True, False]
    assert half.deadline_at is None
    with pytest.raises(StalePlyError):
        await repo.accept_seat(game.id, 1, now=3.0)  # only once
    started = await repo.accept_seat(game.id, 2, now=4.0, timer=Timer(4.0, 64.0, 34.0))
    assert started.status == "active" and all(s.accepted for s in started.seats)
    assert (started.updated_at, started.deadline_from, started.deadline_at, started.remind_at) == (
        4.0,
        4.0,
        64.0,
        34.0,
    )
    assert await repo.get_game(game.id) == started
    with pytest.raises(StalePlyError):
        await repo.accept_seat(game.id, 0, now=5.0)
    with pytest.raises(StalePlyError):
        await repo.accept_seat(game.id + 1000, 1, now=5.0)


async def test_accepting_a_declined_challenge_changes_nothing(repo: PgGameRepository) -> None:
    seats = ((ALICE, True), (BOB, False), (CAROL, False))
    game = await repo.create_game(new_game(status="challenge", seats=seats), now=1.0)
    await repo.close_game(game.id, 0, "declined", None, now=2.0, only_from=("challenge",))
    with pytest.raises(StalePlyError):
        await repo.accept_seat(game.id, 1, now=3.0)
    declined = await repo.get_game(game.id)
    assert declined is not None and [s.accepted for s in declined.seats] == [True, False, False]


async def test_players_accepting_at_once_in_two_processes_start_the_game(
    db: PgDatabase, other_db: PgDatabase
) -> None:
    first, second = PgGameRepository(db), PgGameRepository(other_db)
    seats = ((ALICE, True), (BOB, False), (CAROL, False))
    games = [
        await first.create_game(new_game(channel=100 + i, status="challenge", seats=seats), 1.0)
        for i in range(25)
    ]
    await asyncio.gather(
        *(first.accept_seat(g.id, 1, now=2.0) for g in games),
        *(second.accept_seat(g.id, 2, now=2.0) for g in games),
    )
    statuses = [(await first.get_game(g.id)).status for g in games]  # type: ignore[union-attr]
    assert statuses == ["active"] * len(games)


async def test_close_game_at_the_expected_ply_and_status(repo: PgGameRepository) -> None:
    game = await repo.create_game(new_game(timer=Timer(1.0, 9.0, 5.0)), now=1.0)
    with pytest.raises(StalePlyError):
        await repo.close_game(game.id, 0, "declined", None, now=2.0, only_from=("challenge",))
    with pytest.raises(StalePlyError):
        await repo.close_game(game.id, 1, "aborted", None, now=2.0)
    closed = await repo.close_game(game.id, 0, "finished", GameResult(Ending.AGREED_DRAW), now=3.25)
    assert (closed.status, closed.result, closed.finished_at, closed.updated_at) == (
        "finished",
        GameResult(Ending.AGREED_DRAW),
        3.25,
        3.25,
    )
    assert (closed.deadline_at, closed.remind_at, closed.expired_at) == (None, None, None)
    assert await repo.get_game(game.id) == closed
    with pytest.raises(StalePlyError):
        await repo.close_game(game.id, 0, "aborted", None, now=4.0)
    # A finished game may still be re-closed when the caller says it may.
    again = await repo.close_game(game.id, 0, "aborted", None, now=5.0, only_from=("finished",))
    assert again.status == "aborted" and again.result is None


async def test_replace_seats_with_the_options_that_say_so(repo: PgGameRepository) -> None:
    seats = ((ALICE, True), (BOB, True), (CAROL, True))
    game = await repo.create_game(new_game(seats=seats), now=1.0)
    options = {"level": "hard", "taken_over": [1, 2]}
    record = await repo.replace_seats(game.id, (1, 2), COMPUTER, options)
    assert [s.user for s in record.seats] == [ALICE, COMPUTER, COMPUTER]
    assert all(s.accepted for s in record.seats) and record.options == options
    assert await repo.get_game(game.id) == record


# --- clocks -----------------------------------------------------------------------------


async def test_set_reminder_moves_only_the_reminder_that_is_due(repo: PgGameRepository) -> None:
    due = 1_700_000_000 + 1 / 3  # compared exactly, as stored
    game = await repo.create_game(new_game(timer=Timer(1.0, 2e9, due)), now=1.0)
    assert not await repo.set_reminder(game.id, 0, due + 1e-6, None)
    assert not await repo.set_reminder(game.id, 1, due, None)
    assert await repo.set_reminder(game.id, 0, due, due + 60)
    assert not await repo.set_reminder(game.id, 0, due, due + 60)  # another process sent it
    moved = await repo.get_game(game.id)
    assert moved is not None and moved.remind_at == due + 60
    assert await repo.set_reminder(game.id, 0, due + 60, None)
    cleared = await repo.get_game(game.id)
    assert cleared is not None and cleared.remind_at is None


async def test_mark_expired_once_and_only_when_time_is_up(repo: PgGameRepository) -> None:
    game = await repo.create_game(new_game(timer=Timer(1.0, 10.0, 5.0)), now=1.0)
    assert not await repo.mark_expired(game.id, 0, now=9.0)
    assert not await repo.mark_expired(game.id, 1, now=11.0)
    assert await repo.mark_expired(game.id, 0, now=11.0)
    marked = await repo.get_game(game.id)
    assert marked is not None
    assert (marked.expired_at, marked.deadline_at, marked.remind_at) == (10.0, None, None)
    assert marked.deadline_from == 1.0
    assert not await repo.mark_expired(game.id, 0, now=12.0)


async def test_board_messages(repo: PgGameRepository) -> None:
    one = await repo.create_game(new_game(channel=1), now=1.0)
    two = await repo.create_game(new_game(channel=2), now=1.0)
    await repo.set_board_messages({})
    await repo.set_board_messages({two.id: 2**62 + 7, one.id: 11})
    assert [(await repo.get_game(g.id)).board_message_id for g in (one, two)] == [  # type: ignore[union-attr]
        11,
        2**62 + 7,
    ]
    await repo.set_board_messages({one.id: 12})
    assert [(await repo.get_game(g.id)).board_message_id for g in (one, two)] == [  # type: ignore[union-attr]
        12,
        2**62 + 7,
    ]


# --- shards -----------------------------------------------------------------------------

#: Server ids on every shard of 3 (the last a real-sized snowflake: shard 0 of 2, 2 of 3,
#: 3 of 5), and a direct message (shard 0).
SHARD_GUILDS = ((0 << 22) | 12345, (1 << 22) | 678, 1_234_567_890_124_931_077, None)


async def _games_in_every_shard(
    repo: PgGameRepository, status: Status, timer: Timer | None
) -> dict[int | None, int]:
    ids = {}
    for channel, guild in enumerate(SHARD_GUILDS, start=500):
        game = await repo.create_game(
            new_game(channel, status, guild_id=guild, timer=timer), now=float(channel)
        )
        ids[guild] = game.id
    return ids


def _shard_choices() -> list[Shards]:
    return [
        Shards(ids, count)
        for count in (1, 2, 3, 5)
        for size in range(1, min(count, 2) + 1)
        for ids in itertools.combinations(range(count), size)
    ]


async def test_due_games_by_shard(repo: PgGameRepository) -> None:
    ids = await _games_in_every_shard(repo, "active", Timer(0.0, 50.0))
    assert {Shards((s,), 3).owns(SHARD_GUILDS[s]) for s in range(3)} == {True}  # the premise
    # Not due yet, not active, or without a deadline: never listed.
    await repo.create_game(new_game(600, timer=Timer(0.0, 500.0)), now=1.0)
    await repo.create_game(new_game(601, "challenge", timer=Timer(0.0, 10.0)), now=1.0)
    await repo.create_game(new_game(602), now=1.0)
    assert sorted(await repo.due_games(100.0)) == sorted(ids.values())
    for shards in _shard_choices():
        expected = sorted(i for guild, i in ids.items() if shards.owns(guild))
        assert sorted(await repo.due_games(100.0, shards)) == expected, shards
    assert await repo.due_games(49.0) == []


async def test_due_games_come_soonest_first(repo: PgGameRepository) -> None:
    later = await repo.create_game(new_game(1, timer=Timer(0.0, 30.0)), now=1.0)
    sooner = await repo.create_game(new_game(2, timer=Timer(0.0, 20.0)), now=1.0)
    assert await repo.due_games(40.0) == [sooner.id, later.id]
    assert await repo.due_games(25.0) == [sooner.id]


async def test_reminders_due_by_shard(repo: PgGameRepository) -> None:
    ids = await _games_in_every_shard(repo, "active", Timer(0.0, 500.0, 50.0))
    await repo.create_game(new_game(600, timer=Timer(0.0, 500.0, 200.0)), now=1.0)
    await repo.create_game(new_game(601, timer=Timer(0.0, 500.0)), now=1.0)
    assert sorted(await repo.reminders_due(100.0)) == sorted(ids.values())
    for shards in _shard_choices():
        expected = sorted(i for guild, i in ids.items() if shards.owns(guild))
        assert sorted(await repo.reminders_due(100.0, shards)) == expected, shards
    assert await repo.reminders_due(49.0) == []


async def test_stale_challenges_by_shard(repo: PgGameRepository) -> None:
    ids = await _games_in_every_shard(repo, "challenge", None)
    await repo.create_game(new_game(600, "challenge"), now=10_000.0)  # too recent
    await repo.create_game(new_game(601, "active"), now=1.0)  # not a challenge
    assert await repo.stale_challenges(5_000.0) == sorted(ids.values())
    for shards in _shard_choices():
        expected = sorted(i for guild, i in ids.items() if shards.owns(guild))
        assert await repo.stale_challenges(5_000.0, shards) == expected, shards
    assert await repo.stale_challenges(500.0) == []


# --- listings ---------------------------------------------------------------------------


async def test_live_games_of_a_server_or_of_direct_messages(repo: PgGameRepository) -> None:
    in_guild = await repo.create_game(new_game(1), now=1.0)
    challenge = await repo.create_game(new_game(2, "challenge"), now=1.0)
    third = await repo.create_game(new_game(8), now=1.0)
    direct = await repo.create_game(new_game(3, guild_id=None), now=1.0)
    other = await repo.create_game(new_game(4, guild_id=GUILD + 1), now=1.0)
    await repo.create_game(new_game(5, kind="daily"), now=1.0)
    await repo.create_game(new_game(6, kind="daily", guild_id=None), now=1.0)
    ended = await repo.create_game(new_game(7, guild_id=None), now=1.0)
    await repo.close_game(ended.id, 0, "aborted", None, now=2.0)
    assert await repo.live_games(GUILD, 10, 0) == ([in_guild, challenge, third], 3)
    assert await repo.live_games(GUILD, 2, 0) == ([in_guild, challenge], 3)
    assert await repo.live_games(GUILD, 2, 2) == ([third], 3)
    assert await repo.live_games(GUILD, 10, 0, excluding=[challenge.id]) == ([in_guild, third], 2)
    assert await repo.live_games(None, 10, 0) == ([direct], 1)
    assert await repo.live_games(GUILD + 1, 10, 0) == ([other], 1)
    assert await repo.live_games(GUILD + 2, 10, 0) == ([], 0)


async def test_live_games_of_user(repo: PgGameRepository) -> None:
    mine = await repo.create_game(new_game(1), now=1.0)
    asked = await repo.create_game(new_game(2, "challenge", guild_id=None), now=1.0)
    theirs = await repo.create_game(new_game(3, seats=((BOB, True), (CAROL, True))), now=1.0)
    await repo.create_game(new_game(4, kind="daily"), now=1.0)
    done = await repo.create_game(new_game(5, guild_id=GUILD + 1), now=1.0)
    await repo.close_game(done.id, 0, "finished", GameResult(Ending.RULES, (0,)), now=2.0)
    assert await repo.live_games_of_user(ALICE.id) == [mine, asked]
    assert await repo.live_games_of_user(ALICE.id, limit=1) == [mine]
    assert [g.id for g in await repo.live_games_of_user(CAROL.id)] == [theirs.id]
    await repo.close_game(mine.id, 0, "aborted", GameResult(Ending.ADMIN), now=3.0)
    assert await repo.live_games_of_user(ALICE.id) == [asked]


async def _finish(repo: GameRepository, new: NewGame, at: float, status: Status) -> int:
    game = await repo.create_game(new, now=at - 1)
    await repo.close_game(game.id, 0, status, GameResult(Ending.RULES, (0,)), now=at)
    return game.id


async def test_finished_games_pages_newest_first(repo: PgGameRepository) -> None:
    ends = [3.0, 1.0, 2.0, 2.0, 5.0, 4.0]
    ids = [await _finish(repo, new_game(i), at, "finished") for i, at in enumerate(ends)]
    aborted = await _finish(repo, new_game(20), 6.0, "aborted")
    await _finish(repo, new_game(21), 7.0, "declined")  # declined: not a played game
    await repo.create_game(new_game(22), now=1.0)  # still live
    newest_first = [aborted, ids[4], ids[5], ids[0], ids[3], ids[2], ids[1]]

    async def page(**cut: int) -> list[int]:
        return [g.id for g in await repo.finished_games(GUILD, None, None, 3, **cut)]

    assert await page() == newest_first[0:3]
    assert await page(older_than=newest_first[2]) == newest_first[3:6]
    assert await page(older_than=newest_first[5]) == newest_first[6:]
    assert await page(older_than=newest_first[6]) == []
    assert await page(newer_than=newest_first[6]) == newest_first[3:6]
    assert await page(newer_than=newest_first[1]) == newest_first[0:1]
    # Two games that ended at once are told apart by their ids, both ways.
    assert await page(older_than=ids[3]) == [ids[2], ids[1]]
    assert await page(newer_than=ids[2]) == [aborted, ids[4], ids[5], ids[0], ids[3]][-3:]
    [first] = await repo.finished_games(GUILD, None, None, 1)
    assert first == await repo.get_game(aborted)


async def test_finished_games_of_a_player_of_a_game_in_direct_messages(
    repo: PgGameRepository,
) -> None:
    direct = await _finish(repo, new_game(1, guild_id=None), 1.0, "finished")
    direct_bob = await _finish(
        repo, new_game(2, guild_id=None, seats=((BOB, True), (CAROL, True))), 2.0, "finished"
    )
    direct_other_game = await _finish(repo, new_game(3, guild_id=None, game="tak"), 3.0, "aborted")
    in_guild = await _finish(repo, new_game(4), 4.0, "finished")
    await _finish(repo, new_game(5, guild_id=None, kind="daily"), 5.0, "finished")
    both_seats = await _finish(
        repo, new_game(6, guild_id=None, seats=((CAROL, True), (CAROL, True))), 6.0, "finished"
    )

    async def ids(guild: int | None, user: int | None, game: str | None) -> list[int]:
        return [g.id for g in await repo.finished_games(guild, user, game, 10)]

    assert await ids(None, None, None) == [both_seats, direct_other_game, direct_bob, direct]
    assert await ids(None, ALICE.id, None) == [direct_other_game, direct]
    assert await ids(None, CAROL.id, None) == [both_seats, direct_bob]
    assert await ids(None, None, "tak") == [direct_other_game]
    assert await ids(None, ALICE.id, "hokito") == [direct]
    assert await ids(None, CAROL.id, "tak") == []
    assert await ids(GUILD, None, None) == [in_guild]
    assert await ids(GUILD + 1, None, None) == []
    older = await repo.finished_games(None, CAROL.id, None, 10, older_than=both_seats)
    assert [g.id for g in older] == [direct_bob]


async def test_finished_in_order_and_unrated(repo: PgGameRepository, db: PgDatabase) -> None:
    late = await _finish(repo, new_game(1), 9.0, "finished")
    early = await _finish(repo, new_game(2, guild_id=None), 3.0, "finished")
    tie = await _finish(repo, new_game(3), 3.0, "finished")
    await _finish(repo, new_game(4), 1.0, "aborted")
    await _finish(repo, new_game(5, kind="daily"), 1.0, "finished")
    assert [g.id for g in await finished_in_order(db)] == [early, tie, late]
    assert [g.id for g in await unrated_finished(db, 2)] == [early, tie]
    await db.execute("UPDATE games SET rated_at = 10.0 WHERE id = $1", (early,))
    assert [g.id for g in await unrated_finished(db, 5)] == [tie, late]
    assert [g.id for g in await finished_in_order(db)] == [early, tie, late]
    assert (await unrated_finished(db, 1))[0] == await repo.get_game(tie)


async def test_games_without_an_end_time_sort_as_on_sqlite(db: PgDatabase, tmp_path: Path) -> None:
    """A finished game whose end time is missing sorts as SQLite sorts NULL: before every
    other in finishing order."""
    sqlite = await Database.open(tmp_path / "same.sqlite3")
    try:
        on_pg, on_sqlite = PgGameRepository(db), SqliteGameRepository(sqlite)
        for repository in (on_pg, on_sqlite):
            for i, at in enumerate([2.0, 4.0, 3.0, 1.0]):
                await _finish(repository, new_game(i), at, "finished")
        await db.execute("UPDATE games SET finished_at = NULL WHERE id IN (2, 3)")
        await sqlite.write("UPDATE games SET finished_at = NULL WHERE id IN (2, 3)")
        pg_order = [g.id for g in await finished_in_order(db)]
        lite_order = [g.id for g in await sqlite_games.finished_in_order(sqlite)]
        assert pg_order == lite_order == [2, 3, 4, 1]
        pg_unrated = [g.id for g in await unrated_finished(db, 3)]
        lite_unrated = [g.id for g in await sqlite_games.unrated_finished(sqlite, 3)]
        assert pg_unrated == lite_unrated == [2, 3, 4]
    finally:
        await sqlite.close()


# --- settings and follows ---------------------------------------------------------------


async def test_settings_round_trip(repo: PgGameRepository, db: PgDatabase) -> None:
    assert await repo.settings("guild", GUILD) == {}
    assert await repo.settings("user", ALICE.id) == {}
    await repo.change_settings("guild", GUILD, {("timeout",): 3600, ("nested",): {"b": [1, 2]}})
    await repo.change_settings("user", GUILD, {("dm",): False})
    assert await repo.settings("guild", GUILD) == {"timeout": 3600, "nested": {"b": [1, 2]}}
    assert await repo.settings("user", GUILD) == {"dm": False}
    await repo.change_settings("guild", GUILD, {("timeout",): 60})
    assert await repo.settings("guild", GUILD) == {"timeout": 60, "nested": {"b": [1, 2]}}
    assert await repo.settings("guild", GUILD + 1) == {}
    await db.execute("UPDATE user_settings SET settings = '[1, 2]' WHERE user_id = $1", (GUILD,))
    assert await repo.settings("user", GUILD) == {}  # not an object: as if none were saved


async def test_follows(repo: PgGameRepository) -> None:
    game = await repo.create_game(new_game(), now=1.0)
    other = await repo.create_game(new_game(11), now=1.0)
    caroline = UserRecord(CAROL.id, "caroline")
    assert await repo.followers(game.id) == []
    await repo.follow(game.id, CAROL, True)
    await repo.follow(game.id, caroline, True)  # twice: followed once, by the last name
    await repo.follow(game.id, BOB, True)
    await repo.follow(other.id, caroline, True)
    assert await repo.followers(game.id) == [BOB, caroline]
    await repo.follow(game.id, BOB, False)
    await repo.follow(game.id, BOB, False)  # not following: nothing to do
    assert await repo.followers(game.id) == [caroline]
    assert await repo.followers(other.id) == [caroline]


# --- an unreachable server --------------------------------------------------------------


async def test_a_stopped_server_is_unavailable_and_then_back() -> None:
    with PostgresServer() as own:
        url = own.create_database("games")
        db = await PgDatabase.open(url, size=2)
        try:
            repo = PgGameRepository(db)
            game = await repo.create_game(new_game(), now=1.0)
            await asyncio.to_thread(own.stop_server, "fast")
            with pytest.raises(DatabaseUnavailableError):
                await repo.get_game(game.id)
            with pytest.raises(DatabaseUnavailableError):
                await repo.append_move(game.id, 0, 0, ALICE.id, "a", "s1", now=2.0)
            with pytest.raises(DatabaseUnavailableError):
                await repo.create_game(new_game(11), now=2.0)
            with pytest.raises(DatabaseUnavailableError):
                await PgConsoleRepository(db).remember("general", None, [("a", "A")])
            await asyncio.to_thread(own.start_server)
            deadline = time.monotonic() + PATIENCE
            while True:  # connections broken by the stop are replaced
                try:
                    await repo.append_move(game.id, 0, 0, ALICE.id, "a", "s1", now=3.0)
                    break
                except DatabaseUnavailableError as exc:
                    if time.monotonic() > deadline:
                        said = f"the server is back, its database not: {exc}"
                        raise AssertionError(said) from exc
                    await asyncio.sleep(0.1)
            back = await repo.get_game(game.id)
            assert back is not None and (back.ply, back.snapshot) == (1, "s1")
        finally:
            await db.close()


# --- the console's memory ---------------------------------------------------------------


async def test_console_buttons_newest_for_each_audience(db: PgDatabase) -> None:
    console = PgConsoleRepository(db)
    assert await console.visible("general", "ann") == []
    await console.remember("general", None, [("accept:1", "Accept"), ("decline:1", "Decline")])
    await console.remember("general", "ann", [("move:1:a1", "a1")])
    await console.remember("other", None, [("x", "X")])
    assert await console.visible("general", "ann") == [("move:1:a1", "a1")]
    assert await console.visible("general", "bob") == [
        ("accept:1", "Accept"),
        ("decline:1", "Decline"),
    ]
    await console.remember("general", None, [("rematch:1", "Rematch")])  # newer than ann's
    assert await console.visible("general", "ann") == [("rematch:1", "Rematch")]
    await console.remember("general", None, [])
    assert await console.visible("general", "ann") == []
    assert await console.visible("other", "ann") == [("x", "X")]


async def test_console_showings_in_two_processes_are_told_apart(
    db: PgDatabase, other_db: PgDatabase
) -> None:
    consoles = [PgConsoleRepository(db), PgConsoleRepository(other_db)]
    await asyncio.gather(
        *(
            consoles[i % 2].remember(f"c{i}", None if i % 2 else f"u{i}", [(f"p{i}", "L")])
            for i in range(30)
        )
    )
    shown = [r[0] for r in await db.fetch("SELECT shown FROM console_buttons")]
    assert len(shown) == len(set(shown)) == 30
    assert sorted(shown) == list(range(1, 31))


async def test_console_channel_names(db: PgDatabase) -> None:
    console = PgConsoleRepository(db)
    assert await console.channel_names([2**62, 7]) == {}
    await console.name_channel(2**62, "general")
    await console.name_channel(7, "lobby")
    await console.name_channel(7, "hall")
    assert await console.channel_names([2**62, 7, 8]) == {2**62: "general", 7: "hall"}
    assert await console.channel_names([7]) == {7: "hall"}


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE console_buttons SET buttons = '[[\"accept:1\"'",
        "UPDATE console_buttons SET buttons = '[[\"accept:1\", 2]]'",
        "UPDATE console_buttons SET buttons = '{\"a\": 1}'",
    ],
)
async def test_a_damaged_button_is_a_console_memory_error(db: PgDatabase, damage: str) -> None:
    console = PgConsoleRepository(db)
    await console.remember("general", None, [("accept:1", "Accept")])
    await db.execute(damage)
    with pytest.raises(ConsoleMemoryError):
        await console.visible("general", "ann")


async def test_a_missing_memory_is_a_console_memory_error(db: PgDatabase) -> None:
    console = PgConsoleRepository(db)
    await db.execute("DROP TABLE console_buttons")
    await db.execute("DROP TABLE console_channels")
    with pytest.raises(ConsoleMemoryError):
        await console.remember("general", None, [("a", "A")])
    with pytest.raises(ConsoleMemoryError):
        await console.visible("general", "ann")
    with pytest.raises(ConsoleMemoryError):
        await console.name_channel(1, "general")
    with pytest.raises(ConsoleMemoryError):
        await console.channel_names([7])


async def test_the_console_remembers_as_on_sqlite(db: PgDatabase, tmp_path: Path) -> None:
    sqlite = await Database.open(tmp_path / "console.sqlite3")
    try:
        answers = []
        for console in (PgConsoleRepository(db), SqliteConsoleRepository(sqlite)):
            await console.remember("a", None, [("1", "one")])
            await console.remember("a", "u", [("2", "two")])
            await console.remember("b", "u", [("3", "three")])
            await console.remember("a", None, [("4", "four"), ("5", "five")])
            await console.name_channel(3, "b")
            answers.append(
                [
                    await console.visible(channel, user)
                    for channel in ("a", "b", "c")
                    for user in ("u", "v")
                ]
                + [await console.channel_names([3, 7])]
            )
        assert answers[0] == answers[1]
    finally:
        await sqlite.close()
