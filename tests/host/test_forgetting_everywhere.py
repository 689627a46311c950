"""A forgetting reaches every process on the database and every picture kept: another
process drops its copy of the games renamed (it reads them again, with a former player),
and a finished game's board kept by the pages is drawn again."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import AsyncIterator

import asyncpg
import pytest
from aiohttp.test_utils import TestClient, TestServer

from data.postgresql.feed import APPLICATION
from data.storage import Storage, open_storage
from host.face import FrontEnd
from host.house import House
from host.model import Channel
from host.privacy.service import Forgotten
from tests.host.conftest import ALICE, BOB, BOT, HERE
from tests.host.test_daily import DAY, Clock, at, fake_par, finish_run
from tests.host.test_web_pages import CONFIG, hokito, move, open_pages
from tests.houses import house_of
from web.app import make_app

#: Seconds to wait for what must come: far beyond what it takes on a loaded machine.
WAIT = 30.0
ELSEWHERE = Channel(channel_id=501, guild_id=7, name="elsewhere")


class Heard:
    """The games a process's change feed told it of, as they come."""

    def __init__(self) -> None:
        self.games: list[int | None] = []
        self._came = asyncio.Event()

    def __call__(self, game_id: int | None) -> None:
        self.games.append(game_id)
        self._came.set()

    async def until(self, game_id: int | None) -> None:
        async with asyncio.timeout(WAIT):
            while game_id not in self.games:
                self._came.clear()
                await self._came.wait()


@pytest.fixture
async def two_houses(storage_target: str) -> AsyncIterator[tuple[House, House]]:
    """Two processes' houses on one database, each with its own connections."""
    first, second = await open_storage(storage_target), await open_storage(storage_target)
    houses = (house_of(first, front=FrontEnd(BOT)), house_of(second, front=FrontEnd(BOT)))
    try:
        yield houses
    finally:
        for house in houses:
            house.close()
        await first.close()
        await second.close()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_another_process_drops_its_copy_of_the_games_a_forgetting_renamed(
    two_houses: tuple[House, House],
) -> None:
    here, there = two_houses
    heard = Heard()
    unsubscribe = there.pages.subscribe(heard)
    try:
        await heard.until(None)  # the other process listens
        await open_pages(here, HERE)
        game = await hokito(here, moves=1)
        loaded = await there.service.live.load(game)
        assert "alice" in [s.user.name for s in loaded.record.seats]
        assert await here.privacy.forget(ALICE) is Forgotten.DONE
        # A change after the forgetting, heard there: what came before it was heard too.
        marker = await hokito(here, ELSEWHERE)
        await heard.until(marker)
        assert there.service.live.cached(game) is None
        again = await there.service.live.load(game)
        names = [s.user.name for s in again.record.seats]
        assert "alice" not in names and "" in names and "bob" in names
    finally:
        unsubscribe()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_process_whose_feed_was_lost_reads_its_games_again(
    two_houses: tuple[House, House], storage_target: str
) -> None:
    """A forgetting announced while the feed was not listening is missed: every game is
    read again once it listens again."""
    here, there = two_houses
    heard = Heard()
    unsubscribe = there.pages.subscribe(heard)
    try:
        await heard.until(None)
        await open_pages(here, HERE)
        game = await hokito(here, moves=1)
        await there.service.live.load(game)
        heard.games.clear()
        killer = await asyncpg.connect(storage_target)
        try:
            await killer.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND application_name LIKE $1",
                f"{APPLICATION} %",
            )
        finally:
            await killer.close()
        await heard.until(None)  # listening again
        assert there.service.live.cached(game) is None
    finally:
        unsubscribe()


async def test_a_finished_games_board_kept_by_the_pages_is_drawn_again(storage: Storage) -> None:
    house = house_of(storage, front=FrontEnd(BOT), render_images=True)
    try:
        async with TestClient(TestServer(make_app(house.pages, CONFIG))) as client:
            await open_pages(house, HERE)
            game = await hokito(house)
            await move(house, HERE, ALICE)
            await move(house, HERE, BOB)
            await house.service.resign(HERE, ALICE, confirmed=True)
            before = await client.get(f"/g/{game}/board.png")
            frame = await client.get(f"/g/{game}/frames/2.png")
            assert before.status == 200 and frame.status == 200
            assert await house.privacy.forget(ALICE) is Forgotten.DONE
            after = await client.get(f"/g/{game}/board.png")
            assert after.status == 200
            assert after.headers["ETag"] != before.headers["ETag"]
            again = await client.get(f"/g/{game}/frames/2.png")
            assert again.headers["ETag"] != frame.headers["ETag"]
    finally:
        house.close()


