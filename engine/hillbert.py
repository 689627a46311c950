"""Hillbert: a solo procedural hill descent (RULES.md section 4).

Hillbert rolls down a hill 7 cells wide. Each turn he moves forward (down) a fixed
number of cells for his size, then optionally sideways in one direction; he eats food,
smashes or bumps into obstacles, grows after a meal and shrinks after a hungry turn. The
board then scrolls up until he touches the top row again, one point per row. The game ends
after 3 turns that began with him Small and in which he ate nothing.

The hill is a pure function of the seed: absolute row *k* (row 1 is the starting top
row) is generated from `hash64(seed, k)` plus the lower halves of big obstacles carried
over from row *k - 1*, never from the moves, so everyone on one seed faces the same hill.

Turn notation (RULES.md 4(c)): one token per unit of movement. `d` = one forward step,
`D<k>` = a forward jump over k cells (k + 1 rows), `l`/`r` = one sideways step,
`L<k>`/`R<k>` = a sideways jump over k cells. Forward tokens come first, then the
sideways ones. Canonical form groups runs of single steps: `d rrr`, `dd r`, `d D1 d`,
`D3`. Input accepts any spacing (`drrr`, `d r r r`) and a lower-case jump (`d1`).

Position notation (`to_text` / `Game.from_text`), one line:

    ...H.../.s.o.mm/.bb..../.BB.o../......./..s..../....... score=0 turns=0 hungry=0 \
facing=0 jumped=0 seed=42

The board comes first: 7 to 30 rows top to bottom separated by `/`, 7 cells each, columns
a-g. Cells: `.` empty, `o` food, `s` small obstacle (1x1), `m` a medium obstacle cell (1x2,
pairs read from the left of each run: `mmmm` is two obstacles), `b` the upper half and `B`
the lower half of a big obstacle (2x2), `H` Hillbert (a 1x1, 2x2 or 3x3 square touching
the top row). A `bb` on the bottom row has its `BB` still to come in the next row. Then,
in this order: `score` (rows scrolled), `turns` (turns played), `hungry` (hungry Small
turns in a row, 3 ends the game), `facing` (token orientation 0-3 = up, right, down,
left; each cell moved turns it 90 degrees clockwise), `jumped` (1 if he jumped last turn),
`seed` (the hill's seed; 0 in a player's view).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Self

from engine import registry
from engine.core import (
    Game,
    GameState,
    IllegalMoveError,
    InvalidMoveError,
    Model,
    MoveOptions,
    NotationError,
    Outcome,
)
from engine.digits import is_digits, read_natural
from engine.rng import Rng, hash64
from engine.text import Text, joined, t, tn

WIDTH = 7
HEIGHT = 7
MIN_HEIGHT = 7
#: The tallest board a position may have (the picture shrinks its cells to fit).
MAX_HEIGHT = 30
COLUMNS = "abcdefg"
HUNGER_LIMIT = 3

EMPTY = "."
FOOD = "o"
SMALL_OBSTACLE = "s"
MEDIUM_OBSTACLE = "m"
BIG_TOP = "b"
BIG_BOTTOM = "B"
HILLBERT = "H"
_CELLS = frozenset(".osmbB")

SMALL, MEDIUM, BIG = 1, 2, 3
#: His sizes in words, for players.
SIZE_NAMES = {SMALL: t("Small"), MEDIUM: t("Medium"), BIG: t("Big")}
#: Forward steps per turn; sideways steps allowed = 4 - size; longest jump = 4 - size.
STEPS_LIMIT = 4

#: Obstacle kind by cell character (1 small, 2 medium, 3 big).
OBSTACLE_KIND = {SMALL_OBSTACLE: 1, MEDIUM_OBSTACLE: 2, BIG_TOP: 3, BIG_BOTTOM: 3}
KIND_NAMES = {1: "small", 2: "medium", 3: "big"}

#: The obstacle table, (Hillbert size, obstacle kind) -> (obstacle destroyed, Hillbert
#: stopped).
TABLE: dict[tuple[int, int], tuple[bool, bool]] = {
    (SMALL, 1): (False, True),
    (SMALL, 2): (False, True),
    (SMALL, 3): (False, True),
    (MEDIUM, 1): (True, False),
    (MEDIUM, 2): (True, True),
    (MEDIUM, 3): (False, True),
    (BIG, 1): (True, False),
    (BIG, 2): (True, False),
    (BIG, 3): (False, True),
}

#: Growth tries these top-left offsets (row, column) in order: down-right, down-left,
#: up-right, up-left.
GROWTH_OFFSETS = ((0, 0), (0, -1), (-1, 0), (-1, -1))

FORWARD, LEFT, RIGHT = "d", "l", "r"
_DIRECTION_OF = {"l": -1, "r": 1}
ARROWS = ("↑", "→", "↓", "←")


def cell_name(row: int, col: int) -> str:
    """`d1` for the 0-based (row 0, column 3)."""
    return f"{COLUMNS[col]}{row + 1}"


# --- the hill ---------------------------------------------------------------------------


def generate_row(seed: int, row: int, carry: int) -> tuple[str, int]:
    """Absolute row `row` of the hill and the big-obstacle halves it passes on.

    `carry` has bit c set where the row above left the lower half of a big obstacle in
    column c. The dice come from `Rng(hash64(seed, row))`: a d8 for the obstacle position
    (8: two d8s, each 8 placing nothing), then in order a d6 per placed position for its
    type (1-2 small, 3-4 medium, 5-6 big), then the same position roll for food. An
    obstacle is not placed if any cell it needs in this row is taken or off the board.
    """
    cells = [BIG_BOTTOM if carry >> c & 1 else EMPTY for c in range(WIDTH)]
    next_carry = 0
    rng = Rng(hash64(seed, row))
    for placing_food in (False, True):
        roll, rng = rng.die(8)
        positions: list[int] = [roll]
        if roll == 8:
            first, rng = rng.die(8)
            second, rng = rng.die(8)
            positions = [first, second]
        for position in positions:
            if position == 8:
                continue
            col = position - 1
            if placing_food:
                if cells[col] == EMPTY:
                    cells[col] = FOOD
                continue
            kind_roll, rng = rng.die(6)
            kind = (kind_roll + 1) // 2
            width = 1 if kind == 1 else 2
            if col + width > WIDTH or any(cells[c] != EMPTY for c in range(col, col + width)):
                continue
            mark = (SMALL_OBSTACLE, MEDIUM_OBSTACLE, BIG_TOP)[kind - 1]
            for c in range(col, col + width):
                cells[c] = mark
            if kind == 3:
                next_carry |= 0b11 << col
    return "".join(cells), next_carry


def carry_of(row_text: str) -> int:
    """The lower big-obstacle halves that `row_text` passes on to the next row."""
    return sum(1 << c for c, ch in enumerate(row_text) if ch == BIG_TOP)


_hill_cache: dict[int, list[tuple[str, int]]] = {}
_hill_lock = threading.Lock()


def hill_row(seed: int, row: int) -> str:
    """The untouched content of absolute row `row` (1-based) for `seed`.

    A pure function of its arguments: row 1 is Hillbert's empty starting row, and each
    later row follows from its own dice and the halves carried from the row above.
    """
    if row < 1:
        raise ValueError(f"hill rows start at 1, got {row}")
    with _hill_lock:
        chain = _hill_cache.get(seed)
        if chain is None:
            if len(_hill_cache) >= 64:
                _hill_cache.clear()
            chain = _hill_cache[seed] = [(EMPTY * WIDTH, 0)]
        while len(chain) < row:
            chain.append(generate_row(seed, len(chain) + 1, chain[-1][1]))
        return chain[row - 1][0]


# --- moves ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn: forward steps, then sideways steps in one direction.

    Each step is a length: 1 for a single step, k + 1 for a jump over k cells.
    """

    forward: tuple[int, ...]
    #: -1 left, +1 right, 0 when there is no sideways step.
    side: int = 0
    sideways: tuple[int, ...] = ()

    def tokens(self) -> tuple[str, ...]:
        """One token per unit of movement: `d`, `D1`, `l`, `R2`..."""
        letter = "l" if self.side < 0 else "r"
        out = ["d" if n == 1 else f"D{n - 1}" for n in self.forward]
        out += [letter if n == 1 else f"{letter.upper()}{n - 1}" for n in self.sideways]
        return tuple(out)

    def __str__(self) -> str:
        groups: list[str] = []
        for token in self.tokens():
            if len(token) == 1 and groups and groups[-1][-1] == token:
                groups[-1] += token
            else:
                groups.append(token)
        return " ".join(groups)

    @property
    def jumps(self) -> int:
        return sum(1 for n in self.forward + self.sideways if n > 1)


