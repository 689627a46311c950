"""Playing on the web pages, as players feel it: the real bot in its own process serving
the pages (`HILLTOP_WEB`) over a temporary SQLite file, a fake Discord in this process,
the players in a third (`bench.web_viewers`, kind "players"), as in `bench.web_load`.

Hokito games are started on Discord by /play and accepted, one per channel, and the
server's pages opened with `/admin settings web:public`. Each game's two players are
signed in (a session in the database, its signed cookie in their requests) and keep the
game page's event stream open; each makes their move when it is their turn by the
requests the page's script makes (the panel asked for at each event, the first choice
each time, the POST once the move is whole), after a person's pause, for a fixed time.

Each move is timed from its click (the POST sent) to
(a) the POST answered;
(b) the board updated on both players' pages: the event of its ply (or a later one) come
    on both players' streams;
(c) the board posted on Discord: the first message the bot posted in the game's channel
    after the click that tells the move ("<player> played <move>").

    python -m bench.web_play            # 200 games, a move in each every 15 s, for 60 s
    python -m bench.web_play --quick    # the same table on tiny budgets
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from contextlib import closing, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import aiohttp

from bench.bot_control import BotProcess
from bench.common import cores, quantile, row, run_table
from bench.discord_load import not_measured
from bench.load_driver import Driver
from bench.procstat import CpuTimes
from bench.web_load import READY_WITHIN, WEB_WITHIN, Visitors, allow_open_files, free_port, ms
from data.storage import open_storage
from host.pages.sessions import Sessions
from tests.cogs.fake_discord import FakeDiscord, FakeUser
from web.auth import SESSION, sign
from web.config import WebConfig

#: The application's secret the bot is given: the key of its session cookies.
SECRET = "bench-web-play"
#: Games started at once on Discord.
STARTING = 8


@dataclass(frozen=True, slots=True)
class WebPlayConfig:
    #: Games played at once, two signed-in players each.
    games: int = 200
    #: How long the players click, and how long after the last click the streams and
    #: Discord are watched for its board.
    seconds: float = 60.0
    settle: float = 5.0
    #: A player's pause before each move, on average: one move per game about this often
    #: (200 games every 15 s offer 13 moves/s, about what one bot process serves on two
    #: busy cores at some 40 ms of its CPU per move; every 5 s they would offer 40, more
    #: than its one event loop can serve, and measure the queue instead).
    every: float = 15.0
    seed: int = 17


QUICK = WebPlayConfig(games=4, seconds=3.0, settle=2.0, every=0.5)
#: The least that still measures every figure: the tests run it to see that it runs.
SMOKE = replace(QUICK, games=2, seconds=1.5, settle=1.0)


@dataclass(frozen=True, slots=True)
class Move:
    """One POST of a move, as the players' process saw it."""

    game_id: int
    seat: int
    clicked: float
    answered: float
    status: int
    #: The ply the answer says the move reached (-1: not played).
    played: int
    done: str

    @property
    def text(self) -> str:
        """The move in words, from the answer's "Done: <move>."."""
        return self.done.removeprefix("Done: ").removesuffix(".")


@dataclass(frozen=True, slots=True)
class Game:
    game_id: int
    channel_id: int
    #: Its players in seat order.
    players: tuple[FakeUser, FakeUser]


@dataclass
class PlayRun:
    games: int
    seconds: float
    every: float
    moves: list[Move]
    refused: int
    #: Seconds from each click to its answer, to its event on both pages, to Discord.
    answers: list[float]
    pages: list[float]
    discord: list[float]
    #: Moves whose event never came on one page or both, or whose board was never posted.
    missed_pages: int
    missed_discord: int
    failed_streams: list[str]
    steps: list[float]
    finished: int
    load: float
    #: The bot's CPU from the first click to the end of the settle, and the players'.
    bot_cpu: CpuTimes
    players_cpu: float


def posts_in(fake: FakeDiscord, channel_id: int) -> list[tuple[float, str]]:
    """The messages the bot posted in a channel (not interaction answers), as (arrival,
    everything they say)."""
    path = f"/channels/{channel_id}/messages"
    return [
        (call.at, json.dumps(call.body, ensure_ascii=False))
        for call in fake.calls
        if call.method == "POST" and call.path == path and call.status < 400
    ]


def told_at(posts: Sequence[tuple[float, str]], after: float, line: str) -> float | None:
    """When the first post after `after` that says `line` arrived."""
    return next((at for at, said in posts if at >= after and line in said), None)


def shown_at(events: Sequence[Sequence[float]], ply: int) -> float | None:
    """When the first event showing `ply` or a later one came on a stream."""
    return next((at for seen, at in events if seen >= ply), None)


