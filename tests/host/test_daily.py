"""The daily challenge through the service, on a real database of each backend, with a fixed
clock."""

from __future__ import annotations

import asyncio
import io
import os
import threading
from collections.abc import AsyncIterator
from concurrent.futures.process import BrokenProcessPool
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from PIL import Image

from data.daily import DailyRepository
from data.repository import NewGame, UserRecord
from data.results import Ending, GameResult
from data.storage import Storage, open_storage
from engine.hillbert import new_hill
from engine.hillbert_par import DEFAULT_MAX_TURNS, ParResult, greedy_move, par
from host.daily.calendar import iso_week, next_rollover, streak_of
from host.daily.par import ParRunner, ProcessParRunner
from host.daily.results import size_legend, size_strip
from host.daily.service import DailyService
from host.model import Channel, Reply, ServiceError, User, offered_move
from host.service import GameService
from tests.host.conftest import ALICE, BOB, BOT, HERE
from tests.houses import house_of
from tests.waiting import until

NOON = datetime(2026, 11, 22, 12, 0, tzinfo=UTC).timestamp()
DAY, NEXT_DAY = "2026-11-22", "2026-11-23"


def at(day: int, hour: int, minute: int) -> float:
    return datetime(2026, 11, day, hour, minute, tzinfo=UTC).timestamp()


PAR = (40, 120)
OTHER_SERVER = Channel(channel_id=900, guild_id=8, name="elsewhere")


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def fake_par(seed: int) -> ParResult:
    return ParResult(*PAR, ())


def build(
    storage: Storage, clock: Clock, par_runner: ParRunner = fake_par, secret: str = "s3cret"
) -> DailyService:
    return house_of(storage, bot=BOT, clock=clock, secret=secret, par_runner=par_runner).daily


@pytest.fixture
def clock() -> Clock:
    return Clock(NOON)


@pytest.fixture
async def daily(storage: Storage, clock: Clock) -> AsyncIterator[DailyService]:
    service = build(storage, clock)
    yield service
    service.close()


async def finish_run(daily: DailyService, user: User) -> list[Reply]:
    """Play `user`'s run to the end, always taking the first legal turn."""
    await daily.play(HERE, user)
    for _ in range(500):
        moves = await daily.suggest(HERE, user, "")
        if not moves:
            break
        replies = await daily.play(HERE, user, moves[0].value)
        if any(not r.ephemeral for r in replies):
            return replies
    raise AssertionError("the run did not end")


async def test_first_call_starts_a_private_run_and_the_next_resumes_it(
    daily: DailyService,
) -> None:
    [board] = await daily.play(HERE, ALICE)
    assert board.ephemeral and not board.mentions
    assert "Today's hill (2026-11-22)" in board.text
    assert all(c.label != "Resign" for c in board.actions)
    [again] = await daily.play(HERE, ALICE)
    assert "continues" in again.text
    assert again.footer == board.footer  # the same game


async def test_everyone_gets_the_same_hill_each_day(daily: DailyService, clock: Clock) -> None:
    [a] = await daily.play(HERE, ALICE)
    await daily.play(HERE, BOB)
    assert "seed" not in a.footer  # the seed would let anyone practise today's hill
    runs = [await daily.daily.run_for(u.id, "2026-11-22") for u in (ALICE, BOB)]
    games = [await daily.games.repository.get_game(r.game_id) for r in runs if r is not None]
    seeds = {g.seed for g in games if g is not None}
    assert len(games) == 2 and len(seeds) == 1
    [seed] = seeds
    assert daily.seed_for(date(2026, 11, 22)) == seed
    assert daily.seed_for(date(2026, 11, 23)) != seed
    other = DailyService(daily.games, daily.daily, secret="another", par_runner=fake_par)
    other.close()
    assert other.seed_for(date(2026, 11, 22)) != seed


