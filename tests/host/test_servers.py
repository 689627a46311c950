"""Servers the bot is removed from, through the whole house on a simulated clock: the
server stops at once (its games end, its tournaments stop, its pages are gone), its data
goes 30 days later unless the bot is invited back, an outage changes nothing, and an
admin may have everything deleted now after a confirmation naming what goes."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from console.front import Console, console_front
from console.lines import console_channel
from data.repository import Shards
from data.storage import Storage, open_storage
from host.face import House, ServerChange
from host.model import Channel, ServiceError
from host.payloads import Action, Payload
from host.setup import GameSetup
from tests.host.conftest import ADMIN, ALICE, BOB, HERE
from tests.houses import house_of
from web.app import make_app
from web.config import WebConfig

DAY = 86_400.0
START = 1_750_000_000.0
ELSEWHERE = Channel(channel_id=800, guild_id=8, name="elsewhere")


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(START)


@pytest.fixture
async def house(storage: Storage, clock: Clock) -> AsyncIterator[House]:
    made = house_of(storage, clock=clock)
    yield made
    made.close()


@pytest.fixture
async def client(house: House) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    app = make_app(house.pages, WebConfig(url="http://127.0.0.1:8080"))
    async with TestClient(TestServer(app)) as client:
        yield client


async def duel(house: House, where: Channel = HERE) -> int:
    """A game of alice and bob under way, with a day per decision, and open pages."""
    await house.service.server_settings(where, ADMIN, ServerChange(web="public", name="club"))
    setup = GameSetup("hokito", seed=5, seat="first", deadline_minutes=24 * 60)
    [challenge] = await house.service.start(where, ALICE, setup, [BOB])
    await house.service.accept(where, BOB)
    assert challenge.game_id is not None
    return challenge.game_id


async def at(house: House, clock: Clock, day: float) -> None:
    """The clock ticks on day `day` after the start."""
    clock.now = START + day * DAY
    await house.service.expire_due()


async def test_a_removed_server_stops_at_once_and_loses_its_data_after_30_days(
    house: House, clock: Clock, storage: Storage, client: TestClient[web.Request, web.Application]
) -> None:
    game = await duel(house)
    kept = await duel(house, ELSEWHERE)
    assert (await client.get(f"/g/{game}")).status == 200
    assert await house.servers.left(HERE.guild_id)
    record = await storage.games.get_game(game)
    assert record is not None and record.status == "aborted" and record.deadline_at is None
    for path in (f"/g/{game}", f"/s/{HERE.guild_id}"):
        assert (await client.get(path)).status == 404, path
    with pytest.raises(ServiceError):
        await house.service.move(HERE, ALICE, "a1-a2")
    await at(house, clock, 29.9)  # no deadline runs out, nothing is deleted
    assert await storage.games.get_game(game) == record
    await at(house, clock, 30)
    assert await storage.games.get_game(game) is None
    assert await storage.games.settings("guild", HERE.guild_id) == {}
    # The other server goes on as before.
    other = await storage.games.get_game(kept)
    assert other is not None and other.status == "active"
    assert (await client.get(f"/g/{kept}")).status == 200


async def test_a_server_the_bot_is_invited_back_to_keeps_its_data(
    house: House, clock: Clock, storage: Storage, client: TestClient[web.Request, web.Application]
) -> None:
    game = await duel(house)
    await house.servers.left(HERE.guild_id)
    await at(house, clock, 10)
    assert await house.servers.joined(HERE.guild_id)
    await at(house, clock, 31)
    record = await storage.games.get_game(game)
    assert record is not None and record.status == "aborted"
    assert (await client.get(f"/g/{game}")).status == 200
    assert (await house.service.server_settings(HERE, ADMIN, ServerChange()))[0].text


async def test_connecting_notices_only_its_own_shards_servers_gone_while_away(
    house: House, clock: Clock, storage: Storage
) -> None:
    shards = Shards((0,), 2)
    ours, theirs, outage = 2 << 22, 3 << 22, 4 << 22  # shards 0, 1, 0
    assert await house.servers.connected([ours, theirs, outage], None) == []
    game = await duel(house, Channel(900, ours, "ours"))
    # The bot starts again in `outage` (unavailable, but listed) and not in `ours`.
    assert await house.servers.connected([outage], shards) == [ours]
    record = await storage.games.get_game(game)
    assert record is not None and record.status == "aborted"
    assert await house.servers.is_gone(ours)
    assert not await house.servers.is_gone(theirs) and not await house.servers.is_gone(outage)
    # Invited back before it came up again: nothing pending.
    assert await house.servers.connected([ours, outage], shards) == []
    assert not await house.servers.is_gone(ours)


async def test_forget_server_names_what_goes_and_deletes_it_when_confirmed(
    house: House, storage: Storage, clock: Clock
) -> None:
    game = await duel(house)
    await duel(house, ELSEWHERE)
    [asked] = await house.servers.forget_server(HERE, ADMIN)
    assert asked.ephemeral and "1 game," in asked.text and "0 tournaments" in asked.text
    [button] = asked.actions
    assert button.payload == Payload(Action.FORGET_SERVER, HERE.guild_id, int(START // 60))
    assert await storage.games.get_game(game) is not None  # nothing goes before the press
    # The button works from a new process, as after a restart.
    other = await open_storage(storage.target)
    again = house_of(other, clock=clock)
    try:
        [done] = await again.service.press(HERE, ADMIN, button.payload)
    finally:
        again.close()
        await other.close()
    assert "deleted" in done.text
    assert await storage.games.get_game(game) is None
    assert (await storage.servers.contents(HERE.guild_id)).empty
    assert (await storage.servers.contents(ELSEWHERE.guild_id)).games == 1
    [nothing] = await house.servers.forget_server(HERE, ADMIN)
    assert not nothing.actions and "nothing stored" in nothing.text


async def test_forget_server_refuses_bad_input_changing_nothing(
    house: House, storage: Storage, clock: Clock
) -> None:
    game = await duel(house)
    payload = Payload(Action.FORGET_SERVER, HERE.guild_id, int(START // 60))
    direct = Channel(123, None, "dm")
    for channel, user, message in (
        (HERE, ALICE, "Only server admins"),
        (direct, ADMIN, "only in a server"),
    ):
        with pytest.raises(ServiceError, match=message):
            await house.servers.forget_server(channel, user)
        with pytest.raises(ServiceError, match=message):
            await house.service.press(channel, user, payload)
    with pytest.raises(ServiceError, match="another server"):
        await house.service.press(ELSEWHERE, ADMIN, payload)
    # A confirmation is pressed within 15 minutes of being shown, or not at all.
    clock.now = START + 16 * 60
    with pytest.raises(ServiceError, match="expired"):
        await house.service.press(HERE, ADMIN, payload)
    record = await storage.games.get_game(game)
    assert record is not None and record.status == "active"
    assert await storage.servers.get(HERE.guild_id) is None


async def test_the_consoles_admin_deletes_its_server_by_pressing_the_button(
    storage: Storage, tmp_path: Path
) -> None:
    house = house_of(storage, front=console_front())
    stream = io.StringIO()
    try:
        console = Console(house, tmp_path / "out", stream)
        await console.run_line("alice /play game:hokito opponent:bob")
        await console.run_line("bob /accept")
        record = await storage.games.live_game_in_channel(console_channel("general").channel_id)
        assert record is not None
        await console.run_line("alice /admin forget-server")
        asked = stream.getvalue()
        assert "1 game," in asked and "Delete everything" in asked
        assert await storage.games.get_game(record.id) is not None
        await console.run_line("alice /press Delete everything")
        assert "Everything this server had stored is deleted." in stream.getvalue()
        assert await storage.games.get_game(record.id) is None
        # Nothing of the console's server is kept: a bot on the same database that finds
        # itself in none of the servers it knows never takes it for one it was removed from.
        assert await storage.servers.get(record.guild_id or 0) is None
        assert await storage.servers.stored_present() == []
    finally:
        house.close()


async def test_two_processes_sweeping_at_once_delete_the_server_without_a_clash(
    house: House, clock: Clock, storage: Storage
) -> None:
    game = await duel(house)
    await house.servers.left(HERE.guild_id)
    other = await open_storage(storage.target)
    second = house_of(other, clock=clock)
    try:
        clock.now = START + 30 * DAY
        results = await asyncio.gather(
            house.service.expire_due(), second.service.expire_due(), return_exceptions=True
        )
        assert [r for r in results if isinstance(r, BaseException)] == []
        # Whichever of them swept, the next tick of either finds nothing left to do.
        await asyncio.gather(house.service.expire_due(), second.service.expire_due())
    finally:
        second.close()
        await other.close()
    assert await storage.games.get_game(game) is None
    assert await storage.servers.get(HERE.guild_id) is None
