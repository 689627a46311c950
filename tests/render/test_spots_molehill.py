"""Where a Mole Hill player clicks: the mole's squares, the gardener's squares and the sides
a rod goes on, over seeded games of both rounds, checked against the drawn pixels."""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator
from functools import cache

from PIL import Image

from engine import registry
from engine.molehill import MoleHillState
from engine.rng import Rng
from render.core import RenderContext, Spot
from render.molehill import RENDERER, render, render_options
from tests.render.support import count_colour

GAME = registry.get("molehill")
SIZE = (732, 878)
CELL, BOARD_X, BOARD_Y = 76, 34, 226
FILES = "abcdefghi"
LAWN_EVEN, LAWN_ODD, SOIL = (124, 176, 92), (112, 164, 82), (150, 108, 66)
TARGET, MOLE, RED_FLOWER = (255, 236, 120), (104, 70, 46), (214, 36, 44)
#: A rod the gardener has chosen but not placed, as the options picture draws it.
PROPOSED = (36, 104, 232)
SIDES = "nesw"

Prefix = tuple[str, ...]


@cache
def games() -> tuple[tuple[MoleHillState, RenderContext], ...]:
    """Every position of three seeded games (seeded random moves), both rounds, to the end,
    each with the move that led to it."""
    found = []
    for seed in (1, 2, 3):
        state = GAME.new_state(seed, 2, None)
        assert isinstance(state, MoleHillState)
        rng = Rng(seed * 11)
        ctx = RenderContext(names=("Ada", "Bo"))
        while state.to_act:
            found.append((state, ctx))
            (seat,) = state.to_act
            moves = state.legal_moves(seat)
            index, rng = rng.below(len(moves))
            ctx = RenderContext(names=("Ada", "Bo"), last_move=moves[index], previous=state)
            state = state.play(seat, moves[index])
    return tuple(found)


def positions(every: int = 1) -> Iterator[tuple[MoleHillState, int, RenderContext]]:
    for index, (state, ctx) in enumerate(games()):
        if index % every == 0:
            (seat,) = state.to_act
            yield state.view(seat), seat, ctx


def offered(state: MoleHillState, seat: int, prefix: Prefix) -> tuple[str, ...]:
    return tuple(option.token for option in state.move_options(seat, prefix).options)


def prefixes(state: MoleHillState, seat: int) -> Iterator[tuple[Prefix, tuple[str, ...]]]:
    """Each prefix the builder reaches, with the tokens it offers there."""
    stack: list[Prefix] = [()]
    while stack:
        prefix = stack.pop()
        tokens = offered(state, seat, prefix)
        yield prefix, tokens
        stack.extend((*prefix, token) for token in tokens)


def spots_of(
    state: MoleHillState, seat: int, prefix: Prefix, tokens: tuple[str, ...], ctx: RenderContext
) -> tuple[Spot, ...]:
    assert RENDERER.spots is not None
    return RENDERER.spots(state, seat, prefix, tokens, ctx)


def overlaps(a: Spot, b: Spot) -> bool:
    return (
        a.box[0] < b.box[2] and b.box[0] < a.box[2] and a.box[1] < b.box[3] and b.box[1] < a.box[3]
    )


def lawn(square: str) -> tuple[int, int, int]:
    """The colour of a square's lawn: soil in the centre e4, else the lighter green where
    column and row are both odd or both even (a1 is the lighter)."""
    if square == "e4":
        return SOIL
    col, row = FILES.index(square[0]), int(square[1]) - 1
    return LAWN_EVEN if (col + row) % 2 == 0 else LAWN_ODD


def square_name(square: int) -> str:
    return f"{FILES[square % 9]}{square // 9 + 1}"


def test_the_games_cover_both_rounds_and_both_roles() -> None:
    seen = {(state.round_no, state.phase, bool(state.path)) for state, _ in games()}
    assert seen == {
        (r, p, bool(path)) for r in (1, 2) for p, path in (("m", 0), ("m", 1), ("g", 1))
    }
    assert any(state.can_jump and state.phase == "m" for state, _ in games())


def test_every_offered_place_has_one_spot_and_they_never_overlap() -> None:
    kinds: set[str] = set()
    for state, seat, ctx in positions():
        for prefix, tokens in prefixes(state, seat):
            found = spots_of(state, seat, prefix, tokens, ctx)
            # Every choice is a place: a square, or a side of one.
            assert sorted(spot.token for spot in found) == sorted(tokens), prefix
            for a, b in itertools.combinations(found, 2):
                assert not overlaps(a, b), (prefix, a, b)
            for spot in found:
                left, top, right, bottom = spot.box
                assert 0 <= left < right <= SIZE[0] and 0 <= top < bottom <= SIZE[1]
            kinds.update(
                "side" if token in SIDES else "pinned" if len(token) == 3 else "square"
                for token in tokens
            )
    assert kinds == {"side", "pinned", "square"}