async def test_a_finished_run_posts_a_summary_and_par(daily: DailyService) -> None:
    replies = await finish_run(daily, ALICE)
    public = [r for r in replies if not r.ephemeral]
    private = [r for r in replies if r.ephemeral]
    [summary] = public
    assert "alice finished the hill of 2026-11-22" in summary.text
    assert any(ch in summary.text for ch in "🟩🟨🟥")
    assert "🟥 Small (starving) · 🟨 Medium · 🟩 Big" in summary.text  # the strip's legend
    assert summary.image is None  # nothing that shows the hill
    run = await daily.daily.run_for(ALICE.id, DAY)
    assert run is not None and run.score is not None
    [told] = [r for r in private if "Par:" in r.text]
    rows = f"{run.score} row" if run.score == 1 else f"{run.score} rows"
    assert told.text.splitlines() == [
        "Par: 40 rows in 120 turns, what a careful player reaches on this hill looking one "
        f"turn ahead. {40 - run.score} rows short of par.",
        f"The hill's runs so far: best {rows}, median {rows} (1 run).",
    ]
    assert any("Game over" in r.text for r in private)
    [done] = await daily.play(HERE, ALICE)
    assert "You have played today's hill" in done.text and done.ephemeral
    run = await daily.daily.run_for(ALICE.id, "2026-11-22")
    assert run is not None and run.finished_at is not None
    replayed = await daily.replay(run.game_id)
    assert replayed is not None and (replayed.score, replayed.turns) == (run.score, run.turns)
    assert len(run.sizes or "") == run.turns


async def test_one_attempt_per_day_even_under_concurrent_calls(
    storage: Storage, daily: DailyService
) -> None:
    results = await asyncio.gather(*(daily.play(HERE, ALICE) for _ in range(10)))
    footers = {replies[0].footer for replies in results}
    assert len(footers) == 1
    [row] = await storage.database.fetch("SELECT COUNT(*) FROM daily_runs")
    assert row[0] == 1


async def test_restart_in_the_middle_of_a_run(storage_target: str, clock: Clock) -> None:
    storage = await open_storage(storage_target)
    first = build(storage, clock)
    await first.play(HERE, ALICE)
    move = (await first.suggest(HERE, ALICE, ""))[0].value
    [after] = await first.play(HERE, ALICE, move)
    await storage.close()
    reopened = await open_storage(storage_target)
    try:
        second = build(reopened, clock)
        [resumed] = await second.play(HERE, ALICE)
        assert "continues" in resumed.text
        assert resumed.title == after.title  # same ply
        assert await second.suggest(HERE, ALICE, "")
    finally:
        await reopened.close()


async def test_a_tampered_log_is_not_ranked(storage: Storage, daily: DailyService) -> None:
    await daily.play(HERE, ALICE)
    run = await daily.daily.run_for(ALICE.id, "2026-11-22")
    assert run is not None
    async with storage.database.transaction() as conn:
        await conn.execute(f"UPDATE games SET seed = seed + 1 WHERE id = {run.game_id:d}")
    daily.games.live.forget(run.game_id)
    assert await daily.replay(run.game_id) is None


async def seeded_result(
    repo: DailyRepository,
    user: UserRecord,
    day: str,
    score: int,
    turns: int,
    finished: float,
) -> None:
    new = NewGame(
        "hillbert", 7, None, "active", 1, None, 1, None, "x", user, ((user, True),), kind="daily"
    )
    record, created = await repo.start_run(
        new, user, day, iso_week(date.fromisoformat(day)), finished - 100
    )
    assert created
    assert await repo.finish_run(record.id, score, turns, "1" * turns, finished)
    await repo.note_member(7, user)


async def test_today_ranks_by_score_then_fewer_turns_then_earlier_finish(
    daily: DailyService,
) -> None:
    repo = daily.daily
    users = [UserRecord(100 + i, f"p{i}") for i in range(14)]
    day = "2026-11-22"
    await seeded_result(repo, users[0], day, 30, 50, 1000)
    await seeded_result(repo, users[1], day, 30, 40, 2000)  # fewer turns beats 0
    await seeded_result(repo, users[2], day, 30, 40, 1500)  # same, finished earlier
    await seeded_result(repo, users[3], day, 50, 90, 3000)  # best score
    for i in range(4, 14):
        await seeded_result(repo, users[i], day, 10 - (i - 4) % 10, 20, 4000 + i)
    rows = await repo.day_board(day, 7, 10)
    assert [r.name for r in rows[:4]] == ["p3", "p2", "p1", "p0"]
    assert [r.rank for r in rows] == list(range(1, 11))
    me = User(113, "p13")
    [board] = await daily.leaderboard(HERE, me, "today", "server")
    assert "**p13**" in board.text and board.text.index("…") < board.text.index("**p13**")
    mine = await repo.day_rank(day, 7, 113)
    assert mine is not None and mine.rank == 14


