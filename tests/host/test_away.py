"""Away time on a simulated clock, on both databases: a player away keeps every game's
clock of their own decisions stopped, loses nothing on time, is shown as away, cannot be
claimed against, and gets their time back; the balance is spent and given back in whole
days; bad input is refused and changes nothing."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import pytest

from data.storage import Storage
from host.events.service import EventSetup
from host.face import House
from host.model import Channel, Direct, ServiceError, User
from host.payloads import Action
from host.settings import ServerChange
from host.setup import GameSetup
from tests.host.conftest import ADMIN
from tests.houses import house_of

HERE = Channel(800, 9, "general")
ALICE = User(3001, "alice")
BOB = User(3002, "bob")
HOUR = 3600.0
DAY = 24 * HOUR


class Clock:
    def __init__(self) -> None:
        self.now = 1_798_761_600.0  # 2027-01-01 00:00 UTC

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def house(storage: Storage, clock: Clock) -> AsyncIterator[House]:
    made = house_of(storage, clock=clock)
    yield made
    made.close()


async def game(house: House, deadline_minutes: int | None = None) -> int:
    """alice (to move first) against bob, started at once by an admin."""
    setup = GameSetup("hokito", seed=1, deadline_minutes=deadline_minutes)
    [board] = await house.service.admin_start(HERE, ADMIN, setup, [ALICE, BOB])
    assert board.game_id is not None
    return board.game_id


async def move(house: House, who: User) -> None:
    [first, *_] = await house.service.suggest_moves(HERE, who, "")
    await house.service.move(HERE, who, first.value)


async def test_away_stops_her_clock_her_board_says_so_and_back_gives_days_back(
    house: House, clock: Clock
) -> None:
    game_id = await game(house)
    clock.now += HOUR
    before = await house.service.repository.get_game(game_id)
    assert before is not None and before.deadline_at is not None
    [away] = await house.away.away(HERE, ALICE, 3)
    assert "Away until" in away.title and "4 away days left" in away.text
    # Her clock is stopped with the time it had; the board says she is away.
    stopped = await house.service.repository.get_game(game_id)
    assert stopped is not None and stopped.deadline_at is None
    [board] = await house.service.board(HERE)
    assert "alice is away until Jan 4, 2027: their time is stopped." in board.text
    # Days pass: nothing runs out.
    clock.now += 2 * DAY
    assert await house.service.expire_due() == []
    [back] = await house.away.back(HERE, ALICE)
    assert "1 unused day given back; 5 away days left" in back.text
    running = await house.service.repository.get_game(game_id)
    assert running is not None and running.deadline_at is not None
    had = before.deadline_at - (before.updated_at + HOUR)  # left when she went away
    assert running.deadline_at - clock.now == pytest.approx(had)
    with pytest.raises(ServiceError, match="You are not away"):
        await house.away.back(HERE, ALICE)


async def test_a_claim_on_time_against_a_player_away_is_refused_with_the_reason(
    house: House, clock: Clock
) -> None:
    game_id = await game(house, deadline_minutes=1)
    clock.now += 2 * 60
    [(where, [expired])] = await house.service.expire_due()
    claim = next(c for c in expired.actions if c.payload.action is Action.CLAIM)
    await house.away.away(HERE, ALICE, 2)
    with pytest.raises(ServiceError, match=r"alice is away until .*no win to claim"):
        await house.service.press(HERE, BOB, claim.payload)
    stored = await house.service.repository.get_game(game_id)
    assert stored is not None and stored.status == "active"
    await house.away.back(HERE, ALICE)
    replies = await house.service.press(HERE, BOB, claim.payload)
    assert any("claimed the win" in r.text or "wins" in r.text for r in replies)
    del where


async def test_away_time_that_runs_out_starts_the_clock_with_the_time_it_had(
    house: House, clock: Clock
) -> None:
    game_id = await game(house)
    clock.now += 62 * HOUR  # 10 hours left
    await house.away.away(HERE, ALICE, 1)
    clock.now += DAY + 60
    posts = await house.service.expire_due()
    told = [r.text for where, replies in posts if isinstance(where, Direct) for r in replies]
    assert told == ["Your away time is over: 1 deadline runs again with the time it had left."]
    running = await house.service.repository.get_game(game_id)
    assert running is not None and running.deadline_at is not None
    assert running.deadline_at - clock.now == pytest.approx(10 * HOUR)


async def test_a_year_with_three_weeks_away_loses_no_game_on_time(
    house: House, clock: Clock
) -> None:
    """alice moves every day she is here (at once when it is her turn), bob too; three
    times she goes away for a week, with her games' deadlines of three days running."""
    away_days = {40, 180, 320}
    games: list[int] = []
    for day in range(365):
        if day in away_days:
            [said] = await house.away.away(HERE, ALICE, 7)
            assert "Away until" in said.title
        here = await house.service.repository.live_game_in_channel(HERE.channel_id)
        if here is None:
            games.append(await game(house))
        away = (await house.away.balance(HERE, ALICE)).away_at(clock.now)
        for player in (BOB,) if away else (ALICE, BOB):
            # Not their turn, or the game is over: nothing to play.
            with contextlib.suppress(ServiceError, ValueError):
                await move(house, player)
        clock.now += DAY
        await house.service.expire_due()
    assert len(games) > 10
    for game_id in games:
        stored = await house.service.repository.get_game(game_id)
        assert stored is not None and stored.expired_at is None
        assert stored.result is None or stored.result.ending.value not in ("timed_out", "claimed")


