"""Everest images: the board, the steps of a resolution and the roll-off winner's outcomes:
size, pixel probes at known squares, the reconstruction of positions, golden PNGs."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from engine import registry
from engine.everest import OFF, SQUARE_BY_NAME, EverestState, Picked
from engine.rng import Rng
from render.core import DEFAULT_THEME, RenderContext
from render.everest import (
    BOARD,
    CHOICE_BOARD_BOTTOM,
    LEVELS,
    LOG_FONT,
    LOG_LINE,
    PANEL_TOP,
    PEAK_GOLD,
    READABLE,
    STEP,
    STEP_EDGE,
    _seat_info,
    positions_after,
    positions_before,
    render,
    render_options,
    render_outcome_thumbnail,
    render_steps,
    spots,
    step_scenes,
)
from tests.render.support import (
    Colour,
    assert_matches_golden,
    assert_renders_in_palette_at,
    assert_small_deterministic_png,
    near,
    options_png,
    pixel,
    render_png,
    step_pngs,
)

GAME = registry.get("everest")
CELL, LEFT, TOP = 86, 36, 88
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


def scenes() -> dict[str, tuple[EverestState, RenderContext]]:
    start = GAME.new_state(3, 4, None)
    assert isinstance(start, EverestState)
    return {
        "start": (start, RenderContext(names=NAMES)),
        "conflict": (CONFLICT, RenderContext(names=NAMES[:2])),
        "action": (ACTION, RenderContext(names=NAMES)),
    }


def test_size_and_mode() -> None:
    colours = (*LEVELS.values(), *DEFAULT_THEME.seats, (30, 30, 40), (220, 40, 40))
    four = [scenes()["start"], scenes()["action"]]
    # A card per player under the board: the image grows with the players.
    assert_renders_in_palette_at(render, four, (760, 958), colours)
    assert_renders_in_palette_at(render, [scenes()["conflict"]], (760, 802), colours)


def test_png_is_small_and_deterministic() -> None:
    assert_small_deterministic_png(*scenes()["action"], (760, 958))


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
    assert_matches_golden(render(state, ctx), f"everest_{name}")


# --- the steps of a resolution ----------------------------------------------------------

STEP_CELL, STEP_LEFT, STEP_TOP = 66, 30, 46
STEP_CHIPS_TOP, CHIP_H = STEP_TOP + 6 * STEP_CELL + 24, 30

# Di's plan completes round 3. Step 1: Cy roars north, Ann climbs b2→b5, Di is blocked,
# Bob's ball flies off. Step 2: Cy runs from Ann's roar to g5, splats a ball against f5
# and is knocked onto g6 by Di's ball. Step 3: Ann walks on to e5, Bob falls to f1.
PLANNING = state_of(
    "everest n=4 cap=30 round=3 stage=plan step=1 pos=b2,f4,c5,g3 aside=-,-,-,- dmg=0,0,0,0 "
    "peak=- plans=3N+0E+4E,sAS+0E+3S,0N+sAW+s2E,- result=- rng=9:0"
)
ROUND = PLANNING.play(3, PLANNING.parse_move(3, "2W s0N AW"))
ROUND_CTX = RenderContext(names=NAMES, previous=PLANNING)

# Step 2 of round 4 ends in a roll-off that Di (seat 3) wins with a 5.
BEFORE_ROLL_OFF = state_of(
    "everest n=4 cap=30 round=4 stage=plan step=1 pos=a2,e5,h2,a5 aside=-,-,2,- "
    "dmg=0,0,0,0 peak=- plans=5W+3E+AW,-,5N+s0E+3W,2E+AN+s0W result=- rng=0:0"
)
ROLL_OFF = BEFORE_ROLL_OFF.play(1, BEFORE_ROLL_OFF.parse_move(1, "s0N 4W sAE"))
PICKED = ROLL_OFF.play(3, ROLL_OFF.parse_move(3, "pick 1"))

# Ann and Di tie on 5; the re-roll gives Ann a 5 and Di an ace: Ann picks among 5 outcomes.
TIED = state_of(
    "everest n=4 cap=30 round=2 stage=pick step=1 pos=f6,d5,f4,f5 aside=-,-,-,- dmg=0,0,0,0 "
    "peak=- plans=4N+2E+3W,2S+s0W+sAE,5N+4N+s0S,s0W+5N+AN pick=act:0 result=- rng=3:6 "
    "ev=reveal,step.1,dice.5.3.0.5,dice.5.-.-.1"
)

# Bob, roared at from both sides, must choose whom to run from.
ROARED_AT = state_of(
    "everest n=3 cap=30 round=2 stage=flee step=1 pos=b5,c5,d5 aside=-,-,- dmg=0,0,0 peak=- "
    "plans=0E+2N+3S,2S+3E+4W,0W+2E+3S choice=-,3EW,- result=- rng=0:1 "
    "ev=reveal,step.1,roar.0.b5.E,roar.2.d5.W,roll.1.3"
)
FLED = ROARED_AT.play(1, ROARED_AT.parse_move(1, "flee E"))


def sq(name: str) -> int:
    return SQUARE_BY_NAME[name]


def step_centre(name: str) -> tuple[int, int]:
    col, row = "abcdefgh".index(name[0]), int(name[1])
    return (
        STEP_LEFT + col * STEP_CELL + STEP_CELL // 2,
        STEP_TOP + (6 - row) * STEP_CELL + STEP_CELL // 2,
    )


def white_in_chips(image: Image.Image) -> int:
    """Pure white pixels in the chip row: only dice faces are white there."""
    band = image.convert("RGB").crop((0, STEP_CHIPS_TOP, image.size[0], STEP_CHIPS_TOP + CHIP_H))
    colours = band.getcolors(band.size[0] * band.size[1]) or []
    return sum(count for count, colour in colours if colour == (255, 255, 255))


def test_positions_follow_moves_offs_and_returns_home() -> None:
    # After a pick in step 2 of round 11: Bob, Cy and Di walk off the edge, Ann ends step 3
    # on Cy's home h2, and at the end of the round she is bumped to h1 as Cy returns.
    state = state_of(
        "everest n=4 cap=30 round=12 stage=plan step=1 pos=h1,h5,h2,a5 aside=-,4,2,- "
        "dmg=0,0,0,0 peak=- plans=-,-,-,- result=- rng=0:22 ev=pick.2.1,move.1.g5.g6.N,"
        "off.1.g6.N,move.2.h2.h1.S,off.2.h1.S,move.3.a5.a6.N,off.3.a6.N,snow.0.e2.h2.E.2,"
        "step.3,move.0.e2.h2.E,home.1.off.h5,bump.0.h2.h1,home.2.off.h2,home.3.off.a5,"
        "round.12"
    )
    events = state.events
    start = (sq("e2"), sq("g5"), sq("h2"), sq("a5"))
    assert positions_after(start, events[:2]) == (sq("e2"), sq("g6"), sq("h2"), sq("a5"))
    assert positions_after(start, events[:8]) == (sq("e2"), OFF, OFF, OFF)
    assert positions_after(start, events[:10]) == (sq("h2"), OFF, OFF, OFF)
    assert positions_after(start, events[:12]) == (sq("h1"), sq("h5"), OFF, OFF)
    assert positions_after(start, events) == state.pos
    assert positions_before(state.pos, events) == start
    assert positions_before(state.pos, events[10:]) == (sq("h2"), OFF, OFF, OFF)


def test_reconstruction_matches_the_engine_over_random_games() -> None:
    resolutions = continued = 0
    for seed in range(8):
        for players in (2, 3, 4):
            state = GAME.new_state(seed, players, None)
            assert isinstance(state, EverestState)
            rng = Rng(seed * 7 + players)
            for _ in range(60):
                if not state.to_act:
                    break
                seat, rng = rng.choice(sorted(state.to_act))
                move, rng = rng.choice(state.legal_moves(seat))
                previous, state = state, state.play(seat, move)
                scenes = step_scenes(state, previous)
                if state.events == previous.events:
                    assert scenes == ()
                    continue
                resolutions += 1
                assert positions_after(previous.pos, state.events) == state.pos
                assert positions_before(state.pos, state.events) == previous.pos
                assert step_scenes(state, None) == scenes
                if previous.stage in ("pick", "flee"):
                    continued += 1
                    assert (scenes[0].round, scenes[0].step) == (previous.round, previous.step + 1)
    assert resolutions > 200 and continued > 5


def test_scenes_of_a_round() -> None:
    scenes = step_scenes(ROUND, PLANNING)
    assert [(s.round, s.step) for s in scenes] == [(3, 1), (3, 2), (3, 3)]
    ann, bob, cy, di = zip(*(s.pos for s in scenes), strict=True)
    assert ann == (sq("b5"), sq("b5"), sq("e5"))
    assert bob == (sq("f4"), sq("f4"), sq("f1"))
    assert cy == (sq("c5"), sq("g6"), sq("g6"))
    assert di == (sq("g3"),) * 3
    assert [e.kind for e in scenes[1].events].count("hit") == 1
    assert all(e.kind not in ("step", "reveal") for s in scenes for e in s.events)
    assert step_scenes(ROUND, None) == scenes


def test_scenes_carried_on_after_a_pick_and_a_flee_choice() -> None:
    assert [(s.round, s.step) for s in step_scenes(ROLL_OFF, BEFORE_ROLL_OFF)] == [(4, 1), (4, 2)]
    picked = step_scenes(PICKED, ROLL_OFF)
    assert [(s.round, s.step) for s in picked] == [(4, 2), (4, 3)]
    assert picked[0].events[0] == Picked(3, 1)
    # The end of the round is no step: the yeti off the board are still off after step 3.
    assert picked[1].pos[0] == OFF and PICKED.pos[0] == sq("a2")
    fled = step_scenes(FLED, ROARED_AT)
    assert [(s.round, s.step) for s in fled] == [(2, 1), (2, 2), (2, 3)]
    assert fled[0].pos[1] == sq("b3")


def test_nothing_resolved_gives_no_step_images() -> None:
    waiting = state_of(
        "everest n=4 cap=30 round=3 stage=plan step=1 pos=b2,f4,c5,g3 aside=-,-,-,- "
        "dmg=0,0,0,0 peak=- plans=3N+0E+4E,-,0N+sAW+s2E,- result=- rng=9:0 ev=round.3"
    )
    planned = waiting.play(3, waiting.parse_move(3, "2W s0N AW"))
    assert planned.events == waiting.events
    ctx = RenderContext(names=NAMES, previous=waiting)
    assert render_steps(planned, ctx) == []
    assert step_pngs(planned, ctx) == []
    start = GAME.new_state(3, 4, None)
    assert isinstance(start, EverestState) and start.events
    assert render_steps(start, RenderContext(names=NAMES)) == []
    assert render_steps(PLANNING, RenderContext(names=NAMES)) == []


def pictures(state: EverestState, ctx: RenderContext) -> list[Image.Image]:
    return [step.picture for step in render_steps(state, ctx)]


def test_one_step_image_per_step() -> None:
    steps = render_steps(ROUND, ROUND_CTX)
    assert [step.caption for step in steps] == [f"Round 3 · step {n}" for n in (1, 2, 3)]
    images = [step.picture for step in steps]
    assert len(images) == 3
    for image in images:
        assert image.mode == "P" and 560 <= image.size[0] <= 640
        assert image.size[1] < 800
    assert len(render_steps(PICKED, RenderContext(names=NAMES, previous=ROLL_OFF))) == 2
    pngs = step_pngs(ROUND, ROUND_CTX)
    assert len(pngs) == 3 and all(len(p) < 40_000 for p in pngs)
    assert Image.open(io.BytesIO(pngs[0])).size == images[0].size


def test_step_images_show_the_yeti_at_the_end_of_each_step() -> None:
    first, second, third = pictures(ROUND, ROUND_CTX)
    red, green = DEFAULT_THEME.seats[0], DEFAULT_THEME.seats[2]

    def probe(image: Image.Image, name: str) -> tuple[int, ...]:
        x, y = step_centre(name)
        return pixel(image, (x - 12, y + 10))  # inside a yeti disc, clear of its letter

    assert near(probe(first, "b5"), red)
    assert near(probe(third, "b5"), LEVELS[2])  # Ann has walked on ...
    assert near(probe(third, "e5"), red)  # ... to e5
    assert near(probe(first, "c5"), green) and near(probe(second, "g6"), green)
    assert near(probe(second, "c5"), LEVELS[3])
    # The step's arrows: Ann's move crosses c5 in step 3 and not in step 1.
    x, y = step_centre("c5")
    assert near(pixel(third, (x, y)), red, 30)
    assert not near(pixel(first, (x, y)), red, 30)
    # Bob's fall onto f1 is framed in red in step 3 only.
    x, y = step_centre("f1")
    frame = (x - int(STEP_CELL * 0.46) + 1, y)
    assert near(pixel(third, frame), (220, 40, 40), 30)
    assert not near(pixel(second, frame), (220, 40, 40), 30)


def test_roll_off_dice_are_shown_on_the_step_with_the_roll_off() -> None:
    before, rolled = pictures(ROLL_OFF, RenderContext(names=NAMES, previous=BEFORE_ROLL_OFF))
    assert white_in_chips(rolled) > 100
    assert white_in_chips(before) == 0
    # Di won: her chip has the thick frame, Ann's a thin one.
    chip_w = (rolled.size[0] - 32 - 24) // 4
    for seat, framed in ((3, True), (0, False)):
        x = 16 + seat * (chip_w + 8) + chip_w // 2
        edge = pixel(rolled, (x, STEP_CHIPS_TOP + 2))
        assert near(edge, DEFAULT_THEME.seats[seat], 20) == framed


def test_outcome_choice_for_the_roll_off_winner_only() -> None:
    ctx = RenderContext(names=NAMES)
    assert render_options(TIED, 1, (), ctx) is None
    assert render_options(TIED, 0, ("pick", "9"), ctx) is None  # no such outcome
    assert render_options(ROUND, 0, (), ctx) is None
    assert options_png(TIED, 2, (), ctx) is None
    data = options_png(TIED, 0, (), ctx)
    assert data is not None and len(data) < 60_000


@pytest.mark.parametrize("state", [TIED, ROLL_OFF])
def test_outcome_choice_shows_each_outcome_in_pick_order(state: EverestState) -> None:
    ctx = RenderContext(names=NAMES)
    assert state.picker is not None
    image = render_options(state, state.picker, (), ctx)
    assert image is not None and image.mode == "P"
    options = state.pick_options()
    assert image.size[0] == 760
    # One row per outcome under two rows of player chips: its board, its words beside it.
    rows_top = 56 + 2 * (44 + 8) + 8
    for i, option in enumerate(options):
        x, y = 12, rows_top + i * (184 + 12)
        tile = image.crop((x, y, x + 240, y + 184))
        expected = render_outcome_thumbnail(option.preview, ctx)
        assert ImageChops.difference(tile, expected).getbbox() is None, option.label


def test_steps_and_outcomes_share_the_boards_palette() -> None:
    ctx = RenderContext(names=NAMES)
    board = Image.open(io.BytesIO(render_png(TIED, ctx)))
    choice = options_png(TIED, 0, (), ctx)
    assert choice is not None
    for png in (choice, *step_pngs(ROUND, ROUND_CTX)):
        image = Image.open(io.BytesIO(png))
        assert image.mode == board.mode == "P"
        assert image.getpalette() == board.getpalette()


@pytest.mark.parametrize("step", [1, 2, 3])
def test_golden_steps(step: int) -> None:
    assert_matches_golden(pictures(ROUND, ROUND_CTX)[step - 1], f"everest_step{step}")


def test_golden_roll_off_step() -> None:
    (image,) = pictures(TIED, RenderContext(names=NAMES))
    assert_matches_golden(image, "everest_step_rolloff")


def test_golden_pick() -> None:
    image = render_options(TIED, 0, (), RenderContext(names=NAMES))
    assert image is not None
    assert_matches_golden(image, "everest_pick")


def test_heights_are_legible_at_the_size_discord_shows_a_board() -> None:
    start = registry.get("everest").new_state(1, 2, None)
    assert isinstance(start, EverestState)
    image = render(start, RenderContext(names=("Ann", "Bob")))
    x0, y0, x1, y1 = BOARD.box(SQUARE_BY_NAME["d4"])  # a 5 of the peak, no yeti on it
    digit = [
        (x, y)
        for x in range(x0, (x0 + x1) // 2)
        for y in range(y0, (y0 + y1) // 2)
        if near(pixel(image, (x, y)), STEP_EDGE, 40)
    ]
    height = max(y for _, y in digit) - min(y for _, y in digit) + 1
    # Discord shows the board about 550 px wide: the digit must stay about 12 px tall there.
    assert height * 550 / image.width >= 12, height


# --- choices at the board's size: a plan being built, one roll-off outcome --------------

START = state_of(
    "everest n=2 cap=30 round=2 stage=plan step=1 pos=a2,h5 aside=-,- dmg=0,0 peak=- "
    "plans=-,- result=- rng=0:0"
)
RED, BLUE = DEFAULT_THEME.seats[0], DEFAULT_THEME.seats[1]


def frame_probe(name: str) -> tuple[int, int]:
    """A point on the frame drawn just inside a square's edge, clear of a yeti disc."""
    x0, y0, _, _ = BOARD.box(SQUARE_BY_NAME[name])
    return x0 + 4, y0 + 14


