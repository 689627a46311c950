"""Everest images: the board (the shaded height map, cliffs and steps, yeti, home bases,
the peak, each player's coins and damage, and arrows for what the last resolution did),
one smaller board per step of a resolution, the roll-off winner's outcomes (all of them
small, or one at the board's size), and the path of a plan being built.

Every image is drawn from the same pieces at different square sizes (a `Grid`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageFont

from engine.core import MoveError
from engine.everest import (
    HEIGHTS,
    HIDDEN,
    HOMES,
    NEXT,
    OFF,
    PEAK,
    SNOW,
    SQUARES,
    Bumped,
    Drawn,
    Event,
    EverestGame,
    EverestState,
    Fell,
    Flee,
    Flight,
    Healed,
    Hit,
    Moved,
    Pick,
    PlansRevealed,
    Pushed,
    Roared,
    RoaredBack,
    RolledOff,
    RoundStarted,
    SeatEvent,
    SetAside,
    Stage,
    StepStarted,
    Threw,
    WentHome,
    WentOff,
    Won,
    action_text,
    describe_events,
    describe_plan,
    square_name,
)
from engine.text import t
from render.core import (
    BoardDraw,
    Color,
    Palette,
    RenderContext,
    Renderer,
    Spot,
    StepPicture,
    Theme,
    edit,
    fit_text,
    font,
    new_canvas,
    readable,
    text_center,
    text_length,
    theme_colours,
)

_DIR_VEC = ((0, -1), (1, 0), (0, 1), (-1, 0))  # N E S W in image coordinates


@dataclass(frozen=True)
class Grid:
    """Where the mountain sits in an image: the square size in pixels and the top-left
    corner of the drawn board (row 6 at the top, file a on the left)."""

    cell: int
    left: int
    top: int

    def box(self, sq: int) -> tuple[int, int, int, int]:
        col, row = sq % 8, sq // 8
        x0 = self.left + col * self.cell
        y0 = self.top + (5 - row) * self.cell
        return x0, y0, x0 + self.cell, y0 + self.cell

    def centre(self, sq: int) -> tuple[float, float]:
        x0, y0, x1, y1 = self.box(sq)
        return (x0 + x1) / 2, (y0 + y1) / 2

    def toward(self, sq: int, d: int, out: float) -> tuple[float, float]:
        """The point `out` squares from the centre of `sq` in direction `d`."""
        cx, cy = self.centre(sq)
        vx, vy = _DIR_VEC[d]
        return cx + vx * self.cell * out, cy + vy * self.cell * out

    @property
    def bottom(self) -> int:
        return self.top + 6 * self.cell

    @property
    def width(self) -> int:
        """The width of a picture with this board in it, margins included."""
        return 8 * self.cell + 2 * self.left

    @property
    def readable(self) -> int:
        """The smallest type on a picture of this board's width: 12 px on a phone."""
        return readable(self.width)


#: The main board, 760 px wide: every word and coin is written at least `READABLE` px
#: high (12 px on a phone).
BOARD = Grid(86, 36, 88)
WIDTH = BOARD.width
READABLE = readable(WIDTH)
MARGIN = BOARD.left
PANEL_TOP = BOARD.bottom + 34
#: One card per player, across the image: name and coins, then where it stands.
CARD_H = 78

#: A roll-off outcome, 240 px wide.
THUMB = Grid(28, 8, 8)
THUMB_SIZE = (8 * THUMB.cell + 2 * THUMB.left, 6 * THUMB.cell + 2 * THUMB.top)

#: One step of a resolution: title, board, the player chips (all in a row, or two to a
#: row where a row of all would cut a name), then the step's log.
STEP = Grid(66, 30, 46)
STEP_WIDTH = STEP.width
CHIP_H = 30
STEP_CHIPS_TOP = STEP.bottom + 24
#: The step's log and the player chips, at least 12 px high on a phone.
LOG_FONT = 21
LOG_LINE = 28

#: The roll-off winner's choice, at the board's width: a title (a second line for a long
#: name), the dice on the player chips, then one row per outcome: its small board, and
#: its number and words beside it.
OPTIONS_PAD = 12
OPTIONS_CHIP_H = 44
OPTIONS_CHIPS_TOP = 56
OPTIONS_TITLE_LINE = 34

#: One choice at the main board's size (a plan being built, one roll-off outcome): a
#: title, the board, then lines of words under it, large enough to read at 550 px.
CHOICE_BOARD_BOTTOM = BOARD.bottom + 36
CHOICE_LINE = 32
CHOICE_FONT = max(26, READABLE)

#: Shades of snow per height: low slopes grey-blue, the peak almost white.
LEVELS: dict[int, Color] = {
    1: (150, 170, 192),
    2: (178, 195, 213),
    3: (204, 216, 229),
    4: (226, 234, 242),
    5: (250, 251, 253),
}
NOTCH: Color = (214, 206, 190)
CLIFF: Color = (30, 30, 40)
STEP_EDGE: Color = (70, 78, 96)
SNOWBALL: Color = (40, 150, 220)
HIT: Color = (220, 40, 40)
PEAK_GOLD: Color = (214, 160, 20)
COIN_FACE: Color = (255, 255, 255)
COIN_GONE: Color = (190, 186, 178)
SQUARE_EDGE: Color = (236, 240, 246)
WHITE: Color = (255, 255, 255)
#: How much lighter than a player's colour their cards and chips are, and pushes.
CARD_LIGHT = 0.82
PUSH_LIGHT = 0.3
#: The board's own colours, beside the theme's and the players'.
COLOURS: tuple[Color, ...] = (
    *LEVELS.values(),
    NOTCH,
    CLIFF,
    STEP_EDGE,
    SNOWBALL,
    HIT,
    PEAK_GOLD,
    COIN_FACE,
    COIN_GONE,
    SQUARE_EDGE,
    WHITE,
)


# --- reconstructing a resolution --------------------------------------------------------


def _relocation(event: Event) -> tuple[int, int, int] | None:
    """(seat, square before, square after) when `event` moves a yeti. A fall moves nobody
    by itself: the move or push that went over the cliff already ends on the lower
    square."""
    if isinstance(event, (Moved, Pushed, Bumped)):
        return event.seat, event.start, event.end
    if isinstance(event, WentHome):
        return event.seat, event.start, event.home
    if isinstance(event, WentOff):
        return event.seat, event.square, OFF
    return None


