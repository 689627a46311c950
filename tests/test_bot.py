"""The entry point as deployed: `bot.py` against a fake Discord stops gracefully on SIGTERM
and SIGINT, keeps a heartbeat while connected, and `--healthcheck` reads it; on each
storage backend where it opens the database."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

import pytest

import bot
from tests.cogs.fake_discord import FakeDiscord, serving

ROOT = Path(__file__).resolve().parent.parent

#: `bot.main()` with discord.py pointed at the fake given on the command line.
BOT_AGAINST_FAKE = (
    "import sys, discord, yarl, bot\n"
    "discord.http.Route.BASE = sys.argv[1]\n"
    "discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(sys.argv[2])\n"
    "bot.main([])\n"
)


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie has ended: only its parent's bookkeeping is left)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found: set[int] = set()
    todo = list(children.get(pid, ()))
    while todo:
        child = todo.pop()
        found.add(child)
        todo += children.get(child, ())
    return found


def healthcheck(heartbeat: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "bot.py"), "--healthcheck"],
        env=os.environ | {"HILLTOP_HEARTBEAT": str(heartbeat)},
        capture_output=True,
        text=True,
        timeout=30,
    )


def has_write_ahead_log(sqlite_path: str) -> bool:
    """Whether an SQLite database has its log beside it: the last connection to close
    checkpoints the log into the database and removes it."""
    return Path(f"{sqlite_path}-wal").exists()


async def eventually(condition: Callable[[], bool], within: float) -> bool:
    """Whether `condition` comes true within `within` seconds (polled: processes and files
    send no events)."""
    deadline = time.monotonic() + within
    while True:
        if condition():
            return True
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)


async def start_bot(fake: FakeDiscord, tmp_path: Path, db: str) -> asyncio.subprocess.Process:
    """The bot in its own process on the database `db`, with its commands synced and
    connected to `fake`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HILLTOP_")} | {
        "DISCORD_TOKEN": fake.token,
        "DEV_GUILD_ID": str(fake.guild_id),
        "HILLTOP_DB": db,
        "HILLTOP_HEARTBEAT": str(tmp_path / "heartbeat"),
        "HILLTOP_DAILY_SECRET": "test",
        "HILLTOP_LOG_LEVEL": "INFO",
    }
    with (tmp_path / "bot.log").open("w") as log:
        bot = await asyncio.create_subprocess_exec(
            *(sys.executable, "-c", BOT_AGAINST_FAKE, fake.api_url, fake.gateway_url),
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
        )

    def connected() -> bool:
        synced = any(c.method == "PUT" for c in fake.calls)
        return bot.returncode is not None or (
            synced and any(not s.socket.closed for s in fake.sessions)
        )

    if not await eventually(connected, within=90) or bot.returncode is not None:
        with suppress(ProcessLookupError):
            os.killpg(bot.pid, signal.SIGKILL)
        raise AssertionError("the bot did not connect:\n" + (tmp_path / "bot.log").read_text())
    return bot


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_the_discord_bot_stops_gracefully_on_a_signal(
    tmp_path: Path, storage_target: str, backend: str, signum: signal.Signals
) -> None:
    heartbeat = tmp_path / "heartbeat"
    async with serving() as fake:
        bot = await start_bot(fake, tmp_path, storage_target)
        try:
            # Ready (on_ready waits a moment for the guilds), then a heartbeat at once.
            assert await eventually(heartbeat.exists, within=20), "no heartbeat"
            assert healthcheck(heartbeat).returncode == 0
            workers = descendants(bot.pid)
            assert workers, "the bot should have started its board painter"
            bot.send_signal(signum)
            try:
                # Only a guard against a bot that never stops: what is checked is how.
                status: int | None = await asyncio.wait_for(bot.wait(), 60)
            except TimeoutError:
                status = None
            log = (tmp_path / "bot.log").read_text()
            assert status == 0, f"exit status {status} after {signum.name}:\n{log}"
            assert "Traceback" not in log, log
            assert await eventually(lambda: not any(map(alive, workers)), within=30), (
                "worker processes outlived the bot"
            )
            if backend == "sqlite":
                assert not has_write_ahead_log(storage_target), "the database was not closed"
        finally:
            if bot.returncode is None:
                with suppress(ProcessLookupError):
                    os.killpg(bot.pid, signal.SIGKILL)
                await bot.wait()


