"""The web pages over the service, served by the site and read as a browser would (without
one): who may see what, what each page says, and a game that updates itself."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from aiohttp import ClientResponse, web
from aiohttp.test_utils import TestClient, TestServer

from console.front import console_front
from data.storage import Storage
from host import catalog
from host.face import FrontEnd, House, HouseSettings, ServerChange, build_house
from host.model import Channel, User
from host.setup import GameSetup
from tests.host.conftest import ADMIN, ALICE, BOB, BOT, HERE
from tests.houses import house_of
from tests.toygame import pebbles_registered
from web.app import make_app
from web.auth import SESSION, sign
from web.config import WebConfig

ELSEWHERE = Channel(channel_id=800, guild_id=8, name="elsewhere")
CLOSED = Channel(channel_id=900, guild_id=9, name="closed")
CONFIG = WebConfig(url="http://127.0.0.1:8080")


@pytest.fixture
async def house(storage: Storage) -> AsyncIterator[House]:
    built = house_of(storage, front=FrontEnd(BOT), render_images=True)
    yield built
    built.close()


@pytest.fixture
async def client(house: House) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    async with TestClient(TestServer(make_app(house.pages, CONFIG))) as client:
        yield client


async def open_pages(house: House, where: Channel, access: str = "public") -> None:
    await house.service.server_settings(
        where, ADMIN, ServerChange(web=access, name=f"{where.name} club")
    )


async def hokito(house: House, where: Channel = HERE, moves: int = 0) -> int:
    [challenge] = await house.service.start(
        where, ALICE, GameSetup("hokito", seed=5, seat="first"), [BOB]
    )
    await house.service.accept(where, BOB)
    for i in range(moves):
        await move(house, where, (ALICE, BOB)[i % 2])
    assert challenge.game_id is not None
    return challenge.game_id


async def move(house: House, where: Channel, user: User) -> str:
    [suggestion, *_] = await house.service.suggest_moves(where, user, "")
    await house.service.move(where, user, suggestion.value)
    return suggestion.value.split(" @")[0]


async def text(response: ClientResponse) -> str:
    return await response.text()


async def test_a_servers_pages_exist_only_once_an_admin_opens_them(
    house: House, client: TestClient[web.Request, web.Application]
) -> None:
    game = await hokito(house)
    closed = await client.get(f"/s/{HERE.guild_id}")
    unknown = await client.get("/s/123456789")
    closed_game = await client.get(f"/g/{game}")
    assert (closed.status, unknown.status, closed_game.status) == (404, 404, 404)
    # Nothing tells a closed server from one that does not exist.
    assert await text(closed) == (await text(unknown)).replace("123456789", str(HERE.guild_id))
    await open_pages(house, HERE)
    page = await client.get(f"/s/{HERE.guild_id}")
    assert page.status == 200
    body = await text(page)
    assert "general club" in body and f'href="/g/{game}"' in body
    assert "alice (Black)" in body and "bob (White)" in body


async def test_another_servers_games_stay_on_their_own_pages(
    house: House, client: TestClient[web.Request, web.Application]
) -> None:
    await open_pages(house, HERE)
    await open_pages(house, ELSEWHERE)
    ours, theirs = await hokito(house), await hokito(house, ELSEWHERE)
    closed = await hokito(house, CLOSED)
    body = await text(await client.get(f"/s/{HERE.guild_id}"))
    assert f"/g/{ours}" in body and f"/g/{theirs}" not in body
    assert (await client.get(f"/g/{theirs}")).status == 200
    assert (await client.get(f"/g/{closed}")).status == 404
    for path in (f"/g/{closed}/board.png", f"/g/{closed}/replay", f"/g/{closed}/record.txt"):
        assert (await client.get(path)).status == 404, path
    # Ids out of range, or not numbers, are pages that do not exist, not errors.
    for path in (f"/g/{2**63}", "/g/abc", "/s/-1", f"/s/{2**64}/history"):
        assert (await client.get(path)).status == 404, path


async def test_a_direct_message_game_never_has_a_page(
    house: House, client: TestClient[web.Request, web.Application]
) -> None:
    direct = Channel(channel_id=42, guild_id=None, name="dm")
    [board] = await house.service.start(direct, ALICE, GameSetup("hokito", seed=5), [BOT])
    game = board.game_id
    assert game is not None and (await house.pages.sessions.visitor(None, "en")).user_id is None
    assert (await client.get(f"/g/{game}")).status == 404


async def test_the_game_page_tells_every_move_whose_turn_and_the_players(
    house: House, client: TestClient[web.Request, web.Application]
) -> None:
    await open_pages(house, HERE)
    game = await hokito(house)
    played = [await move(house, HERE, ALICE), await move(house, HERE, BOB)]
    body = await text(await client.get(f"/g/{game}"))
    assert f"alice (Black) played {played[0]}" in body
    assert f"bob (White) played {played[1]}" in body
    assert "alice (Black) to move." in body
    assert 'class="to-act"' in body and f"/g/{game}/board.png?ply=2" in body
    picture = await client.get(f"/g/{game}/board.png?ply=2")
    assert picture.status == 200 and picture.content_type == "image/png"
    again = await client.get(
        f"/g/{game}/board.png?ply=2", headers={"If-None-Match": picture.headers["ETag"]}
    )
    assert again.status == 304


async def test_the_page_is_in_the_readers_language(
    house: House, client: TestClient[web.Request, web.Application]
) -> None:
    await open_pages(house, HERE)
    game = await hokito(house, moves=1)
    polish = await client.get(f"/g/{game}", headers={"Accept-Language": "pl-PL,pl;q=0.9"})
    body = await text(polish)
    assert '<html lang="pl">' in body and "Każdy ruch" in body
    chosen = await client.get(f"/g/{game}?lang=en", headers={"Accept-Language": "pl"})
    assert '<html lang="en">' in await text(chosen)


def names_on_the_front_page(body: str, and_word: str) -> list[str]:
    """The games the front page's first sentence names, in its order."""
    found = re.search(r"<p>[^<]*: ([^<]*)\.</p>", body)
    assert found is not None, body
    return re.split(rf",? {and_word} |, ", found.group(1))


