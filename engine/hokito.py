"""Hokito (Claude Leroy, Cosmoludo): stack pawns by jumping, score what you top.

Rules: RULES.md section 2. Black (seat 0) moves first and sets up on ranks 1-3, White
(seat 1) on ranks 4-6. A move takes one pawn or stack whose top pawn is yours and makes
exactly as many jumps as the top pawn's value; each jump goes straight (never
diagonally) to the first occupied square, turns are right angles only, and the path may
not visit a square twice. A single pawn must end on a single pawn, a stack on a stack; it
is placed on top, order kept. When the player to move has no move the game ends: each
side scores top value × height for every pawn and stack it tops.

Position notation (the `position:` option), for example the start of a game::

    w1,w3,w2,w2,w1,w3/w2,.../.../b1,b3,b2,b1,b1,b2 b

- six ranks, rank 6 first and rank 1 last, separated by `/`;
- in each rank six squares, file a to f, separated by `,`;
- a square is `.` when empty, else its pawns bottom to top, each a colour letter
  (`b` Black, `w` White) and a value 1-3: `b1w3` is a black 1 under a white 3
  (a stack of 2 that White controls);
- then a space and the side to move: `b` or `w`.

Pawns never leave the board, so a position holds exactly 36 pawns: six of each colour
and value. Upper case is accepted on input.

Moves: `c2-e4` (also `c2 e4`, `c2e4`), or the full path naming every landing square,
`c2>c4>e4`, which is checked jump by jump.
"""

from __future__ import annotations

import re
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
    NotationError,
    Outcome,
    Variant,
)
from engine.rng import Rng
from engine.text import Text, t, tn

SIZE = 6
SQUARES = SIZE * SIZE
FILES = "abcdef"
SIDES = ("Black", "White")
SEAT_TITLES = (t("Black"), t("White"))  # the seat names as players read them
COLOUR_LETTERS = "bw"

#: Square index = (rank - 1) * 6 + file, so a1 = 0, f1 = 5, a2 = 6, f6 = 35.
SQUARE_NAMES: tuple[str, ...] = tuple(f"{FILES[i % SIZE]}{i // SIZE + 1}" for i in range(SQUARES))
SQUARE_INDEX: dict[str, int] = {name: i for i, name in enumerate(SQUARE_NAMES)}

#: Directions: 0 north (up the ranks, towards White), 1 east, 2 south, 3 west.
#: `d ^ 2` is the opposite direction.
_STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))


def _ray(square: int, direction: int) -> tuple[int, ...]:
    file, rank = square % SIZE, square // SIZE
    dx, dy = _STEPS[direction]
    out = []
    file, rank = file + dx, rank + dy
    while 0 <= file < SIZE and 0 <= rank < SIZE:
        out.append(rank * SIZE + file)
        file, rank = file + dx, rank + dy
    return tuple(out)


#: RAYS[square][direction]: the squares from `square` (excluded) to the edge.
RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_ray(s, d) for d in range(4)) for s in range(SQUARES)
)

#: A pawn is its value (1-3), positive for Black and negative for White.
Pawn = int
Stack = tuple[Pawn, ...]

#: Every position holds these pawns: six of each colour and value.
ALL_PAWNS: tuple[Pawn, ...] = tuple(
    sorted(v * c for c in (1, -1) for v in (1, 2, 3) for _ in range(6))
)


def pawn_colour(pawn: Pawn) -> int:
    """The seat whose colour the pawn is: 0 Black, 1 White."""
    return 0 if pawn > 0 else 1


def stack_label(stack: Stack) -> str:
    """The notation of RULES.md 2(c): `B3` for a single black 3, `W2×4` for a stack of 4
    with a white 2 on top."""
    top = stack[-1]
    label = f"{'BW'[pawn_colour(top)]}{abs(top)}"
    return label if len(stack) == 1 else f"{label}×{len(stack)}"


def _jumps(n: int) -> Text:
    return tn("{n} jump", "{n} jumps", n=n)


def _piece(stack: Stack) -> Text:
    """What moves, as a refusal names it: `a 3`, `a stack topped by a 3`."""
    value = abs(stack[-1])
    if len(stack) == 1:
        return t("a {value}", value=value)
    return t("a stack topped by a {value}", value=value)


