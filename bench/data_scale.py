"""Commands against a large stored history: does any cost grow with the size of the data?

A history is built at two sizes (`bench.scale`: real games copied under other ids,
players and times; a year of daily hills; a busy server with thousands of games in
play; the ratings of every finished game), once per size, and every command is timed
on it through the service as the console front-end builds it (`bot.run_console`): the
same commands, on the same real users, channels and games, at both sizes. Later pages
are reached by pressing the "▶" a reply carries, as a player would. Then the memory of
a process that has touched many games.

    python -m bench.data_scale            # SQLite 1,000 and 1,000,000; PostgreSQL 1,000 and 100,000
    python -m bench.data_scale --quick    # a few hundred and a few thousand games
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from sqlite3 import sqlite_version
from typing import Any

from bench.common import cores, quantile, row
from bench.scale.build import Built, build, scale_for
from bench.scale.pool import DAILY_SECRET
from bench.scale.shape import Manifest, Person, Scale
from console.front import Console, console_front
from console.lines import bot_user
from data.storage import Storage, open_storage
from host.daily.service import DailyService
from host.house import House, HouseSettings, build_house
from host.model import Channel, Reply, User
from host.payloads import Payload
from host.ratings.pages import RatingPages
from host.service import GameService
from tests.postgres_server import PostgresServer

#: The targets: every command within this warm at the large size...
TARGET_MS = 50.0
#: ...the sweep with nothing due within this...
SWEEP_TARGET_MS = 5.0
#: ...and within this many times its time at the small size. Below this difference
#: (milliseconds) two times are the same, whatever their ratio.
TARGET_RATIO = 2.0
NOISE_MS = 0.5
#: RSS after the most games touched, at most this much above after the fewest.
MEMORY_GROWTH = 0.20
#: A command's warm calls stop after this long, once there are this many.
SAMPLING_SECONDS = 15.0
FEWEST_SAMPLES = 3
#: The most characters of an embed's description on Discord.
DISCORD_EMBED = 4096
#: The rated game whose tables are read.
RATED_GAME = "hokito"


@dataclass(frozen=True, slots=True)
class DataScaleConfig:
    sqlite: tuple[Scale, Scale]
    #: None: PostgreSQL is left out.
    postgresql: tuple[Scale, Scale] | None
    #: Warm calls per command, and first calls (of distinct games) where they differ.
    samples: int = 20
    first_calls: int = 8
    replays: int = 3
    startups: int = 3
    #: Presses of /history's ▶, one page after another.
    pages: int = 10
    #: Games touched before each reading of the process's memory.
    memory_marks: tuple[int, ...] = (5_000, 10_000, 100_000)


def _quick_scale(finished: int) -> Scale:
    scale = scale_for(finished, busy_live=40, busy_members=100)
    return replace(scale, live=finished // 3, days=30, daily_runs=max(2, finished // 150))


FULL = DataScaleConfig(
    sqlite=(scale_for(1_000), scale_for(1_000_000)),
    postgresql=(scale_for(1_000), scale_for(100_000)),
)
QUICK = DataScaleConfig(
    sqlite=(_quick_scale(300), _quick_scale(3_000)),
    postgresql=(_quick_scale(300), _quick_scale(3_000)),
    samples=3,
    first_calls=2,
    replays=1,
    startups=1,
    pages=2,
    memory_marks=(50, 100, 200),
)
#: The least that still measures every figure: the tests run it to see that it runs.
SMOKE = replace(
    QUICK,
    sqlite=(_quick_scale(150), _quick_scale(600)),
    postgresql=(_quick_scale(150), _quick_scale(600)),
)


@dataclass
class Timing:
    """What one command took at one size: milliseconds of each warm call, of each first
    call, and what was seen of the replies."""

    warm: list[float] = field(default_factory=list)
    first: list[float] = field(default_factory=list)
    note: str = ""
    error: str = ""


def emit_progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --- the commands on one history -------------------------------------------------------------
class HistoryRun:
    """The console's service on a built history, and the commands timed on it."""

    def __init__(self, built: Built, config: DataScaleConfig, out_dir: Path) -> None:
        self.built = built
        self.m: Manifest = built.manifest
        self.config = config
        self.out_dir = out_dir
        self.timings: dict[str, Timing] = {}
        self.storage: Storage | None = None
        self.service: GameService | None = None
        self.daily: DailyService | None = None
        self.console: Console | None = None
        self.house: House | None = None
        self.busy = Channel(self.m.busy_channel, self.m.busy_guild, "busy")
        self.heavy = _user(self.m.heavy)
        #: The first pages of /games here and /history, whose ▶ leads on.
        self._here: Reply | None = None
        self._history_first: Reply | None = None

    async def open(self) -> None:
        """The console's start: the database, the service and its parts, and the work the
        console does before its first line (ratings to settle, a sweep of deadlines)."""
        self.storage = await open_storage(self.built.target)
        self.house = build_house(
            self.storage, HouseSettings(daily_secret=DAILY_SECRET), console_front()
        )
        self.service, self.daily = self.house.service, self.house.daily
        self.console = Console(self.house, self.out_dir, language="en")
        await self.service.settle_ratings()
        await self.service.expire_due()

    async def close(self) -> None:
        if self.house is not None:
            self.house.close()
        if self.storage is not None:
            await self.storage.close()
        self.storage = self.service = self.daily = self.console = self.house = None

    @property
    def svc(self) -> GameService:
        assert self.service is not None
        return self.service

    @property
    def day(self) -> DailyService:
        assert self.daily is not None
        return self.daily

    @property
    def pages(self) -> RatingPages:
        assert self.console is not None
        return self.console.ratings

    async def run(self, label: str) -> dict[str, Timing]:
        await self._startups()
        await self.open()
        try:
            for name, step in self._steps():
                emit_progress(f"{label}: {name}")
                timing = self.timings.setdefault(name, Timing())
                try:
                    await step(timing)
                except Exception as exc:
                    traceback.print_exc()
                    timing.error = " ".join(str(exc).split())[:200] or type(exc).__name__
        finally:
            await self.close()
        return self.timings

    # --- the steps, in order: first touches of games before anything loads many of them ---
    def _steps(self) -> list[tuple[str, Callable[[Timing], Awaitable[None]]]]:
        return [
            ("/move", self._moves),
            ("/board", self._board),
            ("/games here", self._games_here),
            ("/games here ▶", self._games_here_next),
            ("/game id:", self._record),
            ("/replay", self._replay),
            ("/history", self._history),
            ("/history ▶", self._history_pages),
            ("/history user:", self._history_of),
            ("/games mine", self._games_mine),
            ("/leaderboard today, server", self._board_of("today", "server")),
            ("/leaderboard week, server", self._board_of("week", "server")),
            ("/leaderboard all, server", self._board_of("all", "server")),
            ("/leaderboard today, global", self._board_of("today", "global")),
            ("/leaderboard all, global", self._board_of("all", "global")),
            ("/ratings, server", self._ratings("server")),
            ("/ratings, global", self._ratings("global")),
            ("/profile", self._profile(None)),
            ("/profile opponent:", self._profile(self.m.rival)),
            ("/stats", self._stats),
            ("/daily, played today", self._daily_done),
            ("/daily, today's run starts", self._daily_new),
            ("/resign, rated", self._resign),
            ("sweep, the console's server", self._sweep(console=True)),
            ("sweep, every shard", self._sweep(console=False)),
            ("rating settle, nothing to rate", self._settle),
        ]

    async def _startups(self) -> None:
        timing = self.timings.setdefault("start-up", Timing())
        for _ in range(self.config.startups):
            started = time.perf_counter()
            await self.open()
            timing.warm.append(_ms(started))
            await self.close()

    async def _calls(self, timing: Timing, call: Callable[[], Awaitable[Any]]) -> Any:
        """`call` once as a first call, then the warm calls (fewer, though at least
        `FEWEST_SAMPLES`, for a command so slow that they would take over
        `SAMPLING_SECONDS`); the last reply."""
        started = time.perf_counter()
        replies = await call()
        timing.first.append(_ms(started))
        until = time.perf_counter() + SAMPLING_SECONDS
        for _ in range(self.config.samples):
            started = time.perf_counter()
            replies = await call()
            timing.warm.append(_ms(started))
            if len(timing.warm) >= FEWEST_SAMPLES and time.perf_counter() > until:
                break
        return replies

    async def _games_here(self, timing: Timing) -> None:
        replies = await self._calls(timing, lambda: self.svc.list_games(self.busy, self.heavy))
        text = replies[0].text
        timing.note = f"a reply of {len(text):,} characters"
        if len(text) > DISCORD_EMBED:
            timing.note += f" (an embed holds {DISCORD_EMBED:,})"
        self._here = replies[0]

    async def _games_here_next(self, timing: Timing) -> None:
        assert self._here is not None, "/games here comes first"
        forward = _forward(self._here)
        if forward is None:
            timing.note = "no ▶: every game of the server in the first reply"
            timing.warm.append(math.nan)
            return
        await self._calls(timing, lambda: self.svc.press(self.busy, self.heavy, forward))

    async def _moves(self, timing: Timing) -> None:
        probes = self.m.moves[: self.config.first_calls]
        for probe in probes:
            channel = Channel(probe.channel_id, probe.guild_id)
            started = time.perf_counter()
            await self.svc.move(channel, _user(probe.player), probe.move)
            timing.first.append(_ms(started))
        rng = random.Random(5)
        for i in range(self.config.samples):
            probe = probes[i % len(probes)]
            loaded = await self.svc.loaded(probe.game_id)  # in memory: reads nothing
            state = loaded.state
            seat = min(state.to_act)
            legal = state.legal_moves(seat)
            move = legal[rng.randrange(len(legal))]
            for _ in range(50):
                if state.play(seat, move).to_act:
                    break
                move = legal[rng.randrange(len(legal))]
            player = loaded.record.seats[seat].user
            channel = Channel(probe.channel_id, probe.guild_id)
            started = time.perf_counter()
            await self.svc.move(channel, User(player.id, player.name), state.move_text(move))
            timing.warm.append(_ms(started))

    async def _board(self, timing: Timing) -> None:
        first = self.config.first_calls
        for probe in self.m.moves[first : 2 * first]:
            channel = Channel(probe.channel_id, probe.guild_id)
            started = time.perf_counter()
            await self.svc.board(channel)
            timing.first.append(_ms(started))
        channel = Channel(self.m.moves[0].channel_id, self.m.moves[0].guild_id)
        for _ in range(self.config.samples):
            started = time.perf_counter()
            await self.svc.board(channel)
            timing.warm.append(_ms(started))

    async def _record(self, timing: Timing) -> None:
        for game_id in self.m.records[1:]:
            started = time.perf_counter()
            await self.svc.game_record(self.busy, game_id, viewer=self.heavy)
            timing.first.append(_ms(started))
        game_id = self.m.records[0]
        for _ in range(self.config.samples):
            started = time.perf_counter()
            await self.svc.game_record(self.busy, game_id, viewer=self.heavy)
            timing.warm.append(_ms(started))

    async def _replay(self, timing: Timing) -> None:
        game_id = self.m.records[0]
        for _ in range(self.config.replays):
            started = time.perf_counter()
            replies = await self.svc.replay(self.busy, game_id, viewer=self.heavy)
            timing.warm.append(_ms(started))
        timing.note = replies[0].text.split(": ")[-1].rstrip(".")

    async def _history(self, timing: Timing) -> None:
        replies = await self._calls(
            timing, lambda: self.svc.finished(self.busy, None, None, viewer=self.heavy)
        )
        self._history_first = replies[0]
        timing.note = replies[0].title

    async def _history_pages(self, timing: Timing) -> None:
        reply = self._history_first
        assert reply is not None, "/history comes first"
        for _ in range(self.config.pages):
            forward = _forward(reply)
            if forward is None:
                break
            started = time.perf_counter()
            replies = await self.svc.press(self.busy, self.heavy, forward)
            timing.warm.append(_ms(started))
            reply = replies[0]
        timing.note = f"{len(timing.warm)} presses, to {reply.footer or 'the only page'}"
        if not timing.warm:
            timing.warm.append(math.nan)

    async def _history_of(self, timing: Timing) -> None:
        replies = await self._calls(
            timing, lambda: self.svc.finished(self.busy, self.heavy, None, viewer=self.heavy)
        )
        timing.note = replies[0].title

    async def _games_mine(self, timing: Timing) -> None:
        replies = await self._calls(timing, lambda: self.svc.my_games(self.heavy))
        timing.note = f"{replies[0].title}, {replies[0].footer or 'one page'}"

    def _board_of(self, period: str, scope: str) -> Callable[[Timing], Awaitable[None]]:
        async def step(timing: Timing) -> None:
            user = _user(self.m.played_today)
            await self._calls(timing, lambda: self.day.leaderboard(self.busy, user, period, scope))

        return step

    def _ratings(self, scope: str) -> Callable[[Timing], Awaitable[None]]:
        async def step(timing: Timing) -> None:
            await self._calls(
                timing, lambda: self.pages.table(self.busy, self.heavy, RATED_GAME, scope)
            )

        return step

    def _profile(self, opponent: Person | None) -> Callable[[Timing], Awaitable[None]]:
        other = _user(opponent) if opponent is not None else None

        async def step(timing: Timing) -> None:
            await self._calls(
                timing, lambda: self.pages.profile(self.busy, self.heavy, None, other)
            )

        return step

    async def _stats(self, timing: Timing) -> None:
        user = _user(self.m.most_runs)
        await self._calls(timing, lambda: self.day.stats(self.busy, user))

    async def _daily_done(self, timing: Timing) -> None:
        user = _user(self.m.played_today)
        await self._calls(timing, lambda: self.day.play(self.busy, user))

    async def _daily_new(self, timing: Timing) -> None:
        for person in self.m.newcomers[: self.config.samples]:
            started = time.perf_counter()
            await self.day.play(self.busy, _user(person))
            timing.warm.append(_ms(started))

    async def _resign(self, timing: Timing) -> None:
        rated = 0
        for probe in self.m.resigns[: self.config.samples]:
            channel = Channel(probe.channel_id, probe.guild_id)
            await self.svc.loaded(probe.game_id)
            started = time.perf_counter()
            replies = await self.svc.resign(channel, _user(probe.player), confirmed=True)
            timing.warm.append(_ms(started))
            rated += any("Ratings:" in reply.text for reply in replies)
        timing.note = f"{rated} of {len(timing.warm)} replies told the ratings"

    def _sweep(self, *, console: bool) -> Callable[[Timing], Awaitable[None]]:
        async def step(timing: Timing) -> None:
            timeouts = self.svc.timeouts
            kept = timeouts.shards
            if not console:
                timeouts.shards = None  # one bot process holding every shard
            try:
                replies = await self._calls(timing, self.svc.expire_due)
            finally:
                timeouts.shards = kept
            timing.note = f"{len(replies)} due"

        return step

    async def _settle(self, timing: Timing) -> None:
        await self._calls(timing, self.svc.settle_ratings)


