"""The PostgreSQL daily and ratings repositories on a throwaway server: every method, the
same results as the SQLite repositories on the same operations, and the rules that must
hold when several processes (pools) act at once."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import pytest

import data.postgresql.games as pg_games
import data.sqlite.games as lite_games
from data.daily import BoardRow, DailyRepository
from data.postgresql.daily import PgDailyRepository
from data.postgresql.db import PgDatabase
from data.postgresql.ratings import PgRatingRepository
from data.ratings import GLOBAL, RatingRepository, Skill, ToRate
from data.repository import NewGame, UserRecord
from data.results import Ending, GameResult
from data.sqlite.daily import SqliteDailyRepository
from data.sqlite.db import Database
from data.sqlite.ratings import SqliteRatingRepository
from tests.postgres_server import PostgresServer
from tests.waiting import PATIENCE

ALICE = UserRecord(1, "alice")
BOB = UserRecord(2, "bob")
CAROL = UserRecord(3, "carol")
DAVE = UserRecord(4, "dave")
ERIN = UserRecord(5, "erin")
GUILD = 50
OTHER_GUILD = 60


# --- servers, databases and backends ------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    with PostgresServer() as running:
        yield running


@pytest.fixture
async def pg_url(server: PostgresServer) -> AsyncIterator[str]:
    name = f"t_{uuid.uuid4().hex[:16]}"
    url = await server.create_database_async(name)
    yield url
    await server.drop_database_async(name)


@pytest.fixture
async def pg(pg_url: str) -> AsyncIterator[PgDatabase]:
    db = await PgDatabase.open(pg_url, size=4)  # migrates the empty database
    yield db
    await db.close()


@pytest.fixture
async def pg2(pg_url: str, pg: PgDatabase) -> AsyncIterator[PgDatabase]:
    """A second process's pool on the same database."""
    db = await PgDatabase.open(pg_url, size=4)
    yield db
    await db.close()


@pytest.fixture
async def lite(tmp_path: Path) -> AsyncIterator[Database]:
    db = await Database.open(tmp_path / "reference.sqlite3")
    yield db
    await db.close()


@dataclass
class Backend:
    """One database's repositories, with what the tests need beyond them."""

    daily: DailyRepository
    ratings: RatingRepository
    #: Insert a game and its seats; its id.
    insert: Callable[[NewGame, float], Awaitable[int]]
    #: Finish a game at a time.
    finish: Callable[[int, float], Awaitable[None]]
    #: The one value of a query without parameters.
    value: Callable[[str], Awaitable[Any]]


def pg_backend(db: PgDatabase) -> Backend:
    async def insert(new: NewGame, now: float) -> int:
        async with db.transaction() as conn:
            return await pg_games.insert_game(conn, new, now)

    async def finish(game_id: int, at: float) -> None:
        await db.execute(
            "UPDATE games SET status = 'finished', finished_at = $1, updated_at = $1,"
            " result = '{}' WHERE id = $2",
            (at, game_id),
        )

    async def value(sql: str) -> Any:
        return (await db.fetch(sql))[0][0]

    return Backend(PgDailyRepository(db), PgRatingRepository(db), insert, finish, value)


def lite_backend(db: Database) -> Backend:
    async def insert(new: NewGame, now: float) -> int:
        async with db.transaction() as conn:
            return await lite_games.insert_game(conn, new, now)

    async def finish(game_id: int, at: float) -> None:
        await db.write(
            "UPDATE games SET status = 'finished', finished_at = ?, updated_at = ?,"
            " result = '{}' WHERE id = ?",
            (at, at, game_id),
        )

    async def value(sql: str) -> Any:
        return (await db.fetch(sql))[0][0]

    return Backend(SqliteDailyRepository(db), SqliteRatingRepository(db), insert, finish, value)