@dataclass(frozen=True, slots=True)
class HokitoMove:
    """A pawn or stack moving from `origin` to `destination` (square indexes).

    Only the two ends matter to the rules (RULES.md 2(b)13). `path` is one legal path,
    origin first and then every landing square, kept for drawing; it takes no part in
    equality, so a move typed with or without its path is the same move.
    """

    origin: int
    destination: int
    path: tuple[int, ...] = field(default=(), compare=False)

    def __str__(self) -> str:
        return f"{SQUARE_NAMES[self.origin]}-{SQUARE_NAMES[self.destination]}"

    @property
    def path_text(self) -> str:
        """The full path form, `c2>c4>e4` (the plain form when no path is known)."""
        if not self.path:
            return str(self)
        return ">".join(SQUARE_NAMES[s] for s in self.path)


def _legal_paths(board: tuple[Stack, ...], origin: int) -> dict[int, tuple[int, ...]]:
    """Destination -> first path found, for the pawn or stack on `origin`.

    Exactly `value` jumps; each lands on the first occupied square of its ray (the origin
    is lifted, so counts as empty); no 180° turn (2(b)3); no square visited twice,
    counting the origin and jumped-over squares (2(b)4); the final landing matches the
    mover's kind, single on single and stack on stack (the intermediate ones need not).
    """
    mover = board[origin]
    value = abs(mover[-1])
    single = len(mover) == 1
    found: dict[int, tuple[int, ...]] = {}

    def walk(at: int, last: int, left: int, seen: int, path: tuple[int, ...]) -> None:
        rays = RAYS[at]
        for direction in range(4):
            if direction == last ^ 2:
                continue
            passed = 0
            landing = -1
            for s in rays[direction]:
                if board[s] and s != origin:
                    landing = s
                    break
                passed |= 1 << s
            if landing < 0:
                continue
            passed |= 1 << landing
            if passed & seen:
                continue
            if left > 1:
                walk(landing, direction, left - 1, seen | passed, (*path, landing))
            elif (len(board[landing]) == 1) == single and landing not in found:
                found[landing] = (*path, landing)

    walk(origin, -9, value, 1 << origin, (origin,))
    return found


def _moves_of(board: tuple[Stack, ...], seat: int) -> tuple[HokitoMove, ...]:
    moves: list[HokitoMove] = []
    for origin, stack in enumerate(board):
        if stack and pawn_colour(stack[-1]) == seat:
            paths = _legal_paths(board, origin)
            moves.extend(HokitoMove(origin, d, paths[d]) for d in sorted(paths))
    return tuple(moves)


def _scores(board: tuple[Stack, ...]) -> tuple[int, int]:
    black = white = 0
    for stack in board:
        if stack:
            top = stack[-1]
            if top > 0:
                black += top * len(stack)
            else:
                white -= top * len(stack)
    return black, white


_SQUARE_RE = r"[a-z][0-9]+"
_PLAIN_RE = re.compile(rf"({_SQUARE_RE})\s*(?:-|\s)?\s*({_SQUARE_RE})")
_PATH_RE = re.compile(rf"{_SQUARE_RE}(?:\s*>\s*{_SQUARE_RE})+")
_STACK_RE = re.compile(r"(?:[bw][123])+")


