"""Everest, a piecepack game by Mark A. Biggar (v1.1): yeti play King of the Hill.

Two to four yeti plan three coins in secret, reveal them together and carry them out one
coin (one "step") at a time for everybody at once. A round is a queue of steps kept inside
the state: reveal, roars and their chains, run-aways, moves and the one simultaneous
snowball volley of each step, roll-offs when the order matters, and the end-of-round
choices (coins set aside or healing at home). Every step that needs a person is a decision
for `to_act`; every die comes from the state's `Rng`.

Board (rows 1-6 bottom to top, files a-h left to right; the number is the height in tiles,
`-` is no square: a3, a4, h3 and h4 are off the board)::

         a b c d e f g h
      6  1 1 1 1 1 1 1 1
      5  1 2 3 3 3 3 2 1        home bases: a2 (seat 0), h5 (seat 1), h2 (seat 2),
      4  - 2 4 5 5 4 2 -                    a5 (seat 3)
      3  - 2 4 5 5 4 2 -        peak tile:  d3 e3 d4 e4
      2  1 2 3 3 3 3 2 1
      1  1 1 1 1 1 1 1 1

A height difference of 1 is a step, of 2 a cliff. Directions: N toward row 6, S toward
row 1, E toward h, W toward a.

Moves (the chat notation)
-------------------------
- a plan: one token per coin, left to right, `<coin><dir>` for the value side (coin `0` =
  null = roar, `A` or `1` = ace, `2`-`5` = move with that many points) or `s<coin><dir>`
  for the suit side (a snowball): `4E 2N sAE`, `0W`, `s0N sAS 5E`. A seat with coins plans
  min(3, coins) different coins. The builder's form `4 E 2 N s E` is accepted too: a
  coin (or `s` for a snowball, which then takes the lowest coin the plan leaves free) and
  a direction per action. `dazed` is the plan logged when a planning deadline passes.
- `pick N`: the roll-off winner picks outcome N of the listed distinct outcomes.
- `aside 5 4` (or `aside` alone: the highest coins): which coins damage sets aside.
- `heal` (go home, get every coin back) or `stay`.
- `flee N`: a yeti affected by several roars picks the roarer (by its direction) it runs
  from, or roars back at when it rolled an ace.

Position notation (`to_text`)
-----------------------------
Space-separated `key=value` fields after the word `everest`; per-seat lists are
comma-separated in seat order. Always present, in this order:

- `n=4` players; `cap=30` round cap (0: none); `round=3`;
- `stage=plan|flee|pick|end|over`; `step=1` the step (1-3) being resolved;
- `pos=a2,h5,off,a5` squares (`off`: off the board this round);
- `aside=-,54,-,-` coins set aside (`5 4 3 2 A 0`); `dmg=0,1,0,0` damage this round;
- `peak=-` the seat (0-based) that started the round alone on the peak, or `-`;
- `plans=-,?,4E+2N+sAE,dazed` plans (`-` not yet planned, `?` planned but hidden);
- `result=-` (`w2`: seat 2 won, `draw`); `rng=seed:counter`.

Present only when set: `runs=-,S4,-,-` yeti running away (direction, points);
`roars=1W0` roar-backs waiting for the next wave (seat 1 roars W, answering seat 0);
`choice=-,3NE,-,-` pending `flee` choices (roll `A` or 2-5, roarer directions);
`pick=act:2` the conflict being settled (`run` or `act`) and the roll-off winner;
`end=-,h,a,H` end-of-round choices (`h` heal or stay pending, `a` aside pending, `H`
heals) with `chosen=-,54,-,-` coins chosen to set aside; `ev=...` the events of the last
resolution, comma-separated `kind.arg.arg` (see `EVENT_FIELDS`).

Numbers are written with the digits 0-9. A position whose fields disagree with each other
or with the stage (a seat that does not exist, a stage waiting for a choice nobody has to
make) is refused, so that every position read can be played on and drawn.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import ClassVar, overload

from engine import registry
from engine.core import (
    Game,
    GameState,
    IllegalMoveError,
    InvalidMoveError,
    MoveOptions,
    NotationError,
    Option,
    Outcome,
    Variant,
)
from engine.digits import is_digits, read_natural
from engine.rng import Rng
from engine.text import Text, t

# --- the mountain -----------------------------------------------------------------------

WIDTH, HEIGHT_ROWS = 8, 6
FILES = "abcdefgh"
#: Square index = (row - 1) * 8 + file, so index order is reading order (a1, b1, ... h6).
NUM_CELLS = WIDTH * HEIGHT_ROWS
OFF = -1

_HEIGHT_ROWS = (  # row 1 first; 0 = no square
    "11111111",
    "12333321",
    "02455420",
    "02455420",
    "12333321",
    "11111111",
)
#: Height in tiles per cell index (0 for the four missing notch cells).
HEIGHTS: tuple[int, ...] = tuple(int(ch) for row in _HEIGHT_ROWS for ch in row)
SQUARES: tuple[int, ...] = tuple(i for i in range(NUM_CELLS) if HEIGHTS[i])

DIRS = "NESW"
DIR_NAMES = ("north", "east", "south", "west")
_DELTAS = ((0, 1), (1, 0), (0, -1), (-1, 0))
OPPOSITE = (2, 3, 0, 1)


def square_name(sq: int) -> str:
    return "off" if sq == OFF else f"{FILES[sq % WIDTH]}{sq // WIDTH + 1}"


def _neighbours(sq: int) -> tuple[int, int, int, int]:
    col, row = sq % WIDTH, sq // WIDTH
    out = []
    for dc, dr in _DELTAS:
        c, r = col + dc, row + dr
        ok = 0 <= c < WIDTH and 0 <= r < HEIGHT_ROWS and HEIGHTS[r * WIDTH + c] > 0
        out.append(r * WIDTH + c if ok else OFF)
    return (out[0], out[1], out[2], out[3])


#: NEXT[sq][d]: the square one step in direction d, or OFF (the edge or a notch cell).
NEXT: tuple[tuple[int, int, int, int], ...] = tuple(_neighbours(i) for i in range(NUM_CELLS))
SQUARE_BY_NAME: dict[str, int] = {square_name(sq): sq for sq in SQUARES}
#: Home bases by seat (RULES 3(b)22: a2, h5, h2, a5 in seat order).
HOMES: tuple[int, ...] = tuple(SQUARE_BY_NAME[n] for n in ("a2", "h5", "h2", "a5"))
PEAK: frozenset[int] = frozenset(SQUARE_BY_NAME[n] for n in ("d3", "e3", "d4", "e4"))
DEFAULT_CAP = 30

# --- coins and actions ------------------------------------------------------------------

COIN_CHARS = "0A2345"  # index = coin value; 0 null, 1 ace
ALL_COINS = 0b111111
#: An action is coin * 8 + side * 4 + direction (side 1 = suit side up = snowball).
SNOW = 4


def action_code(coin: int, snowball: bool, direction: int) -> int:
    return coin * 8 + (SNOW if snowball else 0) + direction


def action_text(code: int) -> str:
    coin, side, d = code >> 3, code & SNOW, code & 3
    return f"{'s' if side else ''}{COIN_CHARS[coin]}{DIRS[d]}"


def coins_text(mask: int, sep: str = "") -> str:
    """Coins of `mask`, highest first: `5 4 A`."""
    return sep.join(COIN_CHARS[c] for c in range(5, -1, -1) if mask >> c & 1)


def coin_count(mask: int) -> int:
    return bin(mask).count("1")


def highest_coins(mask: int, count: int) -> int:
    """The `count` highest coins of `mask` (the default for `aside`)."""
    out = 0
    for c in range(5, -1, -1):
        if count and mask >> c & 1:
            out |= 1 << c
            count -= 1
    return out


# --- moves ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """A round's plan: action codes left to right; empty = all dazed (missed deadline)."""

    actions: tuple[int, ...]

    def __str__(self) -> str:
        return " ".join(action_text(a) for a in self.actions) if self.actions else "dazed"


@dataclass(frozen=True, slots=True)
class Pick:
    """The roll-off winner's choice: outcome `number` (1-based) of the listed outcomes."""

    number: int

    def __str__(self) -> str:
        return f"pick {self.number}"


@dataclass(frozen=True, slots=True)
class Aside:
    """The coins (a bit mask) that this round's damage sets aside."""

    coins: int

    def __str__(self) -> str:
        return f"aside {coins_text(self.coins, ' ')}"


@dataclass(frozen=True, slots=True)
class Heal:
    def __str__(self) -> str:
        return "heal"


@dataclass(frozen=True, slots=True)
class Stay:
    def __str__(self) -> str:
        return "stay"


@dataclass(frozen=True, slots=True)
class Flee:
    """Which roarer (its direction from the yeti) to run from or roar back at."""

    direction: int

    def __str__(self) -> str:
        return f"flee {DIRS[self.direction]}"


Move = Plan | Pick | Aside | Heal | Stay | Flee

# --- events -----------------------------------------------------------------------------

