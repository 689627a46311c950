"""Hillbert board images: size, pixel probes at known cells, golden PNGs."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PIL import Image

from engine import registry
from engine.hillbert import HillbertState
from render.core import DEFAULT_THEME, RenderContext
from render.hillbert import render
from tests.render.support import (
    assert_matches_golden,
    assert_renders_in_palette_at,
    assert_small_deterministic_png,
    near,
    pixel,
)

GAME = registry.get("hillbert")
#: The picture with no scrolled rows above the board; each scrolled row adds GHOST_ROW.
SIZE = (520, 864)
CELL, BOARD_X, BOARD_Y, GHOST_ROW = 66, 44, 68, 26
#: The board of the "move" scene, under the two rows its turn scrolled off.
MOVED_SIZE, MOVED_Y = (520, 864 + 2 * 26), 68 + 2 * 26
TAIL = " score={score} turns={turns} hungry={hungry} facing={facing} jumped={jumped} seed=0"

STONE, LOG, BOULDER = (150, 152, 156), (150, 96, 52), (74, 76, 92)
APPLE, BODY = (214, 40, 40), (245, 150, 30)
PUPIL = (60, 30, 0)
LIGHT, DARK = (208, 226, 176), (196, 216, 162)
FRAME = (86, 104, 62)
#: The light hill colour faded 55% into the background, as the scrolled rows are drawn.
FADED_LIGHT = (229, 234, 205)


def position(board: str, **fields: int) -> HillbertState:
    values = {"score": 0, "turns": 0, "hungry": 0, "facing": 0, "jumped": 0} | fields
    state = GAME.from_text(board + TAIL.format(**values))
    assert isinstance(state, HillbertState)
    return state


#: Small Hillbert on d1; a stone on b2, a log on e2-f2, food on d3, a boulder on a4-b5.
BEFORE = position(".s.H.../.s..mm./...o.../bb...../BB...../......./......o", score=5, turns=4)
MOVE = BEFORE.parse_move(0, "D1 r")
AFTER = BEFORE.play(0, MOVE)
OVER = position("..H..../..s..../......./......./......./......./.......", hungry=2)
ENDED = OVER.play(0, OVER.parse_move(0, "d"))


def cell_box(col: str, row: int, board_y: int = BOARD_Y) -> tuple[int, int]:
    """Top-left pixel of a board cell, e.g. ("d", 1)."""
    return BOARD_X + "abcdefg".index(col) * CELL, board_y + (row - 1) * CELL


def scenes() -> dict[str, tuple[HillbertState, RenderContext]]:
    big = position("..HHHbb/..HHHBB/..HHH../.mm.o../s....../.....bb/.....BB", score=40)
    return {
        "start": (BEFORE, RenderContext(names=("Ada",))),
        "move": (AFTER, RenderContext(names=("Ada",), previous=BEFORE, last_move=MOVE)),
        "big": (big, RenderContext(names=("Hillbert",), caption="Daily 2024-05-01")),
        "over": (ENDED, RenderContext(names=("Ada",), previous=OVER, last_move="d")),
    }


def test_size_and_mode() -> None:
    colours = (STONE, LOG, BOULDER, APPLE, BODY, LIGHT, DARK, DEFAULT_THEME.path)
    unscrolled = [scene for name, scene in scenes().items() if name != "move"]
    assert_renders_in_palette_at(render, unscrolled, SIZE, colours)
    assert_renders_in_palette_at(render, [scenes()["move"]], MOVED_SIZE, colours)


def test_png_is_small_and_deterministic() -> None:
    assert_small_deterministic_png(*scenes()["move"], MOVED_SIZE)


def test_probes_at_known_cells() -> None:
    image = render(BEFORE, RenderContext())
    x, y = cell_box("b", 1)
    assert near(pixel(image, (x + 10, y + 10)), STONE)
    x, y = cell_box("e", 2)
    assert near(pixel(image, (x + 12, y + 12)), LOG)
    x, y = cell_box("f", 2)
    assert near(pixel(image, (x + 50, y + 50)), LOG)
    x, y = cell_box("d", 3)
    assert near(pixel(image, (x + 33, y + 40)), APPLE)
    x, y = cell_box("a", 5)
    assert near(pixel(image, (x + 20, y + 50)), BOULDER)
    x, y = cell_box("d", 1)
    assert near(pixel(image, (x + 12, y + 33)), BODY)
    x, y = cell_box("c", 3)
    assert near(pixel(image, (x + 33, y + 33)), LIGHT)
    x, y = cell_box("c", 2)
    assert near(pixel(image, (x + 33, y + 33)), DARK)


def test_the_last_turn_shows_its_scrolled_rows_and_path() -> None:
    # D1 r: Small jumps from d1 over d2 to d3, eats, steps right to e3 and grows to
    # Medium on e3-f4; the board scrolls 2 rows.
    assert AFTER.score == 7 and AFTER.size == 2 and AFTER.col == 4
    image = render(*scenes()["move"])
    path = DEFAULT_THEME.path
    # The start, d1, is now the upper of two faded rows above the board.
    x = BOARD_X + 3 * CELL + CELL // 2
    assert near(pixel(image, (x, MOVED_Y - 2 * GHOST_ROW + GHOST_ROW // 2)), path, 30)
    # Row 1 was d3 when he landed: the path dot sits on its centre.
    assert near(pixel(image, (x, MOVED_Y + CELL // 2)), path, 30)
    # The stone on b1 of the old board is drawn faded in the strip, not in full colour.
    faded = pixel(image, (BOARD_X + CELL + 12, MOVED_Y - 2 * GHOST_ROW + 13))
    assert not near(faded, STONE) and sum(faded) > sum(STONE)
    # Medium Hillbert covers e1-f2 (his body colour in each cell's corner).
    for col, row in (("e", 1), ("f", 2)):
        x0, y0 = cell_box(col, row, MOVED_Y)
        corner = (x0 + 20, y0 + 20) if col == "e" else (x0 + CELL - 20, y0 + CELL - 20)
        assert near(pixel(image, corner), BODY)


def longest_blank_run(image: Image.Image) -> int:
    """The most image rows in a row that are plain background across the board's width."""
    rgb = image.convert("RGB")
    longest = run = 0
    for y in range(rgb.height):
        colours = rgb.crop((BOARD_X, y, BOARD_X + 7 * CELL, y + 1)).getcolors()
        plain = colours is not None and [c for _, c in colours] == [DEFAULT_THEME.background]
        run = run + 1 if plain else 0
        longest = max(longest, run)
    return longest


