"""Where Hollowtown's builder choices are on the board: Market rows, town cells and the
Bank, through the positions of seeded games. Each box is checked against the picture
itself: the colour that fills it, and the frame the board draws around the same thing
when it is the last move's."""

from __future__ import annotations

import io
import itertools
import random
from collections.abc import Iterator
from functools import cache, lru_cache

import pytest
from PIL import Image

from engine import registry
from engine.hollowtown import (
    CELL_NAMES,
    EMPTY,
    HOUSE,
    TYPE_NAMES,
    HollowtownMove,
    HollowtownState,
)
from render.core import DEFAULT_THEME, RenderContext, Spot
from render.hollowtown import BANK, EMPTY_CELL, RENDERER, SOLD_OUT, TILE_COLOURS, render, spots

GAME = registry.get("hollowtown")
CTX = RenderContext(names=("Ada", "Bo"))
HIGHLIGHT = DEFAULT_THEME.highlight
#: Enough seeded games, played at random, to reach every action of the builder.
SEEDS = range(8)
PLIES = 60

Case = tuple[HollowtownState, int, tuple[str, ...], tuple[str, ...]]


@lru_cache(maxsize=1)
def positions() -> tuple[HollowtownState, ...]:
    """Every position of the seeded games, each as its seat to act sees it."""
    found = []
    for seed in SEEDS:
        state = GAME.new_state(seed, 2, None)
        assert isinstance(state, HollowtownState)
        rng = random.Random(seed)
        for _ in range(PLIES):
            if state.is_over:
                break
            seat = state.seat_to_act
            found.append(state.view(seat))
            state = state.play(seat, rng.choice(state.legal_moves(seat)))
    return tuple(found)


def walk(state: HollowtownState, seat: int, prefix: tuple[str, ...] = ()) -> Iterator[Case]:
    """Every prefix the builder offers choices after, with the tokens it offers."""
    options = state.move_options(seat, prefix)
    tokens = tuple(option.token for option in options.options)
    if tokens:
        yield state, seat, prefix, tokens
    for token in tokens:
        yield from walk(state, seat, (*prefix, token))


@lru_cache(maxsize=1)
def cases() -> tuple[Case, ...]:
    return tuple(case for state in positions() for case in walk(state, state.seat_to_act))


def found(case: Case) -> tuple[Spot, ...]:
    state, seat, prefix, tokens = case
    return spots(state, seat, prefix, tokens, CTX)


def rgb(image: Image.Image) -> Image.Image:
    return image.convert("RGB")


def dominant(image: Image.Image, box: tuple[int, int, int, int]) -> tuple[int, ...]:
    colours = image.crop(box).getcolors(maxcolors=1 << 16)
    assert colours is not None
    colour = max(colours)[1]
    assert isinstance(colour, tuple)
    return colour


def test_the_games_reach_every_action() -> None:
    actions = {case[2][0] for case in cases() if case[2]}
    assert actions == {"buy", "move", "inc", "dec", "steal", "beg"}
    assert any("bank" in case[3] for case in cases())


def test_spots_are_offered_tokens_inside_the_board_and_apart() -> None:
    width, height = render(positions()[0], CTX).size
    for case in cases():
        state, _, prefix, tokens = case
        boxes = found(case)
        names = [spot.token for spot in boxes]
        assert len(names) == len(set(names)) and set(names) <= set(tokens), (prefix, names)
        for spot in boxes:
            left, top, right, bottom = spot.box
            assert 0 <= left < right <= width and 0 <= top < bottom <= height, spot
        for a, b in itertools.combinations(boxes, 2):
            apart = (
                a.box[2] <= b.box[0]
                or b.box[2] <= a.box[0]
                or a.box[3] <= b.box[1]
                or b.box[3] <= a.box[1]
            )
            assert apart, (state.to_text(), prefix, a, b)


def test_the_panel_keeps_every_spot() -> None:
    for case in cases()[::25]:
        state, seat, prefix, tokens = case
        panel = RENDERER.panel(state, seat, prefix, tokens, CTX)
        assert panel.spots == found(case)
        assert Image.open(io.BytesIO(panel.png)).size == (panel.width, panel.height)


def test_places_get_a_spot_and_action_words_none() -> None:
    places = {*TYPE_NAMES, *CELL_NAMES, "bank"}
    for case in cases():
        _, _, prefix, tokens = case
        assert {spot.token for spot in found(case)} == places & set(tokens), prefix
        if not prefix:
            assert not found(case)