@dataclass(frozen=True, slots=True)
class HokitoState(GameState[HokitoMove]):
    """A Hokito position.

    `board` holds the 36 squares, each a stack of pawns listed bottom to top (empty tuple
    for an empty square); index = (rank - 1) * 6 + file::

        rank 6 | 30 31 32 33 34 35 |   White sets up here (ranks 4-6)
        rank 5 | 24 25 26 27 28 29 |
        rank 4 | 18 19 20 21 22 23 |
        rank 3 | 12 13 14 15 16 17 |   Black sets up here (ranks 1-3)
        rank 2 |  6  7  8  9 10 11 |
        rank 1 |  0  1  2  3  4  5 |
                  a  b  c  d  e  f

    A pawn is its value, positive for Black and negative for White.
    `to_move` is the seat whose turn it is (0 Black, 1 White); when that seat has no legal
    move the game is over (RULES.md 2(b)11).
    `_moves` caches the mover's legal moves; it is derived, so not part of equality.
    """

    game_id: ClassVar[str] = "hokito"

    board: tuple[Stack, ...]
    to_move: int = 0
    _moves: tuple[HokitoMove, ...] | None = field(
        default=None, init=False, compare=False, repr=False
    )

    # --- whose turn, how it ended -------------------------------------------------------
    @property
    def num_seats(self) -> int:
        return 2

    def _mover_moves(self) -> tuple[HokitoMove, ...]:
        moves = self._moves
        if moves is None:
            moves = _moves_of(self.board, self.to_move)
            object.__setattr__(self, "_moves", moves)
        return moves

    @property
    def to_act(self) -> frozenset[int]:
        return frozenset((self.to_move,)) if self._mover_moves() else frozenset()

    def scores(self) -> tuple[int, ...]:
        return _scores(self.board)

    def outcome(self) -> Outcome | None:
        if self._mover_moves():
            return None
        black, white = _scores(self.board)
        stuck = SEAT_TITLES[self.to_move]
        # Why it ended; who won, and by how much, the scores and `winners` say.
        reason = t("{side} has no legal move.", side=stuck)
        if black == white:
            return Outcome((black, white), frozenset(), reason, "no-legal-move")
        winner = frozenset((0 if black > white else 1,))
        return Outcome((black, white), winner, reason, "no-legal-move")

    # --- moves ----------------------------------------------------------------------------
    def legal_moves(self, seat: int) -> tuple[HokitoMove, ...]:
        if seat != self.to_move:
            return ()
        return self._mover_moves()

    def destinations(self, origin: int) -> dict[int, tuple[int, ...]]:
        """Every square the pawn or stack on `origin` may end on, with one path each
        (whoever owns it; empty for an empty square)."""
        if not self.board[origin]:
            return {}
        return dict(sorted(_legal_paths(self.board, origin).items()))

    def parse_move(self, seat: int, text: str) -> HokitoMove:
        raw = text.strip()
        norm = raw.lower()
        if norm == "pass":
            # RULES.md 2(b)10: a player who can move must move.
            raise IllegalMoveError(
                t("{text}: there is no passing in Hokito; every turn is one move.", text=raw)
            )
        if _PATH_RE.fullmatch(norm):
            names = [part.strip() for part in norm.split(">")]
            squares = [self._square(raw, name) for name in names]
            return self._check_path(seat, raw, squares)
        match = _PLAIN_RE.fullmatch(norm)
        if not match:
            raise InvalidMoveError(
                t(
                    "{text}: not a move; write origin and destination like c2-e4, "
                    "or the full path like c2>c4>e4.",
                    text=raw or t("(empty)"),
                )
            )
        origin = self._square(raw, match.group(1))
        destination = self._square(raw, match.group(2))
        return self._check(seat, raw, origin, destination)

    def _square(self, raw: str, name: str) -> int:
        if name not in SQUARE_INDEX:
            raise InvalidMoveError(
                t("{text}: {name} is not a square (files a-f, ranks 1-6).", text=raw, name=name)
            )
        return SQUARE_INDEX[name]

    def _check_turn(self, seat: int) -> None:
        if not self._mover_moves():
            raise IllegalMoveError(t("The game is over."))
        if seat != self.to_move:
            raise IllegalMoveError(t("It is {side}'s turn.", side=SEAT_TITLES[self.to_move]))

    def _check_origin(self, seat: int, raw: str, origin: int) -> Stack:
        name = SQUARE_NAMES[origin]
        stack = self.board[origin]
        if not stack:
            raise IllegalMoveError(
                t("{text}: {sq} is empty; there is nothing to move.", text=raw, sq=name)
            )
        owner = pawn_colour(stack[-1])
        if owner != seat:
            if len(stack) == 1:
                raise IllegalMoveError(
                    t(
                        "{text}: {sq} is {side}'s pawn; move a pawn or stack of your colour.",
                        text=raw,
                        sq=name,
                        side=SEAT_TITLES[owner],
                    )
                )
            raise IllegalMoveError(
                t(
                    "{text}: the stack on {sq} is {side}'s (a {side} pawn is on top).",
                    text=raw,
                    sq=name,
                    side=SEAT_TITLES[owner],
                )
            )
        return stack

    def _check_landing(self, raw: str, mover: Stack, destination: int) -> None:
        name = SQUARE_NAMES[destination]
        target = self.board[destination]
        if not target:
            raise IllegalMoveError(
                t("{text}: {sq} is empty; a move ends on a pawn or a stack.", text=raw, sq=name)
            )
        if len(mover) == 1 and len(target) > 1:
            raise IllegalMoveError(
                t(
                    "{text}: a single pawn must land on a single pawn; {sq} holds a stack "
                    "of {height}.",
                    text=raw,
                    sq=name,
                    height=len(target),
                )
            )
        if len(mover) > 1 and len(target) == 1:
            raise IllegalMoveError(
                t(
                    "{text}: a stack must land on another stack; {sq} holds a single pawn.",
                    text=raw,
                    sq=name,
                )
            )

    def _check(self, seat: int, raw: str, origin: int, destination: int) -> HokitoMove:
        self._check_turn(seat)
        mover = self._check_origin(seat, raw, origin)
        if origin == destination:
            raise IllegalMoveError(t("{text}: a move must end on another square.", text=raw))
        self._check_landing(raw, mover, destination)
        paths = _legal_paths(self.board, origin)
        if destination not in paths:
            raise IllegalMoveError(
                t(
                    "{text}: {piece} makes exactly {jumps}; no path of {jumps} reaches "
                    "{dest} from {origin}.",
                    text=raw,
                    piece=_piece(mover),
                    jumps=_jumps(abs(mover[-1])),
                    dest=SQUARE_NAMES[destination],
                    origin=SQUARE_NAMES[origin],
                )
            )
        return HokitoMove(origin, destination, paths[destination])

    def _check_path(self, seat: int, raw: str, squares: list[int]) -> HokitoMove:
        self._check_turn(seat)
        origin = squares[0]
        mover = self._check_origin(seat, raw, origin)
        value = abs(mover[-1])
        jumps = len(squares) - 1
        if jumps != value:
            raise IllegalMoveError(
                t(
                    "{text}: {piece} makes exactly {need}; this path has {have}.",
                    text=raw,
                    piece=_piece(mover),
                    need=_jumps(value),
                    have=_jumps(jumps),
                )
            )
        seen = {origin}
        last = -9
        for at, to in pairwise(squares):
            direction = next((d for d in range(4) if to in RAYS[at][d]), -1)
            step = {"text": raw, "at": SQUARE_NAMES[at], "to": SQUARE_NAMES[to]}
            if at == to:
                raise IllegalMoveError(t("{text}: a jump from {at} must leave {at}.", **step))
            if direction < 0:
                raise IllegalMoveError(
                    t(
                        "{text}: {to} is not straight up, down, left or right of {at}; "
                        "jumps are never diagonal.",
                        **step,
                    )
                )
            if direction == last ^ 2:
                raise IllegalMoveError(
                    t(
                        "{text}: the path turns back at {at}; a jump may only go straight "
                        "on or turn at a right angle.",
                        **step,
                    )
                )
            for s in RAYS[at][direction]:
                if s != origin and self.board[s]:
                    break
            else:
                s = -1
            if s != to:
                if s < 0 or RAYS[at][direction].index(s) > RAYS[at][direction].index(to):
                    raise IllegalMoveError(
                        t(
                            "{text}: {to} is empty; a jump lands on the first occupied square.",
                            **step,
                        )
                    )
                raise IllegalMoveError(
                    t(
                        "{text}: the jump from {at} towards {to} stops at {stop}, the first "
                        "occupied square.",
                        stop=SQUARE_NAMES[s],
                        **step,
                    )
                )
            ray = RAYS[at][direction]
            crossed = ray[: ray.index(to) + 1]
            again = next((c for c in crossed if c in seen), None)
            if again is not None:
                raise IllegalMoveError(
                    t(
                        "{text}: the path crosses itself at {sq}.",
                        text=raw,
                        sq=SQUARE_NAMES[again],
                    )
                )
            seen.update(crossed)
            last = direction
        destination = squares[-1]
        self._check_landing(raw, mover, destination)
        return HokitoMove(origin, destination, tuple(squares))

    def play(self, seat: int, move: HokitoMove) -> HokitoState:
        self._check_turn(seat)
        legal = self._mover_moves()
        if move not in legal:
            raise IllegalMoveError(t("{move}: not a legal move here.", move=str(move)))
        board = list(self.board)
        board[move.destination] = board[move.destination] + board[move.origin]
        board[move.origin] = ()
        return replace(self, board=tuple(board), to_move=1 - self.to_move)

    # --- notation -------------------------------------------------------------------------
    def to_text(self) -> str:
        ranks = []
        for rank in range(SIZE - 1, -1, -1):
            cells = []
            for file in range(SIZE):
                stack = self.board[rank * SIZE + file]
                cells.append(
                    "".join(f"{COLOUR_LETTERS[pawn_colour(p)]}{abs(p)}" for p in stack) or "."
                )
            ranks.append(",".join(cells))
        return f"{'/'.join(ranks)} {COLOUR_LETTERS[self.to_move]}"

    # --- helpers for front-ends -----------------------------------------------------------
    def move_tokens(self, move: HokitoMove) -> tuple[str, ...]:
        return (SQUARE_NAMES[move.origin], SQUARE_NAMES[move.destination])

    def move_description(self, seat: int, move: HokitoMove) -> Text:
        route = move.path_text
        target = self.board[move.destination]
        if not target:
            return t("by {route}", route=route)
        return t("by {route}, onto {stack}", route=route, stack=stack_label(target))

    def option_label(self, prefix: tuple[str, ...], token: str) -> str:
        stack = self.board[SQUARE_INDEX[token]]
        return f"{token} ({stack_label(stack)})" if stack else token

    def option_prompt(self, prefix: tuple[str, ...]) -> Text:
        if prefix:
            return t("Choose where {sq} lands.", sq=prefix[0])
        return t("Choose a pawn or stack to move.")


