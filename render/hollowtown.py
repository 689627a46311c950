"""Hollowtown board image: the 3×3 town on the left, the Market, the Bank and both
players on the right, whose turn above, the last action and Harvest below."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image

from engine.hollowtown import (
    BEEHIVE,
    CELL_INDEX,
    CELL_NAMES,
    DOOKY_LAST,
    EMPTY,
    HOUSE,
    MUSHROOM,
    OVER,
    SEATS,
    STALL_ROUNDS,
    TYPE_LABELS,
    TYPE_WORDS,
    TYPES,
    HollowtownMove,
    HollowtownState,
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
    fitting_font,
    flow,
    font,
    new_canvas,
    readable,
    text_center,
    theme_colours,
)

WIDTH = 760
#: Every word and number is written at least this large: 12 px on a 360 px phone.
READABLE = readable(WIDTH)
LINE = READABLE + 8
CELL = 124
TOWN_X, TOWN_Y = 44, 98
PANEL_X, PANEL_W = 430, 316
MARKET_Y, ROW_H = 98, 76
BANK_Y = MARKET_Y + 3 * ROW_H + 4
BANK_H = 48
BANK_MIDDLE = BANK_Y + (BANK_H - 6) // 2
PLAYERS_Y = BANK_Y + BANK_H + 10
PLAYER_H = 118
#: Under the town and the panel: the footer's lines.
FOOTER_Y = PLAYERS_Y + PLAYER_H + 12
FOOTER_LINES = 3
HEIGHT = FOOTER_Y + FOOTER_LINES * LINE + 6

EMPTY_CELL: Color = (226, 218, 200)
TILE_COLOURS: tuple[Color, ...] = ((214, 186, 150), (246, 214, 120), (156, 204, 112))
BUTTON: Color = (112, 62, 156)
BUTTON_RIM: Color = (62, 30, 92)
BUTTON_HOLE: Color = (222, 206, 236)
HARVEST: Color = (28, 120, 60)
WHITE: Color = (255, 255, 255)
SHADOW: Color = (70, 60, 50)
SOLD_OUT: Color = (214, 208, 196)
BANK: Color = (236, 230, 216)
SACK: Color = (150, 120, 90)
SACK_EDGE: Color = (70, 50, 30)
CARD: Color = (255, 252, 244)
HOUSE_EDGE: Color = (40, 30, 30)
STEM: Color = (250, 238, 214)
STEM_EDGE: Color = (120, 90, 60)
CAP: Color = (204, 52, 44)
CAP_EDGE: Color = (110, 30, 24)
CAP_SPOT: Color = (255, 248, 240)
HIVE: Color = (226, 160, 40)
HIVE_EDGE: Color = (120, 76, 16)
HIVE_DOOR: Color = (70, 44, 14)
GRASS: Color = (46, 110, 40)
DAISY: Color = (250, 250, 250)
BUTTERCUP: Color = (240, 200, 40)
PETAL_EDGE: Color = (90, 80, 60)
#: The board's own colours, beside the theme's and the houses'.
COLOURS: tuple[Color, ...] = (
    EMPTY_CELL,
    *TILE_COLOURS,
    BUTTON,
    BUTTON_RIM,
    BUTTON_HOLE,
    HARVEST,
    WHITE,
    SHADOW,
    SOLD_OUT,
    BANK,
    SACK,
    SACK_EDGE,
    CARD,
    HOUSE_EDGE,
    STEM,
    STEM_EDGE,
    CAP,
    CAP_EDGE,
    CAP_SPOT,
    HIVE,
    HIVE_EDGE,
    HIVE_DOOR,
    GRASS,
    DAISY,
    BUTTERCUP,
    PETAL_EDGE,
)


def _wall(roof: Color) -> Color:
    """A house's wall: its roof colour, lighter."""
    r, g, b = (min(255, c + 70) for c in roof)
    return r, g, b


@lru_cache(maxsize=4)
def palette(theme: Theme) -> Palette:
    """Hollowtown's fixed colours: the theme's, the tiles', icons' and buttons', and a
    ramp for each colour of text on what it is written on."""
    seats = theme.seats[:2]
    return Palette(
        (*theme_colours(theme), *seats, *(_wall(colour) for colour in seats), *COLOURS),
        (
            *((colour, theme.background) for colour in (theme.ink, theme.muted, *seats)),
            *((theme.ink, paper) for paper in (EMPTY_CELL, *TILE_COLOURS, SOLD_OUT, BANK, CARD)),
            *((colour, CARD) for colour in seats),
            *((WHITE, paper) for paper in (theme.ink, *seats)),
            # The harvest's figures: green outlined in white, on any cell.
            (HARVEST, WHITE),
            *((WHITE, paper) for paper in (EMPTY_CELL, *TILE_COLOURS)),
        ),
    )


