"""Mole Hill (Reiner Knizia): the mole burrows across the lawn, the gardener fences it in.

Rules: RULES.md section 1. Two rounds; seat 0 is the mole in round 1 and the gardener in
round 2, seat 1 the other way round. The mole first places its stack on any square, then
each turn moves to an unvisited neighbouring square (straight or diagonal), leaving a
piece behind; the gardener answers every mole turn with one rod on an interior edge. A
straight step may not cross a rod; a diagonal step goes around the shared corner on
either side and needs both edges of that side free. After entering the centre e4 the
mole's next move may instead jump to any unvisited square. The round ends when the mole
enters its 22nd square or, at the start of its turn, cannot move. The mole scores one
point per square beyond the tenth, +2 per red and +1 per white flower square visited.
The higher score over both rounds wins; equal scores are a draw.

Position notation (the `position:` option): five fields separated by spaces, e.g.::

    1g e4,f5,f6 e4e,f5n e1,a4,i4,e7/b2,h2,b6,h6 -

1. the round (`1` or `2`) and who acts: `m` the mole, `g` the gardener, `x` the game is
   over (round 2 only): `1g` = round 1, gardener to place a rod;
2. the squares the mole has visited, in order, comma-separated (`-` before the mole
   is placed); the last one is where the mole stands;
3. the rods, comma-separated (`-` for none), each an edge written as a square and a side
   (`e4n` is the same edge as `e5s`), or as two squares `e4-e5`; written back in the
   canonical form: the north side of the lower square or the east side of the left one;
4. the red flower squares, `/`, the white flower squares (four each);
5. the score of round 1 (the first mole's score), or `-` during round 1.

The gardener answers every mole turn, so with `m` to act there are as many rods as
visited squares and with `g` to act one fewer (`x`: as many, or 21 after the 22nd
square). When round 1 ends the lawn is cleared and its score goes into field 5; the
final lawn of round 2 stays. Upper case is accepted on input.

Moves: the mole writes `place e4` (first turn) then `f5` or `move f5`; the keywords are
optional. The gardener writes `rod e4n` (also `rod e5s`, `rod e4-e5`, `e4n`, `e4 n`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any, ClassVar

from engine import registry
from engine.core import (
    Game,
    GameState,
    IllegalMoveError,
    InvalidMoveError,
    Model,
    MoveError,
    MoveOptions,
    NotationError,
    Option,
    Outcome,
    Variant,
)
from engine.digits import read_natural
from engine.rng import Rng
from engine.text import Text, joined, t, tn

COLS = 9
ROWS = 7
SQUARES = COLS * ROWS
FILES = "abcdefghi"
#: Pieces in the mole's supply: the first ten are orange, the other twelve dark.
PIECES = 22
ORANGE = 10
RODS = 22

#: Square index = (row - 1) * 9 + column, so a1 = 0, i1 = 8, a2 = 9, i7 = 62.
SQUARE_NAMES: tuple[str, ...] = tuple(f"{FILES[i % COLS]}{i // COLS + 1}" for i in range(SQUARES))
SQUARE_INDEX: dict[str, int] = {name: i for i, name in enumerate(SQUARE_NAMES)}
CENTRE = SQUARE_INDEX["e4"]
ALL_SQUARES = (1 << SQUARES) - 1

#: The flower spots of the standard board (RULES.md 1(b)3), kept in one place.
DEFAULT_RED: tuple[int, ...] = tuple(sorted(SQUARE_INDEX[n] for n in ("e1", "e7", "a4", "i4")))
DEFAULT_WHITE: tuple[int, ...] = tuple(sorted(SQUARE_INDEX[n] for n in ("b2", "h2", "b6", "h6")))
RED_POINTS = 2
WHITE_POINTS = 1
#: The most a mole can score: every dark piece and every flower.
BEST_SCORE = (PIECES - ORANGE) + 4 * RED_POINTS + 4 * WHITE_POINTS

SIDE_LETTERS = "nesw"
#: The sides n, e, s, w in words, for players (the letters are the notation).
SIDE_WORDS = (t("north"), t("east"), t("south"), t("west"))
SIDE_ARROWS = ("↑", "→", "↓", "←")
#: Column and row offsets of the sides n, e, s, w.
_SIDE_DELTAS = ((0, 1), (1, 0), (0, -1), (-1, 0))

#: The eight steps, clockwise from north, with the arrow a button shows for each.
_DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
DIRECTION_ARROWS = ("↑", "↗", "→", "↘", "↓", "↙", "←", "↖")


def _square(col: int, row: int) -> int:
    return row * COLS + col


def _on_board(col: int, row: int) -> bool:
    return 0 <= col < COLS and 0 <= row < ROWS


# Edges: 0-55 are the east sides of columns a-h (index = row * 8 + column), 56-109 the
# north sides of rows 1-6 (index = 56 + row * 9 + column). Only these 110 interior edges
# can hold a rod (RULES.md 1(b)11).
EAST_EDGES = (COLS - 1) * ROWS
EDGES = EAST_EDGES + COLS * (ROWS - 1)


def _edge_of(square: int, side: int) -> int:
    """The edge on `side` (0 n, 1 e, 2 s, 3 w) of `square`, or -1 on the outer border."""
    col, row = square % COLS, square // COLS
    dc, dr = _SIDE_DELTAS[side]
    if not _on_board(col + dc, row + dr):
        return -1
    if dc:
        left = min(col, col + dc)
        return row * (COLS - 1) + left
    lower = min(row, row + dr)
    return EAST_EDGES + lower * COLS + col


#: SIDE_EDGES[square][side]: the edge index, -1 on the border.
SIDE_EDGES: tuple[tuple[int, ...], ...] = tuple(
    tuple(_edge_of(s, side) for side in range(4)) for s in range(SQUARES)
)


def _edge_squares(edge: int) -> tuple[int, int]:
    if edge < EAST_EDGES:
        row, col = divmod(edge, COLS - 1)
        return _square(col, row), _square(col + 1, row)
    row, col = divmod(edge - EAST_EDGES, COLS)
    return _square(col, row), _square(col, row + 1)


#: EDGE_SQUARES[edge]: the two squares it separates (left/lower first).
EDGE_SQUARES: tuple[tuple[int, int], ...] = tuple(_edge_squares(e) for e in range(EDGES))
#: The canonical name: the east side of the left square or the north side of the lower one.
EDGE_NAMES: tuple[str, ...] = tuple(
    SQUARE_NAMES[a] + ("e" if e < EAST_EDGES else "n") for e, (a, _) in enumerate(EDGE_SQUARES)
)


def _between(a: int, b: int) -> int:
    for side in range(4):
        edge = SIDE_EDGES[a][side]
        if edge >= 0 and b in EDGE_SQUARES[edge]:
            return edge
    return -1


def _steps_from(square: int) -> tuple[tuple[int, int, int, int], ...]:
    """(direction, target, via_a, via_b) per neighbour: the step is open when the rods
    miss every edge of mask via_a, or every edge of mask via_b (the two ways around a
    corner; both masks are the one crossed edge for a straight step)."""
    col, row = square % COLS, square // COLS
    out = []
    for direction, (dc, dr) in enumerate(_DIRECTIONS):
        if not _on_board(col + dc, row + dr):
            continue
        target = _square(col + dc, row + dr)
        if dc and dr:
            # RULES.md 1(b)10: around the corner through either orthogonal neighbour; a
            # visited neighbour does not block, only rods do.
            side_a = _square(col + dc, row)
            side_b = _square(col, row + dr)
            via_a = (1 << _between(square, side_a)) | (1 << _between(side_a, target))
            via_b = (1 << _between(square, side_b)) | (1 << _between(side_b, target))
        else:
            via_a = via_b = 1 << _between(square, target)
        out.append((direction, target, via_a, via_b))
    return tuple(out)


STEPS: tuple[tuple[tuple[int, int, int, int], ...], ...] = tuple(
    _steps_from(s) for s in range(SQUARES)
)
#: NEIGHBOUR_DIRECTION[a][b]: the direction (0-7) from a to its neighbour b, else -1.
NEIGHBOUR_DIRECTION: tuple[tuple[int, ...], ...] = tuple(
    tuple(next((d for d, tgt, _, _ in STEPS[a] if tgt == b), -1) for b in range(SQUARES))
    for a in range(SQUARES)
)

#: The roles in words, for players: the mole and the gardener.
ROLES = (t("mole"), t("gardener"))
SEAT_NAMES = ("First mole", "First gardener")
SEAT_TITLES = (t("First mole"), t("First gardener"))  # the seat names as players read them

_SQUARE_RE = r"([a-z])([0-9]{1,2})"
_MOLE_RE = re.compile(rf"(?:(place|move)\s+)?{_SQUARE_RE}")
_ROD_SIDE_RE = re.compile(rf"(?:rod\s+)?{_SQUARE_RE}\s*([nesw])")
_ROD_PAIR_RE = re.compile(rf"(?:rod\s+)?{_SQUARE_RE}\s*-\s*{_SQUARE_RE}")


@dataclass(frozen=True, slots=True)
class Place:
    """The mole's first turn: its stack goes onto `square`."""

    square: int

    def __str__(self) -> str:
        return f"place {SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class Step:
    """A later mole turn: to a neighbour, or anywhere free just after the centre."""

    square: int

    def __str__(self) -> str:
        return SQUARE_NAMES[self.square]


