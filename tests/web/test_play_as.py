"""Playing on the console's own pages: on the computer that runs the console, `/login`
signs the visitor in as a console player, whose moves there are the console player's own
and are told in the console's transcript; nowhere else."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import pytest
from aiohttp import ClientResponse, web
from aiohttp.test_utils import TestClient, TestServer
from playwright.async_api import Browser, expect

from console.front import Console, console_front
from console.lines import console_channel, console_user
from data.storage import Storage
from host.face import House, local_user
from tests.houses import house_of
from tests.web.browser import PHONE, open_tab, serving_pages
from tests.web.games import HERE, HILL, open_pages
from tests.web.play import CONFIG, take_turn
from web.app import make_app
from web.auth import SESSION, unsign
from web.play_as import NONCE, loopback

CONSOLE = replace(CONFIG, client_id="", client_secret="", console=True)
GENERAL = console_channel("general")
ALICE, CONSOLE_BOB = console_user("alice"), console_user("bob")

#: Where the browser test leaves its screenshots, to be looked at.
SHOTS = Path("/tmp/shots")


@pytest.fixture
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


Client = TestClient[web.Request, web.Application]


@pytest.fixture
async def console(
    storage: Storage, tmp_path: Path
) -> AsyncIterator[tuple[House, io.StringIO, Console]]:
    """A console's house, its transcript told the moves made on its pages."""
    house = house_of(storage, front=console_front(), render_images=True)
    out = io.StringIO()
    typed = Console(house, tmp_path / "out", out)
    stop = typed.watch_web()
    try:
        yield house, out, typed
    finally:
        stop()
        house.close()


@pytest.fixture
async def client(console: tuple[House, io.StringIO, Console]) -> AsyncIterator[Client]:
    async with TestClient(TestServer(make_app(console[0].pages, CONSOLE))) as opened:
        yield opened


async def choosing(client: Client, name: str, **extra: str) -> ClientResponse:
    """The "Play as" page read, then `name` chosen on it."""
    page = await (await client.get("/login", params={"next": "/s/1"})).text()
    check = re.search(r'name="check" value="([0-9a-f]+)"', page)
    assert check, page
    form = {"name": name, "check": check.group(1), "next": "/s/1", **extra}
    return await client.post("/login", data=form, allow_redirects=False)


def session_cookies(response: ClientResponse) -> list[str]:
    return [c for c in response.headers.getall("Set-Cookie", []) if c.startswith(f"{SESSION}=")]


async def test_the_consoles_players_are_offered_and_one_of_them_plays_a_move(
    console: tuple[House, io.StringIO, Console], client: Client
) -> None:
    house, out, typed = console
    await typed.run_line("alice /play game:hokito opponent:bob seat:first seed:5")
    await typed.run_line("bob /accept")
    record = await house.service.live.repository.live_game_in_channel(GENERAL.channel_id)
    assert record is not None
    game = record.id
    page = await (await client.get("/login")).text()
    assert re.search(r'<button type="submit" name="name" value="alice">Play as alice<', page)
    assert 'value="bob"' in page
    assert 'value="hilltop"' not in page  # the bot plays no move of a person's
    assert '<input id="play-as-name" name="name"' in page

    chosen = await choosing(client, "alice")
    assert chosen.status == 303
    assert chosen.headers["Location"] == "/s/1"
    [cookie] = session_cookies(chosen)
    assert "HttpOnly" in cookie
    token = unsign(
        CONSOLE, client.session.cookie_jar.filter_cookies(client.make_url("/"))[SESSION].value
    )
    assert token
    visitor = await house.pages.visitor(token, "en")
    assert (visitor.user_id, visitor.name) == (ALICE.id, "alice")
    assert local_user("alice") == ALICE

    game_page = await (await client.get(f"/g/{game}")).text()
    assert '<section id="play" class="play"' in game_page
    assert '<section id="play" class="play" aria-labelledby="play-title" data-ply="0">' in game_page
    check = re.search(r'data-check="([0-9a-f]+)"', game_page)
    assert check, game_page

    # Alice's move, built as her page builds it, posted as her page posts it.
    panel = await house.pages.panel(game, visitor, None, ())
    while panel.confirm is None:
        panel = await house.pages.panel(game, visitor, panel.ply, panel.choices[0].step)
    told_before = out.getvalue()
    answer = await client.post(
        f"/g/{game}/play",
        json={"ply": panel.ply, "step": list(panel.prefix)},
        headers={"X-Hilltop-Check": check.group(1)},
    )
    assert answer.status == 200, await answer.text()
    assert (await answer.json())["played"] == 1
    moves = await house.service.live.repository.moves(game)
    assert [m.user_id for m in moves] == [ALICE.id]
    # The console tells the move as it tells its own.
    await until(lambda: out.getvalue() != told_before)
    told = out.getvalue()[len(told_before) :]
    assert told.startswith("[#general]"), told
    assert "alice" in told, told
    # Bob chosen next in this browser: Alice's session there ends.
    assert (await choosing(client, "bob")).status == 303
    assert not (await house.pages.visitor(token, "en")).signed_in


async def until(done: Callable[[], bool], seconds: float = 10.0) -> None:
    for _ in range(int(seconds * 20)):
        if done():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("waited in vain")