def _tokenize(text: str) -> list[tuple[str, int]]:
    """(direction letter, length) per token; raises InvalidMoveError on bad syntax."""
    out: list[tuple[str, int]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch.lower() not in "dlr":
            raise InvalidMoveError(
                t(
                    "{move}: {ch!r} is not a move token; use d (forward), l, r (sideways) "
                    "and D1, L2... for jumps",
                    move=text.strip(),
                    ch=ch,
                )
            )
        j = i + 1
        while j < n and is_digits(text[j]):
            j += 1
        digits = text[i + 1 : j]
        if digits:
            over = read_natural(digits, 99)
            if over is None:
                raise IllegalMoveError(
                    t(
                        "{move}: a jump goes over at most {n} cells",
                        move=text.strip(),
                        n=STEPS_LIMIT - SMALL,
                    )
                )
            if over < 1:
                raise InvalidMoveError(
                    t("{move}: a jump goes over at least 1 cell", move=text.strip())
                )
            out.append((ch.lower(), over + 1))
        elif ch.isupper():
            raise InvalidMoveError(
                t(
                    "{move}: a jump needs the number of cells it goes over, e.g. {ch}1",
                    move=text.strip(),
                    ch=ch,
                )
            )
        else:
            out.append((ch, 1))
        i = j
    return out


def read_turn(text: str) -> Turn:
    """The turn written in `text`, checked for syntax and for one sideways direction."""
    tokens = _tokenize(text)
    if not tokens:
        raise InvalidMoveError(t("Write a turn such as d rrr, dd r or D3."))
    forward: list[int] = []
    sideways: list[int] = []
    letters: set[str] = set()
    for letter, length in tokens:
        if letter == FORWARD:
            if sideways:
                raise InvalidMoveError(
                    t(
                        "{move}: the forward steps come first, then the sideways ones",
                        move=text.strip(),
                    )
                )
            forward.append(length)
        else:
            letters.add(letter)
            sideways.append(length)
    if len(letters) > 1:
        raise IllegalMoveError(
            t(
                "{move}: Hillbert moves sideways in one direction per turn, not both left "
                "and right",
                move=text.strip(),
            )
        )
    side = _DIRECTION_OF[letters.pop()] if letters else 0
    return Turn(tuple(forward), side, tuple(sideways))


# --- what happens in a turn -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnReport:
    """What a turn did, in the coordinates of the board before it scrolled.

    Positions are Hillbert's top-left cell (row, column), 0-based.
    """

    start: tuple[int, int]
    size_before: int
    #: The start, then the position after every step that happened (for drawing).
    path: tuple[tuple[int, int], ...]
    #: Step lengths of `path` (1 a step, more for a jump), one per step that happened.
    lengths: tuple[int, ...]
    eaten: tuple[tuple[int, int], ...]
    destroyed: tuple[tuple[int, int], ...]
    #: Cells of the obstacles that stopped him, per stop.
    blocked_by: tuple[tuple[int, int], ...]
    stops: int
    jumped: bool
    #: Position and size after growing or shrinking, before scrolling.
    end: tuple[int, int]
    size_after: int
    scrolled: int

    @property
    def ate(self) -> bool:
        return bool(self.eaten)


#: Being stopped, by the kind of obstacle that stopped him, for players.
STOPPED_BY = {
    1: t("was stopped by a small obstacle"),
    2: t("was stopped by a medium obstacle"),
    3: t("was stopped by a big obstacle"),
}


def told(report: TurnReport, board: Sequence[str], after: HillbertState) -> Text:
    """What a turn did, told once it is played: what he ate and how his size changed,
    what he smashed, what stopped him, the rows gained and how long before he starves.
    `board` is the hill before the turn, where the report's cells are; no cell is named,
    since the board the player sees next has scrolled."""
    eaten, size = len(report.eaten), SIZE_NAMES[report.size_after]
    if not eaten:
        shrank = report.size_after < report.size_before
        meal = t("ate nothing and shrank to {size}", size=size) if shrank else t("ate nothing")
    elif report.size_after > report.size_before:
        meal = tn(
            "ate {n} piece of food and grew to {size}",
            "ate {n} pieces of food and grew to {size}",
            n=eaten,
            size=size,
        )
    elif report.size_before < BIG:
        # He grows after a meal only where a bigger Hillbert fits (RULES.md 4).
        meal = tn(
            "ate {n} piece of food but had no room to grow",
            "ate {n} pieces of food but had no room to grow",
            n=eaten,
        )
    else:
        meal = tn("ate {n} piece of food", "ate {n} pieces of food", n=eaten)
    parts = [meal]
    # A medium obstacle is two cells.
    kinds = [OBSTACLE_KIND[board[r][c]] for r, c in report.destroyed]
    smashed = kinds.count(1) + kinds.count(2) // 2
    if smashed:
        parts.append(tn("smashed {n} obstacle", "smashed {n} obstacles", n=smashed))
    if report.blocked_by:
        parts.append(STOPPED_BY[max(OBSTACLE_KIND[board[r][c]] for r, c in report.blocked_by)])
    parts.append(tn("+{n} point", "+{n} points", n=report.scrolled))
    if not after.is_over:
        parts.append(
            tn(
                "he starves after {n} more turn without food",
                "he starves after {n} more turns without food",
                n=after.turns_to_starve,
            )
        )
    return t("Hillbert {effect}", effect=joined(parts, "; "))


def _obstacle_cells(grid: list[list[str]], r: int, c: int) -> list[tuple[int, int]]:
    """Every cell of the obstacle that covers (r, c)."""
    ch = grid[r][c]
    if ch == MEDIUM_OBSTACLE:
        start = c
        while start > 0 and grid[r][start - 1] == MEDIUM_OBSTACLE:
            start -= 1
        partner = c + 1 if (c - start) % 2 == 0 else c - 1
        return [(r, c), (r, partner)]
    return [(r, c)]


def _destroyable(size: int, kind: int) -> bool:
    return TABLE[size, kind][0]


@dataclass(slots=True)
class _Sim:
    """Mutable scratch state for resolving one turn."""

    grid: list[list[str]]
    size: int
    row: int
    col: int
    eaten: list[tuple[int, int]]
    destroyed: list[tuple[int, int]]
    blocked_by: list[tuple[int, int]]

    def step(self, drow: int, dcol: int, length: int) -> bool:
        """Try one step (or jump landing); False if an obstacle stopped it."""
        size, row, col, grid = self.size, self.row, self.col, self.grid
        nrow, ncol = row + drow * length, col + dcol * length
        covered = [
            (r, c)
            for r in range(nrow, nrow + size)
            for c in range(ncol, ncol + size)
            if not (row <= r < row + size and col <= c < col + size)
        ]
        stopped = False
        doomed: list[tuple[int, int]] = []
        for r, c in covered:
            kind = OBSTACLE_KIND.get(grid[r][c])
            if kind is None:
                continue
            destroyed, stops = TABLE[size, kind]
            if destroyed:
                doomed.extend(_obstacle_cells(grid, r, c))
            if stops:
                stopped = True
                self.blocked_by.append((r, c))
        # Pairs of medium cells are read from the grid, so clear only after reading all.
        for r, c in doomed:
            if grid[r][c] != EMPTY:
                grid[r][c] = EMPTY
                self.destroyed.append((r, c))
        if stopped:
            return False
        for r, c in covered:
            if grid[r][c] == FOOD:
                grid[r][c] = EMPTY
                self.eaten.append((r, c))
        self.row, self.col = nrow, ncol
        return True

    def grow(self) -> None:
        size = self.size + 1
        height = len(self.grid)
        for drow, dcol in GROWTH_OFFSETS:
            row, col = self.row + drow, self.col + dcol
            if row < 0 or col < 0 or row + size > height or col + size > WIDTH:
                continue
            cells = [(r, c) for r in range(row, row + size) for c in range(col, col + size)]
            kinds = [OBSTACLE_KIND.get(self.grid[r][c]) for r, c in cells]
            if any(k is not None and not _destroyable(size, k) for k in kinds):
                continue
            doomed = [
                cell
                for (r, c), k in zip(cells, kinds, strict=True)
                if k is not None
                for cell in _obstacle_cells(self.grid, r, c)
            ]
            for r, c in doomed:
                if self.grid[r][c] != EMPTY:
                    self.grid[r][c] = EMPTY
                    self.destroyed.append((r, c))
            for r, c in cells:
                self.grid[r][c] = EMPTY
            self.row, self.col, self.size = row, col, size
            return


# --- the state --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HillbertState(GameState[Turn]):
    """A position of Hillbert, between two turns.

    The board, rows top to bottom (row 1 first), columns a..g; Hillbert's cells are
    empty here and drawn as H only in the notation:

              a b c d e f g
        row 1 . . . H . . .     Hillbert always starts a turn touching row 1
        row 2 . s . o . m m     s/m/b/B obstacles, o food
        ...
        row 7 . b b . . . .     a big obstacle's lower half comes with row 8
    """

    game_id: ClassVar[str] = "hillbert"

    #: One string of 7 cells per row, top to bottom (see the module docstring).
    board: tuple[str, ...]
    #: 1 Small (1x1), 2 Medium (2x2), 3 Big (3x3).
    size: int
    #: Column (0-based, a = 0) of Hillbert's top-left cell; his top row is always row 1.
    col: int
    #: Rows scrolled so far = the score; the board's top row is absolute row score + 1.
    score: int
    #: Turns played.
    turns: int
    #: Hungry Small turns in a row; HUNGER_LIMIT ends the game.
    hungry: int
    #: Cells moved so far mod 4: 0 up, 1 right, 2 down, 3 left (display only).
    facing: int
    #: True if he landed a jump last turn (no jump allowed this turn).
    jumped: bool
    #: The hill's generator; rows come from hash64(rng.seed, row), the counter stays 0.
    rng: Rng

    # --- whose turn -----------------------------------------------------------------------
    @property
    def num_seats(self) -> int:
        return 1

    @property
    def to_act(self) -> frozenset[int]:
        return frozenset() if self.hungry >= HUNGER_LIMIT else frozenset((0,))

    @property
    def height(self) -> int:
        return len(self.board)

    @property
    def size_name(self) -> Text:
        return SIZE_NAMES[self.size]

    @property
    def turns_to_starve(self) -> int:
        """Turns left before the game ends if he eats nothing from now on."""
        return (self.size - 1) + (HUNGER_LIMIT - self.hungry)

    @property
    def can_jump(self) -> bool:
        return not self.jumped

    def outcome(self) -> Outcome | None:
        if self.hungry < HUNGER_LIMIT:
            return None
        return Outcome(
            (self.score,),
            frozenset(),
            t(
                "Hillbert went hungry for {n} turns: {summary}.",
                n=HUNGER_LIMIT,
                summary=result_text(self.score, self.turns),
            ),
            "starved",
        )

    def scores(self) -> tuple[int, ...]:
        return (self.score,)

    # --- moves ------------------------------------------------------------------------------
    def legal_moves(self, seat: int) -> Sequence[Turn]:
        if seat != 0 or self.is_over:
            return ()
        return _legal_turns(self.size, self.col, self.jumped, self.height)

    def parse_move(self, seat: int, text: str) -> Turn:
        turn = read_turn(text)
        self.check(seat, turn, text.strip())
        return turn

    def check(self, seat: int, turn: Turn, shown: str | None = None) -> None:
        """Raise IllegalMoveError unless `seat` may play `turn` now."""
        move = shown if shown is not None else str(turn)
        if self.is_over:
            raise IllegalMoveError(t("{move}: the game is over", move=move))
        if seat != 0:
            raise IllegalMoveError(t("{move}: Hillbert is a one-player game", move=move))
        size, name = self.size, self.size_name
        if len(turn.forward) != size:
            raise IllegalMoveError(
                tn(
                    "{move}: {size} Hillbert moves exactly {n} forward, so write {n} forward "
                    "token, e.g. {example}",
                    "{move}: {size} Hillbert moves exactly {n} forward, so write {n} forward "
                    "tokens, e.g. {example}",
                    move=move,
                    size=name,
                    n=size,
                    example="d" * size,
                )
            )
        limit = STEPS_LIMIT - size
        if len(turn.sideways) > limit:
            raise IllegalMoveError(
                tn(
                    "{move}: {size} Hillbert moves at most {n} cell sideways",
                    "{move}: {size} Hillbert moves at most {n} cells sideways",
                    move=move,
                    size=name,
                    n=limit,
                )
            )
        if turn.jumps > 1:
            raise IllegalMoveError(t("{move}: only one jump per turn", move=move))
        lengths = turn.forward + turn.sideways
        side_ok = turn.side in (-1, 1) if turn.sideways else turn.side == 0
        if any(n < 1 for n in lengths) or not side_ok:
            raise IllegalMoveError(t("{move}: not a turn", move=move))
        if turn.jumps and self.jumped:
            raise IllegalMoveError(t("{move}: a jump is not allowed two turns running", move=move))
        if max(lengths) - 1 > limit:
            raise IllegalMoveError(
                tn(
                    "{move}: {size} Hillbert can jump over at most {n} cell",
                    "{move}: {size} Hillbert can jump over at most {n} cells",
                    move=move,
                    size=name,
                    n=limit,
                )
            )
        if sum(turn.forward) + size > self.height:
            raise IllegalMoveError(
                t("{move}: Hillbert would run off the bottom of the board", move=move)
            )
        col = self.col + turn.side * sum(turn.sideways)
        if col < 0:
            raise IllegalMoveError(
                t("{move}: Hillbert would leave the board on the left", move=move)
            )
        if col + size > WIDTH:
            raise IllegalMoveError(
                t("{move}: Hillbert would leave the board on the right", move=move)
            )

    def play(self, seat: int, move: Turn) -> Self:
        self.check(seat, move)
        return self._resolve(move)[0]

    def move_effect(self, move: Turn) -> Text:
        after, report = self.resolve(move)
        return told(report, self.board, after)

    def resolve(self, move: Turn) -> tuple[Self, TurnReport]:
        """The state after `move` and what happened on the way (the move must be legal)."""
        self.check(0, move)
        return self._resolve(move)

    def _resolve(self, turn: Turn) -> tuple[Self, TurnReport]:
        sim = _Sim([list(r) for r in self.board], self.size, 0, self.col, [], [], [])
        path = [(0, self.col)]
        lengths: list[int] = []
        jumped = False
        stops = 0
        for drow, dcol, steps in ((1, 0, turn.forward), (0, turn.side, turn.sideways)):
            for length in steps:
                if not sim.step(drow, dcol, length):
                    stops += 1
                    break
                path.append((sim.row, sim.col))
                lengths.append(length)
                jumped = jumped or length > 1
        ate = bool(sim.eaten)
        if ate and sim.size < BIG:
            sim.grow()
        elif not ate and sim.size > SMALL:
            sim.size -= 1
        hungry = 0 if ate else self.hungry + (1 if self.size == SMALL else 0)
        end = (sim.row, sim.col)
        grid = sim.grid
        score = self.score
        height = len(grid)
        for _ in range(sim.row):
            grid.pop(0)
            score += 1
            bottom = "".join(grid[-1])
            grid.append(list(generate_row(self.rng.seed, score + height, carry_of(bottom))[0]))
        state = replace(
            self,
            board=tuple("".join(r) for r in grid),
            size=sim.size,
            col=sim.col,
            score=score,
            turns=self.turns + 1,
            hungry=hungry,
            facing=(self.facing + sum(lengths)) % 4,
            jumped=jumped,
        )
        report = TurnReport(
            start=(0, self.col),
            size_before=self.size,
            path=tuple(path),
            lengths=tuple(lengths),
            eaten=tuple(sim.eaten),
            destroyed=tuple(sim.destroyed),
            blocked_by=tuple(sim.blocked_by),
            stops=stops,
            jumped=jumped,
            end=end,
            size_after=sim.size,
            scrolled=sim.row,
        )
        return state, report

    # --- notation and hidden information ------------------------------------------------
    def to_text(self) -> str:
        rows = list(self.board)
        for r in range(self.size):
            row = rows[r]
            rows[r] = row[: self.col] + HILLBERT * self.size + row[self.col + self.size :]
        return (
            f"{'/'.join(rows)} score={self.score} turns={self.turns} hungry={self.hungry} "
            f"facing={self.facing} jumped={int(self.jumped)} seed={self.rng.seed}"
        )

    def view(self, seat: int | None) -> Self:
        return replace(self, rng=Rng(0, 0))

    # --- helpers for front-ends and computer players ------------------------------------
    def move_tokens(self, move: Turn) -> tuple[str, ...]:
        return move.tokens()

    def option_label(self, prefix: tuple[str, ...], token: str) -> str:
        arrow = {"d": "↓", "l": "←", "r": "→"}[token[0].lower()]
        if len(token) == 1:
            return str(t("{arrow} step", arrow=arrow))
        return str(t("{arrow} jump {n}", arrow=arrow, n=token[1:]))

    def option_prompt(self, prefix: tuple[str, ...]) -> Text:
        forward = sum(1 for tok in prefix if tok[0] in "dD")
        if forward < self.size:
            return tn(
                "Forward: {n} more step to choose (a jump counts as one).",
                "Forward: {n} more steps to choose (a jump counts as one).",
                n=self.size - forward,
            )
        return t("Sideways: step left or right, or confirm the turn.")

    def move_options(self, seat: int, prefix: tuple[str, ...] = ()) -> MoveOptions[Turn]:
        options = GameState.move_options(self, seat, prefix)
        if options.complete is None:
            return options
        return replace(options, preview=describe(self.resolve(options.complete)[1]))

    def move_description(self, seat: int, move: Turn) -> Text | None:
        """`2 rows down, eats 1 food, Medium after`: what the turn scores, eats and
        leaves him, or how near it brings the end."""
        if seat != 0 or self.is_over:
            return None
        after, report = self.resolve(move)
        parts = [tn("{n} row down", "{n} rows down", n=report.scrolled)]
        if report.eaten:
            parts.append(tn("eats {n} food", "eats {n} food", n=len(report.eaten)))
        else:
            parts.append(t("eats nothing"))
        if report.blocked_by:
            parts.append(t("stopped"))
        if after.is_over:
            parts.append(t("starves: the run ends"))
        elif after.hungry:
            parts.append(
                t(
                    "{size}, hungry {n} of {limit}",
                    size=SIZE_NAMES[after.size],
                    n=after.hungry,
                    limit=HUNGER_LIMIT,
                )
            )
        else:
            parts.append(t("{size} after", size=SIZE_NAMES[after.size]))
        return joined(parts, ", ")

    def evaluate(self, seat: int) -> float:
        if self.is_over:
            return float(self.score)
        return self.score + 2.0 * self.turns_to_starve


def _sideways_paths(limit: int, max_jump: int, jump_ok: bool) -> list[tuple[int, ...]]:
    """Every sideways step sequence of up to `limit` steps with at most one jump."""
    out: list[tuple[int, ...]] = [()]
    frontier: list[tuple[tuple[int, ...], bool]] = [((), jump_ok)]
    for _ in range(limit):
        grown: list[tuple[tuple[int, ...], bool]] = []
        for steps, may_jump in frontier:
            grown.append(((*steps, 1), may_jump))
            if may_jump:
                grown.extend(((*steps, k + 1), False) for k in range(1, max_jump + 1))
        out.extend(steps for steps, _ in grown)
        frontier = grown
    return out


_legal_cache: dict[tuple[int, int, bool, int], tuple[Turn, ...]] = {}


def _legal_turns(size: int, col: int, jumped: bool, height: int) -> tuple[Turn, ...]:
    """Legal turns depend only on size, column, the jump flag and the board height."""
    key = (size, col, jumped, height)
    cached = _legal_cache.get(key)
    if cached is not None:
        return cached
    limit = STEPS_LIMIT - size
    forwards: list[tuple[tuple[int, ...], bool]] = [((1,) * size, not jumped)]
    if not jumped:
        for i in range(size):
            for k in range(1, limit + 1):
                steps = (1,) * i + (k + 1,) + (1,) * (size - i - 1)
                forwards.append((steps, False))
    turns: list[Turn] = []
    for steps, may_jump in forwards:
        if sum(steps) + size > height:
            continue
        for side in (0, -1, 1):
            paths = [()] if side == 0 else _sideways_paths(limit, limit, may_jump)[1:]
            for sideways in paths:
                end = col + side * sum(sideways)
                if 0 <= end <= WIDTH - size:
                    turns.append(Turn(steps, side, sideways))
    result = _legal_cache[key] = tuple(turns)
    return result


def describe(report: TurnReport) -> Text:
    """A one-line preview of a turn for the move builder."""
    row, col = report.end
    parts = [
        t(
            "Hillbert ends on {cell} as {size}",
            cell=cell_name(row, col),
            size=SIZE_NAMES[report.size_after],
        )
    ]
    if report.eaten:
        cells = ", ".join(cell_name(r, c) for r, c in report.eaten)
        if report.size_after == report.size_before < BIG:
            # He grows after a meal only where a bigger Hillbert fits (RULES.md 4).
            parts.append(t("eats food on {cells} but has no room to grow", cells=cells))
        else:
            parts.append(t("eats food on {cells}", cells=cells))
    else:
        parts.append(t("eats nothing"))
    if report.destroyed:
        cells = ", ".join(cell_name(r, c) for r, c in report.destroyed)
        parts.append(t("smashes {cells}", cells=cells))
    if report.blocked_by:
        cells = ", ".join(cell_name(r, c) for r, c in report.blocked_by)
        parts.append(t("is stopped at {cells}", cells=cells))
    parts.append(tn("+{n} point", "+{n} points", n=report.scrolled))
    return t("{summary}.", summary=joined(parts, "; "))


# --- what the computer player knows -----------------------------------------------------


def _hidden_hill(view: GameState[Any], seat: int, rng: Rng) -> tuple[GameState[Any], Rng]:
    """A sampled hill below the board: the view hides the seed that makes the rows."""
    assert isinstance(view, HillbertState)
    seed, rng = rng.next64()
    return replace(view, rng=Rng(seed)), rng


#: The rows below are sampled; a playout looks three turns ahead.
SEARCH_MODEL = Model(determinize=_hidden_hill, playout_depth=3, eval_scale=10.0)


# --- the game ---------------------------------------------------------------------------


def new_hill(seed: int, height: int = HEIGHT) -> HillbertState:
    """The starting position: Small Hillbert on d1, rows 2..height from the generator."""
    if not MIN_HEIGHT <= height <= MAX_HEIGHT:
        raise ValueError(
            f"the hill needs at least {MIN_HEIGHT} rows and at most {MAX_HEIGHT}, not {height}"
        )
    rows = [hill_row(seed, k) for k in range(1, height + 1)]
    return HillbertState(
        board=tuple(rows),
        size=SMALL,
        col=3,
        score=0,
        turns=0,
        hungry=0,
        facing=0,
        jumped=False,
        rng=Rng(seed & ((1 << 64) - 1), 0),
    )


def _pairs(row: str, mark: str) -> set[int] | None:
    """Left columns of the 2-cell pieces `mark` in `row`; None if a run has odd length."""
    lefts: set[int] = set()
    c = 0
    while c < len(row):
        if row[c] != mark:
            c += 1
            continue
        start = c
        while c < len(row) and row[c] == mark:
            c += 1
        if (c - start) % 2:
            return None
        lefts.update(range(start, c, 2))
    return lefts


def _bad(reason: Text) -> NotationError:
    return NotationError(str(t("Hillbert position: {reason}", reason=reason)))


def _parse_board(text: str) -> tuple[tuple[str, ...], int, int]:
    rows = text.split("/")
    if not MIN_HEIGHT <= len(rows) <= MAX_HEIGHT:
        raise _bad(
            t(
                "the board needs at least {low} rows and at most {high}, found {n}",
                low=MIN_HEIGHT,
                high=MAX_HEIGHT,
                n=len(rows),
            )
        )
    for i, row in enumerate(rows, 1):
        if len(row) != WIDTH:
            raise _bad(
                t(
                    "row {i} has {n} cells, not {width}: {row!r}",
                    i=i,
                    n=len(row),
                    width=WIDTH,
                    row=row,
                )
            )
        bad = set(row) - _CELLS - {HILLBERT}
        if bad:
            raise _bad(
                t(
                    "row {i} has unknown cell(s) {cells!r}; cells are . o s m b B and H",
                    i=i,
                    cells="".join(sorted(bad)),
                )
            )
    size = rows[0].count(HILLBERT)
    if size not in SIZE_NAMES:
        raise _bad(t("Hillbert (H, 1 to 3 cells wide) must touch the top row"))
    col = rows[0].index(HILLBERT)
    expected = [(r, c) for r in range(len(rows)) for c in range(WIDTH) if rows[r][c] == HILLBERT]
    square = [(r, c) for r in range(size) for c in range(col, col + size)]
    if expected != square:
        raise _bad(t("Hillbert's H cells must form a {n}x{n} square from row 1", n=size))
    board = tuple(row.replace(HILLBERT, EMPTY) for row in rows)
    for i, row in enumerate(board):
        for mark in (MEDIUM_OBSTACLE, BIG_TOP, BIG_BOTTOM):
            if _pairs(row, mark) is None:
                raise _bad(t("row {i}: {mark} cells must come in pairs", i=i + 1, mark=mark))
    for i in range(len(board) - 1):
        if _pairs(board[i], BIG_TOP) != _pairs(board[i + 1], BIG_BOTTOM):
            raise _bad(
                t(
                    "rows {i}-{j}: each bb (big obstacle top) needs BB right below it",
                    i=i + 1,
                    j=i + 2,
                )
            )
    return board, size, col


_FIELDS = ("score", "turns", "hungry", "facing", "jumped", "seed")
#: The largest value of each field: the seed is a 64-bit number; the counters could
#: never grow this far in a game.
_FIELD_MAX = {
    "score": 999_999_999,
    "turns": 999_999_999,
    "hungry": HUNGER_LIMIT,
    "facing": 3,
    "jumped": 1,
    "seed": (1 << 64) - 1,
}
_FIELD_RULES = {
    "score": t("score is a whole number of rows from 0 to {high}", high=_FIELD_MAX["score"]),
    "turns": t("turns is a whole number from 0 to {high}", high=_FIELD_MAX["turns"]),
    "hungry": t("hungry goes from 0 to {high}", high=_FIELD_MAX["hungry"]),
    "facing": t("facing goes from 0 to {high} (up, right, down, left)", high=_FIELD_MAX["facing"]),
    "jumped": t("jumped is 0 or 1"),
    "seed": t(
        "the seed is a 64-bit number, a whole number from 0 to {high}", high=_FIELD_MAX["seed"]
    ),
}


def parse_position(text: str) -> HillbertState:
    parts = text.split()
    if len(parts) != 1 + len(_FIELDS):
        raise _bad(
            t(
                "a Hillbert position is the board then {fields}",
                fields=" ".join(f"{f}=N" for f in _FIELDS),
            )
        )
    board, size, col = _parse_board(parts[0])
    values: dict[str, int] = {}
    for name, part in zip(_FIELDS, parts[1:], strict=True):
        key, sep, value = part.partition("=")
        if key != name or not sep:
            raise _bad(t("expected {name}=N, found {part!r}", name=name, part=part))
        number = read_natural(value, _FIELD_MAX[name])
        if number is None:
            rule = _FIELD_RULES[name]
            if not is_digits(value):
                raise _bad(
                    t(
                        "{name} must be a whole number, not {value!r}: {rule}",
                        name=name,
                        value=value,
                        rule=rule,
                    )
                )
            raise _bad(rule)
        values[name] = number
    if values["hungry"] and size != SMALL:
        raise _bad(t("only Small Hillbert can have hungry turns"))
    return HillbertState(
        board=board,
        size=size,
        col=col,
        score=values["score"],
        turns=values["turns"],
        hungry=values["hungry"],
        facing=values["facing"],
        jumped=bool(values["jumped"]),
        rng=Rng(values["seed"], 0),
    )


class Hillbert(Game[Turn]):
    id: ClassVar[str] = "hillbert"
    name: ClassVar[str] = "Hillbert"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 1
    seat_names: ClassVar[tuple[str, ...]] = ("Hillbert",)
    blurb: ClassVar[Text | str] = t(
        "Solo: roll Hillbert down an endless hill, eat, grow, score rows."
    )
    draw_seats: ClassVar[bool] = False
    solo: ClassVar[bool] = True
    #: A practice run may ask the computer for a hint (never the scored daily run).
    hints: ClassVar[bool] = True
    #: Every turn ends on Confirm, after its preview of where he ends and what he eats.
    confirm_moves: ClassVar[bool] = True

    def new_state(self, seed: int, num_players: int, variant: str | None) -> HillbertState:
        self.check_setup(num_players, variant)
        return new_hill(seed)

    def from_text(self, text: str) -> HillbertState:
        return parse_position(text)

    def search_model(self, view: GameState[Any]) -> Model:
        return SEARCH_MODEL


GAME = registry.register(Hillbert())


def rows_text(n: int) -> Text:
    return tn("{n} row", "{n} rows", n=n)


def turns_text(n: int) -> Text:
    return tn("{n} turn", "{n} turns", n=n)


def result_text(score: int, turns: int) -> Text:
    """A run's result, as in "12 rows in 30 turns"."""
    return t("{rows} in {turns}", rows=rows_text(score), turns=turns_text(turns))
