"""Playing on a game's page, through the service: the builder a page shows, a move made
there committed as a move on Discord is, refused when the page is out of date, and told in
the game's channel once, by the process that owns the server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from data.storage import Storage
from host.face import (
    Channel,
    House,
    PageNotFoundError,
    Reply,
    ServerChange,
    ServiceError,
    SignInNeededError,
    Visitor,
    Where,
)
from host.setup import GameSetup
from tests.host.conftest import ADMIN, ALICE, BOB, HERE
from tests.houses import BOT, house_of

ALICE_SIGNED_IN = Visitor(ALICE.id, ALICE.name, frozenset({HERE.guild_id or 0}))
BOB_SIGNED_IN = Visitor(BOB.id, BOB.name, frozenset({HERE.guild_id or 0}))


@pytest.fixture
async def house(storage: Storage) -> AsyncIterator[House]:
    built = house_of(storage)
    try:
        await built.service.server_settings(HERE, ADMIN, ServerChange(web="public", name="Hill"))
        yield built
    finally:
        built.close()


async def hokito(house: House) -> int:
    [challenge] = await house.service.start(
        HERE, ALICE, GameSetup("hokito", seed=5, seat="first"), [BOB]
    )
    await house.service.accept(HERE, BOB)
    assert challenge.game_id is not None
    return challenge.game_id


class Posts:
    """What the owning process posted, where."""

    def __init__(self) -> None:
        self.made: list[tuple[Where, list[Reply]]] = []

    async def __call__(self, where: Where, replies: list[Reply]) -> None:
        self.made.append((where, replies))


async def test_the_player_to_move_builds_a_move_a_choice_at_a_time(house: House) -> None:
    game = await hokito(house)
    pages = house.pages
    first = await pages.offered(game, ALICE_SIGNED_IN)
    assert first is not None and first.ply == 0 and first.prefix == ()
    assert first.prompt == "Choose a pawn or stack to move."
    assert {c.step for c in first.choices} >= {("b2",), ("a1",)}
    # Bob is not to move, and nobody who is not signed in plays.
    assert await pages.offered(game, BOB_SIGNED_IN) is None
    assert await pages.offered(game, Visitor()) is None
    with pytest.raises(SignInNeededError):
        await pages.panel(game, Visitor(), 0, ())
    second = await pages.panel(game, ALICE_SIGNED_IN, 0, ("b2",))
    assert second.back == () and second.confirm is None
    assert ("b2", "b1") in {c.step for c in second.choices}
    picture, drawn = await pages.panel_picture(game, ALICE_SIGNED_IN, 0, ("b2",))
    assert picture.startswith(b"\x89PNG") and drawn.size[0] > 0


async def test_a_move_made_on_the_page_is_told_in_its_channel_once(house: House) -> None:
    game = await hokito(house)
    done = await house.pages.play_move(game, ALICE_SIGNED_IN, 0, ("b2", "b1"))
    assert done.ply == 1 and done.text == "Done: b2-b1."
    posts = Posts()
    assert await house.service.tell_untold(posts, game) == 1
    [(where, [board])] = posts.made
    assert isinstance(where, Channel) and where.channel_id == HERE.channel_id
    assert "alice played b2-b1" in board.text
    assert [u.id for u in board.mentions] == [BOB.id]
    # Told once: neither the change feed's call nor the sweep posts it again.
    assert await house.service.tell_untold(posts, game) == 0
    assert await house.service.tell_untold(posts) == 0
    assert len(posts.made) == 1


async def test_the_sweep_tells_the_moves_nobody_told(house: House) -> None:
    game = await hokito(house)
    await house.pages.play_move(game, ALICE_SIGNED_IN, 0, ("b2", "b1"))
    posts = Posts()
    assert await house.service.tell_untold(posts) == 1
    assert "alice played b2-b1" in posts.made[0][1][0].text


async def test_a_move_on_discord_is_not_told_again(house: House) -> None:
    game = await hokito(house)
    await house.service.move(HERE, ALICE, "b2-b1")
    posts = Posts()
    assert await house.service.tell_untold(posts, game) == 0
    assert await house.service.tell_untold(posts) == 0


async def test_a_page_out_of_date_is_refused_and_changes_nothing(house: House) -> None:
    game = await hokito(house)
    await house.pages.play_move(game, ALICE_SIGNED_IN, 0, ("b2", "b1"))
    # The same confirm clicked twice, or from a second tab drawn at the same move.
    with pytest.raises(ServiceError, match="out of date"):
        await house.pages.play_move(game, ALICE_SIGNED_IN, 0, ("b2", "b1"))
    # Not Alice's turn any more, whatever her page says.
    with pytest.raises(ServiceError, match="not your turn"):
        await house.pages.play_move(game, ALICE_SIGNED_IN, 1, ("c1", "b1"))
    # Nonsense is refused as such.
    with pytest.raises(ServiceError):
        await house.pages.play_move(game, BOB_SIGNED_IN, 1, ("zz9",))
    with pytest.raises(ServiceError):
        await house.pages.play_move(game, BOB_SIGNED_IN, 1, ("x" * 500,))
    record = await house.service.repository.get_game(game)
    assert record is not None and record.ply == 1


async def test_a_game_of_a_closed_server_cannot_be_played_from_a_page(house: House) -> None:
    game = await hokito(house)
    await house.service.server_settings(HERE, ADMIN, ServerChange(web="off"))
    with pytest.raises(PageNotFoundError):
        await house.pages.play_move(game, ALICE_SIGNED_IN, 0, ("b2", "b1"))
    record = await house.service.repository.get_game(game)
    assert record is not None and record.ply == 0


async def test_the_computer_answers_a_move_made_on_a_page_where_the_channel_is_told(
    house: House,
) -> None:
    [board] = await house.service.start(
        HERE, ALICE, GameSetup("hokito", seed=5, seat="first", level="easy"), [BOT]
    )
    assert board.game_id is not None
    done = await house.pages.play_move(board.game_id, ALICE_SIGNED_IN, 0, ("b2", "b1"))
    # The page's process played nothing for the computer.
    record = await house.service.repository.get_game(board.game_id)
    assert record is not None and record.ply == done.ply == 1
    posts = Posts()
    assert await house.service.tell_untold(posts, board.game_id) == 1
    [(_, [told])] = posts.made
    assert "alice played b2-b1" in told.text
    # The computer's answer is in the same post.
    assert "hilltop (White, easy computer) played" in told.text
    record = await house.service.repository.get_game(board.game_id)
    assert record is not None and record.ply == 2
    # Told once: the computer's move is not told again, by the feed or the sweep.
    assert await house.service.tell_untold(posts, board.game_id) == 0
    assert await house.service.tell_untold(posts) == 0
    assert len(posts.made) == 1


async def test_moves_made_on_the_page_while_another_is_told_are_told_next(house: House) -> None:
    game = await hokito(house)
    await house.pages.play_move(game, ALICE_SIGNED_IN, 0, ("b2", "b1"))
    posts = Posts()
    # Bob moves on the page before Alice's move is told: one post tells both.
    await house.pages.play_move(game, BOB_SIGNED_IN, 1, ("a5", "a4"))
    assert await house.service.tell_untold(posts, game) == 1
    text = posts.made[0][1][0].text
    assert "alice played b2-b1" in text and "bob played a5-a4" in text
    # A move on Discord is told by its own reply; a page's move after it, by the next post.
    await house.service.move(HERE, ALICE, "a1-c1")
    await house.pages.play_move(game, BOB_SIGNED_IN, 3, ("b4", "a3"))
    assert await house.service.tell_untold(posts, game) == 1
    text = posts.made[1][1][0].text
    assert "bob played b4-a3" in text and "a1-c1" not in text
    assert await house.service.tell_untold(posts) == 0


async def test_a_takeback_earlier_in_the_game_does_not_silence_the_post(house: House) -> None:
    game = await hokito(house)
    await house.service.move(HERE, ALICE, "b2-b1")
    [offer] = await house.service.takeback(HERE, ALICE)
    assert offer.actions, offer.text
    await house.service.press(HERE, BOB, offer.actions[0].payload)
    loaded = await house.service.loaded(game)
    assert loaded.record.ply == 2 and loaded.last_move is None  # the move taken back
    await house.pages.play_move(game, ALICE_SIGNED_IN, 2, ("b2", "b1"))
    posts = Posts()
    assert await house.service.tell_untold(posts, game) == 1
    [(_, [told])] = posts.made
    assert "alice played b2-b1" in told.text
    assert [u.id for u in told.mentions] == [BOB.id]


def test_signing_in_and_out_return_only_to_this_sites_own_pages() -> None:
    from web.auth import safe_next

    assert safe_next("/g/5") == "/g/5"
    assert safe_next("/.proxy/a/g/5") == "/.proxy/a/g/5"
    # Elsewhere, or what a browser reads as elsewhere once it drops tabs and newlines.
    for away in ("//evil.example", "/\\evil.example", "https://evil.example", "/\t/evil", "/\n/x"):
        assert safe_next(away) == "/", away