#: A name's place left empty, in a page's text: a word that precedes a name, then at once
#: the punctuation that follows one.
EMPTY_NAME = re.compile(r"(\bvs\.?|\bagainst|\bbeat|,) +[(:,·|]|\(\)")


def _words(page: str) -> list[str]:
    """A page's lines of text, without its markup."""
    text = html.unescape(re.sub(r"<[^>]+>", "\n", page))
    return [line.strip() for line in text.splitlines() if line.strip()]


async def test_the_pages_that_named_a_forgotten_player_name_a_former_player(
    storage: Storage,
) -> None:
    house = house_of(storage, front=FrontEnd(BOT))
    try:
        async with TestClient(TestServer(make_app(house.pages, CONFIG))) as client:
            await open_pages(house, HERE)
            game = await hokito(house)
            await move(house, HERE, ALICE)
            await move(house, HERE, BOB)
            await house.service.resign(HERE, ALICE, confirmed=True)
            await house.service.settle_ratings()
            assert await house.privacy.forget(ALICE) is Forgotten.DONE
            [former] = [
                int(r[0])
                for r in await storage.database.fetch("SELECT id FROM users WHERE former = 1")
            ]
            shown = []
            for path in (
                "/s/7",
                "/s/7/history",
                f"/s/7/history?player={former}",
                f"/s/7/u/{BOB.id}",
                f"/s/7/u/{former}",
                "/s/7/ratings/hokito",
                f"/g/{game}",
                f"/g/{game}/replay",
                f"/g/{game}/record.txt",
            ):
                response = await client.get(path)
                assert response.status in (200, 404), path
                shown += [f"{path}: {line}" for line in _words(await response.text())]
            assert any("a former player" in line for line in shown)
            assert [line for line in shown if "alice" in line.lower()] == []
            assert [line for line in shown if EMPTY_NAME.search(line.split(": ", 1)[1])] == []
    finally:
        house.close()


async def test_a_days_winning_run_of_a_forgotten_player_names_a_former_player(
    storage: Storage,
) -> None:
    clock = Clock(at(22, 12, 0))
    house = house_of(storage, bot=BOT, clock=clock, secret="s3cret", par_runner=fake_par)
    try:
        async with TestClient(TestServer(make_app(house.pages, CONFIG))) as client:
            await open_pages(house, HERE)
            await finish_run(house.daily, ALICE)
            clock.now = at(23, 1, 30)
            [before] = await house.daily.replays.replay(HERE, BOB, DAY)
            assert before.text.startswith("alice's run")
            picture = await client.get(f"/s/7/daily/{DAY}/winner.gif")
            assert picture.status == 200
            assert await house.privacy.forget(ALICE) is Forgotten.DONE
            # Everyone's table keeps the run; the server's, whose members she left, not.
            [after] = await house.daily.replays.replay(HERE, BOB, DAY, "winner", "global")
            assert after.text.startswith("a former player's run")
            again = await client.get(f"/s/7/daily/{DAY}/winner.gif")
            assert again.status == 404
    finally:
        house.close()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_two_forgettings_of_one_person_begun_at_once_are_one(
    storage: Storage, storage_target: str
) -> None:
    """Another process begins the same forgetting meanwhile (the confirmation pressed
    twice): the one that waited for it carries on with it."""
    await storage.database.write("INSERT INTO users (id, name) VALUES ($1, 'alice')", (ALICE.id,))
    other = await asyncpg.connect(storage_target)
    try:
        begun_there = other.transaction()
        await begun_there.start()
        await other.execute("INSERT INTO users (id, name, former) VALUES (-7, '', 1)")
        await other.execute(
            "INSERT INTO forgetting (user_id, former_id, started_at) VALUES ($1, -7, 1.0)",
            ALICE.id,
        )
        here = asyncio.ensure_future(storage.privacy.begin(ALICE.id, 2.0))
        async with asyncio.timeout(WAIT):
            while not await other.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock'"
            ):
                assert not here.done(), here.result()
                await asyncio.sleep(0.01)
        await begun_there.commit()
        forgetting = await here
    finally:
        await other.close()
    assert forgetting is not None and forgetting.former_id == -7
    rows = await storage.database.fetch("SELECT id FROM users WHERE former = 1")
    assert [int(r[0]) for r in rows] == [-7]
