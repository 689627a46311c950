"""Helpers shared by the board-render tests: pixel probes, colour comparison, golden images
and the checks every game's render makes (a palette image at its size, a small deterministic
PNG)."""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops

from engine.core import GameState
from host.catalog import all_listings, listing_of
from render.core import RenderContext

GOLDEN = Path(__file__).parent / "golden"
#: Every hosted game's id.
GAME_IDS = tuple(listing.id for listing in all_listings())

Colour = tuple[int, ...]
Scene = tuple[GameState[Any], RenderContext]


def render_png(state: GameState[Any], ctx: RenderContext | None = None) -> bytes:
    """The board of `state` as its game's renderer draws it."""
    return listing_of(state).renderer.board_png(state, ctx or RenderContext())


def options_png(
    state: GameState[Any], seat: int, prefix: tuple[str, ...], ctx: RenderContext
) -> bytes | None:
    return listing_of(state).renderer.options_png(state, seat, prefix, ctx)


def step_pngs(state: GameState[Any], ctx: RenderContext) -> list[bytes]:
    return [png for _, png in step_captions(state, ctx)]


def step_captions(state: GameState[Any], ctx: RenderContext) -> list[tuple[str, bytes]]:
    return listing_of(state).renderer.step_pngs(state, ctx)


def pixel(image: Image.Image, xy: tuple[int, int]) -> Colour:
    """The RGB colour of one pixel of a palette or multi-band image."""
    value = image.getpixel(xy)
    if image.mode == "P":
        assert isinstance(value, int)
        palette = image.getpalette()
        assert palette is not None
        return tuple(palette[3 * value : 3 * value + 3])
    assert isinstance(value, tuple)
    return value


def near(a: Colour, b: Colour, tolerance: int = 12) -> bool:
    """Whether every channel of ``a`` is within ``tolerance`` of the same channel of ``b``."""
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def count_colour(image: Image.Image, colour: tuple[int, int, int], tolerance: int = 10) -> int:
    """How many pixels of an image have every channel within ``tolerance`` of ``colour``."""
    away = ImageChops.difference(image.convert("RGB"), Image.new("RGB", image.size, colour))
    red, green, blue = away.split()
    farthest = ImageChops.lighter(red, ImageChops.lighter(green, blue))
    return sum(farthest.histogram()[: tolerance + 1])


def assert_matches_golden(
    image: Image.Image, name: str, tolerance: int = 24, one_in: int = 500
) -> None:
    """Compare ``image`` with ``golden/<name>.png`` by decoded pixels.

    A pixel counts as changed when its grey-level difference exceeds ``tolerance``; at most
    one pixel in ``one_in`` may change. With ``HILLTOP_UPDATE_GOLDEN=1`` the golden is
    written from ``image`` first.
    """
    path = GOLDEN / f"{name}.png"
    image = image.convert("RGB")
    if os.environ.get("HILLTOP_UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        image.save(path)
    expected = Image.open(path).convert("RGB")
    assert expected.size == image.size
    diff = ImageChops.difference(expected, image).convert("L")
    changed = sum(diff.histogram()[tolerance + 1 :])
    assert changed <= image.size[0] * image.size[1] // one_in, f"{changed} pixels differ"


def assert_renders_in_palette_at(
    render: Callable[[Any, RenderContext], Image.Image],
    scenes: Iterable[Scene],
    size: tuple[int, int],
    colours: Iterable[tuple[int, int, int]],
) -> None:
    """Every scene renders to a palette image of ``size``, all with the same palette, which
    holds ``colours``."""
    palettes = set()
    for state, ctx in scenes:
        image = render(state, ctx)
        assert image.size == size and image.mode == "P"
        palette = image.getpalette()
        assert palette is not None
        palettes.add(tuple(palette))
    (palette,) = palettes
    entries = {palette[i : i + 3] for i in range(0, len(palette), 3)}
    assert len(entries) <= 256
    assert set(colours) <= entries


def assert_small_deterministic_png(
    state: GameState[Any], ctx: RenderContext, size: tuple[int, int], limit: int = 80_000
) -> None:
    """``render_png`` gives the same bytes twice, under ``limit``, decoding to ``size``."""
    data = render_png(state, ctx)
    assert data == render_png(state, ctx)
    assert len(data) < limit
    assert Image.open(io.BytesIO(data)).size == size
