"""The change feed of each backend: every committed change to a game a viewer sees is
announced with the game's id, and nothing else is.

Nothing here waits for a fixed time: a test waits for what it expects to hear. That
something was not announced is shown by a later change (to a marker game) arriving
first: changes are announced in the order they commit.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

import asyncpg
import pytest

from data.copy import copy_database
from data.postgresql.feed import APPLICATION
from data.repository import (
    ChangeFeed,
    GameRecord,
    HandOver,
    LiveGameExistsError,
    NewGame,
    StalePlyError,
    Status,
    Timer,
    UserRecord,
)
from data.results import Ending, GameResult
from data.storage import Storage, open_storage

ALICE = UserRecord(1, "alice")
BOB = UserRecord(2, "bob")
CAROL = UserRecord(3, "carol")
COMPUTER = UserRecord(99, "hilltop", is_bot=True)
#: Seconds to wait for what must come: far beyond what it takes on a loaded machine.
WAIT = 30.0

Heard = int | None


def new_game(
    channel: int | None,
    status: Status = "active",
    *,
    seats: tuple[tuple[UserRecord, bool], ...] = ((ALICE, True), (BOB, True)),
    kind: str = "channel",
    timer: Timer | None = None,
) -> NewGame:
    return NewGame(
        game="hokito",
        guild_id=5 if kind == "channel" else None,
        channel_id=channel,
        status=status,
        seed=42,
        variant=None,
        rules_version=1,
        start_position=None,
        snapshot="start",
        created_by=ALICE,
        seats=seats,
        options={"level": "easy"},
        kind=kind,  # type: ignore[arg-type]
        timer=timer,
    )


class Listener:
    """What one subscriber hears, in order."""

    def __init__(self, feed: ChangeFeed) -> None:
        self.heard: asyncio.Queue[Heard] = asyncio.Queue()
        self.unsubscribe = feed.subscribe(self.heard.put_nowait)

    async def next(self) -> Heard:
        return await asyncio.wait_for(self.heard.get(), WAIT)

    async def until(self, game_id: int) -> list[Heard]:
        """Everything heard up to and with `game_id`."""
        heard = [await self.next()]
        while heard[-1] != game_id:
            heard.append(await self.next())
        return heard

    def nothing_more(self) -> bool:
        return self.heard.empty()


async def listening(storage: Storage) -> Listener:
    """A subscriber to `storage`'s feed, once the feed listens: a PostgreSQL feed says
    so (None: what changed before may have been missed); SQLite's misses nothing."""
    listener = Listener(storage.changes)
    if storage.backend == "postgresql":
        assert await listener.next() is None
    return listener


async def marker(storage: Storage, channel: int = 999) -> GameRecord:
    """A new game: once it is heard, whatever was announced before it has been."""
    return await storage.games.create_game(new_game(channel), now=50.0)


async def test_a_committed_move_is_announced_with_its_game(storage: Storage) -> None:
    listener = await listening(storage)
    game = await storage.games.create_game(new_game(10), now=1.0)
    assert await listener.until(game.id) == [game.id]
    await storage.games.append_move(game.id, 0, 0, ALICE.id, "c2-e4", "s1", now=2.0)
    assert await listener.until(game.id) == [game.id]
    await storage.games.append_move(
        game.id, 1, 1, BOB.id, "x", "end", now=3.0, result=GameResult(Ending.RULES, (1,))
    )
    assert await listener.until(game.id) == [game.id]
    assert listener.nothing_more()


async def test_writes_sent_at_once_are_each_announced_and_a_refused_one_among_them_is_not(
    storage: Storage,
) -> None:
    # Single statements go to the database several at a time: each that commits is
    # announced, whichever of them fails.
    games = [await storage.games.create_game(new_game(20 + n), now=1.0) for n in range(6)]
    listener = await listening(storage)
    refused = games[2].id
    results = await asyncio.gather(
        *(
            storage.games.append_move(
                g.id, 5 if g.id == refused else 0, 0, ALICE.id, "c2-e4", "s1", now=2.0
            )
            for g in games
        ),
        return_exceptions=True,
    )
    assert [isinstance(r, StalePlyError) for r in results] == [g.id == refused for g in games]
    last = await marker(storage)
    heard = await listener.until(last.id)
    assert sorted(h for h in heard if h != last.id) == sorted(
        g.id for g in games if g.id != refused
    )


