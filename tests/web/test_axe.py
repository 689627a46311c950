"""axe-core on the pages the tour of tests/web/test_accessibility.py does not reach: the
console's "Play as" page, asked and answered with a refusal, and the Activity's first
page; and axe-core itself, shown to find the faults it is there to find and to fail the
test where it is not installed."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from console.front import Console, console_front
from data.storage import open_storage
from host.face import House
from tests.houses import house_of
from tests.web import audit
from tests.web.audit import axe_violations, said
from tests.web.browser import PHONE, Tab, open_tab, serving_pages
from tests.web.play import CONFIG

#: The console's site: its pages offer "Play as" to a browser on its own computer.
CONSOLE = replace(CONFIG, client_id="", client_secret="", console=True)


@pytest.fixture
async def console_house(tmp_path: Path) -> AsyncIterator[House]:
    """A console's house on a new SQLite database, with a game of alice's and bob's: the
    "Play as" page offers them both."""
    storage = await open_storage(tmp_path / "hilltop.sqlite3")
    try:
        house = house_of(storage, front=console_front(), render_images=True)
        try:
            typed = Console(house, tmp_path / "out", io.StringIO())
            await typed.run_line("alice /play game:hokito opponent:bob seat:first seed:5")
            await typed.run_line("bob /accept")
            yield house
        finally:
            house.close()
    finally:
        await storage.close()


async def test_the_play_as_page_passes_axe(console_house: House, tab: Tab) -> None:
    page = tab.page
    problems: list[str] = []
    async with serving_pages(console_house.pages, CONSOLE) as site:
        asked = await page.goto(f"{site.url}/login?next=/s/1")
        assert asked is not None and asked.status == 200
        await expect(page.get_by_role("button", name="Play as alice")).to_be_visible()
        problems += said(await axe_violations(page), "/login")
        # The bot's name is refused: the page again, saying why.
        await page.get_by_label("Another player's name").fill("hilltop")
        async with page.expect_navigation() as answered:
            await tab.press(page.get_by_role("button", name="Play as this name"))
        refusal = await answered.value
        assert refusal is not None and refusal.status == 400
        await expect(page.get_by_role("alert")).to_be_visible()
        problems += said(await axe_violations(page), "/login (refused)")
    assert problems == [], "\n".join(problems)


async def test_the_activitys_first_page_passes_axe(house: House, tab: Tab) -> None:
    page = tab.page
    async with serving_pages(house.pages, CONFIG) as site:
        # Discord opens the Activity at the site's front with its frame's id.
        opened = await page.goto(f"{site.url}/?frame_id=frame-1")
        assert opened is not None and opened.status == 200
        await expect(page.locator("#activity #said")).not_to_be_empty()
        problems = said(await axe_violations(page), "the Activity's first page")
    assert problems == [], "\n".join(problems)


#: A page that passes every rule the pages are held to.
CLEAN = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Clean</title></head>
<body style="background: #fff; color: #000">
<main><h1>Clean</h1>
<p>Black on white.</p>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="a dot" width="10" height="10">
</main></body></html>"""
#: The same page with two faults: a picture without words for it, grey text too faint.
FAULTY = CLEAN.replace('alt="a dot" ', 'id="dot" ').replace(
    "<p>Black on white.</p>", '<p id="faint" style="color: #aaa">Grey on white.</p>'
)


async def test_axe_finds_a_picture_without_words_and_faint_text(browser: Browser) -> None:
    tab = await open_tab(browser, PHONE)
    page = tab.page
    await page.set_content(CLEAN)
    assert await axe_violations(page) == []
    await page.set_content(FAULTY)
    found = {v["id"]: v for v in await axe_violations(page)}
    assert found.keys() == {"image-alt", "color-contrast"}, found
    assert found["image-alt"]["impact"] == "critical"
    assert [n["target"] for n in found["image-alt"]["nodes"]] == [["#dot"]]
    assert [n["target"] for n in found["color-contrast"]["nodes"]] == [["#faint"]]
    lines = said(list(found.values()), "faulty")
    assert any(line.startswith("faulty: image-alt (critical): Images must have") for line in lines)
    assert any(line.startswith("    #faint: ") and "contrast" in line for line in lines), lines
    await page.context.close()


async def test_without_axe_installed_the_check_fails_saying_how_to_install_it(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit, "AXE_SCRIPT", tmp_path / "axe.min.js")
    tab = await open_tab(browser, PHONE)
    await tab.page.set_content(CLEAN)
    with pytest.raises(pytest.fail.Exception, match="run `make test`"):
        await axe_violations(tab.page)
    await tab.page.context.close()