def test_a_square_spot_is_its_cell_on_the_lawn() -> None:
    """A square's box holds its own lawn and none of the other green (so it sits on the
    cell, not a neighbour's), a red flower where the square has one, the mark of a
    square the mole may enter where it may, and never the mole itself."""
    for state, seat, ctx in positions(every=2):
        image = render(state, ctx)
        tokens = offered(state, seat, ())
        red = {square_name(s) for s in state.red}
        targets = {square_name(s) for s in state.mole_targets()} if state.path else set()
        for index, spot in enumerate(spots_of(state, seat, (), tokens, ctx)):
            if len(spot.token) != 2:
                continue  # a side of the mole's square
            if spot.token not in red | targets and index % 4:
                continue  # a sample of the plain squares, all the marked ones
            cell = image.crop(spot.box)
            own = lawn(spot.token)
            assert count_colour(cell, own, tolerance=0) > 500, spot
            for other in {LAWN_EVEN, LAWN_ODD, SOIL} - {own}:
                assert count_colour(cell, other, tolerance=0) == 0, (spot, other)
            assert (count_colour(cell, RED_FLOWER, tolerance=0) > 0) == (spot.token in red)
            if state.phase == "m" and state.path:
                assert count_colour(cell, TARGET, tolerance=0) > 100, spot
            assert count_colour(cell, MOLE, tolerance=0) == 0, spot


def test_a_side_spot_holds_the_rod_it_would_place() -> None:
    """The options picture of a chosen side draws its rod in blue: more of that blue is in
    the side's own spot than in the spot of any other side offered beside it. The sides of
    the mole's square (offered first, beside the squares) are on the mole's square."""
    sides = 0
    for state, seat, ctx in positions(every=5):
        if state.phase != "g":
            continue
        tokens = offered(state, seat, ())
        pinned = tuple(token for token in tokens if len(token) == 3)
        squares = [token for token in tokens if len(token) == 2]
        board = render(state, ctx)
        stages: list[tuple[Prefix, tuple[str, ...]]] = [((), pinned)]
        stages += [((s,), offered(state, seat, (s,))) for s in squares[sides % 7 :: 15]]
        for prefix, choices in stages:
            found = spots_of(state, seat, prefix, choices, ctx)
            for spot in found:
                picture = render_options(state, seat, (*prefix, spot.token), ctx)
                assert picture is not None and picture.size == SIZE
                blue = [count_colour(picture.crop(s.box), PROPOSED, tolerance=0) for s in found]
                mine = blue[found.index(spot)]
                assert mine >= 30 and mine == max(blue), (prefix, spot, blue)
                assert sum(b == mine for b in blue) == 1, (prefix, spot, blue)
                if prefix == ():
                    assert count_colour(board.crop(spot.box), MOLE, tolerance=0) > 0, spot
                sides += 1
    assert sides > 100


def test_boxes_at_known_places() -> None:
    """The lawn's corner squares, the centre, and the sides: a side of the mole's square is
    a band inside it (its neighbours are choices too); a side of a chosen square reaches
    as far beyond the edge as inside it. The four bands turn around the square."""
    state = GAME.from_text("1g c3 - e1,a4,i4,e7/b2,h2,b6,h6 -")
    assert isinstance(state, MoleHillState)
    ctx = RenderContext()
    squares = {s.token: s.box for s in spots_of(state, 1, (), ("a1", "i7", "e4"), ctx)}
    assert squares == {
        "a1": (34, 682, 110, 758),
        "i7": (642, 226, 718, 302),
        "e4": (338, 454, 414, 530),
    }
    x0, y0 = 34 + 2 * 76, 226 + 4 * 76  # c3
    pinned = {s.token: s.box for s in spots_of(state, 1, (), ("c3n", "c3e", "c3s", "c3w"), ctx)}
    assert pinned == {
        "c3n": (x0, y0, x0 + 51, y0 + 25),
        "c3e": (x0 + 51, y0, x0 + 76, y0 + 51),
        "c3s": (x0 + 25, y0 + 51, x0 + 76, y0 + 76),
        "c3w": (x0, y0 + 25, x0 + 25, y0 + 76),
    }
    x0 += 76  # d3
    sides = {s.token: s.box for s in spots_of(state, 1, ("d3",), ("n", "e", "s", "w"), ctx)}
    assert sides == {
        "n": (x0, y0 - 25, x0 + 51, y0 + 25),
        "e": (x0 + 51, y0, x0 + 101, y0 + 51),
        "s": (x0 + 25, y0 + 51, x0 + 76, y0 + 101),
        "w": (x0 - 25, y0 + 25, x0 + 25, y0 + 76),
    }


def test_the_panel_of_a_chosen_rod_is_its_picture_with_nothing_left_to_click() -> None:
    state = GAME.from_text("1g c3 - e1,a4,i4,e7/b2,h2,b6,h6 -")
    assert isinstance(state, MoleHillState)
    ctx = RenderContext()
    panel = RENDERER.panel(state, 1, ("d3", "n"), (), ctx)
    picture = Image.open(io.BytesIO(panel.png))
    assert picture.size == (panel.width, panel.height) == SIZE
    assert count_colour(picture, PROPOSED, tolerance=0) > 300
    assert panel.spots == ()
    tokens = offered(state, 1, ())
    panel = RENDERER.panel(state, 1, (), tokens, ctx)
    assert count_colour(Image.open(io.BytesIO(panel.png)), PROPOSED, tolerance=0) == 0
    assert [spot.token for spot in panel.spots] == list(tokens)
