"""The service and storage: one move end to end, and committed moves per second."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import percentiles
from data.repository import NewGame, UserRecord
from data.sqlite.db import Database
from data.sqlite.games import SqliteGameRepository
from engine import registry
from engine.rng import Rng
from host.model import Channel, User
from host.service import GameService
from host.setup import GameSetup

ALICE = User(1, "alice", is_admin=True)
BOB = User(2, "bob")
BOT = User(9000, "hilltop", is_bot=True)


PEOPLE = (ALICE, BOB, User(3, "carol"), User(4, "dave"))


async def _games(service: GameService, count: int, game_id: str = "hokito") -> list[list[Any]]:
    """Start `count` games of people in their own channels; returns (place, engine state)
    mirrors that tell the benchmark which moves are legal."""
    game = registry.get(game_id)
    players = list(PEOPLE[: game.min_players])
    games = []
    for i in range(count):
        place = Channel(10_000 + i, 1, f"c{i}")
        await service.admin_start(place, ALICE, GameSetup(game_id, seed=i + 1), players)
        games.append([place, game.new_state(i + 1, len(players), None)])
    return games


def _next_move(state: Any, rng: Rng) -> tuple[User, str, Any, Rng]:
    seat, rng = rng.choice(sorted(state.to_act))
    move, rng = rng.choice(state.legal_moves(seat))
    return PEOPLE[seat], state.move_text(move), state.play(seat, move), rng


async def move_through_service(game_id: str = "hokito", moves: int = 200) -> tuple[float, float]:
    """(p50, p95) ms of one /move: parse, play, persist, render the PNG."""
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "bench.sqlite3")
        try:
            service = GameService(SqliteGameRepository(db), bot_user=BOT)
            games = await _games(service, 20, game_id)
            rng = Rng(3)
            samples: list[float] = []
            for i in range(moves * 3):
                if len(samples) == moves:
                    break
                entry = games[i % len(games)]
                if not entry[1].to_act:
                    continue
                user, text, after, rng = _next_move(entry[1], rng)
                start = time.perf_counter()
                await service.move(entry[0], user, text)
                samples.append((time.perf_counter() - start) * 1000)
                entry[1] = after
            p50, p95, _ = percentiles(samples)
            return p50, p95
        finally:
            await db.close()


async def committed_moves_per_second(count: int = 3000) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "commit.sqlite3")
        try:
            repo = SqliteGameRepository(db)
            user = UserRecord(1, "alice")
            snapshot = registry.get("hokito").new_state(1, 2, None).to_text()
            record = await repo.create_game(
                NewGame(
                    "hokito",
                    1,
                    1,
                    "active",
                    1,
                    None,
                    1,
                    None,
                    snapshot,
                    user,
                    ((user, True), (UserRecord(2, "bob"), True)),
                ),
                now=0.0,
            )
            start = time.perf_counter()
            for ply in range(count):
                await repo.append_move(record.id, ply, ply % 2, 1, "a1-b1", snapshot, now=1.0)
            return count / (time.perf_counter() - start)
        finally:
            await db.close()
