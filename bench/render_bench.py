"""Board render time and PNG size for every game with a renderer."""

from __future__ import annotations

from bench.common import percentiles, time_calls
from engine import registry
from engine.rng import Rng
from render.core import RenderContext
from render.registry import RENDER_MODULES, render_png


def midgame(game_id: str, plies: int = 12) -> tuple[object, object, object]:
    game = registry.get(game_id)
    state = game.new_state(7, game.min_players, None)
    previous = move = None
    rng = Rng(7)
    for _ in range(plies):
        if not state.to_act:
            break
        seat, rng = rng.choice(sorted(state.to_act))
        move, rng = rng.choice(state.legal_moves(seat))
        previous, state = state, state.play(seat, move)
    return state, previous, move


def render_figures(game_id: str, count: int = 200) -> tuple[float, float, int]:
    """(p50 ms, p95 ms, PNG bytes) of a mid-game board."""
    state, previous, move = midgame(game_id)
    ctx = RenderContext(names=("alice", "bob", "carol", "dave"), last_move=move, previous=previous)  # type: ignore[arg-type]
    png = render_png(state, ctx)  # type: ignore[arg-type]
    samples = time_calls(lambda: render_png(state, ctx), count)  # type: ignore[arg-type]
    p50, p95, _ = percentiles(samples)
    return p50, p95, len(png)


def games_with_renderers() -> list[str]:
    return [g for g in RENDER_MODULES if g in {x.id for x in registry.all_games()}]