def _forward(reply: Reply) -> Payload | None:
    """The payload of the reply's "▶" button, if it has one that is not disabled."""
    for choice in reply.actions:
        if choice.label == "▶" and not choice.disabled:
            return choice.payload
    return None


def _user(person: Person) -> User:
    return User(person.id, person.name)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


# --- the table ------------------------------------------------------------------------------
COMMANDS: dict[str, str] = {
    "start-up": "open the database, build the service as the console does, its first sweep",
    "/games here": "the busy server: every game in play there",
    "/games here ▶": "its next page, by its ▶ button",
    "/move": "a game of two in the busy server; first call: the game not in memory",
    "/board": "a game of the busy server; first call: the game not in memory",
    "/game id:": "a finished game of the busy server, the same at both sizes",
    "/replay": "that game as an animated GIF, drawn",
    "/history": "the busy server's finished games, first page",
    "/history ▶": "the following pages, each by the ▶ of the one before",
    "/history user:": "the finished games of its most active player",
    "/games mine": "that player's games in play, first page",
    "/leaderboard today, server": "the busy server's members, today's runs",
    "/leaderboard week, server": "the busy server's members, this week's totals",
    "/leaderboard all, server": "the busy server's members, all-time totals",
    "/leaderboard today, global": "everyone, today's runs",
    "/leaderboard all, global": "everyone, all-time totals",
    "/ratings, server": f"{RATED_GAME}, the busy server's table",
    "/ratings, global": f"{RATED_GAME}, everyone's table",
    "/profile": "the busy server's most active player",
    "/profile opponent:": "with their record against their usual opponent",
    "/stats": "the daily player with the most runs",
    "/daily, played today": "a player who finished today's hill: par and the day's spread",
    "/daily, today's run starts": "a player's first /daily today: a new run and its board",
    "/resign, rated": "a game of two everyone moved in: the final board with the ratings",
    "sweep, the console's server": "service.expire_due(), nothing due (before every console line)",
    "sweep, every shard": "service.expire_due(), nothing due, one bot process with every shard",
    "rating settle, nothing to rate": "before every console line and ratings page",
}
#: Commands whose target is not the 50 ms: the sweep has its own, /replay draws
#: a whole game, and start-up is no command.
SPECIAL_TARGETS: dict[str, float | None] = {
    "sweep, the console's server": SWEEP_TARGET_MS,
    "sweep, every shard": SWEEP_TARGET_MS,
    "/replay": None,
    "start-up": None,
}


