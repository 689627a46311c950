"""Servers and games for the web pages' tests, made through the service as players and
admins make them."""

from __future__ import annotations

from host.face import Channel, GameService, GameSetup, ServerChange, User

ALICE = User(1001, "alice")
BOB = User(1002, "bob")
CAROL = User(1003, "carol")
ADMIN = User(1004, "root", is_admin=True)

#: A server that opens its pages, with two channels; another that never does.
HILL = 7
HERE = Channel(channel_id=500, guild_id=HILL, name="general")
BESIDE = Channel(channel_id=501, guild_id=HILL, name="games")
CLOSED = 8
THERE = Channel(channel_id=800, guild_id=CLOSED, name="general")
#: A third server, whose pages are open too.
OTHER = 9
YONDER = Channel(channel_id=900, guild_id=OTHER, name="general")
#: No server has this id.
UNKNOWN = 4242


async def open_pages(
    service: GameService, where: Channel, access: str = "public", name: str = "The Hill"
) -> None:
    """An admin of `where`'s server shows its pages (`/admin settings web:`)."""
    await service.server_settings(where, ADMIN, ServerChange(web=access, name=name))


async def play_moves(service: GameService, where: Channel, players: list[User], n: int) -> None:
    """`n` moves, each player in turn making the first move suggested to them."""
    for i in range(n):
        user = players[i % len(players)]
        [move, *_] = await service.suggest_moves(where, user, "")
        await service.move(where, user, move.value)


async def hokito(
    service: GameService, where: Channel, first: User = ALICE, second: User = BOB
) -> int:
    """A game of Hokito between `first` (who moves first) and `second`, begun: its id."""
    [challenge] = await service.start(
        where, first, GameSetup("hokito", seed=5, seat="first"), [second]
    )
    await service.accept(where, second)
    assert challenge.game_id is not None
    return challenge.game_id


async def finished_hokito(
    service: GameService,
    where: Channel,
    moves: int = 6,
    first: User = ALICE,
    second: User = BOB,
) -> int:
    """A game of Hokito of `moves` moves that `second` then resigns: its id."""
    game_id = await hokito(service, where, first, second)
    await play_moves(service, where, [first, second], moves)
    await service.resign(where, second, confirmed=True)
    return game_id
