"""Every page, at a phone's width and a desktop's: each picture has words for those who
cannot see it and has loaded, text is readable against what is behind it (WCAG 2's
contrast), the page is laid out for the device's width and nothing sticks out sideways,
and axe-core finds nothing against WCAG 2.0 and 2.1 (A and AA) or its best practices.
A screenshot of each is kept to look at: in `HILLTOP_SCREENS` when it is set, as the play
tests keep theirs, else in the test's own temporary directory."""

from __future__ import annotations

import json
import os
from pathlib import Path

from playwright.async_api import Browser

from host.face import EventSetup, GameSetup, House
from tests.web.audit import (
    BROKEN_PICTURES,
    IMAGES_WITHOUT_ALT,
    VIEWPORT_META,
    axe_violations,
    contrast_failures,
    load_every_picture,
    overflow,
    said,
)
from tests.web.browser import PHONE, Tab, open_tab, serving_pages
from tests.web.games import (
    ADMIN,
    ALICE,
    BESIDE,
    BOB,
    CAROL,
    HERE,
    HILL,
    UNKNOWN,
    finished_hokito,
    hokito,
    open_pages,
    play_moves,
)
from web.auth import SESSION, sign
from web.config import WebConfig

#: The first page of `a_busy_server` seen signed in.
SIGNED_IN = "me"
#: The pages that are refusals, and their status; every other one is 200.
REFUSALS = {"not-found": 404, "signed-in-needed": 403}


async def a_busy_server(house: House) -> dict[str, str]:
    """A server with finished games, games in play of two kinds, ratings, and a round
    robin under way: its pages, by name."""
    service = house.service
    await open_pages(service, HERE, name="The Hill")
    finished = await finished_hokito(service, HERE, moves=8)
    await finished_hokito(service, HERE, moves=4, first=CAROL, second=ALICE)
    live = await hokito(service, BESIDE)
    # Four moves: the fifth is alice's, and her page of the game offers it to her.
    await play_moves(service, BESIDE, [ALICE, BOB], 4)
    [everest] = await service.start(HERE, BOB, GameSetup("everest", seed=2, computers=1), [CAROL])
    await service.accept(HERE, CAROL)
    assert everest.game_id is not None
    [announced] = await house.events.create(HERE, ADMIN, EventSetup("hokito", "round-robin"))
    event_id = int(announced.footer.rsplit("#", 1)[1])
    for player in (ALICE, BOB, CAROL):
        await house.events.join(HERE, player, event_id)
    await house.events.start(HERE, ADMIN, event_id)
    return {
        "front": "/",
        "server": f"/s/{HILL}",
        "game": f"/g/{live}",
        "game-finished": f"/g/{finished}",
        "game-everest": f"/g/{everest.game_id}",
        "replay": f"/g/{finished}/replay",
        "history": f"/s/{HILL}/history",
        "leaderboard": f"/s/{HILL}/leaderboard",
        "ratings": f"/s/{HILL}/ratings/hokito",
        "profile": f"/s/{HILL}/u/{ALICE.id}",
        "daily": f"/s/{HILL}/daily",
        "tournament": f"/s/{HILL}/t/{event_id}",
        "privacy": "/privacy",
        "not-found": f"/s/{UNKNOWN}",
        "signed-in-needed": "/me",
        # Signed in as alice from here on: her own page, and her move on the game's.
        SIGNED_IN: "/me",
        "game-your-move": f"/g/{live}",
    }


async def test_every_page_is_readable_and_fits_the_screen(
    house: House, tab: Tab, tmp_path: Path
) -> None:
    pages = await a_busy_server(house)
    screens = Path(os.environ.get("HILLTOP_SCREENS") or tmp_path)
    os.makedirs(screens, exist_ok=True)
    problems: list[str] = []
    page = tab.page
    async with serving_pages(house.pages) as site:
        for name, path in pages.items():
            if name == SIGNED_IN:
                token = await house.pages.sessions.sign_in(ALICE.id, ALICE.name, [HILL])
                cookie = {"name": SESSION, "value": sign(WebConfig(), token), "url": site.url}
                await page.context.add_cookies([cookie])  # type: ignore[list-item]
            response = await page.goto(site.url + path)
            assert response is not None
            expected = REFUSALS.get(name, 200)
            if response.status != expected:
                problems.append(f"{path}: status {response.status}, not {expected}")
                continue
            await load_every_picture(page)
            if name == "game-your-move" and not await page.locator("#play").is_visible():
                problems.append(f"{path}: alice's move is not offered to her")
            await page.screenshot(path=screens / f"{name}-{tab.width}.png", full_page=True)

            for src in await page.evaluate(IMAGES_WITHOUT_ALT):
                problems.append(f"{path}: the picture {src} has no alt text")
            for src in await page.evaluate(BROKEN_PICTURES):
                problems.append(f"{path}: the picture {src} did not load")
            viewports = await page.evaluate(VIEWPORT_META)
            if not any("width=device-width" in v for v in viewports):
                problems.append(f"{path}: no <meta name=viewport content=width=device-width>")
            for failure in await contrast_failures(page):
                problems.append(f"{path}: contrast {json.dumps(failure, ensure_ascii=False)}")
            if tab.width == PHONE:
                wide = await overflow(page, tab.pixels)
                if wide["scrollWidth"] > tab.pixels:
                    problems.append(
                        f"{path}: {wide['scrollWidth']} px wide on a {tab.pixels} px screen: "
                        + "; ".join(wide["beyond"])
                    )
            problems += said(await axe_violations(page), f"{path} ({name})")
    assert problems == [], "\n".join(problems)


VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'
#: A page with one of each fault the checks look for, beside text that passes.
FAULTY = """<!doctype html>
<html><head><title>faults</title></head>
<body style="background: #fff; color: #000; margin: 0">
<p>Black on white.</p>
<p style="color: #999">Grey on white.</p>
<p style="color: #767676; font-size: 24px">Large grey on white.</p>
<p style="background: #12324f; color: #4a5360">Muted on the header's blue.</p>
<button disabled style="color: #ccc">Disabled</button>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="10" height="10">
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="  " width="10" height="10">
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="a dot" width="10" height="10">
<div style="width: 500px">Wider than a phone.</div>
</body></html>"""


async def test_the_checks_find_each_fault(browser: Browser) -> None:
    tab = await open_tab(browser, PHONE)
    page = tab.page
    await page.set_content(FAULTY)
    assert len(await page.evaluate(IMAGES_WITHOUT_ALT)) == 2
    assert await page.evaluate(VIEWPORT_META) == []
    failed = {f["text"]: f["ratio"] for f in await contrast_failures(page)}
    assert failed.keys() == {"Grey on white.", "Muted on the header's blue."}, failed
    assert 2.8 < failed["Grey on white."] < 2.9
    # Without the viewport tag a phone lays the page out 980 px wide; with it, 360.
    assert (await overflow(page, tab.pixels))["scrollWidth"] == 980
    await page.set_content(FAULTY.replace("<head>", f"<head>{VIEWPORT}"))
    assert await page.evaluate(VIEWPORT_META) == ["width=device-width, initial-scale=1"]
    wide = await overflow(page, tab.pixels)
    assert wide["scrollWidth"] == 500 and wide["beyond"] == ["div reaches 500 px"]
    await page.context.close()
