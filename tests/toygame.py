"""Pebbles: a tiny complete game, hosted only by the tests (docs/adding-a-game.md).

It is the worked example of the recipe for adding a game, kept working by
tests/test_adding_a_game.py. A real game splits what is here into `engine/<id>.py` and
`render/<id>.py`, has its rules pages in `host/rules/` (here `tests/toygame_rules.md` and
`tests/pl/toygame_rules.md`), and is listed in `host.catalog.GAMES`; this one is
registered only while a test asks for it (`pebbles_registered`). Its messages are in the
catalogues like a real game's (`babel.cfg` names this file), translated.

Rules: a pile of pebbles, 9 to 15 drawn from the seed (or any pile from a position). The
two players take turns; a turn takes 1, 2 or 3 pebbles from the pile. Whoever takes the
last pebble wins. There are no points and no draws.

Position notation: `pebbles <pile> to=<seat>`, for example `pebbles 11 to=0`: eleven
pebbles left, the first seat to move. `pebbles 0 to=1` is a finished game that the first
seat won (it took the last pebble, so the second seat would move next).

Moves: `take 2`, or just `2`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, ClassVar

from PIL import Image

from engine import registry
from engine.core import (
    Game,
    GameState,
    IllegalMoveError,
    InvalidMoveError,
    Model,
    NotationError,
    Outcome,
)
from engine.rng import Rng
from engine.text import Text, t, tn
from host import catalog
from render.core import (
    Color,
    Palette,
    RenderContext,
    Renderer,
    Theme,
    fit_text,
    font,
    new_canvas,
    text_center,
    theme_colours,
)

# === engine part (engine/pebbles.py in a real game) ======================================

SEATS = ("First", "Second")
SEAT_TITLES = (t("First"), t("Second"))  # the seat names as players read them
MOST_PER_TURN = 3
#: A new game's pile: MIN_START plus a draw below START_SPREAD (9 to 15 pebbles).
MIN_START = 9
START_SPREAD = 7
#: The largest pile a position may give (the board draws at most this many).
MAX_PILE = 60

_MOVE = re.compile(r"(?:take\s*)?([0-9]{1,9})")
_POSITION = re.compile(r"pebbles\s+([0-9]{1,9})\s+to=([0-9]{1,9})")


@dataclass(frozen=True, slots=True)
class Take:
    """Taking `count` pebbles from the pile."""

    count: int

    def __str__(self) -> str:
        return f"take {self.count}"


@dataclass(frozen=True, slots=True)
class PebblesState(GameState[Take]):
    """A Pebbles position.

    `pile` is how many pebbles are left (0: the game is over); `to_move` is the seat
    whose turn it is, 0 or 1. Once the pile is empty, the seat that is not to move took
    the last pebble and won.
    """

    game_id: ClassVar[str] = "pebbles"

    pile: int
    to_move: int = 0

    # --- whose turn, how it ended -------------------------------------------------------
    @property
    def num_seats(self) -> int:
        return 2

    @property
    def to_act(self) -> frozenset[int]:
        return frozenset((self.to_move,)) if self.pile else frozenset()

    def outcome(self) -> Outcome | None:
        if self.pile:
            return None
        winner = 1 - self.to_move
        reason = t("{side} took the last pebble.", side=SEAT_TITLES[winner])
        return Outcome(self.scores(), frozenset((winner,)), reason)

    def scores(self) -> tuple[int, ...]:
        """No points are shown (`has_scores` is False): 1 for the winner once it is over,
        which is what the computer player's default `evaluate` compares."""
        if self.pile:
            return (0, 0)
        return (1, 0) if self.to_move == 1 else (0, 1)

    # --- moves ----------------------------------------------------------------------------
    def legal_moves(self, seat: int) -> tuple[Take, ...]:
        if seat != self.to_move or not self.pile:
            return ()
        return tuple(Take(n) for n in range(1, min(MOST_PER_TURN, self.pile) + 1))

    def parse_move(self, seat: int, text: str) -> Take:
        raw = text.strip()
        match = _MOVE.fullmatch(raw.lower())
        if match is None:
            raise InvalidMoveError(
                t(
                    "{text}: not a move; write take 1, take 2 or take 3 (or just the number).",
                    text=raw or "(empty)",
                )
            )
        self._check_turn(seat)
        count = int(match.group(1))
        if not 1 <= count <= MOST_PER_TURN:
            raise IllegalMoveError(
                t("{text}: a turn takes 1, 2 or 3 pebbles, not {n}.", text=raw, n=count)
            )
        if count > self.pile:
            raise IllegalMoveError(
                tn(
                    "{text}: only {n} pebble is left.",
                    "{text}: only {n} pebbles are left.",
                    n=self.pile,
                    text=raw,
                )
            )
        return Take(count)

    def _check_turn(self, seat: int) -> None:
        if not self.pile:
            raise IllegalMoveError(t("The game is over: the pile is empty."))
        if seat != self.to_move:
            raise IllegalMoveError(t("It is {side}'s turn.", side=SEAT_TITLES[self.to_move]))

    def play(self, seat: int, move: Take) -> PebblesState:
        self._check_turn(seat)
        if move not in self.legal_moves(seat):
            raise IllegalMoveError(t("{move}: not a legal move here.", move=str(move)))
        return replace(self, pile=self.pile - move.count, to_move=1 - self.to_move)

    # --- notation -------------------------------------------------------------------------
    def to_text(self) -> str:
        return f"pebbles {self.pile} to={self.to_move}"

    # --- helpers for front-ends -----------------------------------------------------------
    def move_tokens(self, move: Take) -> tuple[str, ...]:
        """One button per move: the count alone, which `parse_move` reads as a move."""
        return (str(move.count),)

    def option_label(self, prefix: tuple[str, ...], token: str) -> str:
        left = self.pile - int(token)
        return str(
            tn(
                "Take {count} (leaves {n} pebble)",
                "Take {count} (leaves {n} pebbles)",
                n=left,
                count=token,
            )
        )

    def option_prompt(self, prefix: tuple[str, ...]) -> Text:
        return t("How many pebbles do you take?")