def expected_fill(state: HollowtownState, token: str) -> tuple[int, int, int]:
    """What fills the thing a token names: a tile's colour on the board or in its Market
    row (grey once the row has no tiles), the ground of an empty cell or a house, the
    Bank's."""
    if token == "bank":
        return BANK
    if token in TYPE_NAMES:
        ty = TYPE_NAMES.index(token)
        return TILE_COLOURS[ty] if state.stock[ty] else SOLD_OUT
    kind = state.cells[CELL_NAMES.index(token)]
    return EMPTY_CELL if kind == EMPTY or kind >= HOUSE else TILE_COLOURS[kind]


def last_move_naming(token: str) -> HollowtownMove:
    """A last move that makes the board frame what `token` names."""
    if token == "bank":
        return HollowtownMove("beg")
    if token in TYPE_NAMES:
        return HollowtownMove("inc", TYPE_NAMES.index(token))
    return HollowtownMove("move", -1, CELL_NAMES.index(token))


@cache
def framed(state: HollowtownState, token: str) -> Image.Image:
    ctx = RenderContext(names=CTX.names, last_move=last_move_naming(token))
    return rgb(render(state, ctx))


def test_each_box_holds_what_its_token_names() -> None:
    checked = 0
    for case in cases():
        state, _, prefix, _ = case
        boxes = found(case)
        if not boxes:
            continue
        board = rgb(render(state, CTX))
        for spot in boxes:
            assert dominant(board, spot.box) == expected_fill(state, spot.token), (prefix, spot)
            checked += 1
    assert checked > 500


def test_each_box_is_what_the_board_frames_for_its_token() -> None:
    """The board frames the cell, Market row or Bank of the last move: the frame runs along
    the spot's edges, inside it, and not beyond them (a town cell's frame may overlap the
    next cell's first pixel, where the grid line runs)."""
    for case in cases()[::3]:
        state = case[0]
        for spot in found(case):
            image = framed(state, spot.token)
            left, top, right, bottom = spot.box
            mx, my = (left + right) // 2, (top + bottom) // 2
            inside = [(left, my), (right - 1, my), (mx, top), (mx, bottom - 1)]
            outside = [(left - 1, my), (right + 1, my), (mx, top - 1), (mx, bottom + 1)]
            assert all(image.getpixel(xy) == HIGHLIGHT for xy in inside), spot
            assert not any(image.getpixel(xy) == HIGHLIGHT for xy in outside), spot


def test_boxes_keep_the_order_of_rows_columns_and_market_rows() -> None:
    for case in cases():
        boxes = {spot.token: spot.box for spot in found(case)}
        cells = [
            (CELL_NAMES.index(token), box) for token, box in boxes.items() if token in CELL_NAMES
        ]
        for (a, box_a), (b, box_b) in itertools.combinations(cells, 2):
            if a % 3 != b % 3:
                assert (a % 3 < b % 3) == (box_a[0] < box_b[0])
            else:
                assert box_a[0] == box_b[0]
            if a // 3 != b // 3:
                assert (a // 3 < b // 3) == (box_a[1] < box_b[1])
            else:
                assert box_a[1] == box_b[1]
        rows = [
            (TYPE_NAMES.index(token), box) for token, box in boxes.items() if token in TYPE_NAMES
        ]
        for (a, box_a), (b, box_b) in itertools.combinations(rows, 2):
            assert (a < b) == (box_a[3] <= box_b[1])
            assert box_a[0] == box_b[0] and box_a[2] == box_b[2]


#: Hollow stands on Dooky's house with an empty supply: he may beg or steal.
THIEF = (
    "Dh,Be,Mu/Me,-,Med/-,-,H market=2/0,2/2,1/1 bank=8 supply=0/2 turn=hollow round=4 "
    "lastbuy=2 rng=0:0"
)


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ((), set()),
        (("beg",), {"bank", "mushroom", "beehive", "meadow"}),
        (("steal",), {"mushroom"}),
        (("move",), {"B1", "A2"}),
    ],
)
def test_a_thief_on_the_other_house(prefix: tuple[str, ...], expected: set[str]) -> None:
    state = GAME.from_text(THIEF)
    assert isinstance(state, HollowtownState)
    tokens = tuple(option.token for option in state.move_options(0, prefix).options)
    assert {spot.token for spot in spots(state, 0, prefix, tokens, CTX)} == expected
