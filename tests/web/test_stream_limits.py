"""The site holds nothing for long for a client that misbehaves: a request whose headers
never end is closed, an event stream whose reader stopped reading is closed, and the open
streams are capped, each visitor's and all together (a page refused asks again later)."""

from __future__ import annotations

import asyncio
import re
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import aiohttp
import pytest
from aiohttp import web
from playwright.async_api import Browser, expect

from host.face import House
from tests.web.browser import DESKTOP, open_tab, serving_pages
from tests.web.games import ALICE, HERE, hokito, open_pages, play_moves
from tests.web.test_live import STREAMS
from web import app as site_app
from web import streams
from web.config import WebConfig
from web.hub import Hub
from web.streams import Laid, follow


async def test_a_request_whose_headers_never_end_is_closed(
    house: House, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(site_app, "HEADERS_TIMEOUT", 0.2)
    runner = await site_app.serve(house.pages, WebConfig(port=0))
    try:
        port = int(runner.addresses[0][1])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no blank line: half a request
        await writer.drain()
        async with asyncio.timeout(3):
            assert await reader.read() == b""
        writer.close()
    finally:
        await runner.cleanup()


async def test_a_stream_whose_reader_stopped_reading_is_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(streams, "WRITE_TIMEOUT", 0.2)
    hub = Hub()
    big = b": " + b"x" * 65536 + b"\n\n"
    sent = 0

    async def first() -> Laid:
        return Laid(0, "0", big)

    async def layout(watched: int, chosen: str) -> Laid:
        return Laid(0, str(sent), big)

    async def allowed(server: int) -> None:
        return None

    async def handler(request: web.Request) -> web.StreamResponse:
        # The server's side of the socket keeps little unsent, as the reader's keeps little
        # unread: the stream's writes soon wait.
        sock = request.transport.get_extra_info("socket") if request.transport else None
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        return await follow(request, hub, 1, first, layout, "en", allowed)

    app = web.Application()
    app.router.add_get("/events", handler)
    async with running(app) as port:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
        try:
            sock.send(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            await until(lambda: hub.streams > 0)
            async with asyncio.timeout(5):
                # The game changes again and again; the reader never reads.
                while hub.streams:
                    sent += 1
                    hub.changed(1)
                    await asyncio.sleep(0.01)
        finally:
            sock.close()


async def test_a_visitors_streams_above_the_cap_are_refused_for_a_while(
    house: House, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streams, "PER_VISITOR", 2)
    await refused_above(house, 2, monkeypatch)


async def test_streams_above_the_cap_of_all_are_refused_for_a_while(
    house: House, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streams, "IN_ALL", 3)
    await refused_above(house, 3, monkeypatch)


async def refused_above(house: House, cap: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cap` streams of a game's page open; the next is refused, and is let in again once
    one of the others has closed (as its next keep-alive finds)."""
    monkeypatch.setattr(streams, "KEEPALIVE", 0.05)
    await open_pages(house.service, HERE)
    game_id = await hokito(house.service, HERE)
    async with serving_pages(house.pages) as site, aiohttp.ClientSession() as session:
        url = f"{site.url}/g/{game_id}/events"
        opened = [await session.get(url) for _ in range(cap)]
        try:
            assert [r.status for r in opened] == [200] * cap
            async with session.get(url) as refused:
                assert refused.status == 503
                assert refused.headers["Retry-After"] == str(streams.RETRY_AFTER)
                assert "try again" in await refused.text()
            opened.pop().close()
            await until(lambda: site.hub.streams < cap)
            async with session.get(url) as again:
                assert again.status == 200
        finally:
            for response in opened:
                response.close()


async def until(done: Callable[[], bool]) -> None:
    async with asyncio.timeout(5):
        while True:
            if done():
                return
            await asyncio.sleep(0.01)


@asynccontextmanager
async def running(app: web.Application) -> AsyncIterator[int]:
    runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    try:
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        yield int(runner.addresses[0][1])
    finally:
        await runner.cleanup()


async def test_a_page_whose_stream_was_refused_asks_for_it_again_later(
    house: House, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streams, "PER_VISITOR", 0)
    await open_pages(house.service, HERE)
    game_id = await hokito(house.service, HERE)
    tab = await open_tab(browser, DESKTOP)
    await tab.page.add_init_script(STREAMS)
    await tab.page.clock.install()
    async with serving_pages(house.pages) as site:
        await tab.page.goto(f"{site.url}/g/{game_id}")
        # Refused: the browser itself would not ask again.
        await tab.page.wait_for_function(
            "window.__streams.length === 1 && window.__streams[0].readyState === 2", polling=50
        )
        monkeypatch.setattr(streams, "PER_VISITOR", 8)
        await tab.page.clock.fast_forward((streams.RETRY_AFTER + 1) * 1000)
        await site.watched(1)
        await play_moves(house.service, HERE, [ALICE], 1)
        board = tab.page.locator("#board")
        await expect(board).to_have_attribute("src", re.compile(r"ply=1\b"))
    await tab.page.context.close()