def _playout(state: GameState[Any], seat: int, rng: Rng) -> tuple[Take, Rng]:
    """The playout policy: leave a multiple of four when possible (the winning line),
    else take at random."""
    assert isinstance(state, PebblesState)
    if state.pile % 4:
        return Take(state.pile % 4), rng
    count, rng = rng.below(min(MOST_PER_TURN, state.pile))
    return Take(count + 1), rng


#: Playouts follow the winning line and are short, so they run to the end of the game.
SEARCH_MODEL = Model(playout=_playout, playout_depth=None)


class Pebbles(Game[Take]):
    id = "pebbles"
    name = "Pebbles"
    min_players = 2
    max_players = 2
    seat_names = SEATS
    blurb = t("Take 1, 2 or 3 pebbles; whoever takes the last one wins.")
    draw_seats = True
    has_scores = False

    def new_state(
        self, seed: int, num_players: int = 2, variant: str | None = None
    ) -> PebblesState:
        self.check_setup(num_players, variant)
        extra, _ = Rng(seed).below(START_SPREAD)
        return PebblesState(MIN_START + extra, 0)

    def from_text(self, text: str) -> PebblesState:
        match = _POSITION.fullmatch(text.strip().lower())
        if match is None:
            raise NotationError(
                str(
                    t(
                        "Pebbles position: expected `pebbles <pile> to=<seat>`, like "
                        "pebbles 11 to=0; got {text!r}.",
                        text=text,
                    )
                )
            )
        pile, seat = int(match.group(1)), int(match.group(2))
        if pile > MAX_PILE:
            raise NotationError(
                str(t("Pebbles position: at most {most} pebbles, not {n}.", most=MAX_PILE, n=pile))
            )
        if seat > 1:
            raise NotationError(
                str(t("Pebbles position: the seat to move is 0 or 1, not {seat}.", seat=seat))
            )
        return PebblesState(pile, seat)

    def search_model(self, view: GameState[Any]) -> Model:
        return SEARCH_MODEL


GAME = Pebbles()

# === render part (render/pebbles.py in a real game) ======================================