async def test_bad_away_input_is_refused_and_changes_nothing(house: House, clock: Clock) -> None:
    with pytest.raises(ServiceError, match="You have 7 away days left"):
        await house.away.away(HERE, ALICE, 8)
    with pytest.raises(ServiceError, match="has passed"):
        await house.away.away(HERE, ALICE, until="2026-12-31")
    with pytest.raises(ServiceError, match="write a day as YYYY-MM-DD"):
        await house.away.away(HERE, ALICE, until="next friday")
    with pytest.raises(ServiceError, match="You have 7 away days left"):
        await house.away.away(HERE, ALICE, until="2027-01-30")
    with pytest.raises(ServiceError, match="not both"):
        await house.away.away(HERE, ALICE, 2, "2027-01-03")
    with pytest.raises(ServiceError, match="You are not away"):
        await house.away.back(HERE, ALICE)
    assert await house.away.repository.get(ALICE.id) is None
    # Every day taken: none left until the first of the next month brings two more.
    await house.away.away(HERE, ALICE)
    clock.now += 7 * DAY
    await house.service.expire_due()
    with pytest.raises(ServiceError, match="no away days left; 2 more come"):
        await house.away.away(HERE, ALICE)
    clock.now += 30 * DAY
    assert (await house.away.balance(HERE, ALICE)).balance == 2
    # A server may start its players with none.
    await house.service.server_settings(HERE, ADMIN, ServerChange(away_days=0))
    with pytest.raises(ServiceError, match="no away days left"):
        await house.away.away(HERE, BOB)


async def test_a_tournament_may_keep_its_clocks_running_for_players_away(
    house: House, clock: Clock
) -> None:
    setup = EventSetup("hokito", "swiss", rounds=1, away=False, deadline_minutes=60)
    [announced] = await house.events.create(HERE, ADMIN, setup)
    event_id = int(announced.footer.rsplit("#", 1)[1])
    for player in (ALICE, BOB):
        await house.events.join(HERE, player, event_id)
    started = await house.events.start(HERE, ADMIN, event_id)
    [round_post] = [r for r in started if "round 1 of 1" in r.title]
    assert "Away time does not stop this tournament's clocks." in round_post.text
    await house.away.away(HERE, ALICE, 2)
    await house.away.away(HERE, BOB, 2)
    whole = await house.events.repository.whole(event_id)
    assert whole is not None
    [table] = whole.round_tables(1)
    stored = await house.service.repository.get_game(table.game_id or 0)
    assert stored is not None and stored.deadline_at is not None  # still running
    clock.now += 2 * HOUR
    await house.service.expire_due()
    ended = await house.service.repository.get_game(table.game_id or 0)
    assert ended is not None and (ended.expired_at is not None or not ended.is_live)
