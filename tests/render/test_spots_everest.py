"""Where Everest's builder choices are on the picture a seat chooses on: a plan's actions
on the squares they are aimed at, a roll-off's outcomes on their rows, a `flee` on its
roarer. Through the positions of seeded games, each box is checked against the picture:
the yeti are found by their colours, a move's square is where the next picture of the
plan shows the yeti, a roar's is next to it, a snowball's holds the yeti it hits."""

from __future__ import annotations

import io
import itertools
import random
from functools import cache, lru_cache

from PIL import Image, ImageChops

from engine import registry
from engine.everest import EverestState, Stage
from render.core import DEFAULT_THEME, RenderContext, Spot
from render.everest import (
    LEVELS,
    RENDERER,
    render,
    render_options,
    render_outcome_thumbnail,
    spots,
)

GAME = registry.get("everest")
CTX = RenderContext(names=("Ann", "Bob", "Cy", "Di"))
#: The main board's squares: their size and the top-left corner of a6.
CELL, LEFT, TOP = 86, 36, 88
SEATS = DEFAULT_THEME.seats
SNOW = frozenset(LEVELS.values())
#: One step toward N, E, S, W, in the picture's columns and rows (row 0 at the top).
STEPS = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
SEEDS = range(6)
PLIES = 90

Square = tuple[int, int]
Case = tuple[EverestState, int, tuple[str, ...], tuple[str, ...]]


def state_of(text: str) -> EverestState:
    state = GAME.from_text(text)
    assert isinstance(state, EverestState)
    return state


@lru_cache(maxsize=1)
def games() -> tuple[EverestState, ...]:
    """The positions of seeded games of two to four yeti, played at random."""
    found = []
    for seed in SEEDS:
        state = GAME.new_state(seed, 2 + seed % 3, None)
        assert isinstance(state, EverestState)
        rng = random.Random(seed)
        for _ in range(PLIES):
            if state.is_over:
                break
            found.append(state)
            seat = min(state.to_act)
            moves = state.legal_moves(seat)
            state = state.play(seat, moves[rng.randrange(len(moves))])
    return tuple(found)


def offered(state: EverestState, seat: int, prefix: tuple[str, ...]) -> tuple[str, ...]:
    options = state.move_options(seat, prefix)
    return tuple(o.token for o in (*options.options, *options.browse))


@lru_cache(maxsize=1)
def plan_cases() -> tuple[Case, ...]:
    """Plans being built in the games' planning positions, by every seat still planning:
    the first action, and a second and third after random ones."""
    cases = []
    rng = random.Random(1)
    for state in games()[::10]:
        if state.stage is not Stage.PLAN:
            continue
        for seat in sorted(state.to_act):
            view = state.view(seat)
            prefix: tuple[str, ...] = ()
            while tokens := offered(view, seat, prefix):
                cases.append((view, seat, prefix, tokens))
                prefix = (*prefix, rng.choice(tokens))
    return tuple(cases)


@lru_cache(maxsize=1)
def other_cases() -> tuple[Case, ...]:
    """The games' roll-offs (the outcomes, then each outcome on its own), end-of-round
    choices and the seats that have nothing to choose."""
    cases: list[Case] = []
    for i, state in enumerate(games()):
        if state.stage is Stage.PLAN:
            if i % 10:
                continue
            planned = [s for s in range(state.players) if s not in state.to_act]
            cases.extend((state.view(s), s, (), offered(state.view(s), s, ())) for s in planned)
            continue
        for seat in sorted(state.to_act):
            view = state.view(seat)
            tokens = offered(view, seat, ())
            cases.append((view, seat, (), tokens))
            if state.stage is Stage.PICK:
                cases.extend((view, seat, (t,), offered(view, seat, (t,))) for t in tokens)
    return tuple(cases)


def found(case: Case) -> tuple[Spot, ...]:
    state, seat, prefix, tokens = case
    return spots(state, seat, prefix, tokens, CTX)