WIDTH = 480
HEIGHT = 300
PER_ROW = 12
#: Pixel distance between pebble centres, and where the first row's centre is.
PITCH = 36
FIRST_X = (WIDTH - (PER_ROW - 1) * PITCH) // 2
FIRST_Y = 110
RADIUS = 14

TRAY: Color = (214, 196, 160)
PEBBLE: Color = (112, 118, 128)
PEBBLE_EDGE: Color = (60, 64, 70)
#: The board's own colours, beside the theme's.
COLOURS = (TRAY, PEBBLE, PEBBLE_EDGE)


def pebble_center(index: int) -> tuple[int, int]:
    """Pixel centre of pebble `index`: rows of twelve, left to right, top to bottom."""
    row, column = divmod(index, PER_ROW)
    return FIRST_X + column * PITCH, FIRST_Y + row * PITCH


def palette(theme: Theme) -> Palette:
    """The theme's colours and the tray's, with a ramp for each colour of text on what it
    is written on."""
    return Palette(
        (*theme_colours(theme), *COLOURS),
        ((theme.ink, theme.background), (theme.muted, theme.background)),
    )


def render(state: PebblesState, ctx: RenderContext) -> Image.Image:
    """The pile as pebbles; the ones the last move took as rings after them."""
    theme = ctx.theme
    image, draw = new_canvas(WIDTH, HEIGHT, palette(theme), theme.background)
    outcome = state.outcome()
    if outcome is None:
        mover = state.to_move
        side = str(SEAT_TITLES[mover])
        to_move = t("{name} ({side}) to move", name=ctx.name(mover, side), side=side)
        left = tn("{n} pebble left", "{n} pebbles left", n=state.pile)
        status = f"{to_move} · {left}"
    else:
        status = str(t("Game over. {reason}", reason=outcome.reason))
    status_font = font(22, bold=outcome is not None)
    text_center(
        draw, (WIDTH // 2, 40), fit_text(status, status_font, WIDTH - 30), status_font, theme.ink
    )
    rows = -(-MAX_PILE // PER_ROW)
    draw.rounded_rectangle(
        (
            FIRST_X - PITCH // 2,
            FIRST_Y - PITCH // 2,
            FIRST_X + (PER_ROW - 1) * PITCH + PITCH // 2,
            FIRST_Y + (rows - 1) * PITCH + PITCH // 2,
        ),
        radius=12,
        fill=TRAY,
    )
    taken = ctx.last_move.count if isinstance(ctx.last_move, Take) else 0
    for index in range(state.pile + taken):
        x, y = pebble_center(index)
        box = (x - RADIUS, y - RADIUS, x + RADIUS, y + RADIUS)
        if index < state.pile:
            draw.ellipse(box, fill=PEBBLE, outline=PEBBLE_EDGE, width=2)
        else:
            draw.ellipse(box, outline=theme.path, width=4)
    if ctx.caption:
        cap_font = font(18)
        text_center(
            draw,
            (WIDTH // 2, HEIGHT - 16),
            fit_text(ctx.caption, cap_font, WIDTH - 30),
            cap_font,
            theme.muted,
        )
    return image


RENDERER: Renderer[PebblesState] = Renderer(render)

# === hosting it (one line of host/catalog.py in a real game) =============================

#: Its rules page is `tests/toygame_rules.md`, in Polish `tests/pl/toygame_rules.md`.
LISTING = catalog.Listing(GAME, RENDERER, "toygame_rules.md", resources.files("tests"))


def register_pebbles() -> None:
    """Make Pebbles a hosted game: in the engine's index (the computer player looks games
    up there) and in the host's catalogue (everything else does)."""
    registry.register(GAME)
    catalog.register(LISTING)


def unregister_pebbles() -> None:
    catalog.unregister(GAME.id)
    # The engine's index has no unregister; it holds real games for the whole process.
    registry._GAMES.pop(GAME.id, None)


@contextmanager
def pebbles_registered() -> Iterator[catalog.Listing]:
    """Pebbles is hosted inside the block, and never after it, however the block ends."""
    register_pebbles()
    try:
        yield LISTING
    finally:
        unregister_pebbles()