@pytest.mark.parametrize("name", ["al ice", "bob!", "", "x" * 101, "hilltop"])
async def test_a_name_the_console_cannot_have_is_refused_with_no_session(
    client: Client, name: str
) -> None:
    answer = await choosing(client, name)
    assert answer.status == 400
    page = await answer.text()
    assert (
        "A player&#39;s name is letters, digits, dots, dashes and underscores" in page
        or "hilltop is the bot: choose a player&#39;s name." in page
    ), page
    assert session_cookies(answer) == []


async def test_a_choice_from_another_page_is_refused(client: Client) -> None:
    await client.get("/login")
    for check in ("", "0" * 32, "\u017c"):
        answer = await client.post(
            "/login", data={"name": "alice", "check": check}, allow_redirects=False
        )
        assert answer.status == 403
        assert "This page was out of date: choose again." in await answer.text()
        assert session_cookies(answer) == []


def test_only_this_computer_is_loopback() -> None:
    assert loopback("127.0.0.1")
    assert loopback("::1")
    for remote in (None, "", "127.0.0.2", "10.0.0.5", "192.168.1.2", "::2", "localhost"):
        assert not loopback(remote), remote


def from_elsewhere(app: web.Application) -> web.Application:
    """`app`, each request to it as if from another computer on the network."""

    @web.middleware
    async def elsewhere(
        request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        return await handler(request.clone(remote="192.168.1.20"))

    app.middlewares.append(elsewhere)
    return app


async def test_another_computer_is_not_offered_it(
    console: tuple[House, io.StringIO, Console],
) -> None:
    app = from_elsewhere(make_app(console[0].pages, CONSOLE))
    async with TestClient(TestServer(app)) as elsewhere:
        answer = await elsewhere.get("/login", allow_redirects=False)
        assert answer.status == 404
        assert NONCE not in answer.cookies
        answer = await elsewhere.post("/login", data={"name": "alice"}, allow_redirects=False)
        assert answer.status == 404
        assert session_cookies(answer) == []
        assert "Play as" not in await (await elsewhere.get("/s/1")).text()


async def test_the_bots_pages_do_not_offer_it(storage: Storage) -> None:
    house = house_of(storage)
    try:
        await open_pages(house.service, HERE)
        async with TestClient(TestServer(make_app(house.pages, CONFIG))) as bots:
            answer = await bots.get("/login?next=/s/7", allow_redirects=False)
            # Discord's sign-in, as ever.
            assert answer.status == 302
            assert answer.headers["Location"].startswith(CONFIG.discord_authorize)
            answer = await bots.post("/login", data={"name": "alice"}, allow_redirects=False)
            assert answer.status == 405
            assert session_cookies(answer) == []
            page = await (await bots.get(f"/s/{HILL}")).text()
            assert "Play as" not in page
            assert "Sign in with Discord" in page
    finally:
        house.close()


async def test_two_console_players_play_by_clicks_in_two_browsers(
    console: tuple[House, io.StringIO, Console], browser: Browser, shots: Path
) -> None:
    house, out, typed = console
    await typed.run_line("alice /play game:hokito opponent:bob seat:first seed:5")
    await typed.run_line("bob /accept")
    record = await house.service.live.repository.live_game_in_channel(GENERAL.channel_id)
    assert record is not None
    async with serving_pages(house.pages, CONSOLE) as site:
        alice, bob = await open_tab(browser, PHONE), await open_tab(browser, PHONE)
        for tab in (alice, bob):
            await tab.page.goto(f"{site.url}/g/{record.id}")
            # Nobody yet: the header offers to play as someone.
            await tab.press(tab.page.get_by_role("link", name="Play as…"))
            await expect(tab.page.get_by_role("heading", name="Who are you?")).to_be_visible()
        await alice.page.screenshot(path=str(shots / "playas-choose.png"), full_page=True)
        # Alice by her button, Bob by his name typed.
        await alice.press(alice.page.get_by_role("button", name="Play as alice"))
        await bob.page.get_by_label("Another player's name").fill("Bob")
        await bob.press(bob.page.get_by_role("button", name="Play as this name"))
        for tab, name in ((alice, "alice"), (bob, "bob")):
            await expect(tab.page).to_have_url(f"{site.url}/g/{record.id}")
            await expect(tab.page.locator(".who")).to_contain_text(name)
        await expect(alice.page.locator("#play")).to_be_visible()
        await expect(bob.page.locator("#play")).to_be_hidden()
        await site.watched(2)
        await alice.page.screenshot(path=str(shots / "playas-alice-to-move.png"), full_page=True)
        first = await take_turn(alice.page)
        assert first.said.startswith("Done: "), first.said
        await expect(bob.page.locator("#play")).to_be_visible()
        await bob.page.screenshot(path=str(shots / "playas-bob-to-move.png"), full_page=True)
        second = await take_turn(bob.page)
        await bob.page.screenshot(path=str(shots / "playas-bob-moved.png"), full_page=True)
        await expect(alice.page.locator("#play")).to_be_visible()
        await alice.page.screenshot(path=str(shots / "playas-alice-again.png"), full_page=True)
        for tab in (alice, bob):
            tab.assert_no_errors()
            await tab.page.context.close()
    moves = await house.service.live.repository.moves(record.id)
    assert [m.user_id for m in moves] == [ALICE.id, CONSOLE_BOB.id], second
    await until(lambda: "move 2" in out.getvalue())
    assert "alice played" in out.getvalue() and "bob played" in out.getvalue(), out.getvalue()