@dataclass(frozen=True, slots=True)
class Rod:
    """The gardener's turn: a rod on interior edge `edge` (see EDGE_NAMES)."""

    edge: int

    def __str__(self) -> str:
        return f"rod {EDGE_NAMES[self.edge]}"


Move = Place | Step | Rod

#: Every move object made once, so move generation only filters.
_PLACES = tuple(Place(s) for s in range(SQUARES))
_STEPS = tuple(Step(s) for s in range(SQUARES))
_RODS = tuple(Rod(e) for e in range(EDGES))


def _square_of(raw: str, col: str, row: str) -> int:
    name = f"{col}{row}"
    square = SQUARE_INDEX.get(name)
    if square is None:
        raise InvalidMoveError(
            t(
                "{text}: there is no square {name}; columns run a-i and rows 1-7.",
                text=raw,
                name=name,
            )
        )
    return square


def read_move(text: str) -> tuple[str | None, int] | Rod:
    """The syntax of a move, without looking at a position: a rod, or the mole's keyword
    (`place`, `move` or None) and square. Raises InvalidMoveError; a rod on the outer
    border raises IllegalMoveError (RULES.md 1(b)11)."""
    raw = text.strip()
    norm = " ".join(raw.lower().split())
    if match := _MOLE_RE.fullmatch(norm):
        return match.group(1), _square_of(raw, match.group(2), match.group(3))
    if match := _ROD_SIDE_RE.fullmatch(norm):
        square = _square_of(raw, match.group(1), match.group(2))
        side = SIDE_LETTERS.index(match.group(3))
        edge = SIDE_EDGES[square][side]
        if edge < 0:
            raise IllegalMoveError(
                t(
                    "{text}: the {side} side of {square} is the edge of the lawn; rods go "
                    "only between two squares.",
                    text=raw,
                    side=SIDE_WORDS[side],
                    square=SQUARE_NAMES[square],
                )
            )
        return Rod(edge)
    if match := _ROD_PAIR_RE.fullmatch(norm):
        a = _square_of(raw, match.group(1), match.group(2))
        b = _square_of(raw, match.group(3), match.group(4))
        edge = _between(a, b)
        if edge < 0:
            raise InvalidMoveError(
                t(
                    "{text}: {a} and {b} do not share a side, so no rod fits between them.",
                    text=raw,
                    a=SQUARE_NAMES[a],
                    b=SQUARE_NAMES[b],
                )
            )
        return Rod(edge)
    if norm == "rod" or norm.startswith("rod "):
        raise InvalidMoveError(
            t(
                "{text}: a rod needs a square and a side, like rod e4n, or two squares, "
                "like rod e4-e5.",
                text=raw,
            )
        )
    raise InvalidMoveError(
        t(
            "{text}: not a move; the mole writes a square (place e4, then f5), the "
            "gardener a rod (rod e4n).",
            text=raw or t("(empty)"),
        )
    )