def test_a_plan_being_built_is_drawn_as_its_path() -> None:
    ctx = RenderContext(names=NAMES[:2], viewer=0)
    assert render_options(START.view(0), 0, (), ctx) is None  # nothing planned yet
    image = render_options(START.view(0), 0, ("4E", "2N", "sW"), ctx)
    assert image is not None and image.mode == "P" and image.width == 760
    # The yeti ends on c3 (framed in its colour: at its lower right, clear of action 3's
    # number), with the start a2 left empty (a ring).
    x1, y1 = BOARD.box(SQUARE_BY_NAME["c3"])[2:]
    assert near(pixel(image, (x1 - 4, y1 - 14)), RED, 20)
    assert not near(pixel(image, frame_probe("c2")), RED, 20)
    assert near(pixel(image, centre("c3")), RED, 20)
    x, y = centre("a2")
    assert not near(pixel(image, (x, y + 12)), RED, 20)  # no disc left there
    assert near(pixel(image, (x, round(y - BOARD.cell * 0.3) + 1)), RED, 30)  # a ring
    # Action 1's number sits on its arrow, half way from a2 to c2 (b2's centre).
    assert near(pixel(image, (centre("b2")[0] - 6, centre("b2")[1] - 6)), RED, 20)
    # The snowball flies west from c3 along row 3.
    x, y = centre("b3")
    assert any(near(pixel(image, (x + dx, y)), (40, 150, 220), 30) for dx in range(-8, 9))