#: Argument kinds of each event: s seat, q square, o square or off, d direction, n number,
#: m coin mask, N a number per seat (-1: did not roll).
EVENT_FIELDS: dict[str, str] = {
    "round": "n",  # a new round starts
    "reveal": "",  # the plans are revealed
    "step": "n",  # step n (1-3) begins
    "roar": "sqd",  # seat on the square roars in direction d (planned, null coin)
    "back": "sqds",  # seat on the square roars back in direction d at the other seat
    "check": "sn",  # seat's check die for a neighbouring roar (0 = null: affected)
    "roll": "sn",  # an affected seat's roll (0 shiver, 1 roar back, 2-5 run)
    "shiver": "s",
    "flee": "sdn",  # seat will run away in direction d with n points
    "move": "sqqd",  # seat moves from, to (last square on the board), direction
    "push": "sqod",  # seat is pushed from, to (or off), direction
    "fall": "sq",  # seat falls down a cliff onto the square (1 damage)
    "off": "sqd",  # seat leaves the board from the square, in direction d
    "snow": "sqqdn",  # thrower, from, last square reached, direction, 0 hit 1 splat 2 lost
    "hit": "sqd",  # seat on the square is hit by a ball flying in direction d
    "dice": "N",  # a roll-off: each seat's die
    "pick": "sn",  # the roll-off winner picks outcome n
    "aside": "sm",  # seat sets these coins aside
    "heal": "s",  # seat heals: every coin back
    "home": "soq",  # seat returns from a square (or off) to its home base
    "bump": "sqq",  # seat is moved off a home base to the nearest empty square
    "win": "s",
    "draw": "",
}


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in the last resolution (for the log and the picture)."""

    kind: str
    args: tuple[int, ...] = ()

    def __str__(self) -> str:
        spec = EVENT_FIELDS[self.kind]
        parts = [self.kind]
        if spec == "N":
            parts.extend("-" if v < 0 else str(v) for v in self.args)
        else:
            parts.extend(_field_text(k, v) for k, v in zip(spec, self.args, strict=True))
        return ".".join(parts)


def _field_text(kind: str, value: int) -> str:
    if kind in "qo":
        return square_name(value)
    if kind == "d":
        return DIRS[value]
    if kind == "m":
        return coins_text(value) or "-"
    return str(value)


#: Most distinct outcomes a conflict can have: four moving yeti and one volley, 5! orders.
MAX_OUTCOMES = 120
#: The range of each event's number (`n` in EVENT_FIELDS), for reading the notation.
EVENT_NUMBERS: dict[str, tuple[int, int]] = {
    "round": (1, 9999),
    "step": (1, 3),
    "check": (0, 5),
    "roll": (0, 5),
    "flee": (2, 5),
    "snow": (0, 2),
    "pick": (1, MAX_OUTCOMES),
}


def _parse_event(text: str, players: int) -> Event:
    kind, *raw = text.split(".")
    spec = EVENT_FIELDS.get(kind)
    if spec is None:
        raise _bad(
            t(
                "ev: {event!r} is not an event; events are {kinds}.",
                event=text,
                kinds=", ".join(EVENT_FIELDS),
            )
        )
    where = f"ev {text}"
    if spec == "N":
        if len(raw) != players:
            raise _bad(
                t(
                    "ev: {event!r} needs one die per player ({n}), each - or 0 to 5.",
                    event=text,
                    n=players,
                )
            )
        return Event(kind, tuple(-1 if v == "-" else _number(where, v, 0, 5) for v in raw))
    if len(raw) != len(spec):
        raise _bad(
            t("ev: {event!r} needs {n} fields after {kind}.", event=text, n=len(spec), kind=kind)
        )
    args = []
    for k, v in zip(spec, raw, strict=True):
        if k == "s":
            args.append(_seat(where, v, players))
        elif k in "qo":
            args.append(_square(where, v, off=k == "o"))
        elif k == "d":
            args.append(_direction(where, v))
        elif k == "m":
            args.append(_coins(where, v))
        else:
            args.append(_number(where, v, *EVENT_NUMBERS[kind]))
    return Event(kind, tuple(args))


# --- notation helpers -------------------------------------------------------------------


def _bad(reason: Text) -> NotationError:
    return NotationError(str(t("Everest position: {reason}", reason=str(reason))))


def _number(where: str, text: str, low: int, high: int) -> int:
    value = read_natural(text, high)
    if value is None or value < low:
        raise _bad(
            t(
                "{where}: {text!r} is not a whole number from {low} to {high}.",
                where=where,
                text=text,
                low=low,
                high=high,
            )
        )
    return value


def _seat(where: str, text: str, players: int) -> int:
    seat = read_natural(text, players - 1)
    if seat is None:
        raise _bad(
            t(
                "{where}: {text!r} is not a seat; with {n} players the seats are 0 to {last}.",
                where=where,
                text=text,
                n=players,
                last=players - 1,
            )
        )
    return seat


def _square(where: str, text: str, off: bool = True) -> int:
    """A square of the mountain, or OFF for `off` when `off` is allowed."""
    if off and text == "off":
        return OFF
    if text in SQUARE_BY_NAME:
        return SQUARE_BY_NAME[text]
    if off:
        reason = t(
            "{where}: {text!r} is neither off nor a square of the mountain (a1 to h6 without "
            "a3, a4, h3, h4).",
            where=where,
            text=text,
        )
    else:
        reason = t(
            "{where}: {text!r} is not a square of the mountain (a1 to h6 without a3, a4, h3, h4).",
            where=where,
            text=text,
        )
    raise _bad(reason)


def _direction(where: str, text: str) -> int:
    if len(text) != 1 or text not in DIRS:
        raise _bad(t("{where}: {text!r} is not a direction (N, E, S, W).", where=where, text=text))
    return DIRS.index(text)


def _coins(where: str, text: str) -> int:
    """A coin list such as `54A` (`-`: none)."""
    if text == "-":
        return 0
    mask = 0
    for ch in text:
        if ch not in COIN_CHARS or mask >> COIN_CHARS.index(ch) & 1:
            raise _bad(
                t(
                    "{where}: {text!r} is not a list of different coins from 5 4 3 2 A 0 "
                    "(- for none).",
                    where=where,
                    text=text,
                )
            )
        mask |= 1 << COIN_CHARS.index(ch)
    if not mask:
        raise _bad(t("{where}: write - for no coins.", where=where))
    return mask


_COIN_INPUT = {"0": 0, "a": 1, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5}
_ACTION_RE = re.compile(r"(s?)([0-5a])([nesw])")

#: Plans of the state: None = not planned yet; HIDDEN = planned, secret in this view.
HIDDEN: tuple[int, ...] = (-1,)

# End-of-round choice codes per seat.
END_NONE, END_HEAL_ASK, END_ASIDE_ASK, END_HEALS = 0, 1, 2, 3
_END_CHARS = "-haH"

STAGES = ("plan", "flee", "pick", "end", "over")


@dataclass(frozen=True, slots=True)
class PickOption:
    """One distinct outcome of a conflict: its number, a short label, the board after."""

    number: int
    label: Text
    preview: EverestState


SNOWBALL_KIND = 6  # a plan slot's kind: 0-5 the value side of that coin, 6 a snowball


def canonical_actions(slots: Sequence[tuple[int, int]], avail: int) -> tuple[int, ...] | None:
    """Actions for (kind, direction) slots: snowballs take the lowest coins the plan leaves
    free, in slot order (which coin flies makes no difference). None if coins run out."""
    used = 0
    for kind, _ in slots:
        if kind != SNOWBALL_KIND:
            used |= 1 << kind
    free = [c for c in range(6) if (avail & ~used) >> c & 1]
    out = []
    for kind, d in slots:
        if kind == SNOWBALL_KIND:
            if not free:
                return None
            out.append(action_code(free.pop(0), True, d))
        else:
            out.append(action_code(kind, False, d))
    return tuple(out)


class PlanSpace(Sequence[Plan]):
    """The legal plans for a set of available coins, one per distinct effect, in a stable
    order, decoded on demand from an index.

    A plan is min(3, coins) slots, each a value side (roar or a move, different coins) or
    a snowball, with a direction. Which coin a snowball uses changes nothing, so each
    snowball is listed with the lowest coin the plan leaves free (229 slot kinds times
    4**3 directions = 14,656 plans with six coins). Plans naming another snowball coin
    are just as legal: `parse_move` and `play` accept them, they are only not listed.
    """

    __slots__ = ("_block", "_index", "_length", "_size", "_templates")

    def __init__(self, mask: int) -> None:
        values = [c for c in range(6) if mask >> c & 1]
        self._size = min(3, len(values))
        templates = []
        for kinds in itertools.product([*values, SNOWBALL_KIND], repeat=self._size):
            chosen = [k for k in kinds if k != SNOWBALL_KIND]
            if len(set(chosen)) != len(chosen):
                continue
            actions = canonical_actions([(k, 0) for k in kinds], mask)
            if actions is not None:
                templates.append(actions)
        self._templates = tuple(templates)
        self._index = frozenset(templates)
        self._block: int = (1, 4, 16, 64)[self._size]
        self._length = len(self._templates) * self._block

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Plan: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Plan]: ...

    def __getitem__(self, index: int | slice) -> Plan | Sequence[Plan]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        i = index + self._length if index < 0 else index
        if not 0 <= i < self._length:
            raise IndexError(index)
        order, rest = divmod(i, self._block)
        template = self._templates[order]
        dirs = []
        for _ in range(self._size):
            rest, d = divmod(rest, 4)
            dirs.append(d)
        dirs.reverse()
        return Plan(tuple(a + d for a, d in zip(template, dirs, strict=True)))

    def __iter__(self) -> Iterator[Plan]:
        directions = list(itertools.product(range(4), repeat=self._size))
        for template in self._templates:
            for dirs in directions:
                yield Plan(tuple(a + d for a, d in zip(template, dirs, strict=True)))

    def __contains__(self, item: object) -> bool:
        if not isinstance(item, Plan) or len(item.actions) != self._size:
            return False
        return tuple(a & ~3 for a in item.actions) in self._index

    def texts(self) -> tuple[str, ...]:
        """The notation of every plan, in order: each slot's text is written once and
        the plans are joined from them (a table of 14,656 in a few milliseconds)."""
        slots = {a: [action_text(a + d) for d in range(4)] for t in self._templates for a in t}
        directions = list(itertools.product(range(4), repeat=self._size))
        return tuple(
            " ".join(slots[a][d] for a, d in zip(template, dirs, strict=True)) or str(Plan(()))
            for template in self._templates
            for dirs in directions
        )


@lru_cache(maxsize=64)
def _plan_space(mask: int) -> PlanSpace:
    return PlanSpace(mask)


@lru_cache(maxsize=64)
def _plan_texts(mask: int) -> tuple[str, ...]:
    return _plan_space(mask).texts()


# --- the state --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EverestState(GameState[Move]):
    """One moment of an Everest game (see the module docstring for the notation)."""

    game_id: ClassVar[str] = "everest"

    #: Number of seats (2-4).
    players: int
    #: Last round (a draw if nobody has won by its end); 0 = no cap.
    cap: int
    #: The round being played, from 1.
    round: int
    #: What the round waits for: plan, flee, pick, end (choices) or over.
    stage: str
    #: The step (0-2) being resolved; 0 while planning.
    step: int
    #: Square index per seat (see the board above), OFF when off the board this round.
    pos: tuple[int, ...]
    #: Coins set aside by damage, a bit mask per seat (bit c = coin c; 0 null, 1 ace).
    aside: tuple[int, ...]
    #: Damage taken this round per seat (falls and snowball hits).
    damage: tuple[int, ...]
    #: The seat that started this round alone on the peak tile, or -1.
    peak: int
    #: Each seat's plan (action codes); None = not planned yet; HIDDEN in other views.
    plans: tuple[tuple[int, ...] | None, ...]
    #: Yeti running away in this step: direction * 8 + points, 0 = not running.
    runs: tuple[int, ...]
    #: Roar-backs for the next wave of a roar chain: (seat, direction, answered seat).
    roars: tuple[tuple[int, int, int], ...]
    #: Pending `flee` choice per seat: roll * 16 + mask of roarer directions, 0 = none.
    choice: tuple[int, ...]
    #: The conflict a `pick` settles: "run" (run-aways) or "act" (the step's actions).
    conflict: str
    #: The roll-off winner who picks, or -1.
    picker: int
    #: End-of-round choice per seat (END_* codes).
    endq: tuple[int, ...]
    #: Coins each seat chose to set aside at the end of the round (bit masks).
    chosen: tuple[int, ...]
    #: -1 while running, a seat that won, or -2 for a draw.
    result: int
    #: What the last resolution did, for the log and the picture.
    events: tuple[Event, ...]
    #: The dice.
    rng: Rng

    # --- whose turn -----------------------------------------------------------------------
    @property
    def num_seats(self) -> int:
        return self.players

    @property
    def to_act(self) -> frozenset[int]:
        stage = self.stage
        if stage == "plan":
            return frozenset(s for s in range(self.players) if self.plans[s] is None)
        if stage == "flee":
            return frozenset(s for s in range(self.players) if self.choice[s])
        if stage == "pick":
            return frozenset((self.picker,))
        if stage == "end":
            return frozenset(
                s for s in range(self.players) if self.endq[s] in (END_HEAL_ASK, END_ASIDE_ASK)
            )
        return frozenset()

    def outcome(self) -> Outcome | None:
        if self.result == -1:
            return None
        if self.result == -2:
            return Outcome(
                (0,) * self.players,
                frozenset(),
                t("Round {cap} ended with nobody alone on the peak: a draw.", cap=self.cap),
            )
        return Outcome(
            self.scores(),
            frozenset((self.result,)),
            t(
                "{name} started and ended round {round} alone on the peak.",
                name=EverestGame.seat_names[self.result],
                round=self.round,
            ),
        )

    def scores(self) -> tuple[int, ...]:
        return tuple(1 if s == self.result else 0 for s in range(self.players))

    def available(self, seat: int) -> int:
        """The coins `seat` may plan with (a bit mask)."""
        return ALL_COINS & ~self.aside[seat]

    # --- moves ----------------------------------------------------------------------------
    def legal_moves(self, seat: int) -> Sequence[Move]:
        """Every legal move of `seat`. While planning this is a `PlanSpace`: all the
        min(3, coins) plans, decoded on demand (the `dazed` timeout plan is not listed)."""
        if seat not in self.to_act:
            return ()
        if self.stage == "plan":
            return _plan_space(self.available(seat))
        if self.stage == "flee":
            mask = self.choice[seat] & 15
            return tuple(Flee(d) for d in range(4) if mask >> d & 1)
        if self.stage == "pick":
            return tuple(Pick(i + 1) for i in range(len(self._outcomes())))
        if self.endq[seat] == END_HEAL_ASK:
            return (Heal(), Stay())
        need = self.damage[seat]
        avail = self.available(seat)
        coins = [c for c in range(5, -1, -1) if avail >> c & 1]
        combos = itertools.combinations(coins, need)
        return tuple(Aside(sum(1 << c for c in combo)) for combo in combos)

    def move_texts(self, seat: int) -> Sequence[str]:
        if seat in self.to_act and self.stage == "plan":
            return _plan_texts(self.available(seat))
        return GameState.move_texts(self, seat)

    def parse_move(self, seat: int, text: str) -> Move:
        move = _parse_move_text(text, self, seat)
        self._check(seat, move, text.strip())
        return move

    def _check(self, seat: int, move: Move, text: str) -> None:
        """Raise IllegalMoveError unless `seat` may play `move` now."""
        if self.stage == "over":
            raise IllegalMoveError(t("{move}: the game is over.", move=text))
        if seat not in self.to_act:
            raise IllegalMoveError(
                t("{move}: it is not your turn to {what}.", move=text, what=self._waiting_for())
            )
        expected: tuple[type, ...] = {
            "plan": (Plan,),
            "flee": (Flee,),
            "pick": (Pick,),
        }.get(self.stage) or ((Heal, Stay) if self.endq[seat] == END_HEAL_ASK else (Aside,))
        if not isinstance(move, expected):
            raise IllegalMoveError(
                t("{move}: now you must {what}.", move=text, what=self._request(seat))
            )
        if isinstance(move, Plan):
            self._check_plan(seat, move, text)
        elif isinstance(move, Flee):
            if not self.choice[seat] >> move.direction & 1:
                dirs = " ".join(DIRS[d] for d in range(4) if self.choice[seat] >> d & 1)
                raise IllegalMoveError(
                    t("{move}: no roarer there; choose one of {dirs}.", move=text, dirs=dirs)
                )
        elif isinstance(move, Pick):
            count = len(self._outcomes())
            if not 1 <= move.number <= count:
                raise IllegalMoveError(
                    t("{move}: choose an outcome from 1 to {count}.", move=text, count=count)
                )
        elif isinstance(move, Aside):
            avail, need = self.available(seat), self.damage[seat]
            if move.coins & ~avail:
                raise IllegalMoveError(
                    t(
                        "{move}: you can only set aside coins you still have ({coins}).",
                        move=text,
                        coins=coins_text(avail, " "),
                    )
                )
            if coin_count(move.coins) != need:
                raise IllegalMoveError(
                    t(
                        "{move}: your yeti took {need} damage, so set aside exactly {need} "
                        "coin(s).",
                        move=text,
                        need=need,
                    )
                )

    def _check_plan(self, seat: int, plan: Plan, text: str) -> None:
        if not plan.actions:
            return  # the logged timeout plan: every action dazed
        avail = self.available(seat)
        need = min(3, coin_count(avail))
        coins = [a >> 3 for a in plan.actions]
        for coin in coins:
            if not avail >> coin & 1:
                raise IllegalMoveError(
                    t(
                        "{move}: your {coin} coin is set aside by damage; you have {coins}.",
                        move=text,
                        coin=COIN_CHARS[coin],
                        coins=coins_text(avail, " "),
                    )
                )
        for coin in set(coins):
            if coins.count(coin) > 1:
                raise IllegalMoveError(
                    t(
                        "{move}: you have only one {coin} coin; a plan uses different coins.",
                        move=text,
                        coin=COIN_CHARS[coin],
                    )
                )
        if len(coins) != need:
            raise IllegalMoveError(
                t(
                    "{move}: plan exactly {need} coin(s); you have {count} available.",
                    move=text,
                    need=need,
                    count=coin_count(avail),
                )
            )

    def _waiting_for(self) -> str:
        return {
            "plan": "plan",
            "flee": "choose a roarer",
            "pick": "pick an outcome",
            "end": "choose",
        }.get(self.stage, "move")

    def _request(self, seat: int) -> str:
        if self.stage == "plan":
            return "send a plan such as 4E 2N sAE"
        if self.stage == "flee":
            return "choose a roarer with flee N/E/S/W"
        if self.stage == "pick":
            return "pick an outcome with pick N"
        if self.endq[seat] == END_HEAL_ASK:
            return "answer heal or stay"
        return "choose coins with aside (for example aside 5 4)"

    def play(self, seat: int, move: Move) -> EverestState:
        self._check(seat, move, str(move))
        if isinstance(move, Plan):
            plans = list(self.plans)
            plans[seat] = move.actions
            if any(p is None for p in plans):
                return replace(self, plans=tuple(plans))
            work = _Work(replace(self, plans=tuple(plans)))
            work.reveal()
            work.start_step()
            return work.freeze()
        work = _Work(self)
        if isinstance(move, Flee):
            work.answer_flee(seat, move.direction)
        elif isinstance(move, Pick):
            work.apply_pick(move.number)
        elif isinstance(move, Heal):
            work.endq[seat] = END_HEALS
            work.after_end_choice()
        elif isinstance(move, Stay):
            avail, need = self.available(seat), self.damage[seat]
            work.endq[seat] = END_ASIDE_ASK if 0 < need < coin_count(avail) else END_NONE
            work.after_end_choice()
        else:
            work.chosen[seat] = move.coins
            work.endq[seat] = END_NONE
            work.after_end_choice()
        if not work.events:
            # Another seat still has to choose: the last resolution stays on show.
            work.events = list(self.events)
        return work.freeze()

    # --- conflicts ------------------------------------------------------------------------
    def _outcomes(self) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
        """The distinct outcomes of the pending conflict: (positions, damage, order)."""
        moves, throws = _actors(self.pos, self.runs, self.plans, self.step, self.conflict)
        return _distinct_outcomes(list(self.pos), list(self.damage), moves, throws)

    def pick_options(self) -> tuple[PickOption, ...]:
        """The outcomes a roll-off winner chooses from, labelled, with the board after
        each (stage unchanged, events = that outcome's moves) for a thumbnail."""
        if self.stage != "pick":
            return ()
        moves, throws = _actors(self.pos, self.runs, self.plans, self.step, self.conflict)
        found = _distinct_outcomes(list(self.pos), list(self.damage), moves, throws)
        varying = [
            s
            for s in range(self.players)
            if len({(o[0][s], o[1][s]) for o in found}) > 1 or len(found) == 1
        ]
        options = []
        for number, (pos, dmg, order) in enumerate(found, start=1):
            events: list[Event] = []
            _run_order(list(self.pos), list(self.damage), moves, throws, order, events)
            parts = []
            for s in varying:
                extra = dmg[s] - self.damage[s]
                part = f"{EverestGame.seat_names[s]} {square_name(pos[s])}"
                parts.append(part + (f" +{extra} dmg" if extra else ""))
            label = t("{number}: {parts}", number=number, parts=", ".join(parts))
            preview = replace(self, pos=pos, damage=dmg, events=tuple(events))
            options.append(PickOption(number, label, preview))
        return tuple(options)

    # --- notation -------------------------------------------------------------------------
    def to_text(self) -> str:
        seats = range(self.players)
        fields = [
            "everest",
            f"n={self.players}",
            f"cap={self.cap}",
            f"round={self.round}",
            f"stage={self.stage}",
            f"step={self.step + 1}",
            "pos=" + ",".join(square_name(p) for p in self.pos),
            "aside=" + ",".join(coins_text(m) or "-" for m in self.aside),
            "dmg=" + ",".join(str(d) for d in self.damage),
            f"peak={'-' if self.peak < 0 else self.peak}",
            "plans=" + ",".join(_plan_field(p) for p in self.plans),
        ]
        if any(self.runs):
            fields.append("runs=" + ",".join(_run_field(r) for r in self.runs))
        if self.roars:
            fields.append("roars=" + ",".join(f"{s}{DIRS[d]}{a}" for s, d, a in self.roars))
        if any(self.choice):
            fields.append("choice=" + ",".join(_choice_field(c) for c in self.choice))
        if self.conflict:
            fields.append(f"pick={self.conflict}:{self.picker}")
        if any(self.endq) or any(self.chosen):
            fields.append("end=" + ",".join(_END_CHARS[self.endq[s]] for s in seats))
            fields.append("chosen=" + ",".join(coins_text(m) or "-" for m in self.chosen))
        result = {-1: "-", -2: "draw"}.get(self.result, f"w{self.result}")
        fields.append(f"result={result}")
        fields.append(f"rng={self.rng.seed}:{self.rng.counter}")
        if self.events:
            fields.append("ev=" + ",".join(str(e) for e in self.events))
        return " ".join(fields)

    def view(self, seat: int | None) -> EverestState:
        """Without the dice and, while planning, without the other seats' plans (shown
        as `?`). Playing on a view resolves the hidden plans as dazed."""
        plans = self.plans
        if self.stage == "plan":
            plans = tuple(p if s == seat or p is None else HIDDEN for s, p in enumerate(self.plans))
        return replace(self, plans=plans, rng=Rng(0, 0))

    # --- builder --------------------------------------------------------------------------
    def move_tokens(self, move: Move) -> tuple[str, ...]:
        if isinstance(move, Plan):
            out: list[str] = []
            for a in move.actions:
                out += ["s" if a & SNOW else COIN_CHARS[a >> 3], DIRS[a & 3]]
            return tuple(out)
        return (str(move),)

    def move_options(self, seat: int, prefix: tuple[str, ...] = ()) -> MoveOptions[Move]:
        if seat not in self.to_act:
            return MoveOptions(prefix, (), None, t("Nothing to choose now."))
        if self.stage == "plan":
            return self._plan_options(seat, prefix)
        if prefix:
            move = self.parse_move(seat, " ".join(prefix))
            return MoveOptions(prefix, (), move, t("Confirm."))
        labels = self._option_labels(seat)
        options = tuple(Option(str(m), labels.get(str(m), str(m))) for m in self.legal_moves(seat))
        return MoveOptions(prefix, options, None, t("{what}", what=self._request(seat)))

    def _option_labels(self, seat: int) -> dict[str, str]:
        if self.stage == "pick":
            return {f"pick {o.number}": str(o.label) for o in self.pick_options()}
        if self.stage == "flee":
            roll = self.choice[seat] >> 4
            labels = {}
            for d in range(4):
                other = _occupant(self.pos, NEXT[self.pos[seat]][d])
                name = EverestGame.seat_names[other] if other >= 0 else DIRS[d]
                if roll == 1:
                    labels[f"flee {DIRS[d]}"] = str(t("roar back at {name}", name=name))
                else:
                    labels[f"flee {DIRS[d]}"] = str(
                        t("run from {name} ({d})", name=name, d=DIR_NAMES[OPPOSITE[d]])
                    )
            return labels
        if self.stage == "end":
            labels = {"heal": str(t("heal at home")), "stay": str(t("stay"))}
            for move in self.legal_moves(seat):
                if isinstance(move, Aside):
                    labels[str(move)] = str(
                        t("set aside {coins}", coins=coins_text(move.coins, " "))
                    )
            return labels
        return {}

    def _plan_options(self, seat: int, prefix: tuple[str, ...]) -> MoveOptions[Move]:
        """Two choices per slot: roar, a move coin or a snowball; then a direction."""
        avail = self.available(seat)
        need = min(3, coin_count(avail))
        slots = _builder_slots(prefix, avail)
        if len(slots) > need or (len(slots) == need and len(prefix) % 2):
            raise InvalidMoveError(
                t("{move}: a plan has {need} action(s).", move=" ".join(prefix), need=need)
            )
        if len(slots) == need:
            actions = canonical_actions(slots, avail)
            assert actions is not None  # each slot takes one of at least `need` coins
            plan = Plan(actions)
            preview = t("{plan}", plan=describe_plan(plan.actions))
            return MoveOptions(prefix, (), plan, t("Send this plan?"), preview)
        slot = len(slots) + 1
        if len(prefix) % 2 == 0:
            used = {k for k, _ in slots}
            kinds = [
                Option(COIN_CHARS[c], _coin_label(c))
                for c in range(6)
                if avail >> c & 1 and c not in used
            ]
            options = (*kinds, Option("s", "snowball"))
            prompt = t("Action {slot} of {need}: roar, move or snowball?", slot=slot, need=need)
        else:
            options = tuple(Option(DIRS[d], DIR_NAMES[d]) for d in range(4))
            prompt = t("Action {slot}: which direction?", slot=slot)
        return MoveOptions(prefix, options, None, prompt)

    # --- computer players and deadlines ---------------------------------------------------
    def evaluate(self, seat: int) -> float:
        if self.result >= 0:
            return 100.0 if self.result == seat else -100.0
        if self.result == -2:
            return 0.0
        mine = _yeti_value(self, seat)
        others = [_yeti_value(self, s) for s in range(self.players) if s != seat]
        return mine - max(others)

    def report(self, previous: EverestState | None, names: Sequence[str]) -> tuple[Text, ...]:
        """The log of the resolution this move triggered (nothing if it resolved none)."""
        if not self.events or (previous is not None and previous.events == self.events):
            return ()
        return tuple(describe_events(self.events, names))

    def timeout_move(self, seat: int) -> Move | None:
        if seat not in self.to_act:
            return None
        if self.stage == "plan":
            return Plan(())
        if self.stage == "flee":
            mask = self.choice[seat] & 15
            return Flee(next(d for d in range(4) if mask >> d & 1))
        if self.stage == "pick":
            return Pick(1)
        if self.endq[seat] == END_HEAL_ASK:
            return Stay()
        return Aside(highest_coins(self.available(seat), self.damage[seat]))


def _yeti_value(state: EverestState, seat: int) -> float:
    sq = state.pos[seat]
    coins = coin_count(state.available(seat)) - state.damage[seat]
    height = 0 if sq == OFF else HEIGHTS[sq]
    bonus = 4.0 if state.peak == seat else 0.0
    return height * 1.5 + coins * 0.6 + bonus


def _plan_field(plan: tuple[int, ...] | None) -> str:
    if plan is None:
        return "-"
    if plan == HIDDEN:
        return "?"
    return "+".join(action_text(a) for a in plan) if plan else "dazed"


def _run_field(code: int) -> str:
    return f"{DIRS[code >> 3]}{code & 7}" if code else "-"


def _choice_field(code: int) -> str:
    if not code:
        return "-"
    roll = code >> 4
    return ("A" if roll == 1 else str(roll)) + "".join(DIRS[d] for d in range(4) if code >> d & 1)


def _coin_label(coin: int) -> str:
    return {0: "roar", 1: "move 1 (ace)"}.get(coin, f"move {coin}")


def _builder_slots(prefix: tuple[str, ...], avail: int) -> list[tuple[int, int]]:
    """The (kind, direction) slots a builder prefix has filled, checked as it goes."""
    slots: list[tuple[int, int]] = []
    for i in range(0, len(prefix), 2):
        token = prefix[i].lower()
        if token == "s":
            kind = SNOWBALL_KIND
        else:
            coin = _COIN_INPUT.get(token)
            if coin is None or not avail >> coin & 1 or any(k == coin for k, _ in slots):
                raise InvalidMoveError(
                    t(
                        "{move}: {tok} is not a coin you can use here.",
                        move=" ".join(prefix),
                        tok=prefix[i],
                    )
                )
            kind = coin
        if i + 1 < len(prefix):
            d = prefix[i + 1].upper()
            if len(d) != 1 or d not in DIRS:
                raise InvalidMoveError(
                    t("{move}: {tok} is not N, E, S or W.", move=" ".join(prefix), tok=d)
                )
            slots.append((kind, DIRS.index(d)))
    return slots


def describe_plan(actions: Sequence[int]) -> str:
    """A plan in words: `move 4 east, then move 2 north, then snowball east`."""
    words = []
    for a in actions:
        coin, d = a >> 3, DIR_NAMES[a & 3]
        if a & SNOW:
            words.append(f"snowball {d}")
        elif coin == 0:
            words.append(f"roar {d}")
        else:
            words.append(f"move {coin} {d}")
    return ", then ".join(words) if words else "dazed"


def _parse_move_text(text: str, state: EverestState, seat: int) -> Move:
    raw = text.strip()
    words = raw.split()
    if not words:
        raise InvalidMoveError(t("Empty move: send a plan such as 4E 2N sAE."))
    head = words[0].lower()
    if head == "dazed" and len(words) == 1:
        return Plan(())
    if head in ("heal", "stay") and len(words) == 1:
        return Heal() if head == "heal" else Stay()
    if head == "pick":
        if len(words) != 2 or not is_digits(words[1]):
            raise InvalidMoveError(t("{move}: write pick and an outcome number.", move=raw))
        number = read_natural(words[1], MAX_OUTCOMES)
        if number is None:
            raise IllegalMoveError(
                t("{move}: a conflict has at most {n} outcomes.", move=raw, n=MAX_OUTCOMES)
            )
        return Pick(number)
    if head == "flee":
        if len(words) != 2 or words[1].upper() not in ("N", "E", "S", "W"):
            raise InvalidMoveError(t("{move}: write flee and a direction N/E/S/W.", move=raw))
        return Flee(DIRS.index(words[1].upper()))
    if head == "aside":
        if len(words) == 1:
            if state.stage == "end" and 0 <= seat < state.players:
                avail = state.available(seat)
                return Aside(highest_coins(avail, state.damage[seat]))
            raise InvalidMoveError(t("{move}: there is no damage to set aside.", move=raw))
        mask = 0
        for word in words[1:]:
            for ch in word.lower():
                coin = _COIN_INPUT.get(ch)
                if coin is None:
                    raise InvalidMoveError(
                        t("{move}: {ch} is not a coin (0, A, 2-5).", move=raw, ch=ch)
                    )
                if mask >> coin & 1:
                    raise InvalidMoveError(t("{move}: coin {ch} is listed twice.", move=raw, ch=ch))
                mask |= 1 << coin
        return Aside(mask)
    avail = state.available(seat) if 0 <= seat < state.players else ALL_COINS
    return Plan(_plan_actions(_parse_plan_words(words, raw), avail, raw))


def _parse_plan_words(words: list[str], raw: str) -> list[tuple[int, bool, int]]:
    """(coin, snowball, direction) per action; coin -1 is a builder snowball (`s N`)
    whose coin is still to be chosen."""
    actions: list[tuple[int, bool, int]] = []
    i = 0
    while i < len(words):
        word = words[i].lower()
        match = _ACTION_RE.fullmatch(word) if len(word) in (2, 3) else None
        following = words[i + 1].lower() if i + 1 < len(words) else ""
        if match:
            coin, snow = _COIN_INPUT[match.group(2)], bool(match.group(1))
            actions.append((coin, snow, "nesw".index(match.group(3))))
            i += 1
        elif (word in _COIN_INPUT or word == "s") and following in ("n", "e", "s", "w"):
            coin = _COIN_INPUT.get(word, -1)
            actions.append((coin, coin < 0, "nesw".index(following)))
            i += 2
        else:
            raise InvalidMoveError(
                t(
                    "{move}: {word} is not an action; write <coin><direction> such as 4E, a "
                    "roar 0W or a snowball sAE.",
                    move=raw,
                    word=words[i],
                )
            )
    if len(actions) > 3:
        raise InvalidMoveError(t("{move}: a plan has at most 3 actions.", move=raw))
    return actions


def _plan_actions(parsed: list[tuple[int, bool, int]], avail: int, raw: str) -> tuple[int, ...]:
    """Action codes, giving builder snowballs the lowest coins the plan leaves free."""
    named = {coin for coin, _, _ in parsed if coin >= 0}
    free = [c for c in range(6) if avail >> c & 1 and c not in named]
    out = []
    for coin, snow, d in parsed:
        if coin < 0:
            if not free:
                raise IllegalMoveError(t("{move}: no coin left for that snowball.", move=raw))
            coin = free.pop(0)
        out.append(action_code(coin, snow, d))
    return tuple(out)


# --- resolution -------------------------------------------------------------------------


def _occupant(pos: Sequence[int], sq: int) -> int:
    if sq == OFF:
        return -1
    for seat, p in enumerate(pos):
        if p == sq:
            return seat
    return -1


def _move(
    pos: list[int],
    dmg: list[int],
    seat: int,
    d: int,
    mp: int,
    ev: list[Event] | None,
) -> None:
    """Carry out one movement of `seat` (a planned move or a run-away)."""
    start = here = pos[seat]
    heights = HEIGHTS
    mark = len(ev) if ev is not None else 0
    while mp > 0:
        nxt = NEXT[here][d]
        if nxt == OFF:
            # Leaving the board needs only some point left (RULES 3(b)29).
            pos[seat] = OFF
            if ev is not None:
                if here != start:
                    ev.insert(mark, Event("move", (seat, start, here, d)))
                ev.append(Event("off", (seat, here, d)))
            return
        rise = heights[nxt] - heights[here]
        if rise >= 2:
            break  # a cliff from below: stop, the rest is lost
        falling = rise <= -2
        cost = 2 if rise == 1 else 1
        other = _occupant(pos, nxt) if nxt in pos else -1
        if other >= 0:
            beyond = NEXT[nxt][d]
            if beyond == OFF:
                extra = 0 if falling else 1
            else:
                push_rise = heights[beyond] - heights[nxt]
                if beyond in pos or push_rise >= 2 or (falling and push_rise >= 1):
                    break  # the push (or the free push after a fall) is impossible
                extra = 0 if falling else (2 if push_rise == 1 else 1)
            if mp < cost + extra:
                break
            mp -= cost + extra
            if ev is not None:
                ev.append(Event("push", (other, nxt, beyond, d)))
            if beyond == OFF:
                pos[other] = OFF
                if ev is not None:
                    ev.append(Event("off", (other, nxt, d)))
            else:
                pos[other] = beyond
                if heights[beyond] - heights[nxt] <= -2:
                    dmg[other] += 1
                    if ev is not None:
                        ev.append(Event("fall", (other, beyond)))
        elif mp < cost:
            break  # a step up with 1 point left: stop (RULES 3(b)8)
        else:
            mp -= cost
        here = nxt
        pos[seat] = here
        if falling:
            dmg[seat] += 1
            if ev is not None:
                ev.append(Event("fall", (seat, here)))
    if ev is not None:
        ev.insert(mark, Event("move", (seat, start, here, d)))


def _volley(
    pos: list[int],
    dmg: list[int],
    throws: Sequence[tuple[int, int]],
    ev: list[Event] | None,
) -> None:
    """All the step's snowballs fly at the same moment, from the throwers' squares now."""
    heights = HEIGHTS
    hits: dict[int, list[int]] = {}
    for seat, d in throws:
        here = start = pos[seat]
        if here == OFF:
            continue
        target, result = -1, 2
        while True:
            nxt = NEXT[here][d]
            if nxt == OFF:
                break
            if heights[nxt] > heights[here]:
                target = _occupant(pos, nxt)
                if target >= 0:
                    here = nxt
                result = 0 if target >= 0 else 1
                break
            here = nxt
            target = _occupant(pos, here)
            if target >= 0:
                result = 0
                break
        if ev is not None:
            ev.append(Event("snow", (seat, start, here, d, result)))
        if target >= 0:
            hits.setdefault(target, []).append(d)
    pushes: dict[int, int] = {}
    for target in sorted(hits):
        dirs = hits[target]
        dmg[target] += len(dirs)
        if ev is not None:
            ev.extend(Event("hit", (target, pos[target], d)) for d in dirs)
        if len(dirs) != 1:
            continue  # balls from two or more directions: no push (RULES 3(b)28)
        beyond = NEXT[pos[target]][dirs[0]]
        if beyond == OFF or (heights[beyond] <= heights[pos[target]] and beyond not in pos):
            pushes[target] = beyond
    landing = [sq for sq in pushes.values() if sq != OFF]
    for target in sorted(pushes):
        beyond = pushes[target]
        if beyond != OFF and landing.count(beyond) > 1:
            continue  # two yeti knocked into one square: neither moves
        d = hits[target][0]
        frm = pos[target]
        pos[target] = beyond
        if ev is not None:
            ev.append(Event("push", (target, frm, beyond, d)))
            if beyond == OFF:
                ev.append(Event("off", (target, frm, d)))
        if beyond != OFF and heights[beyond] - heights[frm] <= -2:
            dmg[target] += 1
            if ev is not None:
                ev.append(Event("fall", (target, beyond)))


Moves = list[tuple[int, int, int]]
Throws = list[tuple[int, int]]


def _actors(
    pos: Sequence[int],
    runs: Sequence[int],
    plans: Sequence[tuple[int, ...] | None],
    step: int,
    kind: str,
) -> tuple[Moves, Throws]:
    """The movements (seat, direction, points) and throws (seat, direction) to settle:
    the run-aways (`run`) or the step's planned actions (`act`)."""
    moves: Moves = []
    throws: Throws = []
    for seat, here in enumerate(pos):
        if here == OFF:
            continue
        if kind == "run":
            code = runs[seat]
            if code:
                moves.append((seat, code >> 3, code & 7))
            continue
        plan = plans[seat] or ()
        if step < len(plan):
            a = plan[step]
            if a & SNOW:
                throws.append((seat, a & 3))
            elif a >> 3:
                moves.append((seat, a & 3, a >> 3))
    return moves, throws


def _run_order(
    pos: list[int],
    dmg: list[int],
    moves: Moves,
    throws: Throws,
    order: Sequence[int],
    ev: list[Event] | None,
) -> None:
    """Carry out the actors in `order` (index len(moves) is the snowball volley). A yeti
    already off the board loses its action."""
    for index in order:
        if index == len(moves):
            _volley(pos, dmg, throws, ev)
        else:
            seat, d, mp = moves[index]
            if pos[seat] != OFF:
                _move(pos, dmg, seat, d, mp, ev)


def _distinct_outcomes(
    pos: list[int], dmg: list[int], moves: Moves, throws: Throws
) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """Every order of the actors (the volley as one actor), reduced to the distinct
    (positions, damage) results, each with the first order giving it; sorted by the
    squares per seat in seat order (off the board last), then damage."""
    count = len(moves) + (1 if throws else 0)
    seen: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}
    for order in itertools.permutations(range(count)):
        p, d = pos[:], dmg[:]
        _run_order(p, d, moves, throws, order, None)
        seen.setdefault((tuple(p), tuple(d)), order)
    ranked = sorted(seen.items(), key=lambda kv: (tuple(x % 99 for x in kv[0][0]), kv[0][1]))
    return [(key[0], key[1], order) for key, order in ranked]


