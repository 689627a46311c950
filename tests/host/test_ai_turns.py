"""Computer decisions in worker processes return legal moves of the position sent, and
hints never hold them up."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from engine import registry
from engine.core import GameState
from host.play.ai_turns import PooledComputers, ThreadedComputers


async def test_pooled_and_threaded_players_make_legal_moves() -> None:
    pooled, threaded = PooledComputers(workers=1), ThreadedComputers()
    try:
        for game_id in ("hokito", "everest"):
            game = registry.get(game_id)
            state = game.new_state(6, game.min_players, None)
            seat = min(state.to_act)
            legal = list(state.legal_moves(seat))
            assert await pooled.choose(state, seat, "easy") in legal
            assert await threaded.choose(state, seat, "easy") in legal
    finally:
        pooled.close()
        threaded.close()


#: Far beyond any wait that passes; it only turns a hang (a decision queued behind the
#: held hints) into a failure.
HANG = 60


async def test_a_computer_opponent_decides_while_hints_wait_in_their_own_queue() -> None:
    hillbert, hokito = registry.get("hillbert"), registry.get("hokito")
    practice = hillbert.new_state(4, 1, None)
    duel = hokito.new_state(6, 2, None)
    hint_started, release_hints = threading.Event(), threading.Event()

    def search(state: GameState[Any], seat: int, level: str) -> Hashable:
        if state is practice:  # every hint is held until the test lets them go
            hint_started.set()
            release_hints.wait()
        return state.legal_moves(seat)[0]

    computers = PooledComputers(workers=1, pool=ThreadPoolExecutor, search=search)
    try:
        hints = [asyncio.ensure_future(computers.hint(practice, 0)) for _ in range(30)]
        await asyncio.to_thread(hint_started.wait)
        move = await asyncio.wait_for(computers.choose(duel, 0, "normal"), HANG)
        assert move == duel.legal_moves(0)[0]
        assert not any(hint.done() for hint in hints)
        release_hints.set()
        assert await asyncio.gather(*hints) == [practice.legal_moves(0)[0]] * 30
    finally:
        release_hints.set()
        computers.close()
