"""Shared drawing pieces: bundled fonts, the theme, text helpers and PNG encoding.

Rendering is a pure function of an engine state (as seen by the viewer) and a
`RenderContext`; the same inputs give byte-identical PNGs, on any machine, because the
fonts ship with the bot.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from engine.core import GameState

Color = tuple[int, int, int]


@dataclass(frozen=True)
class Theme:
    background: Color = (246, 241, 229)
    ink: Color = (40, 38, 36)
    muted: Color = (120, 114, 106)
    grid: Color = (90, 80, 66)
    highlight: Color = (232, 170, 36)
    path: Color = (214, 64, 52)
    good: Color = (46, 140, 76)
    #: Player colours by seat, for games whose seats have no colour of their own.
    seats: tuple[Color, ...] = ((200, 60, 50), (50, 100, 200), (60, 150, 70), (170, 90, 180))


DEFAULT_THEME = Theme()


@dataclass(frozen=True)
class RenderContext:
    """What a board image shows beside the state itself.

    `names` are the players' display names by seat. `last_move` is the move that led to
    the state (drawn as a path), `previous` the state before it, when known.
    `viewer` is the seat whose view this is (None: public).
    """

    names: tuple[str, ...] = ()
    last_move: Any = None
    previous: GameState[Any] | None = None
    viewer: int | None = None
    caption: str = ""
    theme: Theme = field(default_factory=Theme)

    def name(self, seat: int, fallback: str) -> str:
        return self.names[seat] if seat < len(self.names) and self.names[seat] else fallback


@lru_cache(maxsize=32)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    with resources.as_file(resources.files("render") / "assets" / name) as path:
        return ImageFont.truetype(str(path), size)


def text_center(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    fnt: ImageFont.FreeTypeFont,
    fill: Color,
    stroke: Color | None = None,
) -> None:
    """Draw `text` centred on `xy`."""
    draw.text(
        xy,
        text,
        font=fnt,
        fill=fill,
        anchor="mm",
        stroke_width=2 if stroke else 0,
        stroke_fill=stroke,
    )


def fit_text(text: str, fnt: ImageFont.FreeTypeFont, width: int) -> str:
    """`text` shortened with an ellipsis so that it fits in `width` pixels."""
    if fnt.getlength(text) <= width:
        return text
    while text and fnt.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"


def encode_png(image: Image.Image) -> bytes:
    """PNG bytes of a board. Boards are flat colours with anti-aliased edges, so a
    256-colour palette (no dithering) looks the same and encodes about twice as fast
    and half as large as RGB."""
    palette = image.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    palette.save(buffer, format="PNG", optimize=False, compress_level=3)
    return buffer.getvalue()


def new_canvas(width: int, height: int, theme: Theme) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (width, height), theme.background)
    return image, ImageDraw.Draw(image)