class _Work:
    """A mutable copy of a state while `play` resolves the round."""

    def __init__(self, s: EverestState) -> None:
        self.s = s
        self.n = s.players
        self.round = s.round
        self.stage = s.stage
        self.step = s.step
        self.pos = list(s.pos)
        self.aside = list(s.aside)
        self.damage = list(s.damage)
        self.peak = s.peak
        self.plans = list(s.plans)
        self.runs = list(s.runs)
        self.roars = list(s.roars)
        self.choice = list(s.choice)
        self.conflict = s.conflict
        self.picker = s.picker
        self.endq = list(s.endq)
        self.chosen = list(s.chosen)
        self.result = s.result
        self.events: list[Event] = []
        self.rng = s.rng

    def freeze(self) -> EverestState:
        return EverestState(
            players=self.n,
            cap=self.s.cap,
            round=self.round,
            stage=self.stage,
            step=self.step,
            pos=tuple(self.pos),
            aside=tuple(self.aside),
            damage=tuple(self.damage),
            peak=self.peak,
            plans=tuple(self.plans),
            runs=tuple(self.runs),
            roars=tuple(self.roars),
            choice=tuple(self.choice),
            conflict=self.conflict,
            picker=self.picker,
            endq=tuple(self.endq),
            chosen=tuple(self.chosen),
            result=self.result,
            events=tuple(self.events),
            rng=self.rng,
        )

    def die(self) -> int:
        """A piecepack die: 0 null, 1 ace, 2-5."""
        value, self.rng = self.rng.below(6)
        return value

    def emit(self, kind: str, *args: int) -> None:
        self.events.append(Event(kind, args))

    # --- steps ----------------------------------------------------------------------------
    def reveal(self) -> None:
        # A view (a computer player's guess) resolves the plans it cannot see as dazed.
        self.plans = [() if p == HIDDEN else p for p in self.plans]
        self.emit("reveal")

    def start_step(self) -> None:
        self.stage = "roar"
        self.emit("step", self.step + 1)
        wave = []
        for seat in range(self.n):
            plan = self.plans[seat] or ()
            if self.pos[seat] != OFF and self.step < len(plan):
                a = plan[self.step]
                if not a & SNOW and a >> 3 == 0:
                    wave.append((seat, a & 3, -1))
                    self.emit("roar", seat, self.pos[seat], a & 3)
        if wave:
            self.roll_wave(wave)
            if any(self.choice):
                self.stage = "flee"
                return
            self.after_wave()
        else:
            self.act()

    def roll_wave(self, wave: list[tuple[int, int, int]]) -> None:
        """Find who one wave of roars affects, roll for them, and record the results;
        choices between several roarers are left in `choice` (RULES 3(b)13-16, 25-27)."""
        pos = self.pos
        affected: dict[int, list[tuple[int, int]]] = {}  # seat -> [(roarer, answers)]
        for y in range(self.n):
            if pos[y] == OFF or self.runs[y]:
                continue
            pointed = [(r, a) for r, d, a in wave if r != y and NEXT[pos[r]][d] == pos[y]]
            if pointed:
                affected[y] = pointed
                continue
            near = [(r, a) for r, d, a in wave if r != y and pos[r] in NEXT[pos[y]]]
            if near:
                check = self.die()
                self.emit("check", y, check)
                if check == 0:
                    affected[y] = near
        for y in sorted(affected):
            roll = self.die()
            self.emit("roll", y, roll)
            sources = affected[y]
            if roll == 1:
                sources = [(r, a) for r, a in sources if a != y]
            if roll == 0 or not sources:
                self.emit("shiver", y)
                continue
            if len(sources) > 1:
                mask = sum(1 << NEXT[pos[y]].index(pos[r]) for r, _ in sources)
                self.choice[y] = roll * 16 + mask
                continue
            self.resolve_roll(y, roll, NEXT[pos[y]].index(pos[sources[0][0]]))

    def resolve_roll(self, seat: int, roll: int, toward: int) -> None:
        """`seat` rolled `roll` against the roarer lying in direction `toward`."""
        if roll == 1:
            roarer = _occupant(self.pos, NEXT[self.pos[seat]][toward])
            self.roars.append((seat, toward, roarer))
        else:
            away = OPPOSITE[toward]
            self.runs[seat] = away * 8 + roll
            self.emit("flee", seat, away, roll)

    def answer_flee(self, seat: int, toward: int) -> None:
        roll = self.choice[seat] >> 4
        self.choice[seat] = 0
        self.resolve_roll(seat, roll, toward)
        if not any(self.choice):
            self.after_wave()

    def after_wave(self) -> None:
        """Roll the next waves of roar-backs, then move the yeti that run away."""
        self.stage = "roar"
        while self.roars:
            wave = sorted(self.roars)
            self.roars = []
            for seat, d, answered in wave:
                self.emit("back", seat, self.pos[seat], d, answered)
            self.roll_wave(wave)
            if any(self.choice):
                self.stage = "flee"
                return
        if any(self.runs):
            if self.settle("run"):
                return
            self.runs = [0] * self.n
        self.act()

    def act(self) -> None:
        if self.settle("act"):
            return
        self.next_step()

    def next_step(self) -> None:
        if self.step < 2:
            self.step += 1
            self.start_step()
        else:
            self.end_round()

    def settle(self, kind: str) -> bool:
        """Carry out the movements of a conflict kind; True when a roll-off winner must
        now pick among distinct outcomes (RULES 3(b)17, 32)."""
        moves, throws = _actors(self.pos, self.runs, self.plans, self.step, kind)
        if not moves and not throws:
            return False
        found = _distinct_outcomes(self.pos, self.damage, moves, throws)
        if len(found) == 1:
            _run_order(self.pos, self.damage, moves, throws, found[0][2], self.events)
            return False
        rollers = list(range(self.n))
        while True:
            dice = [-1] * self.n
            for seat in rollers:
                dice[seat] = self.die()
            self.emit("dice", *dice)
            best = max(dice)
            rollers = [s for s in rollers if dice[s] == best]
            if len(rollers) == 1:
                break
        self.stage = "pick"
        self.conflict = kind
        self.picker = rollers[0]
        return True

    def apply_pick(self, number: int) -> None:
        kind = self.conflict
        moves, throws = _actors(self.pos, self.runs, self.plans, self.step, kind)
        found = _distinct_outcomes(self.pos, self.damage, moves, throws)
        self.emit("pick", self.picker, number)
        _run_order(self.pos, self.damage, moves, throws, found[number - 1][2], self.events)
        self.stage = "roar"
        self.conflict = ""
        self.picker = -1
        if kind == "run":
            self.runs = [0] * self.n
            self.act()
        else:
            self.next_step()

    # --- end of the round -----------------------------------------------------------------
    def end_round(self) -> None:
        """Damage, then heal-or-aside choices and forced returns (RULES 3(b)18-21, 30)."""
        self.stage = "end"
        for seat in range(self.n):
            avail = coin_count(ALL_COINS & ~self.aside[seat])
            need = self.damage[seat]
            if self.pos[seat] == OFF:
                # Off the edge: home without healing; damage still sets coins aside.
                if need >= avail:
                    self.chosen[seat] = ALL_COINS & ~self.aside[seat]
                elif need:
                    self.endq[seat] = END_ASIDE_ASK
            elif need >= avail:
                self.endq[seat] = END_HEALS  # the last coin is lost: home to heal
            elif self.aside[seat] or need:
                self.endq[seat] = END_HEAL_ASK
        self.after_end_choice()

    def after_end_choice(self) -> None:
        if any(q in (END_HEAL_ASK, END_ASIDE_ASK) for q in self.endq):
            self.stage = "end"
            return
        self.finish_round()

    def finish_round(self) -> None:
        returning = []
        for seat in range(self.n):
            if self.endq[seat] == END_HEALS:
                self.aside[seat] = 0
                self.emit("heal", seat)
                returning.append(seat)
            else:
                if self.chosen[seat]:
                    self.aside[seat] |= self.chosen[seat]
                    self.emit("aside", seat, self.chosen[seat])
                if self.pos[seat] == OFF:
                    returning.append(seat)
        origin = {seat: self.pos[seat] for seat in returning}
        for seat in returning:
            self.pos[seat] = OFF
        reserved = {HOMES[seat] for seat in returning}
        for seat in returning:
            home = HOMES[seat]
            occupant = _occupant(self.pos, home)
            if occupant >= 0:
                spot = _nearest_empty(home, self.pos, reserved)
                self.pos[occupant] = spot
                self.emit("bump", occupant, home, spot)
            self.pos[seat] = home
            self.emit("home", seat, origin[seat], home)
        self.endq = [END_NONE] * self.n
        self.chosen = [0] * self.n
        on_peak = [s for s in range(self.n) if self.pos[s] in PEAK]
        if self.peak >= 0 and on_peak == [self.peak]:
            self.result = self.peak
            self.stage = "over"
            self.emit("win", self.peak)
            return
        if self.s.cap and self.round >= self.s.cap:
            self.result = -2
            self.stage = "over"
            self.emit("draw")
            return
        self.round += 1
        self.start_round()

    def start_round(self) -> None:
        self.emit("round", self.round)
        self.stage = "plan"
        self.step = 0
        self.damage = [0] * self.n
        on_peak = [s for s in range(self.n) if self.pos[s] in PEAK]
        self.peak = on_peak[0] if len(on_peak) == 1 else -1
        self.plans = [None if ALL_COINS & ~self.aside[s] else () for s in range(self.n)]
        if all(p is not None for p in self.plans):
            self.reveal()
            self.start_step()


