"""Everest board image: the shaded height map, cliffs and steps, yeti, home bases, the
peak, each player's coins and damage, and arrows for what the last resolution did."""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.everest import (
    HEIGHTS,
    HOMES,
    NEXT,
    OFF,
    PEAK,
    SQUARES,
    Event,
    EverestGame,
    EverestState,
    action_text,
)
from render.core import Color, RenderContext, Theme, fit_text, font, text_center

WIDTH = 760
CELL = 86
MARGIN = 36
TOP = 50
BOARD_H = 6 * CELL
PANEL_TOP = TOP + BOARD_H + 28
CARD_H = 62
HEIGHT = PANEL_TOP + 2 * CARD_H + 14

THUMB_CELL = 28
THUMB_MARGIN = 8

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
STEP: Color = (70, 78, 96)
SNOWBALL: Color = (40, 150, 220)
HIT: Color = (220, 40, 40)
PEAK_GOLD: Color = (214, 160, 20)
COIN_FACE: Color = (255, 255, 255)
COIN_GONE: Color = (190, 186, 178)


def _cell_box(sq: int, cell: int, left: int, top: int) -> tuple[int, int, int, int]:
    col, row = sq % 8, sq // 8
    x0 = left + col * cell
    y0 = top + (5 - row) * cell
    return x0, y0, x0 + cell, y0 + cell


def _centre(sq: int, cell: int, left: int, top: int) -> tuple[float, float]:
    x0, y0, x1, y1 = _cell_box(sq, cell, left, top)
    return (x0 + x1) / 2, (y0 + y1) / 2


_DIR_VEC = ((0, -1), (1, 0), (0, 1), (-1, 0))  # N E S W in image coordinates


