"""The web pages' tests: a real browser (tests/web/browser.py), and a house on a fresh
database whose pages it looks at."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright.async_api import Browser

from data.storage import open_storage
from engine.hillbert_par import ParResult
from host.face import House
from tests.cogs.fake_discord import FakeDiscord, serving
from tests.houses import house_of
from tests.web.browser import DESKTOP, PHONE, ChromiumServer, Tab, launched, open_tab


class Clock:
    """The house's time: now, to the second, when the test began, moved on by the test
    alone (pages say times relative to the browser's own clock)."""

    def __init__(self) -> None:
        self.now = float(int(time.time()))

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A fake Discord on loopback that refuses what Discord would; a test that made the
    bot send it anything Discord would refuse fails."""
    async with serving() as server:
        yield server
    refused = [(c.method, c.path, reason) for c, reason in server.rejections]
    assert refused == [], "Discord would have refused these requests"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="session")
def chromium_server() -> Iterator[ChromiumServer]:
    """Chromium, started once for the tests of this process."""
    server = ChromiumServer()
    yield server
    server.stop()


@pytest.fixture
async def browser(chromium_server: ChromiumServer) -> AsyncIterator[Browser]:
    """The process's Chromium, for this test's own contexts."""
    async with launched(chromium_server) as opened:
        yield opened


@pytest.fixture(params=[PHONE, DESKTOP])
async def tab(browser: Browser, request: pytest.FixtureRequest) -> AsyncIterator[Tab]:
    """A page at each width in turn: a 360 px phone, then a 1280 px desktop window."""
    opened = await open_tab(browser, str(request.param))
    yield opened
    await opened.page.context.close()
    opened.assert_no_errors()


async def given_par(seed: int) -> ParResult:
    """The daily hill's par run, given rather than searched for (the search takes a worker
    process seconds): a run of no turn."""
    return ParResult(0, 0, ())


@asynccontextmanager
async def fresh_house(path: Path, clock: Callable[[], float]) -> AsyncIterator[House]:
    """A house on a new SQLite database at `path`, drawing its pictures."""
    storage = await open_storage(path)
    try:
        house = house_of(storage, clock=clock, render_images=True, par_runner=given_par)
        try:
            yield house
        finally:
            house.close()
    finally:
        await storage.close()


@pytest.fixture
async def house(tmp_path: Path, clock: Clock) -> AsyncIterator[House]:
    async with fresh_house(tmp_path / "hilltop.sqlite3", clock) as opened:
        yield opened