def test_a_plan_off_the_board_frames_no_square_and_says_so() -> None:
    ctx = RenderContext(names=NAMES[:2], viewer=0)
    image = render_options(START.view(0), 0, ("AW",), ctx)
    assert image is not None
    assert not any(near(pixel(image, frame_probe(name)), RED, 20) for name in SQUARE_BY_NAME)
    x, y = centre("a2")
    assert not near(pixel(image, (x, y + 12)), RED, 20)  # the yeti has left the board


def test_the_plan_preview_words_are_legible_at_discord_size() -> None:
    image = render_options(START.view(0), 0, ("4E",), RenderContext(names=NAMES[:2]))
    assert image is not None
    rows = [
        y
        for y in range(CHOICE_BOARD_BOTTOM, image.height)
        if any(near(pixel(image, (x, y)), DEFAULT_THEME.ink, 40) for x in range(20, 400))
    ]
    first_line = [y for y in rows if y < CHOICE_BOARD_BOTTOM + 32]
    tall = max(first_line) - min(first_line) + 1
    # As the board's heights: digits about 12 px tall where Discord shows 550 px.
    assert tall * 550 / image.width >= 12, tall


@pytest.mark.parametrize(("number", "moved"), [(1, ("b1", "c1")), (2, ("c1", "d1"))])
def test_one_roll_off_outcome_at_the_boards_size(number: int, moved: tuple[str, str]) -> None:
    ctx = RenderContext(names=NAMES[:2])
    image = render_options(CONFLICT, 1, ("pick", str(number)), ctx)
    assert image is not None and image.width == 760
    red, blue = moved
    # Under the yeti's initial, inside its disc.
    (rx, ry), (bx, by) = centre(red), centre(blue)
    assert near(pixel(image, (rx, ry + 16)), RED, 20) and near(
        pixel(image, (bx, by + 16)), BLUE, 20
    )
    # What changed is framed; where the yeti stood, a ring in its colour.
    assert near(pixel(image, frame_probe(red)), PEAK_GOLD, 20)
    assert near(pixel(image, frame_probe(blue)), PEAK_GOLD, 20)
    assert not near(pixel(image, frame_probe("h1")), PEAK_GOLD, 20)
    x, y = centre("a1")
    assert near(pixel(image, (x, round(y - BOARD.cell * 0.3) + 1)), RED, 30)
    other = render_options(CONFLICT, 1, ("pick", str(3 - number)), ctx)
    assert (
        other is not None
        and ImageChops.difference(image.convert("RGB"), other.convert("RGB")).getbbox()
    )


