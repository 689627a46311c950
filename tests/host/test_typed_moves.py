"""A typed move sent twice (a double Enter on a slow connection) is applied once, in every
game; a deliberate second move is not mistaken for a copy."""

from __future__ import annotations

import asyncio

import pytest

from engine import registry
from host.model import ServiceError, User, offered_move
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import ADMIN, ALICE, BOB, HERE

GAMES = [g.id for g in registry.all_games()]


async def start(service: GameService, game_id: str) -> list[User]:
    game = registry.get(game_id)
    if game.max_players == 1:
        await service.start(HERE, ALICE, GameSetup(game_id, seed=3))
        return [ALICE]
    await service.admin_start(HERE, ADMIN, GameSetup(game_id, seed=3), [ALICE, BOB])
    return [ALICE, BOB]


async def stored_ply(service: GameService) -> int:
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None
    return record.ply


async def someone_to_move(service: GameService, people: list[User]) -> tuple[User, str]:
    for person in people:
        offered = await service.suggest_moves(HERE, person, "")
        if offered:
            return person, offered[0].value
    raise AssertionError("nobody has a move to make")


@pytest.mark.parametrize("game_id", GAMES)
async def test_the_same_suggested_move_sent_twice_at_once_is_applied_once(
    service: GameService, game_id: str
) -> None:
    people = await start(service, game_id)
    ply = await stored_ply(service)
    person, value = await someone_to_move(service, people)
    results = await asyncio.gather(
        service.move(HERE, person, value), service.move(HERE, person, value), return_exceptions=True
    )
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(refused) == 1 and "offered for an earlier turn" in str(refused[0])
    assert await stored_ply(service) == ply + 1


@pytest.mark.parametrize("game_id", GAMES)
async def test_a_suggested_move_sent_again_later_is_refused(
    service: GameService, game_id: str
) -> None:
    people = await start(service, game_id)
    person, value = await someone_to_move(service, people)
    await service.move(HERE, person, value)
    ply = await stored_ply(service)
    with pytest.raises(ServiceError, match="offered for an earlier turn"):
        await service.move(HERE, person, value)
    assert await stored_ply(service) == ply


async def test_a_solo_player_may_make_the_same_move_twice_on_purpose(
    service: GameService,
) -> None:
    await start(service, "hillbert")
    first = (await service.suggest_moves(HERE, ALICE, ""))[0]
    await service.move(HERE, ALICE, first.value)
    # The same move (its description may change with the position it is played from).
    move = first.label.split(": ")[0]
    again = next(
        s for s in await service.suggest_moves(HERE, ALICE, "") if s.label.split(": ")[0] == move
    )
    assert again.value != first.value  # offered anew, for the new turn
    [reply] = await service.move(HERE, ALICE, again.value)
    assert await stored_ply(service) == 2 and "move 2" in reply.title
    # A move typed by hand names no turn: it is judged on the game as it stands.
    assert offered_move(first.label) == (first.label, None)


async def test_another_players_move_does_not_spoil_a_plan_offered_earlier(
    service: GameService,
) -> None:
    await start(service, "everest")
    bobs_plan = (await service.suggest_moves(HERE, BOB, ""))[0].value
    await service.move(HERE, ALICE, (await service.suggest_moves(HERE, ALICE, ""))[0].value)
    await service.move(HERE, BOB, bobs_plan)  # offered at ply 0, still his to make
    assert await stored_ply(service) >= 2


def test_offered_moves_read_their_turn_and_nothing_else() -> None:
    assert offered_move("c2-c4 @12") == ("c2-c4", 12)
    assert offered_move("0N AN 2N @0") == ("0N AN 2N", 0)
    assert offered_move("c2-c4 @1²") == ("c2-c4 @1²", None)
    assert offered_move("c2-c4@12") == ("c2-c4@12", None)


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("sent", ["x" * 5000, "q " * 2500])
async def test_a_long_bad_move_is_repeated_back_cut_short(
    service: GameService, game_id: str, sent: str
) -> None:
    people = await start(service, game_id)
    person, _ = await someone_to_move(service, people)
    with pytest.raises(ServiceError) as refused:
        await service.move(HERE, person, sent)
    said = str(refused.value.text)
    assert len(said) < 400 and sent[:40].strip() in said and "…" in said, said
