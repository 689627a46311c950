"""A tournament's page and a server's list of tournaments: what they show of an event
played through the service, who may see them, and a page that follows the tournament's
games live, a new round's games included, at a phone's width and a desktop's."""

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

from data.events import TableRecord, WholeEvent
from data.storage import Storage
from host.events.service import EventSetup
from host.face import Channel, House, User
from tests.houses import house_of
from tests.web.audit import contrast_failures, overflow
from tests.web.browser import Tab, serving_pages
from tests.web.games import (
    ADMIN,
    ALICE,
    BOB,
    CAROL,
    CLOSED,
    HERE,
    HILL,
    OTHER,
    THERE,
    YONDER,
    open_pages,
)
from web.app import make_app
from web.auth import SESSION, sign
from web.config import WebConfig

DAVE = User(1005, "dave")
PEOPLE = {p.id: p for p in (ALICE, BOB, CAROL, DAVE)}
CONFIG = WebConfig(url="http://127.0.0.1:8080")
NO_SUCH_PAGE = "There is no such page."
#: Every EventSource a page opens, kept where the test can see whether it is open.
STREAMS = """
window.__streams = [];
const Original = window.EventSource;
window.EventSource = class extends Original {
  constructor(...args) { super(...args); window.__streams.push(this); }
};
"""
STREAMS_OPEN = "window.__streams.length > 0 && window.__streams.every((s) => s.readyState === 1)"

Client = TestClient[web.Request, web.Application]


@pytest.fixture
async def client(house: House) -> AsyncIterator[Client]:
    async with TestClient(TestServer(make_app(house.pages, CONFIG))) as opened:
        yield opened


async def made(house: House, setup: EventSetup, people: list[User], where: Channel = HERE) -> int:
    """An event made by an admin in `where`, entered by `people`: its id."""
    [announced] = await house.events.create(where, ADMIN, setup)
    event_id = int(announced.footer.rsplit("#", 1)[1])
    for person in people:
        await house.events.join(where, person, event_id)
    return event_id


async def whole(house: House, event_id: int) -> WholeEvent:
    found = await house.events.repository.whole(event_id)
    assert found is not None
    return found


def table_channel(table: TableRecord, guild_id: int = HILL) -> Channel:
    assert table.thread_id is not None
    return Channel(table.thread_id, guild_id)


async def play_table(house: House, table: TableRecord, guild_id: int = HILL) -> None:
    """Each player of the table moves once; then the first seat resigns."""
    where = table_channel(table, guild_id)
    for uid in table.user_ids:
        [move, *_] = await house.service.suggest_moves(where, PEOPLE[uid], "")
        await house.service.move(where, PEOPLE[uid], move.value)
    await house.service.resign(where, PEOPLE[table.user_ids[0]], confirmed=True)


async def a_round_robin_a_round_in(house: House) -> tuple[int, WholeEvent]:
    """A round robin of four at the Hill, named "Club": in round 1, board 1's first seat
    resigned and an admin ended board 2 (a draw, not played); round 2 under way."""
    event_id = await made(
        house, EventSetup("hokito", "round-robin", name="Club"), [ALICE, BOB, CAROL, DAVE]
    )
    await house.events.start(HERE, ADMIN, event_id)
    first, second = (await whole(house, event_id)).round_tables(1)
    await play_table(house, first)
    await house.service.admin_end(table_channel(second), ADMIN)
    played = await whole(house, event_id)
    assert played.event.round == 2
    return event_id, played


def names(table: TableRecord) -> list[str]:
    return [PEOPLE[uid].name for uid in table.user_ids]