async def test_refused_and_rolled_back_writes_announce_nothing(storage: Storage) -> None:
    games = storage.games
    game = await games.create_game(new_game(10), now=1.0)
    challenge = await games.create_game(new_game(11, "challenge"), now=1.0)
    run, _ = await storage.daily.start_run(
        new_game(None, kind="daily", seats=((CAROL, True),)), CAROL, "2024-05-01", "2024-W18", 1.0
    )
    listener = await listening(storage)

    with pytest.raises(StalePlyError):
        await games.append_move(game.id, 5, 0, ALICE.id, "c2-e4", "s1", now=2.0)
    with pytest.raises(StalePlyError):
        await games.accept_seat(game.id, 1, now=2.0)  # not a challenge
    with pytest.raises(StalePlyError):
        await games.close_game(
            game.id,
            3,
            "finished",
            GameResult(Ending.RESIGNED, by=(0,)),
            now=2.0,
            hand_over=HandOver((0,), COMPUTER, {"level": "hard"}),
        )
    with pytest.raises(LiveGameExistsError):
        await games.create_game(new_game(11), now=2.0)
    assert not await games.mark_expired(game.id, 0, now=2.0)  # no deadline running
    # The run's game is ended, then the whole transaction rolled back: its run had
    # been recorded already.
    assert await storage.daily.finish_run(run.id, 3, 2, "12", now=2.0)
    assert not await storage.daily.close_run(
        run.id, 0, GameResult(Ending.HILL_CLOSED, scores=(3,)), 3, 2, "12", now=2.0
    )

    mark = await marker(storage)
    assert await listener.until(mark.id) == [mark.id]
    for changed in (game.id, challenge.id, run.id):
        stored = await games.get_game(changed)
        assert stored is not None and stored.status != "aborted" and stored.ply == 0


async def test_new_games_and_each_change_a_viewer_sees_are_announced(storage: Storage) -> None:
    games = storage.games
    listener = await listening(storage)
    three = ((ALICE, True), (BOB, False), (CAROL, False))
    challenge = await games.create_game(new_game(10, "challenge", seats=three), now=1.0)
    assert await listener.until(challenge.id) == [challenge.id]
    # One seat of two accepts: the game's row is untouched, its seat changed.
    await games.accept_seat(challenge.id, 1, now=2.0)
    assert await listener.until(challenge.id) == [challenge.id]
    started = await games.accept_seat(challenge.id, 2, now=3.0, timer=Timer(3.0, 100.0))
    assert started.status == "active"
    assert await listener.until(challenge.id) == [challenge.id]
    assert await games.mark_expired(challenge.id, 0, now=200.0)
    assert await listener.until(challenge.id) == [challenge.id]
    await games.replace_seats(challenge.id, (2,), COMPUTER, {"level": "hard"})
    assert await listener.until(challenge.id) == [challenge.id]
    await games.close_game(challenge.id, 0, "aborted", None, now=201.0)
    assert await listener.until(challenge.id) == [challenge.id]

    declined = await games.create_game(new_game(11, "challenge"), now=4.0)
    assert await listener.until(declined.id) == [declined.id]
    await games.close_game(declined.id, 0, "declined", None, now=5.0, only_from=("challenge",))
    assert await listener.until(declined.id) == [declined.id]

    run, created = await storage.daily.start_run(
        new_game(None, kind="daily", seats=((CAROL, True),)), CAROL, "2024-05-01", "2024-W18", 6.0
    )
    assert created and await listener.until(run.id) == [run.id]
    assert await storage.daily.close_run(
        run.id, 0, GameResult(Ending.HILL_CLOSED, scores=(3,)), 3, 2, "12", now=7.0
    )
    assert await listener.until(run.id) == [run.id]
    assert listener.nothing_more()


async def test_bookkeeping_alone_is_not_announced(storage: Storage) -> None:
    games = storage.games
    game = await games.create_game(new_game(10, timer=Timer(1.0, 100.0, 50.0)), now=1.0)
    listener = await listening(storage)
    assert await games.set_reminder(game.id, 0, 50.0, 75.0)
    await games.set_board_messages({game.id: 1234})
    await games.follow(game.id, CAROL, True)
    await games.change_settings("user", ALICE.id, {("threads",): True})
    await storage.database.write(f"UPDATE games SET rated_at = 9.0 WHERE id = {game.id}")
    # A statement that sets what a viewer sees to what it was changes nothing.
    await storage.database.write(
        f"UPDATE games SET status = status, snapshot = snapshot WHERE id = {game.id}"
    )
    mark = await marker(storage)
    assert await listener.until(mark.id) == [mark.id]


async def test_unsubscribing_stops_what_a_listener_hears(storage: Storage) -> None:
    staying = await listening(storage)
    leaving = Listener(storage.changes)  # the feed listens already: it misses nothing
    game = await storage.games.create_game(new_game(10), now=1.0)
    assert await leaving.until(game.id) == [game.id]
    leaving.unsubscribe()
    leaving.unsubscribe()  # twice: nothing more happens
    await storage.games.append_move(game.id, 0, 0, ALICE.id, "c2-e4", "s1", now=2.0)
    mark = await marker(storage)
    assert await staying.until(mark.id) == [game.id, game.id, mark.id]
    assert leaving.nothing_more()