class PlayBench:
    def __init__(self, config: WebPlayConfig, tmp: Path, emit: Callable[[str], None]) -> None:
        self.config = config
        self.emit = emit
        self.fake = FakeDiscord(keep_uploads=False)
        self.db = tmp / "hilltop.sqlite3"
        self.tmp = tmp
        self.channels: list[int] = []
        self.games: list[Game] = []

    async def run(self) -> None:
        figure = "web play: a click to its answer, both pages and Discord"
        await self.fake.start()
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = {
            "HILLTOP_WEB": f"127.0.0.1:{port}",
            "HILLTOP_WEB_URL": base,
            "DISCORD_CLIENT_SECRET": SECRET,
        }
        # Channels made before the bot connects are in its guild cache from the start.
        self.channels = [self.fake.text_channel(f"play-{i}") for i in range(self.config.games)]
        bot = BotProcess(self.fake, self.db, self.tmp / "bot.log", env=env)
        players = Visitors(base, self.tmp / "players.log")
        try:
            await self.open(bot, base)
            played = await self.play(bot, players)
            for line in self.rows(played):
                self.emit(line)
        except Exception as exc:
            traceback.print_exc()
            if bot.log.exists():
                print(f"the bot's last output:\n{bot.tail()}", file=sys.stderr)
            if said := players.tail():
                print(f"the players' last output:\n{said}", file=sys.stderr)
            self.emit(not_measured(figure, exc))
        finally:
            await players.kill()
            bot.stop()
            await self.fake.close()

    # --- set-up ------------------------------------------------------------------------------
    async def open(self, bot: BotProcess, base: str) -> None:
        """The bot answering on Discord and on the web, the server's pages open to anyone,
        a Hokito game started by /play and accepted in every channel."""
        admin = Driver(self.fake, None, seed=self.config.seed).admin
        await bot.start(admin)
        deadline = time.monotonic() + WEB_WITHIN
        timeout = aiohttp.ClientTimeout(total=10)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            while True:
                with suppress(aiohttp.ClientError, TimeoutError):
                    async with http.get(base + "/") as response:
                        if response.status == 200:
                            break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"no web page at {base} within {WEB_WITHIN:g} s")
                await asyncio.sleep(0.2)
        settings = await self.fake.slash(
            admin, "admin settings", channel_id=self.channels[0], web="public"
        )
        await settings.shown()
        gate = asyncio.Semaphore(STARTING)

        async def start(i: int, channel_id: int) -> Game:
            first, second = self.fake.user(f"p{i}a"), self.fake.user(f"p{i}b")
            async with gate:
                challenge = await self.fake.slash(
                    first,
                    "play",
                    channel_id=channel_id,
                    game="hokito",
                    opponent=second,
                    seed=self.config.seed * 1000 + i,
                    seat="first",
                    within=READY_WITHIN,
                )
                accepted = await self.fake.click(
                    second, challenge.message, label="Accept", within=READY_WITHIN
                )
                await accepted.followups(1, within=READY_WITHIN)
            return Game(self.game_of(channel_id), channel_id, (first, second))

        self.games = list(await asyncio.gather(*(start(i, c) for i, c in enumerate(self.channels))))

    def game_of(self, channel_id: int) -> int:
        with closing(sqlite3.connect(self.db, timeout=5)) as conn:
            found = conn.execute(
                "SELECT id FROM games WHERE channel_id = ? ORDER BY id DESC LIMIT 1",
                (channel_id,),
            ).fetchone()
        if found is None:
            raise RuntimeError(f"no game stored for channel {channel_id}")
        return int(found[0])

    def finished(self) -> int:
        ids = [g.game_id for g in self.games]
        with closing(sqlite3.connect(self.db, timeout=5)) as conn:
            marks = ",".join("?" * len(ids))
            (count,) = conn.execute(
                f"SELECT COUNT(*) FROM games WHERE id IN ({marks}) AND status != 'active'", ids
            ).fetchone()
        return int(count)

    async def cookies(self) -> dict[int, str]:
        """Every player signed in as Discord would sign them in: a session in the bot's
        database, and the cookie their browser would hold."""
        storage = await open_storage(self.db)
        config = WebConfig(client_secret=SECRET)
        try:
            sessions = Sessions(storage.web, time.time)
            found: dict[int, str] = {}
            for game in self.games:
                for user in game.players:
                    token = await sessions.sign_in(user.id, user.name, [self.fake.guild_id])
                    found[user.id] = f"{SESSION}={sign(config, token)}"
            return found
        finally:
            await storage.close()

    # --- the run -----------------------------------------------------------------------------
    async def play(self, bot: BotProcess, players: Visitors) -> PlayRun:
        config = self.config
        cookies = await self.cookies()
        command = {
            "kind": "players",
            "games": [
                {"id": g.game_id, "cookies": [cookies[u.id] for u in g.players]} for g in self.games
            ],
            "every": config.every,
            "seed": config.seed,
            "settle": config.settle,
        }
        await bot.idle()
        load = os.getloadavg()[0]
        await players.start(command)
        before = bot.cpu()
        await asyncio.sleep(config.seconds)
        result = await players.stop()
        return self.measured(result, load, bot.cpu() - before)

    def measured(self, result: dict[str, Any], load: float, spent: CpuTimes) -> PlayRun:
        config = self.config
        moves = [Move(*m) for m in result["moves"]]
        by_id = {g.game_id: g for g in self.games}
        streams: dict[int, list[list[list[float]]]] = {}
        for game_id, _, events in result["streams"]:
            streams.setdefault(int(game_id), []).append(events)
        posts = {g.channel_id: posts_in(self.fake, g.channel_id) for g in self.games}
        answers, pages, discord = [], [], []
        missed_pages = missed_discord = refused = 0
        for move in moves:
            answers.append(move.answered - move.clicked)
            if move.status != 200 or move.played < 0:
                refused += 1
                continue
            game = by_id[move.game_id]
            shown = [shown_at(events, move.played) for events in streams[move.game_id]]
            if len(shown) == 2 and all(at is not None for at in shown):
                pages.append(max(at for at in shown if at is not None) - move.clicked)
            else:
                missed_pages += 1
            line = f"{game.players[move.seat].name} played {move.text}"
            at = told_at(posts[game.channel_id], move.clicked, line)
            if at is None:
                missed_discord += 1
            else:
                discord.append(at - move.clicked)
        return PlayRun(
            len(self.games),
            config.seconds,
            config.every,
            moves,
            refused,
            answers,
            pages,
            discord,
            missed_pages,
            missed_discord,
            list(result["failed"]),
            [float(s) for s in result["steps"]],
            self.finished(),
            load,
            spent,
            float(result["cpu"]),
        )

    def rows(self, run: PlayRun) -> list[str]:
        accepted = len(run.moves) - run.refused
        where = (
            f"{run.games} Hokito games started by /play and accepted, 2 signed-in players "
            f"each with the game's event stream open; each player moves when it is their "
            f"turn after a pause of {run.every:g} s on average (at most "
            f"{run.games / run.every:.1f} moves/s), by the page's requests (the first choice "
            f"each time); {accepted:,} moves in {run.seconds:g} s "
            f"({accepted / run.seconds:.1f} moves/s), {run.refused} refused, {run.finished} "
            f"games over; bot {1000 * run.bot_cpu.own / max(1, accepted):.0f} ms of CPU per "
            f"move in its process and {1000 * run.bot_cpu.children / max(1, accepted):.0f} ms "
            f"in its workers ({100 * run.bot_cpu.own / (run.seconds + self.config.settle):.0f}% "
            f"of a core); the players in a process of their own "
            f"({100 * run.players_cpu / (run.seconds + self.config.settle):.0f}% of a core); "
            f"SQLite (a temporary file); load average {run.load:.1f} at the start; {cores()}"
        )
        failed = len(run.failed_streams)
        why = f": {run.failed_streams[0]}" if failed else ""
        steps = (
            f"each choice before it (GET /g/<id>/play?ply=&step=…) {ms(quantile(run.steps, 0.5))}"
            f" / {ms(quantile(run.steps, 0.99))} ({len(run.steps):,} choices)"
        )
        return [
            row(
                "web play: a click to its answer (POST /g/<id>/play): p50 / p99",
                where,
                f"{p50_p99(run.answers)} ({len(run.answers):,} moves; {steps})",
                "report",
                "",
            ),
            row(
                "web play: a click to the board on both players' pages: p50 / p99",
                where,
                f"{p50_p99(run.pages)} (max {ms(quantile(run.pages, 1.0))}; {len(run.pages):,} "
                f"moves, {run.missed_pages} never shown on both; {failed} streams failed{why})",
                "report",
                "",
            ),
            row(
                "web play: a click to the board posted on Discord: p50 / p99",
                where,
                f"{p50_p99(run.discord)} (max {ms(quantile(run.discord, 1.0))}; "
                f"{len(run.discord):,} moves, {run.missed_discord} never posted)",
                "report",
                "",
            ),
        ]