async def race(url: str, lock: str, *calls: Callable[[], Coroutine[Any, Any, Any]]) -> list[Any]:
    """Run `calls` at once while another session holds the lock that `lock` takes, and let
    it go only once every call waits for a lock: each has gone as far as it can before
    any of them goes further. Their results, in order."""
    holder = await asyncpg.connect(url)
    watcher = await asyncpg.connect(url)
    try:
        held = holder.transaction()
        await held.start()
        await holder.execute(lock)
        tasks = [asyncio.create_task(call()) for call in calls]
        try:
            deadline = time.monotonic() + PATIENCE
            while not any(task.done() for task in tasks):
                waiting = await watcher.fetchval(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND wait_event_type = 'Lock'"
                )
                if waiting >= len(calls):
                    break
                assert time.monotonic() < deadline, f"{waiting} of {len(calls)} calls waited"
                await asyncio.sleep(0.01)
        finally:
            await held.rollback()
        return list(await asyncio.gather(*tasks))
    finally:
        await holder.close()
        await watcher.close()


# --- daily ---------------------------------------------------------------------------

D1, D2, D3, D4 = "2024-03-04", "2024-03-05", "2024-03-11", "2024-03-12"
W1, W2 = "2024-W10", "2024-W11"


def daily(user: UserRecord) -> NewGame:
    return NewGame(
        game="hillbert",
        guild_id=None,
        channel_id=None,
        status="active",
        seed=7,
        variant=None,
        rules_version=1,
        start_position=None,
        snapshot="start",
        created_by=user,
        seats=((user, True),),
        kind="daily",
    )


def tied(rows: list[BoardRow]) -> tuple[list[int], list[BoardRow]]:
    """A board whose order among exact ties is not defined: its ranks, and its rows by
    player with their positional rank left out."""
    return [r.rank for r in rows], sorted(
        (BoardRow(0, r.user_id, r.name, r.score, r.turns, r.best, r.runs) for r in rows),
        key=lambda r: r.user_id,
    )