async def test_week_and_all_time_total_scores_and_show_best_run(daily: DailyService) -> None:
    repo = daily.daily
    ann, ben = UserRecord(201, "ann"), UserRecord(202, "ben")
    await seeded_result(repo, ann, "2026-11-16", 20, 30, 10)  # Monday, week 47
    await seeded_result(repo, ann, "2026-11-22", 25, 30, 20)  # Sunday, week 47
    await seeded_result(repo, ben, "2026-11-22", 40, 30, 30)
    await seeded_result(repo, ben, "2026-11-15", 30, 30, 5)  # Sunday of week 46
    week = await repo.total_board("2026-W47", None, 10)
    assert [(r.name, r.score, r.best, r.runs) for r in week] == [
        ("ann", 45, 25, 2),
        ("ben", 40, 40, 1),
    ]
    everything = await repo.total_board("all", None, 10)
    assert [(r.name, r.score) for r in everything] == [("ben", 70), ("ann", 45)]
    [board] = await daily.leaderboard(HERE, User(201, "ann"), "week", "global")
    assert "1. **ann**: 45 in all, best 25 (2 runs)" in board.text


async def test_server_scope_lists_only_its_members(daily: DailyService) -> None:
    await finish_run(daily, ALICE)
    [here] = await daily.leaderboard(HERE, BOB, "today", "server")
    assert "alice" in here.text
    [there] = await daily.leaderboard(OTHER_SERVER, BOB, "today", "server")
    assert "alice" not in there.text and "Nobody has finished" in there.text
    [world] = await daily.leaderboard(OTHER_SERVER, BOB, "today", "global")
    assert "alice" in world.text


async def test_stats_and_streak(daily: DailyService, clock: Clock) -> None:
    await finish_run(daily, ALICE)
    clock.now += 86400
    await finish_run(daily, ALICE)
    [stats] = await daily.stats(HERE, BOB, ALICE)
    fields = dict(stats.fields)
    assert fields["Runs"] == "2" and fields["Streak"] == "2 days"


def test_streak_counts_back_from_today_or_yesterday() -> None:
    today = date(2026, 11, 22)
    assert streak_of(["2026-11-20", "2026-11-21", "2026-11-22"], today) == 3
    assert streak_of(["2026-11-20", "2026-11-21"], today) == 2
    assert streak_of(["2026-11-19", "2026-11-21", "2026-11-22"], today) == 2
    assert streak_of(["2026-11-19"], today) == 0


def test_size_strip_and_time_helpers() -> None:
    # Small, the size he starves at, is the red warning; Big, well fed, is green.
    assert size_strip("1223") == "🟥🟨🟨🟩"
    assert len(size_strip("1" * 100)) == 24
    assert size_strip("1" * 99 + "3").endswith("🟩")
    assert str(size_legend()) == "🟥 Small (starving) · 🟨 Medium · 🟩 Big"
    assert iso_week(date(2026, 11, 22)) == "2026-W47"
    assert iso_week(date(2026, 11, 23)) == "2026-W48"
    assert next_rollover(NOON) == int(datetime(2026, 11, 23, tzinfo=UTC).timestamp())


async def test_par_runs_in_a_worker_process() -> None:
    runner = ProcessParRunner()
    try:
        found = await runner(12345)
    finally:
        runner.close()
    assert found == par(12345)
    assert found.score > 0 and 0 < found.turns <= DEFAULT_MAX_TURNS
    assert len(found.moves) == found.turns


async def test_a_failed_par_search_does_not_lose_the_finishing_reply(
    storage: Storage, clock: Clock
) -> None:
    calls = []

    async def failing(seed: int) -> ParResult:
        calls.append(seed)
        raise RuntimeError("the search died")

    daily = build(storage, clock, failing)
    replies = await finish_run(daily, ALICE)
    assert any("finished the hill" in r.text for r in replies)
    assert any("Par for this hill is not ready yet" in r.text for r in replies)
    [done] = await daily.play(HERE, ALICE)
    assert "You have played today's hill" in done.text
    assert len(calls) >= 2  # the failed search was dropped and tried again


