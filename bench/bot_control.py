"""The bot as its own process against a fake Discord: start it, wait until it answers,
read its CPU time, crash it, stop it. Whatever happens, no bot outlives this process."""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import os
import signal
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

from bench.procstat import CpuTimes, cpu_times
from tests.cogs.fake_discord import FakeDiscord, FakeUser

ROOT = Path(__file__).resolve().parent.parent
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before it runs the bot: the kernel kills it if this process dies,
    even by SIGKILL, when no exit handler runs."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


_running: set[BotProcess] = set()


@atexit.register
def _kill_leftovers() -> None:
    for process in list(_running):
        process.kill()


def shard_ids(shards: str | None, every: int = 1) -> list[int]:
    """The shard ids a HILLTOP_SHARDS value "<ids>/<count>" gives a process ("0,2/4": 0 and
    2 of 4); without one, all `every` shards Discord recommends."""
    if not shards or not shards.strip():
        return list(range(every))
    ids, slash, count = shards.strip().partition("/")
    try:
        given = [int(i) for i in ids.split(",")]
        total = int(count)
    except ValueError:
        given, total = [], 0
    if not slash or not given or any(not 0 <= i < total for i in given):
        raise ValueError(f"HILLTOP_SHARDS is '<ids>/<count>', e.g. '0,1/4', not {shards!r}")
    return given


class BotProcess:
    """`bench.bot_process` (or another `module` taking its arguments) against `fake`, on
    the database `db` (an SQLite file, or a PostgreSQL URL); its output goes to `log`.
    `env` is laid over the environment it is given, e.g. HILLTOP_SHARDS="1/2" to hold
    shard 1 of 2. Its commands are synced to the fake's guild when there is one, globally
    when there are several (so that they work in every guild). It runs in a session of
    its own, so that killing it takes its worker processes too."""

    def __init__(
        self,
        fake: FakeDiscord,
        db: Path | str,
        log: Path,
        env: dict[str, str] | None = None,
        *,
        module: str = "bench.bot_process",
    ) -> None:
        self.fake = fake
        self.db = db
        self.log = log
        self.env = dict(env or {})
        #: The module run as the bot: the real one, or `bench.minimal_bot` for the floor.
        self.module = module
        self._process: subprocess.Popen[bytes] | None = None

    def _environment(self) -> dict[str, str]:
        return (
            os.environ
            | {
                "DISCORD_TOKEN": self.fake.token,
                "DEV_GUILD_ID": str(self.fake.guild_id) if len(self.fake.guild_ids) == 1 else "",
                "HILLTOP_DB": str(self.db),
                "HILLTOP_DAILY_SECRET": "bench",
                "HILLTOP_LOG_LEVEL": "INFO",
            }
            | self.env
        )

    @property
    def shard_ids(self) -> list[int]:
        """The gateway shards the process connects: those of its HILLTOP_SHARDS, or without
        one all the fake's."""
        return shard_ids(self._environment().get("HILLTOP_SHARDS"), self.fake.shard_count)

    @property
    def pid(self) -> int:
        if self._process is None:
            raise RuntimeError("the bot is not running")
        return self._process.pid

    def launch(self) -> None:
        env = self._environment()
        command = [sys.executable, "-m", self.module]
        with self.log.open("ab") as log:
            self._process = subprocess.Popen(
                [*command, self.fake.api_url, self.fake.gateway_url],
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        _running.add(self)

    async def start(
        self, probe: FakeUser, *, channel_id: int | None = None, within: float = 90.0
    ) -> None:
        """Start the bot and wait until its commands are synced (by the process itself
        when it holds shard 0, which syncs them for all, else by that one), each of its
        shards is connected to the gateway and it answers an interaction: `probe` types
        into /move in `channel_id`, which must be in a guild of one of the process's
        shards; by default the fake's `channel_id`, or the "general" channel of the first
        guild the process holds when that is not one."""
        syncs = sum(1 for c in self.fake.calls if c.method == "PUT")
        sessions = len(self.fake.sessions)
        owned = set(self.shard_ids)
        if channel_id is None:
            channel_id = self._probe_channel(owned)
        self.launch()
        deadline = time.monotonic() + within

        def connected() -> bool:
            if 0 in owned:
                synced = sum(1 for c in self.fake.calls if c.method == "PUT") > syncs
            else:
                synced = self._synced("move", channel_id)
            fresh = self.fake.sessions[sessions:]
            return synced and owned <= {s.shard_id for s in fresh if not s.socket.closed}

        while not connected():
            self._check_alive(deadline, "connect")
            await asyncio.sleep(0.05)
        while True:
            self._check_alive(deadline, "answer")
            exchange = await self.fake.dispatch_autocomplete(
                probe, "move", "text", channel_id=channel_id, text=""
            )
            with suppress(TimeoutError):
                await asyncio.wait_for(exchange.answered.wait(), 2.0)
                if exchange.callback is not None:
                    return

    def _synced(self, command: str, channel_id: int) -> bool:
        """Whether `command` can be used in the channel: synced globally or to its guild."""
        guild = self.fake.guild_of(channel_id)
        here = self.fake.guild_commands.get(guild, []) if guild is not None else []
        return any(c["name"] == command for c in here + (self.fake.global_commands or []))

    def _probe_channel(self, owned: set[int]) -> int:
        if self.fake.shard_of(self.fake.guild_id) in owned:
            return self.fake.channel_id
        for guild_id, channel_id in self.fake.general_channels.items():
            if self.fake.shard_of(guild_id) in owned:
                return channel_id
        raise ValueError(f"shards {sorted(owned)} own none of the fake's guilds")

    def _check_alive(self, deadline: float, what: str) -> None:
        assert self._process is not None
        if self._process.poll() is not None:
            raise RuntimeError(f"the bot exited ({self._process.returncode}):\n{self.tail()}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the bot did not {what} in time:\n{self.tail()}")

    async def idle(self, *, within: float = 60.0, window: float = 0.5) -> None:
        """Wait until the bot and its workers use under a tenth of a core, so that work
        left from starting (today's par search, warming pools) is not measured as load."""
        deadline = time.monotonic() + within
        before = self.cpu()
        while time.monotonic() < deadline:
            await asyncio.sleep(window)
            after = self.cpu()
            spent = after - before
            if spent.own + spent.children < 0.1 * window:
                return
            before = after

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def cpu(self) -> CpuTimes:
        return cpu_times(self.pid)

    def kill(self) -> None:
        """SIGKILL to the bot and its workers: a crash."""
        process, self._process = self._process, None
        _running.discard(self)
        if process is None:
            return
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)

    def stop(self) -> None:
        """Ask the bot to stop as Ctrl-C would, then kill whatever is left of it."""
        if self._process is not None and self._process.poll() is None:
            self._process.send_signal(signal.SIGINT)
            with suppress(subprocess.TimeoutExpired):
                self._process.wait(10)
        self.kill()
