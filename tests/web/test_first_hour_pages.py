"""What a newcomer reads on the pages in their first hour: the empty `/me` of the console's
pages tells how to start a game in the console, where the bot's pages send them to
Discord."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from console.front import Console, console_front
from data.storage import Storage
from host.face import House
from tests.houses import house_of
from tests.web.test_play_as import CONSOLE, choosing
from web.app import make_app

Client = TestClient[web.Request, web.Application]


@pytest.fixture
async def console_house(storage: Storage, tmp_path: Path) -> AsyncIterator[House]:
    house = house_of(storage, front=console_front())
    Console(house, tmp_path / "out", io.StringIO())
    try:
        yield house
    finally:
        house.close()


async def test_the_consoles_empty_me_page_says_how_to_start_a_game_in_the_console(
    console_house: House,
) -> None:
    async with TestClient(TestServer(make_app(console_house.pages, CONSOLE))) as client:
        assert (await choosing(client, "alice")).status == 303
        html = await (await client.get("/me")).text()
        live = await (await client.get("/me/live")).json()
    assert "No game waits for you right now." in html
    for page in (html, live["html"]):
        assert "Start a game in the console with /play" in page, page
        assert "in Discord" not in page
