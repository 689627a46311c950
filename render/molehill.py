"""Mole Hill board: the lawn with rods, the mole's trail of pieces, flowers and scores."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from PIL import Image

from engine.core import MoveError
from engine.molehill import (
    CENTRE,
    COLS,
    EAST_EDGES,
    EDGE_SQUARES,
    EDGES,
    FILES,
    NEIGHBOUR_DIRECTION,
    ORANGE,
    ROWS,
    SEAT_NAMES,
    SIDE_EDGES,
    SIDE_LETTERS,
    SIDE_WORDS,
    SQUARE_INDEX,
    SQUARE_NAMES,
    MoleHillState,
    Place,
    Rod,
    Step,
    read_move,
)
from engine.text import t, tn
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
    fitting_font,
    flow,
    font,
    new_canvas,
    readable,
    text_center,
    theme_colours,
)

CELL = 76
BOARD_X = 34
WIDTH = BOARD_X + COLS * CELL + 14
#: Every word and number is written at least this large: 12 px on a 360 px phone.
READABLE = readable(WIDTH)
LINE = READABLE + 8
#: The status line, then one box per round (who is mole, the score), then the board.
ROUND_TOP = 12 + LINE + 6
ROUND_H = 2 * LINE + 8
BOARD_Y = ROUND_TOP + 2 * (ROUND_H + 8) + 6
#: Under the board: the files, then the footer's lines.
FOOTER_Y = BOARD_Y + ROWS * CELL + LINE + 10
FOOTER_LINES = 2
HEIGHT = FOOTER_Y + FOOTER_LINES * LINE + 8

LAWN: tuple[Color, Color] = ((124, 176, 92), (112, 164, 82))
GRID: Color = (72, 112, 56)
SOIL: Color = (150, 108, 66)
SOIL_RIM: Color = (92, 62, 36)
ORANGE_PIECE: Color = (243, 138, 28)
DARK_PIECE: Color = (52, 46, 44)
MOLE: Color = (104, 70, 46)
ROD: Color = (250, 250, 244)
ROD_EDGE: Color = (44, 44, 44)
RED_FLOWER: Color = (214, 36, 44)
WHITE_FLOWER: Color = (252, 252, 252)
FLOWER_EYE: Color = (250, 204, 40)
VISITED_BADGE: Color = (255, 226, 90)
TARGET: Color = (255, 236, 120)
WHITE: Color = (255, 255, 255)
#: A rod the gardener is about to place, and the squares it would cut off from the mole.
PROPOSED: Color = (36, 104, 232)
CUT_OFF: Color = (156, 158, 142)
#: The board's own colours, beside the theme's.
COLOURS: tuple[Color, ...] = (
    *LAWN,
    GRID,
    SOIL,
    SOIL_RIM,
    ORANGE_PIECE,
    DARK_PIECE,
    MOLE,
    ROD,
    ROD_EDGE,
    RED_FLOWER,
    WHITE_FLOWER,
    FLOWER_EYE,
    VISITED_BADGE,
    TARGET,
    WHITE,
    PROPOSED,
    CUT_OFF,
)

#: Sized to read at the ~550 px Discord shows a board at (this one is 760 px wide). The
#: flower sits in its square's top-left corner, turned so that no petal points at the
#: middle of the square: the number on a piece there stays clear of it.
_FLOWER_AT = 13
_PETALS = ((8, 1), (1, 8), (-7, 3), (-5, -5), (3, -7))
_PETAL = 8


def _cell_box(square: int) -> tuple[int, int, int, int]:
    """A square's cell: from its grid lines on the left and top to the next ones. Filled
    as it is, it takes those next lines too (drawn over them afterwards); as a spot, whose
    right and bottom are excluded, it is the cell alone."""
    col, row = square % COLS, square // COLS
    x0 = BOARD_X + col * CELL
    y0 = BOARD_Y + (ROWS - 1 - row) * CELL
    return x0, y0, x0 + CELL, y0 + CELL


def _centre(square: int) -> tuple[int, int]:
    x0, y0, _, _ = _cell_box(square)
    return x0 + CELL // 2, y0 + CELL // 2


def _last_move(ctx: RenderContext) -> Place | Step | Rod | None:
    move = ctx.last_move
    if isinstance(move, Place | Step | Rod):
        return move
    if isinstance(move, str):
        try:
            read = read_move(move)
        except MoveError:
            return None
        if isinstance(read, Rod):
            return read
        keyword, square = read
        return Place(square) if keyword == "place" else Step(square)
    return None


@lru_cache(maxsize=4)
def palette(theme: Theme) -> Palette:
    """Mole Hill's fixed colours: the theme's, the lawn's and the pieces', and a ramp for
    each colour of text on what it is written on."""
    return Palette(
        (*theme_colours(theme), *COLOURS),
        (
            (theme.ink, theme.background),
            (theme.muted, theme.background),
            (theme.ink, WHITE),
            (theme.muted, WHITE),
            (WHITE, SOIL),
            (ROD_EDGE, ORANGE_PIECE),
            (WHITE, DARK_PIECE),
            (WHITE, MOLE),
        ),
    )


def _disc(draw: BoardDraw, xy: tuple[int, int], r: int, fill: Color, line: Color) -> None:
    x, y = xy
    draw.ellipse((x - r, y - r, x + r, y + r), fill=fill, outline=line, width=2)


def _flower_centre(square: int) -> tuple[int, int]:
    x0, y0, _, _ = _cell_box(square)
    return x0 + _FLOWER_AT, y0 + _FLOWER_AT


def _badge(draw: BoardDraw, square: int) -> None:
    """The mark of a flower the mole has visited: drawn under the pieces, so that it
    rings the flower without covering a piece's number."""
    _disc(draw, _flower_centre(square), 21, VISITED_BADGE, ROD_EDGE)


