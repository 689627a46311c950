"""The Hokito board: 6×6 squares, each showing its stack from the top.

A square shows the top pawn as a disc in its colour with its value, the pawns beneath as
rings peeking out below it, and the stack's height as a badge. The last move's path is a
coloured line from a marked origin through every landing square.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image

from engine.hokito import (
    SEAT_TITLES,
    SIZE,
    SQUARE_INDEX,
    SQUARES,
    HokitoMove,
    HokitoState,
    pawn_colour,
)
from engine.text import t, tn
from render.core import (
    BoardDraw,
    Color,
    Palette,
    RenderContext,
    Renderer,
    Spot,
    Theme,
    edit,
    fit_text,
    flow,
    font,
    new_canvas,
    readable,
    text_center,
    text_length,
    theme_colours,
)

WIDTH = 720
#: Every word and number is written at least this large: 12 px on a 360 px phone.
READABLE = readable(WIDTH)
LINE = READABLE + 8
CELL = 104
BOARD_X = 56
#: The players, then up to two lines of status, then the board.
STATUS_Y = 96
BOARD_Y = STATUS_Y + 2 * LINE + 12
BOARD_PX = CELL * SIZE
HEIGHT = BOARD_Y + BOARD_PX + 56 + LINE
RADIUS = 36
#: At most this many rings are drawn beneath a top pawn; the badge gives the exact height.
MAX_RINGS = 4
RING_STEP = 5

LIGHT: Color = (236, 214, 170)
DARK: Color = (214, 184, 134)
FRAME: Color = (112, 82, 50)
BLACK_PAWN: Color = (34, 32, 30)
WHITE_PAWN: Color = (250, 248, 242)
BLACK_TEXT: Color = (250, 248, 242)
WHITE_TEXT: Color = (34, 32, 30)
OUTLINE: Color = (20, 18, 16)
BADGE: Color = (46, 92, 168)
BADGE_TEXT: Color = (255, 255, 255)
MARK: Color = (250, 226, 150)
#: The board's own colours, beside the theme's.
COLOURS = (LIGHT, DARK, FRAME, BLACK_PAWN, WHITE_PAWN, OUTLINE, BADGE, BADGE_TEXT, MARK)


def square_center(square: int) -> tuple[int, int]:
    """Pixel centre of a square (rank 1 at the bottom, file a on the left)."""
    file, rank = square % SIZE, square // SIZE
    return BOARD_X + file * CELL + CELL // 2, BOARD_Y + (SIZE - 1 - rank) * CELL + CELL // 2


def _square_box(square: int) -> tuple[int, int, int, int]:
    """The square's pixels as Pillow fills them: right and bottom included."""
    x, y = square_center(square)
    half = CELL // 2
    return x - half, y - half, x + half - 1, y + half - 1


def _move_path(ctx: RenderContext) -> tuple[int, ...]:
    move = ctx.last_move
    if not isinstance(move, HokitoMove):
        return ()
    if move.path:
        return move.path
    previous = ctx.previous
    if isinstance(previous, HokitoState):
        path = previous.destinations(move.origin).get(move.destination)
        if path:
            return path
    return (move.origin, move.destination)


@lru_cache(maxsize=4)
def palette(theme: Theme) -> Palette:
    """Hokito's fixed colours: the theme's, the board's and the pawns', and a ramp for each
    colour of text on what it is written on."""
    return Palette(
        (*theme_colours(theme), *COLOURS),
        (
            (theme.ink, theme.background),
            (theme.ink, MARK),
            (theme.muted, theme.background),
            (BLACK_TEXT, BLACK_PAWN),
            (WHITE_TEXT, WHITE_PAWN),
            (BADGE_TEXT, BADGE),
        ),
    )


@lru_cache(maxsize=4)
def _board(theme: Theme) -> Image.Image:
    """What never changes: the background, the frame, the squares and their coordinates
    (shared: copy it, never draw on it)."""
    image, draw = new_canvas(WIDTH, HEIGHT, palette(theme), theme.background)
    draw.rectangle(
        (BOARD_X - 6, BOARD_Y - 6, BOARD_X + BOARD_PX + 5, BOARD_Y + BOARD_PX + 5), fill=FRAME
    )
    for square in range(SQUARES):
        draw.rectangle(_square_box(square), fill=_square_colour(square))
    label_font = font(26, bold=True)
    for i in range(SIZE):
        x = BOARD_X + i * CELL + CELL // 2
        text_center(draw, (x, BOARD_Y + BOARD_PX + 28), "abcdef"[i], label_font, theme.ink)
        y = BOARD_Y + (SIZE - 1 - i) * CELL + CELL // 2
        text_center(draw, (BOARD_X - 30, y), str(i + 1), label_font, theme.ink)
    return image


def _square_colour(square: int) -> Color:
    file, rank = square % SIZE, square // SIZE
    return DARK if (file + rank) % 2 == 0 else LIGHT