def _parse_board(text: str) -> HokitoState:
    body = text.strip().lower()
    parts = body.split()
    if len(parts) != 2:
        raise NotationError(
            str(t("Hokito position: expected the board, a space, then b or w to move."))
        )
    rows, side = parts
    if side not in ("b", "w"):
        raise NotationError(
            str(t("Hokito position: the side to move must be b or w, not {side!r}.", side=side))
        )
    ranks = rows.split("/")
    if len(ranks) != SIZE:
        raise NotationError(
            str(t("Hokito position: expected 6 ranks separated by /, got {n}.", n=len(ranks)))
        )
    board: list[Stack] = [()] * SQUARES
    for i, rank_text in enumerate(ranks):
        rank = SIZE - 1 - i
        cells = rank_text.split(",")
        if len(cells) != SIZE:
            raise NotationError(
                str(
                    t(
                        "Hokito position: rank {rank} needs 6 squares separated by commas, "
                        "got {n}.",
                        rank=rank + 1,
                        n=len(cells),
                    )
                )
            )
        for file, cell in enumerate(cells):
            if cell == ".":
                continue
            if not _STACK_RE.fullmatch(cell):
                raise NotationError(
                    str(
                        t(
                            "Hokito position: {sq} reads {cell!r}; write . for empty or pawns "
                            "like b1w3 (colour b/w, value 1-3).",
                            sq=SQUARE_NAMES[rank * SIZE + file],
                            cell=cell,
                        )
                    )
                )
            board[rank * SIZE + file] = tuple(
                int(cell[j + 1]) * (1 if cell[j] == "b" else -1) for j in range(0, len(cell), 2)
            )
    pawns = sorted(p for stack in board for p in stack)
    if pawns != list(ALL_PAWNS):
        counts = []
        for colour, sign in (("b", 1), ("w", -1)):
            for value in (1, 2, 3):
                n = pawns.count(sign * value)
                if n != 6:
                    counts.append(f"{n} × {colour}{value}")
        raise NotationError(
            str(
                t(
                    "Hokito position: there must be exactly six pawns of each colour and "
                    "value (36 in all); found {counts}.",
                    counts=", ".join(counts),
                )
            )
        )
    return HokitoState(tuple(board), COLOUR_LETTERS.index(side))


