"""/games mine: a player's games in every server, waiting on them first, paged; and
/games here, this server's."""

from __future__ import annotations

import re

import pytest

from engine.text import speaking
from host import i18n
from host.commands.game_lists import PAGE_SIZE
from host.model import Channel, ServiceError, User
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


async def test_mine_orders_the_games_waiting_on_you_by_their_deadlines(
    service: GameService,
) -> None:
    """The games waiting on alice first, the soonest to run out first (a challenge she
    has not answered runs out as it lapses, a day on; a solo game never does), each with
    its deadline as a date and a time from now; then the others."""

    async def begun(channel_id: int, minutes: int, first: User = ALICE) -> Channel:
        where = Channel(channel_id=channel_id, guild_id=7)
        setup = GameSetup("hokito", seed=1, seat="first", deadline_minutes=minutes)
        await service.start(where, first, setup, [BOB if first == ALICE else ALICE])
        await service.accept(where, BOB if first == ALICE else ALICE)
        return where

    await begun(601, 600)  # alice to move, ten hours
    await service.start(Channel(602, 7), CAROL, GameSetup("hokito", seed=2), [ALICE])
    await service.start(Channel(603, 8), ALICE, GameSetup("hillbert", seed=1))  # no deadline
    await begun(604, 60)  # alice to move, an hour
    await begun(605, 5, first=BOB)  # bob to move
    await begun(606, 2 * 24 * 60)  # alice to move, two days: after the challenge
    [mine] = await service.my_games(ALICE)
    assert mine.title == "Your games: 5 waiting for you"
    order = [int(n) for n in re.findall(r"<#(\d+)>", mine.text)]
    assert order == [604, 601, 602, 606, 603, 605]
    yours, others = mine.text.split("\n\n")
    assert "<#605>" in others and "<#605>" not in yours
    [hour] = [line for line in yours.splitlines() if "<#604>" in line]
    due = re.search(r"due <t:(\d+):f> \(<t:(\d+):R>\)", hour)
    assert due is not None and due.group(1) == due.group(2)
    [challenge] = [line for line in yours.splitlines() if "<#602>" in line]
    assert "(challenge) · open until <t:" in challenge
    [solo] = [line for line in yours.splitlines() if "<#603>" in line]
    assert "<t:" not in solo


async def test_mine_keeps_its_order_across_pages(service: GameService) -> None:
    """Paged, the list goes on where the first page left off: the games waiting on alice,
    soonest first, run on into the second page."""
    for n in range(PAGE_SIZE + 2):
        where = Channel(channel_id=700 + n, guild_id=7)
        # The later the channel, the sooner its deadline.
        minutes = (PAGE_SIZE + 2 - n) * 60
        setup = GameSetup("hokito", seed=n, seat="first", deadline_minutes=minutes)
        await service.start(where, ALICE, setup, [BOB])
        await service.accept(where, BOB)
    [first] = await service.my_games(ALICE)
    [second] = await service.press(HERE, ALICE, first.actions[1].payload)
    order = [int(n) for n in re.findall(r"<#(\d+)>", first.text + second.text)]
    assert order == [700 + n for n in reversed(range(PAGE_SIZE + 2))]
