"""Replies follow each game's declared facts: points only where a game has them, hints only
where a game offers them."""

from __future__ import annotations

from host.model import Reply
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOB, HERE


def labels(reply: Reply) -> list[str]:
    return [choice.label for choice in (*reply.picks, *reply.actions)]


async def test_a_game_without_points_shows_none_even_at_its_end(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("everest", seed=1, seat="first"), [BOB])
    [board] = await service.accept(HERE, BOB)
    assert board.fields == ()
    [end] = await service.resign(HERE, ALICE)
    assert "point" not in end.text and "Scores" not in end.text
    assert end.text.endswith("alice resigned. bob (Blue) wins.")


async def test_a_game_with_points_shows_each_seats(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    [board] = await service.accept(HERE, BOB)
    assert [name for name, _ in board.fields] == ["alice (Black)", "bob (White)"]
    assert all(value.endswith("points") for _, value in board.fields)
    [end] = await service.resign(HERE, BOB)
    assert "Scores: alice (Black)" in end.text and "alice (Black) wins." in end.text


async def test_only_a_game_that_offers_hints_has_the_button(service: GameService) -> None:
    [practice] = await service.start(HERE, ALICE, GameSetup("hillbert", seed=4))
    assert "Hint" in labels(practice)
    assert practice.fields == (("alice", "0 points"),)
    await service.resign(HERE, ALICE)
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1), [BOB])
    [duel] = await service.accept(HERE, BOB)
    assert "Hint" not in labels(duel)
