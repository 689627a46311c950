"""Hokito board images: size, pixel probes at known squares, the last move's path, goldens."""

from __future__ import annotations

import pytest
from PIL import ImageChops

from engine import registry
from engine.hokito import HokitoMove, HokitoState
from render.core import DEFAULT_THEME, RenderContext
from render.hokito import render
from tests.render.support import (
    assert_matches_golden,
    assert_renders_in_palette_at,
    assert_small_deterministic_png,
    count_colour,
    near,
    pixel,
)

GAME = registry.get("hokito")
SIZE = (720, 890)
CELL, BOARD_X, BOARD_Y = 104, 56, 176
BLACK_PAWN, WHITE_PAWN = (34, 32, 30), (250, 248, 242)
DARK, LIGHT = (214, 184, 134), (236, 214, 170)


def hokito(text: str) -> HokitoState:
    state = GAME.from_text(text)
    assert isinstance(state, HokitoState)
    return state


MID = hokito(
    "w2,.,.,w1w1,w2w3,w2/w1,w1w2b3b3,.,.,w2b2,w1/.,.,.,.,w3,./b2w3w1b3,.,.,b3,b1w3,./"
    "b1,b3b2,b1w3,.,b1w2b1b3,./b2,.,b1w3,b2,.,b2 b"
)
#: a3>a5>b5>e5: a black 3 goes north, east across an empty stretch, onto a stack.
MOVE = MID.parse_move(0, "a3>a5>b5>e5")
AFTER = MID.play(0, MOVE)
#: White cannot move once Black plays a1-a2 here: the game is over, Black wins 35 to 3.
STUCK = hokito(
    ".,.,.,.,.,b1b1b1b1b2b2b2b2b2b3b3b3b3b3b3w1w1w1w1w1w1w2w2w2w2w2w2w3w3w3w3w3b1/"
    ".,.,.,.,.,./.,.,w3,.,.,./.,.,.,.,.,./b2,.,.,.,.,./b1,.,.,.,.,. b"
)


def centre(square: str) -> tuple[int, int]:
    file, rank = "abcdef".index(square[0]), int(square[1]) - 1
    return BOARD_X + file * CELL + CELL // 2, BOARD_Y + (5 - rank) * CELL + CELL // 2


def scenes() -> dict[str, tuple[HokitoState, RenderContext]]:
    start = GAME.new_state(1, 2, None)
    assert isinstance(start, HokitoState)
    last = STUCK.parse_move(0, "a1-a2")
    return {
        "start": (start, RenderContext(names=("Ada", "Bo"))),
        "path": (AFTER, RenderContext(names=("Ada", "Bo"), last_move=MOVE, previous=MID)),
        "over": (
            STUCK.play(0, last),
            RenderContext(names=("Ada", "Bo"), last_move=last, previous=STUCK),
        ),
    }


def test_size_and_mode() -> None:
    theme = DEFAULT_THEME
    colours = (BLACK_PAWN, WHITE_PAWN, DARK, LIGHT, theme.path, theme.highlight, theme.ink)
    assert_renders_in_palette_at(render, scenes().values(), SIZE, colours)


def test_png_is_small_and_deterministic() -> None:
    assert_small_deterministic_png(*scenes()["path"], SIZE)


def test_probes_at_known_squares() -> None:
    state, ctx = scenes()["start"]
    image = render(state, ctx)
    # Seed 1: a black 3 on a1, a white 3 on a6; probe the disc left of its digit.
    for square, colour in (("a1", BLACK_PAWN), ("f2", BLACK_PAWN), ("a6", WHITE_PAWN)):
        x, y = centre(square)
        assert near(pixel(image, (x - 26, y)), colour), square
        # The square's own colour shows in its corner (a1 dark, like every even square).
        assert near(pixel(image, (x - 48, y + 48)), DARK if square != "a6" else LIGHT), square
    # No move yet: no path colour anywhere.
    assert count_colour(image, DEFAULT_THEME.path) == 0


def test_empty_square_and_moved_pieces() -> None:
    state, ctx = scenes()["path"]
    image = render(state, ctx)
    # d4 is empty (dark), c6 empty (light): their centres show the bare square.
    assert near(pixel(image, centre("d4")), DARK)
    assert near(pixel(image, centre("c6")), LIGHT)
    # The black 3 now tops e5 (a stack of 6): black disc, and the badge in the corner.
    x, y = centre("e5")
    assert state.board[4 + 6 * 4][-1] == 3 and len(state.board[4 + 6 * 4]) == 6
    assert near(pixel(image, (x - 26, y - 12)), BLACK_PAWN)
    assert near(pixel(image, (x + 44, y + 40)), (46, 92, 168))


def test_last_move_path_is_drawn() -> None:
    state, ctx = scenes()["path"]
    image = render(state, ctx)
    path = DEFAULT_THEME.path
    # a3 (origin) -> a5 -> b5 -> e5: the line crosses the empty a4, c5 and d5.
    for square in ("a4", "c5", "d5"):
        assert near(pixel(image, centre(square)), path), square
    # Not drawn where the path does not go: b4, d4 and the straight a3-e5 line's c4.
    for square in ("b4", "d4", "c4"):
        assert not near(pixel(image, centre(square)), path), square
    # Both ends are highlighted: the origin a3 (now empty) and the landing e5.
    ax, ay = centre("a3")
    assert near(pixel(image, (ax - 48, ay - 48)), DEFAULT_THEME.highlight)
    ex, ey = centre("e5")
    assert near(pixel(image, (ex - 48, ey + 48)), DEFAULT_THEME.highlight)
    # The origin gets a ring in the path colour.
    assert near(pixel(image, (ax - 17, ay)), path)


def test_path_is_found_when_the_move_carries_none() -> None:
    state, ctx = scenes()["path"]
    bare = RenderContext(
        names=ctx.names, last_move=HokitoMove(MOVE.origin, MOVE.destination), previous=MID
    )
    assert MID.destinations(MOVE.origin)[MOVE.destination] == MOVE.path
    with_path = render(state, ctx)
    without = render(state, bare)
    assert ImageChops.difference(with_path, without).getbbox() is None


def test_the_box_marks_whose_turn_it_is_and_then_the_winner() -> None:
    state, ctx = scenes()["over"]
    assert state.is_over and state.outcome().winners == {0}  # type: ignore[union-attr]
    over = render(state, ctx)
    running, running_ctx = scenes()["start"]
    marked = render(running, running_ctx)
    # The yellow box marks whose turn it is while the game runs, then who won.
    assert near(pixel(marked, (16, 48)), (250, 226, 150))
    assert not near(pixel(marked, (16 + 360, 48)), (250, 226, 150))
    assert near(pixel(over, (16, 48)), (250, 226, 150))
    assert not near(pixel(over, (16 + 360, 48)), (250, 226, 150))
    # The tall black stack on f6: black disc, 33 pawns.
    x, y = centre("f6")
    assert near(pixel(over, (x - 26, y - 10)), BLACK_PAWN)


@pytest.mark.parametrize("name", ["start", "path", "over"])
def test_golden(name: str) -> None:
    state, ctx = scenes()[name]
    assert_matches_golden(render(state, ctx), f"hokito_{name}")