def _p(samples: Sequence[float], q: float) -> float:
    values = [s for s in samples if not math.isnan(s)]
    return quantile(values, q) if values else math.nan


def _num(value: float) -> str:
    if math.isnan(value):
        return "–"
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}" if value >= 1 else f"{value:.2f}"


def command_rows(
    prefix: str, scales: tuple[Scale, Scale], found: list[dict[str, Timing]]
) -> list[str]:
    small, large = found
    rows = []
    for name, conditions in COMMANDS.items():
        a, b = small.get(name, Timing()), large.get(name, Timing())
        figure = f"{prefix}: {name}"
        where = f"{conditions}; {scales[0].name} → {scales[1].name} finished games"
        if a.error or b.error:
            rows.append(row(figure, where, f"not measured: {a.error or b.error}", "", "no"))
            continue
        a50, b50 = _p(a.warm, 0.5), _p(b.warm, 0.5)
        if math.isnan(a50) or math.isnan(b50):
            note = b.note or a.note or "nothing to time"
            rows.append(row(figure, where, f"0 calls: {note}", "", "–"))
            continue
        ratio = b50 / a50 if a50 > 0 else math.inf
        text = f"p50 {_num(a50)} → {_num(b50)} ms (×{ratio:.2f})"
        if len(a.warm) >= 5 and len(b.warm) >= 5:
            text += f"; p95 {_num(_p(a.warm, 0.95))} → {_num(_p(b.warm, 0.95))} ms"
        if a.first and b.first:
            text += f"; first call {_num(_p(a.first, 0.5))} → {_num(_p(b.first, 0.5))} ms"
        if b.note:
            text += f"; {b.note}" if b.note == a.note else f"; {a.note} → {b.note}"
        if len(b.warm) < len(a.warm):
            text += f"; {len(a.warm)} → {len(b.warm)} calls (the slow ones cut short)"
        limit = SPECIAL_TARGETS.get(name, TARGET_MS)
        steady = b50 <= TARGET_RATIO * a50 or b50 - a50 < NOISE_MS
        met = steady and (limit is None or b50 <= limit)
        target = f"≤ {TARGET_RATIO:g}× the small size"
        if limit is not None:
            target = f"≤ {limit:g} ms warm, " + target
        rows.append(row(figure, where, text, target, "yes" if met else "no"))
    return rows


