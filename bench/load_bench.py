"""Load: many games at once, moves arriving at a steady rate, double clicks included.

Each of `games` Hokito games gets moves in turn, `rate` moves a second in all, for
`seconds`; every `double_every`-th move is sent twice at once (a double click). The
figures are the reply latencies (p50/p99), and a check against the database that no
accepted move was lost and none applied twice.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import percentiles
from data.db import Database
from data.games import SqliteGameRepository
from engine import registry
from engine.rng import Rng
from host.model import Place, ServiceError, User
from host.service import GameService

ALICE = User(1, "alice", is_admin=True)
BOB = User(2, "bob")
BOT = User(9000, "hilltop", is_bot=True)


@dataclass
class LoadResult:
    moves: int
    doubles: int
    p50_ms: float
    p99_ms: float
    lost: int
    applied_twice: int
    achieved_rate: float


@dataclass
class _Game:
    channel: int
    state: Any
    plies: int = 0


async def _drive(
    games: list[_Game],
    send: Callable[[_Game, User, str], Awaitable[tuple[float, bool]]],
    rate: float,
    seconds: float,
    double_every: int,
) -> tuple[list[float], int, int, float]:
    """Send moves at `rate` per second; returns latencies, moves accepted, doubles sent
    and the rate achieved."""
    rng = Rng(17)
    latencies: list[float] = []
    accepted = doubles = 0
    pending: set[asyncio.Task[None]] = set()
    busy: set[int] = set()
    total = int(rate * seconds)
    start = time.perf_counter()

    async def one(game: _Game, user: User, text: str, twice: bool) -> None:
        nonlocal accepted
        attempts = [send(game, user, text) for _ in range(2 if twice else 1)]
        results = await asyncio.gather(*attempts)
        latencies.extend(ms for ms, _ in results)
        accepted += sum(ok for _, ok in results)
        busy.discard(game.channel)

    for index in range(total):
        await asyncio.sleep(max(0.0, start + index / rate - time.perf_counter()))
        game = next(
            (
                g
                for g in games[index % len(games) :] + games
                if g.channel not in busy and g.state.to_act
            ),
            None,
        )
        if game is None:
            continue
        seat = min(game.state.to_act)
        move, rng = rng.choice(game.state.legal_moves(seat))
        text = game.state.move_text(move)
        game.state = game.state.play(seat, move)
        game.plies += 1
        busy.add(game.channel)
        twice = index % double_every == 0
        doubles += twice
        task = asyncio.create_task(one(game, (ALICE, BOB)[seat], text, twice))
        pending.add(task)
        task.add_done_callback(pending.discard)
    await asyncio.gather(*pending)
    elapsed = time.perf_counter() - start
    return latencies, accepted, doubles, total / elapsed


async def _check(db: Database, games: list[_Game]) -> tuple[int, int]:
    """(lost, applied twice): every move sent was legal and sent once per game in order
    (a double click repeats one), so each game must hold exactly the plies sent."""
    repo = SqliteGameRepository(db)
    lost = twice = 0
    for game in games:
        record = await repo.live_game_in_channel(game.channel)
        stored = record.ply if record is not None else game.plies
        lost += max(0, game.plies - stored)
        twice += max(0, stored - game.plies)
    return lost, twice


async def service_load(
    games: int = 200, rate: float = 50, seconds: float = 20, double_every: int = 10
) -> LoadResult:
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "load.sqlite3")
        try:
            service = GameService(SqliteGameRepository(db), bot_user=BOT)
            hokito = registry.get("hokito")
            table = []
            for i in range(games):
                place = Place(50_000 + i, 1)
                await service.admin_start(place, ALICE, "hokito", [ALICE, BOB], seed=i + 1)
                table.append(_Game(place.channel_id, hokito.new_state(i + 1, 2, None)))

            async def send(game: _Game, user: User, text: str) -> tuple[float, bool]:
                began = time.perf_counter()
                try:
                    await service.move(Place(game.channel, 1), user, text)
                    ok = True
                except ServiceError:
                    ok = False
                return (time.perf_counter() - began) * 1000, ok

            latencies, accepted, doubles, achieved = await _drive(
                table, send, rate, seconds, double_every
            )
            lost, twice = await _check(db, table)
        finally:
            await db.close()
    p50, _, p99 = percentiles(latencies)
    return LoadResult(accepted, doubles, p50, p99, lost, twice, achieved)


async def discord_load(
    games: int = 200, rate: float = 50, seconds: float = 20, double_every: int = 10
) -> LoadResult:
    """The same load as interactions from a local fake Discord to the real bot."""
    from cogs.client import HilltopBot
    from data.daily import SqliteDailyRepository
    from tests.cogs.fake_discord import MANAGE_GUILD, MEMBER_PERMISSIONS, running, serving

    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "load.sqlite3")
        try:
            async with serving() as fake:
                admin = fake.user("root", permissions=MEMBER_PERMISSIONS | MANAGE_GUILD)
                people = {ALICE.id: fake.user("alice"), BOB.id: fake.user("bob")}
                channels = [fake.text_channel(f"game-{i}") for i in range(games)]
                bot = HilltopBot(
                    SqliteGameRepository(db),
                    SqliteDailyRepository(db),
                    daily_secret="load",
                    dev_guild_id=fake.guild_id,
                )
                async with running(bot, fake):
                    hokito = registry.get("hokito")
                    table = []
                    for i, channel in enumerate(channels):
                        await fake.slash(
                            admin,
                            "admin start",
                            channel_id=channel,
                            game="hokito",
                            player1=people[ALICE.id],
                            player2=people[BOB.id],
                            seed=i + 1,
                            within=30,
                        )
                        table.append(_Game(channel, hokito.new_state(i + 1, 2, None)))

                    async def send(game: _Game, user: User, text: str) -> tuple[float, bool]:
                        exchange = await fake.slash(
                            people[user.id], "move", channel_id=game.channel, text=text, within=30
                        )
                        return exchange.seconds * 1000, not exchange.ephemeral

                    latencies, accepted, doubles, achieved = await _drive(
                        table, send, rate, seconds, double_every
                    )
                    await asyncio.sleep(0.5)  # let deferred follow-ups land
                lost, twice = await _check(db, table)
                refused = len(fake.rejections)
        finally:
            await db.close()
    if refused:
        raise RuntimeError(f"Discord would have refused {refused} requests during the load")
    p50, _, p99 = percentiles(latencies)
    return LoadResult(accepted, doubles, p50, p99, lost, twice, achieved)
