"""Game ids from outside (a command's option, a button's custom id): a game is followed
only from its own server, and an id no database can hold is no game, refused in words
without a query."""

from __future__ import annotations

import pytest

from data.repository import MAX_ID
from data.storage import Storage
from host.model import Channel, Reply, ServiceError
from host.payloads import Action, Payload
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOB, CAROL, HERE, THREAD

ELSEWHERE = Channel(channel_id=800, guild_id=8, name="another-server")
DIRECT = Channel(channel_id=900, guild_id=None, name="")


def follow_button(board: Reply) -> Payload:
    return next(a for a in board.actions if a.label == "Follow").payload


async def test_a_game_is_followed_only_from_its_own_server(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    [board] = await service.accept(HERE, BOB)
    follow = follow_button(board)
    for where in (ELSEWHERE, DIRECT):
        with pytest.raises(ServiceError) as refused:
            await service.press(where, CAROL, follow)
        assert str(refused.value) == f"There is no game {follow.game_id} here."
    assert await service.following.of(follow.game_id) == ()
    # Anywhere in its own server (a thread of it too) is fine.
    [followed] = await service.press(THREAD, CAROL, follow)
    assert "You follow this game" in followed.text
    assert [u.name for u in await service.following.of(follow.game_id)] == ["carol"]


async def test_a_game_played_in_a_direct_message_cannot_be_followed(
    service: GameService,
) -> None:
    bot = service.bot_user
    [board] = await service.start(DIRECT, ALICE, GameSetup("hokito", seed=1, seat="first"), [bot])
    with pytest.raises(ServiceError, match=r"There is no game [0-9]+ here"):
        await service.press(Channel(901, None, ""), CAROL, follow_button(board))


@pytest.mark.parametrize("game_id", [MAX_ID + 1, 2**64, 10**19 - 1])
async def test_an_id_beyond_what_a_database_holds_is_no_game(
    storage: Storage, service: GameService, game_id: int
) -> None:
    assert await storage.games.get_game(game_id) is None
    assert await storage.games.game_with_moves(game_id) is None
    with pytest.raises(ServiceError, match=f"There is no game {game_id} here"):
        await service.game_record(HERE, game_id)
    with pytest.raises(ServiceError, match=f"There is no game {game_id} here"):
        await service.replay(HERE, game_id)
    for action in (Action.FOLLOW, Action.DOWNLOAD, Action.REPLAY, Action.RESIGN, Action.HISTORY):
        with pytest.raises(ServiceError, match="That game does not exist"):
            await service.press(HERE, CAROL, Payload(action, game_id, 0))
    # The largest id a database holds is asked for as usual: it is just not there.
    with pytest.raises(ServiceError, match=f"There is no game {MAX_ID} here"):
        await service.game_record(HERE, MAX_ID)