def build_row(prefix: str, built: Built) -> str:
    m = built.manifest
    counts = m.counts
    what = ", ".join(
        f"{counts.get(t, 0):,} {t}"
        for t in ("games", "moves", "seats", "rating_changes", "daily_runs", "users")
    )
    return row(
        f"{prefix}: build of {m.scale.name} finished games",
        m.scale.describe(),
        f"{built.seconds:.1f} s ({what})",
        "≤ 5 min",
        "yes" if built.seconds <= 300 else "no",
    )


HEADER = (
    row("Stored history: commands at two sizes", "conditions", "measured", "target", "met"),
    row("---", "---", "---", "---", "---"),
)


# --- memory, in a process of its own ----------------------------------------------------------
async def touch_games(
    target: str, ids: Sequence[int], marks: Sequence[int]
) -> list[tuple[int, int, float]]:
    """(games touched, RSS in KiB, seconds) at each mark: each game loaded through the
    service as a command loads it (its lock taken, replayed into the cache of games)."""
    storage = await open_storage(target)
    service = GameService(storage.games, bot_user=bot_user(), ratings=storage.ratings)
    try:
        readings = []
        started = time.perf_counter()
        wanted = list(marks)
        for touched, game_id in enumerate(ids, start=1):
            await service.loaded(game_id)
            if touched % 10_000 == 0:
                emit_progress(f"{touched:,} games touched, {time.perf_counter() - started:.0f} s")
            if wanted and touched == wanted[0]:
                wanted.pop(0)
                gc.collect()
                readings.append((touched, rss_kib(), time.perf_counter() - started))
                if not wanted:
                    break
        return readings
    finally:
        service.close()
        await storage.close()


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def memory_rows(prefix: str, built: Built, marks: Sequence[int]) -> list[str]:
    ids = built.manifest.live_ids
    marks = [m for m in marks if m <= len(ids)]
    if not marks:
        return [
            row(f"{prefix}: RSS after touching games", "", "not measured: too few games", "", "no")
        ]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        json.dump({"target": built.target, "ids": ids, "marks": marks}, file)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "bench.data_scale", "--touch", file.name],
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        os.unlink(file.name)
    readings = [tuple(r) for r in json.loads(done.stdout)]
    where = (
        f"a process of its own with the console's service on {built.manifest.scale.name} finished "
        "games: distinct games in play loaded by service.loaded (lock and cache), RSS read "
        f"after a garbage collection; {cores()}"
    )
    rows = []
    for touched, kib, seconds in readings:
        rows.append(
            row(
                f"{prefix}: RSS after touching {touched:,} games",
                where,
                f"{kib / 1024:.1f} MiB ({touched / seconds:,.0f} games/s)",
                "report",
                "",
            )
        )
    first, last = readings[0], readings[-1]
    growth = last[1] / first[1] - 1
    rows.append(
        row(
            f"{prefix}: RSS growth from {first[0]:,} to {last[0]:,} games touched",
            where,
            f"{growth:+.1%}",
            f"≤ {MEMORY_GROWTH:.0%}",
            "yes" if growth <= MEMORY_GROWTH else "no",
        )
    )
    return rows


