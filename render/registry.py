"""Board renderers by game id: one module per game, the same name as in engine/."""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from PIL import Image

from engine.core import GameState
from render.core import RenderContext, encode_png

#: Games with a renderer; each module defines `render(state, ctx) -> Image`.
RENDER_MODULES: tuple[str, ...] = ("everest", "hillbert", "hokito", "hollowtown", "molehill")


class Renderer(Protocol):
    def __call__(self, state: Any, ctx: RenderContext) -> Image.Image: ...


def load_all() -> None:
    """Import every renderer now, in the calling thread: rendering runs in worker
    threads, and compiling modules there while the main thread compiles too trips a
    CPython 3.11 bug (a shared AST recursion counter)."""
    for name in RENDER_MODULES:
        importlib.import_module(f"render.{name}")


def renderer(game_id: str) -> Renderer:
    if game_id not in RENDER_MODULES:
        raise KeyError(f"no renderer for {game_id!r}")
    module = importlib.import_module(f"render.{game_id}")
    fn: Renderer = module.render
    return fn


def render_png(state: GameState[Any], ctx: RenderContext | None = None) -> bytes:
    """The board as PNG bytes. Pure: the same state and context give the same bytes."""
    image = renderer(state.game_id)(state, ctx or RenderContext())
    return encode_png(image)


def options_png(
    state: GameState[Any], seat: int, prefix: tuple[str, ...], ctx: RenderContext
) -> bytes | None:
    """A picture of the choices a move builder offers `seat` after `prefix`, for games
    whose renderer defines `render_options(state, seat, prefix, ctx) -> Image | None`
    (Everest draws each roll-off outcome)."""
    module = importlib.import_module(f"render.{state.game_id}")
    draw = getattr(module, "render_options", None)
    if draw is None:
        return None
    image = draw(state, seat, prefix, ctx)
    return None if image is None else encode_png(image)


def step_pngs(state: GameState[Any], ctx: RenderContext) -> list[bytes]:
    """One picture per step of what the last move set off, for games whose renderer
    defines `render_steps(state, ctx) -> list[Image]` (Everest's rounds); `ctx.previous`
    is the state before the move."""
    module = importlib.import_module(f"render.{state.game_id}")
    draw = getattr(module, "render_steps", None)
    return [] if draw is None else [encode_png(image) for image in draw(state, ctx)]
