"""A real browser for the web pages' tests, and the pages served for it.

The browser is the system's Chromium (Debian's `chromium`), started once per test process
(`ChromiumServer`) and driven by Playwright's async API in each test's own event loop,
through the DevTools protocol; every test's pages are in browser contexts of their own, as
separate as two browsers' profiles. The pages are served by the site's aiohttp application
in the test's loop, on an ephemeral loopback port. A machine without Chromium fails these
tests with a message saying how to install it: they are never skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web
from playwright.async_api import (
    Browser,
    Locator,
    Page,
    Request,
    Response,
    async_playwright,
    expect,
)

from host.face import WebPages
from web.app import HUB, make_app
from web.config import WebConfig
from web.hub import Hub

#: Chromium's switches here: root needs `--no-sandbox`; the rest keep a test run from
#: reaching out (updates, sync, field trials) and from drawing on a GPU it may not have.
#: The browser's profile is a temporary folder of its own, removed when it stops.
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
#: What Playwright gives a browser it starts itself, for pages to behave the same in the
#: one the tests start: no scrollbars taking width, a pointer as a mouse, timers and pages
#: in other tabs never slowed (two players' pages are open at once), colours as sRGB.
AS_PLAYWRIGHT_STARTS_IT = (
    "--hide-scrollbars",
    "--mute-audio",
    "--blink-settings=primaryHoverType=2,availableHoverTypes=2,"
    "primaryPointerType=4,availablePointerTypes=4",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--disable-back-forward-cache",
    "--disable-ipc-flooding-protection",
    "--disable-hang-monitor",
    "--disable-popup-blocking",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--disable-default-apps",
    "--no-default-browser-check",
    "--allow-pre-commit-input",
    "--force-color-profile=srgb",
    "--disable-features=PaintHolding,MediaRouter,DestroyProfileOnBrowserClose",
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
#: How long `expect` waits for what a page is to show: only a guard against a page that
#: never shows it, far past what a loaded machine takes (every wait ends with the event).
WAIT_MS = 60_000
# The same guard for what a test expects of a page (Playwright's own is 5 s, which a busy
# machine can pass while the page is on its way).
expect.set_options(timeout=WAIT_MS)
#: Seconds Chromium may take to start and say where it listens.
START_SECONDS = 60
#: Chromium's line saying where its DevTools protocol listens.
_LISTENING = re.compile(r"DevTools listening on (ws://\S+)")


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


class ChromiumServer:
    """Chromium running headless for the tests of one process, listening on a loopback
    port for the DevTools protocol; started again if it has died."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None
        self._profile: str | None = None
        self._endpoint = ""

    def endpoint(self) -> str:
        """The websocket address of the running browser, starting it if need be."""
        if self._process is None or self._process.poll() is not None:
            self._start()
        return self._endpoint

    def _start(self) -> None:
        self.stop()
        self._profile = tempfile.mkdtemp(prefix="hilltop-chromium-")
        process = subprocess.Popen(
            [
                chromium(),
                *CHROMIUM_ARGS,
                *AS_PLAYWRIGHT_STARTS_IT,
                "--remote-debugging-port=0",
                f"--user-data-dir={self._profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._process = process
        lines: queue.Queue[str | None] = queue.Queue()

        def read() -> None:
            # Read to the end, so that the browser never blocks on a full pipe.
            assert process.stderr is not None
            for line in process.stderr:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=read, name="chromium-stderr", daemon=True).start()
        said: list[str] = []
        try:
            while True:
                line = lines.get(timeout=START_SECONDS)
                if line is None:
                    break
                said.append(line)
                if found := _LISTENING.search(line):
                    self._endpoint = found.group(1)
                    return
        except queue.Empty:
            pass
        self.stop()
        raise RuntimeError(
            f"Chromium did not start within {START_SECONDS} s; it said:\n" + "".join(said[-20:])
        )

    def stop(self) -> None:
        if self._process is not None:
            # Asked to end, Chromium ends its own helper processes and waits for them.
            self._process.terminate()
            try:
                self._process.wait(30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(30)
            self._process = None
        if self._profile is not None:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None


@asynccontextmanager
async def launched(server: ChromiumServer) -> AsyncIterator[Browser]:
    """The running Chromium of `server`, driven from this event loop; every context the
    test opened in it is closed at the end."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.connect_over_cdp(server.endpoint())
        default = set(browser.contexts)
        try:
            yield browser
        finally:
            for context in browser.contexts:
                if context not in default:
                    with contextlib.suppress(Exception):
                        await context.close()
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