async def daily_story(b: Backend) -> list[tuple[str, object]]:
    """Three days of runs, from start to leaderboards and par, and what each call gave."""
    repo = b.daily
    seen: list[tuple[str, object]] = []

    def note(label: str, value: object) -> None:
        seen.append((label, value))

    for user in (ALICE, BOB, CAROL, ALICE):
        await repo.note_member(GUILD, user)
    await repo.note_member(OTHER_GUILD, DAVE)
    note("members", await b.value("SELECT COUNT(*) FROM guild_members"))

    games: dict[tuple[int, str], int] = {}

    async def start(user: UserRecord, day: str, week: str, now: float) -> None:
        record, created = await repo.start_run(daily(user), user, day, week, now)
        games[user.id, day] = record.id
        seats = tuple((s.seat, s.user.id, s.accepted) for s in record.seats)
        note("start", (record.id, record.kind, record.status, record.ply, seats, created))

    for i, user in enumerate((ALICE, BOB, CAROL, DAVE, ERIN)):
        await start(user, D1, W1, 100.0 + i)
    await start(ALICE, D1, W1, 200.0)  # the same run again
    note("games", await b.value("SELECT COUNT(*) FROM games"))
    note("run_for", await repo.run_for(ALICE.id, D1))
    note("run_for none", await repo.run_for(ALICE.id, D2))
    note("run_by_game", await repo.run_by_game(games[BOB.id, D1]))
    note("run_by_game none", await repo.run_by_game(10_000))
    note("open before D2", await repo.open_runs_before(D2))
    note("open before D1", await repo.open_runs_before(D1))

    finish = repo.finish_run
    note("finish", await finish(games[ALICE.id, D1], 10, 5, "11233", 300.0))
    note("finish", await finish(games[BOB.id, D1], 10, 5, "12233", 301.0))
    note("finish", await finish(games[CAROL.id, D1], 10, 4, "1233", 302.0))
    note("finish", await finish(games[DAVE.id, D1], 7, 6, "112233", 303.0))
    note("finish twice", await finish(games[ALICE.id, D1], 99, 1, "9", 305.0))
    erin = games[ERIN.id, D1]
    result = GameResult(Ending.HILL_CLOSED, scores=(5,))
    note("close moved on", await repo.close_run(erin, 3, result, 5, 2, "12", 304.0))
    note("close", await repo.close_run(erin, 0, result, 5, 2, "12", 304.0))
    note("close twice", await repo.close_run(erin, 0, result, 6, 2, "12", 304.5))
    closed, _ = await repo.start_run(daily(ERIN), ERIN, D1, W1, 306.0)  # as it stands
    note("closed game", (closed.status, closed.result, closed.finished_at, closed.deadline_at))
    note("pending erin", await repo.pending_runs(ERIN.id))
    note("take erin", await repo.take_untold(ERIN.id))
    note("take erin again", await repo.take_untold(ERIN.id))
    note("pending erin after", await repo.pending_runs(ERIN.id))

    for i, user in enumerate((ALICE, BOB, CAROL)):
        await start(user, D2, W1, 350.0 + i)
    await finish(games[ALICE.id, D2], 12, 6, "112222", 400.0)
    await finish(games[BOB.id, D2], 12, 6, "111222", 400.0, unfinished=True)  # exact tie
    await finish(games[CAROL.id, D2], 12, 7, "1111222", 410.0)

    for i, user in enumerate((ALICE, BOB, CAROL, DAVE, ERIN)):
        await start(user, D3, W2, 450.0 + i)
    await finish(games[ALICE.id, D3], 3, 3, "123", 500.0)
    await finish(games[CAROL.id, D3], 15, 2, "15", 501.0)
    await finish(games[DAVE.id, D3], 18, 2, "18", 502.0)
    await finish(games[ERIN.id, D3], 17, 2, "17", 503.0)

    note("pending bob", await repo.pending_runs(BOB.id))
    note("take bob", await repo.take_untold(BOB.id))
    note("pending bob after", await repo.pending_runs(BOB.id))
    note("open before D4", await repo.open_runs_before(D4))
    note("open before D3", await repo.open_runs_before(D3))
    for user in (ALICE, BOB, CAROL, DAVE, ERIN):
        note("record", await repo.record_of(user.id))
        note("days played", await repo.days_played(user.id, 2))

    for scope in (None, GUILD, OTHER_GUILD, 999):
        for day in (D1, D3):
            note("day board", await repo.day_board(day, scope, 10))
            note("day board top 2", await repo.day_board(day, scope, 2))
        note("day board tied", tied(await repo.day_board(D2, scope, 10)))
        for period in ("all", W2):
            note("total board", await repo.total_board(period, scope, 10))
            note("total board top 3", await repo.total_board(period, scope, 3))
        note("total board tied", tied(await repo.total_board(W1, scope, 10)))
        for user in (ALICE, BOB, CAROL, DAVE, ERIN):
            for day in (D1, D2, D3, D4):
                note("day rank", await repo.day_rank(day, scope, user.id))
            for period in ("all", W1, W2, "2024-W12"):
                note("total rank", await repo.total_rank(period, scope, user.id))

    note("no par", await repo.get_par(D1))
    await repo.set_par(D1, 30, 8, 600.0, ("a1", "b2"))
    await repo.set_par(D1, 1, 1, 601.0, ("x",))  # the first store wins
    note("par", (await repo.get_par(D1), await repo.par_line(D1)))
    await repo.set_par(D2, 20, 5, 602.0)
    note("par without line", (await repo.get_par(D2), await repo.par_line(D2)))
    await repo.keep_par_line(D2, ("c3",))
    await repo.keep_par_line(D2, ("d4",))  # kept once
    await repo.keep_par_line(D3, ("e5",))  # no par: nothing
    note("kept line", (await repo.par_line(D2), await repo.par_line(D3), await repo.get_par(D3)))
    return seen


async def test_daily_gives_what_sqlite_gives(pg: PgDatabase, lite: Database) -> None:
    got = await daily_story(pg_backend(pg))
    want = await daily_story(lite_backend(lite))
    assert [label for label, _ in got] == [label for label, _ in want]
    for (label, mine), (_, theirs) in zip(got, want, strict=True):
        assert mine == theirs, label
    # The reference itself says what the rules are.
    found: dict[str, Any] = dict(got)
    assert found["games"] == 5
    assert found["finish twice"] is False and found["close twice"] is False
    assert found["close moved on"] is False and found["close"] is True
    assert found["closed game"][0] == "aborted"
    [taken] = found["take erin"]
    assert taken.untold and taken.unfinished and found["take erin again"] == []