async def test_a_listener_that_raises_does_not_silence_the_others(
    storage: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(_game_id: int | None) -> None:
        raise RuntimeError("a page that went away")

    storage.changes.subscribe(broken)
    listener = await listening(storage)
    first = await storage.games.create_game(new_game(10), now=1.0)
    second = await storage.games.create_game(new_game(11), now=1.0)
    assert await listener.until(second.id) == [first.id, second.id]
    assert "a listener of the change feed failed" in caplog.text
    assert any(r.levelno == logging.ERROR for r in caplog.records)


async def test_sqlite_announces_from_its_writer_alone(sqlite_storage: Storage) -> None:
    """The triggers that note changes are the writer connection's own: another
    connection to the file (a tool, an older bot) writes games without them."""
    game = await sqlite_storage.games.create_game(new_game(10), now=1.0)
    other = sqlite3.connect(sqlite_storage.target)
    try:
        other.execute("UPDATE games SET status = 'aborted' WHERE id = ?", (game.id,))
        other.commit()
        assert not other.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%announce%'"
        ).fetchall()
    finally:
        other.close()


async def test_sqlite_work_done_at_once_in_the_writer_is_all_or_nothing(
    sqlite_storage: Storage,
) -> None:
    db = sqlite_storage.database
    listener = await listening(sqlite_storage)
    game = await sqlite_storage.games.create_game(new_game(10), now=1.0)
    assert await listener.until(game.id) == [game.id]

    def half_done(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE games SET status = 'aborted' WHERE id = ?", (game.id,))
        raise RuntimeError("a fault after the first statement")

    with pytest.raises(RuntimeError):
        await db.atomic(half_done)
    [row] = await db.fetch("SELECT status FROM games WHERE id = ?", (game.id,))
    assert row["status"] == "active"
    # Nothing was announced of it: the next change heard is the marker's.
    last = await marker(sqlite_storage)
    assert await listener.until(last.id) == [last.id]


# --- PostgreSQL: several processes, one connection that may be lost ------------------


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_change_by_another_process_is_heard(storage: Storage) -> None:
    listener = await listening(storage)
    other = await open_storage(storage.target)
    try:
        game = await other.games.create_game(new_game(10), now=1.0)
        await other.games.append_move(game.id, 0, 0, ALICE.id, "c2-e4", "s1", now=2.0)
    finally:
        await other.close()
    assert await listener.until(game.id) == [game.id]
    assert await listener.until(game.id) == [game.id]


async def _listening_backends(storage: Storage) -> list[int]:
    rows = await storage.database.fetch(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
        f" AND application_name LIKE '{APPLICATION} %'"
    )
    return [row["pid"] for row in rows]


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_process_that_never_subscribes_opens_no_connection(storage: Storage) -> None:
    assert await _listening_backends(storage) == []
    await listening(storage)
    assert len(await _listening_backends(storage)) == 1
    Listener(storage.changes)  # a second subscriber shares the connection
    assert len(await _listening_backends(storage)) == 1


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_the_feed_listens_again_after_losing_its_connection(storage: Storage) -> None:
    listener = await listening(storage)
    game = await storage.games.create_game(new_game(10), now=1.0)
    assert await listener.until(game.id) == [game.id]
    [pid] = await _listening_backends(storage)
    killer = await asyncpg.connect(storage.target)
    try:
        assert await killer.fetchval("SELECT pg_terminate_backend($1)", pid)
    finally:
        await killer.close()
    # Whatever changed meanwhile may have been missed: every game may have changed.
    assert await listener.next() is None
    [again] = await _listening_backends(storage)
    assert again != pid
    await storage.games.append_move(game.id, 0, 0, ALICE.id, "c2-e4", "s1", now=2.0)
    assert await listener.until(game.id) == [game.id]


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_copy_into_the_database_announces_nothing(storage: Storage, tmp_path: Path) -> None:
    """A database being filled by a copy has nothing to show yet: its games are not
    announced one by one."""
    source = await open_storage(tmp_path / "source.sqlite3")
    try:
        copied = [await source.games.create_game(new_game(c), now=1.0) for c in (10, 11)]
    finally:
        await source.close()
    listener = await listening(storage)
    copied_rows, compared = await copy_database(tmp_path / "source.sqlite3", storage.target)
    assert copied_rows and all(table.same for table in compared)
    mark = await marker(storage)
    assert mark.id not in {game.id for game in copied}
    assert await listener.until(mark.id) == [mark.id]
