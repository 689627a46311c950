"""Shared drawing pieces: bundled fonts, the theme, fixed palettes, text and PNG encoding.

Boards are drawn straight into palette ("P") images. Pillow's shapes are not
anti-aliased, so each shape pixel is one of a game's flat colours; only text is, and its
edges take the steps of a ramp between the text colour and the colour beneath it. Each
game declares both in a `Palette`, a pure function of the theme, so a board needs no
per-image colour search, and the same inputs give the same PNG bytes in every process:
the fonts ship with the bot, and the glyphs and the compression come from the FreeType
and zlib that Pillow is built with.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Generic, NamedTuple, TypeVar

from PIL import Image, ImageDraw, ImageFont

from engine.core import GameState

Color = tuple[int, int, int]

#: Steps from paper to ink in a text ramp; fewer when a game's ramps would not fit.
RAMP_STEPS = 16
MIN_RAMP_STEPS = 6
PALETTE_SIZE = 256
#: Outline width of stroked text, in pixels.
STROKE_WIDTH = 2
#: How wide a board picture shows on a 360 px phone: the page's 8 px margins and the
#: picture's 1 px border taken off each side (Discord shows it a little wider).
PHONE_SHOWN = 342
#: The smallest type a board picture may show on that phone, in CSS px.
PHONE_TYPE = 12
#: zlib level of the PNGs: beyond 3 encoding takes twice as long for a quarter less size.
COMPRESS_LEVEL = 3


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


def theme_colours(theme: Theme) -> tuple[Color, ...]:
    """The theme's colours but the seats' (a game with seats adds those it shows)."""
    return (
        theme.background,
        theme.ink,
        theme.muted,
        theme.grid,
        theme.highlight,
        theme.path,
        theme.good,
    )


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


def _blend(paper: Color, ink: Color, coverage: int) -> Color:
    """`ink` laid over `paper` with `coverage` out of 255, rounded to the nearest level."""
    r, g, b = (
        (p * (255 - coverage) + i * coverage + 127) // 255 for p, i in zip(paper, ink, strict=True)
    )
    return r, g, b


def _ramp(ink: Color, paper: Color, steps: int) -> list[Color]:
    """The colours between `paper` and `ink`, both ends included, in `steps` steps."""
    return [_blend(paper, ink, (255 * k + steps // 2) // steps) for k in range(steps + 1)]


class Palette:
    """A game's fixed colours: its flat colours, in the order given, then a ramp for each
    (ink, paper) pair of text and the surface beneath it. Text drawn on a pair without a
    ramp takes the nearest colours there are."""

    def __init__(self, flat: Iterable[Color], text: Iterable[tuple[Color, Color]]) -> None:
        pairs = tuple(dict.fromkeys(text))
        solid = list(dict.fromkeys([*flat, *(c for pair in pairs for c in pair)]))
        for steps in range(RAMP_STEPS, MIN_RAMP_STEPS - 1, -1):
            colours = dict.fromkeys(solid)
            for ink, paper in pairs:
                colours.update(dict.fromkeys(_ramp(ink, paper, steps)))
            if len(colours) <= PALETTE_SIZE:
                break
        else:
            raise ValueError(f"{len(solid)} colours and {len(pairs)} text ramps exceed 256")
        self.steps = steps
        self.colours: tuple[Color, ...] = tuple(colours)
        self._index = {colour: i for i, colour in enumerate(self.colours)}
        self.data = bytes(channel for colour in self.colours for channel in colour)

    def index(self, colour: Color) -> int:
        try:
            return self._index[colour]
        except KeyError:
            raise KeyError(f"{colour} is not in the palette") from None

    def nearest(self, colour: Color) -> int:
        """The index of the palette colour closest to `colour` (the first of equals)."""
        found = self._index.get(colour)
        if found is not None:
            return found
        return min(
            range(len(self.colours)),
            key=lambda i: sum((a - b) ** 2 for a, b in zip(self.colours[i], colour, strict=True)),
        )


@lru_cache(maxsize=512)
def _shades(palette: Palette, ink: Color, paper: Color) -> tuple[int, ...]:
    """The palette index of `ink` over `paper` for each coverage 0-255: the nearest step
    of their ramp."""
    steps = palette.steps
    levels = [palette.nearest(colour) for colour in _ramp(ink, paper, steps)]
    return tuple(levels[(coverage * steps + 127) // 255] for coverage in range(256))


class _Coverage(NamedTuple):
    """How much of each pixel a text covers: `fill` for the text itself, `outline` for it
    with its stroke; (dx, dy) is the offset of their box from the text's position."""

    dx: int
    dy: int
    fill: Image.Image
    outline: Image.Image | None