def test_no_empty_band_waits_for_scrolled_rows() -> None:
    start = render(*scenes()["start"])
    moved = render(*scenes()["move"])
    # The first turn's board sits right under the title; the board's frame starts there.
    assert longest_blank_run(start) < 40 and longest_blank_run(moved) < 40
    assert near(pixel(start, (BOARD_X - 2, BOARD_Y - 2)), FRAME)
    # Two scrolled rows take two strip rows, right under the title, and nothing more.
    assert moved.height - start.height == 2 * GHOST_ROW
    assert near(pixel(moved, (BOARD_X + 4, BOARD_Y + 4)), FADED_LIGHT)


def test_game_over_banner() -> None:
    assert ENDED.is_over
    image = render(*scenes()["over"])
    x, y = cell_box("a", 4)
    assert near(pixel(image, (x + 4, y + 30)), (40, 38, 36))


@pytest.mark.parametrize("name", ["start", "move", "big", "over"])
def test_golden(name: str) -> None:
    state, ctx = scenes()[name]
    assert_matches_golden(render(state, ctx), f"hillbert_{name}")


def test_hillbert_looks_down_the_hill_whatever_his_facing() -> None:
    """His facing changes nothing in the rules: no arrow, his eyes low on his body."""
    game = registry.get("hillbert")
    start = game.new_state(4, 1, None)
    for facing in range(4):
        image = render(replace(start, facing=facing), RenderContext(names=("alice",)))
        body = [
            (x, y)
            for x in range(image.width)
            for y in range(image.height // 2)
            if pixel(image, (x, y)) == BODY
        ]
        top, bottom = min(y for _, y in body), max(y for _, y in body)
        left, right = min(x for x, _ in body), max(x for x, _ in body)
        dark = [
            y
            for x in range(left, right + 1)
            for y in range(top, bottom + 1)
            if near(pixel(image, (x, y)), PUPIL, 20)
        ]
        assert dark and min(dark) > (top + bottom) / 2 - 8, facing