@cache
def picture(case: Case) -> Image.Image:
    """The picture the seat chooses on, as the panel sends it."""
    state, seat, prefix, tokens = case
    panel = RENDERER.panel(state, seat, prefix, tokens, CTX)
    assert panel.spots == found(case), "a spot outside the picture or not offered"
    return Image.open(io.BytesIO(panel.png)).convert("RGB")


def square_box(square: Square) -> tuple[int, int, int, int]:
    col, row = square
    return LEFT + col * CELL, TOP + row * CELL, LEFT + (col + 1) * CELL, TOP + (row + 1) * CELL


def square_of(box: tuple[int, int, int, int]) -> Square:
    """The board square `box` is exactly."""
    col, row = (box[0] - LEFT) // CELL, (box[1] - TOP) // CELL
    assert box == square_box((col, row)), box
    return col, row


def yeti_at(image: Image.Image, colour: tuple[int, int, int]) -> Square | None:
    """The square of the yeti disc of `colour`: the only square whose disc points, 20 px
    from the centre each way, are (three of four: a number may sit on one) that colour."""
    hits = []
    pixels = image.load()
    assert pixels is not None
    for col, row in itertools.product(range(8), range(6)):
        x, y = LEFT + col * CELL + CELL // 2, TOP + row * CELL + CELL // 2
        points = ((x - 20, y), (x + 20, y), (x, y - 20), (x, y + 20))
        if sum(pixels[p] == colour for p in points) >= 3:
            hits.append((col, row))
    assert len(hits) <= 1, hits
    return hits[0] if hits else None


def dominant(image: Image.Image, box: tuple[int, int, int, int]) -> tuple[int, ...]:
    colours = image.crop(box).getcolors(maxcolors=1 << 16)
    assert colours is not None
    colour = max(colours)[1]
    assert isinstance(colour, tuple)
    return colour


def on_ray(start: Square, end: Square, way: str) -> int:
    """How many squares `end` is from `start` toward `way`; 0 when it is not that way."""
    dx, dy = STEPS[way]
    for k in range(1, 9):
        if (start[0] + k * dx, start[1] + k * dy) == end:
            return k
    return 0


def points(token: str) -> int:
    return "0A2345".index(token[0])


def test_the_games_reach_every_kind_of_choice() -> None:
    stages = {case[0].stage for case in other_cases() if case[3]}
    assert {Stage.PICK, Stage.END} <= stages
    assert len(plan_cases()) > 100
    assert any(len(case[2]) == 2 for case in plan_cases())


def test_spots_are_offered_tokens_inside_the_picture_and_apart() -> None:
    for case in (*plan_cases(), *other_cases()):
        state, _, prefix, tokens = case
        boxes = found(case)
        names = [spot.token for spot in boxes]
        assert len(names) == len(set(names)) and set(names) <= set(tokens), (prefix, names)
        for a, b in itertools.combinations(boxes, 2):
            apart = (
                a.box[2] <= b.box[0]
                or b.box[2] <= a.box[0]
                or a.box[3] <= b.box[1]
                or b.box[3] <= a.box[1]
            )
            assert apart, (state.to_text(), prefix, a, b)
    for case in (*plan_cases()[::5], *other_cases()):
        # The panel draws the picture and drops any spot outside it or not offered.
        picture(case)


def test_plan_actions_are_on_the_squares_they_are_aimed_at() -> None:
    moves = roars = snowballs = 0
    for case in plan_cases():
        state, seat, prefix, _ = case
        image = picture(case)
        colour = SEATS[seat]
        yeti = yeti_at(image, colour)
        boxes = found(case)
        if yeti is None:
            # Off the board: the rest of the round is lost, nothing is aimed anywhere.
            assert not boxes
            continue
        others = {yeti_at(image, SEATS[s]) for s in range(state.players) if s != seat}
        for spot in boxes:
            square = square_of(spot.box)
            assert dominant(image, spot.box) in SNOW, spot
            away = on_ray(yeti, square, spot.token[-1])
            assert away, (prefix, spot, yeti)
            if spot.token[0] == "s":
                assert square in others, (prefix, spot)
                snowballs += 1
            elif spot.token[0] == "0":
                assert away == 1, (prefix, spot)
                roars += 1
            else:
                assert away <= points(spot.token), (prefix, spot)
                moves += 1
    assert moves > 300 and roars > 20 and snowballs > 0, (moves, roars, snowballs)


