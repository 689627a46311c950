"""Random playouts per second for every registered game."""

from __future__ import annotations

import time

from engine import registry
from engine.rng import Rng


def playouts_per_second(game_id: str, seconds: float = 2.0) -> tuple[float, float]:
    """(playouts per second, average plies per playout), from seeded random games."""
    game = registry.get(game_id)
    done = plies = 0
    start = time.perf_counter()
    seed = 1
    while time.perf_counter() - start < seconds:
        state = game.new_state(seed, game.min_players, None)
        rng = Rng(seed)
        while state.to_act:
            seat, rng = rng.choice(sorted(state.to_act))
            # Index into the moves: Everest's 14,656 plans are not built as a list.
            move, rng = rng.choice(state.legal_moves(seat))
            state = state.play(seat, move)
            plies += 1
        done += 1
        seed += 1
    elapsed = time.perf_counter() - start
    return done / elapsed, plies / max(done, 1)
