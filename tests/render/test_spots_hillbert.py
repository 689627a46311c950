"""Where a Hillbert player clicks: each step or jump is the cell it takes him to, over
seeded runs, on hills of 7 and 12 rows, checked against the drawn hill and his body."""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator
from functools import cache

from PIL import Image, ImageChops

from engine import registry
from engine.hillbert import HillbertState, new_hill
from engine.rng import Rng
from render.core import RenderContext, Spot
from render.hillbert import RENDERER, render
from tests.render.support import count_colour, pixel

GAME = registry.get("hillbert")
WIDTH = 520
CELL, BOARD_X, BOARD_Y, GHOST_ROW = 66, 44, 68, 26
HILL, HILL_ALT, FRAME = (208, 226, 176), (196, 216, 162), (86, 104, 62)
BODY, STONE = (245, 150, 30), (150, 152, 156)
TAIL = " score=0 turns=0 hungry=0 facing=0 jumped=0 seed=0"

Prefix = tuple[str, ...]
Box = tuple[int, int, int, int]


def position(board: str) -> HillbertState:
    state = GAME.from_text(board + TAIL)
    assert isinstance(state, HillbertState)
    return state


@cache
def runs() -> tuple[tuple[HillbertState, RenderContext], ...]:
    """The positions of seeded runs on hills of 7 and 12 rows, each with the turn that led
    to it: a seeded random turn, among those that eat when there are any, so that he grows
    and lives long."""
    found = []
    for seed, height in ((1, 7), (2, 7), (3, 7), (4, 12), (5, 12)):
        state = new_hill(seed, height)
        rng = Rng(seed)
        ctx = RenderContext()
        for _ in range(30):
            if not state.to_act:
                break
            found.append((state, ctx))
            moves = state.legal_moves(0)
            eating = [m for m in moves if state.resolve(m)[1].eaten] or list(moves)
            index, rng = rng.below(len(eating))
            ctx = RenderContext(last_move=eating[index], previous=state)
            state = state.play(0, eating[index])
    return tuple(found)


def prefixes(state: HillbertState) -> Iterator[tuple[Prefix, tuple[str, ...]]]:
    """Each prefix the builder reaches, with the tokens it offers there."""
    stack: list[Prefix] = [()]
    while stack:
        prefix = stack.pop()
        tokens = tuple(option.token for option in state.move_options(0, prefix).options)
        yield prefix, tokens
        stack.extend((*prefix, token) for token in tokens)


def spots_of(
    state: HillbertState, prefix: Prefix, tokens: tuple[str, ...], ctx: RenderContext
) -> dict[str, Box]:
    assert RENDERER.spots is not None
    found = RENDERER.spots(state.view(0), 0, prefix, tokens, ctx)
    assert len({spot.token for spot in found}) == len(found)
    return {spot.token: spot.box for spot in found}


def overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def bbox_of(image: Image.Image, colour: tuple[int, int, int]) -> Box:
    """The box around every pixel of exactly `colour`."""
    rgb = image.convert("RGB")
    away = ImageChops.difference(rgb, Image.new("RGB", rgb.size, colour)).convert("L")
    box = away.point(lambda v: 255 if v == 0 else 0).getbbox()
    assert box is not None
    return box


def forward(token: str) -> bool:
    return token[0] in "dD"


def cells(token: str) -> int:
    """How many cells a step goes: 1 for a step, k + 1 for a jump over k."""
    return 1 if len(token) == 1 else int(token[1:]) + 1


def test_the_runs_see_every_size_and_both_heights() -> None:
    assert {state.size for state, _ in runs()} == {1, 2, 3}
    assert {state.height for state, _ in runs()} == {7, 12}
    assert sum(1 for _, ctx in runs() if ctx.last_move is not None) > 80


def test_every_step_has_one_spot_and_they_never_overlap() -> None:
    checked = 0
    for state, ctx in runs():
        width, height = render(state, ctx).size
        for prefix, tokens in prefixes(state):
            found = spots_of(state, prefix, tokens, ctx)
            # Every step takes him somewhere on the hill the picture shows.
            assert sorted(found) == sorted(tokens), prefix
            for a, b in itertools.combinations(found.values(), 2):
                assert not overlaps(a, b), (prefix, a, b)
            for left, top, right, bottom in found.values():
                assert 0 <= left < right <= width and 0 <= top < bottom <= height
            checked += len(tokens)
    assert checked > 2000