@lru_cache(maxsize=2048)
def _coverage(
    fnt: ImageFont.FreeTypeFont,
    text: str,
    anchor: str,
    start: tuple[float, float],
    stroke_width: int,
) -> _Coverage | None:
    """The coverage of `text` anchored at `start` (the fractional part of its position),
    as Pillow rasterises it; None when nothing shows."""
    left, top, right, bottom = fnt.getbbox(text, anchor=anchor, stroke_width=stroke_width)
    pad_x, pad_y = max(0, -math.floor(left)) + 1, max(0, -math.floor(top)) + 1
    size = (pad_x + math.ceil(right) + 2, pad_y + math.ceil(bottom) + 2)
    origin = (pad_x + start[0], pad_y + start[1])
    fill = Image.new("L", size)
    ImageDraw.Draw(fill).text(origin, text, fill=255, font=fnt, anchor=anchor)
    outline = None
    if stroke_width:
        outline = Image.new("L", size)
        ImageDraw.Draw(outline).text(
            origin, text, 255, fnt, anchor, stroke_width=stroke_width, stroke_fill=255
        )
    box = (outline or fill).getbbox()
    if box is None:
        return None
    return _Coverage(
        box[0] - pad_x,
        box[1] - pad_y,
        fill.crop(box),
        None if outline is None else outline.crop(box),
    )


#: Coverage to a paste mask: any coverage at all.
_COVERED = (0, *(255,) * 255)


@lru_cache(maxsize=2048)
def _patch(
    palette: Palette,
    fnt: ImageFont.FreeTypeFont,
    text: str,
    anchor: str,
    start: tuple[float, float],
    ink: Color,
    paper: Color,
    stroke: Color | None,
) -> tuple[Image.Image, Image.Image]:
    """`text` in `ink` (outlined in `stroke`) over `paper`, in palette indices, and the
    mask of the pixels it changes."""
    shape = _coverage(fnt, text, anchor, start, STROKE_WIDTH if stroke else 0)
    assert shape is not None
    paper_index = palette.index(paper)
    if shape.outline is None or stroke is None:
        shades = _shades(palette, ink, paper)
        patch = shape.fill.point(shades)
        changed = shape.fill.point([255 * (s != paper_index) for s in shades], "1")
    else:
        shades = _shades(palette, stroke, paper)
        patch = shape.outline.point(shades)
        patch.paste(
            shape.fill.point(_shades(palette, ink, stroke)), mask=shape.fill.point(_COVERED, "1")
        )
        changed = shape.outline.point([255 * (s != paper_index) for s in shades], "1")
    patch.putpalette(palette.data)
    # Realise the palette now: the cached patch is only ever read, by any thread.
    patch.load()
    return patch, changed