def _visited_mask(path: tuple[int, ...]) -> int:
    mask = 0
    for square in path:
        mask |= 1 << square
    return mask


def _targets(path: tuple[int, ...], rods: int) -> tuple[int, ...]:
    """The squares the mole may enter next: steps in clockwise order from north, or every
    unvisited square (board order) when it stands on the centre (RULES.md 1(b)8, 9)."""
    if not path:
        return tuple(range(SQUARES))
    visited = _visited_mask(path)
    here = path[-1]
    if here == CENTRE:
        return tuple(s for s in range(SQUARES) if not visited >> s & 1)
    return tuple(
        target
        for _, target, via_a, via_b in STEPS[here]
        if not visited >> target & 1 and (not rods & via_a or not rods & via_b)
    )


def _reach(path: tuple[int, ...], rods: int) -> int:
    """The unvisited squares the mole could walk to (a bit mask). A reachable centre
    opens the whole lawn."""
    visited = _visited_mask(path)
    free = ALL_SQUARES & ~visited
    here = path[-1]
    if here == CENTRE:
        return free
    seen = 0
    stack = [here]
    while stack:
        square = stack.pop()
        for _, target, via_a, via_b in STEPS[square]:
            bit = 1 << target
            if (visited | seen) & bit or (rods & via_a and rods & via_b):
                continue
            if target == CENTRE:
                return free
            seen |= bit
            stack.append(target)
    return seen


def round_score(path: tuple[int, ...], red: tuple[int, ...], white: tuple[int, ...]) -> int:
    """One point per dark piece (squares beyond the tenth), +2 per red and +1 per white
    flower square visited, whatever piece lies on it (RULES.md 1(b)4, 6)."""
    flowers = sum(RED_POINTS for s in red if s in path) + sum(
        WHITE_POINTS for s in white if s in path
    )
    return max(0, len(path) - ORANGE) + flowers


#: What a mole is expected to score before its first placement (for `evaluate`).
_OPENING_PROJECTION = 12.0


