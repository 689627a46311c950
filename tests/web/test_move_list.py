"""A game's page as a game interface: the moves in their notation beside the board (a
column per player, a row per round for Everest), each one showing its position on the
board and back to the live game, the newest marked, and the tab's title saying whose turn
it is; and the replay's list of positions beside its board on a desktop."""

from __future__ import annotations

import re

from playwright.async_api import Browser, Page, expect

from host.face import GameService, GameSetup, House, User
from tests.web.audit import overflow
from tests.web.browser import DESKTOP, PHONE, Tab, serving_pages
from tests.web.games import ALICE, BOB, HERE, HILL, finished_hokito, hokito, open_pages
from tests.web.play import CONFIG, shoot, signed_in

#: The board's picture is loaded and drawn.
DRAWN = "(src) => { const b = document.getElementById('board');"
DRAWN += " return b.getAttribute('src') === src && b.complete && b.naturalWidth > 0; }"
#: Everest, seed 5, between alice and bob: both plans of round 1, both of round 2, then bob
#: sets a coin aside at the end of round 2 (his damage), as (player, move).
EVEREST_MOVES = (
    (ALICE, "s0W 5W 4E"),
    (BOB, "s0E 5E AS"),
    (ALICE, "0E 3W sAS"),
    (BOB, "0E 5W 4N"),
    (BOB, "aside 5"),
)


async def moves(service: GameService, players: list[User], n: int) -> list[str]:
    """`n` moves, each player in turn making the first move suggested: their notation."""
    made = []
    for i in range(n):
        user = players[i % len(players)]
        [move, *_] = await service.suggest_moves(HERE, user, "")
        await service.move(HERE, user, move.value)
        made.append(move.value.split(" @")[0])
    return made


async def rows(page: Page) -> list[list[str]]:
    """The list's rows: the number, then each column's moves (space-separated)."""
    found: list[list[str]] = await page.locator(".movelist tbody tr").evaluate_all(
        "(rows) => rows.map((r) => Array.from(r.children, (c) => c.textContent.trim()))"
    )
    return found


async def fits(page: Page, tab: Tab) -> None:
    wide = await overflow(page, tab.pixels)
    assert wide["scrollWidth"] <= tab.pixels and wide["beyond"] == [], (tab.width, wide)


async def test_the_moves_are_listed_compactly_and_show_their_positions(
    house: House, tab: Tab
) -> None:
    await open_pages(house.service, HERE)
    game_id = await hokito(house.service, HERE)
    played = await moves(house.service, [ALICE, BOB], 5)
    async with serving_pages(house.pages) as site:
        page = tab.page
        await page.goto(f"{site.url}/g/{game_id}")
        heads = await page.locator(".movelist thead th").all_inner_texts()
        assert [h.strip() for h in heads] == ["Move", "alice (Black)", "bob (White)"]
        assert await rows(page) == [
            ["1", played[0], played[1]],
            ["2", played[2], played[3]],
            ["3", played[4], ""],
        ]
        # The newest move is marked, for the eye and for screen readers.
        newest = page.locator(".movelist [aria-current]")
        await expect(newest).to_have_count(1)
        await expect(newest).to_have_text(played[4])
        await expect(newest).to_have_attribute(
            "title", re.compile(rf"^alice \(Black\) played {re.escape(played[4])}")
        )
        # Beside the board on a desktop, below it on a phone; nothing sticks out sideways.
        board = await page.locator("#board").bounding_box()
        listed = await page.locator(".movelist").bounding_box()
        assert board is not None and listed is not None
        if tab.width == DESKTOP:
            assert listed["x"] >= board["x"] + board["width"]
            assert listed["y"] < board["y"] + board["height"]
        else:
            assert listed["y"] >= board["y"] + board["height"]
        await fits(page, tab)
        await shoot(page, f"move-list-{tab.width}")

        # Bob's first move: its position on the same board, said so, then back.
        live = f"/g/{game_id}/board.png?ply=5&s=active"
        await tab.press(page.locator(".movelist button", has_text=played[1]).first)
        await page.wait_for_function(DRAWN, arg=f"/g/{game_id}/frames/2.png")
        await expect(page.locator("#past")).to_be_visible()
        await expect(page.locator("#past-what")).to_have_text(
            re.compile(rf"^bob \(White\) played {re.escape(played[1])}")
        )
        await expect(page.locator("#board")).to_have_attribute("alt", re.compile(r"after move 2$"))
        await expect(page.locator(".movelist .shown")).to_have_text(played[1])
        await shoot(page, f"move-list-past-{tab.width}")
        await fits(page, tab)
        await tab.press(page.locator("#back-live"))
        await page.wait_for_function(DRAWN, arg=live)
        await expect(page.locator("#past")).to_be_hidden()
        await expect(page.locator(".movelist .shown")).to_have_count(0)

        # A move made while an old position is shown: listed, but the board stays put
        # and says the game has moved on; back to the live game shows it.
        await tab.press(page.locator(".movelist button", has_text=played[2]).first)
        await page.wait_for_function(DRAWN, arg=f"/g/{game_id}/frames/3.png")
        await site.watched(1)
        [sixth] = await moves(house.service, [BOB], 1)
        await expect(page.locator(".movelist [aria-current]")).to_have_text(sixth)
        await expect(page.locator("#past-news")).to_be_visible()
        await expect(page.locator("#board")).to_have_attribute("src", f"/g/{game_id}/frames/3.png")
        await expect(page.locator(".movelist .shown")).to_have_text(played[2])
        await tab.press(page.locator("#back-live"))
        await page.wait_for_function(DRAWN, arg=f"/g/{game_id}/board.png?ply=6&s=active")
        await expect(page.locator("#past-news")).to_be_hidden()
        tab.assert_no_errors()


