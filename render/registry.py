"""Board renderers by game id: one module per game, the same name as in engine/."""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from PIL import Image

from engine.core import GameState
from render.core import RenderContext, encode_png

#: Games with a renderer; each module defines `render(state, ctx) -> Image`.
RENDER_MODULES: tuple[str, ...] = ("everest", "hillbert", "hokito", "hollowtown")


class Renderer(Protocol):
    def __call__(self, state: Any, ctx: RenderContext) -> Image.Image: ...


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