def test_golden_plan_preview() -> None:
    image = render_options(START.view(0), 0, ("0E", "5E", "sN"), RenderContext(names=NAMES[:2]))
    assert image is not None
    assert_matches_golden(image, "everest_plan_preview")


def test_golden_one_outcome() -> None:
    image = render_options(TIED, 0, ("pick", "2"), RenderContext(names=NAMES))
    assert image is not None
    assert_matches_golden(image, "everest_outcome")


# --- at a phone's width ------------------------------------------------------------------

#: Discord shows a picture about 360 px wide on a phone; words must be 12 px high there.
PHONE = 360


def test_words_coins_and_names_are_written_12_px_high_at_a_phones_width() -> None:
    board = render(ACTION, RenderContext(names=NAMES))
    choices = render_options(TIED, 0, (), RenderContext(names=NAMES))
    step = pictures(ROUND, ROUND_CTX)[1]
    assert choices is not None
    # The board's cards and coins, and the roll-off's names and outcomes, are written in
    # READABLE; a step's log in LOG_FONT; the files and ranks, damage and a plan's numbers
    # in the board's `readable` size.
    assert READABLE * PHONE / board.width >= 12
    assert READABLE * PHONE / choices.width >= 12
    assert LOG_FONT * PHONE / step.width >= 12
    assert BOARD.readable * PHONE / board.width >= 12
    assert STEP.readable * PHONE / step.width >= 12


