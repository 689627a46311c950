"""A finished game's replay page steps through the game: with its buttons, with the keys,
and from its list of moves, at a phone's width and a desktop's."""

from __future__ import annotations

import re

from playwright.async_api import Browser, Page, expect

from host.face import House
from tests.web.browser import DESKTOP, Tab, open_tab, serving_pages
from tests.web.games import HERE, finished_hokito, open_pages

MOVES = 6


async def shows(page: Page, game_id: int, at: int, last: int, caption: str) -> None:
    """The stepper stands at position `at` of 0…`last`, its picture loaded."""
    await expect(page.locator("#where")).to_have_text(f"{at} / {last}")
    frame = page.locator("#frame")
    await expect(frame).to_have_attribute("src", f"/g/{game_id}/frames/{at}.png")
    await expect(frame).to_have_attribute("alt", re.compile(rf"\b{at}$"))
    await expect(page.locator("#caption")).to_have_text(caption)
    await expect(page.locator(f'.frames [data-frame="{at}"]')).to_have_attribute(
        "aria-current", "step"
    )
    await expect(page.locator(".frames [aria-current]")).to_have_count(1)
    for step in ("first", "back"):
        button = page.locator(f'[data-step="{step}"]')
        await (expect(button).to_be_disabled() if at == 0 else expect(button).to_be_enabled())
    for step in ("next", "last"):
        button = page.locator(f'[data-step="{step}"]')
        await (expect(button).to_be_disabled() if at == last else expect(button).to_be_enabled())
    await page.wait_for_function(
        """(src) => {
          const img = document.getElementById("frame");
          return img.getAttribute("src") === src && img.complete && img.naturalWidth > 0;
        }""",
        arg=f"/g/{game_id}/frames/{at}.png",
    )


async def test_the_replay_steps_through_the_game_both_ways(house: House, tab: Tab) -> None:
    await open_pages(house.service, HERE)
    game_id = await finished_hokito(house.service, HERE, MOVES)
    async with serving_pages(house.pages) as site:
        page = tab.page
        response = await page.goto(f"{site.url}/g/{game_id}/replay")
        assert response is not None and response.status == 200
        links = page.locator(".frames [data-frame]")
        await expect(links).to_have_count(MOVES + 1)
        captions = [text.strip() for text in await links.all_inner_texts()]
        assert captions[0] == "The start."
        assert all(re.match(r"(alice|bob) \(\w+\) played ", c) for c in captions[1:]), captions
        last = MOVES

        # It opens at the end.
        await shows(page, game_id, last, last, captions[last])
        # The buttons: to the start, then forward one move at a time to the end.
        await tab.press(page.locator('[data-step="first"]'))
        await shows(page, game_id, 0, last, captions[0])
        for at in range(1, last + 1):
            await tab.press(page.locator('[data-step="next"]'))
            await shows(page, game_id, at, last, captions[at])
        # Back one at a time to the start.
        for at in range(last - 1, -1, -1):
            await tab.press(page.locator('[data-step="back"]'))
            await shows(page, game_id, at, last, captions[at])
        await tab.press(page.locator('[data-step="last"]'))
        await shows(page, game_id, last, last, captions[last])

        # The keys: ← all the way back (and once more, which stays at the start), → forward.
        for at in range(last - 1, -1, -1):
            await page.keyboard.press("ArrowLeft")
            await shows(page, game_id, at, last, captions[at])
        await page.keyboard.press("ArrowLeft")
        await shows(page, game_id, 0, last, captions[0])
        for at in range(1, last + 1):
            await page.keyboard.press("ArrowRight")
            await shows(page, game_id, at, last, captions[at])
        await page.keyboard.press("ArrowRight")
        await shows(page, game_id, last, last, captions[last])
        await page.keyboard.press("Home")
        await shows(page, game_id, 0, last, captions[0])
        await page.keyboard.press("End")
        await shows(page, game_id, last, last, captions[last])

        # A move in the list jumps straight to it; its address opens there again.
        await tab.press(links.nth(1))
        await shows(page, game_id, 1, last, captions[1])
        middle = last // 2
        await tab.press(links.nth(middle))
        await shows(page, game_id, middle, last, captions[middle])
        assert page.url.endswith(f"/g/{game_id}/replay#{middle}")
        await page.reload()
        await shows(page, game_id, middle, last, captions[middle])


async def test_every_frame_is_its_own_picture(house: House, browser: Browser) -> None:
    await open_pages(house.service, HERE)
    game_id = await finished_hokito(house.service, HERE, MOVES)
    tab = await open_tab(browser, DESKTOP)
    async with serving_pages(house.pages) as site:
        pictures = []
        for n in range(MOVES + 1):
            got = await tab.page.request.get(f"{site.url}/g/{game_id}/frames/{n}.png")
            assert got.status == 200 and got.headers["content-type"] == "image/png"
            pictures.append(await got.body())
        assert len(set(pictures)) == MOVES + 1
        beyond = await tab.page.request.get(f"{site.url}/g/{game_id}/frames/{MOVES + 1}.png")
        assert beyond.status == 404