def test_spots_follow_the_board_below_the_rows_that_scrolled_away() -> None:
    """The strip of scrolled rows pushes the board down: the spots move down with it."""
    moved = 0
    for state, ctx in runs():
        shift = render(state, ctx).size[1] - render(state, RenderContext()).size[1]
        moved += shift > 0
        for prefix, tokens in itertools.islice(prefixes(state), 0, None, 5):
            plain = spots_of(state, prefix, tokens, RenderContext())
            after = spots_of(state, prefix, tokens, ctx)
            assert after == {
                token: (left, top + shift, right, bottom + shift)
                for token, (left, top, right, bottom) in plain.items()
            }
    assert moved > 50


def test_a_spot_is_made_of_whole_cells_of_the_hill() -> None:
    """Near each corner of a box, the pixel just inside is a cell of the hill and the one
    just outside is the next cell (the other green) or the frame: each edge of the box is
    an edge between cells. (Obstacles and Hillbert keep clear of the edges of their cells
    there, but for the letter on a boulder's middle: a pair that meets it is passed.)"""
    for state, _ in runs()[::2]:
        ctx = RenderContext()
        image = render(state, ctx)
        for prefix, tokens in prefixes(state):
            for left, top, right, bottom in spots_of(state, prefix, tokens, ctx).values():
                pairs = []
                for x, out_x in ((left, left - 1), (right - 1, right)):
                    pairs += [((x, y), (out_x, y)) for y in (top + 2, bottom - 3)]
                for y, out_y in ((top, top - 1), (bottom - 1, bottom)):
                    pairs += [((x, y), (x, out_y)) for x in (left + 2, right - 3)]
                seen = 0
                for inside, outside in pairs:
                    colour, beyond = pixel(image, inside), pixel(image, outside)
                    if colour not in (HILL, HILL_ALT) or beyond not in (HILL, HILL_ALT, FRAME):
                        continue  # the letter of a boulder, written on its middle corner
                    assert beyond != colour, (prefix, inside, outside)
                    seen += 1
                assert seen >= 2, (prefix, left, top)


def test_steps_lead_from_where_he_is_drawn_one_row_or_column_per_cell() -> None:
    """Forward, the spots are in his columns, the first just below his body, each a row
    further per cell the step goes. Sideways, they are as tall as he is, in one band of
    rows; the first to his left just left of his body, the first to his right just right
    of it, each a column further per cell."""
    sideways_seen = 0
    for state, _ in runs()[1::2]:
        ctx = RenderContext()
        body = bbox_of(render(state, ctx), BODY)
        for prefix, tokens in prefixes(state):
            found = spots_of(state, prefix, tokens, ctx)
            if not found:
                continue
            boxes = list(found.values())
            if all(forward(token) for token in found):
                assert all(forward(token) for token in prefix)
                for left, top, right, bottom in boxes:
                    assert left < body[0] and body[2] < right
                    assert abs((left + right) - (body[0] + body[2])) <= 2
                    assert right - left == state.size * (bottom - top)
                row = min(boxes, key=lambda b: b[1])
                step = row[3] - row[1]
                for token, (_, top, _, _) in found.items():
                    assert top == row[1] + (cells(token) - 1) * step, (prefix, token)
                if not prefix:
                    assert 0 < found["d"][1] - body[3] <= 16
                continue
            assert not any(forward(token) for token in found)
            assert len({(b[1], b[3]) for b in boxes}) == 1, prefix
            column = boxes[0][2] - boxes[0][0]
            assert all(b[2] - b[0] == column for b in boxes)
            assert boxes[0][3] - boxes[0][1] == state.size * column
            for token, (left, _, right, _) in found.items():
                further = (cells(token) - 1) * column
                if token[0] in "lL" and "l" in found:
                    assert right == found["l"][2] - further
                if token[0] in "rR" and "r" in found:
                    assert left == found["r"][0] + further
            if "l" in found and "r" in found:
                assert found["r"][0] - found["l"][2] == state.size * column
            if not any(token[0] in "lrLR" for token in prefix):
                sideways_seen += 1
                if "l" in found:
                    assert 0 < body[0] - found["l"][2] <= 16
                if "r" in found:
                    assert 0 < found["r"][0] - body[2] <= 16
    assert sideways_seen > 20