def test_a_coins_digit_is_tall_enough_at_a_phones_width() -> None:
    """A pixel probe: the ink of coin "2" on Ann's card, measured in the image."""
    image = render(ACTION, RenderContext(names=NAMES)).convert("RGB")
    cx = 16 + (760 - 32) - 6 * 38 - 4 + 19 + 2 * 38  # the third coin, "2"
    cy = PANEL_TOP + 20  # the first card's coins
    inked = [
        y
        for y in range(cy - 16, cy + 17)
        for x in range(cx - 10, cx + 11)
        if near(pixel(image, (x, y)), DEFAULT_THEME.ink, 60)
    ]
    height = max(inked) - min(inked) + 1
    # A digit stands about 0.7 of its font's size: 12 px type shows a digit over 8 px.
    assert height * PHONE / image.width >= 8.5, height


def test_a_game_ended_off_the_board_shows_nobody_planning() -> None:
    # A round's planning, the game then ended by a resignation: the caption says how.
    planning = GAME.new_state(4, 2, None)
    assert isinstance(planning, EverestState)
    live = RenderContext(names=NAMES[:2])
    over = RenderContext(names=NAMES[:2], caption="Game over: Bob beat Ann · Ann resigned")
    assert "planning…" in _seat_info(planning, 0)
    assert "planning…" not in _seat_info(planning, 0, over=True)
    assert render_png(planning, live) != render_png(planning, over)