def _button(draw: BoardDraw, x: float, y: float, r: float) -> None:
    """One sewing button: a purple disc with four holes."""
    draw.ellipse((x - r, y - r, x + r, y + r), fill=BUTTON, outline=BUTTON_RIM, width=2)
    h = r * 0.3
    for dx in (-h, h):
        for dy in (-h, h):
            draw.ellipse((x + dx - 1.6, y + dy - 1.6, x + dx + 1.6, y + dy + 1.6), fill=BUTTON_HOLE)


def _icon(draw: BoardDraw, kind: int, cx: float, cy: float, s: float) -> None:
    """The picture of a landscape type, about `s` pixels across, centred on (cx, cy)."""
    if kind == MUSHROOM:
        draw.rounded_rectangle(
            (cx - s * 0.13, cy - s * 0.05, cx + s * 0.13, cy + s * 0.42),
            radius=s * 0.08,
            fill=STEM,
            outline=STEM_EDGE,
            width=2,
        )
        draw.pieslice(
            (cx - s * 0.45, cy - s * 0.42, cx + s * 0.45, cy + s * 0.26),
            180,
            360,
            fill=CAP,
            outline=CAP_EDGE,
            width=2,
        )
        for dx, dy, r in ((-0.22, -0.12, 0.06), (0.05, -0.26, 0.07), (0.25, -0.1, 0.05)):
            x, y, rr = cx + dx * s, cy + dy * s, r * s
            draw.ellipse((x - rr, y - rr, x + rr, y + rr), fill=CAP_SPOT)
    elif kind == BEEHIVE:
        widths = (0.3, 0.42, 0.48, 0.42)
        top = cy - s * 0.36
        for i, w in enumerate(widths):
            y0 = top + i * s * 0.18
            draw.rounded_rectangle(
                (cx - s * w, y0, cx + s * w, y0 + s * 0.2),
                radius=s * 0.09,
                fill=HIVE,
                outline=HIVE_EDGE,
                width=2,
            )
        draw.ellipse((cx - s * 0.08, cy + s * 0.12, cx + s * 0.08, cy + s * 0.28), fill=HIVE_DOOR)
    else:
        for i in range(9):
            x = cx - s * 0.42 + i * s * 0.105
            lean = (i % 3 - 1) * s * 0.06
            draw.line(
                (x, cy + s * 0.38, x + lean, cy - s * 0.2 + (i % 2) * s * 0.14),
                fill=GRASS,
                width=3,
            )
        for dx, dy, colour in ((-0.22, -0.28, DAISY), (0.24, -0.2, BUTTERCUP)):
            x, y = cx + dx * s, cy + dy * s
            draw.ellipse((x - 7, y - 7, x + 7, y + 7), fill=colour, outline=PETAL_EDGE)


def _house(draw: BoardDraw, cx: float, cy: float, s: float, colour: Color) -> None:
    draw.polygon(
        [
            (cx - s * 0.42, cy - s * 0.02),
            (cx, cy - s * 0.42),
            (cx + s * 0.42, cy - s * 0.02),
        ],
        fill=colour,
        outline=HOUSE_EDGE,
    )
    draw.rectangle(
        (cx - s * 0.32, cy - s * 0.02, cx + s * 0.32, cy + s * 0.38),
        fill=_wall(colour),
        outline=HOUSE_EDGE,
        width=2,
    )
    draw.rectangle((cx - s * 0.08, cy + s * 0.14, cx + s * 0.08, cy + s * 0.38), fill=colour)


@lru_cache(maxsize=16)
def _cell_image(kind: int, house_colour: Color, theme: Theme) -> Image.Image:
    """A cell's background with its tile or house drawn on it (cached: there are few;
    shared: paste it, never draw on it)."""
    fill = EMPTY_CELL if kind == EMPTY or kind >= HOUSE else TILE_COLOURS[kind]
    image, draw = new_canvas(CELL, CELL, palette(theme), fill)
    if kind < HOUSE:
        draw.rounded_rectangle((5, 5, CELL - 6, CELL - 6), radius=12, outline=WHITE)
        _icon(draw, kind, CELL / 2, CELL * 0.4, CELL * 0.62)
    elif kind != EMPTY:
        _house(draw, CELL / 2, CELL * 0.44, CELL * 0.7, house_colour)
    return image


