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


class BotProcess:
    """`bench.bot_process` against `fake`, on the SQLite file `db`; its output goes to `log`.
    It runs in a session of its own, so that killing it takes its worker processes too."""

    def __init__(self, fake: FakeDiscord, db: Path, log: Path) -> None:
        self.fake = fake
        self.db = db
        self.log = log
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        if self._process is None:
            raise RuntimeError("the bot is not running")
        return self._process.pid

    def launch(self) -> None:
        env = os.environ | {
            "DISCORD_TOKEN": self.fake.token,
            "DEV_GUILD_ID": str(self.fake.guild_id),
            "HILLTOP_DB": str(self.db),
            "HILLTOP_DAILY_SECRET": "bench",
            "HILLTOP_LOG_LEVEL": "INFO",
        }
        command = [sys.executable, "-m", "bench.bot_process"]
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

    async def start(self, probe: FakeUser, *, within: float = 90.0) -> None:
        """Start the bot and wait until it has synced its commands, connected to the
        gateway and answers an interaction (`probe` types into /move)."""
        syncs = sum(1 for c in self.fake.calls if c.method == "PUT")
        sessions = len(self.fake.sessions)
        self.launch()
        deadline = time.monotonic() + within

        def connected() -> bool:
            synced = sum(1 for c in self.fake.calls if c.method == "PUT") > syncs
            fresh = self.fake.sessions[sessions:]
            return synced and any(not s.socket.closed for s in fresh)

        while not connected():
            self._check_alive(deadline, "connect")
            await asyncio.sleep(0.05)
        while True:
            self._check_alive(deadline, "answer")
            exchange = await self.fake.dispatch_autocomplete(
                probe, "move", "text", channel_id=self.fake.channel_id, text=""
            )
            with suppress(TimeoutError):
                await asyncio.wait_for(exchange.answered.wait(), 2.0)
                if exchange.callback is not None:
                    return

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