def p50_p99(samples: Sequence[float]) -> str:
    return f"{ms(quantile(samples, 0.5))} / {ms(quantile(samples, 0.99))}"


HEADER = (
    row(
        "From a click to both pages and Discord: the bot serving the pages in its own "
        "process, a fake Discord, the players in a third",
        "conditions",
        "measured",
        "target",
        "met",
    ),
    row("---", "---", "---", "---", "---"),
)


async def measure(config: WebPlayConfig, emit: Callable[[str], None]) -> None:
    # Per player: a client's connections and an event stream, in the bot and here.
    allow_open_files(8 * config.games + 1024)
    with tempfile.TemporaryDirectory(prefix="hilltop-play-") as tmp:
        await PlayBench(config, Path(tmp), emit).run()


def run(config: WebPlayConfig) -> None:
    run_table(HEADER, lambda emit: measure(config, emit))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Playing on the web pages, as a Markdown table.")
    parser.add_argument("--quick", action="store_true", help="tiny budgets, few games")
    parser.add_argument("--games", type=int, help="games played at once (200)")
    parser.add_argument("--seconds", type=float, help="how long the players click (60)")
    parser.add_argument("--every", type=float, help="seconds between a game's moves (15)")
    args = parser.parse_args(argv)
    config = QUICK if args.quick else WebPlayConfig()
    names = ("games", "seconds", "every")
    changes: dict[str, Any] = {k: v for k in names if (v := getattr(args, k)) is not None}
    run(replace(config, **changes))


if __name__ == "__main__":
    main()