async def test_boards_rank_ties_as_sqlite_does(pg: PgDatabase) -> None:
    await daily_story(pg_backend(pg))
    repo = PgDailyRepository(pg)
    # Same score: fewer turns first, then the earlier finish.
    board = await repo.day_board(D1, None, 10)
    assert [(r.rank, r.user_id) for r in board] == [(1, 3), (2, 1), (3, 2), (4, 4), (5, 5)]
    # A server's board has its members only; a rank there counts only them ahead.
    assert [r.user_id for r in await repo.day_board(D1, GUILD, 10)] == [3, 1, 2]
    rank = await repo.day_rank(D1, GUILD, DAVE.id)
    assert rank is not None and rank.rank == 4
    # An exact tie shares its rank.
    ranks = [await repo.day_rank(D2, None, u.id) for u in (ALICE, BOB, CAROL)]
    assert [r.rank if r else None for r in ranks] == [1, 1, 3]
    # Totals: the higher best run first, then the earlier last run.
    totals = await repo.total_board("all", None, 10)
    assert [(r.user_id, r.score, r.best, r.runs) for r in totals] == [
        (3, 37, 15, 3),
        (4, 25, 18, 2),
        (1, 25, 12, 3),
        (5, 22, 17, 2),
        (2, 22, 12, 2),
    ]
    ranks = [await repo.total_rank(W1, None, u.id) for u in (ALICE, BOB, CAROL)]
    assert [r.rank if r else None for r in ranks] == [1, 1, 3]
    assert await repo.total_rank(W2, None, BOB.id) is None


async def test_two_processes_starting_one_run_leave_one_run_and_one_game(
    pg: PgDatabase, pg2: PgDatabase
) -> None:
    first, second = PgDailyRepository(pg), PgDailyRepository(pg2)
    # Both read "no run yet" before either writes its game.
    results = await race(
        pg.url,
        "LOCK TABLE games IN EXCLUSIVE MODE",
        lambda: first.start_run(daily(ALICE), ALICE, D1, W1, 1.0),
        lambda: second.start_run(daily(ALICE), ALICE, D1, W1, 2.0),
    )
    (one, made_one), (two, made_two) = results
    assert sorted([made_one, made_two]) == [False, True]
    assert one == two
    assert [row[0] for row in await pg.fetch("SELECT id FROM games")] == [one.id]
    assert [row[0] for row in await pg.fetch("SELECT COUNT(*) FROM seats")] == [1]
    run = await first.run_for(ALICE.id, D1)
    assert run is not None and run.game_id == one.id


async def test_two_processes_finishing_one_run_record_it_once(
    pg: PgDatabase, pg2: PgDatabase
) -> None:
    first, second = PgDailyRepository(pg), PgDailyRepository(pg2)
    record, _ = await first.start_run(daily(ALICE), ALICE, D1, W1, 1.0)
    done = await race(
        pg.url,
        "LOCK TABLE daily_totals IN EXCLUSIVE MODE",
        lambda: first.finish_run(record.id, 10, 5, "11233", 2.0),
        lambda: second.finish_run(record.id, 10, 5, "11233", 3.0),
    )
    assert sorted(done) == [False, True]
    total = await first.total_rank("all", None, ALICE.id)
    assert total is not None and (total.score, total.runs) == (10, 1)


async def test_two_processes_taking_notices_hand_each_out_once(
    pg: PgDatabase, pg2: PgDatabase
) -> None:
    first, second = PgDailyRepository(pg), PgDailyRepository(pg2)
    for day, now in ((D3, 3.0), (D1, 1.0), (D2, 2.0)):
        record, _ = await first.start_run(daily(ALICE), ALICE, day, W1, now)
        assert await first.finish_run(record.id, 4, 2, "13", now + 0.5, unfinished=True)
    # Both look for the notices before either marks them told.
    taken = await race(
        pg.url,
        "LOCK TABLE daily_runs IN EXCLUSIVE MODE",
        lambda: first.take_untold(ALICE.id),
        lambda: second.take_untold(ALICE.id),
    )
    assert sorted(len(runs) for runs in taken) == [0, 3]
    runs = max(taken, key=len)
    assert [r.day for r in runs] == [D1, D2, D3] and all(r.untold for r in runs)
    assert await first.take_untold(ALICE.id) == []
    assert await second.pending_runs(ALICE.id) == []


