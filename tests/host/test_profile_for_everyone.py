"""A profile for everyone: a player with no rated game (three games against the computer)
sees their finished games and their record on /profile and on the web profile page."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer

from data.storage import Storage
from host.face import FrontEnd, House, ServerChange
from host.setup import GameSetup
from tests.host.conftest import ADMIN, ALICE, BOT, HERE, each_moves_once
from tests.houses import house_of
from web.app import make_app
from web.config import WebConfig

CONFIG = WebConfig(url="http://127.0.0.1:8080")


@pytest.fixture
async def house(storage: Storage) -> AsyncIterator[House]:
    built = house_of(storage, front=FrontEnd(BOT))
    yield built
    built.close()


async def lost_to_the_computer(house: House, times: int) -> list[int]:
    """Games of alice against the computer, each resigned after a move."""
    games = []
    for _ in range(times):
        [started, *_] = await house.service.start(
            HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOT]
        )
        await each_moves_once(house.service, HERE, ALICE)
        await house.service.resign(HERE, ALICE, confirmed=True)
        assert started.game_id is not None
        games.append(started.game_id)
    return games


async def test_a_player_without_a_rated_game_sees_their_games(house: House) -> None:
    games = await lost_to_the_computer(house, 3)
    [profile] = await house.ratings.profile(HERE, ALICE, None, None)
    assert "no rated game here" not in profile.text
    fields = dict(profile.fields)
    played = fields["Games here"].splitlines()
    assert played[0] == "3 games: 0 wins, 0 draws, 3 losses"
    # The newest first, each as /history lists it.
    assert [int(re.findall(r"#(\d+)", line)[0]) for line in played[1:]] == games[::-1]
    assert all("**Hokito**" in line and "alice resigned" in line for line in played[1:])
    assert all("beat alice" in line for line in played[1:])


async def test_the_web_profile_shows_the_same(house: House) -> None:
    await house.service.server_settings(HERE, ADMIN, ServerChange(web="public", name="club"))
    games = await lost_to_the_computer(house, 3)
    async with TestClient(TestServer(make_app(house.pages, CONFIG))) as client:
        page = await client.get(f"/s/{HERE.guild_id}/u/{ALICE.id}")
        assert page.status == 200
        body = await page.text()
    assert "Profile: alice" in body and "no rated game here" not in body
    assert "Games here" in body and "3 games: 0 wins, 0 draws, 3 losses" in body
    assert all(f"#{game}" in body for game in games)
    assert body.count("alice resigned") == 3
