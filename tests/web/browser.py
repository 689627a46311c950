"""A real browser for the web pages' tests, and the pages served for it.

The browser is the system's Chromium (Debian's `chromium`), driven by Playwright's async
API in the test's own event loop; the pages are served by the site's aiohttp application in
that same loop, on an ephemeral loopback port. A machine without Chromium fails these tests
with a message saying how to install it: they are never skipped.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web
from playwright.async_api import Browser, Locator, Page, Request, Response, async_playwright

from host.face import WebPages
from web.app import HUB, make_app
from web.config import WebConfig
from web.hub import Hub

#: Chromium's switches here: root needs `--no-sandbox`; the rest keep a test run from
#: reaching out (updates, sync, field trials) and from drawing on a GPU it may not have.
#: Playwright starts every browser on a fresh profile of its own (a temporary
#: `--user-data-dir`, which it will not be given).
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
INSTALL = "apt-get install -y --no-install-recommends chromium fonts-dejavu-core"

#: The widths every page is looked at: a phone, emulated as one, and a desktop window.
PHONE = "phone"
DESKTOP = "desktop"
WIDTHS: dict[str, dict[str, Any]] = {
    PHONE: {
        "viewport": {"width": 360, "height": 740},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
    },
    DESKTOP: {"viewport": {"width": 1280, "height": 800}},
}
#: How long `expect` waits for what a page is to show (the machines here are shared).
WAIT_MS = 15_000


def chromium() -> str:
    """Where Chromium is; the test fails, saying how to install it, when it is not."""
    found = shutil.which("chromium")
    if found is None:
        pytest.fail(
            f"The web pages are tested in Chromium, and it is not installed: {INSTALL} "
            "(.ci/run installs it before the tests).",
            pytrace=False,
        )
    return found


@asynccontextmanager
async def launched() -> AsyncIterator[Browser]:
    """Chromium, headless, closed with everything it opened."""
    path = chromium()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=path, args=list(CHROMIUM_ARGS))
        try:
            yield browser
        finally:
            await browser.close()


@dataclass
class Tab:
    """A page in a context of its own, at one of `WIDTHS`, with what went wrong in it: an
    uncaught script error, or a picture, script or stream the site refused."""

    page: Page
    width: str
    errors: list[str] = field(default_factory=list)
    #: Every navigation of the main frame, in order: a reload adds one.
    navigations: list[str] = field(default_factory=list)

    @property
    def pixels(self) -> int:
        return int(WIDTHS[self.width]["viewport"]["width"])

    async def press(self, target: Locator) -> None:
        """Use a button or link as this device would: a tap on the phone, a click else."""
        if self.width == PHONE:
            await target.tap()
        else:
            await target.click()

    def _failed(self, request: Request) -> None:
        # Aborted: the page let go of it (a picture replaced before it came, a stream
        # closed as the site stopped), which is no fault.
        if request.failure != "net::ERR_ABORTED":
            self.errors.append(f"{request.method} {request.url}: {request.failure}")

    def _answered(self, response: Response) -> None:
        # A page's own status is the test's to check; what it loads must all be there.
        if response.status >= 400 and response.request.resource_type != "document":
            self.errors.append(f"{response.request.method} {response.url}: {response.status}")

    def _navigated(self, frame: Any) -> None:
        if frame == self.page.main_frame:
            self.navigations.append(str(frame.url))

    def assert_no_errors(self) -> None:
        assert self.errors == [], f"at {self.width} width: {self.errors}"


async def open_tab(browser: Browser, width: str) -> Tab:
    context = await browser.new_context(**WIDTHS[width])
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    tab = Tab(page, width)
    page.on("pageerror", lambda error: tab.errors.append(f"script error: {error}"))
    page.on("requestfailed", tab._failed)
    page.on("response", tab._answered)
    page.on("framenavigated", tab._navigated)
    return tab


@dataclass(frozen=True, slots=True)
class Site:
    """The web pages being served: their address, and the streams of live game pages."""

    url: str
    hub: Hub
    #: Set each time a page's stream joins the hub.
    joined: asyncio.Event

    async def watched(self, streams: int) -> None:
        """Wait until `streams` pages' streams have joined: what changes after is sent."""
        try:
            async with asyncio.timeout(WAIT_MS / 1000):
                while True:
                    self.joined.clear()
                    if self.hub.streams >= streams:
                        return
                    await self.joined.wait()
        except TimeoutError:
            raise AssertionError(
                f"{self.hub.streams} of {streams} pages watch their games after {WAIT_MS} ms"
            ) from None


@asynccontextmanager
async def serving_pages(pages: WebPages, config: WebConfig | None = None) -> AsyncIterator[Site]:
    """The site over `pages`, served on an ephemeral loopback port in this event loop until
    the block ends (open event streams are ended as the site stops)."""
    app = make_app(pages, config or WebConfig(port=0))
    hub, joined = app[HUB], asyncio.Event()
    join = hub.join

    def joining(game_id: int) -> asyncio.Queue[int]:
        queue = join(game_id)
        joined.set()
        return queue

    hub.join = joining  # type: ignore[method-assign]
    runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=5.0)
    await runner.setup()
    try:
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        # The port the system chose, as the site's listening socket is bound to it.
        port = int(runner.addresses[0][1])
        yield Site(f"http://127.0.0.1:{port}", hub, joined)
    finally:
        await runner.cleanup()