def positions_after(pos: Sequence[int], events: Iterable[Event]) -> tuple[int, ...]:
    """The yeti squares (OFF: off the board) after `events`, starting from `pos`."""
    out = list(pos)
    for event in events:
        moved = _relocation(event)
        if moved is not None:
            out[moved[0]] = moved[2]
    return tuple(out)


def positions_before(pos: Sequence[int], events: Sequence[Event]) -> tuple[int, ...]:
    """The yeti squares before `events`, given those after them: the events undone."""
    out = list(pos)
    for event in reversed(events):
        moved = _relocation(event)
        if moved is not None:
            out[moved[0]] = moved[1]
    return tuple(out)


@dataclass(frozen=True)
class StepScene:
    """One step of a resolution, as its picture shows it."""

    round: int
    #: The step, 1-3.
    step: int
    #: This step's part of the resolution (without the `step` event itself).
    events: tuple[Event, ...]
    #: The yeti squares at the end of it, per seat (OFF: off the board).
    pos: tuple[int, ...]


#: Events outside the steps: a round starting, the plans revealed, the end of a round.
_BETWEEN_STEPS = (RoundStarted, PlansRevealed, SetAside, Healed, WentHome, Bumped, Won, Drawn)


def _step_in_progress(state: EverestState) -> tuple[int, int]:
    """The round and step (1-3) of a resolution's first events: after a `pick` or a
    `flee` choice a resolution starts inside the step that waited for it."""
    events = state.events
    round_starts = sum(1 for e in events if isinstance(e, RoundStarted))
    boundary = next((e for e in events if isinstance(e, (StepStarted, RoundStarted))), None)
    if boundary is None:
        step = state.step + 1
    elif isinstance(boundary, StepStarted):
        step = boundary.number - 1
    else:
        step = 3
    return state.round - round_starts, step


def step_scenes(state: EverestState, previous: EverestState | None) -> tuple[StepScene, ...]:
    """The steps of the resolution that led to `state`, nothing when the move resolved
    none (its events are those of `previous`). Positions start from `previous`, or are
    undone from `state` when there is no previous state."""
    events = state.events
    if not events or (previous is not None and previous.events == events):
        return ()
    start = previous.pos if previous is not None else positions_before(state.pos, events)
    spans: list[tuple[int, int, int, int]] = []  # round, step, first event, end
    rnd, step = _step_in_progress(state)
    opened: int | None = None
    for i, event in enumerate(events):
        if isinstance(event, (StepStarted, *_BETWEEN_STEPS)):
            if opened is not None:
                spans.append((rnd, step, opened, i))
                opened = None
            if isinstance(event, StepStarted):
                step, opened = event.number, i + 1
            elif isinstance(event, RoundStarted):
                rnd = event.number
        elif opened is None:
            opened = i
    if opened is not None:
        spans.append((rnd, step, opened, len(events)))
    return tuple(
        StepScene(r, s, events[first:end], positions_after(start, events[:end]))
        for r, s, first, end in spans
    )


# --- drawing pieces ---------------------------------------------------------------------