# --- what the computer player knows -----------------------------------------------------

#: The search scores the positions where its tree stops by `evaluate`, without random
#: playouts.
SEARCH_MODEL = Model(playout_depth=0, eval_scale=8.0)


class Hokito(Game[HokitoMove]):
    id = "hokito"
    name = "Hokito"
    min_players = 2
    max_players = 2
    seat_names = SIDES
    variants = (Variant("scatter", t("all 36 pawns are spread at random over the whole board")),)
    blurb = t("Jump, stack and top: the higher stacks you control, the more you score.")
    draw_seats = True

    def new_state(self, seed: int, num_players: int = 2, variant: str | None = None) -> HokitoState:
        self.check_setup(num_players, variant)
        rng = Rng(seed)
        if variant == "scatter":
            pawns, rng = rng.shuffled(ALL_PAWNS)
        else:
            black, rng = rng.shuffled(tuple(p for p in ALL_PAWNS if p > 0))
            white, rng = rng.shuffled(tuple(p for p in ALL_PAWNS if p < 0))
            pawns = black + white
        return HokitoState(tuple((p,) for p in pawns), 0)

    def from_text(self, text: str) -> HokitoState:
        return _parse_board(text)

    def search_model(self, view: GameState[Any]) -> Model:
        return SEARCH_MODEL


GAME = registry.register(Hokito())
