"""Every game finished by clicks on its page: two players in browsers of their own (one for
Hillbert, a game for one), each move built a choice at a time as the board's buttons build
it on Discord, on the board where the choice has a place there; the game's channel is told
of the moves by the bot, and both pages follow without a reload."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from data.storage import Storage
from tests.cogs.fake_discord import MANAGE_GUILD, FakeDiscord, FakeUser
from tests.cogs.test_gateway import hilltop
from tests.cogs.test_gateway import nothing_logged_an_error as nothing_logged_an_error
from tests.web.browser import DESKTOP, PHONE, WAIT_MS, Tab, serving_pages
from tests.web.play import CONFIG, shoot, signed_in, take_turn


async def start(fake: FakeDiscord, game: str, players: list[FakeUser]) -> None:
    """`/play` in the fake's channel, accepted by the one challenged."""
    if len(players) == 1:
        await fake.slash(players[0], "play", game=game, seed=5)
        return
    challenge = await fake.slash(
        players[0], "play", game=game, opponent=players[1], seed=5, seat="first"
    )
    accepted = await fake.click(players[1], challenge.message, label="Accept")
    await accepted.followups(1)


@pytest.mark.parametrize(
    ("game", "people", "ending"),
    [
        ("molehill", 2, "It is a draw, 2 to 2"),
        ("hollowtown", 2, "without a Buy"),
        ("hillbert", 1, "went hungry"),
        ("everest", 2, "a draw"),
    ],
)
async def test_a_whole_game_by_clicks(
    fake: FakeDiscord, storage: Storage, browser: Browser, game: str, people: int, ending: str
) -> None:
    admin = fake.user("root", permissions=MANAGE_GUILD)
    users = [fake.user("alice"), fake.user("bob")][:people]
    async with hilltop(fake, storage) as bot, serving_pages(bot.house.pages, CONFIG) as site:
        await fake.slash(admin, "admin settings", web="public")
        await start(fake, game, users)
        record = await storage.games.live_game_in_channel(fake.channel_id)
        assert record is not None
        tabs: dict[int, Tab] = {}
        for user, width in zip(users, (DESKTOP, PHONE), strict=False):
            tabs[user.id] = await signed_in(
                browser, site.url, CONFIG, bot.house.pages, user.id, user.name, fake.guild_id, width
            )
            await tabs[user.id].page.goto(f"{site.url}/g/{record.id}")
        await site.watched(len(tabs))
        turns = 0
        for _ in range(400):
            loaded = await bot.service.loaded(record.id)
            if loaded.record.status != "active":
                break
            posts = len(fake.channel_messages())
            acting = [loaded.record.seats[s].user.id for s in sorted(loaded.state.to_act)]
            for user_id in acting:
                tab = tabs[user_id]
                if turns == 3:
                    await expect(tab.page.locator("#play")).to_be_visible()
                    await shoot(tab.page, f"{game}-{tab.width}")
                done = await take_turn(tab.page)
                assert done.said.startswith("Done: "), done
                turns += 1
            if not loaded.game.told_in_rounds:
                # Each move is posted in the channel, by the bot, before the next is made
                # (Everest's are posted a round at a time).
                await fake.wait_until(
                    lambda: len(fake.channel_messages()) > posts,  # noqa: B023
                    within=WAIT_MS / 1000,
                    what=f"the channel to be told of move {loaded.record.ply + 1}",
                )
        else:
            raise AssertionError("the game did not end")
        await fake.wait_until(
            lambda: ending in fake.channel_messages()[-1].text,
            within=WAIT_MS / 1000,
            what="the end posted in the channel",
        )
        for tab in tabs.values():
            await expect(tab.page.locator("#live")).to_contain_text(ending)
            await expect(tab.page.locator("#play")).to_be_hidden()
            assert len(tab.navigations) == 1, "the page was loaded again"
            tab.assert_no_errors()