async def test_the_front_page_names_every_game_of_the_catalogue_in_the_readers_language(
    client: TestClient[web.Request, web.Application],
) -> None:
    listed = [listing.game.name for listing in catalog.all_listings()]
    english = await text(await client.get("/"))
    assert names_on_the_front_page(english, "and") == listed
    # A game added to the catalogue is named with the others, in the catalogue's order.
    with pebbles_registered() as pebbles:
        added = await text(await client.get("/"))
        polish = await text(await client.get("/", headers={"Accept-Language": "pl"}))
        more = [listing.game.name for listing in catalog.all_listings()]
    assert pebbles.game.name in more and pebbles.game.name not in listed
    assert names_on_the_front_page(added, "and") == more
    assert "Gry planszowe" in polish and names_on_the_front_page(polish, "i") == more


async def test_the_menu_links_the_ratings_of_the_first_game_that_has_them(
    house: House, client: TestClient[web.Request, web.Application]
) -> None:
    await open_pages(house, HERE)
    body = await text(await client.get(f"/s/{HERE.guild_id}"))
    [(first, name), *_] = house.pages.rating_games()
    found = re.search(r'<a href="([^"]*)">Ratings</a>', body)
    assert found is not None, body
    assert found.group(1) == f"/s/{HERE.guild_id}/ratings/{first}"
    ratings = await client.get(found.group(1))
    assert ratings.status == 200 and f"{name} ratings" in await text(ratings)


async def test_a_game_page_updates_itself_when_a_move_is_made(
    house: House, client: TestClient[web.Request, web.Application]
) -> None:
    await open_pages(house, HERE)
    game = await hokito(house)
    stream = await client.get(f"/g/{game}/events")
    assert stream.headers["Content-Type"] == "text/event-stream"
    assert await stream.content.readline() == b": open\n"
    played = await move(house, HERE, ALICE)
    event = await asyncio.wait_for(next_event(stream), 30)
    assert event["ply"] == 1 and event["status"] == "active"
    assert f"alice (Black) played {played}" in event["html"]
    assert "bob (White) to move." in event["html"]
    assert event["board"].startswith(f"/g/{game}/board.png?ply=1")
    stream.close()


async def next_event(stream: ClientResponse) -> dict[str, object]:
    data = None
    while True:
        line = (await stream.content.readline()).decode()
        if line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "\n" and data is not None:
            assert isinstance(data, dict)
            return data