@dataclass(frozen=True, slots=True)
class MoleHillState(GameState[Move]):
    """A Mole Hill position.

    The lawn, square index = (row - 1) * 9 + column; red flowers R, white W, centre C::

        row 7 | 54  55  56  57  58R 59  60  61  62  |
        row 6 | 45  46W 47  48  49  50  51  52W 53  |
        row 5 | 36  37  38  39  40  41  42  43  44  |
        row 4 | 27R 28  29  30  31C 32  33  34  35R |
        row 3 | 18  19  20  21  22  23  24  25  26  |
        row 2 |  9  10W 11  12  13  14  15  16W 17  |
        row 1 |  0   1   2   3   4R  5   6   7   8  |
                 a   b   c   d   e   f   g   h   i

    `round_no`: 1 or 2; the mole is seat 0 in round 1 and seat 1 in round 2.
    `phase`: "m" the mole acts, "g" the gardener acts, "x" the game is over.
    `path`: the squares the mole has visited this round, in order; the last one holds the
    stack. Square k of the path (k = 1 first) carries piece k: orange for k <= 10, dark
    after (RULES.md 1(b)5). After round 1 it is cleared; the final board of round 2 stays.
    `rods`: bit mask of the edges holding a rod this round (bit i = EDGE_NAMES[i]).
    `red`, `white`: the flower squares, sorted; the same for both rounds.
    `first_score`: the round-1 mole's score once round 1 is over, else -1.
    `_cache` keeps the mole's next squares once computed; derived, so not compared.
    """

    game_id: ClassVar[str] = "molehill"

    round_no: int
    phase: str
    path: tuple[int, ...]
    rods: int
    red: tuple[int, ...] = DEFAULT_RED
    white: tuple[int, ...] = DEFAULT_WHITE
    first_score: int = -1
    _cache: tuple[int, ...] | None = field(default=None, init=False, compare=False, repr=False)

    # --- whose turn, how it ended -------------------------------------------------------
    @property
    def num_seats(self) -> int:
        return 2

    @property
    def mole_seat(self) -> int:
        """The seat playing the mole this round."""
        return self.round_no - 1

    @property
    def gardener_seat(self) -> int:
        return 2 - self.round_no

    @property
    def to_act(self) -> frozenset[int]:
        if self.phase == "m":
            return frozenset((self.mole_seat,))
        if self.phase == "g":
            return frozenset((self.gardener_seat,))
        return frozenset()

    def seat_role(self, seat: int) -> Text | None:
        """The mole or the gardener while the game runs; once it is over, the seat's own
        name (the first mole, the first gardener), which its score belongs to."""
        if self.phase == "x":
            return None
        return t("Mole") if seat == self.mole_seat else t("Gardener")

    def result_text(self, names: Sequence[str]) -> Text | None:
        """Each player's points are those they scored as the mole of their round."""
        outcome = self.outcome()
        if outcome is None:
            return None
        first, second = (names[s] if s < len(names) else SEAT_TITLES[s] for s in (0, 1))
        rounds = t(
            "{first} scored {a} as the mole in round 1, {second} scored {b} as the mole in round 2",
            first=first,
            a=self.first_score,
            second=second,
            b=self.round_score(),
        )
        high, low = max(outcome.scores), min(outcome.scores)
        if outcome.is_draw:
            return t("It is a draw, {high} to {low}: {rounds}.", high=high, low=low, rounds=rounds)
        (winner,) = outcome.winners
        return t(
            "{winner} wins, {high} to {low}: {rounds}.",
            winner=(first, second)[winner],
            high=high,
            low=low,
            rounds=rounds,
        )

    def round_score(self) -> int:
        """The current mole's score in this round so far."""
        return round_score(self.path, self.red, self.white)

    def scores(self) -> tuple[int, ...]:
        if self.round_no == 1:
            return (self.round_score(), 0)
        return (self.first_score, self.round_score())

    def outcome(self) -> Outcome | None:
        if self.phase != "x":
            return None
        first, second = self.first_score, self.round_score()
        # Who won the scores and `winners` say; the reason tells the two rounds.
        reason = t(
            "Round 1: the first mole scored {first}. Round 2: the second mole scored {second}.",
            first=first,
            second=second,
        )
        if first == second:
            return Outcome((first, second), frozenset(), reason, "two-rounds")
        winner = frozenset((0 if first > second else 1,))
        return Outcome((first, second), winner, reason, "two-rounds")

    # --- moves ----------------------------------------------------------------------------
    def mole_targets(self) -> tuple[int, ...]:
        """The squares the mole may enter on its next turn (whoever is to act)."""
        cached = self._cache
        if cached is None:
            cached = _targets(self.path, self.rods)
            object.__setattr__(self, "_cache", cached)
        return cached

    @property
    def can_jump(self) -> bool:
        """True when the mole stands on the centre, so its next move may go anywhere."""
        return bool(self.path) and self.path[-1] == CENTRE

    def legal_moves(self, seat: int) -> tuple[Move, ...]:
        if seat not in self.to_act:
            return ()
        if self.phase == "g":
            rods = self.rods
            return tuple(r for r in _RODS if not rods >> r.edge & 1)
        if not self.path:
            return _PLACES
        return tuple(_STEPS[s] for s in self.mole_targets())

    def edges_around_mole(self) -> tuple[Rod, ...]:
        """The gardener's legal rods on the sides (n, e, s, w) of the mole's square; empty
        when it is not the gardener's turn."""
        if self.phase != "g":
            return ()
        edges = SIDE_EDGES[self.path[-1]]
        return tuple(_RODS[e] for e in edges if e >= 0 and not self.rods >> e & 1)

    def parse_move(self, seat: int, text: str) -> Move:
        raw = text.strip()
        read = read_move(raw)
        self._check_turn(seat, raw)
        if isinstance(read, Rod):
            if self.phase != "g":
                raise IllegalMoveError(
                    t(
                        "{text}: it is the mole's turn; the mole moves, the gardener places rods.",
                        text=raw,
                    )
                )
            self._check_rod(raw, read)
            return read
        if self.phase != "m":
            raise IllegalMoveError(
                t(
                    "{text}: it is the gardener's turn; place a rod, like rod e4n.",
                    text=raw,
                )
            )
        keyword, square = read
        if not self.path:
            if keyword == "move":
                raise IllegalMoveError(
                    t(
                        "{text}: the mole is not on the lawn yet; place it first, like "
                        "place {square}.",
                        text=raw,
                        square=SQUARE_NAMES[square],
                    )
                )
            return Place(square)
        if keyword == "place":
            raise IllegalMoveError(
                t(
                    "{text}: the mole is already on the lawn at {here}; move it, like "
                    "move {square}.",
                    text=raw,
                    here=SQUARE_NAMES[self.path[-1]],
                    square=SQUARE_NAMES[square],
                )
            )
        move = Step(square)
        self._check_step(raw, move)
        return move

    def _check_turn(self, seat: int, raw: str) -> None:
        if self.phase == "x":
            raise IllegalMoveError(t("{text}: the game is over.", text=raw))
        if seat not in self.to_act:
            raise IllegalMoveError(
                t(
                    "{text}: it is not your turn; the {role} is to play.",
                    text=raw,
                    role=ROLES[0] if self.phase == "m" else ROLES[1],
                )
            )

    def _check_rod(self, raw: str, move: Rod) -> None:
        if self.rods >> move.edge & 1:
            a, b = EDGE_SQUARES[move.edge]
            raise IllegalMoveError(
                t(
                    "{text}: there is already a rod between {a} and {b}.",
                    text=raw,
                    a=SQUARE_NAMES[a],
                    b=SQUARE_NAMES[b],
                )
            )

    def _check_step(self, raw: str, move: Step) -> None:
        if move.square in self.mole_targets():
            return
        here = self.path[-1]
        name = SQUARE_NAMES[move.square]
        if move.square in self.path:
            why = (
                t("the mole is already on {square}.", square=name)
                if move.square == here
                else t("the mole has already visited {square}.", square=name)
            )
        else:
            direction = NEIGHBOUR_DIRECTION[here][move.square]
            if direction < 0:
                why = t(
                    "the mole on {here} may only move to a neighbouring square.",
                    here=SQUARE_NAMES[here],
                )
            elif direction % 2 == 0:
                why = t(
                    "a rod blocks the way from {here} to {square}.",
                    here=SQUARE_NAMES[here],
                    square=name,
                )
            else:
                why = t(
                    "rods block both ways around the corner from {here} to {square}.",
                    here=SQUARE_NAMES[here],
                    square=name,
                )
        raise IllegalMoveError(t("{text}: {why}", text=raw, why=why))

    def play(self, seat: int, move: Move) -> MoleHillState:
        self._check_turn(seat, str(move))
        after = self.lawn_after(move)
        return after._end_round() if after._round_over() else after

    def lawn_after(self, move: Move) -> MoleHillState:
        """The lawn just after `move`, before a round it ends is scored and cleared: the
        last sight of that round. Raises IllegalMoveError as `play` does."""
        if isinstance(move, Rod):
            if self.phase != "g":
                raise IllegalMoveError(t("{move}: it is the mole's turn.", move=str(move)))
            self._check_rod(str(move), move)
            return replace(self, phase="m", rods=self.rods | 1 << move.edge)
        if self.phase != "m":
            raise IllegalMoveError(t("{move}: it is the gardener's turn.", move=str(move)))
        if isinstance(move, Place) != (not self.path):
            raise IllegalMoveError(t("{move}: not a legal move here.", move=str(move)))
        if isinstance(move, Step):
            self._check_step(str(move), move)
        return replace(self, phase="g", path=(*self.path, move.square))

    def _round_over(self) -> bool:
        """Whether the round ends on this lawn: the 22nd square used the last piece
        (RULES.md 1(b)6), or the mole cannot move at the start of its turn (1(b)15)."""
        if len(self.path) == PIECES:
            return True
        return self.phase == "m" and bool(self.path) and not self.mole_targets()

    def report(self, previous: MoleHillState | None, names: Sequence[str]) -> tuple[Text, ...]:
        """The end of round 1, when the move that led here ended it."""
        if previous is None or previous.round_no != 1 or self.round_no != 2:
            return ()
        first, second = (names[s] if s < len(names) else SEAT_TITLES[s] for s in (0, 1))
        return (
            tn(
                "Round 1 is over: {mole} scored {n} point as the mole. The roles swap: "
                "{gardener} is the mole now, {mole} the gardener.",
                "Round 1 is over: {mole} scored {n} points as the mole. The roles swap: "
                "{gardener} is the mole now, {mole} the gardener.",
                n=self.first_score,
                mole=first,
                gardener=second,
            ),
        )

    def _end_round(self) -> MoleHillState:
        score = self.round_score()
        if self.round_no == 1:
            return replace(self, round_no=2, phase="m", path=(), rods=0, first_score=score)
        return replace(self, phase="x")

    # --- notation -------------------------------------------------------------------------
    def to_text(self) -> str:
        path = ",".join(SQUARE_NAMES[s] for s in self.path) or "-"
        rods = ",".join(EDGE_NAMES[e] for e in range(EDGES) if self.rods >> e & 1) or "-"
        red = ",".join(SQUARE_NAMES[s] for s in self.red)
        white = ",".join(SQUARE_NAMES[s] for s in self.white)
        first = str(self.first_score) if self.first_score >= 0 else "-"
        return f"{self.round_no}{self.phase} {path} {rods} {red}/{white} {first}"

    # --- helpers for front-ends and computer players ------------------------------------
    @property
    def rods_placed(self) -> int:
        return self.rods.bit_count()

    @property
    def pieces_left(self) -> int:
        """The mole's stack and supply together: 22 minus the squares visited (RULES.md
        1(b)5); the orange ones go first."""
        return PIECES - len(self.path)

    @property
    def orange_left(self) -> int:
        return max(0, ORANGE - len(self.path))

    def move_tokens(self, move: Move) -> tuple[str, ...]:
        if isinstance(move, Rod):
            a, _ = EDGE_SQUARES[move.edge]
            return (SQUARE_NAMES[a], "e" if move.edge < EAST_EDGES else "n")
        return (SQUARE_NAMES[move.square],)

    def _free_sides(self, square: int) -> tuple[int, ...]:
        """The sides (0 n, 1 e, 2 s, 3 w) of `square` that could take a rod now."""
        return tuple(
            side for side, e in enumerate(SIDE_EDGES[square]) if e >= 0 and not self.rods >> e & 1
        )

    def rod_choice(self, prefix: tuple[str, ...]) -> tuple[int, int] | None:
        """The square and side that the builder's `prefix` names, if they are a free edge:
        one token like `d4n` (a side of the mole's square, offered first) or two, `d4` and
        `n` (any square, then its side)."""
        if self.phase != "g":
            return None
        if len(prefix) == 1:
            name, letter = prefix[0][:-1], prefix[0][-1:]
        elif len(prefix) == 2:
            name, letter = prefix
        else:
            return None
        square = SQUARE_INDEX.get(name, -1)
        if square < 0 or len(letter) != 1 or letter not in SIDE_LETTERS:
            return None
        side = SIDE_LETTERS.index(letter)
        return (square, side) if side in self._free_sides(square) else None

    def reach_with_rod(self, edge: int) -> tuple[int, int]:
        """The squares the mole could walk to (bit masks) now and with a rod on `edge`."""
        return _reach(self.path, self.rods), _reach(self.path, self.rods | 1 << edge)

    def rod_preview(self, square: int, side: int) -> Text:
        """What a rod on `side` of `square` would do to the mole, for the builder."""
        edge = SIDE_EDGES[square][side]
        before, after = self.reach_with_rod(edge)
        where = t("Rod {side} of {square}", side=SIDE_WORDS[side], square=SQUARE_NAMES[square])
        if not after:
            return t(
                "{rod} closes the mole in: it cannot move, so round {round} ends.",
                rod=where,
                round=self.round_no,
            )
        if after == before:
            reach = tn(
                "{rod}: the mole can still reach {n} square, as now.",
                "{rod}: the mole can still reach {n} squares, as now.",
                n=after.bit_count(),
                rod=where,
            )
        else:
            reach = tn(
                "{rod}: the mole can still reach {n} square ({before} now).",
                "{rod}: the mole can still reach {n} squares ({before} now).",
                n=after.bit_count(),
                before=before.bit_count(),
                rod=where,
            )
        steps = len(_targets(self.path, self.rods | 1 << edge))
        next_turn = tn(
            "Next turn it can move to {n} square.", "Next turn it can move to {n} squares.", n=steps
        )
        return t("{reach} {next}", reach=reach, next=next_turn)

    def move_description(self, seat: int, move: Move) -> Text | None:
        """What a rod leaves the mole (`mole reaches 38 of 42 squares, 3 ways on next
        turn`); what a mole's square scores and where it can go on from there."""
        if seat not in self.to_act:
            return None
        if isinstance(move, Rod):
            return self._rod_words(move.edge)
        return self._square_words(move.square)

    def _rod_words(self, edge: int) -> Text:
        before, after = self.reach_with_rod(edge)
        if not after:
            return t("closes the mole in: round {round} ends", round=self.round_no)
        if after == before:
            reach = tn(
                "mole still reaches {n} square",
                "mole still reaches all {n} squares",
                n=after.bit_count(),
            )
        else:
            reach = tn(
                "mole reaches {n} of {before} square",
                "mole reaches {n} of {before} squares",
                n=after.bit_count(),
                before=before.bit_count(),
            )
        steps = len(_targets(self.path, self.rods | 1 << edge))
        ways = tn("{n} way on next turn", "{n} ways on next turn", n=steps)
        return joined((reach, ways), ", ")

    def _square_words(self, square: int) -> Text:
        path = (*self.path, square)
        gain = round_score(path, self.red, self.white) - self.round_score()
        parts = [tn("+{n} point", "+{n} points", n=gain)]
        if square in self.red:
            parts.append(t("red flower"))
        elif square in self.white:
            parts.append(t("white flower"))
        if len(path) == PIECES:
            parts.append(t("last piece: the round ends"))
        elif square == CENTRE:
            parts.append(t("the centre: then anywhere"))
        else:
            ways = len(_targets(path, self.rods))
            if ways:
                parts.append(tn("then {n} way on", "then {n} ways on", n=ways))
            else:
                parts.append(t("then stuck: the round ends"))
        return joined(parts, ", ")

    def move_options(self, seat: int, prefix: tuple[str, ...] = ()) -> MoveOptions[Move]:
        """The mole picks a square in one step. The gardener picks a free side of the
        mole's square in one step (pinned first, as `d4n`), or any other square and then
        any free side of it, so each edge can be reached from both of its squares; more
        than 25 squares are grouped by column by the front-end. Every rod is shown with
        what it does and asks to be confirmed."""
        if self.phase != "g" or seat not in self.to_act:
            return GameState.move_options(self, seat, prefix)
        prompt = self.option_prompt(prefix)
        if not prefix:
            here = self.path[-1]
            sides = tuple(
                Option(token, self.option_label(prefix, token), pinned=True)
                for token in (
                    SQUARE_NAMES[here] + SIDE_LETTERS[side] for side in self._free_sides(here)
                )
            )
            squares = tuple(
                Option(SQUARE_NAMES[s], self.option_label(prefix, SQUARE_NAMES[s]))
                for s in range(SQUARES)
                if s != here and self._free_sides(s)
            )
            return MoveOptions(prefix, sides + squares, None, prompt)
        choice = self.rod_choice(prefix)
        if choice is not None:
            square, side = choice
            rod = _RODS[SIDE_EDGES[square][side]]
            return MoveOptions(
                prefix, (), rod, prompt, self.rod_preview(square, side), confirm=t("Place this rod")
            )
        square = SQUARE_INDEX.get(prefix[0], -1)
        if len(prefix) == 1 and square >= 0:
            options = tuple(
                Option(SIDE_LETTERS[side], self.option_label(prefix, SIDE_LETTERS[side]))
                for side in self._free_sides(square)
            )
            return MoveOptions(prefix, options, None, prompt)
        return MoveOptions(prefix, (), None, prompt)

    def option_label(self, prefix: tuple[str, ...], token: str) -> str:
        if self.phase == "g":
            if len(prefix) == 1 and token in SIDE_LETTERS:
                side = SIDE_LETTERS.index(token)
                return f"{SIDE_ARROWS[side]} {SIDE_WORDS[side]!s}"
            choice = self.rod_choice((token,)) if not prefix else None
            if choice is not None:
                square, side = choice
                return str(
                    t(
                        "{arrow} {side} of {square}",
                        arrow=SIDE_ARROWS[side],
                        side=SIDE_WORDS[side],
                        square=SQUARE_NAMES[square],
                    )
                )
            return token
        square = SQUARE_INDEX.get(token, -1)
        if not self.path or square < 0:
            return token
        direction = NEIGHBOUR_DIRECTION[self.path[-1]][square]
        return f"{DIRECTION_ARROWS[direction]} {token}" if direction >= 0 else token

    def option_prompt(self, prefix: tuple[str, ...]) -> Text:
        if self.phase == "g":
            if self.rod_choice(prefix) is not None:
                return t("Place this rod? Confirm it, or go back and choose another.")
            if prefix:
                return t("Choose the side of {square} that gets the rod.", square=prefix[0])
            if self._free_sides(self.path[-1]):
                return t("Choose a side of the mole's square, or a square to put a rod beside.")
            return t("Choose a square to put a rod beside.")
        if not self.path:
            return t("Choose the square where the mole starts.")
        if self.can_jump:
            return t("Choose where the mole goes: any free square, from the centre.")
        return t("Choose where the mole goes.")

    def _projection(self) -> float:
        """The score this round's mole can expect: its score so far, plus part of what
        the squares and flowers it can still reach would add."""
        if not self.path:
            return _OPENING_PROJECTION
        score = self.round_score()
        if self.phase == "x":
            return float(score)
        reach = _reach(self.path, self.rods)
        if not reach:
            return float(score)
        length = len(self.path)
        more = min(reach.bit_count(), PIECES - length)
        squares = max(0, length + more - ORANGE) - max(0, length - ORANGE)
        flowers = sum(RED_POINTS for s in self.red if reach >> s & 1) + sum(
            WHITE_POINTS for s in self.white if reach >> s & 1
        )
        mobility = len(self.mole_targets())
        return score + 0.6 * squares + 0.4 * flowers + 0.15 * mobility

    def evaluate(self, seat: int) -> float:
        """Projected match score of `seat` minus the other's: the mole wants many
        reachable squares and flowers and room to move, the gardener few."""
        if self.round_no == 1:
            totals = (self._projection(), _OPENING_PROJECTION)
        else:
            totals = (float(self.first_score), self._projection())
        return totals[seat] - totals[1 - seat]