def ink_height(image: Image.Image, box: tuple[int, int, int, int], ink: Colour) -> int:
    """From the first to the last row of `box` with a pixel near `ink`."""
    left, top, right, bottom = box
    rows = [
        y
        for y in range(top, bottom)
        if any(near(pixel(image, (x, y)), ink, 60) for x in range(left, right))
    ]
    assert rows, box
    return max(rows) - min(rows) + 1


def written_on(image: Image.Image, box: tuple[int, int, int, int], paper: Colour) -> int:
    """The height of the white number written on a disc of `paper` in `box`: white with
    `paper` on both sides in its row (a white ring round the disc is not)."""
    left, top, right, bottom = box
    rows = []
    for y in range(top, bottom):
        row = [pixel(image, (x, y)) for x in range(left, right)]
        on = [i for i, colour in enumerate(row) if near(colour, paper, 30)]
        if on and any(near(colour, (255, 255, 255), 60) for colour in row[on[0] : on[-1]]):
            rows.append(y)
    assert rows, box
    return max(rows) - min(rows) + 1


def test_files_and_ranks_are_tall_enough_at_a_phones_width() -> None:
    """Pixel probes: the letter b under the mountain and the 6 beside it, on the board
    and on a step's picture."""
    ink = DEFAULT_THEME.ink
    board = render(*scenes()["start"])
    x = LEFT + CELL + CELL // 2
    letter = ink_height(board, (x - 12, BOARD.bottom + 1, x + 12, PANEL_TOP - 1), ink)
    digit = ink_height(board, (0, TOP + 4, LEFT - 1, TOP + CELL - 4), ink)
    # A letter with a stem, as a digit, stands about 0.7 of its font's size.
    assert letter * PHONE / board.width >= 8.5, letter
    assert digit * PHONE / board.width >= 8.5, digit
    step = pictures(ROUND, ROUND_CTX)[0]
    x = STEP_LEFT + STEP_CELL + STEP_CELL // 2
    bottom = STEP_TOP + 6 * STEP_CELL
    letter = ink_height(step, (x - 10, bottom + 1, x + 10, STEP_CHIPS_TOP - 1), ink)
    digit = ink_height(step, (0, STEP_TOP + 4, STEP_LEFT - 1, STEP_TOP + STEP_CELL - 4), ink)
    assert letter * PHONE / step.width >= 8.5, letter
    assert digit * PHONE / step.width >= 8.5, digit


