"""Mole Hill board images: size, pixel probes at known squares and edges, goldens."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from engine import registry
from engine.molehill import MoleHillState, Place
from render.core import DEFAULT_THEME, RenderContext
from render.molehill import render
from tests.render.support import (
    assert_matches_golden,
    assert_renders_in_palette_at,
    assert_small_deterministic_png,
    near,
    options_png,
    pixel,
)

GAME = registry.get("molehill")
SIZE = (732, 878)
CELL, BOARD_X, BOARD_Y = 76, 34, 226
FLOWERS = "e1,a4,i4,e7/b2,h2,b6,h6"
LAWN_EVEN, LAWN_ODD = (124, 176, 92), (112, 164, 82)
SOIL = (150, 108, 66)
ORANGE, DARK, MOLE = (243, 138, 28), (52, 46, 44), (104, 70, 46)
ROD, TARGET = (250, 250, 244), (255, 236, 120)
RED, EYE, BADGE = (214, 36, 44), (250, 204, 40), (255, 226, 90)
WHITE_PETAL = (252, 252, 252)
GRID = (72, 112, 56)
#: A rod not placed yet, and the lawn it would part from the mole.
PROPOSED, CUT_OFF = (36, 104, 232), (156, 158, 142)

#: Eleven squares (the eleventh dark) with the mole on c2; rods around it.
MID = f"1m g2,h2,h1,g1,f1,e1,d1,e2,d2,c3,c2 a4e,h6e,f1n,g1n,i1n,i2n,a3n,b3n,d3n,h3n,i4n {FLOWERS} -"


#: The mole on b7, walled into columns a-b by rods on the east sides of column b.
WALLED = f"1g a1,a2,a3,a4,a5,a6,a7,b7 b1e,b2e,b3e,b4e,b5e,b6e,b7e {FLOWERS} -"


def molehill(text: str) -> MoleHillState:
    state = GAME.from_text(text)
    assert isinstance(state, MoleHillState)
    return state


def box(square: str) -> tuple[int, int, int, int]:
    col, row = "abcdefghi".index(square[0]), int(square[1]) - 1
    x0, y0 = BOARD_X + col * CELL, BOARD_Y + (6 - row) * CELL
    return x0, y0, x0 + CELL, y0 + CELL


def centre(square: str) -> tuple[int, int]:
    x0, y0, _, _ = box(square)
    return x0 + CELL // 2, y0 + CELL // 2


def scenes() -> dict[str, tuple[MoleHillState, RenderContext]]:
    names = ("Ada", "Bo")
    start = GAME.new_state(1, 2, None)
    assert isinstance(start, MoleHillState)
    before_rod = molehill(MID.replace("1m", "1g").replace(",i4n", ""))
    rod = before_rod.parse_move(1, "rod i4n")
    mole = before_rod.play(1, rod)
    step = mole.parse_move(0, "b3")
    gardener = mole.play(0, step)
    trap = molehill(f"2g b2,a1 a1n {FLOWERS} 9")
    last = trap.parse_move(0, "rod a1e")
    return {
        "start": (start, RenderContext(names=names)),
        "mole": (mole, RenderContext(names=names, last_move=rod, previous=before_rod)),
        "gardener": (gardener, RenderContext(names=names, last_move=step, previous=mole)),
        "over": (trap.play(0, last), RenderContext(names=names, last_move=last, previous=trap)),
    }


def test_size_and_mode() -> None:
    colours = (LAWN_EVEN, LAWN_ODD, SOIL, ORANGE, DARK, MOLE, ROD, TARGET, RED, EYE, BADGE)
    assert_renders_in_palette_at(render, scenes().values(), SIZE, colours)


def test_png_is_small_and_deterministic() -> None:
    assert_small_deterministic_png(*scenes()["mole"], SIZE)


def test_lawn_centre_and_flowers() -> None:
    state, ctx = scenes()["start"]
    image = render(state, ctx)
    # Lawn squares alternate; the probe sits in the bottom-right corner of the square.
    for square, colour in (("a1", LAWN_EVEN), ("b1", LAWN_ODD), ("i7", LAWN_EVEN)):
        _, _, x1, y1 = box(square)
        assert near(pixel(image, (x1 - 14, y1 - 14)), colour), square
    x0, y0, _, _ = box("e4")
    assert near(pixel(image, (x0 + 6, y0 + 6)), SOIL)
    # The red flower of a4: yellow eye, red petal above it; no visited badge yet.
    x0, y0, _, _ = box("a4")
    assert near(pixel(image, (x0 + 13, y0 + 13)), EYE)
    assert near(pixel(image, (x0 + 16, y0 + 6)), RED)
    assert not near(pixel(image, (x0 + 13, y0 + 29)), BADGE)


def test_pieces_stack_targets_and_rods() -> None:
    state, ctx = scenes()["mole"]
    image = render(state, ctx)
    # Piece 1 on g2 is orange; the stack stands on c2 over the dark eleventh piece.
    gx, gy = centre("g2")
    assert near(pixel(image, (gx - 14, gy)), ORANGE)
    cx, cy = centre("c2")
    assert near(pixel(image, (cx - 16, cy)), MOLE)
    assert near(pixel(image, (cx - 25, cy)), DARK)
    # The mole's next squares: b1, b2, b3, c1, d3 are marked, d4 (not adjacent) is not.
    for square in ("b1", "b2", "b3", "c1", "d3"):
        assert near(pixel(image, centre(square)), TARGET), square
    assert not near(pixel(image, centre("d4")), TARGET)
    # Rod f1n lies on the line between f1 and f2, at the middle of that side.
    x0, y0, x1, _ = box("f2")
    assert near(pixel(image, ((x0 + x1) // 2, y0 + CELL)), ROD)
    # The last rod (i4n) is filled with the highlight colour, the others white.
    ix0, iy0, ix1, _ = box("i4")
    assert near(pixel(image, ((ix0 + ix1) // 2, iy0)), DEFAULT_THEME.highlight)
    assert not near(pixel(image, ((x0 + x1) // 2, y0 + CELL)), DEFAULT_THEME.highlight)
    # e1 (red flower) was visited: its badge rings the flower, beside the piece.
    ex0, ey0, _, _ = box("e1")
    assert near(pixel(image, (ex0 + 1, ey0 + 27)), BADGE)


def test_last_step_is_highlighted_and_targets_hidden() -> None:
    state, ctx = scenes()["gardener"]
    image = render(state, ctx)
    # The bottom-left corner of b3 (rods lie along its top).
    x0, _, _, y1 = box("b3")
    assert near(pixel(image, (x0 + 4, y1 - 4)), DEFAULT_THEME.highlight)
    # The gardener is to act, so no squares are offered to the mole.
    assert not near(pixel(image, centre("b2")), TARGET)
    # c2 now holds the dark eleventh piece, the stack moved to b3.
    cx, cy = centre("c2")
    assert near(pixel(image, (cx - 14, cy)), DARK)
    bx, by = centre("b3")
    assert near(pixel(image, (bx - 16, by)), MOLE)


def test_current_round_box_is_marked_while_running() -> None:
    running = render(*scenes()["mole"])
    over = render(*scenes()["over"])
    # The round-1 box is outlined in the highlight colour while round 1 runs.
    assert near(pixel(running, (BOARD_X + 1, 76)), DEFAULT_THEME.highlight)
    assert not near(pixel(over, (BOARD_X + 1, 76)), DEFAULT_THEME.highlight)
    assert not near(pixel(over, (BOARD_X + 346 + 1, 76)), DEFAULT_THEME.highlight)


def test_last_move_is_written_in_the_footer() -> None:
    state, ctx = scenes()["mole"]
    with_move = render(state, ctx)
    without = render(state, RenderContext(names=ctx.names))
    bbox = ImageChops.difference(with_move.convert("RGB"), without.convert("RGB")).getbbox()
    # Only the footer under the board's files changes (the rod's highlight aside).
    footer = ImageChops.difference(with_move.convert("RGB"), without.convert("RGB")).crop(
        (0, BOARD_Y + 7 * CELL + 40, SIZE[0], SIZE[1])
    )
    assert bbox is not None and footer.getbbox() is not None


def test_text_last_move_draws_like_a_move_object() -> None:
    state, ctx = scenes()["mole"]
    as_text = RenderContext(names=ctx.names, last_move="rod i5s", previous=ctx.previous)
    diff = ImageChops.difference(render(state, ctx), render(state, as_text))
    assert diff.getbbox() is None


@pytest.mark.parametrize("name", ["start", "mole", "gardener", "over"])
def test_golden(name: str) -> None:
    state, ctx = scenes()[name]
    assert_matches_golden(render(state, ctx), f"molehill_{name}")


def test_text_placement_draws_like_a_place_object() -> None:
    start = GAME.new_state(1, 2, None)
    assert isinstance(start, MoleHillState)
    placed = start.play(0, start.parse_move(0, "place c3"))
    by_text = RenderContext(names=("Ada", "Bo"), last_move="place c3", previous=start)
    by_move = RenderContext(names=("Ada", "Bo"), last_move=Place(20), previous=start)
    assert ImageChops.difference(render(placed, by_text), render(placed, by_move)).getbbox() is None


def test_flowers_and_numbers_read_at_the_size_discord_shows_a_board() -> None:
    start = registry.get("molehill").new_state(1, 2, None)
    image = render(start, RenderContext(names=("Ada", "Bo")))
    x0, y0, x1, y1 = box("e7")  # a red flower
    petals = [
        (x, y) for x in range(x0, x1) for y in range(y0, y1) if near(pixel(image, (x, y)), RED)
    ]
    across = max(x for x, _ in petals) - min(x for x, _ in petals) + 1
    # Discord shows the board about 550 px wide: a flower stays about 20 px across there.
    assert across * 550 / image.width >= 20, across


def test_a_flower_leaves_the_number_of_the_piece_on_its_square_clear() -> None:
    # Pieces 2, 5, 7 and 10 stand on flowers (b2, a4, b6, e7); the stack stands on i4.
    state = molehill(
        "1g a1,b2,c3,b4,a4,a5,b6,c7,d7,e7,f6,g5,h6,h5,h4,i4 "
        "a1e,b1e,c1e,d1e,e1e,f1e,g1e,h1e,a2e,b2e,c2e,d2e,e2e,f2e,g2e "
        f"{FLOWERS} -"
    )
    image = render(state, RenderContext(names=("Ada", "Bo")))
    petals = {"b2": WHITE_PETAL, "a4": RED, "b6": WHITE_PETAL, "e7": RED, "i4": RED}
    for square, petal in petals.items():
        x, y = centre(square)
        # The number is written within 16 px of the middle of the piece.
        covered = [
            (dx, dy)
            for dx in range(-16, 17)
            for dy in range(-16, 17)
            if dx * dx + dy * dy <= 16 * 16
            and any(near(pixel(image, (x + dx, y + dy)), c) for c in (petal, EYE, BADGE))
        ]
        assert covered == [], square


def preview_image(state: MoleHillState, prefix: tuple[str, ...]) -> Image.Image:
    data = options_png(state, 1, prefix, RenderContext(names=("Ada", "Bo")))
    assert data is not None
    return Image.open(io.BytesIO(data)).convert("RGB")


def test_a_chosen_rod_is_drawn_in_place_before_it_is_placed() -> None:
    state = molehill(WALLED)
    ctx = RenderContext(names=("Ada", "Bo"), last_move="b7")
    # Nothing to preview before a rod is chosen (the public board draws no extra picture).
    assert options_png(state, 1, (), ctx) is None
    assert options_png(state, 1, ("b3",), ctx) is None
    data = options_png(state, 1, ("b3", "n"), ctx)
    assert data is not None
    preview = Image.open(io.BytesIO(data)).convert("RGB")
    board = render(state, ctx).convert("RGB")
    assert preview.size == SIZE
    # The rod between b3 and b4, drawn wider than a placed rod; the board has only grid.
    x0, y0, x1, _ = box("b3")
    for dy in (0, 5, -5):
        assert near(pixel(preview, ((x0 + x1) // 2, y0 + dy)), PROPOSED), dy
    assert near(pixel(board, ((x0 + x1) // 2, y0)), GRID)
    # b1-b3 are cut off from the mole (greyed); b5 and c3 are not.
    for square in ("b1", "b2", "b3"):
        _, _, sx1, sy1 = box(square)
        assert near(pixel(preview, (sx1 - 14, sy1 - 14)), CUT_OFF), square
        assert near(pixel(board, (sx1 - 14, sy1 - 14)), LAWN_ODD if square != "b2" else LAWN_EVEN)
    for square, lawn in (("b5", LAWN_ODD), ("c3", LAWN_EVEN)):
        _, _, sx1, sy1 = box(square)
        assert near(pixel(preview, (sx1 - 14, sy1 - 14)), lawn), square


def test_a_rod_that_closes_the_mole_in_previews_on_the_mole_square() -> None:
    state = molehill(WALLED)
    image = preview_image(state, ("b7s",))
    x0, _, x1, y1 = box("b7")
    assert near(pixel(image, ((x0 + x1) // 2, y1)), PROPOSED)
    # Every free square is out of the mole's reach: b1-b6 are grey.
    for square in ("b1", "b6"):
        _, _, sx1, sy1 = box(square)
        assert near(pixel(image, (sx1 - 14, sy1 - 14)), CUT_OFF), square