def test_every_square_a_move_reaches_has_the_smallest_move_there() -> None:
    """A move whose next picture shows the yeti on another square of the board: that
    square is a spot, of a move of at most as many points (the same square, more points,
    is the same move); a move that leaves the yeti where it is, or takes it off the board,
    has none."""
    for case in plan_cases()[::3]:
        state, seat, prefix, tokens = case
        image = picture(case)
        yeti = yeti_at(image, SEATS[seat])
        if yeti is None:
            continue
        by_box = {spot.box: spot.token for spot in found(case)}
        mine = {spot.token for spot in found(case)}
        for token in tokens:
            if token[0] in "0s":
                continue
            after = render_options(state, seat, (*prefix, token), CTX)
            assert after is not None
            end = yeti_at(after.convert("RGB"), SEATS[seat])
            if end is None or end == yeti:
                assert token not in mine, (prefix, token)
                continue
            there = by_box.get(square_box(end))
            assert there is not None and there[0] not in "0s", (prefix, token, end)
            assert points(there) <= points(token), (prefix, token, there)
            if there == token:
                continue
            assert token not in mine


def test_a_roar_gets_the_next_square_when_no_move_ends_there() -> None:
    checked = 0
    for case in plan_cases():
        _, seat, prefix, tokens = case
        image = picture(case)
        yeti = yeti_at(image, SEATS[seat])
        if yeti is None:
            continue
        by_box = {spot.box: spot.token for spot in found(case)}
        for way, (dx, dy) in STEPS.items():
            token = f"0{way}"
            col, row = yeti[0] + dx, yeti[1] + dy
            if token not in tokens or not (0 <= col < 8 and 0 <= row < 6):
                continue
            box = square_box((col, row))
            if dominant(image, box) not in SNOW:
                continue  # a notch: no square
            there = by_box.get(box)
            if there is None or there[0] in "0s":
                assert there == token, (prefix, way, there)
                checked += 1
    assert checked > 20


def test_known_plans() -> None:
    """Red on a1, Blue on h1, all of row 1 flat: the moves east end one square further
    each; the snowball east flies along the row to Blue; the roars go to the moves."""
    state = state_of(
        "everest n=2 cap=30 round=1 stage=plan step=1 pos=a1,h1 aside=-,- dmg=0,0 "
        "peak=- plans=-,- result=- rng=0:0"
    )
    tokens = offered(state, 0, ())
    boxes = {spot.token: square_of(spot.box) for spot in spots(state, 0, (), tokens, CTX)}
    row1, row2 = 5, 4  # rows of the picture, from the top
    assert boxes == {
        "AN": (0, row2),
        "AE": (1, row1),
        "2E": (2, row1),
        "3E": (3, row1),
        "4E": (4, row1),
        "5E": (5, row1),
        "sE": (7, row1),
    }
    # From f1 the ace reaches g1, and 3 east pushes Blue off the board to stand on h1,
    # where the snowball east is aimed too.
    tokens = offered(state, 0, ("5E",))
    after = {spot.token: square_of(spot.box) for spot in spots(state, 0, ("5E",), tokens, CTX)}
    assert after["AE"] == (6, row1) and after["3E"] == (7, row1) and "sE" in tokens
    assert "2E" not in after and "sE" not in after