async def test_a_run_finished_but_never_recorded_is_recorded_later(daily: DailyService) -> None:
    # Played on a service that records nothing after the last move: as if the process
    # died right after it.
    games = GameService(daily.games.repository, bot_user=BOT, clock=daily.clock)
    unhooked = DailyService(games, daily.daily, secret="s3cret", par_runner=fake_par)
    await finish_run_quietly(unhooked, ALICE)
    unhooked.close()
    run = await daily.daily.run_for(ALICE.id, "2026-11-22")
    assert run is not None and run.finished_at is None
    [done] = await daily.play(HERE, ALICE)
    run = await daily.daily.run_for(ALICE.id, "2026-11-22")
    assert run is not None and run.finished_at is not None and run.score is not None
    assert f"{run.score} rows" in done.text


async def finish_run_quietly(daily: DailyService, user: User) -> None:
    await daily.play(HERE, user)
    while moves := await daily.suggest(HERE, user, ""):
        await daily.play(HERE, user, moves[0].value)


async def open_game(daily: DailyService, user: User) -> int:
    [run] = [r for r in await daily.daily.pending_runs(user.id) if r.finished_at is None]
    return run.game_id


async def lasting_move(daily: DailyService, user: User) -> str:
    """A turn the user's open run offers that does not end it."""
    game_id = await open_game(daily, user)
    state = (await daily.games.loaded(game_id)).state
    for suggestion in await daily.games.suggest_in(game_id, user, ""):
        text, _ = offered_move(suggestion.value)
        if state.play(0, state.parse_move(0, text)).outcome() is None:
            return suggestion.value
    raise AssertionError("every turn ends the run")


async def play_turns(daily: DailyService, user: User, n: int, *, via_daily: bool = True) -> None:
    """Play `n` turns of the user's open run that do not end it: through `/daily move:`,
    or else as a board's button does, straight to the game."""
    for _ in range(n):
        move = await lasting_move(daily, user)
        if via_daily:
            await daily.play(HERE, user, move)
        else:
            await daily.games.move_in(await open_game(daily, user), user, move)


async def test_a_run_still_going_at_midnight_is_finished_on_its_own_hill(
    daily: DailyService, clock: Clock
) -> None:
    clock.now = at(22, 23, 58)
    await daily.play(HERE, ALICE)
    await play_turns(daily, ALICE, 2)
    clock.now = at(23, 0, 2)
    [board] = await daily.play(HERE, ALICE)
    assert "Your run on the hill of 2026-11-22 is still open" in board.text
    assert board.title.endswith("move 2")
    assert await daily.daily.run_for(ALICE.id, NEXT_DAY) is None
    [played] = await daily.play(HERE, ALICE, await lasting_move(daily, ALICE))
    assert played.title.endswith("move 3")
    assert "hill of 2026-11-22: open until 01:00 UTC" in played.text
    replies = await finish_run(daily, ALICE)
    assert any("alice finished the hill of 2026-11-22" in r.text for r in replies)
    assert any("Today's hill is open: /daily." in r.text for r in replies)
    run = await daily.daily.run_for(ALICE.id, DAY)
    assert run is not None and run.finished_at is not None and not run.unfinished
    assert [r.name for r in await daily.daily.day_board(DAY, None, 10)] == ["alice"]
    [today] = await daily.play(HERE, ALICE)
    assert "Today's hill (2026-11-23)" in today.text


async def test_a_run_not_over_at_the_close_is_scored_as_it_stood_and_told_once(
    daily: DailyService, clock: Clock
) -> None:
    clock.now = at(22, 23, 58)
    await daily.play(HERE, ALICE)
    await play_turns(daily, ALICE, 2)
    clock.now = at(23, 0, 30)
    await play_turns(daily, ALICE, 1)
    game_id = await open_game(daily, ALICE)
    stood = (await daily.games.loaded(game_id)).state
    clock.now = at(23, 1, 10)
    await play_turns(daily, ALICE, 1, via_daily=False)  # an old board's button, too late
    clock.now = at(23, 1, 30)
    [notice, board] = await daily.play(HERE, ALICE)
    assert notice.ephemeral and "hill of 2026-11-22 was not over when that hill closed" in (
        notice.text
    )
    assert f"{stood.score} rows in 3 turns" in notice.text
    assert "Today's hill (2026-11-23)" in board.text
    run = await daily.daily.run_for(ALICE.id, DAY)
    assert run is not None and run.unfinished and (run.score, run.turns) == (stood.score, 3)
    assert run.finished_at == at(23, 1, 0)
    [again] = await daily.play(HERE, ALICE)
    assert "continues" in again.text  # told once
    with pytest.raises(ServiceError, match="over"):
        await daily.games.move_in(game_id, ALICE, "d")


