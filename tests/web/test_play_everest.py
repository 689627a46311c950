"""An Everest round planned on the web by one player while the other plans on Discord:
neither sees the other's plan before the reveal, on the pages or in the channel; and a page
left behind, or a confirm clicked twice, never plays twice."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import parse_qs, urlsplit

from playwright.async_api import Browser, Route, expect

from data.storage import Storage
from host.face import GameRecord
from tests.cogs.fake_discord import MANAGE_GUILD, FakeDiscord, FakeUser
from tests.cogs.test_gateway import hilltop, start_hokito
from tests.cogs.test_gateway import nothing_logged_an_error as nothing_logged_an_error
from tests.web.browser import DESKTOP, PHONE, WAIT_MS, open_tab, serving_pages
from tests.web.play import CLICKS, CONFIG, SETTLED, click, signed_in, take_turn


async def everest_on_the_web(
    fake: FakeDiscord, storage: Storage, alice: FakeUser, bob: FakeUser
) -> GameRecord:
    """The server's pages made public, then Everest between alice (first) and bob, seed 5,
    started by alice's challenge and bob's accept: its record."""
    admin = fake.user("root", permissions=MANAGE_GUILD)
    await fake.slash(admin, "admin settings", web="public")
    challenge = await fake.slash(alice, "play", game="everest", opponent=bob, seed=5, seat="first")
    accepted = await fake.click(bob, challenge.message, label="Accept")
    await accepted.followups(1)
    record = await storage.games.live_game_in_channel(fake.channel_id)
    assert record is not None
    return record


async def test_a_round_planned_on_the_web_and_on_discord_stays_secret_until_revealed(
    fake: FakeDiscord, storage: Storage, browser: Browser
) -> None:
    alice, bob = fake.user("alice"), fake.user("bob")
    async with hilltop(fake, storage) as bot, serving_pages(bot.house.pages, CONFIG) as site:
        record = await everest_on_the_web(fake, storage, alice, bob)
        web = await signed_in(
            browser, site.url, CONFIG, bot.house.pages, alice.id, "alice", fake.guild_id, DESKTOP
        )
        onlooker = await open_tab(browser, PHONE)
        await web.page.goto(f"{site.url}/g/{record.id}")
        await onlooker.page.goto(f"{site.url}/g/{record.id}")
        await site.watched(2)
        posts = len(fake.channel_messages())

        # Alice plans on the page, a choice at a time.
        turn = await take_turn(web.page)
        alices_plan = turn.said.removeprefix("Done: ").rstrip(".")
        assert len(alices_plan.split()) == 3, turn
        await expect(web.page.locator("#live")).to_contain_text("Still planning: bob (Blue)")
        # Nobody else sees it: not the page of someone looking on, not the channel.
        await expect(onlooker.page.locator("#live")).to_contain_text("Still planning: bob (Blue)")
        for page in (onlooker.page,):
            assert alices_plan not in await page.content()
        assert all(alices_plan not in m.text for m in fake.channel_messages())

        # Bob plans on Discord, with the move command, the last to plan: the round is
        # revealed by the answer to it, in the channel, with both plans.
        bobs = await fake.slash(bob, "move", text="0N AN 2N")
        revealed = await bobs.shown()
        assert not revealed.ephemeral, revealed.text
        assert "Plans revealed" in revealed.text and alices_plan in revealed.text
        assert len(fake.channel_messages()) >= posts
        for page in (web.page, onlooker.page):
            await expect(page.locator("#live")).to_contain_text("Plans revealed")
            await expect(page.locator("#live")).to_contain_text(alices_plan)
        web.assert_no_errors()
        onlooker.assert_no_errors()


async def test_a_confirm_clicked_twice_or_from_a_page_left_behind_plays_once(
    fake: FakeDiscord, storage: Storage, browser: Browser
) -> None:
    admin = fake.user("root", permissions=MANAGE_GUILD)
    alice, bob = fake.user("alice"), fake.user("bob")
    async with hilltop(fake, storage) as bot, serving_pages(bot.house.pages, CONFIG) as site:
        await fake.slash(admin, "admin settings", web="public")
        await start_hokito(fake, alice, bob)
        record = await storage.games.live_game_in_channel(fake.channel_id)
        assert record is not None
        first = await signed_in(
            browser, site.url, CONFIG, bot.house.pages, alice.id, "alice", fake.guild_id, DESKTOP
        )
        second = await first.page.context.new_page()  # the same player, another tab
        # The second tab hears nothing of the game after it was drawn (a phone asleep, a
        # connection lost): what it offers is left behind by the first tab's move.
        await second.route("**/events*", lambda route: route.abort())
        await first.page.goto(f"{site.url}/g/{record.id}")
        await second.goto(f"{site.url}/g/{record.id}")
        # The pawn chosen on the board in both tabs, then its square: the first tab plays
        # the move.
        for page in (first.page, second):
            await click(page, "#spots .spot")
        before = await first.page.evaluate(CLICKS)
        await first.page.locator("#spots .spot").first.click()
        await first.page.wait_for_function(SETTLED, arg=before)
        await expect(first.page.locator("#told")).to_contain_text("Done: ")
        # The second tab was drawn before it: the same move there is refused, and changes
        # nothing; the tab is shown the game as it is now.
        await second.locator("#spots .spot").first.click()
        await expect(second.locator("#told")).to_contain_text("This page is out of date")
        await expect(second.locator("#play")).to_be_hidden()
        # A double click on a confirm sends it twice: once played, once refused.
        check = await first.page.evaluate("document.body.dataset.check")
        answers = []
        for _ in range(2):
            response = await first.page.request.post(
                f"{site.url}/g/{record.id}/play",
                data={"ply": 2, "step": ["a1", "b1"]},
                headers={"X-Hilltop-Check": check},
            )
            answers.append(response.status)
        moves = await storage.games.moves(record.id)
        assert len(moves) == 1, [m.text for m in moves]
        assert answers == [409, 409]
        # A request from another site cannot play: it does not know the check.
        forged = await first.page.request.post(
            f"{site.url}/g/{record.id}/play", data={"ply": 1, "step": ["a6", "a5"]}
        )
        assert forged.status == 403
        assert len(await storage.games.moves(record.id)) == 1


async def test_a_choice_clicked_while_the_page_asks_about_a_change_is_answered_after(
    fake: FakeDiscord, storage: Storage, browser: Browser
) -> None:
    alice, bob = fake.user("alice"), fake.user("bob")
    async with hilltop(fake, storage) as bot, serving_pages(bot.house.pages, CONFIG) as site:
        record = await everest_on_the_web(fake, storage, alice, bob)
        web = await signed_in(
            browser, site.url, CONFIG, bot.house.pages, alice.id, "alice", fake.guild_id, DESKTOP
        )
        page = web.page
        await page.goto(f"{site.url}/g/{record.id}")
        await site.watched(1)
        await expect(page.locator("#play .choices button").first).to_be_visible()
        chosen = await page.locator("#play .choices button").first.get_attribute("data-choose")
        assert chosen is not None

        # The page's question about the next change is held until the test lets it go.
        asking, answer = asyncio.Event(), asyncio.Event()
        asked: list[list[str]] = []

        async def hold(route: Route) -> None:
            steps = parse_qs(urlsplit(route.request.url).query).get("step", [])
            asked.append(steps)
            if len(asked) == 1:
                asking.set()
                await answer.wait()
            await route.continue_()

        await page.route(f"**/g/{record.id}/play?*", hold)
        # Bob plans on Discord: alice's page hears of it and asks about it.
        await fake.slash(bob, "move", text="0N AN 2N")
        await asyncio.wait_for(asking.wait(), WAIT_MS / 1000)
        # Alice clicks her first choice while the page is still asking.
        before = await page.evaluate(CLICKS)
        await page.locator("#play .choices button").first.click()
        answer.set()
        await page.wait_for_function(SETTLED, arg=before)
        # The click was not lost: once the page knew the change, the choice was asked for.
        assert asked[0] == [], asked
        assert [json.dumps(s) for s in asked[1:]] == [chosen], (asked, chosen)
        web.assert_no_errors()
