"""Computer decisions in worker processes return legal moves of the position sent."""

from __future__ import annotations

from engine import registry
from host.ai_turns import PooledComputers, ThreadedComputers


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
