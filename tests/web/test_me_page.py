"""A player's own page, `/me`: the games waiting for them in every server whose pages they
may see, the soonest to run out first; who may see it; a read that is one bounded,
indexed page of their seats; and a page that follows their games live, in the browser at a
phone's width and a desktop's."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from aiohttp import ClientResponse, web
from aiohttp.test_utils import TestClient, TestServer
from playwright.async_api import expect

from host.face import Channel, GameService, GameSetup, House, User
from tests.data.test_query_plans import recording, sqlite_scans
from tests.web.audit import BROKEN_PICTURES, contrast_failures, load_every_picture, overflow
from tests.web.browser import Tab, serving_pages
from tests.web.conftest import Clock
from tests.web.games import (
    ALICE,
    BESIDE,
    BOB,
    CAROL,
    CLOSED,
    HERE,
    HILL,
    OTHER,
    THERE,
    YONDER,
    open_pages,
    play_moves,
)
from web.app import make_app
from web.auth import SESSION, sign
from web.config import WebConfig
from web.markup import time_tag

CONFIG = WebConfig(url="http://127.0.0.1:8080", client_id="4242", client_secret="the-secret")
#: A server whose pages are for its members, alice not among them.
PRIVATE = 10
#: Where the screenshots are kept, to be looked at.
SHOTS = Path("/tmp/shots")
STREAMS = """
window.__streams = [];
const Original = window.EventSource;
window.EventSource = class extends Original {
  constructor(...args) { super(...args); window.__streams.push(this); }
};
"""
STREAMS_OPEN = "window.__streams.length > 0 && window.__streams.every((s) => s.readyState === 1)"

Client = TestClient[web.Request, web.Application]


async def begun(
    service: GameService, where: Channel, first: User, second: User, minutes: int | None = None
) -> int:
    """A game of Hokito in `where`, `first` to move, with `minutes` to decide: its id."""
    setup = GameSetup("hokito", seed=5, seat="first", deadline_minutes=minutes)
    [challenge] = await service.start(where, first, setup, [second])
    await service.accept(where, second)
    assert challenge.game_id is not None
    return challenge.game_id


async def alices_games(house: House) -> dict[str, int]:
    """Games waiting for alice in two servers whose pages she may see, and games that are
    not hers to show: her opponent's turn, a closed server's, a server she is not in."""
    service = house.service
    await open_pages(service, HERE)
    await open_pages(service, YONDER, "members", name="Yonder")
    await open_pages(service, Channel(1000, PRIVATE), "members", name="Private")
    games = {
        "in ten hours": await begun(service, HERE, ALICE, BOB, 600),
        "in an hour": await begun(service, BESIDE, ALICE, CAROL, 60),
    }
    [asked] = await service.start(Channel(502, HILL), BOB, GameSetup("molehill", seed=1), [ALICE])
    assert asked.game_id is not None
    games["a challenge, for a day"] = asked.game_id
    [solo] = await service.start(YONDER, ALICE, GameSetup("hillbert", seed=1))
    assert solo.game_id is not None
    games["no deadline"] = solo.game_id
    theirs = Channel(503, HILL)
    games["bob's turn"] = await begun(service, theirs, ALICE, BOB, 5)
    await play_moves(service, theirs, [ALICE], 1)
    games["closed server"] = await begun(service, THERE, ALICE, BOB, 5)
    games["not a member"] = await begun(service, Channel(1000, PRIVATE), ALICE, BOB, 5)
    return games


WAITING = ["in an hour", "in ten hours", "a challenge, for a day", "no deadline"]


async def signed_in_as(house: House, client: Client, user: User, guilds: list[int]) -> None:
    token = await house.pages.sessions.sign_in(user.id, user.name, guilds)
    client.session.cookie_jar.update_cookies({SESSION: sign(CONFIG, token)})


def listed(html: str) -> list[int]:
    """The games the page lists, in order."""
    part = html.split('id="live"', 1)[1]
    return [int(n) for n in dict.fromkeys(re.findall(r'<h2><a href="/g/(\d+)">', part))]


@pytest.fixture
async def client(house: House) -> AsyncIterator[Client]:
    async with TestClient(TestServer(make_app(house.pages, CONFIG))) as opened:
        yield opened


async def test_the_page_lists_the_games_waiting_soonest_deadline_first(
    house: House, client: Client, clock: Clock
) -> None:
    games = await alices_games(house)
    await signed_in_as(house, client, ALICE, [HILL, OTHER])
    response = await client.get("/me")
    assert response.status == 200
    assert response.headers["Cache-Control"] == "no-store"
    html = await response.text()
    assert listed(html) == [games[name] for name in WAITING]
    assert "<title>(4) Your turn · Hilltop</title>" in html
    assert "4 games wait for you, the soonest to run out first." in html
    # Each with its board, its opponents, its server, since when and until when.
    first = html.split('id="live"', 1)[1].split("</li>", 1)[0]
    hour = games["in an hour"]
    assert f'src="/g/{hour}/board.png?ply=0&amp;s=active"' in first
    assert f'alt="The board of game {hour}: Hokito after move 0"' in first
    assert 'loading="lazy" width="160" height="160"' in first
    assert "against carol" in first and '<a href="/s/7">The Hill</a>' in first
    started = int(clock.now)
    assert f"Your turn since {time_of(started, 'relative')}" in first
    due = started + 3600
    assert f"due {time_of(due, 'absolute')} ({time_of(due, 'relative')})" in first
    assert "Challenged you" in html and "open until" in html
    assert "No time limit." in html
    # Its part, as its stream sends it.
    live = await (await client.get("/me/live")).json()
    assert live["count"] == 4 and live["title"] == "(4) Your turn · Hilltop"
    assert live["html"] in html and f"since={live['key']}" in html


def time_of(seconds: int, kind: str) -> str:
    """A time as the page's markup first writes it (the page's script words it)."""
    return str(time_tag(seconds, kind == "relative"))


async def test_a_reader_sees_only_the_servers_they_may(house: House, client: Client) -> None:
    """Yonder shows its pages to its members: alice's games there are hers to see only
    while her sign-in says she is one."""
    games = await alices_games(house)
    await signed_in_as(house, client, ALICE, [HILL])
    html = await (await client.get("/me")).text()
    assert listed(html) == [games[name] for name in WAITING if name != "no deadline"]
    assert "<title>(3) Your turn · Hilltop</title>" in html


async def test_nothing_waiting_says_so_and_links_the_servers(house: House, client: Client) -> None:
    await alices_games(house)
    await signed_in_as(house, client, CAROL, [HILL, OTHER, CLOSED, 4242])
    html = await (await client.get("/me")).text()
    assert "<title>Your turn · Hilltop</title>" in html
    assert "No game waits for you right now." in html
    servers = re.findall(r'<li><a href="/s/(\d+)">([^<]+)</a></li>', html)
    assert servers == [(str(HILL), "The Hill"), (str(OTHER), "Yonder")]


async def test_not_signed_in_is_sent_to_sign_in(house: House, client: Client) -> None:
    for path in ("/me", "/me/live", "/me/events"):
        response = await client.get(path, allow_redirects=False)
        assert response.status == 302, path
        assert response.headers["Location"] == f"/login?next={path}"
    # A site where nobody can sign in says why, and nothing else.
    async with TestClient(TestServer(make_app(house.pages, WebConfig()))) as plain:
        refused = await plain.get("/me")
        assert refused.status == 403
        assert "Sign in with Discord to see the games waiting for you." in await refused.text()


async def test_the_read_is_one_bounded_page_of_the_players_seats(
    house: House, tmp_path: Path
) -> None:
    await alices_games(house)
    visitor = await house.pages.visitor(
        await house.pages.sessions.sign_in(ALICE.id, "alice", [HILL]), "en"
    )
    with recording() as sent:
        view = await house.pages.your_turn(visitor)
    assert len(view.lines) == 3
    [games] = [(sql, params) for sql, params in sent if "FROM games g" in sql]
    assert "LIMIT" in games[0] and 100 in games[1]
    assert sqlite_scans(str(tmp_path / "hilltop.sqlite3"), *games) == []


async def next_event(stream: ClientResponse) -> dict[str, object]:
    data = None
    while True:
        line = (await stream.content.readline()).decode()
        if line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "\n" and data is not None:
            assert isinstance(data, dict)
            return data


async def test_the_stream_shows_a_game_as_it_starts_waiting(house: House, client: Client) -> None:
    """A move that makes it alice's turn shows the game on her open page; so does a new
    challenge to her (a game the page had never heard of)."""
    service = house.service
    await open_pages(service, HERE)
    game_id = await begun(service, HERE, ALICE, BOB, 60)
    await play_moves(service, HERE, [ALICE], 1)
    await signed_in_as(house, client, ALICE, [HILL])
    page = await (await client.get("/me/live")).json()
    assert page["count"] == 0
    stream = await client.get(f"/me/events?since={page['key']}")
    assert stream.status == 200 and stream.headers["Content-Type"] == "text/event-stream"
    assert await stream.content.readline() == b": open\n"
    await play_moves(service, HERE, [BOB], 1)
    async with asyncio.timeout(30):
        event = await next_event(stream)
    assert event["count"] == 1 and event["title"] == "(1) Your turn · Hilltop"
    assert listed('id="live"' + str(event["html"])) == [game_id]
    [asked] = await service.start(BESIDE, CAROL, GameSetup("hokito", seed=2), [ALICE])
    async with asyncio.timeout(30):
        event = await next_event(stream)
    assert listed('id="live"' + str(event["html"])) == [game_id, asked.game_id]
    stream.close()


async def test_a_signed_out_readers_stream_ends(house: House, client: Client) -> None:
    service = house.service
    await open_pages(service, HERE)
    token = await house.pages.sessions.sign_in(ALICE.id, "alice", [HILL])
    client.session.cookie_jar.update_cookies({SESSION: sign(CONFIG, token)})
    stream = await client.get("/me/events")
    assert await stream.content.readline() == b": open\n"
    await house.pages.sign_out(token)
    await begun(service, HERE, ALICE, BOB, 60)
    async with asyncio.timeout(30):
        assert await stream.content.read() == b"\n"  # the end of ": open", then no event


async def test_the_page_fits_and_follows_the_games_in_the_browser(house: House, tab: Tab) -> None:
    """At a phone's width and a desktop's: readable, every board loaded, nothing sticking
    out sideways; a move that makes it alice's turn adds the game, and its count to the
    title, without a reload."""
    games = await alices_games(house)
    os.makedirs(SHOTS, exist_ok=True)
    page = tab.page
    await page.add_init_script(STREAMS)
    config = replace(CONFIG, port=0)
    async with serving_pages(house.pages, config) as site:
        token = await house.pages.sessions.sign_in(ALICE.id, "alice", [HILL, OTHER])
        cookie = {"name": SESSION, "value": sign(config, token), "url": site.url}
        await page.context.add_cookies([cookie])  # type: ignore[list-item]
        await page.goto(f"{site.url}/me")
        await expect(page).to_have_title("(4) Your turn · Hilltop")
        await page.wait_for_function(STREAMS_OPEN)
        await page.evaluate("window.__sameDocument = 'the page as first loaded'")
        await load_every_picture(page)
        await page.screenshot(path=SHOTS / f"me-{tab.width}.png", full_page=True)
        problems = [f"contrast {json.dumps(f)}" for f in await contrast_failures(page)]
        problems += [f"broken {src}" for src in await page.evaluate(BROKEN_PICTURES)]
        wide = await overflow(page, tab.pixels)
        if wide["scrollWidth"] > tab.pixels:
            problems.append(f"{wide['scrollWidth']} px wide: {wide['beyond']}")
        assert problems == []
        await play_moves(house.service, Channel(503, HILL), [BOB], 1)
        await expect(page).to_have_title("(5) Your turn · Hilltop")
        theirs = games["bob's turn"]
        await expect(page.locator(f'#live h2 a[href="/g/{theirs}"]')).to_be_visible()
        await expect(page.locator("#live [role=status]")).to_contain_text("5 games wait for you")
        assert await page.evaluate("window.__sameDocument") == "the page as first loaded"
        await load_every_picture(page)
        await page.screenshot(path=SHOTS / f"me-later-{tab.width}.png", full_page=True)
        # Nothing waits for carol: the page says so, and links her servers.
        await page.context.clear_cookies()
        carol = await house.pages.sessions.sign_in(CAROL.id, "carol", [HILL, OTHER])
        await page.context.add_cookies(
            [{"name": SESSION, "value": sign(config, carol), "url": site.url}]
        )
        await page.goto(f"{site.url}/me")
        await expect(page.locator("#live")).to_contain_text("No game waits for you right now.")
        await page.screenshot(path=SHOTS / f"me-empty-{tab.width}.png", full_page=True)