def _nearest_empty(home: int, pos: Sequence[int], reserved: set[int]) -> int:
    """Breadth-first from `home`: the nearest empty square, ties in reading order."""
    seen = {home}
    layer = [home]
    while layer:
        nxt_layer = sorted({n for sq in layer for n in NEXT[sq] if n != OFF} - seen)
        seen.update(nxt_layer)
        free = [sq for sq in nxt_layer if sq not in pos and sq not in reserved]
        if free:
            return free[0]
        layer = nxt_layer
    raise AssertionError("the mountain has more squares than yeti")


# --- reading positions ------------------------------------------------------------------


def _plan_from_field(text: str) -> tuple[int, ...] | None:
    if text == "-":
        return None
    if text == "?":
        return HIDDEN
    if text == "dazed":
        return ()
    try:
        parsed = _parse_plan_words(text.split("+"), text)
    except InvalidMoveError as exc:
        raise _bad(t("plans: {why}", why=str(exc))) from None
    coins = [coin for coin, _, _ in parsed]
    if not parsed or min(coins) < 0 or len(set(coins)) != len(coins):
        raise _bad(
            t(
                "plans: {plan!r} is not a plan; write -, ?, dazed or up to three actions of "
                "different coins joined by +, like 4E+2N+sAE.",
                plan=text,
            )
        )
    return tuple(action_code(coin, snow, d) for coin, snow, d in parsed)