async def test_a_move_meant_for_a_closed_run_opens_no_new_one(
    daily: DailyService, clock: Clock
) -> None:
    clock.now = at(22, 23, 58)
    await daily.play(HERE, ALICE)
    await play_turns(daily, ALICE, 2)
    clock.now = at(23, 1, 30)
    [notice, refused] = await daily.play(HERE, ALICE, "d")
    assert "scored as it stood then: " in notice.text
    assert refused.ephemeral and "d was not played" in refused.text
    assert await daily.daily.run_for(ALICE.id, NEXT_DAY) is None


async def test_a_closed_run_is_ranked_once_whoever_looks_first(
    storage: Storage, daily: DailyService, clock: Clock
) -> None:
    clock.now = at(22, 23, 58)
    await daily.play(HERE, ALICE)
    await play_turns(daily, ALICE, 2)
    clock.now = at(23, 2, 0)
    elsewhere = build(storage, clock)  # another process on the same database
    for service in (daily, elsewhere, daily):
        [board] = await service.leaderboard(HERE, BOB, "all", "global")
        assert "1. alice: " in board.text and "(1 run)" in board.text
    assert [r.name for r in await daily.daily.day_board(DAY, None, 10)] == ["alice"]
    [stats] = await daily.stats(HERE, BOB, ALICE)
    assert dict(stats.fields)["Scored unfinished"] == "1" and "unfinished" in stats.text
    [notice, _] = await elsewhere.play(HERE, ALICE)
    assert "was scored as it stood" in notice.text
    [_] = await daily.play(HERE, ALICE)
    [board] = await daily.leaderboard(HERE, BOB, "all", "global")
    assert "(1 run)" in board.text


async def test_a_run_ended_after_its_close_keeps_the_score_it_had_at_the_close(
    daily: DailyService, clock: Clock
) -> None:
    clock.now = at(22, 23, 58)
    await daily.play(HERE, ALICE)
    await play_turns(daily, ALICE, 2)
    game_id = await open_game(daily, ALICE)
    stood = (await daily.games.loaded(game_id)).state
    clock.now = at(23, 3, 0)
    replies: list[Reply] = []
    while not replies or replies[0].tone != "over":
        [move, *_] = await daily.games.suggest_in(game_id, ALICE, "")
        replies = await daily.games.move_in(game_id, ALICE, move.value)
    assert all(r.ephemeral for r in replies)  # no public summary for a run cut short
    assert any(f"{stood.score} rows in 2 turns" in r.text for r in replies)
    run = await daily.daily.run_for(ALICE.id, DAY)
    assert run is not None and run.unfinished and run.turns == 2 and not run.untold


async def test_a_refused_first_move_starts_no_run(storage: Storage, daily: DailyService) -> None:
    with pytest.raises(ServiceError, match="has not started"):
        await daily.play(HERE, ALICE, "nonsense")
    with pytest.raises(ServiceError, match="offered for another board"):
        await daily.play(HERE, ALICE, "d @7")
    assert await daily.daily.run_for(ALICE.id, DAY) is None
    [row] = await storage.database.fetch("SELECT COUNT(*) FROM games")
    assert row[0] == 0
    [board] = await daily.play(HERE, ALICE, "d")
    assert board.title.endswith("move 1")
    assert await daily.daily.run_for(ALICE.id, DAY) is not None


PAR_STARTED = "HILLTOP_TEST_PAR_STARTED"


def search_forever(seed: int) -> ParResult:
    """A par search that never ends, once it has said that it started."""
    Path(os.environ[PAR_STARTED]).touch()
    threading.Event().wait()
    return ParResult(0, 0, ())


async def test_closing_ends_a_par_search_under_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = tmp_path / "started"
    monkeypatch.setenv(PAR_STARTED, str(started))
    runner = ProcessParRunner(search_forever)
    search = asyncio.ensure_future(runner(1))
    await until(started.exists, "the worker process to pick the search up")
    runner.close()
    with pytest.raises(BrokenProcessPool):
        await asyncio.wait_for(search, timeout=30)


