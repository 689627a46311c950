"""Load on the web pages: the real bot in its own process serving them (`HILLTOP_WEB`), a
fake Discord in this one, the visitors in a third (`bench.web_viewers`), so that neither
the visitors nor Discord slows the other's clocks; on two cores the three share them.

The bot runs as in `bench.discord_load`, on a temporary SQLite file; an admin opens the
server's pages with `/admin settings web:public` and Hokito games are started and played
through the real commands, a few moves each before anything is measured.

1. Page load: visitors, each with an aiohttp client of its own, each loading game pages
   (`/g/<id>`, the whole response) one after another with no pause, spread over the
   games in progress; latencies, pages per second and the bot's CPU per page.
2. Move to stream: event streams (`/g/<id>/events`) open on a few games, then on one game,
   while moves are made through Discord one after another; each move is timed from the
   moment its answer reaches Discord to the moment each stream watching its game receives
   the `event: game` of its ply (a stream that receives a later ply first has it too).
3. The Discord path while watched: the load of `bench.discord_load`'s paced run alone,
   while the visitors load pages with no pause, and while each loads one page every few
   seconds, side by side with the ratios to alone (one run, so that the machine's noise
   weighs on all alike).

    python -m bench.web_load            # 200 visitors, 1,000 streams, the paced load
    python -m bench.web_load --quick    # the same tables on tiny budgets
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import resource
import socket
import sqlite3
import sys
import tempfile
import time
import traceback
from collections.abc import Awaitable, Callable, Sequence
from contextlib import closing, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import aiohttp

from bench import common, discord_load
from bench.bot_control import ROOT, BotProcess, _die_with_parent
from bench.common import cores, quantile, row, run_table
from bench.discord_load import (
    HOKITO,
    TARGET_AUTOCOMPLETE_P99,
    TARGET_MOVE_P99,
    LoadConfig,
    not_measured,
)
from bench.load_driver import Driver, Run, Table
from bench.memory_load import revive
from bench.procstat import CpuTimes
from tests.cogs.fake_discord import FakeDiscord

TARGET_PAGE_P99 = 0.100
TARGET_STREAM_P99 = 0.500
#: The Discord path keeps up while watched: this share of the offered moves achieved.
KEEP_UP = discord_load.CAPACITY_SHARE
#: How long the bot may take to serve its pages once it answers on Discord.
WEB_WITHIN = 30.0
#: How long the visitors' process may take to get every visitor going, and to stop.
READY_WITHIN = 120.0
STOP_WITHIN = 60.0
#: Visitors loading pages before the figures count (connections made, caches warm).
WARM_UP = 1.0


#: Page load, move to stream, and the Discord path alone and watched.
SCENARIOS = ("pages", "streams", "discord")


@dataclass(frozen=True, slots=True)
class WebLoadConfig:
    #: Visitors loading game pages, and for how long.
    viewers: int = 200
    page_seconds: float = 20.0
    #: Moves played in each game before the pages are loaded, on average: a game in
    #: progress, with moves to list (a Hokito game has at most 35).
    plies: int = 8
    #: Event streams open in each stream run.
    streams: int = 1000
    #: Games the streams of the first stream run are spread over (the second: one game).
    stream_games: int = 4
    #: Moves made through Discord in each stream run, one after another...
    moves: int = 20
    #: ...with this pause after each answer...
    move_gap: float = 0.5
    #: ...and this long after the last for the streams to receive it.
    settle: float = 3.0
    #: The Discord path measured alone and watched: `bench.discord_load`'s paced run...
    load: LoadConfig = field(default_factory=LoadConfig)
    #: ...watched by visitors loading pages with no pause, then each loading one page
    #: every this many seconds.
    watch_every: float = 2.0
    #: The scenarios measured, of `SCENARIOS`.
    scenarios: tuple[str, ...] = SCENARIOS


QUICK = WebLoadConfig(
    viewers=10,
    page_seconds=2.0,
    streams=20,
    stream_games=2,
    moves=3,
    move_gap=0.2,
    settle=1.0,
    load=discord_load.QUICK,
    watch_every=0.2,
)
#: The least that still measures every figure: the tests run it to see that it runs.
SMOKE = replace(
    QUICK,
    viewers=5,
    page_seconds=1.0,
    streams=10,
    moves=2,
    move_gap=0.1,
    settle=0.5,
    load=discord_load.SMOKE,
)


def free_port() -> int:
    with closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def allow_open_files(wanted: int) -> None:
    """A soft limit of open files fit for `wanted` connections, for this process and the
    processes it starts (the bot holds one socket per stream, as would a deployment)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        top = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))