def _token(draw: BoardDraw, cx: float, cy: float, r: float, seat: int, colour: Color) -> None:
    """A character: a coloured disc with its initial."""
    draw.ellipse((cx - r + 3, cy - r + 4, cx + r + 3, cy + r + 4), fill=SHADOW)
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour, outline=WHITE, width=3)
    initial = font(max(READABLE, int(r * 1.1)), bold=True)
    text_center(draw, (cx, cy + 1), SEATS[seat][0], initial, WHITE)


def _as_move(obj: object) -> HollowtownMove | None:
    """The last move as a HollowtownMove, from the move itself or its canonical text."""
    if isinstance(obj, HollowtownMove) or obj is None:
        return obj
    words = str(obj).split()
    if not words:
        return None
    tile = next((TYPE_WORDS[w] for w in words[1:] if w in TYPE_WORDS), -1)
    cell = next((CELL_INDEX[w] for w in words[1:] if w in CELL_INDEX), -1)
    return HollowtownMove(words[0], tile, cell)


def _cell_box(cell: int) -> tuple[int, int, int, int]:
    """The square of a town cell, where its picture is pasted (right and bottom excluded)."""
    x = TOWN_X + (cell % 3) * CELL
    y = TOWN_Y + (cell // 3) * CELL
    return x, y, x + CELL, y + CELL


def _row_box(ty: int) -> tuple[int, int, int, int]:
    """The card of the Market row of type `ty`, as drawn (right and bottom included)."""
    y = MARKET_Y + ty * ROW_H
    return PANEL_X, y, PANEL_X + PANEL_W, y + ROW_H - 6


BANK_BOX = (PANEL_X, BANK_Y, PANEL_X + PANEL_W, BANK_Y + BANK_H - 6)
#: The titles of the Market, its prices and the Bank (put in the reader's language when
#: drawn).
TITLES: tuple[Text, Text, Text] = (t("Market"), t("price"), t("Bank"))


@lru_cache(maxsize=4)
def _layout(theme: Theme, titles: tuple[str, ...]) -> Image.Image:
    """What never changes: the background, the header's rule, the town's coordinates, the
    Market's `titles` and the Bank without its count, in the reader's language (shared:
    copy it, never draw on it)."""
    market, price, bank = titles
    image, draw = new_canvas(WIDTH, HEIGHT, palette(theme), theme.background)
    draw.line((20, 50, WIDTH - 20, 50), fill=theme.grid, width=2)
    label = font(READABLE, True)
    for i in range(3):
        text_center(draw, (TOWN_X + i * CELL + CELL / 2, TOWN_Y - 20), "ABC"[i], label, theme.ink)
        text_center(draw, (TOWN_X - 20, TOWN_Y + i * CELL + CELL / 2), str(i + 1), label, theme.ink)
    draw.label((PANEL_X, MARKET_Y - 6), market, font(READABLE, True), theme.ink, "ld")
    draw.label((PANEL_X + PANEL_W, MARKET_Y - 6), price, font(READABLE), theme.muted, "rd")
    draw.rounded_rectangle(BANK_BOX, radius=8, fill=BANK, outline=theme.grid, width=1)
    draw.polygon(
        [
            (PANEL_X + 14, BANK_Y + 9),
            (PANEL_X + 46, BANK_Y + 9),
            (PANEL_X + 40, BANK_Y + 35),
            (PANEL_X + 20, BANK_Y + 35),
        ],
        fill=SACK,
        outline=SACK_EDGE,
    )
    draw.label((PANEL_X + 60, BANK_MIDDLE), bank, font(READABLE, True), theme.ink, "lm")
    return image


def render(state: HollowtownState, ctx: RenderContext) -> Image.Image:
    theme = ctx.theme
    seat_colours = theme.seats[:2]
    image, draw = edit(_layout(theme, tuple(str(title) for title in TITLES)), palette(theme))
    names = [ctx.name(seat, SEATS[seat]) for seat in (0, 1)]
    move = _as_move(ctx.last_move)
    previous = ctx.previous if isinstance(ctx.previous, HollowtownState) else None

    # --- header: whose turn, or the result ------------------------------------------------
    outcome = state.outcome()
    acting = state.seat_to_act
    who = [
        name if name == SEATS[seat] else f"{name} ({SEATS[seat]})"
        for seat, name in enumerate(names)
    ]
    if outcome is not None:
        high, low = max(state.supplies), min(state.supplies)
        if outcome.winners:
            winner = min(outcome.winners)
            header = t(
                "Game over: {winner} wins, {high} to {low}", winner=who[winner], high=high, low=low
            )
            colour = seat_colours[winner]
        else:
            header = tn(
                "Game over: a draw, {n} button each", "Game over: a draw, {n} buttons each", n=high
            )
            colour = theme.ink
    else:
        if state.phase == DOOKY_LAST:
            header = t(
                "Round {round}: {name} to act (last action)", round=state.round, name=who[acting]
            )
        else:
            header = t("Round {round}: {name} to act", round=state.round, name=who[acting])
        colour = seat_colours[acting]
    head_font = fitting_font(str(header), READABLE + 1, WIDTH - 40, bold=True, smallest=READABLE)
    draw.label((20, 14), fit_text(str(header), head_font, WIDTH - 40), head_font, colour)

    # --- the town ---------------------------------------------------------------------------
    gains: dict[int, int] = {}
    if previous is not None:
        for c in range(9):
            if state.piles[c] > previous.piles[c]:
                gains[c] = state.piles[c] - previous.piles[c]
    for c in range(9):
        kind = state.cells[c]
        house_colour = seat_colours[kind - HOUSE] if HOUSE <= kind < EMPTY else theme.grid
        x0, y0, x1, y1 = _cell_box(c)
        image.paste(_cell_image(kind, house_colour, theme), (x0, y0))
        pile = state.piles[c]
        if pile:
            shown = min(pile, 6)
            for k in range(shown):
                bx = x0 + 20 + (k % 3) * 22
                by = y1 - 36 + (k // 3) * 20 - (10 if shown > 3 else 0)
                _button(draw, bx, by, 10)
            draw.ellipse((x1 - 48, y1 - 48, x1 - 6, y1 - 6), fill=theme.ink)
            text_center(draw, (x1 - 27, y1 - 27), str(pile), font(READABLE, True), WHITE)
        if c in gains:
            gain = f"+{gains[c]}"
            text_center(draw, (x1 - 30, y0 + 22), gain, font(READABLE, True), HARVEST, WHITE)
    for i in range(4):
        x, y = TOWN_X + i * CELL, TOWN_Y + i * CELL
        draw.line((x, TOWN_Y, x, TOWN_Y + 3 * CELL), fill=theme.grid, width=2)
        draw.line((TOWN_X, y, TOWN_X + 3 * CELL, y), fill=theme.grid, width=2)

    if move is not None and move.cell >= 0:
        draw.rectangle(_cell_box(move.cell), outline=theme.highlight, width=5)
        if move.action == "move" and previous is not None:
            mover = previous.seat_to_act
            if mover >= 0:
                a, b = _cell_box(previous.places[mover]), _cell_box(move.cell)
                start = ((a[0] + a[2]) / 2, (a[1] + a[3]) / 2)
                end = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
                draw.line((*start, *end), fill=theme.highlight, width=8)
    for seat in (0, 1):
        x0, y0, _, _ = _cell_box(state.places[seat])
        _token(draw, x0 + CELL * 0.7, y0 + CELL * 0.32, 24, seat, seat_colours[seat])

    # --- the Market -----------------------------------------------------------------------------
    figure = font(READABLE + 6, True)  # the prices and the Bank's count
    touched = (
        move.tile if move is not None and move.action in ("inc", "dec", "steal", "beg") else -1
    )
    for ty in TYPES:
        box = _row_box(ty)
        y = box[1]
        left = state.stock[ty]
        draw.rounded_rectangle(
            box,
            radius=8,
            fill=TILE_COLOURS[ty] if left else SOLD_OUT,
            outline=theme.highlight if ty == touched else theme.grid,
            width=4 if ty == touched else 1,
        )
        # The name beside its icon, how many tiles are left under both; the price right.
        _icon(draw, ty, PANEL_X + 26, y + 20, 32)
        name = fit_text(str(TYPE_LABELS[ty]), font(READABLE, True), PANEL_W - 100)
        draw.label((PANEL_X + 50, y + 4), name, font(READABLE, True), theme.ink)
        sub = tn("{n} tile left", "{n} tiles left", n=left) if left else t("no tiles: Thief's pot")
        sub_text = fit_text(str(sub), font(READABLE), PANEL_W - 20)
        draw.label((PANEL_X + 10, y + 4 + LINE), sub_text, font(READABLE), theme.ink)
        price = str(state.prices[ty])
        text_center(draw, (PANEL_X + PANEL_W - 26, y + 24), price, figure, theme.ink)

    # --- the Bank ---------------------------------------------------------------------------------
    if move is not None and move.action == "beg" and move.tile < 0:
        draw.rounded_rectangle(BANK_BOX, radius=8, outline=theme.highlight, width=4)
    text_center(draw, (PANEL_X + PANEL_W - 26, BANK_MIDDLE), str(state.bank), figure, theme.ink)

    # --- the players ----------------------------------------------------------------------------
    half = (PANEL_W - 10) // 2
    for seat in (0, 1):
        x = PANEL_X + seat * (half + 10)
        box = (x, PLAYERS_Y, x + half, PLAYERS_Y + PLAYER_H)
        on_turn = seat == acting
        won = outcome is not None and seat in outcome.winners
        draw.rounded_rectangle(
            box,
            radius=10,
            fill=CARD,
            outline=theme.highlight if on_turn or won else theme.grid,
            width=5 if on_turn or won else 1,
        )
        # The character's name in its colour, the player's under it.
        character = fit_text(SEATS[seat], font(READABLE, True), half - 20)
        draw.label((x + 10, PLAYERS_Y + 8), character, font(READABLE, True), seat_colours[seat])
        if names[seat] != SEATS[seat]:
            player = fit_text(names[seat], font(READABLE), half - 20)
            draw.label((x + 10, PLAYERS_Y + 8 + LINE), player, font(READABLE), theme.ink)
        _button(draw, x + 30, PLAYERS_Y + 92, 14)
        text_center(
            draw, (x + 84, PLAYERS_Y + 92), str(state.supplies[seat]), font(36, True), theme.ink
        )

    # --- the footer: last action and Harvest -------------------------------------------------
    lines: list[Text] = []
    if outcome is not None:
        if state.phase == OVER:
            lines.append(t("All tiles placed"))
        else:
            lines.append(tn("{n} round without a Buy", "{n} rounds without a Buy", n=STALL_ROUNDS))
    if move is not None:
        mover = previous.seat_to_act if previous is not None else -1
        if mover >= 0:
            lines.append(t("Last: {name}: {move}", name=names[mover], move=str(move)))
        else:
            lines.append(t("Last: {move}", move=str(move)))
    if gains:
        paid = ", ".join(f"+{n} {CELL_NAMES[c]}" for c, n in sorted(gains.items()))
        lines.append(t("Harvest {gains}", gains=paid))
    # A game that ended off the board says how, before what the last move did.
    parts = [ctx.caption] if ctx.caption else [str(line) for line in lines]
    words = font(READABLE, True)
    for index, line in enumerate(flow(parts, words, WIDTH - 40, FOOTER_LINES)):
        draw.label((20, FOOTER_Y + index * LINE), line, words, theme.ink)
    return image


def _drawn(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The pixels of a shape Pillow draws on `box` (its right and bottom edge included),
    as a spot's box, which excludes them."""
    left, top, right, bottom = box
    return left, top, right + 1, bottom + 1


def _place(token: str) -> tuple[int, int, int, int] | None:
    """Where the thing a builder token names is drawn: a landscape's Market row, a cell of
    the town, the Bank; None for an action word."""
    if token in TYPE_WORDS:
        return _drawn(_row_box(TYPE_WORDS[token]))
    if token in CELL_INDEX:
        return _cell_box(CELL_INDEX[token])
    if token == "bank":
        return _drawn(BANK_BOX)
    return None


def spots(
    state: HollowtownState,
    seat: int,
    prefix: tuple[str, ...],
    tokens: tuple[str, ...],
    ctx: RenderContext,
) -> tuple[Spot, ...]:
    """The board's places among `tokens`: after an action word, the landscape it buys,
    prices, steals or begs from is its Market row (the Bank for `beg bank`), and the cell
    a tile goes on or a character steps onto is that cell of the town. Every token names
    one thing, wherever it comes in a move, so the place does not depend on `prefix`; the
    action words themselves (`buy`, `inc`, …) are no place and stay buttons."""
    found = ((token, _place(token)) for token in dict.fromkeys(tokens))
    return tuple(Spot(token, box) for token, box in found if box is not None)


RENDERER: Renderer[HollowtownState] = Renderer(render, spots=spots)