def test_a_cliff_between_goes_to_the_roar_before_the_snowball() -> None:
    """Red on d2 below a cliff, Blue on d3 above it: no move climbs there; the roar and a
    snowball are both aimed at Blue, and the square is the roar's."""
    state = state_of(
        "everest n=2 cap=30 round=1 stage=plan step=1 pos=d2,d3 aside=-,- dmg=0,0 "
        "peak=1 plans=-,- result=- rng=0:0"
    )
    tokens = offered(state, 0, ())
    boxes = {spot.token: square_of(spot.box) for spot in spots(state, 0, (), tokens, CTX)}
    assert boxes["0N"] == (3, 3)
    assert "sN" not in boxes and not any(t.endswith("N") for t in boxes if t != "0N")


def test_a_push_goes_to_the_move_that_pushes() -> None:
    """Red on c1, Blue on d1: the ace cannot push (it costs 2), 2 east pushes Blue to e1
    and ends on d1, where the roar and the snowball east are aimed too."""
    state = state_of(
        "everest n=2 cap=30 round=1 stage=plan step=1 pos=c1,d1 aside=-,- dmg=0,0 "
        "peak=- plans=-,- result=- rng=0:0"
    )
    tokens = offered(state, 0, ())
    boxes = {spot.token: square_of(spot.box) for spot in spots(state, 0, (), tokens, CTX)}
    assert boxes["2E"] == (3, 5)
    assert not {"AE", "0E", "sE", "3E"} & set(boxes)


def test_roll_off_outcomes_are_their_rows() -> None:
    checked = 0
    for case in other_cases():
        state, seat, prefix, _ = case
        if state.stage is not Stage.PICK or seat not in state.to_act:
            continue
        boxes = found(case)
        if prefix:
            # One outcome at the board's size: its neighbours are only browsed to.
            assert not boxes
            continue
        image = picture(case)
        options = state.pick_options()
        assert [spot.token for spot in boxes] == [f"pick {o.number}" for o in options]
        for above, below in itertools.pairwise(boxes):
            assert above.box[3] <= below.box[1]
        for spot, option in zip(boxes, options, strict=True):
            thumb = render_outcome_thumbnail(option.preview, CTX).convert("RGB")
            left, top = spot.box[:2]
            shown = image.crop((left, top, left + thumb.width, top + thumb.height))
            assert ImageChops.difference(shown, thumb).getbbox() is None, spot
            assert spot.box[2] - spot.box[0] > thumb.width
            assert spot.box[3] - spot.box[1] == thumb.height
            checked += 1
    assert checked >= 4


def test_end_of_round_choices_and_waiting_seats_have_no_spots() -> None:
    checked = 0
    for case in other_cases():
        state, seat, _, _ = case
        if state.stage is Stage.END or seat not in state.to_act:
            assert not found(case)
            checked += 1
    assert checked > 20


#: Bob, roared at from both sides, chooses whom to run from.
ROARED_AT = state_of(
    "everest n=3 cap=30 round=2 stage=flee step=1 pos=b5,c5,d5 aside=-,-,- dmg=0,0,0 peak=- "
    "plans=0E+2N+3S,2S+3E+4W,0W+2E+3S choice=-,3EW,- result=- rng=0:1 "
    "ev=reveal,step.1,roar.0.b5.E,roar.2.d5.W,roll.1.3"
)


def test_flee_is_the_square_of_its_roarer() -> None:
    seat = 1
    view = ROARED_AT.view(seat)
    tokens = offered(view, seat, ())
    case = (view, seat, (), tokens)
    image = picture(case)
    yeti = yeti_at(image, SEATS[seat])
    assert yeti is not None
    boxes = {spot.token: square_of(spot.box) for spot in found(case)}
    assert set(boxes) == {"flee E", "flee W"} == set(tokens)
    for token, square in boxes.items():
        assert on_ray(yeti, square, token[-1]) == 1
    assert yeti_at(image, SEATS[2]) == boxes["flee E"]
    assert yeti_at(image, SEATS[0]) == boxes["flee W"]
    assert not spots(view, seat, ("flee E",), (), CTX)
    assert render(view, CTX).size == image.size