async def test_par_stored_by_one_process_is_read_by_the_next(
    storage: Storage, clock: Clock
) -> None:
    searched: list[int] = []

    async def must_not_search(seed: int) -> ParResult:
        searched.append(seed)
        raise RuntimeError("par should have been read from the database")

    first = build(storage, clock)
    await finish_run(first, ALICE)
    first.close()
    assert await first.daily.get_par(DAY) == PAR
    later = build(storage, clock, must_not_search)
    replies = await finish_run(later, BOB)
    assert any("Par: 40 rows in 120 turns, what a careful player" in r.text for r in replies)
    assert searched == []


async def test_a_count_of_one_is_singular(daily: DailyService) -> None:
    repo = daily.daily
    ann = User(201, "ann")
    await seeded_result(repo, UserRecord(ann.id, ann.name), DAY, 1, 1, NOON - 50)
    [today] = await daily.leaderboard(HERE, ann, "today", "server")
    assert "1. **ann**: 1 row, 1 turn" in today.text
    [week] = await daily.leaderboard(HERE, ann, "week", "server")
    assert "1. **ann**: 1 in all, best 1 (1 run)" in week.text
    [stats] = await daily.stats(HERE, ann)
    assert dict(stats.fields)["Streak"] == "1 day"
    assert "Last run 2026-11-22: 1 row in 1 turn." in stats.text
    [done] = await daily.play(HERE, ann)
    assert "You have played today's hill: 1 row in 1 turn." in done.text
    assert "1 row short of par" in (await daily.par.reply(DAY, PAR[0] - 1)).text


async def test_par_is_shown_beside_the_spread_of_the_days_runs(daily: DailyService) -> None:
    repo = daily.daily
    for number, score in enumerate([12, 97, 70, 55, 3], start=1):
        user = UserRecord(300 + number, f"runner{number}")
        await seeded_result(repo, user, DAY, score, score, NOON - 100 + number)
    await seeded_result(repo, UserRecord(399, "yesterday"), "2026-11-21", 500, 300, NOON - 1e5)
    told = (await daily.par.reply(DAY, 97)).text.splitlines()
    assert told[0].endswith("You beat par!")
    assert told[1] == "The hill's runs so far: best 97 rows, median 55 rows (5 runs)."
    assert (await daily.par.reply(NEXT_DAY, 0)).text.splitlines()[1] == (
        "Nobody has finished this hill yet."
    )


async def test_the_median_of_an_even_number_of_runs_is_the_lower_middle_one(
    daily: DailyService,
) -> None:
    for number, score in enumerate([10, 40, 20, 30], start=1):
        user = UserRecord(300 + number, f"runner{number}")
        await seeded_result(daily.daily, user, DAY, score, score, NOON - 100 + number)
    told = (await daily.par.reply(DAY, 40)).text.splitlines()
    assert told[1] == "The hill's runs so far: best 40 rows, median 20 rows (4 runs)."


async def test_the_days_spread_reads_the_index_of_its_scores(sqlite_storage: Storage) -> None:
    # However many runs a day has, its spread is counted on the index, never read whole.
    for sql in (
        "SELECT count(*), max(score) FROM daily_runs WHERE day = ? AND finished_at IS NOT NULL",
        "SELECT score FROM daily_runs WHERE day = ? AND finished_at IS NOT NULL"
        " ORDER BY score DESC LIMIT 1 OFFSET ?",
    ):
        plan = await sqlite_storage.database.fetch(
            f"EXPLAIN QUERY PLAN {sql}", (DAY, 0)[: sql.count("?")]
        )
        details = " ".join(str(row[-1]) for row in plan)
        assert "SEARCH daily_runs USING" in details and "daily_runs_today" in details, details
        assert "SCAN" not in details, details