def test_the_health_check_wants_a_fresh_heartbeat(tmp_path: Path) -> None:
    heartbeat = tmp_path / "heartbeat"
    missing = healthcheck(heartbeat)
    assert missing.returncode == 1 and "no heartbeat" in missing.stdout
    heartbeat.touch()
    fresh = healthcheck(heartbeat)
    assert fresh.returncode == 0 and "healthy" in fresh.stdout
    ten_minutes_ago = time.time() - 600
    os.utime(heartbeat, (ten_minutes_ago, ten_minutes_ago))
    old = healthcheck(heartbeat)
    # The age is read when the check runs, a moment (on a busy machine, seconds) later.
    age = re.search(r"the last heartbeat was (\d+) s ago", old.stdout)
    assert old.returncode == 1 and age is not None and 600 <= int(age[1]) < 660


def test_ratings_are_recomputed_from_the_command_line(storage_target: str) -> None:
    from data.storage import open_storage
    from host.setup import GameSetup
    from tests.host.conftest import ALICE, BOB, HERE, each_moves_once, make_service

    async def one_rated_game(target: str) -> list[tuple[object, ...]]:
        storage = await open_storage(target)
        try:
            service = make_service(storage)
            await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
            await service.accept(HERE, BOB)
            await each_moves_once(service, HERE, ALICE, BOB)
            await service.resign(HERE, BOB, confirmed=True)
            await storage.database.write("DELETE FROM ratings")  # a table left inconsistent
            return [tuple(r) for r in await storage.database.fetch("SELECT * FROM ratings")]
        finally:
            await storage.close()

    async def table(target: str) -> list[tuple[object, ...]]:
        storage = await open_storage(target)
        try:
            rows = await storage.database.fetch("SELECT scope, user_id, wins, losses FROM ratings")
            return sorted(tuple(r) for r in rows)
        finally:
            await storage.close()

    assert asyncio.run(one_rated_game(storage_target)) == []
    done = subprocess.run(
        [sys.executable, str(ROOT / "bot.py"), "--recompute-ratings", "--db", storage_target],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Ratings recomputed: 1 rated game.\n"
    guild = HERE.guild_id
    assert asyncio.run(table(storage_target)) == sorted(
        [(guild, ALICE.id, 1, 0), (guild, BOB.id, 0, 1), (0, ALICE.id, 1, 0), (0, BOB.id, 0, 1)]
    )


@pytest.mark.parametrize(
    ("value", "ids", "count"),
    [("0/1", (0,), 1), ("1/2", (1,), 2), ("3,0/4", (0, 3), 4)],
)
def test_the_shards_of_a_process_are_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str, ids: tuple[int, ...], count: int
) -> None:
    import bot
    from data.repository import Shards

    monkeypatch.setenv("HILLTOP_SHARDS", value)
    assert bot.shards_from_env() == Shards(ids, count)
    monkeypatch.delenv("HILLTOP_SHARDS")
    assert bot.shards_from_env() is None


@pytest.mark.parametrize(
    ("value", "says"),
    [("2/2", "below the count"), ("0,0/2", "once"), ("a/2", "such as 0,1/4"), ("1", "such as")],
)
def test_bad_shards_stop_the_bot_with_a_clear_message(
    monkeypatch: pytest.MonkeyPatch, value: str, says: str
) -> None:
    import bot

    monkeypatch.setenv("HILLTOP_SHARDS", value)
    with pytest.raises(SystemExit, match=says):
        bot.shards_from_env()


def test_the_allocator_is_bounded_on_glibc() -> None:
    trim = bot.allocator_trim()
    assert trim is not None, "this machine's C library is glibc"
    assert trim() in (0, 1)  # 1: memory was handed back to the system


async def test_the_bot_hands_freed_memory_back_again_and_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bot, "TRIM_SECONDS", 0.0)
    trimmed = asyncio.Event()
    calls: list[int] = []

    def trim() -> int:
        calls.append(1)
        if len(calls) == 3:
            trimmed.set()
        return 0

    task = asyncio.create_task(bot.keep_memory_returned(trim))
    try:
        await asyncio.wait_for(trimmed.wait(), timeout=30)
    finally:
        task.cancel()
    assert len(calls) >= 3