def _notation_error(message: Text) -> NotationError:
    return NotationError(str(t("Mole Hill position: {why}", why=message)))


def _parse_squares(text: str, what: Text) -> tuple[int, ...]:
    if text == "-":
        return ()
    out = []
    for name in text.split(","):
        square = SQUARE_INDEX.get(name)
        if square is None:
            raise _notation_error(
                t(
                    "{what}: {name!r} is not a square; columns run a-i and rows 1-7.",
                    what=what,
                    name=name,
                )
            )
        out.append(square)
    return tuple(out)


def _parse_rods(text: str) -> int:
    if text == "-":
        return 0
    rods = 0
    for name in text.split(","):
        try:
            read = read_move(f"rod {name}")
        except MoveError as exc:
            raise _notation_error(t("rods: {why}", why=exc.text)) from None
        if not isinstance(read, Rod):
            raise _notation_error(t("rods: {name!r} is not an edge, like e4n.", name=name))
        if rods >> read.edge & 1:
            raise _notation_error(
                t("rods: the edge {edge} is listed twice.", edge=EDGE_NAMES[read.edge])
            )
        rods |= 1 << read.edge
    return rods


def _check_path(path: tuple[int, ...]) -> None:
    if len(set(path)) != len(path):
        raise _notation_error(t("the mole's path visits a square twice."))
    if len(path) > PIECES:
        raise _notation_error(
            t("the mole has only {n} pieces, so it visits at most {n} squares.", n=PIECES)
        )
    for before, after in pairwise(path):
        if before != CENTRE and NEIGHBOUR_DIRECTION[before][after] < 0:
            raise _notation_error(
                t(
                    "the mole cannot go from {a} to {b}: they are not neighbours and {a} "
                    "is not the centre.",
                    a=SQUARE_NAMES[before],
                    b=SQUARE_NAMES[after],
                )
            )