class BoardDraw(ImageDraw.ImageDraw):
    """Draws on a board image in its game's palette. Shapes take the palette's RGB
    colours, which Pillow maps to their indices; text goes through `label`."""

    def __init__(self, image: Image.Image, palette: Palette) -> None:
        super().__init__(image)
        self.image = image
        self.fixed_palette = palette

    def text(self, *args: Any, **kwargs: Any) -> None:
        """Refused: Pillow would blend the palette indices of anti-aliased edges."""
        raise TypeError("draw text on a board with label()")

    def label(
        self,
        xy: tuple[float, float],
        text: str,
        fnt: ImageFont.FreeTypeFont,
        fill: Color,
        anchor: str = "la",
        stroke: Color | None = None,
    ) -> None:
        """Draw `text` anchored at `xy` (Pillow's anchors) in `fill`, outlined in `stroke`.
        Its edges blend into the colour under the middle of the text, from a cached patch."""
        x, y = xy
        left, top = math.floor(x), math.floor(y)
        start = (x - left, y - top)
        shape = _coverage(fnt, text, anchor, start, STROKE_WIDTH if stroke else 0)
        if shape is None:
            return
        corner = (left + shape.dx, top + shape.dy)
        width, height = self.image.size
        middle = (
            min(max(corner[0] + shape.fill.width // 2, 0), width - 1),
            min(max(corner[1] + shape.fill.height // 2, 0), height - 1),
        )
        under = self.image.getpixel(middle)
        assert isinstance(under, int | float)
        paper = self.fixed_palette.colours[int(under)]
        patch, changed = _patch(self.fixed_palette, fnt, text, anchor, start, fill, paper, stroke)
        self.image.paste(patch, corner, changed)


def new_canvas(
    width: int, height: int, palette: Palette, background: Color
) -> tuple[Image.Image, BoardDraw]:
    """A blank board image in `palette`, and its drawing."""
    image = Image.new("P", (width, height), palette.index(background))
    image.putpalette(palette.data)
    return image, BoardDraw(image, palette)


def edit(layer: Image.Image, palette: Palette) -> tuple[Image.Image, BoardDraw]:
    """A copy of a cached layer to draw on (the layer itself is shared: never drawn on)."""
    image = layer.copy()
    return image, BoardDraw(image, palette)


def readable(width: int) -> int:
    """The smallest font size for a picture `width` px wide: `PHONE_TYPE` px when the
    picture is shown `PHONE_SHOWN` px wide."""
    return math.ceil(PHONE_TYPE * width / PHONE_SHOWN)


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    with resources.as_file(resources.files("render") / "assets" / name) as path:
        return ImageFont.truetype(str(path), size)


def text_center(
    draw: BoardDraw,
    xy: tuple[float, float],
    text: str,
    fnt: ImageFont.FreeTypeFont,
    fill: Color,
    stroke: Color | None = None,
) -> None:
    """Draw `text` centred on `xy`."""
    draw.label(xy, text, fnt, fill, "mm", stroke)


@lru_cache(maxsize=2048)
def text_length(text: str, fnt: ImageFont.FreeTypeFont) -> float:
    """The advance of `text` in pixels (laying text out costs more than looking it up)."""
    return fnt.getlength(text)


@lru_cache(maxsize=1024)
def fit_text(text: str, fnt: ImageFont.FreeTypeFont, width: int) -> str:
    """`text` shortened with an ellipsis so that it fits in `width` pixels."""
    if text_length(text, fnt) <= width:
        return text
    while text and fnt.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"


def flow(
    parts: Iterable[str], fnt: ImageFont.FreeTypeFont, width: int, most: int, gap: str = "   "
) -> list[str]:
    """`parts` joined by `gap` into at most `most` lines of `width` pixels, a part never
    split; what does not fit is shortened with an ellipsis."""
    lines: list[str] = []
    for part in parts:
        joined = f"{lines[-1]}{gap}{part}" if lines else part
        if lines and text_length(joined, fnt) <= width:
            lines[-1] = joined
        else:
            lines.append(part)
    if len(lines) > most:
        lines[most - 1 :] = [gap.join(lines[most - 1 :])]
    return [fit_text(line, fnt, width) for line in lines]


def fitting_font(
    text: str, size: int, width: int, bold: bool = False, smallest: int | None = None
) -> ImageFont.FreeTypeFont:
    """The largest font of at most `size` in which `text` fits `width` pixels, down to
    `smallest` (three quarters of `size` by default): a language whose words run longer
    is written a little smaller before anything is cut off."""
    least = smallest or max(8, size * 3 // 4)
    for points in range(size, least - 1, -1):
        fnt = font(points, bold)
        if text_length(text, fnt) <= width:
            return fnt
    return font(least, bold)


def encode_png(image: Image.Image) -> bytes:
    """PNG bytes of a board drawn in its game's palette: no colour search, and at most
    one byte a pixel for zlib to compress."""
    if image.mode != "P":
        raise ValueError(f"a board is drawn in a palette, not in {image.mode}")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False, compress_level=COMPRESS_LEVEL)
    return buffer.getvalue()


S = TypeVar("S", bound=GameState[Any])


@dataclass(frozen=True, slots=True)
class StepPicture:
    """One step of what a move set off: its picture, and the caption that names it as
    the game's text does ("Round 3 · step 2")."""

    caption: str
    picture: Image.Image


@dataclass(frozen=True, slots=True)
class Spot:
    """Where one choice of a move builder is on the picture a player chooses on: `token`
    (an `Option.token` offered after the prefix) and its box in the picture's pixels,
    `(left, top, right, bottom)`, right and bottom excluded. A web page lays a button over
    the box, so a choice is made by clicking the square, pawn or card it stands for."""

    token: str
    box: tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class PanelPicture:
    """The picture a seat builds its move on, with the boxes of the choices on it."""

    png: bytes
    width: int
    height: int
    spots: tuple[Spot, ...] = ()


@dataclass(frozen=True, slots=True)
class Renderer(Generic[S]):
    """How one game is drawn: its board, and the pictures a game may add to it. Each
    render module declares one as `RENDERER`; the host's game catalogue names it.

    `board(state, ctx)` draws the position. `options(state, seat, prefix, ctx)`, if the
    game has it, draws the choices a move builder offers `seat` after `prefix` (Everest's
    roll-off outcomes), or returns None where there is nothing to show. `steps(state,
    ctx)`, if the game has it, draws one `StepPicture` per step of what the last move set off
    (Everest's rounds), with `ctx.previous` the state before the move.

    `spots(state, seat, prefix, tokens, ctx)`, if the game has it, says where on the
    picture a seat chooses on (`panel`: what `options` draws for that prefix, else the
    board) each of `tokens` is: the choices the builder offers after `prefix`. `state` is
    the position as `seat` sees it. A token with no place on the picture is left out; it
    is offered as a button only.
    """

    board: Callable[[S, RenderContext], Image.Image]
    options: Callable[[S, int, tuple[str, ...], RenderContext], Image.Image | None] | None = None
    steps: Callable[[S, RenderContext], list[StepPicture]] | None = None
    spots: (
        Callable[[S, int, tuple[str, ...], tuple[str, ...], RenderContext], tuple[Spot, ...]] | None
    ) = None

    def board_png(self, state: S, ctx: RenderContext) -> bytes:
        """The board as PNG bytes. Pure: the same state and context give the same bytes."""
        return encode_png(self.board(state, ctx))

    def options_png(
        self, state: S, seat: int, prefix: tuple[str, ...], ctx: RenderContext
    ) -> bytes | None:
        if self.options is None:
            return None
        image = self.options(state, seat, prefix, ctx)
        return None if image is None else encode_png(image)

    def panel(
        self,
        state: S,
        seat: int,
        prefix: tuple[str, ...],
        tokens: tuple[str, ...],
        ctx: RenderContext,
    ) -> PanelPicture:
        """The picture `seat` builds its move on after `prefix` (the choices drawn, where the
        game draws them; else the board), with where each of `tokens` is on it."""
        image = self.options(state, seat, prefix, ctx) if self.options is not None else None
        if image is None:
            image = self.board(state, ctx)
        found = self.spots(state, seat, prefix, tokens, ctx) if self.spots is not None else ()
        width, height = image.size
        offered = set(tokens)
        inside = tuple(
            spot
            for spot in found
            if spot.token in offered
            and 0 <= spot.box[0] < spot.box[2] <= width
            and 0 <= spot.box[1] < spot.box[3] <= height
        )
        return PanelPicture(encode_png(image), width, height, inside)

    def step_pngs(self, state: S, ctx: RenderContext) -> list[tuple[str, bytes]]:
        """Each step's caption with its picture as PNG bytes."""
        if self.steps is None:
            return []
        return [(step.caption, encode_png(step.picture)) for step in self.steps(state, ctx)]
