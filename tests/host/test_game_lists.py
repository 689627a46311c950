"""/games mine: a player's games in every server, waiting on them first, paged; and
/games here, this server's."""

from __future__ import annotations

import pytest

from engine.text import speaking
from host import i18n
from host.commands.game_lists import PAGE_SIZE
from host.model import Channel, ServiceError
from host.payloads import Action
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOB, CAROL, HERE


async def test_mine_lists_every_server_waiting_on_you_first(service: GameService) -> None:
    elsewhere = Channel(channel_id=800, guild_id=8, name="other-server")
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    await service.accept(HERE, BOB)  # alice to move here
    await service.start(elsewhere, ALICE, GameSetup("molehill", seed=1, seat="second"), [CAROL])
    await service.accept(elsewhere, CAROL)  # carol (the mole) to move there
    third = Channel(channel_id=801, guild_id=8)
    await service.start(third, CAROL, GameSetup("hokito", seed=2), [BOB])  # not alice's
    [mine] = await service.my_games(ALICE)
    assert mine.ephemeral and mine.title == "Your games: 1 waiting for you"
    your_turn, others = mine.text.split("\n\n")
    assert "<#500> · Hokito: alice vs bob · move 0" in your_turn
    assert "<#800> · Mole Hill: carol vs alice" in others
    assert "<#801>" not in mine.text
    assert mine.actions == ()  # one page


async def test_mine_pages_with_buttons_only_for_its_owner(service: GameService) -> None:
    for n in range(PAGE_SIZE + 2):
        where = Channel(channel_id=900 + n, guild_id=7)
        await service.start(where, ALICE, GameSetup("hokito", seed=n, seat="first"), [BOB])
    [first] = await service.my_games(ALICE)
    assert first.footer == "Page 1 of 2" and first.text.count("<#") == PAGE_SIZE
    back, forward = first.actions
    assert back.disabled and not forward.disabled and forward.payload.action == Action.MY_GAMES
    with pytest.raises(ServiceError, match="someone else's"):
        await service.press(HERE, BOB, forward.payload)
    [second] = await service.press(HERE, ALICE, forward.payload)
    assert second.edit and second.footer == "Page 2 of 2"
    assert second.text.count("<#") == 2


async def test_mine_with_no_games_says_how_to_start(service: GameService) -> None:
    [mine] = await service.my_games(ALICE)
    assert "You are in no game now. Start one with /play" in mine.text


async def test_mine_names_the_link_to_the_board_in_the_players_language(
    service: GameService,
) -> None:
    i18n.install()
    service = GameService(
        service.repository,
        bot_user=service.bot_user,
        render_images=False,
        link=lambda record: f"https://boards.example/{record.id}",
    )
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    await service.accept(HERE, BOB)
    with speaking("pl"):
        [mine] = await service.my_games(ALICE)
    assert "· [plansza](https://boards.example/" in mine.text
    assert "[board]" not in mine.text


async def test_here_pages_a_busy_server_with_your_turns_first(service: GameService) -> None:
    """A server with more live games than a page: the games waiting on the caller come
    first, then the others page by page; every game is listed once."""
    theirs = []
    for n in range(PAGE_SIZE + 3):  # carol and bob's games: none waits on alice
        where = Channel(channel_id=1000 + n, guild_id=HERE.guild_id)
        await service.start(where, CAROL, GameSetup("hokito", seed=n, seat="first"), [BOB])
        await service.accept(where, BOB)
        theirs.append(where.channel_id)
    waiting = []
    for n in range(2):  # alice to move in both
        where = Channel(channel_id=2000 + n, guild_id=HERE.guild_id)
        await service.start(where, ALICE, GameSetup("hokito", seed=n, seat="first"), [BOB])
        await service.accept(where, BOB)
        waiting.append(where.channel_id)
    elsewhere = Channel(channel_id=3000, guild_id=HERE.guild_id + 1)
    await service.start(elsewhere, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    [first] = await service.list_games(HERE, ALICE)
    assert first.title == f"{PAGE_SIZE + 5} active games" and first.footer == "Page 1 of 2"
    yours, others = first.text.split("\n\n")
    assert yours.startswith("**Your turn**") and others.startswith("**Other games**")
    assert [f"<#{c}>" in yours for c in waiting] == [True, True]
    assert "<#3000>" not in first.text
    back, forward = first.actions
    assert back.disabled and forward.payload.action == Action.GAMES_HERE
    with pytest.raises(ServiceError, match="someone else's"):
        await service.press(HERE, BOB, forward.payload)
    [second] = await service.press(HERE, ALICE, forward.payload)
    assert second.edit and second.footer == "Page 2 of 2" and "**Your turn**" not in second.text
    shown = first.text + second.text
    assert all(shown.count(f"<#{c}>") == 1 for c in theirs + waiting)
    # Bob is to move in none of them (alice and carol moved first): his list has no turns.
    [bobs] = await service.list_games(HERE, BOB)
    assert "**Your turn**" not in bobs.text


async def test_here_reads_whose_turn_without_loading_any_game(service: GameService) -> None:
    """Whose turn it is comes from the stored position: listing a server's games neither
    loads them into memory nor takes their locks."""
    where = Channel(channel_id=1000, guild_id=HERE.guild_id)
    [challenge] = await service.start(
        where, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB]
    )
    await service.accept(where, BOB)
    game_id = challenge.game_id or 0
    service.live.forget(game_id)
    [listing] = await service.list_games(HERE, ALICE)
    assert "**Your turn**\n<#1000>" in listing.text
    assert service.live.cached(game_id) is None
