"""Anyone may follow a game: pinged (or sent a direct message) at each move and at its
end; players' own pings are unchanged; Unfollow stops it."""

from __future__ import annotations

import pytest

from host.model import Direct, Reply, ServiceError, User
from host.payloads import Action, Payload
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOB, CAROL, HERE


def follow_button(board: Reply) -> Payload:
    return next(a for a in board.actions if a.label == "Follow").payload


async def play_one(service: GameService, user: User) -> Reply:
    [move, *_] = await service.suggest_moves(HERE, user, "")
    [reply] = await service.move(HERE, user, move.value)
    return reply


async def test_a_follower_is_pinged_at_each_move_and_at_the_end(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    [board] = await service.accept(HERE, BOB)
    with pytest.raises(ServiceError, match="You play in this game"):
        await service.press(HERE, ALICE, follow_button(board))
    [followed] = await service.press(HERE, CAROL, follow_button(board))
    assert followed.ephemeral and "You follow this game" in followed.text
    [unfollow] = followed.actions
    assert unfollow.payload.action == Action.UNFOLLOW
    moved = await play_one(service, ALICE)
    assert [u.name for u in moved.mentions] == ["bob"]  # bob's ping is unchanged
    assert [u.name for u in moved.followers] == ["carol"]  # told apart from the post
    [again] = await service.board(HERE)  # a board asked for again is no move: no ping
    assert [u.name for u in again.mentions] == [] and again.followers == ()
    [end] = await service.resign(HERE, BOB, confirmed=True)
    # The end: to the player who did not end it, and the follower; never the resigner.
    assert [u.name for u in end.mentions] == ["alice"]
    assert [u.name for u in end.followers] == ["carol"]


async def test_unfollow_stops_the_pings(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    [board] = await service.accept(HERE, BOB)
    [followed] = await service.press(HERE, CAROL, follow_button(board))
    [stopped] = await service.press(HERE, CAROL, followed.actions[0].payload)
    assert stopped.edit and "You no longer follow this game." in stopped.text
    moved = await play_one(service, ALICE)
    assert [u.name for u in moved.mentions] == ["bob"]


async def test_a_follower_who_wants_direct_messages_is_not_pinged(service: GameService) -> None:
    await service.notify(CAROL, dm=True)
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    [board] = await service.accept(HERE, BOB)
    await service.press(HERE, CAROL, follow_button(board))
    moved = await play_one(service, ALICE)
    assert [u.name for u in moved.mentions] == ["bob"]
    assert [u.name for u in moved.followers_direct] == ["carol"]
    [(where, [message])] = await service.follow_messages(board.game_id or 0, [CAROL])
    assert where == Direct(CAROL)
    assert "(Hokito: alice vs bob), after move 1:" in message.text
    assert "Now waiting for: bob (White)." in message.text


async def test_hundreds_of_followers_never_break_a_game(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    [board] = await service.accept(HERE, BOB)
    crowd = [User(1_250_000_000_000_000_000 + n, f"fan{n}") for n in range(300)]
    for fan in crowd:
        await service.press(HERE, fan, follow_button(board))
    moved = await play_one(service, ALICE)
    assert [u.name for u in moved.mentions] == ["bob"]
    assert len(moved.followers) == 300  # pinged by messages of their own, not the post