_KEYS = (
    "n", "cap", "round", "stage", "step", "pos", "aside", "dmg", "peak", "plans",
    "runs", "roars", "choice", "pick", "end", "chosen", "result", "rng", "ev",
)  # fmt: skip
_REQUIRED = (
    "n", "cap", "round", "stage", "step", "pos", "aside", "dmg", "peak", "plans", "result",
    "rng",
)  # fmt: skip
#: Largest round cap and round the notation accepts (the standard cap is 30).
MAX_CAP = 999
MAX_ROUND = EVENT_NUMBERS["round"][1]
#: Most damage one yeti may show: far more than a round can deal.
MAX_DAMAGE = 99
RNG_MAX = (1 << 64) - 1


def parse_state(text: str) -> EverestState:
    words = text.split()
    if not words or words[0] != "everest":
        raise _bad(t("it starts with the word everest."))
    fields: dict[str, str] = {}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if not sep or key not in _KEYS:
            raise _bad(
                t(
                    "{word!r} is not a known key=value; keys: {keys}.",
                    word=word,
                    keys=", ".join(_KEYS),
                )
            )
        if key in fields:
            raise _bad(t("{key}= is given twice.", key=key))
        fields[key] = value
    missing = [key for key in _REQUIRED if key not in fields]
    if missing:
        raise _bad(t("missing {keys}.", keys=", ".join(f"{key}=" for key in missing)))
    n = _number("n (players)", fields["n"], 2, 4)

    def seats(key: str) -> list[str]:
        raw = fields.get(key, ",".join("-" * n))
        items = raw.split(",")
        if len(items) != n:
            raise _bad(
                t(
                    "{key}={raw}: needs {n} comma-separated entries, one per player.",
                    key=key,
                    raw=raw,
                    n=n,
                )
            )
        return items

    cap = _number("cap", fields["cap"], 0, MAX_CAP)
    round_ = _number("round", fields["round"], 1, cap or MAX_ROUND)
    stage = fields["stage"]
    if stage not in STAGES:
        raise _bad(
            t("stage={stage}: expected one of {stages}.", stage=stage, stages=", ".join(STAGES))
        )
    step = _number("step", fields["step"], 1, 3)
    pos = tuple(_square("pos", x) for x in seats("pos"))
    on_board = [p for p in pos if p != OFF]
    if len(set(on_board)) != len(on_board):
        raise _bad(t("pos: two yeti stand on one square."))
    runs = []
    for item in seats("runs"):
        if item == "-":
            runs.append(0)
        elif re.fullmatch(r"[NESW][2-5]", item):
            runs.append(DIRS.index(item[0]) * 8 + int(item[1]))
        else:
            raise _bad(
                t(
                    "runs: {item!r} is not - or a direction and 2 to 5 points, like S4.",
                    item=item,
                )
            )
    choice = []
    for item in seats("choice"):
        if item == "-":
            choice.append(0)
        elif re.fullmatch(r"[A2-5][NESW]+", item):
            roll = 1 if item[0] == "A" else int(item[0])
            choice.append(roll * 16 + sum(1 << DIRS.index(c) for c in set(item[1:])))
        else:
            raise _bad(
                t(
                    "choice: {item!r} is not - or a roll (A, 2-5) and the roarers' "
                    "directions, like 3EW.",
                    item=item,
                )
            )
    roars = []
    for item in fields["roars"].split(",") if "roars" in fields else []:
        match = re.fullmatch(r"([0-9])([NESW])([0-9])", item)
        if not match:
            raise _bad(
                t(
                    "roars: {item!r} is not a seat, a direction and the seat it answers, like 1W0.",
                    item=item,
                )
            )
        roars.append(
            (
                _seat("roars", match.group(1), n),
                DIRS.index(match.group(2)),
                _seat("roars", match.group(3), n),
            )
        )
    conflict, picker = "", -1
    if "pick" in fields:
        match = re.fullmatch(r"(run|act):([0-9])", fields["pick"])
        if not match:
            raise _bad(
                t("pick={value}: expected run:N or act:N (N the seat).", value=fields["pick"])
            )
        conflict, picker = match.group(1), _seat("pick", match.group(2), n)
    endq = []
    for item in seats("end"):
        if len(item) != 1 or item not in _END_CHARS:
            raise _bad(t("end: {item!r} is not one of - h a H.", item=item))
        endq.append(_END_CHARS.index(item))
    result_text = fields["result"]
    if result_text == "-":
        result = -1
    elif result_text == "draw":
        result = -2
    elif result_text.startswith("w"):
        result = _seat("result", result_text[1:], n)
    else:
        raise _bad(t("result={value}: expected -, draw or w and a seat.", value=result_text))
    seed, sep, counter = fields["rng"].partition(":")
    if not sep:
        raise _bad(t("rng={value}: expected seed:counter.", value=fields["rng"]))
    state = EverestState(
        players=n,
        cap=cap,
        round=round_,
        stage=stage,
        step=step - 1,
        pos=pos,
        aside=tuple(_coins("aside", x) for x in seats("aside")),
        damage=tuple(_number("dmg", x, 0, MAX_DAMAGE) for x in seats("dmg")),
        peak=-1 if fields["peak"] == "-" else _seat("peak", fields["peak"], n),
        plans=tuple(_plan_from_field(x) for x in seats("plans")),
        runs=tuple(runs),
        roars=tuple(roars),
        choice=tuple(choice),
        conflict=conflict,
        picker=picker,
        endq=tuple(endq),
        chosen=tuple(_coins("chosen", x) for x in seats("chosen")),
        result=result,
        events=tuple(_parse_event(e, n) for e in fields["ev"].split(",")) if "ev" in fields else (),
        rng=Rng(_number("rng seed", seed, 0, RNG_MAX), _number("rng counter", counter, 0, RNG_MAX)),
    )
    _check_consistent(state)
    return state


