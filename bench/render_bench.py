"""Board render time and PNG size for every game with a renderer.

`python -m bench.render_bench` prints them per game, with the step pictures of the games
that draw a resolution step by step (Everest)."""

from __future__ import annotations

import time
from typing import Any

from bench.common import percentiles, time_calls
from engine import registry
from engine.core import GameState
from engine.rng import Rng
from host.catalog import all_listings, listing
from host.present.painting import draw_replay
from render.core import RenderContext

NAMES = ("alice", "bob", "carol", "dave")


def midgame(game_id: str, plies: int = 12) -> tuple[Any, Any, Any]:
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


def render_png(state: GameState[Any], ctx: RenderContext) -> bytes:
    return listing(state.game_id).renderer.board_png(state, ctx)


def step_pngs(state: GameState[Any], ctx: RenderContext) -> list[bytes]:
    return [png for _, png in listing(state.game_id).renderer.step_pngs(state, ctx)]


def render_figures(game_id: str, count: int = 200) -> tuple[float, float, int]:
    """(p50 ms, p95 ms, PNG bytes) of a mid-game board."""
    state, previous, move = midgame(game_id)
    ctx = RenderContext(names=NAMES, last_move=move, previous=previous)
    png = render_png(state, ctx)
    samples = time_calls(lambda: render_png(state, ctx), count)
    p50, p95, _ = percentiles(samples)
    return p50, p95, len(png)


def _after_steps(game_id: str) -> tuple[GameState[Any], RenderContext] | None:
    """The first position of a seeded game whose last move was drawn step by step."""
    game = registry.get(game_id)
    state = game.new_state(7, game.max_players, None)
    rng = Rng(7)
    for _ in range(200):
        if not state.to_act:
            return None
        seat, rng = rng.choice(sorted(state.to_act))
        move, rng = rng.choice(state.legal_moves(seat))
        previous, state = state, state.play(seat, move)
        ctx = RenderContext(names=NAMES, last_move=move, previous=previous)
        if step_pngs(state, ctx):
            return state, ctx
    return None


def step_figures(game_id: str, count: int = 100) -> tuple[float, float, int, int] | None:
    """(p50 ms, p95 ms, pictures, largest PNG bytes) of the step pictures of one
    resolution, all drawn; None for a game that draws no steps."""
    found = _after_steps(game_id)
    if found is None:
        return None
    state, ctx = found
    pngs = step_pngs(state, ctx)
    samples = time_calls(lambda: step_pngs(state, ctx), count)
    p50, p95, _ = percentiles(samples)
    return p50, p95, len(pngs), max(len(png) for png in pngs)


def long_game(game_id: str, plies: int) -> list[tuple[GameState[Any], RenderContext, bool]]:
    """Replay frames of a seeded random game of at least `plies` moves (the longest of
    the first seeds tried, if none is that long)."""
    game = registry.get(game_id)
    best: list[tuple[GameState[Any], RenderContext, bool]] = []
    for seed in range(1, 200):
        state = game.new_state(seed, game.min_players, None)
        frames = [(state, RenderContext(names=NAMES), False)]
        rng = Rng(seed)
        while state.to_act and len(frames) <= plies:
            seat, rng = rng.choice(sorted(state.to_act))
            move, rng = rng.choice(state.legal_moves(seat))
            previous, state = state, state.play(seat, move)
            ctx = RenderContext(names=NAMES, last_move=move, previous=previous)
            frames.append((state, ctx, state.outcome() is not None))
        if len(frames) > len(best):
            best = frames
        if len(best) > plies:
            break
    return best


def replay_figures(game_id: str, plies: int) -> tuple[float, int, int]:
    """(seconds, GIF bytes, moves) of a whole game's replay, drawn in this process."""
    frames = long_game(game_id, plies)
    started = time.perf_counter()
    gif = draw_replay(frames)
    return time.perf_counter() - started, len(gif), len(frames) - 1


def games_with_renderers() -> list[str]:
    return [entry.id for entry in all_listings()]


def main() -> None:
    print("| game | board p50 / p95 | board PNG | step pictures p50 / p95 | largest step PNG |")
    print("| --- | --- | --- | --- | --- |")
    for game_id in games_with_renderers():
        p50, p95, size = render_figures(game_id)
        board = f"| {game_id} | {p50:.1f} / {p95:.1f} ms | {size / 1024:.0f} KB"
        steps = step_figures(game_id)
        if steps is None:
            print(f"{board} | – | – |")
            continue
        s50, s95, pictures, largest = steps
        print(f"{board} | {s50:.1f} / {s95:.1f} ms ({pictures}) | {largest / 1024:.0f} KB |")


if __name__ == "__main__":
    main()