def _met(ok: bool) -> str:
    return "yes" if ok else "no"


def ms(seconds: float) -> str:
    """Seconds as milliseconds for a table cell; "none" when nothing was timed."""
    return "none" if math.isnan(seconds) else common.ms(seconds)


def _ratio(watched: float, alone: float) -> str:
    if math.isnan(watched) or math.isnan(alone) or alone <= 0:
        return "no ratio"
    return f"×{watched / alone:.2f}"


# === the visitors' process =================================================================
class Visitors:
    """`bench.web_viewers` run one command at a time: started, ready, stopped."""

    def __init__(self, base: str, log: Path) -> None:
        self.base = base
        self.log = log
        self._process: asyncio.subprocess.Process | None = None

    async def start(self, command: dict[str, Any]) -> float:
        """Run `command`; once every visitor is under way, the `perf_counter` it was."""
        if self._process is not None:
            raise RuntimeError("the visitors' process is already running")
        with self.log.open("ab") as log:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bench.web_viewers",
                cwd=ROOT,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
                limit=1 << 28,
                preexec_fn=_die_with_parent,
            )
        await self._write(json.dumps({"base": self.base, **command}))
        return float((await self._read(READY_WITHIN))["ready"])

    async def stop(self) -> dict[str, Any]:
        """What the visitors saw, once every one of their connections is closed."""
        process = self._process
        if process is None:
            raise RuntimeError("the visitors' process is not running")
        await self._write("stop")
        result = await self._read(STOP_WITHIN)
        await asyncio.wait_for(process.wait(), STOP_WITHIN)
        self._process = None
        return result

    async def kill(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.returncode is None:
            with suppress(ProcessLookupError):
                process.kill()
            await process.wait()

    async def _write(self, line: str) -> None:
        assert self._process is not None and self._process.stdin is not None
        self._process.stdin.write(line.encode() + b"\n")
        await self._process.stdin.drain()

    async def _read(self, within: float) -> dict[str, Any]:
        assert self._process is not None and self._process.stdout is not None
        try:
            line = await asyncio.wait_for(self._process.stdout.readline(), within)
        except TimeoutError:
            await self.kill()
            raise RuntimeError(f"the visitors' process said nothing in {within:g} s") from None
        if not line:
            await self.kill()
            raise RuntimeError(f"the visitors' process ended:\n{self.tail()}")
        found: dict[str, Any] = json.loads(line)
        return found

    def tail(self, lines: int = 20) -> str:
        if not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


# === pages ===================================================================================
@dataclass(frozen=True, slots=True)
class PageRun:
    """The pages visitors loaded between `begin` and `end` (`perf_counter`)."""

    #: Per request: when it started, seconds to the last byte, status (0: no response).
    samples: list[tuple[float, float, int]]
    begin: float
    end: float
    #: Seconds of CPU the visitors' process used, and over how long.
    visitor_cpu: float
    visitor_seconds: float
    bot_cpu: CpuTimes = field(default_factory=lambda: CpuTimes(0.0, 0.0))

    @property
    def counted(self) -> list[tuple[float, float, int]]:
        """The requests made and answered within the window."""
        return [s for s in self.samples if s[0] >= self.begin and s[0] + s[1] <= self.end]

    @property
    def latencies(self) -> list[float]:
        return [seconds for _, seconds, status in self.counted if status == 200]

    @property
    def errors(self) -> int:
        return sum(1 for *_, status in self.counted if status != 200)

    @property
    def rate(self) -> float:
        return len(self.latencies) / (self.end - self.begin)

    @property
    def visitor_share(self) -> float:
        return self.visitor_cpu / self.visitor_seconds if self.visitor_seconds > 0 else 0.0

    def measured(self) -> str:
        loads = self.latencies
        return (
            f"{ms(quantile(loads, 0.5))} / {ms(quantile(loads, 0.99))} ({len(loads):,} pages, "
            f"{self.rate:,.0f} pages/s, {self.errors} errors; the visitors' process "
            f"{100 * self.visitor_share:.0f}% of a core)"
        )


def page_run(
    result: dict[str, Any], ready: float, stopped: float, begin: float, end: float
) -> PageRun:
    """The visitors' `result`, counted between `begin` and `end`; they were under way from
    `ready` until `stopped`."""
    samples = [(float(a), float(b), int(c)) for a, b, c in result["samples"]]
    return PageRun(samples, begin, end, float(result["cpu"]), stopped - ready)


# === streams =================================================================================
@dataclass(frozen=True, slots=True)
class MoveSeen:
    """A move made through Discord: its game, the ply it reached, when it was sent and when
    its answer reached Discord."""

    game_id: int
    ply: int
    sent_at: float
    answered_at: float


@dataclass(frozen=True, slots=True)
class StreamRun:
    streams: int
    games: int
    moves: list[MoveSeen]
    #: Moves whose answer did not show a board (refused or lost): not timed.
    unanswered: int
    #: Each move with the moment its event came, once per stream watching its game.
    arrivals: list[tuple[MoveSeen, float]]
    #: (move, stream) pairs whose event never came.
    missed: int
    failed_streams: list[str]
    bot_cpu: CpuTimes
    #: The load average when the run began.
    load: float

    @property
    def delays(self) -> list[float]:
        """Seconds from each move's answer reaching Discord to its event on each stream."""
        return [at - move.answered_at for move, at in self.arrivals]

    @property
    def from_dispatch(self) -> list[float]:
        """Seconds from each /move's dispatch to its event on each stream."""
        return [at - move.sent_at for move, at in self.arrivals]


def deliveries(
    moves: Sequence[MoveSeen], paths: Sequence[str], events: Sequence[Sequence[Sequence[float]]]
) -> tuple[list[tuple[MoveSeen, float]], int]:
    """Each move with the first event on each stream of its game that shows its ply or a
    later one; and how many such events never came."""
    by_game: dict[int, list[MoveSeen]] = {}
    for move in moves:
        by_game.setdefault(move.game_id, []).append(move)
    arrivals: list[tuple[MoveSeen, float]] = []
    missed = 0
    for path, seen in zip(paths, events, strict=True):
        game_id = int(path.split("/")[2])
        for move in by_game.get(game_id, []):
            arrived = next((at for ply, at in seen if ply >= move.ply), None)
            if arrived is None:
                missed += 1
            else:
                arrivals.append((move, arrived))
    return arrivals, missed


# === the Discord path while watched ========================================================
class Watched:
    """The bot as `Driver.offer` measures it, with visitors loading pages from the moment
    it is idle (before the run's first move) until `stop`."""

    def __init__(self, bot: BotProcess, visitors: Visitors, command: dict[str, Any]) -> None:
        self.bot = bot
        self.visitors = visitors
        self.command = command
        self.ready = 0.0

    async def idle(self) -> None:
        await self.bot.idle()
        self.ready = await self.visitors.start(self.command)
        await asyncio.sleep(WARM_UP)

    def cpu(self) -> CpuTimes:
        return self.bot.cpu()

    async def stop(self, run: Run) -> PageRun:
        stopped = time.perf_counter()
        result = await self.visitors.stop()
        return page_run(result, self.ready, stopped, run.start, run.start + run.elapsed)


# === the whole measurement ===================================================================
@dataclass
class WebBench:
    config: WebLoadConfig
    fake: FakeDiscord
    bot: BotProcess
    driver: Driver
    visitors: Visitors
    base: str
    emit: Callable[[str], None]
    #: Channels of the Discord path's games, whose pages the visitors load.
    hokito: list[int]
    #: Channels of the games the streams watch: a few, and one more for all at once.
    watched: list[int]
    tables: list[Table] = field(default_factory=list)

    @property
    def db(self) -> Path:
        return Path(self.bot.db)

    def game_of(self, channel_id: int) -> int:
        with closing(sqlite3.connect(self.db, timeout=5)) as conn:
            found = conn.execute(
                "SELECT id FROM games WHERE channel_id = ? ORDER BY id DESC LIMIT 1",
                (channel_id,),
            ).fetchone()
        if found is None:
            raise RuntimeError(f"no game stored for channel {channel_id}")
        return int(found[0])

    def ply_of(self, game_id: int) -> tuple[int, str]:
        with closing(sqlite3.connect(self.db, timeout=5)) as conn:
            ply, status = conn.execute(
                "SELECT ply, status FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        return int(ply), str(status)

    def page_paths(self) -> list[str]:
        return [f"/g/{self.game_of(t.channel_id)}" for t in self.tables]

    def mean_ply(self, paths: Sequence[str]) -> float:
        """The mean ply of the games whose pages are `paths`."""
        plies = [self.ply_of(int(p.split("/")[2]))[0] for p in paths]
        return sum(plies) / max(1, len(plies))

    async def get(self, path: str) -> tuple[int, str]:
        timeout = aiohttp.ClientTimeout(total=10)
        async with (
            aiohttp.ClientSession(timeout=timeout) as http,
            http.get(self.base + path) as response,
        ):
            return response.status, await response.text()

    # --- set-up ------------------------------------------------------------------------------
    async def open(self) -> None:
        """The bot answering on Discord and on the web, the server's pages open to anyone,
        and a Hokito game in progress in every channel."""
        await self.bot.start(self.driver.admin)
        deadline = time.monotonic() + WEB_WITHIN
        while True:
            with suppress(aiohttp.ClientError, TimeoutError):
                if (await self.get("/"))[0] == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"no web page at {self.base} within {WEB_WITHIN:g} s")
            await asyncio.sleep(0.2)
        settings = await self.fake.slash(
            self.driver.admin, "admin settings", channel_id=self.hokito[0], web="public"
        )
        await settings.shown()
        status, text = await self.get(f"/s/{self.fake.guild_id}")
        if status != 200:
            said = " ".join(text.split())[-300:]
            raise RuntimeError(
                f"/admin settings web:public left the server page at {status}: {said}"
            )
        self.tables = await self.driver.open_tables(self.hokito, [HOKITO] * len(self.hokito))
        # Not measured: moves to show on the pages, and the bot's first moves paid for.
        load = self.config.load
        playing = len(self.tables) * self.config.plies / load.rate
        await self.driver.offer(self.tables, load.rate, playing, self.bot)
        status, text = await self.get(self.page_paths()[0])
        if status != 200:
            raise RuntimeError(f"a game page answered {status}: {' '.join(text.split())[-300:]}")

    # --- 1. pages ----------------------------------------------------------------------------
    async def pages(self) -> None:
        config = self.config
        paths = self.page_paths()
        await self.bot.idle()
        load = os.getloadavg()[0]
        ready = await self.visitors.start(
            {"kind": "pages", "paths": paths, "viewers": config.viewers, "every": 0.0}
        )
        await asyncio.sleep(WARM_UP)
        before, begin = self.bot.cpu(), time.perf_counter()
        await asyncio.sleep(config.page_seconds)
        spent, end = self.bot.cpu() - before, time.perf_counter()
        run = replace(page_run(await self.visitors.stop(), ready, end, begin, end), bot_cpu=spent)
        where = (
            f"{config.viewers} visitors, each loading one page after another with no pause, "
            f"over {len(paths)} Hokito games in progress ({self.mean_ply(paths):.1f} moves "
            f"played on average); {config.page_seconds:g} s after "
            f"{WARM_UP:g} s of warm-up; the visitors in a process of their own; load average "
            f"{load:.1f} at the start; {cores()}"
        )
        p99 = quantile(run.latencies, 0.99)
        self.emit(
            row(
                "web: a game page (/g/<id>), the whole response: p50 / p99",
                where,
                run.measured(),
                f"p99 ≤ {ms(TARGET_PAGE_P99)}",
                _met(p99 <= TARGET_PAGE_P99 and run.errors == 0),
            )
        )
        served = max(1, len(run.latencies))
        self.emit(
            row(
                "web: bot CPU per game page served",
                where,
                f"{1000 * spent.own / served:.2f} ms in the bot process; "
                f"{1000 * spent.children / served:.2f} ms in its worker processes "
                f"({100 * spent.own / (end - begin):.0f}% of a core over the run)",
                "report",
                "",
            )
        )

    # --- 2. streams --------------------------------------------------------------------------
    async def streams(self) -> None:
        spread = await self.driver.open_tables(
            self.watched[:-1], [HOKITO] * (len(self.watched) - 1)
        )
        [single] = await self.driver.open_tables(self.watched[-1:], [HOKITO])
        for tables in (spread, [single]):
            self.emit(self.stream_row(await self.stream_run(tables)))

    async def stream_run(self, tables: list[Table]) -> StreamRun:
        config = self.config
        games = [self.game_of(t.channel_id) for t in tables]
        paths = [f"/g/{games[i % len(games)]}/events" for i in range(config.streams)]
        await self.bot.idle()
        load = os.getloadavg()[0]
        await self.visitors.start({"kind": "streams", "paths": paths})
        run = Run(0.0, 0.0, len(tables))
        playing = list(zip(tables, games, strict=True))
        moves: list[MoveSeen] = []
        unanswered = 0
        before = self.bot.cpu()
        try:
            for n in range(config.moves):
                playing = [(t, g) for t, g in playing if t.seat_to_move() is not None]
                if not playing:
                    break
                table, game_id = playing[n % len(playing)]
                sent = len(run.moves)
                await self.driver._move(table, run)
                boards = [e for e, _ in run.moves[sent:] if run.ok(e) and not e.reply_ephemeral]
                ply, status = self.ply_of(game_id)
                if boards:
                    first = min(boards, key=lambda e: e.sent_at + e.latency)
                    answered = first.sent_at + first.latency
                    moves.append(MoveSeen(game_id, ply, first.sent_at, answered))
                else:
                    unanswered += 1
                if status != "active":  # over: the driver has started the next game
                    playing.remove((table, game_id))
                await asyncio.sleep(config.move_gap)
            await asyncio.sleep(config.settle)
            spent = self.bot.cpu() - before
            result = await self.visitors.stop()
        finally:
            await self.visitors.kill()
        arrivals, missed = deliveries(moves, result["paths"], result["events"])
        return StreamRun(
            config.streams,
            len(games),
            moves,
            unanswered,
            arrivals,
            missed,
            list(result["failed"]),
            spent,
            load,
        )

    def stream_row(self, run: StreamRun) -> str:
        config = self.config
        spread = "all on one game" if run.games == 1 else f"spread over {run.games} games"
        where = (
            f"{run.streams:,} event streams {spread}; {len(run.moves)} moves through Discord "
            f"one after another, {config.move_gap:g} s apart, each timed from its answer "
            f"reaching Discord to its event on every stream of its game; the streams in the "
            f"visitors' process; load average {run.load:.1f} at the start; {cores()}"
        )
        p50, p99, top = (quantile(run.delays, q) for q in (0.5, 0.99, 1.0))
        low = quantile(run.delays, 0.0)
        d50, d99 = (quantile(run.from_dispatch, q) for q in (0.5, 0.99))
        per_move = 1000 * run.bot_cpu.own / max(1, len(run.moves))
        failed = len(run.failed_streams)
        why = f": {run.failed_streams[0]}" if failed else ""
        return row(
            f"web: a move to its event on every stream ({spread}): p50 / p99",
            where,
            f"{ms(p50)} / {ms(p99)} (min {ms(low)}, max {ms(top)}; from the /move's dispatch "
            f"{ms(d50)} / {ms(d99)}; {len(run.delays):,} events of {len(run.moves)} moves, "
            f"{run.missed} never came; {failed} streams failed{why}; {run.unanswered} moves "
            f"not answered; bot {per_move:.0f} ms of CPU per move, the pause included)",
            f"p99 ≤ {ms(TARGET_STREAM_P99)}",
            _met(p99 <= TARGET_STREAM_P99 and run.missed == 0 and not failed),
        )

    # --- 3. the Discord path, alone and watched ---------------------------------------------
    async def discord_path(self) -> None:
        load, config = self.config.load, self.config
        await revive(self.driver, self.tables)
        loads = [os.getloadavg()[0]]
        alone = await self.driver.offer(self.tables, load.rate, load.seconds, self.bot)
        watched: list[tuple[Run, PageRun]] = []
        for every in (0.0, config.watch_every):
            # Games whose answers went missing in the run before play on as stored.
            await revive(self.driver, self.tables)
            loads.append(os.getloadavg()[0])
            command = {
                "kind": "pages",
                "paths": self.page_paths(),
                "viewers": config.viewers,
                "every": every,
            }
            watching = Watched(self.bot, self.visitors, command)
            try:
                run = await self.driver.offer(self.tables, load.rate, load.seconds, watching)
                watched.append((run, await watching.stop(run)))
            finally:
                await self.visitors.kill()
        for line in self.discord_rows(alone, watched, loads):
            self.emit(line)

    def discord_rows(
        self, alone: Run, watched: Sequence[tuple[Run, PageRun]], loads: Sequence[float]
    ) -> list[str]:
        config = self.config
        every = config.watch_every
        where = alone.conditions(
            f"Hokito, as bench.discord_load's paced run; alone / while {config.viewers} "
            f"visitors load game pages with no pause / each one page every {every:g} s "
            f"({config.viewers / every:g} pages/s); ratios to alone, from one run; load "
            f"average {' / '.join(f'{x:.1f}' for x in loads)} at the start"
        )
        prefix = "web, the Discord path alone / watched:"
        runs = [alone, *(r for r, _ in watched)]
        #: A target "watched" holds in every run while the pages are watched.
        loaded = runs[1:]

        def side_by_side(values: Sequence[float], cell: Callable[[float], str]) -> str:
            shown = " / ".join(cell(v) for v in values)
            ratios = " / ".join(_ratio(v, values[0]) for v in values[1:])
            return f"{shown} ({ratios})"

        moves = [r.move_latencies() for r in runs]
        p99 = [quantile(m, 0.99) for m in moves]
        p50 = [quantile(m, 0.5) for m in moves]
        hints = [quantile(r.latencies(r.autocompletes), 0.99) for r in runs]
        cpu = [1000 * r.bot_cpu.own / max(1, r.accepted) for r in runs]
        achieved = [r.achieved for r in runs]
        rows = [
            row(
                f"{prefix} /move dispatch to visible answer, p99",
                where,
                f"{side_by_side(p99, ms)}; p50 {side_by_side(p50, ms)}; "
                f"{' / '.join(str(len(m)) for m in moves)} boards",
                f"p99 ≤ {ms(TARGET_MOVE_P99)} watched",
                _met(max(p99[1:]) <= TARGET_MOVE_P99),
            ),
            row(
                f"{prefix} /move autocomplete, p99",
                where,
                side_by_side(hints, ms),
                f"p99 ≤ {ms(TARGET_AUTOCOMPLETE_P99)} watched",
                _met(max(hints[1:]) <= TARGET_AUTOCOMPLETE_P99),
            ),
            row(
                f"{prefix} moves per second achieved",
                where,
                f"{side_by_side(achieved, lambda x: f'{x:.1f}')} of "
                f"{' / '.join(f'{r.offered:.1f}' for r in runs)} offered",
                f"≥ {KEEP_UP:.0%} of offered watched",
                _met(all(r.keeps_up(KEEP_UP) for r in loaded)),
            ),
            row(
                f"{prefix} interactions that failed",
                where,
                f"{' / '.join(str(r.failed()) for r in runs)} of "
                f"{' / '.join(str(len(r.exchanges())) for r in runs)} "
                f"({' / '.join(str(r.rejections) for r in runs)} requests refused by Discord)",
                "0 watched",
                _met(all(r.failed() == 0 and r.rejections == 0 for r in loaded)),
            ),
            row(
                f"{prefix} bot CPU per accepted move (watched: the pages' included)",
                where,
                f"{side_by_side(cpu, lambda x: f'{x:.1f}')} ms in the bot process",
                "report",
                "",
            ),
        ]
        for (run, pages), how in zip(
            watched, ("with no pause", f"one page every {every:g} s each"), strict=True
        ):
            # The bot's CPU beyond what the run's moves cost alone, per page served.
            beyond = run.bot_cpu.own - alone.bot_cpu.own / max(1, alone.accepted) * run.accepted
            per_page = 1000 * beyond / max(1, len(pages.latencies))
            rows.append(
                row(
                    f"web: a game page while the Discord path is under load, visitors {how}: "
                    "p50 / p99",
                    where,
                    f"{pages.measured()}; about {per_page:.1f} ms of bot CPU per page (the "
                    "run's, less its moves' at their cost alone)",
                    f"p99 ≤ {ms(TARGET_PAGE_P99)}",
                    _met(quantile(pages.latencies, 0.99) <= TARGET_PAGE_P99 and pages.errors == 0),
                )
            )
        return rows


async def measure(config: WebLoadConfig, emit: Callable[[str], None]) -> None:
    """Every scenario, emitting table rows; one the bot breaks is reported as not measured
    (its traceback and the bot's last output on stderr) and the others still run."""
    allow_open_files(2 * config.streams + 1024)
    with tempfile.TemporaryDirectory(prefix="hilltop-web-") as tmp:
        fake = FakeDiscord(keep_uploads=False)
        await fake.start()
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        db = Path(tmp) / "hilltop.sqlite3"
        env = {"HILLTOP_WEB": f"127.0.0.1:{port}", "HILLTOP_WEB_URL": base}
        bot = BotProcess(fake, db, Path(tmp) / "bot.log", env=env)
        visitors = Visitors(base, Path(tmp) / "visitors.log")
        try:
            # Channels made before the bot connects are in its guild cache from the start.
            bench = WebBench(
                config,
                fake,
                bot,
                Driver(fake, db, seed=13),
                visitors,
                base,
                emit,
                [fake.text_channel(f"hokito-{i}") for i in range(config.load.channels)],
                [fake.text_channel(f"watched-{i}") for i in range(config.stream_games + 1)],
            )
            every: dict[str, tuple[str, Callable[[], Awaitable[None]]]] = {
                "pages": ("web: a game page (/g/<id>)", bench.pages),
                "streams": ("web: a move to its event on every stream", bench.streams),
                "discord": ("web, the Discord path alone / watched", bench.discord_path),
            }
            phases = [every[name] for name in config.scenarios]
            try:
                await bench.open()
            except Exception as exc:
                _told(bot, visitors)
                for figure, _ in phases:
                    emit(not_measured(figure, exc))
                return
            for figure, phase in phases:
                try:
                    await phase()
                except Exception as exc:
                    _told(bot, visitors)
                    emit(not_measured(figure, exc))
        finally:
            await visitors.kill()
            bot.stop()
            await fake.close()


def _told(bot: BotProcess, visitors: Visitors) -> None:
    traceback.print_exc()
    if bot.log.exists():
        print(f"the bot's last output:\n{bot.tail()}", file=sys.stderr)
    if said := visitors.tail():
        print(f"the visitors' last output:\n{said}", file=sys.stderr)


HEADER = (
    row(
        "Web pages: the bot serving them in its own process, a fake Discord, the visitors "
        "in a third",
        "conditions",
        "measured",
        "target",
        "met",
    ),
    row("---", "---", "---", "---", "---"),
)


def run(config: WebLoadConfig) -> None:
    run_table(HEADER, lambda emit: measure(config, emit))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Load on the web pages, as a Markdown table.")
    parser.add_argument("--quick", action="store_true", help="tiny budgets, few visitors")
    parser.add_argument("--viewers", type=int, help="visitors loading pages (200)")
    parser.add_argument("--streams", type=int, help="event streams in each stream run (1000)")
    parser.add_argument("--moves", type=int, help="moves in each stream run (20)")
    parser.add_argument("--page-seconds", type=float, help="length of the page load (20)")
    parser.add_argument(
        "--scenarios",
        nargs="+",
        choices=SCENARIOS,
        help="measure only these (pages streams discord)",
    )
    args = parser.parse_args(argv)
    config = QUICK if args.quick else WebLoadConfig()
    names = ("viewers", "streams", "moves", "page_seconds")
    changes: dict[str, Any] = {k: v for k in names if (v := getattr(args, k)) is not None}
    if args.scenarios:
        changes["scenarios"] = tuple(args.scenarios)
    run(replace(config, **changes))


if __name__ == "__main__":
    main()
