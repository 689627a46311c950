"""The palette canvas: text pasted from cached patches looks like Pillow's own anti-aliased
text, palettes keep their flat colours and fit in 256 entries."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops, ImageDraw

from render.core import Palette, encode_png, font, new_canvas

Colour = tuple[int, int, int]
PAPER: Colour = (246, 241, 229)
INK: Colour = (40, 38, 36)
RED: Colour = (214, 64, 52)
WHITE: Colour = (255, 255, 255)


def worst_difference(a: Image.Image, b: Image.Image) -> int:
    extrema = ImageChops.difference(a.convert("RGB"), b.convert("RGB")).getextrema()
    return max(high for _, high in extrema)


@pytest.mark.parametrize(
    ("xy", "anchor", "size", "bold"),
    [((10, 8), "la", 22, False), ((80.5, 30.25), "mm", 40, True), ((150, 40), "rs", 15, False)],
)
def test_label_looks_like_pillows_text(
    xy: tuple[float, float], anchor: str, size: int, bold: bool
) -> None:
    text = "Ada · 12×3 pts"
    expected = Image.new("RGB", (160, 60), PAPER)
    ImageDraw.Draw(expected).text(xy, text, fill=INK, font=font(size, bold), anchor=anchor)
    palette = Palette([PAPER, INK], [(INK, PAPER)])
    image, draw = new_canvas(160, 60, palette, PAPER)
    draw.label(xy, text, font(size, bold), INK, anchor)
    # Sixteen steps from paper to ink: at most half a step (of about 210 levels) off.
    assert worst_difference(image, expected) <= 7


def test_outlined_label_looks_like_pillows_text() -> None:
    expected = Image.new("RGB", (80, 40), (156, 204, 112))
    ImageDraw.Draw(expected).text(
        (40, 20),
        "+2",
        fill=RED,
        font=font(20, True),
        anchor="mm",
        stroke_width=2,
        stroke_fill=WHITE,
    )
    palette = Palette([(156, 204, 112), RED, WHITE], [(RED, WHITE), (WHITE, (156, 204, 112))])
    image, draw = new_canvas(80, 40, palette, (156, 204, 112))
    draw.label((40, 20), "+2", font(20, True), RED, "mm", WHITE)
    assert worst_difference(image, expected) <= 7


def test_label_changes_only_the_pixels_the_text_covers() -> None:
    palette = Palette([PAPER, INK, RED], [(INK, PAPER)])
    image, draw = new_canvas(120, 40, palette, PAPER)
    # A red mark in the gap between two letters, inside the text's box.
    draw.rectangle((47, 14, 52, 26), fill=RED)
    draw.label((60, 20), "l      l", font(20), INK, "mm")
    rgb = image.convert("RGB")
    assert {rgb.getpixel((x, y)) for x in range(47, 53) for y in range(14, 27)} == {RED}
    assert INK in {colour for _, colour in rgb.getcolors() or []}


def test_palette_puts_flat_colours_first_and_shortens_ramps_to_fit() -> None:
    flat = [(i, 255 - i, 100) for i in range(0, 240, 8)]
    palette = Palette(flat, [(INK, paper) for paper in flat])
    assert palette.colours[: len(flat)] == tuple(flat)
    assert len(palette.colours) <= 256 and palette.steps < 16
    assert len(palette.data) == 3 * len(palette.colours)
    roomy = Palette(flat[:3], [(INK, flat[0])])
    assert roomy.steps == 16 and len(roomy.colours) == 3 + 1 + 15


def test_too_many_ramps_are_refused() -> None:
    flat = [(i, i, 255 - i) for i in range(0, 250, 5)]
    with pytest.raises(ValueError, match="exceed 256"):
        Palette(flat, [(INK, paper) for paper in flat])


def test_pillows_own_text_is_refused_on_a_board() -> None:
    _, draw = new_canvas(10, 10, Palette([PAPER], []), PAPER)
    with pytest.raises(TypeError):
        draw.text((0, 0), "x", fill=INK)


def test_only_palette_images_are_encoded() -> None:
    with pytest.raises(ValueError):
        encode_png(Image.new("RGB", (4, 4)))