async def test_the_tab_title_says_whose_turn_it_is(house: House, browser: Browser) -> None:
    await open_pages(house.service, HERE, name="The Hill")
    game_id = await hokito(house.service, HERE)
    async with serving_pages(house.pages, CONFIG) as site:
        tabs = {}
        for user, width in ((ALICE, DESKTOP), (BOB, PHONE)):
            tab = await signed_in(
                browser, site.url, CONFIG, house.pages, user.id, user.name, HILL, width
            )
            await tab.page.goto(f"{site.url}/g/{game_id}")
            tabs[user.name] = tab
        await site.watched(2)
        rest = f" · Hokito #{game_id} · The Hill · Hilltop"
        await expect(tabs["alice"].page).to_have_title(f"Your turn{rest}")
        await expect(tabs["bob"].page).to_have_title(f"alice to move{rest}")
        # Kept up to date as the game moves on.
        await moves(house.service, [ALICE], 1)
        await expect(tabs["alice"].page).to_have_title(f"bob to move{rest}")
        await expect(tabs["bob"].page).to_have_title(f"Your turn{rest}")
        for tab in tabs.values():
            tab.assert_no_errors()


async def test_everest_lists_a_round_a_row_and_keeps_the_open_round_secret(
    house: House, tab: Tab
) -> None:
    service = house.service
    await open_pages(service, HERE)
    [challenge] = await service.start(
        HERE, ALICE, GameSetup("everest", seed=5, seat="first"), [BOB]
    )
    await service.accept(HERE, BOB)
    game_id = challenge.game_id
    for user, text in EVEREST_MOVES:
        await service.move(HERE, user, text)
    # Alice plans round 3 in secret: bob has still to plan.
    earlier = {text for _, text in EVEREST_MOVES}
    plans = await service.suggest_moves(HERE, ALICE, "")
    secret = next(p.value.split(" @")[0] for p in plans if p.value.split(" @")[0] not in earlier)
    await service.move(HERE, ALICE, secret)
    async with serving_pages(house.pages) as site:
        page = tab.page
        await page.goto(f"{site.url}/g/{game_id}")
        heads = await page.locator(".movelist thead th").all_inner_texts()
        assert [h.strip() for h in heads] == ["Round", "alice (Red)", "bob (Blue)"]
        assert await rows(page) == [
            ["1", "s0W 5W 4E", "s0E 5E AS"],
            ["2", "0E 3W sAS", "0E 5W 4N aside 5"],
        ]
        # The aside is a choice of its own in the round's row, with its own position.
        aside = page.locator(".movelist button", has_text="aside 5")
        await expect(aside).to_have_attribute("title", re.compile(r"^bob \(Blue\) played aside 5"))
        assert secret not in await page.content()
        await fits(page, tab)
        await shoot(page, f"move-list-everest-{tab.width}")
        # A plan shows the round as revealed: both plans of round 1 show one position.
        frames = (
            await page.locator(".movelist tbody tr")
            .first.locator("button")
            .evaluate_all("(bs) => bs.map((b) => b.dataset.frame)")
        )
        assert len(set(frames)) == 1, frames
        await tab.press(page.locator(".movelist button", has_text="s0W 5W 4E"))
        await page.wait_for_function(DRAWN, arg=f"/g/{game_id}/frames/{frames[0]}.png")
        tab.assert_no_errors()


async def test_the_replay_lists_its_positions_beside_the_board_on_a_desktop(
    house: House, tab: Tab
) -> None:
    await open_pages(house.service, HERE)
    game_id = await finished_hokito(house.service, HERE, 6)
    async with serving_pages(house.pages) as site:
        page = tab.page
        await page.goto(f"{site.url}/g/{game_id}/replay")
        board = await page.locator("#frame").bounding_box()
        listed = await page.locator(".frames").bounding_box()
        stepper = await page.locator(".stepper").bounding_box()
        assert board is not None and listed is not None and stepper is not None
        if tab.width == DESKTOP:
            assert listed["x"] >= board["x"] + board["width"]
            # The list starts right under the stepper, not after the board.
            assert listed["y"] < board["y"] + board["height"] / 2
        else:
            assert listed["y"] >= board["y"] + board["height"]
        await fits(page, tab)
        await shoot(page, f"replay-{tab.width}")
        tab.assert_no_errors()
