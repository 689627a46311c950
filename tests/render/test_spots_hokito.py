"""Where a Hokito player clicks: every pawn to move and every landing the builder offers is
its square on the board, found in seeded games and checked against the drawn pixels."""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator

from PIL import Image

from engine import registry
from engine.hokito import HokitoMove, HokitoState, pawn_colour
from engine.rng import Rng
from render.core import DEFAULT_THEME, RenderContext, Spot
from render.hokito import RENDERER, render
from tests.render.support import count_colour, pixel

GAME = registry.get("hokito")
SIZE = (720, 890)
CELL, BOARD_X, BOARD_Y = 104, 56, 176
BLACK_PAWN, WHITE_PAWN = (34, 32, 30), (250, 248, 242)
DARK, LIGHT, FRAME = (214, 184, 134), (236, 214, 170), (112, 82, 50)
HIGHLIGHT = DEFAULT_THEME.highlight
FILES = "abcdef"
ALL_SQUARES = tuple(f"{file}{rank}" for rank in range(1, 7) for file in FILES)


def positions() -> Iterator[tuple[HokitoState, RenderContext]]:
    """Positions through seeded games (seeded random moves), each with its last move."""
    for seed in range(1, 5):
        state = GAME.new_state(seed, 2, None)
        assert isinstance(state, HokitoState)
        rng = Rng(seed * 7)
        ctx = RenderContext()
        for ply in range(40):
            if not state.to_act:
                break
            if ply % 3 == 0:
                yield state, ctx
            seat = state.to_move
            moves = state.legal_moves(seat)
            index, rng = rng.below(len(moves))
            ctx = RenderContext(last_move=moves[index], previous=state)
            state = state.play(seat, moves[index])


def prefixes(state: HokitoState, seat: int) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Each prefix the builder reaches, with the tokens it offers there."""
    first = tuple(option.token for option in state.move_options(seat, ()).options)
    yield (), first
    for token in first:
        yield (token,), tuple(o.token for o in state.move_options(seat, (token,)).options)


def spots_of(
    state: HokitoState,
    seat: int,
    prefix: tuple[str, ...],
    tokens: tuple[str, ...],
    ctx: RenderContext,
) -> tuple[Spot, ...]:
    assert RENDERER.spots is not None
    return RENDERER.spots(state, seat, prefix, tokens, ctx)


def overlaps(a: Spot, b: Spot) -> bool:
    return (
        a.box[0] < b.box[2] and b.box[0] < a.box[2] and a.box[1] < b.box[3] and b.box[1] < a.box[3]
    )


def square_colour(token: str, ctx: RenderContext) -> tuple[int, int, int]:
    """The colour of a square as the board shows it: dark where file and rank are both
    odd or both even (a1 is dark), the highlight on the last move's two ends."""
    move = ctx.last_move
    if isinstance(move, HokitoMove):
        ends = {move.origin, move.destination}
        if ALL_SQUARES.index(token) in ends:
            return HIGHLIGHT
    file, rank = FILES.index(token[0]), int(token[1]) - 1
    return DARK if (file + rank) % 2 == 0 else LIGHT


def test_every_offered_square_has_one_spot_and_they_never_overlap() -> None:
    checked = 0
    for state, ctx in positions():
        seat = state.to_move
        for prefix, tokens in prefixes(state, seat):
            assert tokens
            found = spots_of(state, seat, prefix, tokens, ctx)
            assert sorted(spot.token for spot in found) == sorted(tokens)
            for a, b in itertools.combinations(found, 2):
                assert not overlaps(a, b), (prefix, a, b)
            for spot in found:
                left, top, right, bottom = spot.box
                assert 0 <= left < right <= SIZE[0] and 0 <= top < bottom <= SIZE[1]
            checked += 1
    assert checked > 100


def test_a_spot_is_the_whole_square_of_the_pawn_it_names() -> None:
    """The corners of each box have the colour of that square, so the box is neither
    shifted nor larger (a pixel beyond it is the next square's or the frame's), and it
    is a square's size; the pawn on top is drawn inside it, in its side's colour."""
    for state, ctx in positions():
        seat = state.to_move
        image = render(state, ctx)
        for prefix, tokens in prefixes(state, seat):
            for spot in spots_of(state, seat, prefix, tokens, ctx):
                left, top, right, bottom = spot.box
                assert (right - left, bottom - top) == (CELL, CELL)
                colour = square_colour(spot.token, ctx)
                for corner in ((left, top), (right - 1, top), (left, bottom - 1)):
                    assert pixel(image, corner) == colour, (spot, corner)
                assert pixel(image, (right - 1, bottom - 1)) == colour
                stack = state.board[ALL_SQUARES.index(spot.token)]
                assert stack, spot  # every choice is a pawn or a stack to move or land on
                pawn = BLACK_PAWN if pawn_colour(stack[-1]) == 0 else WHITE_PAWN
                assert count_colour(image.crop(spot.box), pawn, tolerance=0) > 2000, spot


def test_squares_run_left_to_right_by_file_and_bottom_to_top_by_rank() -> None:
    state, ctx = next(positions())
    found = {s.token: s.box for s in spots_of(state, 0, (), ALL_SQUARES, ctx)}
    assert set(found) == set(ALL_SQUARES)
    for a, b in itertools.combinations(ALL_SQUARES, 2):
        (fa, ra), (fb, rb) = (FILES.index(a[0]), a[1]), (FILES.index(b[0]), b[1])
        assert (found[a][0] < found[b][0]) == (fa < fb)
        assert (found[a][0] == found[b][0]) == (fa == fb)
        assert (found[a][1] > found[b][1]) == (ra < rb)
    # The 36 squares tile the board inside its frame, from a6's corner to f1's.
    assert found["a6"][:2] == (BOARD_X, BOARD_Y)
    assert found["f1"][2:] == (BOARD_X + 6 * CELL, BOARD_Y + 6 * CELL)
    image = render(state, ctx)
    assert pixel(image, (BOARD_X - 1, BOARD_Y)) == FRAME
    assert pixel(image, (BOARD_X + 6 * CELL, BOARD_Y + 6 * CELL - 1)) == FRAME


def test_the_panel_is_the_board_with_the_spots_of_what_is_offered() -> None:
    state, ctx = next(itertools.islice(positions(), 3, None))
    seat = state.to_move
    tokens = tuple(o.token for o in state.move_options(seat, ()).options)
    panel = RENDERER.panel(state, seat, (), (*tokens[:3], "zz"), ctx)
    assert (panel.width, panel.height) == SIZE
    assert Image.open(io.BytesIO(panel.png)).size == SIZE
    assert [spot.token for spot in panel.spots] == list(tokens[:3])