async def test_exclusive_is_one_process_s_until_its_block_ends(
    pg: PgDatabase, pg2: PgDatabase
) -> None:
    first, second = PgDailyRepository(pg), PgDailyRepository(pg2)
    async with first.exclusive("daily:close") as mine:
        assert mine is True
        async with second.exclusive("daily:close") as theirs:
            assert theirs is False
        async with first.exclusive("daily:close") as again:
            assert again is False  # another connection of the same pool is refused too
        async with second.exclusive("daily:par") as other:
            assert other is True  # another name is free
    async with second.exclusive("daily:close") as theirs:
        assert theirs is True
        with pytest.raises(RuntimeError):
            async with first.exclusive("daily:close") as mine:
                assert mine is False
                raise RuntimeError("the work failed")
    with pytest.raises(RuntimeError):
        async with second.exclusive("daily:close") as theirs:
            assert theirs is True
            raise RuntimeError("the work failed")
    async with first.exclusive("daily:close") as mine:
        assert mine is True  # released by a block that raised


# --- ratings -------------------------------------------------------------------------

BOT_USER = UserRecord(99, "computer", is_bot=True)


class StepRater:
    """A small deterministic rating for the tests: each player moves by how surprising
    each pairwise result was, so the ratings after depend on those before."""

    start: Skill = (25.0, 8.0)

    def __call__(self, places: Mapping[int, int], before: Mapping[int, Skill]) -> dict[int, Skill]:
        after = {}
        for user, place in places.items():
            mu, sigma = before[user]
            step = 0.0
            for other, theirs in places.items():
                if other != user:
                    expected = 1 / (1 + 10 ** ((before[other][0] - mu) / 10))
                    actual = 1.0 if place < theirs else 0.5 if place == theirs else 0.0
                    step += sigma * (actual - expected) / 2
            after[user] = (mu + step, sigma * 0.9)
        return after


RATER = StepRater()


def channel_game(game: str, channel: int, players: tuple[UserRecord, ...]) -> NewGame:
    return NewGame(
        game=game,
        guild_id=GUILD,
        channel_id=channel,
        status="active",
        seed=1,
        variant=None,
        rules_version=1,
        start_position=None,
        snapshot="start",
        created_by=players[0],
        seats=tuple((p, True) for p in players),
    )


def outcomes(places: Mapping[int, int]) -> dict[int, Any]:
    best = min(places.values(), default=1)
    firsts = sum(1 for p in places.values() if p == best)
    return {
        u: ("win" if firsts == 1 else "draw") if p == best else "loss" for u, p in places.items()
    }


async def played(
    b: Backend,
    game: str,
    players: tuple[UserRecord, ...],
    places: dict[int, int],
    at: float,
    scopes: tuple[int, ...] = (GUILD, GLOBAL),
) -> ToRate:
    """A finished game in the database, as the rating sees it."""
    game_id = await b.insert(channel_game(game, int(at), players), at - 50)
    await b.finish(game_id, at)
    return ToRate(game_id, game, at, scopes, places, outcomes(places))