async def test_a_run_is_closed_only_where_it_stands_and_only_once(daily: DailyService) -> None:
    await daily.play(HERE, ALICE)
    await play_turns(daily, ALICE, 1)
    game_id = await open_game(daily, ALICE)
    result = GameResult(Ending.HILL_CLOSED, scores=(1,))
    assert not await daily.daily.close_run(game_id, 0, result, 1, 1, "1", NOON)  # moved on
    record = await daily.games.repository.get_game(game_id)
    assert record is not None and record.status == "active"
    assert (await daily.daily.run_for(ALICE.id, DAY)).finished_at is None  # type: ignore[union-attr]
    assert await daily.daily.close_run(game_id, 1, result, 1, 1, "1", NOON)
    assert not await daily.daily.close_run(game_id, 1, result, 1, 1, "1", NOON)
    [row] = await daily.daily.total_board("all", None, 10)
    assert (row.score, row.runs) == (1, 1)


# --- replays of a closed day --------------------------------------------------------------
def greedy_line(seed: int, turns: int) -> ParResult:
    """A short line of a hill, played by the engine's greedy player (not the par search)."""
    state = new_hill(seed)
    moves = []
    for _ in range(turns):
        move = greedy_move(state)
        moves.append(str(move))
        state = state.play(0, move)
    return ParResult(state.score, turns, tuple(moves))


def gif_frames(reply: Reply) -> int:
    assert reply.image is not None and reply.image_name.endswith(".gif")
    with Image.open(io.BytesIO(reply.image)) as picture:
        return int(picture.n_frames)


async def test_a_days_replays_wait_until_it_closes(daily: DailyService, clock: Clock) -> None:
    await finish_run(daily, ALICE)
    with pytest.raises(ServiceError, match=f"The hill of {DAY} is still open"):
        await daily.replays.replay(HERE, BOB, DAY)
    with pytest.raises(ServiceError, match=f"The hill of {DAY} is still open"):
        await daily.replays.replay(HERE, BOB, DAY, "par")
    clock.now = at(23, 0, 59)  # the runs of the day close at 01:00 the day after
    with pytest.raises(ServiceError, match="still open"):
        await daily.replays.replay(HERE, BOB, DAY)
    clock.now = at(23, 1, 0)
    [winner] = await daily.replays.replay(HERE, BOB)  # the latest closed day by default
    assert winner.title == f"Daily Hillbert {DAY}: the winning run"
    assert winner.text.startswith("alice's run, first of this server: ")
    run = await daily.daily.run_for(ALICE.id, DAY)
    assert run is not None and gif_frames(winner) >= (run.turns or 0) + 1


async def test_the_winning_run_is_this_servers_or_everyones(
    daily: DailyService, clock: Clock
) -> None:
    repo = daily.daily
    await finish_run(daily, ALICE)
    await repo.note_member(OTHER_SERVER.guild_id or 0, UserRecord(BOB.id, BOB.name))
    clock.now = at(23, 2, 0)
    with pytest.raises(ServiceError, match=f"Nobody in this server finished a run on {DAY}"):
        await daily.replays.replay(OTHER_SERVER, BOB, DAY, "winner", "server")
    [everyone] = await daily.replays.replay(OTHER_SERVER, BOB, DAY, "winner", "global")
    assert everyone.text.startswith("alice's run, first of everyone: ")


async def test_the_par_run_replays_the_stored_line(storage: Storage, clock: Clock) -> None:
    games = GameService(storage.games, bot_user=BOT, clock=clock, render_images=False)
    searched: list[int] = []

    async def short_par(seed: int) -> ParResult:
        searched.append(seed)
        return greedy_line(seed, 6)

    daily = DailyService(games, storage.daily, secret="s3cret", par_runner=short_par)
    try:
        clock.now = at(23, 2, 0)
        [par_run] = await daily.replays.replay(HERE, ALICE, DAY, "par")
        line = greedy_line(daily.seed_for(date.fromisoformat(DAY)), 6)
        assert par_run.title == f"Daily Hillbert {DAY}: par"
        assert par_run.text == (
            f"The par run, as a careful player plays this hill: {line.score} rows in 6 turns."
        )
        assert gif_frames(par_run) == 7  # the start and each turn
        assert await daily.daily.par_line(DAY) == line.moves
        await daily.replays.replay(HERE, BOB, DAY, "par")
        assert len(searched) == 1  # stored once, read after
    finally:
        daily.close()


