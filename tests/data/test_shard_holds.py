"""One bot process per shard, and one shard count per database: a second process given
a shard that is held, or another count, refuses to start, saying which process holds it.
A PostgreSQL hold whose connection is lost is taken again, or reported lost to the
process that took it meanwhile. Each process stands here as a storage of its own (its
own connections)."""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

import bot
import cogs.client
from data.postgresql import db as pg_db
from data.postgresql.db import SHARD_LOCKS, PgDatabase, PgShardHold
from data.repository import ShardHold, Shards, ShardsHeldError
from data.storage import Storage, open_storage
from tests.conftest import PostgresDatabases

Opened = Callable[[], Awaitable[Storage]]
#: Seconds after which a test waiting for an event is taken to hang (a guard only: the
#: events come in well under a second).
HANG_GUARD = 60.0


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


async def _shard_holder(url: str, shard: int) -> asyncpg.Record:
    """The server process holding `shard`'s lock, and its application name."""
    conn = await asyncpg.connect(url)
    try:
        [row] = await conn.fetch(
            "SELECT l.pid, a.application_name FROM pg_locks l"
            " JOIN pg_stat_activity a ON a.pid = l.pid"
            " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
            " AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid",
            SHARD_LOCKS,
            shard,
        )
        return row
    finally:
        await conn.close()


async def _terminate(url: str, pid: int) -> None:
    """End server process `pid`, returning once it has ended (its locks with it)."""
    conn = await asyncpg.connect(url)
    try:
        assert await conn.fetchval("SELECT pg_terminate_backend($1, 30000)", pid)
    finally:
        await conn.close()


def _named(holder: asyncpg.Record) -> str:
    """How a lost hold names the process holding the shard now."""
    return f"{holder['application_name'].removeprefix('hilltop ')}, server process {holder['pid']}"