def _draw_header(draw: BoardDraw, state: HokitoState, ctx: RenderContext) -> None:
    theme = ctx.theme
    scores = state.scores()
    outcome = state.outcome()
    name_font = font(26, bold=True)
    score_font = font(READABLE)
    half = WIDTH // 2
    sides = [str(side) for side in SEAT_TITLES]  # in the reader's language
    for seat in (0, 1):
        left = 20 + seat * half
        # The side to move, or once the game is over its winner, stands out.
        # (A game that ended off the board marks nobody: its caption says who won.)
        if outcome is None:
            marked = state.to_move == seat and not ctx.caption
        else:
            marked = seat in outcome.winners
        if marked:
            draw.rounded_rectangle(
                (left - 8, 10, left + half - 32, 86), radius=12, fill=MARK, outline=FRAME, width=2
            )
        disc = BLACK_PAWN if seat == 0 else WHITE_PAWN
        draw.ellipse((left, 24, left + 32, 56), fill=disc, outline=OUTLINE, width=2)
        name = fit_text(ctx.name(seat, sides[seat]), name_font, half - 100)
        draw.label((left + 44, 22), name, name_font, theme.ink)
        # "pts" even for 1, as the board always wrote it.
        score = tn("{side} · {n} pts", "{side} · {n} pts", n=scores[seat], side=sides[seat])
        draw.label((left + 44, 54), str(score), score_font, theme.ink)
    if outcome is None and ctx.caption:
        status = ctx.caption  # a game that ended off the board says how, not who is to move
    elif outcome is None:
        side = sides[state.to_move]
        status = str(t("{name} ({side}) to move", name=ctx.name(state.to_move, side), side=side))
    elif outcome.winners:
        (winner,) = outcome.winners
        high, low = max(scores), min(scores)
        stuck = sides[state.to_move]
        who = ctx.name(winner, sides[winner])
        if who != sides[winner]:
            who = f"{who} ({sides[winner]})"
        status = str(
            t(
                "Game over: {stuck} has no legal move; {winner} wins {high} to {low}.",
                stuck=stuck,
                winner=who,
                high=high,
                low=low,
            )
        )
    else:
        stuck = sides[state.to_move]
        status = str(
            tn(
                "Game over: {stuck} has no legal move; a draw at {n} point each.",
                "Game over: {stuck} has no legal move; a draw at {n} points each.",
                n=scores[0],
                stuck=stuck,
            )
        )
    # The result sentence is long: it takes a second line rather than a smaller type.
    status_font = font(READABLE, bold=outcome is not None)
    lines = flow(status.split(" "), status_font, WIDTH - 30, 2, " ")
    # One line stands in the middle of the room for two.
    top = STATUS_Y + (2 - len(lines)) * LINE // 2
    for index, line in enumerate(lines):
        centre = (WIDTH // 2, top + LINE // 2 + index * LINE)
        text_center(draw, centre, line, status_font, theme.ink)


def _draw_path(draw: BoardDraw, path: tuple[int, ...], ctx: RenderContext) -> None:
    colour = ctx.theme.path
    points = [square_center(s) for s in path]
    draw.line(points, fill=colour, width=7, joint="curve")
    for x, y in points[1:-1]:
        draw.ellipse((x - 7, y - 7, x + 7, y + 7), fill=colour)
    x, y = points[0]
    draw.ellipse((x - 20, y - 20, x + 20, y + 20), outline=colour, width=6)


def _draw_stack(draw: BoardDraw, square: int, stack: tuple[int, ...]) -> None:
    x, y = square_center(square)
    y -= min(len(stack) - 1, MAX_RINGS) * RING_STEP // 2
    below = stack[:-1][-MAX_RINGS:]
    for depth, pawn in enumerate(reversed(below), start=1):
        cy = y + depth * RING_STEP
        fill = BLACK_PAWN if pawn_colour(pawn) == 0 else WHITE_PAWN
        draw.ellipse(
            (x - RADIUS, cy - RADIUS, x + RADIUS, cy + RADIUS), fill=fill, outline=OUTLINE, width=2
        )
    top = stack[-1]
    black = pawn_colour(top) == 0
    draw.ellipse(
        (x - RADIUS, y - RADIUS, x + RADIUS, y + RADIUS),
        fill=BLACK_PAWN if black else WHITE_PAWN,
        outline=OUTLINE,
        width=3,
    )
    text_center(
        draw, (x, y), str(abs(top)), font(40, bold=True), BLACK_TEXT if black else WHITE_TEXT
    )
    if len(stack) > 1:
        label = f"×{len(stack)}"
        badge_font = font(READABLE, bold=True)
        left, top_px, _, _ = _square_box(square)
        width = int(text_length(label, badge_font)) + 10
        # Bottom right, over the rings: the pawn's number stays clear.
        box = (
            left + CELL - width - 3,
            top_px + CELL - READABLE - 7,
            left + CELL - 3,
            top_px + CELL - 3,
        )
        draw.rounded_rectangle(box, radius=8, fill=BADGE)
        text_center(
            draw, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2 + 1), label, badge_font, BADGE_TEXT
        )


def render(state: HokitoState, ctx: RenderContext) -> Image.Image:
    theme = ctx.theme
    image, draw = edit(_board(theme), palette(theme))
    _draw_header(draw, state, ctx)

    path = _move_path(ctx)
    if path:
        for end in {path[0], path[-1]}:
            draw.rectangle(_square_box(end), fill=theme.highlight)
        _draw_path(draw, path, ctx)
    for square, stack in enumerate(state.board):
        if stack:
            _draw_stack(draw, square, stack)
    if ctx.caption and state.outcome() is not None:
        cap_font = font(READABLE)
        text_center(
            draw,
            (WIDTH // 2, HEIGHT - LINE // 2 - 4),
            fit_text(ctx.caption, cap_font, WIDTH - 30),
            cap_font,
            theme.muted,
        )
    return image


def spots(
    state: HokitoState,
    seat: int,
    prefix: tuple[str, ...],
    tokens: tuple[str, ...],
    ctx: RenderContext,
) -> tuple[Spot, ...]:
    """Every choice of the builder is a square (the pawn or stack to move, then where it
    lands), so each token's spot is its whole square on the board."""
    found = []
    for token in tokens:
        square = SQUARE_INDEX.get(token)
        if square is not None:
            left, top, right, bottom = _square_box(square)
            found.append(Spot(token, (left, top, right + 1, bottom + 1)))
    return tuple(found)


RENDERER: Renderer[HokitoState] = Renderer(render, spots=spots)