def _check_consistent(s: EverestState) -> None:
    """The fields agree with the stage: every seat that must act can, and nothing waits
    that the stage never reads."""
    seats, stage = range(s.players), s.stage
    if (stage == "plan" and s.step != 0) or (stage in ("end", "over") and s.step != 2):
        raise _bad(t("step: while planning it is 1; at the end of a round and after it, 3."))
    if stage == "plan":
        if all(p is not None for p in s.plans):
            raise _bad(t("plans: while planning, some yeti has yet to plan (-)."))
    elif any(p is None or p == HIDDEN for p in s.plans):
        raise _bad(t("plans: once the plans are revealed every yeti has one (no - or ?)."))
    if any(s.runs) and stage not in ("flee", "pick"):
        raise _bad(t("runs: yeti only run away while roars or a conflict are settled."))
    if any(s.runs[y] and s.pos[y] == OFF for y in seats):
        raise _bad(t("runs: a yeti off the board cannot run away."))
    if s.roars and stage != "flee":
        raise _bad(t("roars: roar-backs only wait while roarers are chosen (stage=flee)."))
    if any(s.pos[y] == OFF or s.pos[a] == OFF or y == a for y, _, a in s.roars):
        raise _bad(t("roars: both yeti stand on the board and they are different yeti."))
    if (stage == "flee") != any(s.choice):
        raise _bad(t("choice: stage=flee goes exactly with a yeti choosing a roarer."))
    for y in seats:
        mask = s.choice[y] & 15
        if mask and (s.pos[y] == OFF or any(
            mask >> d & 1 and _occupant(s.pos, NEXT[s.pos[y]][d]) < 0 for d in range(4)
        )):  # fmt: skip
            raise _bad(t("choice: each direction in it points at a yeti next to the one choosing."))
    if (stage == "pick") != bool(s.conflict):
        raise _bad(t("pick: stage=pick goes exactly with pick=run:N or pick=act:N."))
    asking = [q in (END_HEAL_ASK, END_ASIDE_ASK) for q in s.endq]
    if stage == "end" and not any(asking):
        raise _bad(t("end: at the end of a round some yeti still chooses (h or a)."))
    if stage != "end" and (any(s.endq) or any(s.chosen)):
        raise _bad(t("end and chosen are only used at the end of a round."))
    for y in seats:
        avail = s.available(y)
        coins, need = coin_count(avail), s.damage[y]
        if s.chosen[y] & ~avail:
            raise _bad(t("chosen: only coins that are not set aside can be chosen."))
        if s.endq[y] == END_ASIDE_ASK and not 0 < need < coins:
            raise _bad(t("end: a sets coins aside, so the yeti took damage and has more coins."))
        if s.endq[y] == END_HEAL_ASK and (s.pos[y] == OFF or need >= coins):
            raise _bad(t("end: h (heal or stay) is for a yeti on the board that keeps a coin."))
    if (stage == "over") != (s.result != -1):
        raise _bad(t("result: a game is over (stage=over) exactly when it has a result."))
    if s.result == -2 and (not s.cap or s.round != s.cap):
        raise _bad(t("result: a draw only comes in the last round of a capped game."))