def _parse(text: str) -> MoleHillState:
    fields = text.strip().lower().split()
    if len(fields) != 5:
        raise _notation_error(
            t(
                "expected 5 fields separated by spaces (round and turn, path, rods, "
                "flowers, round-1 score), got {n}.",
                n=len(fields),
            )
        )
    head, path_text, rods_text, flowers_text, first_text = fields
    if len(head) != 2 or head[0] not in "12" or head[1] not in "mgx":
        raise _notation_error(
            t(
                "the first field is the round (1 or 2) and who acts (m, g or x), like 1m; "
                "got {head!r}.",
                head=head,
            )
        )
    round_no, phase = int(head[0]), head[1]
    path = _parse_squares(path_text, t("path"))
    _check_path(path)
    rods = _parse_rods(rods_text)
    flower_parts = flowers_text.split("/")
    if len(flower_parts) != 2:
        raise _notation_error(t("flowers: write the red squares, a /, then the white squares."))
    red = tuple(sorted(_parse_squares(flower_parts[0], t("red flowers"))))
    white = tuple(sorted(_parse_squares(flower_parts[1], t("white flowers"))))
    if len(red) != 4 or len(white) != 4:
        raise _notation_error(t("flowers: there are four red and four white flowers."))
    if len(set(red + white)) != 8 or CENTRE in red + white:
        raise _notation_error(
            t("flowers: the eight flowers need eight different squares, none of them e4.")
        )
    if round_no == 1:
        if first_text != "-":
            raise _notation_error(t("the round-1 score is written - until round 1 is over."))
        first = -1
    else:
        score = read_natural(first_text, BEST_SCORE)
        if score is None:
            raise _notation_error(
                t(
                    "the round-1 score must be a number from 0 to {best}, not {s!r}.",
                    best=BEST_SCORE,
                    s=first_text,
                )
            )
        first = score
    state = MoleHillState(round_no, phase, path, rods, red, white, first)
    _check_consistent(state)
    return state