def _flower(draw: BoardDraw, square: int, fill: Color) -> None:
    x, y = _flower_centre(square)
    for dx, dy in _PETALS:
        _disc(draw, (x + dx, y + dy), _PETAL, fill, ROD_EDGE)
    _disc(draw, (x, y), 5, FLOWER_EYE, ROD_EDGE)


def _rod_box(edge: int, half: int = 5) -> tuple[int, int, int, int]:
    a, _ = EDGE_SQUARES[edge]
    x0, y0, x1, y1 = _cell_box(a)
    if edge < EAST_EDGES:
        return x1 - half, y0 - 2, x1 + half, y1 + 2
    return x0 - 2, y0 - half, x1 + 2, y0 + half


def _header(
    draw: BoardDraw,
    state: MoleHillState,
    ctx: RenderContext,
    names: tuple[str, str],
    last: Place | Step | Rod | None,
    preview: bool,
) -> None:
    theme = ctx.theme
    mole, gardener = names[state.mole_seat], names[state.gardener_seat]
    outcome = state.outcome()
    if outcome is not None:
        if outcome.is_draw:
            first, second = outcome.scores[0], outcome.scores[1]
            status = t("Game over: a draw, {first}–{second}", first=first, second=second)
        else:
            (winner,) = outcome.winners
            high, low = max(outcome.scores), min(outcome.scores)
            status = t(
                "Game over: {name} wins {high}–{low}", name=names[winner], high=high, low=low
            )
    elif state.phase == "g":
        status = t("{name} (gardener) places a rod", name=gardener)
    elif not state.path:
        status = t("{name} (mole) places the stack", name=mole)
    elif state.can_jump:
        status = t("{name} (mole) moves: may jump anywhere", name=mole)
    else:
        status = t("{name} (mole) moves", name=mole)
    room = WIDTH - 2 * BOARD_X
    shown = ctx.caption or str(status)
    bold = fitting_font(shown, READABLE + 2, room, bold=True, smallest=READABLE)
    draw.label((BOARD_X, 12), fit_text(shown, bold, room), bold, theme.ink)
    words, score_font = font(READABLE), font(READABLE, bold=True)
    for index in range(2):
        y0 = ROUND_TOP + index * (ROUND_H + 8)
        current = state.round_no == index + 1 and outcome is None
        draw.rounded_rectangle(
            (BOARD_X, y0, WIDTH - BOARD_X, y0 + ROUND_H),
            radius=8,
            fill=WHITE,
            outline=theme.highlight if current else theme.muted,
            width=4 if current else 1,
        )
        round_mole, round_gardener = names[index], names[1 - index]
        line = t(
            "Round {round}: mole {mole}, gardener {gardener}",
            round=index + 1,
            mole=round_mole,
            gardener=round_gardener,
        )
        draw.label((BOARD_X + 10, y0 + 6), fit_text(str(line), words, room - 20), words, theme.ink)
        if index == 0:
            score = state.first_score if state.round_no == 2 else state.round_score()
            done = state.round_no == 2
        else:
            score = state.round_score() if state.round_no == 2 else -1
            done = state.phase == "x"
        # The scores are bare numbers in English; a language may add its word for points.
        if score < 0:
            text = t("not played yet")
        elif done:
            text = tn("{name} scored {n}", "{name} scored {n}", n=score, name=round_mole)
        else:
            text = tn("{name}: {n} so far", "{name}: {n} so far", n=score, name=round_mole)
        draw.label(
            (BOARD_X + 10, y0 + 6 + LINE),
            fit_text(str(text), score_font, room - 20),
            score_font,
            theme.ink if score >= 0 else theme.muted,
        )


