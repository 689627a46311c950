"""The Hillbert hill: the board, the rows that just scrolled away, and a status panel.

Obstacles are drawn by size (grey stone 1x1, brown log 1x2, dark boulder 2x2, each with
its letter S, M or B), food as red apples, Hillbert as an orange square over his whole
footprint, his eyes on the side he rolls toward: down the hill. (The token's facing
changes nothing in the rules, so it is not drawn: an arrow read as a direction.) Above
the board a strip shows, in faded colours, the rows the last turn scrolled off, so the
last turn's path (a red line through every step, dashed for a jump, with an X where an
obstacle stopped him) stays visible from its start. The strip takes only the rows that
scrolled, so the picture grows by them and has no empty band before the first turn.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import lru_cache

from PIL import Image

from engine.core import MoveError
from engine.hillbert import (
    BIG_BOTTOM,
    BIG_TOP,
    COLUMNS,
    EMPTY,
    FOOD,
    HUNGER_LIMIT,
    MEDIUM_OBSTACLE,
    SIZE_NAMES,
    SMALL_OBSTACLE,
    WIDTH,
    HillbertState,
    Turn,
    TurnReport,
    read_turn,
    result_text,
)
from engine.text import Text, t, tn
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

BOARD_X = 44
#: The board and its row numbers, no wider: the figures go under it, so that the picture
#: is narrow and its words stand large on a phone.
IMAGE_WIDTH = BOARD_X + 7 * 66 + 14
#: Every word and number is written at least this large: 12 px on a 360 px phone.
READABLE = readable(IMAGE_WIDTH)
#: The title line; the board (or the strip of scrolled rows) starts below it.
HEADER = 68
#: The height of one scrolled row in the strip above the board.
GHOST_ROW_PX = 26
BOARD_PX_HEIGHT = 462
#: Below the board: the column letters and a margin.
FOOTER = 56
#: The panel under the board: three columns of figures, two rows of them, then the key.
PANEL_X = 24
PANEL_COLUMN = (IMAGE_WIDTH - PANEL_X - 8) // 3
PANEL_ROW = 86

HILL: Color = (208, 226, 176)
HILL_ALT: Color = (196, 216, 162)
GRID: Color = (150, 170, 120)
FRAME: Color = (86, 104, 62)
STONE: Color = (150, 152, 156)
LOG: Color = (150, 96, 52)
BOULDER: Color = (74, 76, 92)
OBSTACLE_TEXT: Color = (255, 255, 255)
APPLE: Color = (214, 40, 40)
LEAF: Color = (40, 130, 50)
BODY: Color = (245, 150, 30)
BODY_EDGE: Color = (150, 70, 0)
ARROW: Color = (60, 30, 0)
BANNER: Color = (40, 38, 36)
WHITE: Color = (255, 255, 255)
SCROLLED_NOTE: Color = (110, 104, 96)
FADE = 0.55
BIG_CELLS = (BIG_TOP, BIG_BOTTOM)


def _fade(colour: Color, background: Color) -> Color:
    r, g, b = (round(c + (bg - c) * FADE) for c, bg in zip(colour, background, strict=True))
    return (r, g, b)


def _same(colour: Color) -> Color:
    return colour


#: What the strip of scrolled rows shows, faded.
FADED_PARTS = (HILL, HILL_ALT, APPLE, LEAF, STONE, LOG, BOULDER)
#: The board's own colours, beside the theme's and the faded ones.
COLOURS = (*FADED_PARTS, FRAME, OBSTACLE_TEXT, BODY, BODY_EDGE, ARROW, BANNER, SCROLLED_NOTE)


@lru_cache(maxsize=4)
def palette(theme: Theme) -> Palette:
    """Hillbert's fixed colours: the theme's, the hill's and its pieces' (also faded into
    the background, for the scrolled rows), and a ramp for each colour of text on what it
    is written on."""
    return Palette(
        (*theme_colours(theme), *COLOURS, *(_fade(c, theme.background) for c in FADED_PARTS)),
        (
            *((colour, theme.background) for colour in (theme.ink, theme.muted, theme.path)),
            (theme.good, theme.background),
            (SCROLLED_NOTE, theme.background),
            *((OBSTACLE_TEXT, paper) for paper in (STONE, LOG, BOULDER)),
            (WHITE, BANNER),
        ),
    )


class _Layout:
    """Pixel geometry for a board of `rows` rows (7 by default; taller boards shrink)
    under a strip of `scrolled` rows (none before the first turn)."""

    def __init__(self, rows: int, scrolled: int) -> None:
        self.rows = rows
        self.cell = min(66, BOARD_PX_HEIGHT // rows)
        self.board_h = self.cell * rows
        self.board_w = self.cell * WIDTH
        self.board_y = HEADER + scrolled * GHOST_ROW_PX
        # As tall for every board, so that a taller board's picture is the usual size.
        self.panel_y = self.board_y + BOARD_PX_HEIGHT + FOOTER
        self.height = self.panel_y + PANEL_H

    def x(self, col: float) -> float:
        return BOARD_X + col * self.cell

    def y(self, row: float) -> float:
        """Top edge of `row` (0-based, may be fractional); negative rows are the strip
        of scrolled rows above the board."""
        if row >= 0:
            return self.board_y + row * self.cell
        return self.board_y + row * GHOST_ROW_PX

    def centre(self, row: int, col: int, size: int) -> tuple[float, float]:
        return (
            (self.x(col) + self.x(col + size)) / 2,
            (self.y(row) + self.y(row + size)) / 2,
        )


def _last_turn(state: HillbertState, ctx: RenderContext) -> tuple[Turn, TurnReport] | None:
    """The last turn and what it did, when `ctx.previous` and `ctx.last_move` lead here."""
    previous = ctx.previous
    if not isinstance(previous, HillbertState) or ctx.last_move is None:
        return None
    try:
        move = ctx.last_move if isinstance(ctx.last_move, Turn) else read_turn(str(ctx.last_move))
        after, report = previous.resolve(move)
    except MoveError:
        return None
    # Only the path is drawn, so a previous state seen without its seed (other new rows)
    # still counts; a different position means the context does not belong here.
    if (after.score, after.col, after.size, after.turns) != (
        state.score,
        state.col,
        state.size,
        state.turns,
    ):
        return None
    return move, report


def _draw_pieces(
    draw: BoardDraw,
    row_text: str,
    top: float,
    height: float,
    cell: int,
    x0: float,
    paint: Callable[[Color], Color],
    letters: bool,
) -> None:
    """Food, stones and logs of one row; boulders only as this row's slice (the board
    draws whole boulders itself)."""
    pad = max(3, cell // 11)
    letter_font = font(max(READABLE, min(24, int(height * 0.42))), bold=True)
    col = 0
    while col < WIDTH:
        ch = row_text[col]
        left = x0 + col * cell
        mid_y = top + height / 2
        if ch == FOOD:
            r = min(cell, height) * 0.3
            cy = mid_y + r * 0.15
            cx = left + cell / 2
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=paint(APPLE))
            draw.ellipse(
                (cx + r * 0.05, cy - r * 1.45, cx + r * 0.75, cy - r * 0.75), fill=paint(LEAF)
            )
        elif ch in (SMALL_OBSTACLE, MEDIUM_OBSTACLE) or (ch in BIG_CELLS and not letters):
            span = 1 if ch == SMALL_OBSTACLE else 2
            colour = {SMALL_OBSTACLE: STONE, MEDIUM_OBSTACLE: LOG}.get(ch, BOULDER)
            draw.rounded_rectangle(
                (left + pad, top + pad, left + span * cell - pad, top + height - pad),
                radius=pad * 2,
                fill=paint(colour),
            )
            if letters:
                letter = "S" if ch == SMALL_OBSTACLE else "M"
                text_center(
                    draw, (left + span * cell / 2, mid_y), letter, letter_font, OBSTACLE_TEXT
                )
            col += span - 1
        col += 1


@lru_cache(maxsize=8)
def _hill(theme: Theme, rows: int) -> Image.Image:
    """The empty board of `rows` rows (shared: copy it, never draw on it)."""
    lay = _Layout(rows, 0)
    image, draw = new_canvas(lay.board_w, lay.board_h, palette(theme), HILL)
    cell = lay.cell
    for r in range(lay.rows):
        for c in range(WIDTH):
            if (r + c) % 2:
                draw.rectangle(
                    (c * cell, r * cell, (c + 1) * cell - 1, (r + 1) * cell - 1), fill=HILL_ALT
                )
    return image


@lru_cache(maxsize=16)
def _layout(theme: Theme, rows: int, scrolled: int, titles: tuple[str, ...]) -> Image.Image:
    """What never changes for a board of `rows` rows under `scrolled` rows: the
    background, the coordinates and the panel's `titles`, in the reader's language
    (shared: copy it, never draw on it)."""
    lay = _Layout(rows, scrolled)
    image, draw = new_canvas(IMAGE_WIDTH, lay.height, palette(theme), theme.background)
    label_font = font(max(22, READABLE), bold=True)
    bottom = lay.board_y + lay.board_h
    for c in range(WIDTH):
        text_center(draw, (lay.x(c) + lay.cell / 2, bottom + 22), COLUMNS[c], label_font, theme.ink)
    for r in range(lay.rows):
        text_center(
            draw, (BOARD_X - 22, lay.y(r) + lay.cell / 2), str(r + 1), label_font, theme.ink
        )
    label = font(READABLE)
    for (column, y, _), title in zip(PANEL_TITLES, titles, strict=True):
        if title:
            where = (PANEL_X + column * PANEL_COLUMN, lay.panel_y + y)
            draw.label(where, fit_text(title, label, PANEL_COLUMN - 8), label, theme.muted)
    _draw_legend(draw, lay, theme)
    return image


def _draw_legend(draw: BoardDraw, lay: _Layout, theme: Theme) -> None:
    """The key to the letters S, M and B, under the panel."""
    label = font(READABLE)
    letter = font(READABLE, bold=True)
    chip = READABLE + 6
    # In the first two columns: the third holds the last turn.
    width = 2 * PANEL_COLUMN - chip - 16
    y = lay.panel_y + LEGEND_TOP
    draw.label((PANEL_X, y), str(t("Obstacles")), label, theme.muted)
    for i, (mark, colour, name) in enumerate(LEGEND):
        top = y + READABLE + 6 + i * (chip + 2)
        draw.rounded_rectangle((PANEL_X, top, PANEL_X + chip, top + chip), radius=4, fill=colour)
        text_center(draw, (PANEL_X + chip / 2, top + chip / 2), mark, letter, OBSTACLE_TEXT)
        where = (PANEL_X + chip + 8, top + chip / 2)
        draw.label(where, fit_text(str(name), label, width), label, theme.ink, "lm")


def _draw_board(state: HillbertState, lay: _Layout, theme: Theme) -> Image.Image:
    """The board in its own image, so boulders cut by its edges are clipped there."""
    image, draw = edit(_hill(theme, lay.rows), palette(theme))
    cell = lay.cell
    pad = max(3, cell // 11)
    for r, row_text in enumerate(state.board):
        _draw_pieces(draw, row_text, r * cell, cell, cell, 0, _same, True)
        for mark, first in ((BIG_TOP, r), (BIG_BOTTOM, r - 1)):
            if mark == BIG_BOTTOM and r > 0:
                continue
            c = 0
            while c < WIDTH:
                if row_text[c] != mark:
                    c += 1
                    continue
                upper, lower = first * cell + pad, (first + 2) * cell - pad
                draw.rounded_rectangle(
                    (c * cell + pad, upper, (c + 2) * cell - pad, lower),
                    radius=pad * 3,
                    fill=BOULDER,
                )
                visible = (max(upper, 0) + min(lower, lay.board_h)) / 2
                text_center(
                    draw, ((c + 1) * cell, visible), "B", font(26, bold=True), OBSTACLE_TEXT
                )
                c += 2
    return image


def _draw_hillbert(draw: BoardDraw, state: HillbertState, lay: _Layout) -> None:
    size, col = state.size, state.col
    inset = max(4, lay.cell // 12)
    box = (lay.x(col) + inset, lay.y(0) + inset, lay.x(col + size) - inset, lay.y(size) - inset)
    draw.rounded_rectangle(box, radius=lay.cell // 4, fill=BODY, outline=BODY_EDGE, width=4)
    cx, cy = lay.centre(0, col, size)
    # Two eyes low on his body, looking down the hill, the way every turn takes him.
    eye = max(7, round(lay.cell * size * 0.12))
    spread = lay.cell * size * 0.2
    low = cy + lay.cell * size * 0.12
    for x in (cx - spread, cx + spread):
        draw.ellipse((x - eye, low - eye, x + eye, low + eye), fill=WHITE, outline=ARROW, width=2)
        pupil = max(2, eye // 2)
        draw.ellipse((x - pupil, low, x + pupil, low + 2 * pupil), fill=ARROW)


def _dashed(
    draw: BoardDraw,
    a: tuple[float, float],
    b: tuple[float, float],
    colour: Color,
    width: int,
) -> None:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = max(1.0, (dx * dx + dy * dy) ** 0.5)
    dash = 12.0
    steps = int(length // dash)
    for i in range(0, steps, 2):
        s, e = i * dash / length, min(1.0, (i + 1) * dash / length)
        draw.line(
            [(a[0] + dx * s, a[1] + dy * s), (a[0] + dx * e, a[1] + dy * e)],
            fill=colour,
            width=width,
        )


def _draw_path(draw: BoardDraw, report: TurnReport, lay: _Layout, colour: Color) -> None:
    shift = report.scrolled
    size = report.size_before
    points = [lay.centre(r - shift, c, size) for r, c in report.path]
    sr, sc = report.start
    draw.rounded_rectangle(
        (lay.x(sc) + 3, lay.y(sr - shift) + 3, lay.x(sc + size) - 3, lay.y(sr - shift + size) - 3),
        radius=8,
        outline=colour,
        width=3,
    )
    for (a, b), length in zip(itertools.pairwise(points), report.lengths, strict=True):
        if length > 1:
            _dashed(draw, a, b, colour, 6)
        else:
            draw.line([a, b], fill=colour, width=6)
    for x, y in points:
        draw.ellipse((x - 6, y - 6, x + 6, y + 6), fill=colour)
    for r, c in report.blocked_by:
        x, y = lay.centre(r - shift, c, 1)
        arm = min(lay.cell, GHOST_ROW_PX * 2 if r - shift < 0 else lay.cell) * 0.3
        draw.line([(x - arm, y - arm), (x + arm, y + arm)], fill=colour, width=7)
        draw.line([(x - arm, y + arm), (x + arm, y - arm)], fill=colour, width=7)


#: The panel's titles above each figure, by column and height from the top of the panel
#: (put in the reader's language when drawn).
JUMP_TITLE = t("Jump")
PANEL_TITLES: tuple[tuple[int, int, Text], ...] = (
    (0, 0, t("Score")),
    (1, 0, t("Size")),
    (2, 0, t("Hungry turns")),
    (0, PANEL_ROW, t("Starves in")),
    (1, PANEL_ROW, JUMP_TITLE),
)
#: The key to the obstacles' letters, below the panel: each letter on its obstacle's
#: colour, its size beside it (the board's labels' size, so it reads as they do).
LEGEND_TOP = 2 * PANEL_ROW - 8
PANEL_H = LEGEND_TOP + 4 * (READABLE + 8) + 6
LEGEND: tuple[tuple[str, Color, Text], ...] = (
    ("S", STONE, t("small, 1×1")),
    ("M", LOG, t("medium, 1×2")),
    ("B", BOULDER, t("big, 2×2")),
)


def _draw_panel(
    draw: BoardDraw,
    state: HillbertState,
    ctx: RenderContext,
    last: tuple[Turn, TurnReport] | None,
    lay: _Layout,
) -> None:
    theme = ctx.theme
    width = PANEL_COLUMN - 8
    label = font(READABLE)
    big = font(44, bold=True)
    value = font(max(21, READABLE), bold=True)
    top = lay.panel_y + READABLE + 4

    def column(index: int) -> int:
        return PANEL_X + index * PANEL_COLUMN

    draw.label((column(0), top - 4), str(state.score), big, theme.ink)
    size = str(t("{size} {side}×{side}", size=SIZE_NAMES[state.size], side=state.size))
    draw.label((column(1), top + 4), fit_text(size, value, width), value, theme.ink)
    pip = 26
    for i in range(HUNGER_LIMIT):
        left = column(2) + i * (pip + 8)
        filled = i < state.hungry
        draw.ellipse(
            (left, top + 6, left + pip, top + 6 + pip),
            fill=theme.path if filled else theme.background,
            outline=theme.ink,
            width=2,
        )
    top += PANEL_ROW
    left_turns = state.turns_to_starve
    starve = str(t("starved") if state.is_over else tn("{n} turn", "{n} turns", n=left_turns))
    colour = theme.path if left_turns <= 1 else theme.ink
    draw.label((column(0), top + 4), fit_text(starve, value, width), value, colour)
    if not state.is_over:  # a run that is over has no jump to come
        ready = state.can_jump
        jump, colour = (t("ready"), theme.good) if ready else (t("next turn"), theme.muted)
        draw.label((column(1), top + 4), fit_text(str(jump), value, width), value, colour)
    # The last turn: its number, the turn itself, what it did (down the third column,
    # into the key's rows, which leave that column free).
    x, y = column(2), lay.panel_y + PANEL_ROW
    draw.label((x, y), str(t("Turn {turn}", turn=state.turns)), label, theme.muted)
    if last is not None:
        move, report = last
        draw.label((x, y + READABLE + 8), fit_text(str(move), value, width), value, theme.path)
        notes = [str(tn("+{n} row", "+{n} rows", n=report.scrolled))]
        if report.eaten:
            # What he ate, counted (the food is not named in English).
            notes.append(str(tn("ate {n}", "ate {n}", n=len(report.eaten))))
        if report.stops:
            notes.append(str(t("stopped")))
        for index, note in enumerate(flow(notes, label, width, 3, " · ")):
            where = (x, y + 2 * READABLE + 22 + index * (READABLE + 6))
            draw.label(where, note, label, theme.ink)


def _draw_scrolled_rows(
    draw: BoardDraw,
    previous: HillbertState,
    report: TurnReport,
    lay: _Layout,
    background: Color,
) -> None:
    """The rows the last turn scrolled off, faded and squeezed into the strip above."""
    rows = [list(r) for r in previous.board[: report.scrolled]]
    for r, c in report.eaten + report.destroyed:
        if r < report.scrolled:
            rows[r][c] = EMPTY
    right = BOARD_X + lay.board_w

    def paint(colour: Color) -> Color:
        return _fade(colour, background)

    for i, cells in enumerate(rows):
        row = i - report.scrolled
        top = lay.y(row)
        draw.rectangle(
            (BOARD_X, top, right - 1, lay.y(row + 1) - 1),
            fill=paint(HILL if i % 2 == 0 else HILL_ALT),
        )
        _draw_pieces(draw, "".join(cells), top, GHOST_ROW_PX, lay.cell, BOARD_X, paint, False)
    # Over the strip's right end, above it: the title line leaves it room.
    note = str(t("scrolled away"))
    draw.label((right, lay.y(-report.scrolled) - 4), note, font(READABLE), SCROLLED_NOTE, "rd")


def _layout_of(state: HillbertState, last: tuple[Turn, TurnReport] | None) -> _Layout:
    """The geometry of the picture of `state` after the `last` turn: its board under the
    rows that turn scrolled off."""
    return _Layout(state.height, last[1].scrolled if last is not None else 0)


def render(state: HillbertState, ctx: RenderContext) -> Image.Image:
    theme = ctx.theme
    last = _last_turn(state, ctx)
    scrolled = last[1].scrolled if last is not None else 0
    lay = _layout_of(state, last)
    over = state.is_over
    titles = tuple("" if over and ti is JUMP_TITLE else str(ti) for _, _, ti in PANEL_TITLES)
    image, draw = edit(_layout(theme, lay.rows, scrolled, titles), palette(theme))
    right = BOARD_X + lay.board_w
    board_y = lay.board_y
    bottom = board_y + lay.board_h

    title = font(28, bold=True)
    name = ctx.name(0, "Hillbert")
    header = name if name == "Hillbert" else f"{name} · Hillbert"
    room = right - BOARD_X
    small = font(READABLE)
    if ctx.caption:
        # The caption on the title's line, at its right; the title takes what is left.
        caption = fit_text(ctx.caption, small, room // 2)
        draw.label((right, 22), caption, small, theme.muted, "ra")
        room -= int(text_length(caption, small)) + 12
    if scrolled:
        room -= int(text_length(str(t("scrolled away")), small)) + 12
    draw.label((BOARD_X, 14), fit_text(header, title, room), title, theme.ink)

    if last is not None and scrolled and isinstance(ctx.previous, HillbertState):
        _draw_scrolled_rows(draw, ctx.previous, last[1], lay, theme.background)
    draw.rectangle((BOARD_X - 4, board_y - 4, right + 3, bottom + 3), fill=FRAME)
    image.paste(_draw_board(state, lay, theme), (BOARD_X, board_y))
    _draw_hillbert(draw, state, lay)
    if last is not None:
        _draw_path(draw, last[1], lay, theme.path)

    _draw_panel(draw, state, ctx, last, lay)

    if state.outcome() is not None:
        mid = board_y + lay.board_h / 2
        centre = (BOARD_X + right) / 2
        draw.rectangle((BOARD_X, mid - 56, right, mid + 56), fill=BANNER)
        text_center(draw, (centre, mid - 18), str(t("Game over")), font(40, bold=True), WHITE)
        summary = str(result_text(state.score, state.turns))
        text_center(
            draw,
            (centre, mid + 30),
            fit_text(summary, font(24), right - BOARD_X - 8),
            font(24),
            WHITE,
        )
    return image


def _path(state: HillbertState, tokens: tuple[str, ...]) -> tuple[tuple[int, int], ...] | None:
    """Hillbert's top-left cell (row, column) at the start and after each step of
    `tokens` that happens, as the engine resolves them: an obstacle that stops a step
    keeps him where he was, and the rest of that direction's steps are lost. None for
    tokens that start no turn."""
    if not tokens:
        return ((0, state.col),)
    try:
        _, report = state._resolve(read_turn(" ".join(tokens)))
    except (MoveError, IndexError):
        return None
    return report.path


def _aim(start: tuple[int, int], step: Turn) -> tuple[int, int]:
    """Where `step` would take Hillbert's top-left cell from `start` if nothing stopped
    it: as many rows down, or columns aside, as its length."""
    row, col = start
    if step.forward:
        return row + sum(step.forward), col
    return row, col + step.side * sum(step.sideways)


def _leading_edge(row: int, col: int, size: int, step: Turn) -> tuple[int, int, int, int] | None:
    """The cells (first row, first column, rows, columns) of the edge of a Hillbert of
    `size` at (`row`, `col`) that leads in the direction of `step`: his bottom row for a
    step forward, his left or right column for one sideways."""
    if step.forward:
        return row + size - 1, col, 1, size
    if step.side < 0:
        return row, col, size, 1
    if step.side > 0:
        return row, col + size - 1, size, 1
    return None


def spots(
    state: HillbertState,
    seat: int,
    prefix: tuple[str, ...],
    tokens: tuple[str, ...],
    ctx: RenderContext,
) -> tuple[Spot, ...]:
    """Each step or jump is the place on the hill it takes Hillbert to, as the engine
    resolves the steps chosen so far and then this one. A step that an obstacle stops (or
    that is lost after a stop) is where it aims, so clicking the obstacle chooses it; the
    preview then says he is stopped. His whole body at each landing would overlap the
    next one (a Medium Hillbert's `d` and `D1` share a row), so the spot is only the edge
    that leads into the step: his bottom row forward, his left or right column sideways.
    That is his one cell when Small."""
    before = _path(state, prefix)
    if before is None:
        return ()
    lay = _layout_of(state, _last_turn(state, ctx))
    found = []
    for token in tokens:
        try:
            step = read_turn(token)
        except MoveError:
            continue
        after = _path(state, (*prefix, token))
        if after is None or len(step.forward + step.sideways) != 1:
            continue
        landing = after[-1] if len(after) > len(before) else _aim(before[-1], step)
        edge = _leading_edge(*landing, state.size, step)
        if edge is None:
            continue
        top, left, rows, cols = edge
        if top < 0 or left < 0 or top + rows > lay.rows or left + cols > WIDTH:
            continue
        box = (lay.x(left), lay.y(top), lay.x(left + cols), lay.y(top + rows))
        found.append(Spot(token, (int(box[0]), int(box[1]), int(box[2]), int(box[3]))))
    return tuple(found)


RENDERER: Renderer[HillbertState] = Renderer(render, spots=spots)
