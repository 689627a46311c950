"""Several processes on one database, each holding some of Discord's shards: each keeps
time for its own servers' games only, and once-a-day work is done by one of them."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date
from pathlib import Path

from data.daily import DailyRepository
from data.repository import Shards, shard_of
from data.storage import Storage, open_storage
from engine.hillbert_par import ParResult
from host.daily.service import DailyService
from host.model import Channel
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOB, BOT
from tests.waiting import PATIENCE, until

ROOT = Path(__file__).resolve().parents[2]
#: Servers whose events Discord sends to shard 0 and to shard 1 of two.
ON_SHARD_0 = 6 << 22
ON_SHARD_1 = 7 << 22
FIRST = Channel(channel_id=810, guild_id=ON_SHARD_0, name="first")
SECOND = Channel(channel_id=820, guild_id=ON_SHARD_1, name="second")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_server_belongs_to_the_shard_discord_sends_it_to() -> None:
    assert [shard_of(g, 2) for g in (ON_SHARD_0, ON_SHARD_1, None)] == [0, 1, 0]
    assert shard_of(ON_SHARD_1, 3) == 7 % 3
    assert Shards((1,), 2).owns(ON_SHARD_1) and not Shards((1,), 2).owns(ON_SHARD_0)
    assert Shards((0,), 2).owns(None)  # direct messages come to shard 0


def refusals(daily: DailyRepository) -> list[str]:
    """The names of the locks `daily`'s process is refused (another holds them) from now
    on, in order: what it has tried of the work another does."""
    refused: list[str] = []
    exclusive = daily.exclusive

    @asynccontextmanager
    async def counted(name: str) -> AsyncIterator[bool]:
        async with exclusive(name) as mine:
            if not mine:
                refused.append(name)
            yield mine

    daily.exclusive = counted  # type: ignore[method-assign]
    return refused


def service_of(storage: Storage, clock: Clock, shards: Shards | None) -> GameService:
    return GameService(storage.games, bot_user=BOT, clock=clock, render_images=False, shards=shards)


async def test_each_process_keeps_time_for_its_own_shards_only(storage_target: str) -> None:
    clock = Clock()
    first_storage = await open_storage(storage_target)
    second_storage = await open_storage(storage_target)
    try:
        first = service_of(first_storage, clock, Shards((0,), 2))
        second = service_of(second_storage, clock, Shards((1,), 2))
        for channel in (FIRST, SECOND):
            setup = GameSetup("hokito", seed=1, deadline_minutes=10)
            await first.start(channel, ALICE, setup, [BOB])
            await first.accept(channel, BOB)
        clock.now += 300  # half-way: each game's reminder is due
        [(where, [reminder])] = await first.expire_due()
        assert where.channel_id == FIRST.channel_id and "Reminder" in reminder.text
        [(where, [reminder])] = await second.expire_due()
        assert where.channel_id == SECOND.channel_id and "Reminder" in reminder.text
        clock.now += 301  # out of time: each process ends its own server's game
        [(where, _)] = await second.expire_due()
        assert where.channel_id == SECOND.channel_id
        assert await second.expire_due() == []
        [(where, _)] = await first.expire_due()
        assert where.channel_id == FIRST.channel_id
        # A process holding every shard (no shards given) would have found both.
        everything = service_of(first_storage, clock, None)
        assert await everything.expire_due() == []
        for channel in (FIRST, SECOND):
            record = await first.repository.live_game_in_channel(channel.channel_id)
            assert record is not None and record.expired_at is not None
    finally:
        await first_storage.close()
        await second_storage.close()


async def test_the_days_par_is_searched_by_one_process_for_all(storage_target: str) -> None:
    searches: list[int] = []
    started = asyncio.Event()
    finish = asyncio.Event()

    async def slow_par(seed: int) -> ParResult:
        searches.append(seed)
        started.set()
        await finish.wait()
        return ParResult(40, 120, ("d",))

    clock = Clock()
    storages = [await open_storage(storage_target) for _ in range(3)]
    try:
        dailies = [
            DailyService(
                GameService(s.games, bot_user=BOT, clock=clock, render_images=False),
                s.daily,
                secret="s3cret",
                par_runner=slow_par,
            )
            for s in storages
        ]
        day = date(2026, 11, 24)
        refused = [refusals(s.daily) for s in storages]
        asked = [asyncio.ensure_future(d.par._par(day)) for d in dailies]
        await asyncio.wait_for(started.wait(), PATIENCE)
        # The two others have each tried to search too, and were refused, while one did.
        await until(
            lambda: sorted(map(bool, refused)) == [False, True, True],
            "the other processes to be refused the search",
            seen=lambda: refused,
        )
        assert len(searches) == 1
        finish.set()
        assert await asyncio.wait_for(asyncio.gather(*asked), PATIENCE) == [(40, 120)] * 3
        assert len(searches) == 1
        assert await storages[2].daily.get_par(day.isoformat()) == (40, 120)
    finally:
        for storage in storages:
            await storage.close()


HOLD_THE_LOCK = """
import asyncio, sys
from data.storage import open_storage

async def main():
    storage = await open_storage(sys.argv[1])
    async with storage.daily.exclusive(sys.argv[2]) as mine:
        print("held" if mine else "refused", flush=True)
        await asyncio.sleep(3600)

asyncio.run(main())
"""


async def test_a_process_takes_over_the_par_search_of_one_that_died(
    storage_target: str,
) -> None:
    """The lock of a process killed while it searches dies with it: another process,
    waiting for its par, then searches."""
    day = date(2026, 11, 25)
    holder = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        HOLD_THE_LOCK,
        storage_target,
        f"daily-par:{day.isoformat()}",
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    other = await open_storage(storage_target)
    try:
        assert holder.stdout is not None
        assert await asyncio.wait_for(holder.stdout.readline(), PATIENCE) == b"held\n"
        searches: list[int] = []

        async def par_of(seed: int) -> ParResult:
            searches.append(seed)
            return ParResult(33, 100, ())

        daily = DailyService(
            GameService(other.games, bot_user=BOT, clock=Clock(), render_images=False),
            other.daily,
            secret="s3cret",
            par_runner=par_of,
        )
        refused = refusals(other.daily)
        waiting = asyncio.ensure_future(daily.par._par(day))
        await until(lambda: bool(refused), "the search to be refused while the holder lives")
        assert not waiting.done() and searches == []  # it waits for the holder's par
        holder.send_signal(signal.SIGKILL)
        await holder.wait()
        assert await asyncio.wait_for(waiting, PATIENCE) == (33, 100)
        assert len(searches) == 1
    finally:
        if holder.returncode is None:
            holder.kill()
            await holder.wait()
        await other.close()
