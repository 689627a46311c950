"""The daily challenge through the service, on a real database, with a fixed clock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from data.daily import SqliteDailyRepository
from data.db import Database
from data.games import SqliteGameRepository
from data.repository import NewGame, UserRecord
from engine.hillbert_par import DEFAULT_MAX_TURNS, par
from host.daily import (
    DailyService,
    ProcessParRunner,
    iso_week,
    next_rollover,
    size_strip,
    streak_of,
)
from host.model import Place, Reply, User
from host.service import GameService
from tests.host.conftest import ALICE, BOB, BOT, HERE

NOON = datetime(2026, 11, 22, 12, 0, tzinfo=UTC).timestamp()
PAR = (40, 120)
OTHER_SERVER = Place(channel_id=900, guild_id=8, name="elsewhere")


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def fake_par(seed: int) -> tuple[int, int]:
    return PAR


def build(db: Database, clock: Clock) -> DailyService:
    games = GameService(SqliteGameRepository(db), bot_user=BOT, clock=clock, render_images=False)
    return DailyService(games, SqliteDailyRepository(db), secret="s3cret", par_runner=fake_par)


@pytest.fixture
def clock() -> Clock:
    return Clock(NOON)


@pytest.fixture
async def daily(db: Database, clock: Clock) -> AsyncIterator[DailyService]:
    yield build(db, clock)


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
    games = [await daily.games.games.get_game(r.game_id) for r in runs if r is not None]
    seeds = {g.seed for g in games if g is not None}
    assert len(games) == 2 and len(seeds) == 1
    [seed] = seeds
    assert daily.seed_for(date(2026, 11, 22)) == seed
    assert daily.seed_for(date(2026, 11, 23)) != seed
    other = DailyService(daily.games, daily.daily, secret="another", par_runner=fake_par)
    assert other.seed_for(date(2026, 11, 22)) != seed


async def test_a_finished_run_posts_a_summary_and_par(daily: DailyService) -> None:
    replies = await finish_run(daily, ALICE)
    public = [r for r in replies if not r.ephemeral]
    private = [r for r in replies if r.ephemeral]
    [summary] = public
    assert "alice finished the hill of 2026-11-22" in summary.text
    assert any(ch in summary.text for ch in "🟩🟨🟥")
    assert summary.image is None  # nothing that shows the hill
    assert any(
        "Par (the bot's best on this hill within 250 turns): 40 rows in 120 turns" in r.text
        for r in private
    )
    assert any("Game over" in r.text for r in private)
    [done] = await daily.play(HERE, ALICE)
    assert "You have played today's hill" in done.text and done.ephemeral
    run = await daily.daily.run_for(ALICE.id, "2026-11-22")
    assert run is not None and run.finished_at is not None
    replayed = await daily.replay(run.game_id)
    assert replayed is not None and (replayed.score, replayed.turns) == (run.score, run.turns)
    assert len(run.sizes or "") == run.turns


async def test_one_attempt_per_day_even_under_concurrent_calls(daily: DailyService) -> None:
    results = await asyncio.gather(*(daily.play(HERE, ALICE) for _ in range(10)))
    footers = {replies[0].footer for replies in results}
    assert len(footers) == 1
    async with (
        daily.daily.db.read() as conn,
        conn.execute(  # type: ignore[attr-defined]
            "SELECT COUNT(*) FROM daily_runs"
        ) as cur,
    ):
        row = await cur.fetchone()
    assert row is not None and row[0] == 1


async def test_restart_in_the_middle_of_a_run(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "daily.sqlite3"
    db = await Database.open(path)
    first = build(db, clock)
    await first.play(HERE, ALICE)
    move = (await first.suggest(HERE, ALICE, ""))[0].value
    [after] = await first.play(HERE, ALICE, move)
    await db.close()
    db2 = await Database.open(path)
    try:
        second = build(db2, clock)
        [resumed] = await second.play(HERE, ALICE)
        assert "continues" in resumed.text
        assert resumed.title == after.title  # same ply
        assert await second.suggest(HERE, ALICE, "")
    finally:
        await db2.close()


async def test_a_tampered_log_is_not_ranked(daily: DailyService) -> None:
    await daily.play(HERE, ALICE)
    run = await daily.daily.run_for(ALICE.id, "2026-11-22")
    assert run is not None
    async with daily.daily.db.transaction() as conn:  # type: ignore[attr-defined]
        await conn.execute("UPDATE games SET seed = seed + 1 WHERE id = ?", (run.game_id,))
    daily.games._cache.clear()
    assert await daily.replay(run.game_id) is None


async def seeded_result(
    repo: SqliteDailyRepository,
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
    assert isinstance(repo, SqliteDailyRepository)
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
    assert isinstance(repo, SqliteDailyRepository)
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
    assert size_strip("1223") == "🟩🟨🟨🟥"
    assert len(size_strip("1" * 100)) == 24
    assert size_strip("1" * 99 + "3").endswith("🟥")
    assert iso_week(date(2026, 11, 22)) == "2026-W47"
    assert iso_week(date(2026, 11, 23)) == "2026-W48"
    assert next_rollover(NOON) == int(datetime(2026, 11, 23, tzinfo=UTC).timestamp())


async def test_par_runs_in_a_worker_process() -> None:
    runner = ProcessParRunner()
    try:
        score, turns = await runner(12345)
    finally:
        runner.close()
    expected = par(12345)
    assert (score, turns) == (expected.score, expected.turns)
    assert score > 0 and 0 < turns <= DEFAULT_MAX_TURNS


async def test_a_failed_par_search_does_not_lose_the_finishing_reply(
    db: Database, clock: Clock
) -> None:
    calls = []

    async def failing(seed: int) -> tuple[int, int]:
        calls.append(seed)
        raise RuntimeError("the search died")

    games = GameService(SqliteGameRepository(db), bot_user=BOT, clock=clock, render_images=False)
    daily = DailyService(games, SqliteDailyRepository(db), secret="s3cret", par_runner=failing)
    replies = await finish_run(daily, ALICE)
    assert any("finished the hill" in r.text for r in replies)
    assert any("Par for this hill is not ready yet" in r.text for r in replies)
    [done] = await daily.play(HERE, ALICE)
    assert "You have played today's hill" in done.text
    assert len(calls) >= 2  # the failed search was dropped and tried again


async def test_a_run_finished_but_never_recorded_is_recorded_later(daily: DailyService) -> None:
    hooks = list(daily.games.finish_hooks)
    daily.games.finish_hooks.clear()  # as if the process died right after the last move
    await finish_run_quietly(daily, ALICE)
    run = await daily.daily.run_for(ALICE.id, "2026-11-22")
    assert run is not None and run.finished_at is None
    daily.games.finish_hooks.extend(hooks)
    [done] = await daily.play(HERE, ALICE)
    run = await daily.daily.run_for(ALICE.id, "2026-11-22")
    assert run is not None and run.finished_at is not None and run.score is not None
    assert f"{run.score} rows" in done.text


async def finish_run_quietly(daily: DailyService, user: User) -> None:
    await daily.play(HERE, user)
    while moves := await daily.suggest(HERE, user, ""):
        await daily.play(HERE, user, moves[0].value)
