"""One bot process per shard, and one shard count per database: a second process given
a shard that is held, or another count, refuses to start, saying which process holds it.
Each process stands here as a storage of its own (its own connections)."""

from __future__ import annotations

import argparse
import os
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

import bot
from data.repository import ShardHold, Shards, ShardsHeldError
from data.storage import Storage, open_storage
from tests.conftest import PostgresDatabases

Opened = Callable[[], Awaitable[Storage]]


@pytest.fixture
async def processes(storage_target: str) -> AsyncIterator[Opened]:
    """Opens the database as another process would, closing each after the test."""
    opened: list[Storage] = []

    async def another() -> Storage:
        opened.append(await open_storage(storage_target))
        return opened[-1]

    yield another
    for storage in opened:
        await storage.close()


async def test_a_held_shard_is_refused_naming_its_holder(processes: Opened) -> None:
    first, second = await processes(), await processes()
    hold = await first.hold_shards(Shards((0,), 2))
    with pytest.raises(ShardsHeldError) as refused:
        await second.hold_shards(Shards((0,), 2))
    message = str(refused.value)
    assert f"pid {os.getpid()} on {socket.gethostname()[:24]} since 20" in message
    await hold.release()  # the holder stops: its shard is free
    again = await second.hold_shards(Shards((0,), 2))
    await again.release()


async def test_every_shard_of_one_process_is_refused_to_another(processes: Opened) -> None:
    first, second = await processes(), await processes()
    hold = await first.hold_shards(None)
    with pytest.raises(ShardsHeldError):
        await second.hold_shards(None)
    await hold.release()


async def test_postgresql_shares_shards_out_among_processes_of_one_count(
    postgres: PostgresDatabases,
) -> None:
    name, url = postgres.create()
    opened = [await open_storage(url) for _ in range(3)]
    try:
        await shares_shards_out(*opened)
    finally:
        for storage in opened:
            await storage.close()
        postgres.drop(name)


async def shares_shards_out(first: Storage, second: Storage, third: Storage) -> None:
    holds: list[ShardHold] = [await first.hold_shards(Shards((0, 2), 4))]
    holds.append(await second.hold_shards(Shards((1, 3), 4)))  # the other shards: fine
    with pytest.raises(ShardsHeldError, match=r"shard 2 of 4 is held by another process \(pid"):
        await third.hold_shards(Shards((2,), 4))
    # Another count would share the servers out differently: refused, naming a holder.
    for other in (Shards((0,), 2), Shards((5,), 8), None):
        with pytest.raises(ShardsHeldError, match=r"handled by 4 shards \(pid \d+ on "):
            await third.hold_shards(other)
    await holds.pop(0).release()
    with pytest.raises(ShardsHeldError, match="handled by 4 shards"):
        await third.hold_shards(Shards((0,), 2))  # the second process still holds 4
    holds.append(await third.hold_shards(Shards((0, 2), 4)))
    for hold in holds:
        await hold.release()
    last = await third.hold_shards(Shards((0,), 2))  # nobody left: any count will do
    await last.release()


async def test_the_bot_refuses_to_start_on_a_held_shard(
    storage_target: str, processes: Opened, monkeypatch: pytest.MonkeyPatch
) -> None:
    hold = await (await processes()).hold_shards(Shards((1,), 2))
    monkeypatch.setenv("HILLTOP_SHARDS", "1/2")
    monkeypatch.setattr(bot, "SHARD_WAIT_SECONDS", 0.0)
    args = argparse.Namespace(db=storage_target)
    with pytest.raises(SystemExit, match=f"Not starting: .*pid {os.getpid()}"):
        await bot.run_discord("token", args)
    await hold.release()