# --- the log ----------------------------------------------------------------------------


def describe_events(events: Sequence[Event], names: Sequence[str] = ()) -> list[Text]:
    """Short player-facing lines for a resolution's events (names by seat, else colours)."""

    def who(seat: int) -> str:
        if 0 <= seat < len(names) and names[seat]:
            return names[seat]
        return EverestGame.seat_names[seat]

    lines: list[Text] = []
    for event in events:
        kind, a = event.kind, event.args
        if kind == "round":
            lines.append(t("Round {n}: plan your coins.", n=a[0]))
        elif kind == "reveal":
            lines.append(t("Plans revealed."))
        elif kind == "step":
            lines.append(t("Step {n}:", n=a[0]))
        elif kind == "roar":
            lines.append(t("{who} roars {d}.", who=who(a[0]), d=DIR_NAMES[a[2]]))
        elif kind == "back":
            lines.append(t("{who} roars back at {other}.", who=who(a[0]), other=who(a[3])))
        elif kind == "check":
            lines.append(
                t(
                    "{who} checks the roar: {face}.",
                    who=who(a[0]),
                    face="null, affected" if a[1] == 0 else f"{_face(a[1])}, not affected",
                )
            )
        elif kind == "roll":
            lines.append(t("{who} rolls {face}.", who=who(a[0]), face=_face(a[1])))
        elif kind == "shiver":
            lines.append(t("{who} shivers.", who=who(a[0])))
        elif kind == "flee":
            lines.append(t("{who} runs {d} with {n} MP.", who=who(a[0]), d=DIR_NAMES[a[1]], n=a[2]))
        elif kind == "move":
            if a[1] == a[2]:
                lines.append(
                    t("{who} cannot move {d} from {sq}.", who=who(a[0]), d=DIR_NAMES[a[3]],
                      sq=square_name(a[1]))
                )  # fmt: skip
            else:
                lines.append(
                    t("{who} moves {frm}→{to}.", who=who(a[0]), frm=square_name(a[1]),
                      to=square_name(a[2]))
                )  # fmt: skip
        elif kind == "push":
            lines.append(
                t("{who} is pushed {frm}→{to}.", who=who(a[0]), frm=square_name(a[1]),
                  to=square_name(a[2]))
            )  # fmt: skip
        elif kind == "fall":
            lines.append(
                t("{who} falls down a cliff to {sq} (1 damage).", who=who(a[0]),
                  sq=square_name(a[1]))
            )  # fmt: skip
        elif kind == "off":
            lines.append(
                t("{who} goes off the board from {sq}!", who=who(a[0]), sq=square_name(a[1]))
            )
        elif kind == "snow":
            end = ("hits", "splats at", "flies off past")[a[4]]
            lines.append(
                t("{who} throws a snowball {d} from {frm}: it {end} {sq}.", who=who(a[0]),
                  d=DIR_NAMES[a[3]], frm=square_name(a[1]), end=end, sq=square_name(a[2]))
            )  # fmt: skip
        elif kind == "hit":
            lines.append(t("{who} is hit (1 damage).", who=who(a[0])))
        elif kind == "dice":
            rolled = ", ".join(f"{who(s)} {_face(v)}" for s, v in enumerate(a) if v >= 0)
            lines.append(t("Conflict! Roll-off: {rolled}.", rolled=rolled))
        elif kind == "pick":
            lines.append(t("{who} picks outcome {n}.", who=who(a[0]), n=a[1]))
        elif kind == "aside":
            lines.append(t("{who} sets aside {coins}.", who=who(a[0]), coins=coins_text(a[1], " ")))
        elif kind == "heal":
            lines.append(t("{who} heals: every coin back.", who=who(a[0])))
        elif kind == "home":
            lines.append(t("{who} returns home to {sq}.", who=who(a[0]), sq=square_name(a[2])))
        elif kind == "bump":
            lines.append(
                t("{who} is bumped {frm}→{to}.", who=who(a[0]), frm=square_name(a[1]),
                  to=square_name(a[2]))
            )  # fmt: skip
        elif kind == "win":
            lines.append(t("{who} is King of the Hill and wins!", who=who(a[0])))
        elif kind == "draw":
            lines.append(t("The round cap is reached: a draw."))
    return lines