class Relay:
    """Passes TCP connections on to the server, for a process whose connections go
    through it. `cut` makes those open now pass nothing more, closing nothing, while
    new connections pass: a network that forgets connections without a word (a firewall
    losing its state), whose server ends never learn it. While `refusing`, new
    connections are closed at once, as if the server could not be reached; `refused`
    is set once one was."""

    def __init__(self, url: str) -> None:
        self._to = urlsplit(url)
        self._cut: list[bool] = []
        self._writers: list[asyncio.StreamWriter] = []
        self._server: asyncio.Server | None = None
        self.refusing = False
        self.refused = asyncio.Event()
        #: The URL of the server through the relay, once started.
        self.url = ""

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._pass_on, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = urlunsplit(self._to._replace(netloc=f"{self._to.username}@127.0.0.1:{port}"))

    def cut(self) -> None:
        for index in range(len(self._cut)):
            self._cut[index] = True

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in self._writers:
            writer.close()

    async def _pass_on(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.refusing:
            writer.close()
            self.refused.set()
            return
        up_reader, up_writer = await asyncio.open_connection(self._to.hostname, self._to.port)
        self._writers += [writer, up_writer]
        flow = len(self._cut)
        self._cut.append(False)

        async def one_way(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            while data := await source.read(65536):
                if not self._cut[flow]:
                    sink.write(data)
                    await sink.drain()
            if not self._cut[flow]:
                sink.close()

        await asyncio.gather(one_way(reader, up_writer), one_way(up_reader, writer))


@pytest.fixture
async def relay(storage_target: str) -> AsyncIterator[Relay]:
    """A relay to the test's database, started."""
    opened = Relay(storage_target)
    await opened.start()
    yield opened
    await opened.close()


async def _hold_through(relay: Relay, storage: Storage, **kwargs: Any) -> PgShardHold:
    """Shard 0 of 2 held by `storage`, on connections through `relay` (its pool's are
    not)."""
    assert isinstance(storage.database, PgDatabase)
    through = PgDatabase(storage.database.pool, relay.url)
    return await through.hold_shards(Shards((0,), 2), **kwargs)


async def _take_over(url: str, relay: Relay, second: Storage) -> tuple[ShardHold, asyncpg.Record]:
    """End the connection holding shard 0 of 2, which goes through `relay`, and have
    `second` take the shard before the holder can take it again: the second's hold, and
    who holds the shard now."""
    before = await _shard_holder(url, 0)
    relay.refusing = True
    await _terminate(url, before["pid"])
    async with asyncio.timeout(HANG_GUARD):
        await relay.refused.wait()  # the holder tried to take its shard again, in vain
    hold = await second.hold_shards(Shards((0,), 2))
    relay.refusing = False
    theirs = await _shard_holder(url, 0)
    assert theirs["pid"] != before["pid"]
    return hold, theirs


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_hold_whose_connection_ends_is_taken_again(
    storage_target: str, processes: Opened
) -> None:
    first, second = await processes(), await processes()
    hold = await first.hold_shards(Shards((0,), 2))
    assert isinstance(hold, PgShardHold)
    try:
        before = await _shard_holder(storage_target, 0)
        await _terminate(storage_target, before["pid"])
        async with asyncio.timeout(HANG_GUARD):
            await hold.taken(2)
        after = await _shard_holder(storage_target, 0)
        assert after["pid"] != before["pid"]
        assert after["application_name"] == before["application_name"]
        with pytest.raises(ShardsHeldError, match=f"shard 0 of 2 is held by .*pid {os.getpid()}"):
            await second.hold_shards(Shards((0,), 2))
    finally:
        await hold.release()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_hold_taken_by_another_while_lost_is_reported(
    storage_target: str, processes: Opened, relay: Relay
) -> None:
    first, second = await processes(), await processes()
    lost: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    hold = await _hold_through(relay, first, on_lost=lost.set_result)
    holds: list[ShardHold] = [hold]
    try:
        theirs, holder = await _take_over(storage_target, relay, second)
        holds.append(theirs)
        async with asyncio.timeout(HANG_GUARD):
            why = await lost
        assert why == f"shard 0 of 2 is now held by {_named(holder)}"
        with pytest.raises(ShardsHeldError, match="is now held by"):
            await hold.taken(2)
    finally:
        for each in holds:
            await each.release()


class StandInBot:
    """Stands for the Discord client in `bot.run_discord`: started, it runs until it is
    closed."""

    started: asyncio.Event

    def __init__(self, *_args: object, **_kwargs: object) -> None:
        self._closed = asyncio.Event()

    async def __aenter__(self) -> StandInBot:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        pass

    async def start(self, _token: str) -> None:
        StandInBot.started.set()
        await self._closed.wait()

    async def close(self) -> None:
        self._closed.set()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_the_bot_stops_once_another_process_took_its_shard(
    storage_target: str,
    processes: Opened,
    relay: Relay,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(cogs.client, "HilltopBot", StandInBot)
    monkeypatch.setattr(StandInBot, "started", asyncio.Event(), raising=False)
    monkeypatch.setenv("HILLTOP_SHARDS", "0/2")
    monkeypatch.delenv("HILLTOP_HEARTBEAT", raising=False)
    second = await processes()

    async def take_over() -> tuple[ShardHold, asyncpg.Record]:
        await StandInBot.started.wait()
        return await _take_over(storage_target, relay, second)

    # The bot runs in this task: a task ending in SystemExit would stop the event loop.
    taking = asyncio.create_task(take_over())
    try:
        with pytest.raises(SystemExit) as stopped:
            async with asyncio.timeout(HANG_GUARD):
                await bot.run_discord("token", argparse.Namespace(db=relay.url))
    finally:
        theirs, holder = await taking
        await theirs.release()
    assert str(stopped.value) == f"Stopped: shard 0 of 2 is now held by {_named(holder)}."
    assert f"Shard 0 of 2 is now held by {_named(holder)}; stopping" in caplog.text


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_hold_whose_connection_stops_answering_is_taken_again(
    storage_target: str,
    processes: Opened,
    relay: Relay,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The server still keeps the old connection, and its locks: the holder ends it."""
    monkeypatch.setattr(pg_db, "HOLD_CHECK_EVERY", 0.05)
    monkeypatch.setattr(pg_db, "HOLD_CHECK_TIMEOUT", 0.2)
    hold = await _hold_through(relay, await processes())
    try:
        before = await _shard_holder(storage_target, 0)
        relay.cut()
        async with asyncio.timeout(HANG_GUARD):
            await hold.taken(2)
        after = await _shard_holder(storage_target, 0)
        assert after["pid"] != before["pid"]
        assert after["application_name"] == before["application_name"]
        assert f"Ending server process {before['pid']}, an earlier connection" in caplog.text
    finally:
        await hold.release()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_lost_hold_is_taken_again_once_the_server_is_reachable(
    processes: Opened, relay: Relay, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pg_db, "HOLD_CHECK_EVERY", 0.05)
    monkeypatch.setattr(pg_db, "HOLD_CHECK_TIMEOUT", 0.2)
    hold = await _hold_through(relay, await processes())
    try:
        relay.refusing = True
        relay.cut()
        async with asyncio.timeout(HANG_GUARD):
            await relay.refused.wait()
            assert hold.takes == 1
            relay.refused.clear()
            await relay.refused.wait()  # it keeps trying
            assert hold.takes == 1
            relay.refusing = False
            await hold.taken(2)
    finally:
        await hold.release()