async def test_the_replay_and_the_record_of_a_finished_game(
    house: House, client: TestClient[web.Request, web.Application]
) -> None:
    await open_pages(house, HERE)
    game = await hokito(house, moves=4)
    await house.service.resign(HERE, BOB, confirmed=True)
    body = await text(await client.get(f"/g/{game}/replay"))
    assert 'data-last="4"' in body and "The start." in body
    for frame in range(5):
        picture = await client.get(f"/g/{game}/frames/{frame}.png")
        assert picture.status == 200 and picture.content_type == "image/png"
    assert (await client.get(f"/g/{game}/frames/5.png")).status == 404
    record = await text(await client.get(f"/g/{game}/record.txt"))
    assert '[Game "hokito"]' in record and '[Result "1-0"]' in record
    history = await text(await client.get(f"/s/{HERE.guild_id}/history"))
    assert f'href="/g/{game}"' in history and "alice beat bob · bob resigned" in history
    mine = await text(await client.get(f"/s/{HERE.guild_id}/history?player={ALICE.id}"))
    assert "Finished games of alice" in mine
    profile = await client.get(f"/s/{HERE.guild_id}/u/{ALICE.id}")
    assert profile.status == 200 and "Profile: alice" in await text(profile)
    ratings = await text(await client.get(f"/s/{HERE.guild_id}/ratings/hokito"))
    assert "Hokito ratings: this server" in ratings and "alice" in ratings
    # Someone who never played here has no profile here.
    assert (await client.get(f"/s/{HERE.guild_id}/u/5555")).status == 404


async def test_players_text_is_never_markup(
    house: House, client: TestClient[web.Request, web.Application]
) -> None:
    await open_pages(house, HERE)
    mallory = User(1666, "<script>alert(1)</script>")
    [challenge] = await house.service.start(HERE, mallory, GameSetup("hokito", seed=1), [BOB])
    await house.service.accept(HERE, BOB)
    body = await text(await client.get(f"/g/{challenge.game_id}"))
    assert "<script>alert" not in body and "&lt;script&gt;alert(1)&lt;/script&gt;" in body


async def test_members_only_pages_need_a_signed_in_member(house: House, storage: Storage) -> None:
    await open_pages(house, HERE, "members")
    game = await hokito(house)
    config = replace(CONFIG, client_id="1", client_secret="secret")
    async with TestClient(TestServer(make_app(house.pages, config))) as client:
        anonymous = await client.get(f"/g/{game}", allow_redirects=False)
        assert anonymous.status == 302
        assert anonymous.headers["Location"] == f"/login?next=/g/{game}"
        member = await house.pages.sessions.sign_in(ALICE.id, "alice", [HERE.guild_id or 0])
        stranger = await house.pages.sessions.sign_in(BOB.id, "bob", [ELSEWHERE.guild_id or 0])
        client.session.cookie_jar.update_cookies({SESSION: sign(config, member)})
        assert (await client.get(f"/g/{game}")).status == 200
        client.session.cookie_jar.update_cookies({SESSION: sign(config, stranger)})
        assert (await client.get(f"/g/{game}")).status == 404
        # A token not signed by this site is nobody's.
        client.session.cookie_jar.update_cookies({SESSION: f"{member}.forged"})
        assert (await client.get(f"/g/{game}", allow_redirects=False)).status == 302


async def test_the_board_posted_links_to_its_page_once_the_pages_are_open(
    storage: Storage,
) -> None:
    settings = HouseSettings(render_images=False, web_url="https://hilltop.example/")
    house = build_house(storage, settings, FrontEnd(BOT))
    try:
        [challenge] = await house.service.start(HERE, ALICE, GameSetup("hokito", seed=5), [BOB])
        [board] = await house.service.accept(HERE, BOB)
        assert board.url == ""
        await open_pages(house, HERE)
        [board] = await house.service.board(HERE)
        assert board.url == f"https://hilltop.example/g/{challenge.game_id}"
    finally:
        house.close()


async def test_the_consoles_server_page_says_how_to_start_a_game_in_the_console(
    storage: Storage,
) -> None:
    built = house_of(storage, front=console_front())
    try:
        config = replace(CONFIG, console=True)
        async with TestClient(TestServer(make_app(built.pages, config))) as console_client:
            page = await text(await console_client.get("/s/1"))
    finally:
        built.close()
    assert "Start one in the console with /play" in page, page
    assert "in Discord" not in page