#: Bob on e2 and Di on b4 took a point of damage this round; no marks on the board.
DAMAGED = state_of(
    "everest n=4 cap=30 round=3 stage=end step=3 pos=c2,e2,f2,b4 aside=-,5,-,- "
    "dmg=0,1,0,1 peak=- plans=0E+s2N+s3N,dazed,0W+s2N+s3N,sAS+2W+3W result=- rng=0:0 "
    "end=-,h,-,h"
)


def test_a_damage_badge_is_tall_enough_at_a_phones_width() -> None:
    """A pixel probe: the 1 on the red badge at the top right of Bob's disc."""
    image = render(DAMAGED, RenderContext(names=NAMES))
    x, y = centre("e2")
    badge = (x + 2, y - CELL // 2 + 1, x + CELL // 2 - 1, y - 2)
    height = written_on(image, badge, (220, 40, 40))
    assert height * PHONE / image.width >= 8.5, height


def test_a_plans_numbers_are_tall_enough_at_a_phones_width() -> None:
    """A pixel probe: the 1 of the plan's first action, on its arrow at b2's centre."""
    image = render_options(START.view(0), 0, ("4E",), RenderContext(names=NAMES[:2]))
    assert image is not None
    x, y = centre("b2")
    height = written_on(image, (x - 24, y - 24, x + 24, y + 24), RED)
    assert height * PHONE / image.width >= 8.5, height


def die_side(image: Image.Image, top: int, bottom: int) -> int:
    """The side of the first die in the band of rows `top`-`bottom`: its white face (the
    only pure white there) and the outline round it."""
    band = image.convert("RGB").crop((0, top, image.width, bottom))
    white = [
        (x, y)
        for y in range(band.height)
        for x in range(band.width)
        if band.getpixel((x, y)) == (255, 255, 255)
    ]
    assert white
    # The first die's face: the run of columns with white from the leftmost one.
    columns = {x for x, _ in white}
    first = min(columns)
    last = first
    while last + 1 in columns:
        last += 1
    rows = [y for x, y in white if first <= x <= last]
    return max(rows) - min(rows) + 1 + 2


def test_roll_off_dice_are_12_px_at_a_phones_width() -> None:
    ctx = RenderContext(names=NAMES)
    (step,) = pictures(TIED, ctx)
    side = die_side(step, STEP_CHIPS_TOP, step.height)
    assert side * PHONE / step.width >= 12, side
    choices = render_options(TIED, 0, (), ctx)
    assert choices is not None
    side = die_side(choices, 56, 56 + 2 * (44 + 8))  # the two rows of chips
    assert side * PHONE / choices.width >= 12, side


#: Names of over 16 letters that differ only in their last one: a name cut short would
#: draw both alike.
LONG = ("Wilhelmina Fairweather", "Wilhelmina Fairweathen")


@pytest.mark.parametrize("seat", [1, 3])
def test_long_names_are_written_whole_in_roll_off_chips(seat: int) -> None:
    def names(last: str) -> tuple[str, ...]:
        return tuple(last if s == seat else name for s, name in enumerate(NAMES))

    one, other = (RenderContext(names=names(name)) for name in LONG)
    choices = [render_options(TIED, 0, (), ctx) for ctx in (one, other)]
    assert choices[0] is not None and choices[1] is not None
    diff = ImageChops.difference(choices[0].convert("RGB"), choices[1].convert("RGB"))
    assert diff.getbbox() is not None
    # A step's chips: the same, with their own smaller room. Its log, under the chips,
    # names the players too: it is left out.
    steps = [pictures(TIED, ctx)[0].convert("RGB") for ctx in (one, other)]
    assert steps[0].size == steps[1].size
    log_top = steps[0].height - 10 - 2 * LOG_LINE  # the roll-off's two lines
    chips = [image.crop((0, STEP_CHIPS_TOP, image.width, log_top)) for image in steps]
    assert ImageChops.difference(*chips).getbbox() is not None
    # Short names still take one line: the long one makes the picture taller.
    short = render_options(TIED, 0, (), RenderContext(names=NAMES))
    assert short is not None and choices[0].height > short.height


def test_the_outcomes_rows_move_down_under_taller_chips() -> None:
    ctx = RenderContext(names=("Wilhelmina Fairweather", "Bartholomew Longname", "Cy", "Di"))
    image = render_options(TIED, 0, (), ctx)
    assert image is not None
    options = TIED.pick_options()
    tokens = tuple(f"pick {option.number}" for option in options)
    boxes = spots(TIED, 0, (), tokens, ctx)
    assert [spot.token for spot in boxes] == list(tokens)
    assert boxes[0].box[1] > 56 + 2 * (44 + 8) + 8  # below where short names leave it
    for spot, option in zip(boxes, options, strict=True):
        thumb = render_outcome_thumbnail(option.preview, ctx)
        left, top = int(spot.box[0]), int(spot.box[1])
        shown = image.crop((left, top, left + thumb.width, top + thumb.height))
        assert ImageChops.difference(shown, thumb).getbbox() is None, spot.token