def _check_consistent(state: MoleHillState) -> None:
    """The rod count follows the turn order, and no finished round is left unresolved."""
    placed, visited = state.rods_placed, len(state.path)
    if state.phase == "m":
        if placed != visited:
            raise _notation_error(
                t(
                    "with the mole to act there is one rod per visited square; found {r} "
                    "rods and {v} squares.",
                    r=placed,
                    v=visited,
                )
            )
        if visited == PIECES or (state.path and not state.mole_targets()):
            raise _notation_error(t("the mole cannot move, so the round is already over."))
    elif state.phase == "g":
        if visited == 0 or visited >= PIECES or placed != visited - 1:
            raise _notation_error(
                t(
                    "with the gardener to act the mole has visited 1 to 21 squares and "
                    "there is one rod fewer than squares; found {r} rods and {v} squares.",
                    r=placed,
                    v=visited,
                )
            )
    else:
        if state.round_no != 2:
            raise _notation_error(t("the game can only be over in round 2."))
        full = visited == PIECES and placed == PIECES - 1
        stuck = visited > 0 and placed == visited and not state.mole_targets()
        if not (full or stuck):
            raise _notation_error(
                t("the game is over only when the mole has used all 22 pieces or cannot move.")
            )


# --- what the computer player knows -----------------------------------------------------

