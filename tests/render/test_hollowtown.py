"""Hollowtown board images: size, pixel probes at known cells, golden PNGs."""

from __future__ import annotations

import pytest

from engine import registry
from engine.hollowtown import HollowtownMove, HollowtownState
from render.core import DEFAULT_THEME, RenderContext
from render.hollowtown import render
from tests.render.support import (
    assert_matches_golden,
    assert_renders_in_palette_at,
    assert_small_deterministic_png,
    count_colour,
    near,
    pixel,
)

GAME = registry.get("hollowtown")
CELL, TOWN_X, TOWN_Y = 124, 44, 98
HOLLOW_RED, DOOKY_BLUE = DEFAULT_THEME.seats[0], DEFAULT_THEME.seats[1]

MID = GAME.from_text(
    "Hh,Be,Mu/Me,-,Med/-,-,D market=2/1,2/1,1/1 bank=5 supply=3/2 turn=dooky round=4 "
    "lastbuy=2 rng=0:0"
)
assert isinstance(MID, HollowtownState)
AFTER_HARVEST = MID.play(1, MID.parse_move(1, "move down"))


def cell_origin(name: str) -> tuple[int, int]:
    column, row = "ABC".index(name[0]), int(name[1]) - 1
    return TOWN_X + column * CELL, TOWN_Y + row * CELL


def scenes() -> dict[str, tuple[HollowtownState, RenderContext]]:
    start = GAME.new_state(7, 2, None)
    assert isinstance(start, HollowtownState)
    over = GAME.from_text(
        "Hh,Mu,Be/Me,Mu2,Be/Me,-,Dd market=1/1,2/0,0/0 bank=3 supply=4/3 turn=dooky "
        "round=9 lastbuy=8 rng=0:0"
    )
    assert isinstance(over, HollowtownState)
    ended = over.play(1, over.parse_move(1, "buy mushroom B3"))
    return {
        "start": (start, RenderContext(names=("Ada", "Bo"))),
        "harvest": (
            AFTER_HARVEST,
            RenderContext(
                names=("Ada", "Bo"), last_move=HollowtownMove("move", -1, 8), previous=MID
            ),
        ),
        "over": (
            ended,
            RenderContext(names=("Hollow", "Dooky"), last_move="buy mushroom B3", previous=over),
        ),
    }


def test_size_and_mode() -> None:
    tiles = ((214, 186, 150), (246, 214, 120), (156, 204, 112), (226, 218, 200))
    colours = (*tiles, (112, 62, 156), HOLLOW_RED, DOOKY_BLUE, DEFAULT_THEME.background)
    assert_renders_in_palette_at(render, scenes().values(), (760, 629), colours)


def test_png_is_small_and_deterministic() -> None:
    assert_small_deterministic_png(*scenes()["harvest"], (760, 629))


def test_probes_at_known_cells() -> None:
    state, ctx = scenes()["harvest"]
    image = render(state, ctx)
    # B2 is empty; B1 a Beehive, C1 a Mushroom, A2 a Meadow (tile colours by type).
    x, y = cell_origin("B2")
    assert near(pixel(image, (x + 30, y + 30)), (226, 218, 200))
    x, y = cell_origin("B1")
    assert near(pixel(image, (x + 3, y + 60)), (246, 214, 120))
    x, y = cell_origin("C1")
    assert near(pixel(image, (x + 3, y + 60)), (214, 186, 150))
    x, y = cell_origin("A2")
    assert near(pixel(image, (x + 3, y + 60)), (156, 204, 112))
    # Hollow stands on A1 (red disc), Dooky on C3 (blue disc); the token's left edge.
    x, y = cell_origin("A1")
    assert near(pixel(image, (x + 87 - 18, y + 40)), HOLLOW_RED)
    x, y = cell_origin("C3")
    assert near(pixel(image, (x + 87 - 18, y + 40)), DOOKY_BLUE)
    # Dooky's move down ended on C3: its border is highlighted.
    assert near(pixel(image, (x + 2, y + 60)), DEFAULT_THEME.highlight)
    # The Harvest put buttons on C2: a purple sewing button lies there.
    x, y = cell_origin("C2")
    assert state.piles[5] == 1
    assert near(pixel(image, (x + 20 - 6, y + CELL - 36)), (112, 62, 156), 20)


def test_an_empty_town_has_no_buttons_drawn() -> None:
    state, ctx = scenes()["start"]
    image = render(state, ctx)
    town = image.crop((TOWN_X, TOWN_Y, TOWN_X + 3 * CELL, TOWN_Y + 3 * CELL))
    assert count_colour(town, (112, 62, 156)) == 0


@pytest.mark.parametrize("name", ["start", "harvest", "over"])
def test_golden(name: str) -> None:
    state, ctx = scenes()[name]
    assert_matches_golden(render(state, ctx), f"hollowtown_{name}")