def _face(value: int) -> str:
    return {0: "null", 1: "ace"}.get(value, str(value))


# --- the game ---------------------------------------------------------------------------


class EverestGame(Game[Move]):
    id: ClassVar[str] = "everest"
    name: ClassVar[str] = "Everest"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    seat_names: ClassVar[tuple[str, ...]] = ("Red", "Blue", "Green", "Purple")
    variants: ClassVar[tuple[Variant, ...]] = (
        Variant("no-cap", "no round cap: play until a yeti wins"),
    )
    blurb: ClassVar[str] = "Yeti King of the Hill: secret plans, roars and snowballs."
    draw_seats: ClassVar[bool] = False
    #: Plans and choices wait at most 12 hours; then the 3(c) defaults are played.
    decision_seconds: ClassVar[int | None] = 12 * 3600

    def new_state(self, seed: int, num_players: int, variant: str | None) -> EverestState:
        self.check_setup(num_players, variant)
        work = _Work(
            EverestState(
                players=num_players,
                cap=0 if variant == "no-cap" else DEFAULT_CAP,
                round=1,
                stage="plan",
                step=0,
                pos=HOMES[:num_players],
                aside=(0,) * num_players,
                damage=(0,) * num_players,
                peak=-1,
                plans=(None,) * num_players,
                runs=(0,) * num_players,
                roars=(),
                choice=(0,) * num_players,
                conflict="",
                picker=-1,
                endq=(END_NONE,) * num_players,
                chosen=(0,) * num_players,
                result=-1,
                events=(),
                rng=Rng(seed),
            )
        )
        work.start_round()
        return work.freeze()

    def from_text(self, text: str) -> EverestState:
        return parse_state(text)


GAME = registry.register(EverestGame())
