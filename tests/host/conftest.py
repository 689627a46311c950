from __future__ import annotations

import pytest

from data.storage import Storage
from host.model import Channel, User
from host.service import GameService

ALICE = User(1001, "alice")
BOB = User(1002, "bob")
CAROL = User(1003, "carol")
ADMIN = User(1004, "root", is_admin=True)
BOT = User(9999, "hilltop", is_bot=True)
HERE = Channel(channel_id=500, guild_id=7, name="general")
THREAD = Channel(channel_id=501, guild_id=7, name="thread")
#: Everest, two yeti in a roll-off whose winner (bob) picks one of two outcomes.
ROLL_OFF = (
    "everest n=2 cap=30 round=2 stage=pick step=1 pos=a1,e1 aside=-,- dmg=0,0 peak=- "
    "plans=2E+s0N+sAN,2W+s0N+sAN pick=act:1 result=- rng=0:0 ev=reveal,step.1,dice.3.5"
)

# Black (alice, first seat) to move a1-a2, after which White has no move: Black wins 36-0.
A1 = "w2" * 6 + "w3" * 6 + "b3" * 5 + "b1"
A2 = "b2" * 6 + "b1" * 5 + "b3" + "w1" * 6
EMPTY_RANK = ",".join("." * 6)
ENDGAME = "/".join([EMPTY_RANK] * 4 + [A2 + ",.,.,.,.,.", A1 + ",.,.,.,.,."]) + " b"


def make_service(storage: Storage, *, images: bool = False) -> GameService:
    """A service on `storage`; another one on the same storage is another process."""
    return GameService(
        storage.games,
        bot_user=BOT,
        render_images=images,
        ratings=storage.ratings,
    )


@pytest.fixture
def service(storage: Storage) -> GameService:
    return make_service(storage)


async def each_moves_once(service: GameService, where: Channel, *players: User) -> None:
    """Each of `players`, in turn (the first to move first), makes its first suggested
    move: a game nobody played is aborted, and never rated."""
    for player in players:
        [move, *_] = await service.suggest_moves(where, player, "")
        await service.move(where, player, move.value)