# --- running it ---------------------------------------------------------------------------------
async def _backend(
    prefix: str,
    scales: tuple[Scale, Scale],
    target_of: Callable[[Scale, int], Awaitable[str]],
    config: DataScaleConfig,
    memory: bool,
    emit: Callable[[str], None],
) -> None:
    found: list[dict[str, Timing]] = []
    built_ones: list[Built] = []
    with tempfile.TemporaryDirectory(prefix="hilltop-scale-out-") as out:
        for i, scale in enumerate(scales):
            target = await target_of(scale, i)
            built = await build(target, scale, progress=lambda t: emit_progress(f"{prefix}: {t}"))
            built_ones.append(built)
            emit(build_row(prefix, built))
            if memory and i == len(scales) - 1:
                for line in memory_rows(prefix, built, config.memory_marks):
                    emit(line)
            timed = HistoryRun(built, config, Path(out))
            found.append(await timed.run(f"{prefix} {scale.name}"))
    for line in command_rows(prefix, scales, found):
        emit(line)


def sqlite_rows(config: DataScaleConfig, emit: Callable[[str], None]) -> None:
    prefix = "data scale, SQLite"
    with tempfile.TemporaryDirectory(prefix="hilltop-scale-") as tmp:

        async def target(scale: Scale, i: int) -> str:
            return str(Path(tmp) / f"history-{i}.sqlite3")

        _guarded(
            prefix,
            lambda: asyncio.run(_backend(prefix, config.sqlite, target, config, True, emit)),
            emit,
        )