def cells(html: str, table_id: str) -> list[list[str]]:
    """The rows of the table under the heading `table_id`, each a list of its cells' text."""
    part = html.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    body = part.split("<tbody>", 1)[1]
    return [
        [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    ]


async def test_a_round_robin_shows_standings_crosstable_and_every_round(
    house: House, client: Client
) -> None:
    await open_pages(house.service, HERE)
    event_id, played = await a_round_robin_a_round_in(house)
    first, second = played.round_tables(1)
    response = await client.get(f"/s/{HILL}/t/{event_id}")
    assert response.status == 200
    html = await response.text()
    assert "<h1>Club</h1>" in html and "Hokito · round robin · 3 rounds" in html
    assert 'id="state" class="state" role="status">round 2 of 3<' in html
    # The winner of board 1 leads alone; board 2's pair drew: ½ each, as players write it.
    winner = names(first)[1]
    standings = cells(html, "standings")
    assert standings[0][:3] == ["1", winner, "1"]
    assert sorted((row[1], row[2]) for row in standings[1:3]) == sorted(
        (name, "½") for name in names(second)
    )
    assert standings[3][1:3] == [names(first)[0], "0"]
    assert len(standings) == 4 and all(len(row) == 6 for row in standings)
    # The crosstable, in the standings' order: the winner scored 1 against the loser.
    cross = cells(html, "crosstable")
    order = [row[1] for row in standings]
    assert [row[1] for row in cross] == order
    loser = order.index(names(first)[0])
    assert cross[0][2 + loser] == "1" and cross[loser][2] == "0"
    assert cross[0][2] == "" and cross[loser][2 + loser] == ""
    drawn = order.index(names(second)[0]), order.index(names(second)[1])
    assert cross[drawn[0]][2 + drawn[1]] == "="  # a draw not played
    # Every round, the latest first, each result or game in play linked to its game.
    assert html.index('id="round-2"') < html.index('id="round-1"')
    assert cells(html, "round-1") == [
        ["1", " – ".join(names(first)), "0–1"],
        ["2", " – ".join(names(second)), "½–½ not played"],
    ]
    assert cells(html, "round-2") == [
        [str(table.board), " – ".join(names(table)), "in play, 0 moves made"]
        for table in played.round_tables(2)
    ]
    for table in [*played.round_tables(1), *played.round_tables(2)]:
        assert f'<a href="/g/{table.game_id}" title="Game #{table.game_id}">' in html
    # The same part, as its stream sends it.
    live = await (await client.get(f"/s/{HILL}/t/{event_id}/live")).json()
    assert live["state"] == "round 2 of 3" and live["status"] == "running"
    assert live["html"] in html and f"since={live['key']}" in html


async def test_the_page_is_in_the_readers_language(house: House, client: Client) -> None:
    await open_pages(house.service, HERE)
    event_id, _ = await a_round_robin_a_round_in(house)
    english = await (await client.get(f"/s/{HILL}/t/{event_id}")).text()
    polish = await (await client.get(f"/s/{HILL}/t/{event_id}?lang=pl")).text()
    assert 'lang="pl"' in polish
    for words in ("Crosstable", "Round 1", "in play, 0 moves made", "Ties on points"):
        assert words in english and words not in polish, words


async def test_a_game_that_ended_counts_before_its_result_is_recorded(
    house: House, client: Client
) -> None:
    """A page hears of a game's end before the end's result is recorded at its table: it
    shows the result, and the standings with it, all the same."""
    await open_pages(house.service, HERE)
    event_id = await made(house, EventSetup("hokito", "swiss", rounds=2), [ALICE, BOB])
    await house.events.start(HERE, ADMIN, event_id)
    [table] = (await whole(house, event_id)).round_tables(1)
    hooks = house.service.finish_hooks
    assert isinstance(hooks, list)
    recording = next(h for h in hooks if h == house.events.running.on_finish)
    hooks.remove(recording)
    try:
        await play_table(house, table)
    finally:
        hooks.append(recording)
    assert (await whole(house, event_id)).round_tables(1)[0].decided_at is None
    html = await (await client.get(f"/s/{HILL}/t/{event_id}")).text()
    winner, loser = names(table)[1], names(table)[0]
    assert [row[:3] for row in cells(html, "standings")] == [
        ["1", winner, "1"],
        ["2", loser, "0"],
    ]
    assert cells(html, "round-1")[0][2] == "0–1"


async def test_a_cup_ranks_its_runs(house: House, client: Client) -> None:
    await open_pages(house.service, HERE)
    event_id = await made(house, EventSetup("hillbert", "cup"), [ALICE, BOB])
    await house.events.start(HERE, ADMIN, event_id)
    runs = (await whole(house, event_id)).round_tables(1)
    html = await (await client.get(f"/s/{HILL}/t/{event_id}")).text()
    assert [row[1:] for row in cells(html, "standings")] == [
        ["alice", "not finished"],
        ["bob", "not finished"],
    ]
    assert 'id="crosstable"' not in html
    assert [row[1] for row in cells(html, "round-1")] == ["alice", "bob"]
    assert all(f'href="/g/{run.game_id}"' in html for run in runs)


async def test_an_open_tournament_lists_its_entrants(house: House, client: Client) -> None:
    await open_pages(house.service, HERE)
    event_id = await made(house, EventSetup("hokito", "swiss"), [BOB, ALICE])
    html = await (await client.get(f"/s/{HILL}/t/{event_id}")).text()
    assert "open for entries" in html and "the button under the tournament" in html
    assert html.index("<li>bob</li>") < html.index("<li>alice</li>")
    assert 'id="standings"' not in html


async def test_a_tournament_is_seen_as_its_servers_pages_are(house: House, client: Client) -> None:
    await open_pages(house.service, HERE)
    await open_pages(house.service, YONDER, name="Yonder")
    ours = await made(house, EventSetup("hokito", "swiss"), [ALICE])
    theirs = await made(house, EventSetup("hokito", "swiss"), [BOB], YONDER)
    closed = await made(house, EventSetup("hokito", "swiss"), [CAROL], THERE)
    nothing = await client.get(f"/s/{HILL}/t/{ours + 1000}")
    assert nothing.status == 404
    said = await nothing.text()
    assert NO_SUCH_PAGE in said
    for path in (
        f"/s/{HILL}/t/{theirs}",  # another server's, asked for as this one's
        f"/s/{CLOSED}/t/{closed}",  # a server whose pages are closed
        f"/s/{HILL}/t/{2**63}",
        f"/s/{HILL}/t/x1",
    ):
        for tail in ("", "/live", "/events"):
            refused = await client.get(path + tail)
            assert refused.status == 404, path + tail
            assert NO_SUCH_PAGE in await refused.text()
    assert (await client.get(f"/s/{HILL}/t/{ours}")).status == 200
    assert (await client.get(f"/s/{OTHER}/t/{theirs}")).status == 200


async def test_members_only_tournaments_need_a_signed_in_member(house: House) -> None:
    await open_pages(house.service, HERE, "members")
    event_id = await made(house, EventSetup("hokito", "swiss"), [ALICE])
    path = f"/s/{HILL}/t/{event_id}"
    config = replace(CONFIG, client_id="1", client_secret="secret")
    async with TestClient(TestServer(make_app(house.pages, config))) as client:
        anonymous = await client.get(path, allow_redirects=False)
        assert anonymous.status == 302 and anonymous.headers["Location"] == f"/login?next={path}"
        member = await house.pages.sessions.sign_in(ALICE.id, "alice", [HILL])
        stranger = await house.pages.sessions.sign_in(BOB.id, "bob", [OTHER])
        client.session.cookie_jar.update_cookies({SESSION: sign(config, member)})
        assert (await client.get(path)).status == 200
        assert (await client.get(f"/s/{HILL}")).status == 200
        client.session.cookie_jar.update_cookies({SESSION: sign(config, stranger)})
        assert (await client.get(path)).status == 404
        assert (await client.get(f"{path}/events")).status == 404


async def test_the_server_page_lists_its_tournaments_newest_first(
    house: House, client: Client
) -> None:
    await open_pages(house.service, HERE)
    await open_pages(house.service, YONDER, name="Yonder")
    # A server without tournaments says nothing of them.
    assert "Tournaments" not in await (await client.get(f"/s/{HILL}")).text()
    older = await made(house, EventSetup("hokito", "swiss", name="Spring"), [ALICE, BOB])
    await house.events.start(HERE, ADMIN, older)
    newer = await made(house, EventSetup("everest", "swiss", rounds=2, name="Summer"), [])
    theirs = await made(house, EventSetup("hokito", "swiss", name="Elsewhere"), [], YONDER)
    html = await (await client.get(f"/s/{HILL}")).text()
    links = re.findall(rf'<a href="/s/{HILL}/t/(\d+)">([^<]+)</a>', html)
    assert links == [(str(newer), "Summer"), (str(older), "Spring")]
    assert "Elsewhere" not in html and f"/t/{theirs}" not in html
    assert "Everest · Swiss · 2 rounds · tables of 4</span> · <strong>open for entries" in html
    assert "Hokito · Swiss · 1 round</span> · <strong>round 1 of 1" in html


async def next_event(stream: ClientResponse) -> dict[str, object]:
    """The next event the stream sends: its data."""
    data = None
    while True:
        line = (await stream.content.readline()).decode()
        if line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "\n" and data is not None:
            assert isinstance(data, dict)
            return data


async def event_where(stream: ClientResponse, holds: str) -> dict[str, object]:
    """The first event the stream sends whose part holds `holds` (a game's end, then the
    next round's games, may come as one event or several)."""
    async with asyncio.timeout(30):
        while True:
            event = await next_event(stream)
            if holds in str(event["html"]):
                return event


async def test_the_stream_tells_a_games_end_and_the_next_rounds_games(house_on: House) -> None:
    house = house_on
    await open_pages(house.service, HERE)
    event_id = await made(house, EventSetup("hokito", "swiss", rounds=2), [ALICE, BOB, CAROL])
    await house.events.start(HERE, ADMIN, event_id)
    [table, bye] = (await whole(house, event_id)).round_tables(1)
    async with TestClient(TestServer(make_app(house.pages, CONFIG))) as client:
        page = await (await client.get(f"/s/{HILL}/t/{event_id}/live")).json()
        stream = await client.get(f"/s/{HILL}/t/{event_id}/events?since={page['key']}")
        assert stream.status == 200
        assert stream.headers["Content-Type"] == "text/event-stream"
        assert await stream.content.readline() == b": open\n"
        # A move: the game's line says so.
        where = table_channel(table)
        first, second = (PEOPLE[uid] for uid in table.user_ids)
        for n, player in enumerate((first, second), start=1):
            [move, *_] = await house.service.suggest_moves(where, player, "")
            await house.service.move(where, player, move.value)
            moved = await event_where(stream, f"in play, {n} move")
            assert moved["status"] == "running" and moved["state"] == "round 1 of 2"
        # The round's one game ends: the next round's games, new to the page, are shown.
        await house.service.resign(where, first, confirmed=True)
        event = await event_where(stream, 'id="round-2"')
        assert event["state"] == "round 2 of 2"
        assert cells(str(event["html"]), "round-1")[0][2] == "0–1"
        for new in (await whole(house, event_id)).round_tables(2):
            if not new.bye:
                assert f'href="/g/{new.game_id}"' in str(event["html"])
        assert bye.bye
        stream.close()


@pytest.fixture
async def house_on(storage: Storage) -> AsyncIterator[House]:
    """A house on each backend (PostgreSQL's change feed is its own: notifications heard
    on a connection of their own)."""
    built = house_of(storage)
    yield built
    built.close()


async def test_the_page_fits_and_follows_its_games_in_the_browser(
    house: House, tab: Tab, tmp_path: Path
) -> None:
    """At a phone's width and a desktop's: nothing sticks out sideways (a wide table scrolls
    in its own box), text is readable, and the games' ends show without a reload. The
    screenshots are kept in `HILLTOP_SCREENS` when it is set, as the other pages' are."""
    await open_pages(house.service, HERE)
    event_id, played = await a_round_robin_a_round_in(house)
    screens = Path(os.environ.get("HILLTOP_SCREENS") or tmp_path)
    os.makedirs(screens, exist_ok=True)
    page = tab.page
    await page.add_init_script(STREAMS)
    async with serving_pages(house.pages) as site:
        await page.goto(f"{site.url}/s/{HILL}")
        await page.screenshot(
            path=screens / f"server-with-tournaments-{tab.width}.png", full_page=True
        )
        await page.get_by_role("link", name="Club").click()
        await expect(page).to_have_title(re.compile(r"^Club · The Hill · Hilltop$"))
        await page.wait_for_function(STREAMS_OPEN)
        await page.evaluate("window.__sameDocument = 'the page as first loaded'")
        await page.screenshot(path=screens / f"tournament-live-{tab.width}.png", full_page=True)
        problems = [f"contrast {json.dumps(f)}" for f in await contrast_failures(page)]
        wide = await overflow(page, tab.pixels)
        if wide["scrollWidth"] > tab.pixels:
            problems.append(f"{wide['scrollWidth']} px wide: {wide['beyond']}")
        assert problems == []
        # Both games of round 2 end: round 3's games show, and the state says so.
        for table in played.round_tables(2):
            await play_table(house, table)
        await expect(page.locator("#state")).to_have_text("round 3 of 3")
        for table in (await whole(house, event_id)).round_tables(3):
            await expect(page.locator(f'#live a[href="/g/{table.game_id}"]')).to_be_visible()
        round_2 = page.locator("#round-2 + .scroll tbody tr")
        await expect(round_2).to_have_count(2)
        await expect(round_2.nth(0)).to_contain_text("0–1")
        assert await page.evaluate("window.__sameDocument") == "the page as first loaded"
        await page.screenshot(
            path=screens / f"tournament-live-later-{tab.width}.png", full_page=True
        )
    await page.context.close()
    tab.assert_no_errors()