async def test_a_par_stored_without_its_line_is_searched_again_for_a_replay(
    storage: Storage, clock: Clock
) -> None:
    repo = storage.daily
    await repo.set_par(DAY, 3, 6, NOON)  # as stored before lines were kept
    games = GameService(storage.games, bot_user=BOT, clock=clock, render_images=False)

    async def short_par(seed: int) -> ParResult:
        return greedy_line(seed, 6)

    daily = DailyService(games, repo, secret="s3cret", par_runner=short_par)
    try:
        clock.now = at(23, 2, 0)
        [par_run] = await daily.replays.replay(HERE, ALICE, DAY, "par")
        assert gif_frames(par_run) == 7
        assert await repo.par_line(DAY) is not None
        assert await repo.get_par(DAY) == (3, 6)  # par itself is not changed
    finally:
        daily.close()


async def test_bad_replay_requests_are_refused(daily: DailyService, clock: Clock) -> None:
    clock.now = at(23, 2, 0)
    with pytest.raises(ServiceError, match=r"day: write a date as YYYY-MM-DD, e\.g\. 2026-11-22"):
        await daily.replays.replay(HERE, ALICE, "yesterday")
    with pytest.raises(ServiceError, match="run: choose par or winner"):
        await daily.replays.replay(HERE, ALICE, DAY, "best")
    with pytest.raises(ServiceError, match="scope: choose server or global"):
        await daily.replays.replay(HERE, ALICE, DAY, "winner", "galaxy")
    with pytest.raises(ServiceError, match="still open"):
        await daily.replays.replay(HERE, ALICE, NEXT_DAY, "par")
    with pytest.raises(ServiceError, match=f"Nobody in this server finished a run on {DAY}"):
        await daily.replays.replay(HERE, ALICE, DAY)
    assert [d.isoformat() for d in daily.replays.closed_days()[:2]] == [DAY, "2026-11-21"]


async def test_a_run_still_open_at_the_close_is_the_winning_run_it_became(
    daily: DailyService, clock: Clock
) -> None:
    clock.now = at(22, 23, 58)
    await daily.play(HERE, ALICE)
    await play_turns(daily, ALICE, 2)
    clock.now = at(23, 1, 30)  # closed, and nobody has asked for anything since
    [winner] = await daily.replays.replay(HERE, BOB, DAY)
    assert winner.text.startswith("alice's run, first of this server: ")
    assert gif_frames(winner) == 3  # the start and the two turns played


async def test_only_days_of_the_past_year_up_to_the_last_closed_one(
    daily: DailyService, clock: Clock
) -> None:
    clock.now = at(23, 2, 0)
    with pytest.raises(ServiceError, match="day: 9999-12-31 has not come yet; the latest"):
        await daily.replays.replay(HERE, ALICE, "9999-12-31", "par")
    with pytest.raises(ServiceError, match="day: 2026-11-25 has not come yet"):
        await daily.replays.replay(HERE, ALICE, "2026-11-25", "par")
    with pytest.raises(ServiceError, match="hills can be replayed for a year; choose a day"):
        await daily.replays.replay(HERE, ALICE, "0001-01-01", "par")


async def test_a_par_search_that_failed_is_tried_again(storage: Storage, clock: Clock) -> None:
    games = GameService(storage.games, bot_user=BOT, clock=clock, render_images=False)
    tries: list[int] = []

    async def flaky(seed: int) -> ParResult:
        tries.append(seed)
        if len(tries) == 1:
            raise RuntimeError("the worker died")
        return greedy_line(seed, 3)

    daily = DailyService(games, storage.daily, secret="s3cret", par_runner=flaky)
    try:
        clock.now = at(23, 2, 0)
        with pytest.raises(ServiceError, match="Par for this hill is not ready yet"):
            await daily.replays.replay(HERE, ALICE, DAY, "par")
        [par_run] = await daily.replays.replay(HERE, ALICE, DAY, "par")
        assert gif_frames(par_run) == 4 and len(tries) == 2
    finally:
        daily.close()


def test_a_missing_secret_is_warned_of_once_a_process(
    service: GameService,
    storage: Storage,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("host.daily.service._warned_of_no_secret", False, raising=False)
    with caplog.at_level("WARNING", logger="host.daily.service"):
        for _ in range(3):
            DailyService(service, storage.daily, par_runner=fake_par).close()
    warned = [r for r in caplog.records if "HILLTOP_DAILY_SECRET is not set" in r.message]
    assert len(warned) == 1