def postgresql_rows(config: DataScaleConfig, emit: Callable[[str], None]) -> None:
    scales = config.postgresql
    if scales is None:
        return
    server = PostgresServer(durable=True)

    def measure() -> None:
        server.start()
        prefix = f"data scale, PostgreSQL {server.major_version}"

        async def target(scale: Scale, i: int) -> str:
            return await server.create_database_async(f"history_{i}")

        asyncio.run(_backend(prefix, scales, target, config, False, emit))

    try:
        _guarded("data scale, PostgreSQL", measure, emit)
    finally:
        server.stop()


def _guarded(prefix: str, measure: Callable[[], None], emit: Callable[[str], None]) -> None:
    try:
        measure()
    except Exception as exc:
        traceback.print_exc()
        reason = " ".join(str(exc).split())[:300] or type(exc).__name__
        emit(row(f"{prefix}: every figure", cores(), f"not measured: {reason}", "", "no"))


def run(config: DataScaleConfig) -> None:
    for line in HEADER:
        print(line, flush=True)

    def emit(line: str) -> None:
        print(line, flush=True)

    started = os.getloadavg()[0]
    emit(
        row(
            "data scale: machine",
            f"{cores()}, load average {started:.1f} at the start",
            f"{platform.machine()}, Python {platform.python_version()}, SQLite {sqlite_version}",
            "",
            "",
        )
    )
    sqlite_rows(config, emit)
    postgresql_rows(config, emit)
    emit(
        row(
            "data scale: machine load",
            "the load average over the last minute, of every process on the machine",
            f"{started:.1f} at the start, {os.getloadavg()[0]:.1f} at the end",
            "",
            "",
        )
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Commands against a large stored history.")
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--no-postgresql", action="store_true", help="SQLite only")
    parser.add_argument("--touch", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.touch:
        job = json.loads(Path(args.touch).read_text())
        print(json.dumps(asyncio.run(touch_games(job["target"], job["ids"], job["marks"]))))
        return
    config = QUICK if args.quick else FULL
    if args.no_postgresql:
        config = replace(config, postgresql=None)
    run(config)


if __name__ == "__main__":
    main()