def _draw_mountain(
    draw: ImageDraw.ImageDraw, cell: int, left: int, top: int, labels: bool, theme: Theme
) -> None:
    for sq in range(48):
        box = _cell_box(sq, cell, left, top)
        if not HEIGHTS[sq]:
            draw.rectangle(box, fill=NOTCH)
            continue
        draw.rectangle(box, fill=LEVELS[HEIGHTS[sq]], outline=(236, 240, 246))
        if labels:
            draw.text((box[0] + 5, box[1] + 3), str(HEIGHTS[sq]), font=font(13), fill=STEP)
    # Edges between neighbours: thick for cliffs, thin for steps.
    for sq in SQUARES:
        x0, y0, x1, y1 = _cell_box(sq, cell, left, top)
        for d in (0, 1):
            other = NEXT[sq][d]
            if other == OFF:
                continue
            gap = abs(HEIGHTS[sq] - HEIGHTS[other])
            if not gap:
                continue
            width = max(2, cell // 14) if gap == 2 else max(1, cell // 40)
            colour = CLIFF if gap == 2 else STEP
            if d == 0:
                draw.line((x0, y0, x1, y0), fill=colour, width=width)
            else:
                draw.line((x1, y0, x1, y1), fill=colour, width=width)
    # The peak tile outline.
    peak = sorted(PEAK)
    px0, _, _, py1 = _cell_box(peak[0], cell, left, top)
    _, py0, px1, _ = _cell_box(peak[-1], cell, left, top)
    draw.rectangle((px0, py0, px1, py1), outline=PEAK_GOLD, width=max(2, cell // 22))
    if labels:
        for col in range(8):
            text_center(
                draw,
                (left + col * cell + cell / 2, top + 6 * cell + 13),
                "abcdefgh"[col],
                font(16, bold=True),
                theme.ink,
            )
        for row in range(6):
            text_center(
                draw,
                (left - 16, top + (5 - row) * cell + cell / 2),
                str(row + 1),
                font(16, bold=True),
                theme.ink,
            )


@lru_cache(maxsize=4)
def _background(theme: Theme) -> Image.Image:
    image = Image.new("RGB", (WIDTH, HEIGHT), theme.background)
    draw = ImageDraw.Draw(image)
    _draw_mountain(draw, CELL, MARGIN, TOP, True, theme)
    return image


@lru_cache(maxsize=4)
def _thumb_background(theme: Theme) -> Image.Image:
    size = (8 * THUMB_CELL + 2 * THUMB_MARGIN, 6 * THUMB_CELL + 2 * THUMB_MARGIN)
    image = Image.new("RGB", size, theme.background)
    _draw_mountain(ImageDraw.Draw(image), THUMB_CELL, THUMB_MARGIN, THUMB_MARGIN, False, theme)
    return image


def _seat_colour(theme: Theme, seat: int) -> Color:
    return theme.seats[seat % len(theme.seats)]


def _light(colour: Color, amount: float = 0.55) -> Color:
    r, g, b = colour
    return (
        int(r + (255 - r) * amount),
        int(g + (255 - g) * amount),
        int(b + (255 - b) * amount),
    )


def _arrow(
    draw: ImageDraw.ImageDraw,
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
    draw: ImageDraw.ImageDraw,
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


def _edge_point(sq: int, d: int, cell: int, left: int, top: int, out: float) -> tuple[float, float]:
    cx, cy = _centre(sq, cell, left, top)
    vx, vy = _DIR_VEC[d]
    return cx + vx * cell * out, cy + vy * cell * out


def _draw_events(
    draw: ImageDraw.ImageDraw,
    events: tuple[Event, ...],
    cell: int,
    left: int,
    top: int,
    theme: Theme,
) -> None:
    width = max(2, cell // 14)
    head = cell * 0.22
    for event in events:
        kind, a = event.kind, event.args
        if kind == "move" and a[1] != a[2]:
            colour = _seat_colour(theme, a[0])
            _arrow(
                draw,
                _centre(a[1], cell, left, top),
                _centre(a[2], cell, left, top),
                colour,
                width + 2,
                head,
                cell * 0.33,
            )
        elif kind == "push" and a[2] != OFF:
            _arrow(
                draw,
                _centre(a[1], cell, left, top),
                _centre(a[2], cell, left, top),
                _light(_seat_colour(theme, a[0]), 0.3),
                width,
                head * 0.8,
                cell * 0.33,
            )
        elif kind == "off":
            colour = _seat_colour(theme, a[0])
            _arrow(
                draw,
                _centre(a[1], cell, left, top),
                _edge_point(a[1], a[2], cell, left, top, 0.95),
                colour,
                width + 2,
                head,
            )
        elif kind == "snow":
            start = _centre(a[1], cell, left, top)
            if a[4] == 0:
                end = _centre(a[2], cell, left, top)
            else:
                end = _edge_point(a[2], a[3], cell, left, top, 0.5 if a[4] == 1 else 0.95)
            _dotted(draw, start, end, SNOWBALL, max(1.5, cell / 40), max(5.0, cell / 9))
            r = cell * 0.1
            if a[4] == 1:  # splat: a burst against the slope
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
        elif kind in ("roar", "back"):
            cx, cy = _edge_point(a[1], a[2], cell, left, top, 0.3)
            vx, vy = _DIR_VEC[a[2]]
            for i in range(3):
                r = cell * (0.1 + 0.09 * i)
                box = (cx - r, cy - r, cx + r, cy + r)
                mid = math.degrees(math.atan2(vy, vx))
                draw.arc(box, mid - 45, mid + 45, fill=_seat_colour(theme, a[0]), width=width)
        elif kind == "hit":
            cx, cy = _centre(a[1], cell, left, top)
            r = cell * 0.42
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=HIT, width=width + 1)
        elif kind == "fall":
            cx, cy = _centre(a[1], cell, left, top)
            r = cell * 0.46
            draw.rectangle((cx - r, cy - r, cx + r, cy + r), outline=HIT, width=width)


def _draw_yeti(
    draw: ImageDraw.ImageDraw,
    state: EverestState,
    ctx: RenderContext,
    cell: int,
    left: int,
    top: int,
    letters: bool,
) -> None:
    theme = ctx.theme
    for seat, sq in enumerate(state.pos):
        if sq == OFF:
            continue
        cx, cy = _centre(sq, cell, left, top)
        r = cell * 0.32
        colour = _seat_colour(theme, seat)
        draw.ellipse(
            (cx - r, cy - r, cx + r, cy + r),
            fill=colour,
            outline=(255, 255, 255),
            width=max(2, cell // 28),
        )
        if letters:
            name = ctx.name(seat, EverestGame.seat_names[seat])
            text_center(draw, (cx, cy), name[:1].upper(), font(26, bold=True), (255, 255, 255))
            if state.damage[seat]:
                bx, by, br = cx + r * 0.85, cy - r * 0.85, cell * 0.13
                draw.ellipse((bx - br, by - br, bx + br, by + br), fill=HIT)
                text_center(
                    draw, (bx, by), str(state.damage[seat]), font(15, bold=True), (255, 255, 255)
                )


def _draw_homes(
    draw: ImageDraw.ImageDraw, state: EverestState, theme: Theme, cell: int, left: int, top: int
) -> None:
    for seat in range(state.players):
        x0, y0, x1, y1 = _cell_box(HOMES[seat], cell, left, top)
        colour = _seat_colour(theme, seat)
        inset = cell * 0.12
        width = max(2, cell // 16)
        draw.line((x0 + inset, y0 + inset, x1 - inset, y1 - inset), fill=colour, width=width)
        draw.line((x0 + inset, y1 - inset, x1 - inset, y0 + inset), fill=colour, width=width)


def _status(state: EverestState, ctx: RenderContext) -> str:
    def who(seat: int) -> str:
        return ctx.name(seat, EverestGame.seat_names[seat])

    if state.stage == "over":
        if state.result >= 0:
            return f"{who(state.result)} is King of the Hill!"
        return "Draw: the round cap was reached"
    waiting = ", ".join(who(s) for s in sorted(state.to_act))
    if state.stage == "plan":
        return f"Planning: waiting for {waiting}"
    if state.stage == "flee":
        return f"Roars! {waiting} choose which roarer to answer"
    if state.stage == "pick":
        return f"Conflict! {waiting} picks an outcome"
    return f"End of round: {waiting} to choose"


def _draw_header(draw: ImageDraw.ImageDraw, state: EverestState, ctx: RenderContext) -> None:
    theme = ctx.theme
    cap = f"/{state.cap}" if state.cap else ""
    step = "" if state.stage in ("plan", "over") else f" · step {state.step + 1}"
    title = f"Round {state.round}{cap}{step}"
    draw.text((MARGIN - 20, 12), title, font=font(22, bold=True), fill=theme.ink)
    status = ctx.caption or _status(state, ctx)
    x = MARGIN - 20 + font(22, bold=True).getlength(title) + 18
    draw.text(
        (x, 16),
        fit_text(status, font(17), int(WIDTH - x - 10)),
        font=font(17),
        fill=theme.muted,
    )


def _draw_panel(draw: ImageDraw.ImageDraw, state: EverestState, ctx: RenderContext) -> None:
    theme = ctx.theme
    card_w = (WIDTH - 2 * (MARGIN - 20) - 10) // 2
    for seat in range(state.players):
        x0 = MARGIN - 20 + (seat % 2) * (card_w + 10)
        y0 = PANEL_TOP + (seat // 2) * CARD_H
        colour = _seat_colour(theme, seat)
        acting = seat in state.to_act
        draw.rounded_rectangle(
            (x0, y0, x0 + card_w, y0 + CARD_H - 6),
            radius=8,
            fill=_light(colour, 0.82),
            outline=colour,
            width=3 if acting else 1,
        )
        draw.ellipse((x0 + 8, y0 + 9, x0 + 30, y0 + 31), fill=colour)
        name = ctx.name(seat, EverestGame.seat_names[seat])
        draw.text(
            (x0 + 38, y0 + 8),
            fit_text(name, font(18, bold=True), 150),
            font=font(18, bold=True),
            fill=theme.ink,
        )
        info = fit_text(_seat_info(state, seat), font(15), card_w - 46)
        draw.text((x0 + 38, y0 + 33), info, font=font(15), fill=theme.ink)
        # Six coins: set-aside ones greyed and struck through.
        for i, coin in enumerate("0A2345"):
            cx = x0 + card_w - 150 + i * 24
            cy = y0 + 20
            gone = state.aside[seat] >> i & 1
            draw.ellipse(
                (cx - 10, cy - 10, cx + 10, cy + 10),
                fill=COIN_GONE if gone else COIN_FACE,
                outline=colour,
                width=2,
            )
            text_center(
                draw, (cx, cy), coin, font(13, bold=True), theme.muted if gone else theme.ink
            )
            if gone:
                draw.line((cx - 8, cy + 8, cx + 8, cy - 8), fill=HIT, width=2)


def _seat_info(state: EverestState, seat: int) -> str:
    parts = []
    sq = state.pos[seat]
    parts.append("off the board" if sq == OFF else f"on {'abcdefgh'[sq % 8]}{sq // 8 + 1}")
    if state.damage[seat]:
        parts.append(f"damage {state.damage[seat]}")
    plan = state.plans[seat]
    if state.stage == "plan":
        if plan is None:
            parts.append("planning…")
        elif plan and plan[0] >= 0:
            parts.append(" ".join(action_text(a) for a in plan))
        else:
            parts.append("planned ✓")
    elif plan is not None and state.stage != "over":
        parts.append(" ".join(action_text(a) for a in plan) or "dazed")
    if state.peak == seat:
        parts.append("holds the peak")
    return " · ".join(parts)


def render(state: EverestState, ctx: RenderContext) -> Image.Image:
    """The board at about 760 px wide: mountain, yeti, last events, players."""
    image = _background(ctx.theme).copy()
    draw = ImageDraw.Draw(image)
    _draw_homes(draw, state, ctx.theme, CELL, MARGIN, TOP)
    _draw_events(draw, state.events, CELL, MARGIN, TOP, ctx.theme)
    _draw_yeti(draw, state, ctx, CELL, MARGIN, TOP, True)
    _draw_header(draw, state, ctx)
    _draw_panel(draw, state, ctx)
    return image


def render_outcome_thumbnail(state_after: EverestState, ctx: RenderContext) -> Image.Image:
    """A small board (240 px wide) of one roll-off outcome, with its moves drawn."""
    image = _thumb_background(ctx.theme).copy()
    draw = ImageDraw.Draw(image)
    _draw_homes(draw, state_after, ctx.theme, THUMB_CELL, THUMB_MARGIN, THUMB_MARGIN)
    _draw_events(draw, state_after.events, THUMB_CELL, THUMB_MARGIN, THUMB_MARGIN, ctx.theme)
    _draw_yeti(draw, state_after, ctx, THUMB_CELL, THUMB_MARGIN, THUMB_MARGIN, False)
    return image