async def rating_story(b: Backend) -> list[tuple[str, object]]:
    """Games of two, three and four players in two servers, rated one by one, then
    recomputed, and every reading of them."""
    repo = b.ratings
    seen: list[tuple[str, object]] = []

    def note(label: str, value: object) -> None:
        seen.append((label, value))

    g1 = await played(b, "hokito", (ALICE, BOB), {1: 1, 2: 2}, 1001.0)
    g2 = await played(b, "hokito", (BOB, CAROL), {2: 1, 3: 2}, 1000.0)
    g3 = await played(b, "hokito", (ALICE, CAROL), {1: 1, 3: 1}, 1002.0)
    g4 = await played(b, "hokito", (ALICE, ERIN), {1: 1, 5: 2}, 1002.0)
    g5 = await played(b, "everest", (CAROL, ALICE, DAVE), {3: 1, 1: 2, 4: 2}, 1003.0)
    g6 = await played(b, "hokito", (ALICE, BOT_USER), {}, 1004.0)
    g7 = await played(b, "hokito", (DAVE, ERIN), {4: 1, 5: 1}, 1005.0, (OTHER_GUILD, GLOBAL))
    g8 = await played(b, "everest", (BOB, CAROL, DAVE, ERIN), {2: 1, 3: 2, 4: 3, 5: 4}, 1006.0)
    in_order = [g2, g1, g3, g4, g5, g6, g7, g8]

    note("unrated", [g.id for g in await repo.unrated_games(10)])
    note("unrated 3", [g.id for g in await repo.unrated_games(3)])
    note("finished in order", [g.id for g in await repo.finished_in_order()])
    for game in in_order:
        note("rate", await repo.rate(game, RATER, 2000.0))
    note("rate again", await repo.rate(g1, RATER, 2001.0))
    note("unrated after", await repo.unrated_games(10))
    note("rated_at", await b.value("SELECT COUNT(*) FROM games WHERE rated_at = 2000.0"))

    async def readings(label: str) -> None:
        for game, scope in (
            ("hokito", GUILD),
            ("hokito", GLOBAL),
            ("hokito", OTHER_GUILD),
            ("everest", GLOBAL),
            ("everest", GUILD),
            ("chess", GLOBAL),
        ):
            note(f"{label} table", await repo.table(game, scope, 10))
            note(f"{label} table top 2", await repo.table(game, scope, 2))
            for user in (ALICE, BOB, CAROL, DAVE, ERIN, BOT_USER):
                note(f"{label} standing", await repo.standing(game, scope, user.id))
        for user in (ALICE, BOB, CAROL, DAVE, ERIN):
            for scope in (GUILD, GLOBAL, OTHER_GUILD):
                note(f"{label} standings of", await repo.standings_of(user.id, scope))
                for game in ("hokito", "everest"):
                    note(f"{label} best win", await repo.best_win(user.id, scope, game))
                for other in (ALICE, BOB, CAROL, DAVE, ERIN):
                    note(f"{label} h2h", await repo.head_to_head(user.id, other.id, scope))
        for rated in in_order:
            note(f"{label} changes", await repo.changes_of(rated.game_id))

    await readings("rated")
    note("names", await repo.names([3, 1, 1, 99, 12345]))
    note("no names", await repo.names([]))
    note("recompute", await repo.recompute(in_order, RATER, 3000.0))
    note("rated_at recomputed", await b.value("SELECT COUNT(*) FROM games WHERE rated_at = 3000.0"))
    await readings("recomputed")
    return seen


async def test_ratings_give_what_sqlite_gives(pg: PgDatabase, lite: Database) -> None:
    got = await rating_story(pg_backend(pg))
    want = await rating_story(lite_backend(lite))
    assert [label for label, _ in got] == [label for label, _ in want]
    for (label, mine), (_, theirs) in zip(got, want, strict=True):
        assert mine == theirs, label
    found: dict[str, Any] = dict(got)
    assert found["rate again"] is None and found["recompute"] == 7
    # A recomputation from the same results gives the same tables and changes.
    for (label, rated), (_, recomputed) in zip(
        [(k, v) for k, v in got if k.startswith("rated ")],
        [(k, v) for k, v in got if k.startswith("recomputed ")],
        strict=True,
    ):
        assert rated == recomputed, label


async def test_ratings_read_as_sqlite_reads_them(pg: PgDatabase) -> None:
    b = pg_backend(pg)
    await rating_story(b)
    repo = b.ratings
    # Equal ratings and games: the lower user id first.
    table = await repo.table("hokito", OTHER_GUILD, 10)
    assert [(s.place, s.user_id, s.mu, s.games) for s in table] == [
        (1, DAVE.id, 25.0, 1),
        (2, ERIN.id, 25.0, 1),
    ]
    alice = await repo.standing("hokito", GLOBAL, ALICE.id)
    assert alice is not None and (alice.games, alice.wins, alice.draws, alice.losses) == (
        3,
        2,
        1,
        0,
    )
    assert alice.streak == 1 and alice.provisional and alice.name == "alice"
    # Head to head in a game of three: tied places are a draw between them.
    [everest] = [r for r in await repo.head_to_head(ALICE.id, DAVE.id, GLOBAL)]
    assert everest.last_outcome == "draw" and everest.game == "everest"
    assert (everest.wins, everest.draws, everest.losses) == (0, 1, 0)
    assert await repo.names([1, 3, 12345]) == {1: "alice", 3: "carol"}


def after_in_turn(*games: dict[int, int]) -> dict[int, Skill]:
    """Everyone's rating after `games`, rated one after the other."""
    skills: dict[int, Skill] = {}
    for places in games:
        before = {u: skills.get(u, RATER.start) for u in places}
        skills.update(RATER(places, before))
    return skills