#: The search scores the positions where its tree stops by `evaluate`, without random
#: playouts.
SEARCH_MODEL = Model(playout_depth=0, eval_scale=3.0)


class MoleHill(Game[Move]):
    id = "molehill"
    name = "Mole Hill"
    min_players = 2
    max_players = 2
    seat_names = SEAT_NAMES
    variants = (
        Variant(
            "random-flowers",
            t(
                "the four red and four white flowers go on random squares (never the "
                "centre), the same for both rounds"
            ),
        ),
    )
    blurb = t("One player burrows, the other fences the lawn with rods; then swap roles.")
    draw_seats = True

    def new_state(
        self, seed: int, num_players: int = 2, variant: str | None = None
    ) -> MoleHillState:
        self.check_setup(num_players, variant)
        red, white = DEFAULT_RED, DEFAULT_WHITE
        if variant == "random-flowers":
            spots, _ = Rng(seed).shuffled([s for s in range(SQUARES) if s != CENTRE])
            red, white = tuple(sorted(spots[:4])), tuple(sorted(spots[4:8]))
        return MoleHillState(1, "m", (), 0, red, white, -1)

    def from_text(self, text: str) -> MoleHillState:
        return _parse(text)

    def search_model(self, view: GameState[Any]) -> Model:
        return SEARCH_MODEL


GAME = registry.register(MoleHill())
