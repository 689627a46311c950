"""Everest board images: size, pixel probes at known squares, thumbnails, golden PNGs."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from engine import registry
from engine.everest import EverestState
from render.core import DEFAULT_THEME, RenderContext
from render.everest import LEVELS, render, render_outcome_thumbnail
from render.registry import render_png

GAME = registry.get("everest")
GOLDEN = Path(__file__).parent / "golden"
CELL, LEFT, TOP = 86, 36, 50
NAMES = ("Ann", "Bob", "Cy", "Di")


def state_of(text: str) -> EverestState:
    state = GAME.from_text(text)
    assert isinstance(state, EverestState)
    return state


# A roll-off: Red on a1 and Blue on e1 both walk to c1 (seat 1 won the roll: dice 3, 5).
CONFLICT = state_of(
    "everest n=2 cap=30 round=2 stage=pick step=1 pos=a1,e1 aside=-,- dmg=0,0 peak=- "
    "plans=2E+s0N+sAN,2W+s0N+sAN pick=act:1 result=- rng=0:0 ev=reveal,step.1,dice.3.5"
)
# After a step with a roar, a run-away push, a cliff fall, a snowball hit and a splat.
ACTION = state_of(
    "everest n=4 cap=30 round=3 stage=end step=3 pos=c2,e2,f2,b4 aside=-,5,-,- "
    "dmg=0,1,0,1 peak=- plans=0E+s2N+s3N,dazed,0W+s2N+s3N,sAS+2W+3W result=- rng=0:0 "
    "end=-,h,-,h ev=step.1,roar.0.c2.E,roar.2.e2.W,roll.1.3,flee.1.E.3,move.1.d2.e2.E,"
    "push.2.e2.f2.E,snow.3.d4.d1.S.2,move.3.d4.b4.W,fall.3.b4,snow.0.c2.c2.N.1,"
    "hit.1.e2.E"
)


def centre(name: str) -> tuple[int, int]:
    col, row = "abcdefgh".index(name[0]), int(name[1])
    return LEFT + col * CELL + CELL // 2, TOP + (6 - row) * CELL + CELL // 2


def pixel(image: Image.Image, xy: tuple[int, int]) -> tuple[int, ...]:
    value = image.getpixel(xy)
    assert isinstance(value, tuple)
    return value


def near(a: tuple[int, ...], b: tuple[int, ...], tolerance: int = 12) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def scenes() -> dict[str, tuple[EverestState, RenderContext]]:
    start = GAME.new_state(3, 4, None)
    assert isinstance(start, EverestState)
    return {
        "start": (start, RenderContext(names=NAMES)),
        "conflict": (CONFLICT, RenderContext(names=NAMES[:2])),
        "action": (ACTION, RenderContext(names=NAMES)),
    }


def test_size_and_mode() -> None:
    for state, ctx in scenes().values():
        image = render(state, ctx)
        assert image.size == (760, 732) and image.mode == "RGB"


def test_png_is_small_and_deterministic() -> None:
    state, ctx = scenes()["action"]
    data = render_png(state, ctx)
    assert data == render_png(state, ctx)
    assert len(data) < 80_000
    assert Image.open(io.BytesIO(data)).size == (760, 732)


def test_heights_are_shaded_by_level() -> None:
    image = render(*scenes()["start"])
    # Probe inside each square, away from the yeti and the corner height label.
    for name, level in (("c6", 1), ("b3", 2), ("d2", 3), ("c4", 4), ("e3", 5)):
        x, y = centre(name)
        assert near(pixel(image, (x + 25, y + 25)), LEVELS[level]), name


def test_cliffs_are_thick_and_steps_thin() -> None:
    image = render(*scenes()["start"])
    dark = (30, 30, 40)
    # The c1|c2 cliff is the top edge of c1: dark well above and below the line.
    x, y = centre("c1")
    edge = y - CELL // 2
    assert near(pixel(image, (x, edge - 2)), dark, 30)
    assert near(pixel(image, (x, edge + 2)), dark, 30)
    # The b1|b2 step is a thin line: 3 pixels away the snow shows again.
    x, y = centre("b1")
    edge = y - CELL // 2
    assert near(pixel(image, (x, edge + 3)), LEVELS[1])


def test_yeti_in_seat_colours_on_their_home_bases() -> None:
    image = render(*scenes()["start"])
    for seat, name in enumerate(("a2", "h5", "h2", "a5")):
        x, y = centre(name)
        assert near(pixel(image, (x - 18, y + 10)), DEFAULT_THEME.seats[seat]), name


def test_events_are_drawn() -> None:
    image = render(*scenes()["action"])
    # The fall onto b4 is boxed in red; a snowball's dotted path crosses d2.
    x, y = centre("b4")
    assert near(pixel(image, (x - 38, y)), (220, 40, 40), 30)
    x, y = centre("d2")
    column = [pixel(image, (x, y + dy)) for dy in range(-CELL // 2 + 2, CELL // 2 - 2)]
    assert any(near(p, (40, 150, 220), 30) for p in column)


def test_outcome_thumbnails_differ_per_outcome() -> None:
    options = CONFLICT.pick_options()
    assert len(options) == 2
    images = [render_outcome_thumbnail(o.preview, RenderContext(names=NAMES)) for o in options]
    assert all(im.size == (240, 184) for im in images)
    assert ImageChops.difference(images[0], images[1]).getbbox() is not None


@pytest.mark.parametrize("name", ["start", "conflict", "action"])
def test_golden(name: str) -> None:
    state, ctx = scenes()[name]
    image = render(state, ctx)
    path = GOLDEN / f"everest_{name}.png"
    if os.environ.get("HILLTOP_UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        image.save(path)
    expected = Image.open(path).convert("RGB")
    assert expected.size == image.size
    diff = ImageChops.difference(expected, image).convert("L")
    changed = sum(diff.histogram()[25:])
    assert changed <= image.size[0] * image.size[1] // 500, f"{changed} pixels differ"