@lru_cache(maxsize=4)
def _lawn(theme: Theme) -> Image.Image:
    """What never changes: the background, lawn, grid, centre hole and coordinates
    (shared: copy it, never draw on it)."""
    image, draw = new_canvas(WIDTH, HEIGHT, palette(theme), theme.background)
    for square in range(COLS * ROWS):
        col, row = square % COLS, square // COLS
        draw.rectangle(_cell_box(square), fill=SOIL if square == CENTRE else LAWN[(col + row) % 2])
    x1, y1 = BOARD_X + COLS * CELL, BOARD_Y + ROWS * CELL
    for col in range(COLS + 1):
        x = BOARD_X + col * CELL
        draw.line((x, BOARD_Y, x, y1), fill=GRID, width=1)
    for row in range(ROWS + 1):
        y = BOARD_Y + row * CELL
        draw.line((BOARD_X, y, x1, y), fill=GRID, width=1)
    draw.rectangle((BOARD_X - 2, BOARD_Y - 2, x1 + 2, y1 + 2), outline=ROD_EDGE, width=3)
    cx, cy = _centre(CENTRE)
    draw.ellipse((cx - 31, cy - 31, cx + 31, cy + 31), outline=SOIL_RIM, width=3)
    label = font(READABLE, bold=True)
    for col in range(COLS):
        centre = (BOARD_X + col * CELL + CELL // 2, y1 + 6 + LINE // 2)
        text_center(draw, centre, FILES[col], label, theme.ink)
    for row in range(ROWS):
        text_center(
            draw,
            ((BOARD_X - 3) // 2, BOARD_Y + (ROWS - 1 - row) * CELL + CELL // 2),
            str(row + 1),
            label,
            theme.ink,
        )
    return image


def render(state: MoleHillState, ctx: RenderContext) -> Image.Image:
    return _draw(state, ctx)


def _draw(
    state: MoleHillState, ctx: RenderContext, proposed: int = -1, cut_off: int = 0
) -> Image.Image:
    """The board; with `proposed` an edge, that rod drawn as not placed yet and the
    squares of mask `cut_off` greyed (the rod would part them from the mole)."""
    theme = ctx.theme
    image, draw = edit(_lawn(theme), palette(theme))
    names = (ctx.name(0, SEAT_NAMES[0]), ctx.name(1, SEAT_NAMES[1]))
    last = _last_move(ctx)
    _header(draw, state, ctx, names, last, proposed >= 0)

    visited = set(state.path)
    here = state.path[-1] if state.path else -1
    for square in range(COLS * ROWS):
        if cut_off >> square & 1:
            x0, y0, x1, y1_cell = _cell_box(square)
            draw.rectangle((x0 + 1, y0 + 1, x1 - 1, y1_cell - 1), fill=CUT_OFF)
    # Where the mole may go next.
    if state.phase == "m" and state.path:
        jump = state.can_jump
        for target in state.mole_targets():
            x, y = _centre(target)
            if not jump:
                bx0, by0, bx1, by1 = _cell_box(target)
                draw.rectangle((bx0 + 4, by0 + 4, bx1 - 4, by1 - 4), outline=TARGET, width=4)
            _disc(draw, (x, y), 9, TARGET, ROD_EDGE)

    # The trail: a line between squares entered by a step (a jump is left unjoined).
    highlight_step = isinstance(last, Place | Step) and last.square == here
    for index in range(1, len(state.path)):
        a, b = state.path[index - 1], state.path[index]
        if NEIGHBOUR_DIRECTION[a][b] < 0:
            continue
        is_last = highlight_step and index == len(state.path) - 1
        draw.line(
            (*_centre(a), *_centre(b)),
            fill=theme.highlight if is_last else ROD_EDGE,
            width=6 if is_last else 3,
        )

    for square in (*state.red, *state.white):
        if square in visited:
            _badge(draw, square)

    number = font(READABLE, bold=True)
    for index, square in enumerate(state.path):
        piece = ORANGE_PIECE if index < ORANGE else DARK_PIECE
        xy = _centre(square)
        if square == here:
            continue
        _disc(draw, xy, 24, piece, ROD_EDGE)
        text_center(draw, xy, str(index + 1), number, ROD_EDGE if index < ORANGE else WHITE)

    if here >= 0:
        if highlight_step:
            bx0, by0, bx1, by1 = _cell_box(here)
            draw.rectangle((bx0 + 2, by0 + 2, bx1 - 2, by1 - 2), outline=theme.highlight, width=5)
        piece = ORANGE_PIECE if len(state.path) <= ORANGE else DARK_PIECE
        xy = _centre(here)
        _disc(draw, xy, 32, piece, ROD_EDGE)
        _disc(draw, xy, 25, MOLE, ROD_EDGE)
        # The pieces left in the stack (the footer says so in words).
        text_center(draw, xy, str(state.pieces_left), number, WHITE)

    # Flowers above the pieces, in the corner, so that both stay visible.
    for square in state.red:
        _flower(draw, square, RED_FLOWER)
    for square in state.white:
        _flower(draw, square, WHITE_FLOWER)

    # Rods on top, the last one filled with the highlight colour.
    for edge in range(EDGES):
        if state.rods >> edge & 1:
            is_last = isinstance(last, Rod) and last.edge == edge
            draw.rectangle(
                _rod_box(edge), fill=theme.highlight if is_last else ROD, outline=ROD_EDGE, width=2
            )
    if proposed >= 0:
        draw.rectangle(_rod_box(proposed, 8), fill=PROPOSED, outline=ROD_EDGE, width=2)

    # Footer: the stack and the gardener's supply, or what a proposed rod shows.
    orange = tn("{n} orange", "{n} orange", n=state.orange_left)
    parts = [
        str(
            tn(
                "Stack: {n} left ({orange})",
                "Stack: {n} left ({orange})",
                n=state.pieces_left,
                orange=orange,
            )
        ),
        str(t("Rods placed: {n}", n=state.rods_placed)),
        str(t("Flowers: red +2, white +1")),
    ]
    if last is not None and proposed < 0:
        parts.append(str(t("Last: {move}", move=str(last))))
    if proposed >= 0:
        parts = [str(t("Blue: the rod you chose, not placed yet"))]
        if cut_off:
            parts.append(str(t("Grey: what it cuts off")))
    small = font(READABLE)
    lines = flow(parts, small, WIDTH - 2 * BOARD_X, FOOTER_LINES)
    for index, line in enumerate(lines):
        draw.label((BOARD_X, FOOTER_Y + index * LINE), line, small, theme.ink)
    return image


def render_steps(state: MoleHillState, ctx: RenderContext) -> list[StepPicture]:
    """When the last move ended round 1, the lawn as that round left it: the next board
    is already round 2's empty lawn, and the trail that scored would never be seen."""
    previous = ctx.previous if isinstance(ctx.previous, MoleHillState) else None
    last = _last_move(ctx)
    if previous is None or last is None or previous.round_no != 1 or state.round_no != 2:
        return []
    try:
        lawn = previous.lawn_after(last)
    except MoveError:
        return []
    names = (ctx.name(0, SEAT_NAMES[0]), ctx.name(1, SEAT_NAMES[1]))
    caption = str(
        tn(
            "Round 1 is over: {name} scored {n} point",
            "Round 1 is over: {name} scored {n} points",
            n=state.first_score,
            name=names[0],
        )
    )
    title = str(t("Round 1: the last lawn"))
    return [StepPicture(title, render(lawn, replace(ctx, caption=caption)))]


def render_options(
    state: MoleHillState, seat: int, prefix: tuple[str, ...], ctx: RenderContext
) -> Image.Image | None:
    """The rod the builder's `prefix` names, drawn in place before it is confirmed, with
    the squares it would cut off from the mole; None before a rod is chosen."""
    choice = state.rod_choice(prefix)
    if choice is None:
        return None
    square, side = choice
    edge = SIDE_EDGES[square][side]
    before, after = state.reach_with_rod(edge)
    rod = t("Rod {side} of {square}", side=SIDE_WORDS[side], square=SQUARE_NAMES[square])
    if not after:
        caption = t("{rod} closes the mole in", rod=str(rod))
    else:
        caption = tn(
            "{rod}? The mole can reach {n} square",
            "{rod}? The mole can reach {n} squares",
            n=after.bit_count(),
            rod=str(rod),
        )
    return _draw(state, replace(ctx, caption=str(caption)), edge, before & ~after)


#: How deep a side's spot reaches into its square: a third of it, so that the four sides
#: share the rim of the square and leave its middle (the mole, when it stands there) free.
_SIDE_DEPTH = CELL // 3


def _side_box(square: int, side: int, beyond: int) -> tuple[int, int, int, int]:
    """The spot of `side` (0 n, 1 e, 2 s, 3 w) of `square`: a band along that edge, from
    `_SIDE_DEPTH` inside the square to `beyond` outside it. The four bands turn like a
    pinwheel, each taking one corner, so they never overlap and are all the same size."""
    x0, y0, x1, y1 = _cell_box(square)
    depth = _SIDE_DEPTH
    if side == 0:
        return x0, y0 - beyond, x1 - depth, y0 + depth
    if side == 1:
        return x1 - depth, y0, x1 + beyond, y1 - depth
    if side == 2:
        return x0 + depth, y1 - depth, x1, y1 + beyond
    return x0 - beyond, y0 + depth, x0 + depth, y1


def spots(
    state: MoleHillState,
    seat: int,
    prefix: tuple[str, ...],
    tokens: tuple[str, ...],
    ctx: RenderContext,
) -> tuple[Spot, ...]:
    """Where each choice is on the lawn. A square (where the mole goes, or a square to put
    a rod beside) is its cell. A side of the mole's square, offered beside the squares
    (`d4n`), is a band inside the mole's cell along that edge, clear of the neighbouring
    cells, which are choices too. Once a square is chosen only its sides are offered, so
    each band reaches as far beyond the edge as inside it: the rod's line is in the middle.
    A chosen rod is drawn by `render_options` on the same lawn, with nothing left to
    choose."""
    found = []
    for token in tokens:
        square = SQUARE_INDEX.get(token)
        if square is not None:
            found.append(Spot(token, _cell_box(square)))
            continue
        if state.phase != "g":
            continue
        if len(prefix) == 1 and token in SIDE_LETTERS:
            square = SQUARE_INDEX.get(prefix[0])
            if square is not None:
                found.append(Spot(token, _side_box(square, SIDE_LETTERS.index(token), _SIDE_DEPTH)))
            continue
        choice = state.rod_choice((token,)) if not prefix else None
        if choice is not None:
            square, side = choice
            found.append(Spot(token, _side_box(square, side, 0)))
    return tuple(found)


RENDERER: Renderer[MoleHillState] = Renderer(
    render, options=render_options, steps=render_steps, spots=spots
)