async def test_two_processes_rating_games_of_one_player_lose_no_update(
    pg: PgDatabase, pg2: PgDatabase
) -> None:
    b = pg_backend(pg)
    won, lost = {1: 1, 2: 2}, {1: 2, 3: 1}
    first = await played(b, "hokito", (ALICE, BOB), won, 1000.0)
    second = await played(b, "hokito", (ALICE, CAROL), lost, 1001.0)
    in_turn = {after_in_turn(won, lost)[1], after_in_turn(lost, won)[1]}
    alone = {after_in_turn(won)[1], after_in_turn(lost)[1]}
    assert not in_turn & alone  # a lost update would show
    # Both would read Alice's rating before either writes its changes.
    changes = await race(
        pg.url,
        "LOCK TABLE rating_changes IN EXCLUSIVE MODE",
        lambda: PgRatingRepository(pg).rate(first, RATER, 2000.0),
        lambda: PgRatingRepository(pg2).rate(second, RATER, 2000.0),
    )
    assert all(found for found in changes)
    for scope in (GUILD, GLOBAL):
        alice = await b.ratings.standing("hokito", scope, ALICE.id)
        assert alice is not None and alice.games == 2
        assert (alice.mu, alice.sigma) in in_turn
    # The later game started from the earlier one's result.
    one, two = sorted(
        (c for found in changes for c in found if c.user_id == 1 and c.scope == GLOBAL),
        key=lambda c: c.before == RATER.start,
        reverse=True,
    )
    assert one.before == RATER.start and two.before == one.after


async def test_two_processes_rating_one_game_rate_it_once(pg: PgDatabase, pg2: PgDatabase) -> None:
    b = pg_backend(pg)
    game = await played(b, "hokito", (ALICE, BOB), {1: 1, 2: 2}, 1000.0)
    found = await race(
        pg.url,
        "LOCK TABLE rating_changes IN EXCLUSIVE MODE",
        lambda: PgRatingRepository(pg).rate(game, RATER, 2000.0),
        lambda: PgRatingRepository(pg2).rate(game, RATER, 2001.0),
    )
    assert [f is None for f in found].count(True) == 1
    assert len(await b.ratings.changes_of(game.game_id)) == 4  # two players, two scopes
    alice = await b.ratings.standing("hokito", GLOBAL, ALICE.id)
    assert alice is not None and alice.games == 1


async def waiting_for_a_lock(watcher: asyncpg.Connection, task: asyncio.Task[Any]) -> None:
    """Return once a session of this database waits for a lock (or `task` has ended)."""
    deadline = time.monotonic() + PATIENCE
    while not task.done():
        waiting = await watcher.fetchval(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        if waiting:
            return
        assert time.monotonic() < deadline, "nothing waited for a lock"
        await asyncio.sleep(0.01)


async def test_recomputing_while_the_sweep_saves_board_links_never_deadlocks(
    pg: PgDatabase, pg2: PgDatabase
) -> None:
    b = pg_backend(pg)
    # Two games that finished in the opposite order of their ids: the recomputation
    # rates them in the order they finished; the sweep saves links in the order of ids.
    first = await played(b, "hokito", (ALICE, BOB), {1: 1, 2: 2}, 2000.0)
    second = await played(b, "hokito", (ALICE, BOB), {1: 2, 2: 1}, 1000.0)
    assert first.game_id < second.game_id
    watcher = await asyncpg.connect(pg.url)
    try:
        async with pg2.transaction() as sweep:
            # The sweep (another process) has saved the first game's link, holding its
            # row, when the recomputation starts and comes to wait for that row...
            await sweep.execute(
                "UPDATE games SET board_message_id = 7 WHERE id = $1", first.game_id
            )
            recompute = asyncio.create_task(
                PgRatingRepository(pg).recompute([second, first], RATER, 3000.0)
            )
            await waiting_for_a_lock(watcher, recompute)
            # ...then saves the second game's link: the recomputation holds nothing it
            # needs (rather than PostgreSQL finding a deadlock and failing one of them).
            await asyncio.wait_for(
                sweep.execute(
                    "UPDATE games SET board_message_id = 8 WHERE id = $1", second.game_id
                ),
                timeout=30,
            )
        assert await asyncio.wait_for(recompute, timeout=30) == 2
    finally:
        await watcher.close()
    stored = await pg.fetch("SELECT board_message_id, rated_at FROM games ORDER BY id")
    assert [tuple(row) for row in stored] == [(7, 3000.0), (8, 3000.0)]
