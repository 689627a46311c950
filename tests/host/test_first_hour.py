"""What a newcomer meets in their first hour, through the service: `/move` and `/moves`
where their daily board is shown, Everest's titles, plan previews, deadlines and end."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

import engine.everest  # noqa: F401 (registers the game)
from data.storage import Storage
from engine import registry
from engine.hillbert_par import ParResult
from host.face import House
from host.model import Channel, ServiceError
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOB, BOT, HERE
from tests.houses import house_of

EVEREST = registry.get("everest")


async def no_par(seed: int) -> ParResult:
    return ParResult(40, 120, ())


@pytest.fixture
async def house(storage: Storage) -> AsyncIterator[House]:
    built = house_of(storage, bot=BOT, par_runner=no_par)
    yield built
    built.close()


async def test_move_and_moves_where_no_game_is_played_act_on_the_daily_run(house: House) -> None:
    service = house.service
    [board] = await house.daily.play(HERE, ALICE)
    assert board.ephemeral and board.title == "Hillbert · move 0"
    [listed] = await service.legal_moves(HERE, ALICE)
    assert listed.ephemeral and listed.title == "Your legal moves (36)", listed.title
    [moved] = await service.move(HERE, ALICE, "d")
    assert moved.ephemeral and moved.title == "Hillbert · move 1", moved.title
    assert "alice played d" in moved.text
    assert [s.value for s in await service.suggest_moves(HERE, ALICE, "D3 lll")] == ["D3 lll @1"]
    # Someone with no run, and no game in the channel, is told so as before.
    for refused in (service.move(HERE, BOB, "d"), service.legal_moves(HERE, BOB)):
        with pytest.raises(ServiceError, match="No game is being played in this channel"):
            await refused


async def test_everest_boards_are_titled_by_round_from_the_first(house: House) -> None:
    """The computers plan at once: the first board, two plies on, is round 1's."""
    service = house.service
    [first, *_] = await service.start(HERE, ALICE, GameSetup("everest", computers=2, seed=1))
    assert first.title == "Everest · round 1", first.title
    [board] = await service.board(HERE)
    assert board.title == "Everest · round 1", board.title


def test_a_plan_preview_says_what_a_step_up_costs() -> None:
    state = EVEREST.from_text(
        "everest n=2 cap=30 round=1 stage=plan step=1 pos=a2,h5 aside=-,- dmg=0,0 peak=- "
        "plans=-,- result=- rng=1:0 ev=round.1"
    )
    # a2 is height 1, b2 height 2: the ace's one point cannot climb, two points can.
    stuck = state.move_options(0, ("AE",)).preview
    assert str(stuck) == (
        "move 1 east: if nobody gets in the way, your yeti ends on a2, height 1 "
        "(a step up costs 2)."
    )
    climbed = state.parse_move(0, "2E 0N AN")
    assert str(state.move_description(0, climbed)) == "ends on b3, height 2 (a step up costs 2)"
    # Level ground says nothing of it.
    level = state.parse_move(0, "AN 0S 2W")
    assert "step up" not in str(state.move_description(0, level))


@pytest.mark.parametrize("computers", [1, 3])
async def test_one_person_against_computers_has_no_deadline(house: House, computers: int) -> None:
    """As a duel against the computer waits as long as its person likes (README,
    Deadlines), so does Everest against one computer or three."""
    service = house.service
    await service.start(HERE, ALICE, GameSetup("everest", computers=computers, seed=1))
    loaded = await service.live.in_channel(HERE)
    assert loaded.record.deadline_at is None
    [board] = await service.board(HERE)
    assert "Without a decision" not in board.text and "h 00 min" not in board.text
    # A deadline chosen for the game is kept: its defaults are played when it runs out.
    setup = GameSetup("everest", computers=computers, seed=1, deadline_minutes=60)
    await service.start(Channel(600, 7, "other"), BOB, setup)
    chosen = await service.live.in_channel(Channel(600, 7, "other"))
    assert chosen.record.deadline_at is not None


async def test_everest_with_two_people_keeps_its_deadline(house: House) -> None:
    service = house.service
    await service.start(HERE, ALICE, GameSetup("everest", computers=1, seed=1), [BOB])
    await service.accept(HERE, BOB)
    loaded = await service.live.in_channel(HERE)
    assert loaded.record.deadline_at is not None


def test_the_last_board_shows_no_damage_once_every_coin_is_back() -> None:
    """Blue, hit and fallen in the last round, heals (every coin back) as Red wins."""
    before = EVEREST.from_text(
        "everest n=2 cap=30 round=4 stage=end step=3 pos=e3,f6 aside=-,5 dmg=0,1 peak=0 "
        "plans=0N+AE+2W,s0S+4W+AN end=-,h chosen=-,- result=- rng=66:0 "
        "ev=reveal,step.1,roar.0.e3.N,snow.1.h5.h5.S.2,step.2,move.0.e3.f3.E,"
        "move.1.h5.f5.W,step.3,move.0.f3.e3.W,move.1.f5.f6.N,fall.1.f6"
    )
    after = before.play(1, before.parse_move(1, "heal"))
    assert after.outcome() is not None
    said = [str(line) for line in after.report(before, ("Red", "Blue"))]
    assert "Blue heals: every coin back." in said, said
    assert tuple(after.damage) == (0, 0)
    assert "dmg=0,0" in after.to_text()


async def test_a_long_game_name_is_not_repeated_whole(house: House) -> None:
    typed = "hokito" + "x" * 5000
    with pytest.raises(ServiceError) as refused:
        await house.service.start(HERE, ALICE, GameSetup(typed), [BOB])
    said = str(refused.value.text)
    assert said.startswith(f"There is no game '{typed[:40]}…'. Games: "), said
    assert len(said) < 200, said