#: Small Hillbert on d1; a stone on b2, a log on e2-f2, food on d3, a boulder on a4-b5.
SMALL = position(".s.H.../.s..mm./...o.../bb...../BB...../......./......o")


def cell(col: str, row: int, board_y: int = BOARD_Y) -> Box:
    """The box of cell `col``row`, e.g. ("d", 2), on a hill of 7 rows."""
    left, top = BOARD_X + "abcdefg".index(col) * CELL, board_y + (row - 1) * CELL
    return left, top, left + CELL, top + CELL


def test_a_small_hillberts_steps_are_the_cells_they_reach() -> None:
    ctx = RenderContext()
    assert spots_of(SMALL, (), ("d", "D1", "D2", "D3"), ctx) == {
        "d": cell("d", 2),
        "D1": cell("d", 3),
        "D2": cell("d", 4),
        "D3": cell("d", 5),
    }
    # From d2, sideways; b2's stone and e2's log would stop him: their cells all the same.
    assert spots_of(SMALL, ("d",), ("l", "L1", "r", "R1", "R2"), ctx) == {
        "l": cell("c", 2),
        "L1": cell("b", 2),
        "r": cell("e", 2),
        "R1": cell("f", 2),
        "R2": cell("g", 2),
    }
    image = render(SMALL, ctx)
    assert count_colour(image.crop(cell("b", 2)), STONE, tolerance=0) > 1000
    assert spots_of(SMALL, ("d", "l"), ("l",), ctx) == {"l": cell("b", 2)}


def test_a_step_an_obstacle_stops_is_where_it_aims_and_he_stays_put() -> None:
    stone = position("...H.../...s.../......./......./......./......./.......")
    ctx = RenderContext()
    assert spots_of(stone, (), ("d", "D1"), ctx) == {"d": cell("d", 2), "D1": cell("d", 3)}
    # The stone stops `d`: he is still on row 1, so his sideways steps are on row 1.
    assert spots_of(stone, ("d",), ("l", "r", "R2"), ctx) == {
        "l": cell("c", 1),
        "r": cell("e", 1),
        "R2": cell("g", 1),
    }
    # Jumping over it instead lands on row 3.
    assert spots_of(stone, ("D1",), ("l",), ctx) == {"l": cell("c", 3)}


def test_a_medium_hillberts_spot_is_the_edge_he_leads_with() -> None:
    medium = position("..HH.../..HH.../......./......./......./......./.......")
    ctx = RenderContext()
    left, _, _, _ = cell("c", 1)
    _, _, right, _ = cell("d", 1)
    assert spots_of(medium, (), ("d", "D1", "D2"), ctx) == {
        "d": (left, cell("c", 3)[1], right, cell("c", 3)[3]),
        "D1": (left, cell("c", 4)[1], right, cell("c", 4)[3]),
        "D2": (left, cell("c", 5)[1], right, cell("c", 5)[3]),
    }
    # After d d he covers c3-d4: left is column b, right is column e, over rows 3-4.
    top, bottom = cell("b", 3)[1], cell("b", 4)[3]
    assert spots_of(medium, ("d", "d"), ("l", "r", "R1"), ctx) == {
        "l": (cell("b", 3)[0], top, cell("b", 3)[2], bottom),
        "r": (cell("e", 3)[0], top, cell("e", 3)[2], bottom),
        "R1": (cell("f", 3)[0], top, cell("f", 3)[2], bottom),
    }


def test_after_a_turn_the_spots_are_on_the_board_under_the_scrolled_rows() -> None:
    move = SMALL.parse_move(0, "D1 r")
    after = SMALL.play(0, move)
    ctx = RenderContext(last_move=move, previous=SMALL)
    # He ate on d3 and grew to Medium on e1-f2; the turn scrolled two rows off the top.
    assert (after.size, after.col, after.score) == (2, 4, 2)
    board_y = BOARD_Y + 2 * GHOST_ROW
    below = cell("e", 3, board_y)[:2] + cell("f", 3, board_y)[2:]
    panel = RENDERER.panel(after.view(0), 0, (), ("d",), ctx)
    assert Image.open(io.BytesIO(panel.png)).size == (panel.width, panel.height)
    assert (panel.width, panel.height) == (WIDTH, BOARD_Y + 2 * GHOST_ROW + 462 + 56 + 278)
    assert panel.spots == (Spot("d", below),)