def _draw_mountain(draw: BoardDraw, grid: Grid, labels: bool, theme: Theme) -> None:
    cell = grid.cell
    for sq in range(48):
        box = grid.box(sq)
        if not HEIGHTS[sq]:
            draw.rectangle(box, fill=NOTCH)
            continue
        draw.rectangle(box, fill=LEVELS[HEIGHTS[sq]], outline=SQUARE_EDGE)
        if labels:
            # Large enough to read at the ~550 px Discord shows a board at.
            draw.label(
                (box[0] + 4, box[1] + 1),
                str(HEIGHTS[sq]),
                font(max(round(cell * 0.3), grid.readable), bold=True),
                STEP_EDGE,
            )
    # Edges between neighbours: thick for cliffs, thin for steps.
    for sq in SQUARES:
        x0, y0, x1, y1 = grid.box(sq)
        for d in (0, 1):
            other = NEXT[sq][d]
            if other == OFF:
                continue
            gap = abs(HEIGHTS[sq] - HEIGHTS[other])
            if not gap:
                continue
            width = max(2, cell // 14) if gap == 2 else max(1, cell // 40)
            colour = CLIFF if gap == 2 else STEP_EDGE
            if d == 0:
                draw.line((x0, y0, x1, y0), fill=colour, width=width)
            else:
                draw.line((x1, y0, x1, y1), fill=colour, width=width)
    # The peak tile outline.
    peak = sorted(PEAK)
    px0, _, _, py1 = grid.box(peak[0])
    _, py0, px1, _ = grid.box(peak[-1])
    draw.rectangle((px0, py0, px1, py1), outline=PEAK_GOLD, width=max(2, cell // 22))
    if labels:
        # Files under the board, ranks in its left margin, as large as any word.
        size = grid.readable
        for col in range(8):
            text_center(
                draw,
                (grid.left + col * cell + cell / 2, grid.bottom + size * 0.6),
                "abcdefgh"[col],
                font(size, bold=True),
                theme.ink,
            )
        for row in range(6):
            text_center(
                draw,
                (grid.left / 2, grid.top + (5 - row) * cell + cell / 2),
                str(row + 1),
                font(size, bold=True),
                theme.ink,
            )


@lru_cache(maxsize=8)
def _mountain_image(theme: Theme, grid: Grid, size: tuple[int, int], labels: bool) -> Image.Image:
    """The empty mountain on a canvas of `size` (cached: copy or paste it, never draw on
    it)."""
    image, draw = new_canvas(*size, palette(theme), theme.background)
    _draw_mountain(draw, grid, labels, theme)
    return image


@lru_cache(maxsize=4)
def palette(theme: Theme) -> Palette:
    """Everest's fixed colours: the theme's and the players', the mountain's and the
    marks', and a ramp for each colour of text on what it is written on."""
    seats = theme.seats
    return Palette(
        (
            *theme_colours(theme),
            *seats,
            *(_light(colour, CARD_LIGHT) for colour in seats),
            *(_light(colour, PUSH_LIGHT) for colour in seats),
            *COLOURS,
        ),
        (
            (theme.ink, theme.background),
            (theme.muted, theme.background),
            *((STEP_EDGE, level) for level in LEVELS.values()),
            *((WHITE, paper) for paper in (*seats, HIT)),
            *((theme.ink, _light(colour, CARD_LIGHT)) for colour in seats),
            (theme.ink, COIN_FACE),
            (theme.muted, COIN_GONE),
        ),
    )


def _seat_colour(theme: Theme, seat: int) -> Color:
    return theme.seats[seat % len(theme.seats)]


def _seat_name(ctx: RenderContext, seat: int) -> str:
    return ctx.name(seat, EverestGame.seat_names[seat])


def _light(colour: Color, amount: float = 0.55) -> Color:
    r, g, b = colour
    return (
        int(r + (255 - r) * amount),
        int(g + (255 - g) * amount),
        int(b + (255 - b) * amount),
    )


def _arrow(
    draw: BoardDraw,
    start: tuple[float, float],
    end: tuple[float, float],
    colour: Color,
    width: int,
    head: float,
    trim: float = 0.0,
) -> None:
    """An arrow whose head stops `trim` pixels short of `end` (outside a yeti disc)."""
    length = math.dist(start, end)
    if trim and length > trim * 1.5:
        k = (length - trim) / length
        end = (start[0] + (end[0] - start[0]) * k, start[1] + (end[1] - start[1]) * k)
    draw.line((start, end), fill=colour, width=width)
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    left = (end[0] - head * math.cos(angle - 0.45), end[1] - head * math.sin(angle - 0.45))
    right = (end[0] - head * math.cos(angle + 0.45), end[1] - head * math.sin(angle + 0.45))
    draw.polygon((end, left, right), fill=colour)


def _dotted(
    draw: BoardDraw,
    start: tuple[float, float],
    end: tuple[float, float],
    colour: Color,
    radius: float,
    gap: float,
) -> None:
    length = math.dist(start, end)
    steps = max(1, int(length / gap))
    for i in range(steps + 1):
        x = start[0] + (end[0] - start[0]) * i / steps
        y = start[1] + (end[1] - start[1]) * i / steps
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=colour)


#: Drawing order of the event marks: snowballs and roars first, then the hit and fall
#: frames, then the arrows of the yeti that moved, so that no mark hides an arrow.
_LAYER: dict[type[Event], int] = {Hit: 1, Fell: 1, Moved: 2, Pushed: 2, WentOff: 2}


def _draw_events(draw: BoardDraw, events: Sequence[Event], grid: Grid, theme: Theme) -> None:
    cell = grid.cell
    width = max(2, cell // 14)
    head = cell * 0.22
    for event in sorted(events, key=lambda e: _LAYER.get(type(e), 0)):
        if isinstance(event, Moved) and event.start != event.end:
            colour = _seat_colour(theme, event.seat)
            start, end = grid.centre(event.start), grid.centre(event.end)
            _arrow(draw, start, end, colour, width + 2, head, cell * 0.33)
        elif isinstance(event, Moved):
            # Blocked at once: a short stub that ends against a bar.
            colour = _seat_colour(theme, event.seat)
            x0, y0 = grid.toward(event.start, event.direction, 0.34)
            x1, y1 = grid.toward(event.start, event.direction, 0.48)
            draw.line((x0, y0, x1, y1), fill=colour, width=width + 1)
            vx, vy = _DIR_VEC[event.direction]
            bar = cell * 0.14
            draw.line(
                (x1 - vy * bar, y1 - vx * bar, x1 + vy * bar, y1 + vx * bar),
                fill=colour,
                width=width + 1,
            )
        elif isinstance(event, Pushed) and event.end != OFF:
            _arrow(
                draw,
                grid.centre(event.start),
                grid.centre(event.end),
                _light(_seat_colour(theme, event.seat), PUSH_LIGHT),
                width,
                head * 0.8,
                cell * 0.33,
            )
        elif isinstance(event, WentOff):
            colour = _seat_colour(theme, event.seat)
            start, end = grid.centre(event.square), grid.toward(event.square, event.direction, 0.8)
            _arrow(draw, start, end, colour, width + 2, head)
        elif isinstance(event, Threw):
            start = grid.centre(event.start)
            if event.flight is Flight.HIT:
                end = grid.centre(event.end)
            else:
                out = 0.5 if event.flight is Flight.SPLAT else 0.8
                end = grid.toward(event.end, event.direction, out)
            _dotted(draw, start, end, SNOWBALL, max(1.5, cell / 40), max(5.0, cell / 9))
            r = cell * 0.1
            if event.flight is Flight.SPLAT:  # a burst against the slope
                for dx, dy in ((1, 0), (0, 1), (0.7, 0.7), (0.7, -0.7)):
                    draw.line(
                        (end[0] - dx * r * 2, end[1] - dy * r * 2, end[0] + dx * r * 2,
                         end[1] + dy * r * 2),
                        fill=SNOWBALL,
                        width=max(1, cell // 30),
                    )  # fmt: skip
            draw.ellipse(
                (end[0] - r, end[1] - r, end[0] + r, end[1] + r),
                fill=COIN_FACE,
                outline=SNOWBALL,
                width=max(1, cell // 40),
            )
        elif isinstance(event, (Roared, RoaredBack)):
            cx, cy = grid.toward(event.square, event.direction, 0.3)
            vx, vy = _DIR_VEC[event.direction]
            for i in range(3):
                r = cell * (0.1 + 0.09 * i)
                box = (cx - r, cy - r, cx + r, cy + r)
                mid = math.degrees(math.atan2(vy, vx))
                draw.arc(box, mid - 45, mid + 45, fill=_seat_colour(theme, event.seat), width=width)
        elif isinstance(event, Hit):
            cx, cy = grid.centre(event.square)
            r = cell * 0.42
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=HIT, width=width + 1)
        elif isinstance(event, Fell):
            cx, cy = grid.centre(event.square)
            r = cell * 0.46
            draw.rectangle((cx - r, cy - r, cx + r, cy + r), outline=HIT, width=width)


def _draw_yeti(
    draw: BoardDraw,
    pos: Sequence[int],
    damage: Sequence[int] | None,
    ctx: RenderContext,
    grid: Grid,
    letters: bool,
) -> None:
    """A disc per yeti on the board; with `letters`, its player's initial and, given
    `damage`, a badge with the damage taken this round."""
    cell = grid.cell
    for seat, sq in enumerate(pos):
        if sq == OFF:
            continue
        cx, cy = grid.centre(sq)
        r = cell * 0.32
        draw.ellipse(
            (cx - r, cy - r, cx + r, cy + r),
            fill=_seat_colour(ctx.theme, seat),
            outline=WHITE,
            width=max(2, cell // 28),
        )
        if not letters:
            continue
        initial = _token_text(_seat_name(ctx, seat))
        initial_font = font(max(round(cell * 0.3), grid.readable), bold=True)
        text_center(draw, (cx, cy), initial, initial_font, WHITE)
        if damage is not None and damage[seat]:
            # At the disc's top right, inside the square: a number as large as any word.
            size = grid.readable
            bx, by, br = cx + r * 0.85, cy - r * 0.85, size * 0.68
            draw.ellipse((bx - br, by - br, bx + br, by + br), fill=HIT, outline=WHITE, width=2)
            text_center(draw, (bx, by), str(damage[seat]), font(size, bold=True), WHITE)


def _draw_homes(draw: BoardDraw, players: int, theme: Theme, grid: Grid) -> None:
    cell = grid.cell
    for seat in range(players):
        x0, y0, x1, y1 = grid.box(HOMES[seat])
        colour = _seat_colour(theme, seat)
        inset = cell * 0.12
        width = max(2, cell // 16)
        draw.line((x0 + inset, y0 + inset, x1 - inset, y1 - inset), fill=colour, width=width)
        draw.line((x0 + inset, y1 - inset, x1 - inset, y0 + inset), fill=colour, width=width)


#: Pip offsets of a die face, in thirds of the face from its centre (null is blank).
_PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
}


def _die_size(size: int) -> int:
    """A roll-off die beside words of `size`: a little larger than their letters."""
    return round(size * 1.15)


def _draw_die(draw: BoardDraw, x: float, y: float, face: int, ink: Color, size: int) -> None:
    draw.rounded_rectangle(
        (x, y, x + size, y + size), radius=size // 5, fill=COIN_FACE, outline=ink, width=1
    )
    cx, cy, spread, r = x + size / 2, y + size / 2, size * 0.27, size * 0.1
    for dx, dy in _PIPS.get(face, ()):
        px, py = cx + dx * spread, cy + dy * spread
        draw.ellipse((px - r, py - r, px + r, py + r), fill=ink)


def _roll_off(
    events: Sequence[Event], players: int
) -> tuple[tuple[tuple[int, ...], ...], int | None]:
    """Each seat's dice in the roll-off among `events` (re-rolls after a tie follow the
    first roll), and the winner (None: no roll-off). A roll-off only ends on a single
    highest die."""
    rolls = [e.dice for e in events if isinstance(e, RolledOff)]
    dice = tuple(
        tuple(die for roll in rolls if (die := roll[s]) is not None) for s in range(players)
    )
    if not rolls:
        return dice, None
    last = rolls[-1]
    return dice, last.index(max(die for die in last if die is not None))


#: The player chips' margins: between chips, and at the picture's sides.
CHIP_GAP = 8
CHIP_SIDE = 16


@dataclass(frozen=True)
class Chips:
    """Where the player chips go: `columns` to a row, each `width` by `height` px, with
    each seat's name in one or two lines and its roll-off dice."""

    top: int
    columns: int
    width: int
    height: int
    #: The height of a chip whose name takes one line: the colour dot and the names
    #: start at the same place in every chip, tall or not.
    plain: int
    #: The type size of the names; the dice are a little larger.
    size: int
    names: tuple[tuple[str, ...], ...]
    dice: tuple[tuple[int, ...], ...]
    #: The roll-off's winner, whose chip is framed (None: no roll-off).
    winner: int | None

    @property
    def bottom(self) -> int:
        rows = -(-len(self.names) // self.columns)
        return self.top + rows * (self.height + CHIP_GAP) - CHIP_GAP

    def box(self, seat: int) -> tuple[int, int, int, int]:
        x0 = CHIP_SIDE + (seat % self.columns) * (self.width + CHIP_GAP)
        y0 = self.top + (seat // self.columns) * (self.height + CHIP_GAP)
        return x0, y0, x0 + self.width, y0 + self.height


def _chips(
    top: int,
    width: int,
    players: int,
    events: Sequence[Event],
    ctx: RenderContext,
    columns: Sequence[int],
    size: int,
    height: int,
) -> Chips:
    """The chips of a picture `width` px wide, from `top`: the first of `columns` (chips
    to a row) in which every name is written whole on one line; failing that, the last,
    with the names that need it on two lines of taller chips, cut only past those."""
    dice, winner = _roll_off(events, players)
    name_font = font(size, bold=True)
    die = _die_size(size)
    line = round(size * 1.2)

    def room(per_row: int, seat: int = -1) -> int:
        """The width of a name's line in a chip, beside the seat's dice (past them: -1)."""
        chip_w = (width - 2 * CHIP_SIDE - CHIP_GAP * (per_row - 1)) // per_row
        beside = len(dice[seat]) * (die + 3) if seat >= 0 else 0
        return chip_w - _name_left(height) - 6 - beside

    names = [_seat_name(ctx, seat) for seat in range(players)]
    per_row = columns[-1]
    for count in columns:
        if all(text_length(n, name_font) <= room(count, s) for s, n in enumerate(names)):
            per_row = count
            break
    # A name's second line runs on under the dice, which stand beside its first.
    lines = tuple(
        tuple(_wrap(name, name_font, room(per_row), 2, first=room(per_row, seat)))
        for seat, name in enumerate(names)
    )
    tall = max(height, 2 * line + 10) if any(len(n) > 1 for n in lines) else height
    chip_w = (width - 2 * CHIP_SIDE - CHIP_GAP * (per_row - 1)) // per_row
    return Chips(top, per_row, chip_w, tall, height, size, lines, dice, winner)


def _name_left(plain: int) -> int:
    """Where a chip's name starts, from its left edge: past the colour dot."""
    return plain // 2 + 12


def _draw_chips(draw: BoardDraw, chips: Chips, ctx: RenderContext) -> None:
    """A chip per player: colour, name and the dice of a roll-off, the winner's chip
    framed."""
    theme = ctx.theme
    name_font = font(chips.size, bold=True)
    die = _die_size(chips.size)
    line = round(chips.size * 1.2)
    for seat, name in enumerate(chips.names):
        x0, y0, x1, y1 = chips.box(seat)
        colour = _seat_colour(theme, seat)
        draw.rounded_rectangle(
            (x0, y0, x1, y1),
            radius=7,
            fill=_light(colour, CARD_LIGHT),
            outline=colour,
            width=3 if seat == chips.winner else 1,
        )
        middle = (y0 + y1) / 2
        dot = x0 + chips.plain / 2
        draw.ellipse((dot - 8, middle - 8, dot + 8, middle + 8), fill=colour)
        # A name in two lines has its dice beside its first line.
        first = middle - (len(name) - 1) / 2 * line
        for i, part in enumerate(name):
            draw.label(
                (x0 + _name_left(chips.plain), first + i * line), part, name_font, theme.ink, "lm"
            )
        dice_x = x1 - 6 - len(chips.dice[seat]) * (die + 3)
        for i, face in enumerate(chips.dice[seat]):
            _draw_die(draw, dice_x + 3 + i * (die + 3), first - die / 2, face, theme.ink, die)


# --- the board --------------------------------------------------------------------------


def _status(state: EverestState, ctx: RenderContext) -> str:
    if state.stage is Stage.OVER:
        if state.winner is not None:
            return str(t("{name} is King of the Hill!", name=_seat_name(ctx, state.winner)))
        return str(t("Draw: the round cap was reached"))
    waiting = ", ".join(_seat_name(ctx, s) for s in sorted(state.to_act))
    if state.stage is Stage.PLAN:
        return str(t("Still planning: {names}.", names=waiting))
    if state.stage is Stage.FLEE:
        return str(t("Roars! {names} choose which roarer to answer", names=waiting))
    if state.stage is Stage.PICK:
        return str(t("Conflict! {names} picks an outcome", names=waiting))
    return str(t("End of round: {names} to choose", names=waiting))


def _draw_header(draw: BoardDraw, state: EverestState, ctx: RenderContext) -> None:
    theme = ctx.theme
    if state.cap:
        title = str(t("Round {round}/{cap}", round=state.round, cap=state.cap))
    else:
        title = str(t("Round {round}", round=state.round))
    if state.stage not in (Stage.PLAN, Stage.OVER):
        title = str(t("{round} · step {step}", round=title, step=state.step + 1))
    draw.label((MARGIN - 20, 8), title, font(READABLE + 2, bold=True), theme.ink)
    status = ctx.caption or _status(state, ctx)
    fitted = fit_text(status, font(READABLE), WIDTH - 2 * (MARGIN - 20))
    draw.label((MARGIN - 20, 44), fitted, font(READABLE), theme.muted)


def _draw_panel(draw: BoardDraw, state: EverestState, ctx: RenderContext) -> None:
    theme = ctx.theme
    left = MARGIN - 20
    card_w = WIDTH - 2 * left
    big, bold = font(READABLE), font(READABLE, bold=True)
    for seat in range(state.players):
        y0 = PANEL_TOP + seat * CARD_H
        colour = _seat_colour(theme, seat)
        # A game that ended off the board (its caption says how) waits for nobody.
        acting = seat in state.to_act and not ctx.caption
        draw.rounded_rectangle(
            (left, y0, left + card_w, y0 + CARD_H - 6),
            radius=8,
            fill=_light(colour, CARD_LIGHT),
            outline=colour,
            width=3 if acting else 1,
        )
        draw.ellipse((left + 8, y0 + 8, left + 32, y0 + 32), fill=colour)
        # Six coins at the right: set-aside ones greyed and struck through.
        coins_x = left + card_w - 6 * 38 - 4
        name = fit_text(_seat_name(ctx, seat), bold, coins_x - left - 50)
        draw.label((left + 40, y0 + 20), name, bold, theme.ink, "lm")
        info = fit_text(_seat_info(state, seat, over=bool(ctx.caption)), big, card_w - 48)
        draw.label((left + 40, y0 + 52), info, big, theme.ink, "lm")
        for i, coin in enumerate("0A2345"):
            cx = coins_x + 19 + i * 38
            cy = y0 + 20
            gone = state.aside[seat] >> i & 1
            draw.ellipse(
                (cx - 17, cy - 17, cx + 17, cy + 17),
                fill=COIN_GONE if gone else COIN_FACE,
                outline=colour,
                width=2,
            )
            text_center(draw, (cx, cy), coin, bold, theme.muted if gone else theme.ink)
            if gone:
                draw.line((cx - 14, cy + 14, cx + 14, cy - 14), fill=HIT, width=3)


def _seat_info(state: EverestState, seat: int, *, over: bool = False) -> str:
    """Where the yeti is, its damage, and its plan: being made, made, or (once the round
    runs) its actions. `over`: the game ended off the board, so nobody is planning."""
    parts = []
    sq = state.pos[seat]
    if sq == OFF:
        parts.append(str(t("off the board")))
    else:
        parts.append(str(t("on {square}", square=square_name(sq))))
    if state.damage[seat]:
        parts.append(str(t("damage {n}", n=state.damage[seat])))
    plan = state.plans[seat]
    if state.stage is Stage.PLAN and over:
        pass
    elif state.stage is Stage.PLAN:
        if plan is None:
            parts.append(str(t("planning…")))
        elif plan and plan != HIDDEN:
            parts.append(" ".join(action_text(a) for a in plan))
        else:
            parts.append(str(t("planned ✓")))
    elif plan is not None and state.stage is not Stage.OVER:
        parts.append(" ".join(action_text(a) for a in plan) or str(t("dazed")))
    if state.peak == seat:
        parts.append(str(t("holds the peak")))
    return " · ".join(parts)


def render(state: EverestState, ctx: RenderContext) -> Image.Image:
    """The board, 760 px wide: mountain, yeti, last events, a card per player."""
    height = PANEL_TOP + state.players * CARD_H + 8
    size = (WIDTH, height)
    image, draw = edit(_mountain_image(ctx.theme, BOARD, size, True), palette(ctx.theme))
    _draw_homes(draw, state.players, ctx.theme, BOARD)
    _draw_events(draw, state.events, BOARD, ctx.theme)
    _draw_yeti(draw, state.pos, state.damage, ctx, BOARD, True)
    _draw_header(draw, state, ctx)
    _draw_panel(draw, state, ctx)
    return image


def render_outcome_thumbnail(state_after: EverestState, ctx: RenderContext) -> Image.Image:
    """A small board (240 px wide) of one roll-off outcome, with its moves drawn."""
    image, draw = edit(_mountain_image(ctx.theme, THUMB, THUMB_SIZE, False), palette(ctx.theme))
    _draw_homes(draw, state_after.players, ctx.theme, THUMB)
    _draw_events(draw, state_after.events, THUMB, ctx.theme)
    _draw_yeti(draw, state_after.pos, None, ctx, THUMB, False)
    return image


# --- the steps of a resolution ----------------------------------------------------------


def _step_log(events: Sequence[Event], ctx: RenderContext) -> list[tuple[Color, str]]:
    """The step's log lines, each with its player's colour."""
    theme = ctx.theme
    lines: list[tuple[Color, str]] = []
    for event in events:
        colour = _seat_colour(theme, event.seat) if isinstance(event, SeatEvent) else theme.muted
        lines.extend((colour, str(line)) for line in describe_events((event,), ctx.names))
    return lines or [(theme.muted, str(t("Nothing happens in this step.")))]


def _step_title(scene: StepScene) -> str:
    return str(t("Round {round} · step {step}", round=scene.round, step=scene.step))


def _step_chips(events: Sequence[Event], players: int, ctx: RenderContext) -> Chips:
    """A step's chips: all in one row while every name fits whole, else two to a row."""
    columns = (players, 2) if players > 2 else (players,)
    return _chips(STEP_CHIPS_TOP, STEP_WIDTH, players, events, ctx, columns, LOG_FONT, CHIP_H)


def _render_step(scene: StepScene, players: int, ctx: RenderContext) -> Image.Image:
    theme = ctx.theme
    line_font = font(LOG_FONT)
    # A long line of the log goes on over the next lines rather than being cut.
    log = [
        (colour if index == 0 else None, part)
        for colour, line in _step_log(scene.events, ctx)
        for index, part in enumerate(_wrap(line, line_font, STEP_WIDTH - 44, 3))
    ]
    chips = _step_chips(scene.events, players, ctx)
    log_top = chips.bottom + 10
    height = log_top + len(log) * LOG_LINE + 10
    image, draw = new_canvas(STEP_WIDTH, height, palette(theme), theme.background)
    image.paste(_mountain_image(theme, STEP, (STEP_WIDTH, STEP_CHIPS_TOP), True), (0, 0))
    _draw_homes(draw, players, theme, STEP)
    _draw_events(draw, scene.events, STEP, theme)
    _draw_yeti(draw, scene.pos, None, ctx, STEP, True)
    title = _step_title(scene)
    title_font = font(STEP.readable, bold=True)
    draw.label((16, 12), title, title_font, theme.ink)
    _, winner = _roll_off(scene.events, players)
    if winner is not None:
        note = str(t("Roll-off won by {name}", name=_seat_name(ctx, winner)))
        x = 16 + text_length(title, title_font) + 14
        fitted = fit_text(note, font(LOG_FONT), int(STEP_WIDTH - x - 12))
        draw.label((x, 14), fitted, font(LOG_FONT), theme.muted)
    _draw_chips(draw, chips, ctx)
    for i, (colour, line) in enumerate(log):
        y = log_top + i * LOG_LINE + LOG_LINE / 2
        if colour is not None:
            draw.ellipse((14, y - 6, 26, y + 6), fill=colour)
        draw.label((34, y), line, line_font, theme.ink, "lm")
    return image


def _token_text(name: str) -> str:
    """What a yeti's disc shows: its player's initial, and the number of a numbered
    player ("hilltop 2": H2), so that computer players tell apart."""
    words = name.split()
    if not words:
        return ""
    number = words[-1] if len(words) > 1 and words[-1].isascii() and words[-1].isdigit() else ""
    return words[0][:1].upper() + number[:2]


def render_steps(state: EverestState, ctx: RenderContext) -> list[StepPicture]:
    """One picture per step of the resolution the last move set off (`ctx.previous` is
    the state before it): the yeti where they stand at the end of the step, its moves,
    snowballs, roars, falls and hits, the dice of a roll-off, and the step's log. Empty
    when the move resolved nothing."""
    previous = ctx.previous if isinstance(ctx.previous, EverestState) else None
    return [
        StepPicture(_step_title(scene), _render_step(scene, state.players, ctx))
        for scene in step_scenes(state, previous)
    ]


# --- the roll-off winner's choice -------------------------------------------------------


def _wrap(
    text: str, fnt: ImageFont.FreeTypeFont, width: int, max_lines: int, first: int | None = None
) -> list[str]:
    """`text` in at most `max_lines` lines of `width` pixels (the first one `first` px,
    when something stands beside it), broken between words, or inside a word wider than
    a line (a name may be one long word); the last line ends with an ellipsis if the text
    does not fit."""
    lines: list[str] = []
    words = text.split()
    while words and len(lines) < max_lines - 1:
        room = first if first is not None and not lines else width
        count = len(words)
        while count > 1 and text_length(" ".join(words[:count]), fnt) > room:
            count -= 1
        if count == 1 and text_length(words[0], fnt) > room:
            word = words[0]
            cut = max(1, len(word) - 1)
            while cut > 1 and text_length(word[:cut], fnt) > room:
                cut -= 1
            words[:1] = [word[:cut], word[cut:]]
        lines.append(" ".join(words[:count]))
        words = words[count:]
    if words:
        room = first if first is not None and not lines else width
        lines.append(fit_text(" ".join(words), fnt, room))
    return lines


def render_options(
    state: EverestState, seat: int, prefix: tuple[str, ...], ctx: RenderContext
) -> Image.Image | None:
    """What a choice looks like. For a plan being built, its path so far (nothing before
    its first action). For the roll-off winner about to `pick`: the dice and a small board
    per distinct outcome, numbered as in `pick N`, or one outcome at the board's size
    once it is being looked at. None for any other choice."""
    if seat not in state.to_act:
        return None
    if state.stage is Stage.PLAN:
        try:
            actions = state.builder_actions(seat, prefix) if prefix else ()
        except MoveError:
            return None
        return render_plan_preview(state, seat, actions, ctx) if actions else None
    if state.stage is not Stage.PICK:
        return None
    if prefix:
        try:
            move = state.parse_move(seat, " ".join(prefix))
        except MoveError:
            return None
        return render_outcome(state, move.number, ctx) if isinstance(move, Pick) else None
    theme = ctx.theme
    options = state.pick_options()
    width = WIDTH
    thumb_w = THUMB_SIZE[0]
    title, chips = _options_layout(state, seat, ctx)
    height = _option_row(chips, len(options))[1]
    image, draw = new_canvas(width, height, palette(theme), theme.background)
    title_font = font(READABLE + 2, bold=True)
    for row, line in enumerate(title):
        draw.label((OPTIONS_PAD + 4, 10 + row * OPTIONS_TITLE_LINE), line, title_font, theme.ink)
    _draw_chips(draw, chips, ctx)
    words = font(READABLE)
    text_x = OPTIONS_PAD + thumb_w + 16
    for i, option in enumerate(options):
        y = _option_row(chips, i)[1]
        image.paste(render_outcome_thumbnail(option.preview, ctx), (OPTIONS_PAD, y))
        head = str(t("pick {number}", number=option.number))
        draw.label((text_x, y + 4), head, font(READABLE + 2, bold=True), theme.ink)
        for row, line in enumerate(_wrap(str(option.label), words, width - text_x - 12, 4)):
            draw.label((text_x, y + 44 + row * 32), line, words, theme.ink)
    return image


def _options_layout(state: EverestState, seat: int, ctx: RenderContext) -> tuple[list[str], Chips]:
    """The title of the roll-off winner's choice, in one line or two (a long name), and
    the player chips under it, two to a row."""
    title = str(t("{name} won the roll-off: pick an outcome", name=_seat_name(ctx, seat)))
    lines = _wrap(title, font(READABLE + 2, bold=True), WIDTH - 2 * OPTIONS_PAD - 4, 2)
    top = OPTIONS_CHIPS_TOP + (len(lines) - 1) * OPTIONS_TITLE_LINE
    chips = _chips(top, WIDTH, state.players, state.events, ctx, (2,), READABLE, OPTIONS_CHIP_H)
    return lines, chips


def _option_row(chips: Chips, index: int) -> tuple[int, int, int, int]:
    """The row of the roll-off outcome at `index` (0-based) in the outcomes' picture, under
    its `chips`: its small board at the left, its number and words beside it (right and
    bottom excluded). The row past the last one starts where the picture ends."""
    rows_top = chips.bottom + 2 * CHIP_GAP
    top = rows_top + index * (THUMB_SIZE[1] + OPTIONS_PAD)
    return OPTIONS_PAD, top, WIDTH - OPTIONS_PAD, top + THUMB_SIZE[1]


def _render_choice(
    state: EverestState,
    ctx: RenderContext,
    title: str,
    caption: str,
    lines: Sequence[str],
) -> tuple[Image.Image, BoardDraw]:
    """The frame of one choice at the board's size: the mountain and home bases under a
    title and a caption, and `lines` of words under the board. The caller draws the rest."""
    theme = ctx.theme
    line_font = font(CHOICE_FONT)
    wrapped = [part for line in lines for part in _wrap(line, line_font, WIDTH - 2 * 20, 2)]
    height = CHOICE_BOARD_BOTTOM + len(wrapped) * CHOICE_LINE + 12
    image, draw = new_canvas(WIDTH, height, palette(theme), theme.background)
    image.paste(_mountain_image(theme, BOARD, (WIDTH, CHOICE_BOARD_BOTTOM), True), (0, 0))
    _draw_homes(draw, state.players, theme, BOARD)
    title_font = font(READABLE + 2, bold=True)
    draw.label((MARGIN - 20, 8), title, title_font, theme.ink)
    fitted = fit_text(caption, font(READABLE), WIDTH - 2 * (MARGIN - 20))
    draw.label((MARGIN - 20, 44), fitted, font(READABLE), theme.muted)
    for i, line in enumerate(wrapped):
        draw.label((20, CHOICE_BOARD_BOTTOM + i * CHOICE_LINE), line, line_font, theme.ink)
    return image, draw


def _ghost(draw: BoardDraw, sq: int, colour: Color, grid: Grid) -> None:
    """Where a yeti stood before: a ring in its colour."""
    cx, cy = grid.centre(sq)
    r = grid.cell * 0.3
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=colour, width=max(2, grid.cell // 22))


def _frame(draw: BoardDraw, sq: int, colour: Color, grid: Grid) -> None:
    """A square marked as where something ends: a thick frame just inside it."""
    x0, y0, x1, y1 = grid.box(sq)
    inset = max(2, grid.cell // 30)
    width = max(3, grid.cell // 14)
    draw.rectangle((x0 + inset, y0 + inset, x1 - inset, y1 - inset), outline=colour, width=width)


def _step_anchor(events: Sequence[Event], grid: Grid) -> tuple[float, float] | None:
    """Where the number of a plan's action goes: on its move arrow, its snowball's path
    or its roar."""
    for event in events:
        if isinstance(event, Moved):
            if event.start == event.end:
                return grid.toward(event.start, event.direction, 0.3)
            (x0, y0), (x1, y1) = grid.centre(event.start), grid.centre(event.end)
            return (x0 + x1) / 2, (y0 + y1) / 2
        if isinstance(event, WentOff):
            return grid.toward(event.square, event.direction, 0.2)
        if isinstance(event, Threw):
            # Beside the ball's path, so that the splat at the square's edge shows.
            x, y = grid.toward(event.start, event.direction, 0.5)
            vx, vy = _DIR_VEC[event.direction]
            return x - vy * grid.cell * 0.26, y + vx * grid.cell * 0.26
        if isinstance(event, Roared):
            # Beside the roar's arcs, which stay in view.
            x, y = grid.toward(event.square, event.direction, 0.42)
            vx, vy = _DIR_VEC[event.direction]
            return x + vy * grid.cell * 0.3, y - vx * grid.cell * 0.3
    return None


def _badge_radius(grid: Grid) -> float:
    """A plan action's numbered disc: round a number as large as any word."""
    return grid.readable * 0.7


def _badge(draw: BoardDraw, xy: tuple[float, float], text: str, colour: Color, grid: Grid) -> None:
    cx, cy = xy
    r = _badge_radius(grid)
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour, outline=WHITE, width=2)
    text_center(draw, (cx, cy), text, font(grid.readable, bold=True), WHITE)


def render_plan_preview(
    state: EverestState, seat: int, actions: Sequence[int], ctx: RenderContext
) -> Image.Image:
    """The board with `seat`'s plan so far as its path: each action numbered in order,
    moves as arrows, snowballs and roars toward their directions, the square where the
    yeti ends framed, assuming the other yeti stand still."""
    theme = ctx.theme
    need = min(3, bin(state.available(seat)).count("1"))
    preview = state.plan_preview(seat, actions)
    end = preview.pos[seat]
    if end == OFF:
        where = str(t("Your yeti ends off the board and loses the rest of the round."))
    else:
        where = str(
            t(
                "Your yeti ends on {square}, height {height}.",
                square=square_name(end),
                height=HEIGHTS[end],
            )
        )
    steps = " · ".join(f"{i}: {describe_plan((a,))}" for i, a in enumerate(actions, start=1))
    if len(actions) < need:
        title = str(t("Your plan: {done} of {need}", done=len(actions), need=need))
    else:
        title = str(t("Your plan"))
    image, draw = _render_choice(
        state, ctx, title, str(t("if nobody gets in the way")), (steps, where)
    )
    colour = _seat_colour(theme, seat)
    start = state.pos[seat]
    flat = [event for step in preview.steps for event in step]
    _draw_events(draw, flat, BOARD, theme)
    if start != OFF and start != end:
        _ghost(draw, start, colour, BOARD)
    if end != OFF:
        _frame(draw, end, colour, BOARD)
    _draw_yeti(draw, preview.pos, preview.damage, ctx, BOARD, True)
    placed: list[tuple[float, float]] = []
    for number, (action, step) in enumerate(zip(actions, preview.steps, strict=True), start=1):
        anchor = _step_anchor(step, BOARD)
        if anchor is None:
            continue
        # Two actions from one square toward one side: the later number steps aside.
        vx, vy = _DIR_VEC[action & 3]
        apart = 2 * _badge_radius(BOARD) + 2
        while any(math.dist(anchor, other) < apart for other in placed):
            anchor = (anchor[0] + vy * apart, anchor[1] - vx * apart)
        placed.append(anchor)
        _badge(draw, anchor, str(number), colour, BOARD)
    return image


def render_outcome(state: EverestState, number: int, ctx: RenderContext) -> Image.Image:
    """One roll-off outcome at the board's size: its moves, the yeti where they end, and
    each yeti whose square or damage it changes framed, with rings where they stood."""
    theme = ctx.theme
    options = state.pick_options()
    option = options[number - 1]
    after = option.preview
    title = str(t("Outcome {number} of {count}", number=number, count=len(options)))
    picker = state.picker if state.picker is not None else 0
    caption = str(t("{name} won the roll-off", name=_seat_name(ctx, picker)))
    image, draw = _render_choice(state, ctx, title, caption, (str(option.label),))
    _draw_events(draw, after.events, BOARD, theme)
    for s in range(state.players):
        colour = _seat_colour(theme, s)
        if after.pos[s] != state.pos[s] and state.pos[s] != OFF:
            _ghost(draw, state.pos[s], colour, BOARD)
        changed = (after.pos[s], after.damage[s]) != (state.pos[s], state.damage[s])
        if changed and after.pos[s] != OFF:
            _frame(draw, after.pos[s], PEAK_GOLD, BOARD)
    _draw_yeti(draw, after.pos, after.damage, ctx, BOARD, True)
    return image


# --- where the choices are on the picture ------------------------------------------------

#: Which of the plan actions aimed at one square gets its spot: a move before a roar
#: before a snowball, then the fewest points.
_MOVE_FIRST, _ROAR_NEXT, _SNOWBALL_LAST = range(3)


def _plan_target(
    state: EverestState, seat: int, actions: tuple[int, ...], before: int
) -> tuple[int, int]:
    """The square the last of `actions` is aimed at from `before`, where the others leave
    the yeti, and its rank among the actions aimed at one square (`_MOVE_FIRST`…); OFF
    when it is aimed at none. Where the action takes the yeti and what its snowball hits
    are the engine's plan preview, as the plan's picture draws them."""
    action = actions[-1]
    if action & SNOW:
        throw = state.plan_preview(seat, actions).steps[-1]
        hits = [e.end for e in throw if isinstance(e, Threw) and e.flight is Flight.HIT]
        return (hits[0] if hits else OFF), _SNOWBALL_LAST
    if action >> 3:
        end = state.plan_preview(seat, actions).pos[seat]
        return (OFF if end == before else end), _MOVE_FIRST
    return NEXT[before][action & 3], _ROAR_NEXT


def _plan_spots(
    state: EverestState, seat: int, prefix: tuple[str, ...], tokens: tuple[str, ...]
) -> tuple[Spot, ...]:
    """The squares of a plan's next actions, from where the actions chosen so far leave
    the yeti (the square the plan's picture shows it on, or the board's, before the first).

    A move (`AN`, `3E`) is the square it ends on, if it leaves the yeti's square and stays
    on the board; a roar (`0N`) the square next to the yeti that it roars at; a snowball
    (`sN`) the square of the yeti it would hit, if it hits one. The other yeti stand still,
    as in the plan's picture. One square is one button, so when several actions are aimed
    at it the one that takes the yeti there gets it, with the fewest points (they all stop
    there: the others only spend a bigger coin); failing a move, the roar, whose reach is
    exactly the next square; the others are left as buttons."""
    try:
        done = state.builder_actions(seat, prefix)
    except MoveError:
        return ()
    before = state.plan_preview(seat, done).pos[seat]
    if before == OFF:
        return ()
    claims: dict[int, tuple[tuple[int, int], str]] = {}
    for token in tokens:
        try:
            actions = state.builder_actions(seat, (*prefix, token))
        except MoveError:
            continue
        if len(actions) != len(done) + 1:
            continue
        square, rank = _plan_target(state, seat, actions, before)
        if square == OFF:
            continue
        claim = ((rank, actions[-1] >> 3), token)
        if square not in claims or claim[0] < claims[square][0]:
            claims[square] = claim
    return tuple(
        Spot(token, BOARD.box(square))
        for square, (_, token) in sorted(claims.items(), key=lambda item: tokens.index(item[1][1]))
    )


def spots(
    state: EverestState,
    seat: int,
    prefix: tuple[str, ...],
    tokens: tuple[str, ...],
    ctx: RenderContext,
) -> tuple[Spot, ...]:
    """Where `seat`'s choices are on the picture it chooses on (`render_options`, else the
    board): a plan's actions on the squares they are aimed at (`_plan_spots`); a roll-off
    winner's `pick N` on the row of outcome N among the outcomes; a `flee` on the square of
    the roarer it names. The end-of-round choices, and the outcomes browsed one at a time,
    have no place on the picture."""
    if seat not in state.to_act:
        return ()
    if state.stage is Stage.PLAN:
        return _plan_spots(state, seat, prefix, tokens)
    if prefix:
        return ()
    found: list[Spot] = []
    if state.stage is Stage.PICK:
        count = len(state.pick_options())
        _, chips = _options_layout(state, seat, ctx)
        for token in tokens:
            try:
                move = state.parse_move(seat, token)
            except MoveError:
                continue
            if isinstance(move, Pick) and 1 <= move.number <= count:
                found.append(Spot(token, _option_row(chips, move.number - 1)))
    elif state.stage is Stage.FLEE and state.pos[seat] != OFF:
        for token in tokens:
            try:
                move = state.parse_move(seat, token)
            except MoveError:
                continue
            if isinstance(move, Flee) and NEXT[state.pos[seat]][move.direction] != OFF:
                found.append(Spot(token, BOARD.box(NEXT[state.pos[seat]][move.direction])))
    return tuple(found)


RENDERER: Renderer[EverestState] = Renderer(
    render, options=render_options, steps=render_steps, spots=spots
)
