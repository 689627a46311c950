"""A whole game of Hokito played by clicks on the game's page, between two players signed
in in browsers of their own: each move appears on the other's page without a reload and is
posted on Discord by the bot, as a move made on Discord is; a page left behind and a double
click are refused and never play twice."""

from __future__ import annotations

import re

from playwright.async_api import Browser, expect

from data.storage import Storage
from tests.cogs.fake_discord import MANAGE_GUILD, FakeDiscord
from tests.cogs.test_gateway import hilltop, start_hokito
from tests.cogs.test_gateway import nothing_logged_an_error as nothing_logged_an_error
from tests.web.browser import DESKTOP, PHONE, WAIT_MS, serving_pages
from tests.web.play import CONFIG, shoot, signed_in, take_turn

MOVE = re.compile(r"Done: (\S+)\.")


def posted_moves(fake: FakeDiscord) -> list[str]:
    """The moves the bot's posts in the channel tell, in order."""
    found: list[str] = []
    for message in fake.channel_messages():
        found += re.findall(r"(?:alice|bob) played (\S+?)[.:]", message.text)
    return found


async def test_a_whole_game_of_hokito_by_clicks_between_two_browsers(
    fake: FakeDiscord, storage: Storage, browser: Browser
) -> None:
    admin = fake.user("root", permissions=MANAGE_GUILD)
    alice, bob = fake.user("alice"), fake.user("bob")
    async with hilltop(fake, storage) as bot, serving_pages(bot.house.pages, CONFIG) as site:
        await fake.slash(admin, "admin settings", web="public")
        await start_hokito(fake, alice, bob)
        record = await storage.games.live_game_in_channel(fake.channel_id)
        assert record is not None
        pages = bot.house.pages
        tabs = {
            alice.id: await signed_in(
                browser, site.url, CONFIG, pages, alice.id, "alice", fake.guild_id, DESKTOP
            ),
            bob.id: await signed_in(
                browser, site.url, CONFIG, pages, bob.id, "bob", fake.guild_id, PHONE
            ),
        }
        for tab in tabs.values():
            await tab.page.goto(f"{site.url}/g/{record.id}")
        await site.watched(2)
        players = [alice.id, bob.id]
        made: list[str] = []
        on_board = 0
        for turn in range(200):
            mover, other = tabs[players[turn % 2]], tabs[players[(turn + 1) % 2]]
            if turn in (2, 3):
                await expect(mover.page.locator("#play")).to_be_visible()
                await shoot(mover.page, f"hokito-{mover.width}-{turn}")
            done = await take_turn(mover.page)
            on_board += done.on_board
            [move] = MOVE.findall(done.said)
            made.append(move)
            # The other player sees it on their page, and the channel is told of it.
            await expect(other.page.locator("#live")).to_contain_text(f"played {move}")
            await fake.wait_until(
                lambda: posted_moves(fake) == made,
                within=WAIT_MS / 1000,
                what=f"the channel to be told of {made}",
            )
            status = (await storage.games.get_game(record.id)).status  # type: ignore[union-attr]
            if status != "active":
                break
        else:
            raise AssertionError("the game did not end")
        for tab in tabs.values():
            await expect(tab.page.locator("#live")).to_contain_text("has no legal move")
            await expect(tab.page.locator("#play")).to_be_hidden()
            assert len(tab.navigations) == 1, "the page was loaded again"
            tab.assert_no_errors()
        stored = await storage.games.moves(record.id)
        assert [m.text for m in stored] == made
        assert on_board >= len(made), "the moves were not made on the board"
