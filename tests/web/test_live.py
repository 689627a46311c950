"""A game's page follows the game live: a move made on Discord shows on the open page,
at a phone's width and a desktop's, without the page being loaded again."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable

from playwright.async_api import Browser, Route, expect

from data.storage import Storage
from host.face import GameView, House, Visitor
from tests.cogs.fake_discord import MANAGE_GUILD, FakeDiscord
from tests.cogs.test_gateway import hilltop, start_hokito
from tests.cogs.test_gateway import nothing_logged_an_error as nothing_logged_an_error
from tests.web.browser import DESKTOP, WAIT_MS, WIDTHS, Site, Tab, open_tab, serving_pages
from tests.web.games import ALICE, HERE, hokito, open_pages, play_moves

#: Set on the page once it is loaded: a reload would lose it.
MARK = "window.__sameDocument = 'the page as first loaded'"
#: Every EventSource a page opens, kept where the test can see whether it is open.
STREAMS = """
window.__streams = [];
const Original = window.EventSource;
window.EventSource = class extends Original {
  constructor(...args) { super(...args); window.__streams.push(this); }
};
"""
STREAMS_OPEN = "window.__streams.length > 0 && window.__streams.every((s) => s.readyState === 1)"


async def watch(site: Site, browser: Browser, width: str, game_id: int) -> Tab:
    """The game's page open at `width`, its stream of changes open."""
    tab = await open_tab(browser, width)
    await tab.page.add_init_script(STREAMS)
    response = await tab.page.goto(f"{site.url}/g/{game_id}")
    assert response is not None and response.status == 200
    await tab.page.evaluate(MARK)
    await tab.page.wait_for_function(STREAMS_OPEN)
    return tab


async def test_a_move_on_discord_shows_on_the_open_game_page_without_a_reload(
    fake: FakeDiscord, storage: Storage, browser: Browser
) -> None:
    admin = fake.user("root", permissions=MANAGE_GUILD)
    alice, bob = fake.user("alice"), fake.user("bob")
    async with hilltop(fake, storage) as bot, serving_pages(bot.house.pages) as site:
        opened = await fake.slash(admin, "admin settings", web="public")
        assert opened.ephemeral
        await start_hokito(fake, alice, bob)
        record = await storage.games.live_game_in_channel(fake.channel_id)
        assert record is not None
        tabs = [await watch(site, browser, width, record.id) for width in WIDTHS]
        # Both pages' streams have reached the site: nothing said after this is missed.
        await site.watched(len(tabs))
        for tab in tabs:
            page = tab.page
            await expect(page).to_have_title(re.compile(r"Hokito #\d+ · Hilltop test server"))
            await expect(page.locator("#board")).to_have_attribute("src", re.compile(r"ply=0\b"))
            await expect(page.locator("#live")).to_contain_text("No move yet.")

        moved = await fake.slash(alice, "move", text="b2-b1")
        assert not moved.ephemeral

        for tab in tabs:
            page = tab.page
            live, board = page.locator("#live"), page.locator("#board")
            await expect(live).to_contain_text("alice (Black) played b2-b1")
            await expect(live).not_to_contain_text("No move yet.")
            await expect(board).to_have_attribute("src", re.compile(r"ply=1\b"))
            await expect(board).to_have_attribute(
                "alt", re.compile(r"after move 1\. bob \(White\) to move\.$")
            )
            # The new board is drawn and shown, not a broken picture.
            await page.wait_for_function(
                "document.getElementById('board').complete"
                " && document.getElementById('board').naturalWidth > 0"
            )
            assert await page.evaluate("window.__sameDocument") == "the page as first loaded"
            assert tab.navigations == [f"{site.url}/g/{record.id}"], tab.width
            await page.context.close()
            tab.assert_no_errors()


async def a_move_while_the_stream_opens(
    house: House, browser: Browser, move: Callable[[int], Awaitable[None]]
) -> None:
    """A page of a game drawn at move 0 whose stream is held back until `move(game)` has
    run: the page then shows move 1 without a reload."""
    await open_pages(house.service, HERE)
    game_id = await hokito(house.service, HERE)
    tab = await open_tab(browser, DESKTOP)
    asked, answer = asyncio.Event(), asyncio.Event()

    async def hold(route: Route) -> None:
        asked.set()
        await answer.wait()
        await route.continue_()

    await tab.page.route(re.compile(r"/events(\?|$)"), hold)
    async with serving_pages(house.pages) as site:
        await tab.page.goto(f"{site.url}/g/{game_id}")
        async with asyncio.timeout(WAIT_MS / 1000):
            await asked.wait()
        await move(game_id)
        answer.set()
        await site.watched(1)
        board = tab.page.locator("#board")
        await expect(board).to_have_attribute("src", re.compile(r"ply=1\b"))
    await tab.page.context.close()


async def test_a_move_made_while_the_page_opens_its_stream_is_not_lost(
    house: House, browser: Browser
) -> None:
    async def alice_moves(game_id: int) -> None:
        await play_moves(house.service, HERE, [ALICE], 1)

    await a_move_while_the_stream_opens(house, browser, alice_moves)


async def test_a_move_made_while_the_stream_reads_the_game_is_not_lost(
    house: House, browser: Browser
) -> None:
    read = house.pages.game

    async def read_then_move(game: int, visitor: Visitor) -> GameView:
        # Alice moves just after the stream has read the game, before it says more.
        view = await read(game, visitor)
        del house.pages.game
        await play_moves(house.service, HERE, [ALICE], 1)
        return view

    async def alice_moves_as_the_stream_reads(game_id: int) -> None:
        house.pages.game = read_then_move  # type: ignore[method-assign]

    await a_move_while_the_stream_opens(house, browser, alice_moves_as_the_stream_reads)
