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
  min(3, coins) different coins. A snowball written `s<dir>` (`sE`, as the builder writes
  it) takes the lowest coin the plan leaves free; the older builder form `4 E 2 N s E`, a
  coin (or `s`) and a direction as two words, is accepted too. `dazed` is the plan logged
  when a planning deadline passes.
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
resolution, comma-separated `kind.field.field` (see `Event`).

Numbers are written with the digits 0-9. A position whose fields disagree with each other
or with the stage (a seat that does not exist, a stage waiting for a choice nobody has to
make) is refused, so that every position read can be played on and drawn. So is one the
rules never reach: while planning, no yeti is off the board or damaged, and `peak` names
the yeti alone on the peak tile, if one is (and `-` when none is).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, fields, replace
from enum import IntEnum, StrEnum
from functools import lru_cache
from operator import attrgetter
from typing import Any, ClassVar, NamedTuple, overload

from engine import registry
from engine.core import (
    Game,
    GameState,
    IllegalMoveError,
    InvalidMoveError,
    Model,
    MoveOptions,
    NotationError,
    Option,
    Outcome,
    Variant,
)
from engine.digits import is_digits, read_natural
from engine.rng import Rng
from engine.text import Text, joined, t, tn

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
#: The directions in words, for players (DIRS are the notation).
DIR_NAMES = (t("north"), t("east"), t("south"), t("west"))
_DELTAS = ((0, 1), (1, 0), (0, -1), (-1, 0))
OPPOSITE = (2, 3, 0, 1)


def square_name(sq: int) -> str:
    return "off" if sq == OFF else f"{FILES[sq % WIDTH]}{sq // WIDTH + 1}"


def _place_words(sq: int) -> Text | str:
    """Where a yeti is, for players: its square, or "off" (the board) in words."""
    return t("off") if sq == OFF else square_name(sq)


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
#: The seat names as players read them (`EverestGame.seat_names` are the notation's).
SEAT_TITLES = (t("Red"), t("Blue"), t("Green"), t("Purple"))

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

#: Most distinct outcomes a conflict can have: four moving yeti and one volley, 5! orders.
MAX_OUTCOMES = 120
#: The largest round the notation accepts (rounds go on without a cap).
MAX_ROUND = 9999


class Flight(IntEnum):
    """How a snowball's flight ended; the value is written in the notation."""

    #: It hit the yeti on the last square it reached.
    HIT = 0
    #: It splatted against the slope rising beyond the last square it reached.
    SPLAT = 1
    #: It flew off the mountain past the last square it reached.
    LOST = 2


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in the last resolution (for the log and the picture).

    Each kind of event is a subclass. The notation writes one as its `kind` and its fields
    joined by dots (`move.0.a2.c2.E`); `spec` says how each field is written, in order:
    s a seat, q a square, o a square or off, d a direction, n a number from `numbers`, f a
    `Flight`, m coins (`54A`, `-` for none), N one die per seat (`-`: did not roll).
    """

    kind: ClassVar[str]
    spec: ClassVar[str]
    numbers: ClassVar[tuple[int, int]] = (0, 0)

    def __str__(self) -> str:
        values = [getattr(self, f.name) for f in fields(self)]
        if self.spec == "N":
            parts = ["-" if die is None else str(die) for die in values[0]]
        else:
            parts = [_field_text(k, v) for k, v in zip(self.spec, values, strict=True)]
        return ".".join([self.kind, *parts])


@dataclass(frozen=True, slots=True)
class SeatEvent(Event):
    """An event that befalls one yeti, or that one yeti does."""

    #: The yeti's seat.
    seat: int


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """A new round starts: the yeti plan."""

    kind: ClassVar[str] = "round"
    spec: ClassVar[str] = "n"
    numbers: ClassVar[tuple[int, int]] = (1, MAX_ROUND)
    number: int


@dataclass(frozen=True, slots=True)
class PlansRevealed(Event):
    """Every plan is shown: the round's steps begin."""

    kind: ClassVar[str] = "reveal"
    spec: ClassVar[str] = ""


@dataclass(frozen=True, slots=True)
class StepStarted(Event):
    """Step `number` (1-3) of the plans begins."""

    kind: ClassVar[str] = "step"
    spec: ClassVar[str] = "n"
    numbers: ClassVar[tuple[int, int]] = (1, 3)
    number: int


@dataclass(frozen=True, slots=True)
class Roared(SeatEvent):
    """The yeti on `square` roars toward `direction` (a planned null coin)."""

    kind: ClassVar[str] = "roar"
    spec: ClassVar[str] = "sqd"
    square: int
    direction: int


@dataclass(frozen=True, slots=True)
class RoaredBack(SeatEvent):
    """The yeti on `square` roars back toward `direction`, at the yeti in seat `answered`."""

    kind: ClassVar[str] = "back"
    spec: ClassVar[str] = "sqds"
    square: int
    direction: int
    answered: int


@dataclass(frozen=True, slots=True)
class Checked(SeatEvent):
    """A yeti next to a roar that does not point at it rolls the check die: `face` 0
    (null) means it is affected."""

    kind: ClassVar[str] = "check"
    spec: ClassVar[str] = "sn"
    numbers: ClassVar[tuple[int, int]] = (0, 5)
    face: int


@dataclass(frozen=True, slots=True)
class Rolled(SeatEvent):
    """An affected yeti's roll: `face` 0 shivers, 1 roars back, 2-5 runs away."""

    kind: ClassVar[str] = "roll"
    spec: ClassVar[str] = "sn"
    numbers: ClassVar[tuple[int, int]] = (0, 5)
    face: int


@dataclass(frozen=True, slots=True)
class Shivered(SeatEvent):
    """An affected yeti shivers: it stays where it is."""

    kind: ClassVar[str] = "shiver"
    spec: ClassVar[str] = "s"


@dataclass(frozen=True, slots=True)
class Fled(SeatEvent):
    """The yeti will run away toward `direction` with `points` movement points."""

    kind: ClassVar[str] = "flee"
    spec: ClassVar[str] = "sdn"
    numbers: ClassVar[tuple[int, int]] = (2, 5)
    direction: int
    points: int


@dataclass(frozen=True, slots=True)
class Moved(SeatEvent):
    """The yeti moves toward `direction` from `start` to `end`, the last square it reached
    on the board (`start` itself when it is blocked at once)."""

    kind: ClassVar[str] = "move"
    spec: ClassVar[str] = "sqqd"
    start: int
    end: int
    direction: int


@dataclass(frozen=True, slots=True)
class Pushed(SeatEvent):
    """The yeti is pushed toward `direction` from `start` to `end` (OFF: off the board)."""

    kind: ClassVar[str] = "push"
    spec: ClassVar[str] = "sqod"
    start: int
    end: int
    direction: int


@dataclass(frozen=True, slots=True)
class Fell(SeatEvent):
    """The yeti falls down a cliff onto `square` (1 damage)."""

    kind: ClassVar[str] = "fall"
    spec: ClassVar[str] = "sq"
    square: int


@dataclass(frozen=True, slots=True)
class WentOff(SeatEvent):
    """The yeti leaves the board from `square`, toward `direction`."""

    kind: ClassVar[str] = "off"
    spec: ClassVar[str] = "sqd"
    square: int
    direction: int


@dataclass(frozen=True, slots=True)
class Threw(SeatEvent):
    """The yeti on `start` throws a snowball toward `direction`; `end` is the last square
    it reached and `flight` how it ended there."""

    kind: ClassVar[str] = "snow"
    spec: ClassVar[str] = "sqqdf"
    start: int
    end: int
    direction: int
    flight: Flight


@dataclass(frozen=True, slots=True)
class Hit(SeatEvent):
    """The yeti on `square` is hit by a snowball flying toward `direction` (1 damage)."""

    kind: ClassVar[str] = "hit"
    spec: ClassVar[str] = "sqd"
    square: int
    direction: int


@dataclass(frozen=True, slots=True)
class RolledOff(Event):
    """One roll of a roll-off: each seat's die, None for a seat out of a re-roll."""

    kind: ClassVar[str] = "dice"
    spec: ClassVar[str] = "N"
    dice: tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class Picked(SeatEvent):
    """The roll-off winner picks outcome `number` of the conflict."""

    kind: ClassVar[str] = "pick"
    spec: ClassVar[str] = "sn"
    numbers: ClassVar[tuple[int, int]] = (1, MAX_OUTCOMES)
    number: int


@dataclass(frozen=True, slots=True)
class SetAside(SeatEvent):
    """The yeti sets these `coins` (a bit mask) aside for its damage."""

    kind: ClassVar[str] = "aside"
    spec: ClassVar[str] = "sm"
    coins: int


@dataclass(frozen=True, slots=True)
class Healed(SeatEvent):
    """The yeti heals at home: every coin back."""

    kind: ClassVar[str] = "heal"
    spec: ClassVar[str] = "s"


@dataclass(frozen=True, slots=True)
class WentHome(SeatEvent):
    """The yeti returns from `start` (OFF: off the board) to its home base `home`."""

    kind: ClassVar[str] = "home"
    spec: ClassVar[str] = "soq"
    start: int
    home: int


@dataclass(frozen=True, slots=True)
class Bumped(SeatEvent):
    """The yeti is moved off a home base, `start`, to `end`, the nearest empty square."""

    kind: ClassVar[str] = "bump"
    spec: ClassVar[str] = "sqq"
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Won(SeatEvent):
    """The yeti started and ended the round alone on the peak: it wins."""

    kind: ClassVar[str] = "win"
    spec: ClassVar[str] = "s"


@dataclass(frozen=True, slots=True)
class Drawn(Event):
    """The round cap is reached with no winner."""

    kind: ClassVar[str] = "draw"
    spec: ClassVar[str] = ""


#: Every kind of event by its word in the notation.
EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        RoundStarted, PlansRevealed, StepStarted, Roared, RoaredBack, Checked, Rolled,
        Shivered, Fled, Moved, Pushed, Fell, WentOff, Threw, Hit, RolledOff, Picked,
        SetAside, Healed, WentHome, Bumped, Won, Drawn,
    )
}  # fmt: skip


def _field_text(kind: str, value: int) -> str:
    if kind in "qo":
        return square_name(value)
    if kind == "d":
        return DIRS[value]
    if kind == "m":
        return coins_text(value) or "-"
    return str(value)


def _parse_event(text: str, players: int) -> Event:
    kind, *raw = text.split(".")
    event_type = EVENT_TYPES.get(kind)
    if event_type is None:
        raise _bad(
            t(
                "ev: {event!r} is not an event; events are {kinds}.",
                event=text,
                kinds=", ".join(EVENT_TYPES),
            )
        )
    where = f"ev {text}"
    spec = event_type.spec
    if spec == "N":
        if len(raw) != players:
            raise _bad(
                t(
                    "ev: {event!r} needs one die per player ({n}), each - or 0 to 5.",
                    event=text,
                    n=players,
                )
            )
        return RolledOff(tuple(None if v == "-" else _number(where, v, 0, 5) for v in raw))
    if len(raw) != len(spec):
        raise _bad(
            t("ev: {event!r} needs {n} fields after {kind}.", event=text, n=len(spec), kind=kind)
        )
    values: list[int] = []
    for k, v in zip(spec, raw, strict=True):
        if k == "s":
            values.append(_seat(where, v, players))
        elif k in "qo":
            values.append(_square(where, v, off=k == "o"))
        elif k == "d":
            values.append(_direction(where, v))
        elif k == "m":
            values.append(_coins(where, v))
        elif k == "f":
            values.append(Flight(_number(where, v, 0, len(Flight) - 1)))
        else:
            values.append(_number(where, v, *event_type.numbers))
    # The fields of every kind are the ones its spec reads, in order.
    make: Callable[..., Event] = event_type
    return make(*values)


# --- notation helpers -------------------------------------------------------------------


def _bad(reason: Text) -> NotationError:
    return NotationError(str(t("Everest position: {reason}", reason=reason)))


def _number(where: Text | str, text: str, low: int, high: int) -> int:
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


class Stage(StrEnum):
    """What the game waits for; the value is the stage's word in the notation."""

    #: The yeti with coins plan in secret.
    PLAN = "plan"
    #: The steps of the plans are being carried out (roars, run-aways, actions). Only
    #: `play` passes through it while it resolves a round: no position it returns is at
    #: this stage, so the notation never writes it.
    ROAR = "roar"
    #: A yeti affected by several roarers chooses which one it answers (`flee`).
    FLEE = "flee"
    #: The roll-off winner picks an outcome of a conflict (`pick`).
    PICK = "pick"
    #: End-of-round choices: heal or stay, and which coins damage sets aside.
    END = "end"
    #: Somebody won, or the round cap ended the game in a draw.
    OVER = "over"


#: The stages a position can be at, as the notation lists them.
POSITION_STAGES: tuple[Stage, ...] = tuple(stage for stage in Stage if stage is not Stage.ROAR)


class Conflict(StrEnum):
    """What a roll-off settles; the value is its word in the notation (`pick=act:2`)."""

    #: The yeti running away from roars in this step.
    RUN = "run"
    #: The step's planned moves and snowballs.
    ACT = "act"


class EndChoice(IntEnum):
    """Where a yeti stands in the end-of-round choices; `_END_CHARS[value]` in `end=`."""

    #: Nothing to choose.
    NONE = 0
    #: To answer heal or stay.
    HEAL_ASK = 1
    #: To choose the coins its damage sets aside.
    ASIDE_ASK = 2
    #: Goes home to heal.
    HEALS = 3


_END_CHARS = "-haH"
#: The kinds of move each stage takes (at the end of a round: by the yeti's choice).
_STAGE_MOVES: dict[Stage, tuple[type[Move], ...]] = {
    Stage.PLAN: (Plan,),
    Stage.FLEE: (Flee,),
    Stage.PICK: (Pick,),
}
#: The end-of-round choices a player still has to make.
_ASKING = (EndChoice.HEAL_ASK, EndChoice.ASIDE_ASK)


class Run(NamedTuple):
    """A yeti running away from a roar in this step (notation `S4`)."""

    #: Away from the roarer.
    direction: int
    #: Movement points: its roll, 2 to 5.
    points: int


class FleeChoice(NamedTuple):
    """A yeti affected by several roarers, to choose one with `flee` (notation `3EW`)."""

    #: Its roll: 1 (an ace) roars back at the roarer chosen, 2-5 runs away from it with
    #: that many points.
    roll: int
    #: The directions of the roarers next to it, in N E S W order.
    toward: tuple[int, ...]


class RoarBack(NamedTuple):
    """A roar-back waiting for the next wave of a roar chain (notation `1W0`)."""

    #: The yeti that roars back.
    seat: int
    #: Toward the roarer it answers.
    direction: int
    #: The seat of that roarer.
    answers: int


class ConflictOutcome(NamedTuple):
    """One distinct result of a conflict's actors in some order."""

    #: Squares per seat after it.
    pos: tuple[int, ...]
    #: Damage per seat after it.
    damage: tuple[int, ...]
    #: The first order of the actors giving it (see `_run_order`).
    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PickOption:
    """One distinct outcome of a conflict: its number, a short label, the board after."""

    number: int
    label: Text
    preview: EverestState


@dataclass(frozen=True, slots=True)
class PlanPreview:
    """What a plan would do if the other yeti stood still (`EverestState.plan_preview`)."""

    #: Each action's events, in plan order (none for an action of a yeti off the board).
    steps: tuple[tuple[Event, ...], ...]
    #: Squares per seat after the plan.
    pos: tuple[int, ...]
    #: Damage per seat after the plan.
    damage: tuple[int, ...]


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

    @property
    def templates(self) -> tuple[tuple[int, ...], ...]:
        """Each block of plans, as actions facing north: the plans follow in blocks of
        4**slots, one per choice of directions (`itertools.product` order)."""
        return self._templates

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
    #: What the game waits for.
    stage: Stage
    #: The step (0-2) being resolved; 0 while planning.
    step: int
    #: Square index per seat (see the board above), OFF when off the board this round.
    pos: tuple[int, ...]
    #: Coins set aside by damage, a bit mask per seat (bit c = coin c; 0 null, 1 ace).
    aside: tuple[int, ...]
    #: Damage taken this round per seat (falls and snowball hits).
    damage: tuple[int, ...]
    #: The seat that started this round alone on the peak tile, if one did.
    peak: int | None
    #: Each seat's plan (action codes); None = not planned yet; HIDDEN in other views.
    plans: tuple[tuple[int, ...] | None, ...]
    #: The yeti running away in this step, per seat (None: not running).
    runs: tuple[Run | None, ...]
    #: Roar-backs for the next wave of a roar chain.
    roars: tuple[RoarBack, ...]
    #: Each seat's pending `flee` choice (None: none).
    choice: tuple[FleeChoice | None, ...]
    #: The conflict a `pick` settles (None when no roll-off winner is picking).
    conflict: Conflict | None
    #: The roll-off winner who picks (None when nobody is picking).
    picker: int | None
    #: End-of-round choice per seat.
    endq: tuple[EndChoice, ...]
    #: Coins each seat chose to set aside at the end of the round (bit masks).
    chosen: tuple[int, ...]
    #: The seat that won, once the game is over; None while it runs and after a draw
    #: (the round cap).
    winner: int | None
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
        if stage is Stage.PLAN:
            return frozenset(s for s in range(self.players) if self.plans[s] is None)
        if stage is Stage.FLEE:
            return frozenset(s for s in range(self.players) if self.choice[s] is not None)
        if stage is Stage.PICK:
            return frozenset(() if self.picker is None else (self.picker,))
        if stage is Stage.END:
            return frozenset(s for s in range(self.players) if self.endq[s] in _ASKING)
        return frozenset()

    @property
    def round_number(self) -> int:
        return self.round

    @property
    def planning(self) -> bool:
        return self.stage is Stage.PLAN

    def outcome(self) -> Outcome | None:
        if self.stage is not Stage.OVER:
            return None
        if self.winner is None:
            return Outcome(
                (0,) * self.players,
                frozenset(),
                t("Round {cap} ended with nobody alone on the peak: a draw.", cap=self.cap),
                "peak-unclaimed",
            )
        return Outcome(
            self.scores(),
            frozenset((self.winner,)),
            t(
                "{name} started and ended round {round} alone on the peak.",
                name=SEAT_TITLES[self.winner],
                round=self.round,
            ),
            "alone-on-peak",
        )

    def scores(self) -> tuple[int, ...]:
        return tuple(1 if s == self.winner else 0 for s in range(self.players))

    def available(self, seat: int) -> int:
        """The coins `seat` may plan with (a bit mask)."""
        return ALL_COINS & ~self.aside[seat]

    def _flee_choice(self, seat: int) -> FleeChoice:
        """The pending choice of a seat that is to `flee`."""
        choice = self.choice[seat]
        assert choice is not None
        return choice

    # --- moves ----------------------------------------------------------------------------
    def legal_moves(self, seat: int) -> Sequence[Move]:
        """Every legal move of `seat`. While planning this is a `PlanSpace`: all the
        min(3, coins) plans, decoded on demand (the `dazed` timeout plan is not listed)."""
        if seat not in self.to_act:
            return ()
        if self.stage is Stage.PLAN:
            return _plan_space(self.available(seat))
        if self.stage is Stage.FLEE:
            return tuple(Flee(d) for d in self._flee_choice(seat).toward)
        if self.stage is Stage.PICK:
            return tuple(Pick(i + 1) for i in range(len(self._outcomes())))
        if self.endq[seat] is EndChoice.HEAL_ASK:
            return (Heal(), Stay())
        need = self.damage[seat]
        avail = self.available(seat)
        coins = [c for c in range(5, -1, -1) if avail >> c & 1]
        combos = itertools.combinations(coins, need)
        return tuple(Aside(sum(1 << c for c in combo)) for combo in combos)

    def move_texts(self, seat: int) -> Sequence[str]:
        if seat in self.to_act and self.stage is Stage.PLAN:
            return _plan_texts(self.available(seat))
        return GameState.move_texts(self, seat)

    def move_guide(self, seat: int) -> Text | None:
        if seat not in self.to_act or self.stage is not Stage.PLAN:
            return None
        avail = self.available(seat)
        coins = " ".join("A" if c == 1 else str(c) for c in range(6) if avail >> c & 1)
        return t(
            "A plan is {n} of your coins ({coins}), one action each, written in the order "
            "they act, with a direction N, E, S or W: `4E` moves 4 east (`A` moves 1), "
            "`0N` roars north, `sAE` throws a snowball east with the ace. For example "
            "`4E 2N sAE`, or `0W 3N 5E`. Start typing /move to see the plans that begin so, "
            "or build one with the buttons.",
            n=min(3, coin_count(avail)),
            coins=coins,
        )

    def parse_move(self, seat: int, text: str) -> Move:
        move = _parse_move_text(text, self, seat)
        self._check(seat, move, text.strip())
        return move

    def _check(self, seat: int, move: Move, text: str | None = None) -> None:
        """Raise IllegalMoveError unless `seat` may play `move` now. A refusal quotes
        `text`, the move as the player wrote it, or else the move's notation (written out
        only then: `play` checks every move)."""
        if self.stage is Stage.OVER:
            raise IllegalMoveError(t("{move}: the game is over.", move=_quote(move, text)))
        if seat not in self.to_act:
            raise IllegalMoveError(
                t(
                    "{move}: it is not your turn to {what}.",
                    move=_quote(move, text),
                    what=self._waiting_for(),
                )
            )
        expected = _STAGE_MOVES.get(self.stage) or (
            (Heal, Stay) if self.endq[seat] is EndChoice.HEAL_ASK else (Aside,)
        )
        if not isinstance(move, expected):
            raise IllegalMoveError(
                t("{move}: now you must {what}.", move=_quote(move, text), what=self._request(seat))
            )
        if isinstance(move, Plan):
            self._check_plan(seat, move, text)
        elif isinstance(move, Flee):
            toward = self._flee_choice(seat).toward
            if move.direction not in toward:
                dirs = " ".join(DIRS[d] for d in toward)
                raise IllegalMoveError(
                    t(
                        "{move}: no roarer there; choose one of {dirs}.",
                        move=_quote(move, text),
                        dirs=dirs,
                    )
                )
        elif isinstance(move, Pick):
            count = len(self._outcomes())
            if not 1 <= move.number <= count:
                raise IllegalMoveError(
                    t(
                        "{move}: choose an outcome from 1 to {count}.",
                        move=_quote(move, text),
                        count=count,
                    )
                )
        elif isinstance(move, Aside):
            avail, need = self.available(seat), self.damage[seat]
            if move.coins & ~avail:
                raise IllegalMoveError(
                    t(
                        "{move}: you can only set aside coins you still have ({coins}).",
                        move=_quote(move, text),
                        coins=coins_text(avail, " "),
                    )
                )
            if coin_count(move.coins) != need:
                raise IllegalMoveError(
                    t(
                        "{move}: your yeti took {need} damage, so set aside exactly {need} "
                        "coin(s).",
                        move=_quote(move, text),
                        need=need,
                    )
                )

    def _check_plan(self, seat: int, plan: Plan, text: str | None) -> None:
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
                        move=_quote(plan, text),
                        coin=COIN_CHARS[coin],
                        coins=coins_text(avail, " "),
                    )
                )
        for coin in set(coins):
            if coins.count(coin) > 1:
                raise IllegalMoveError(
                    t(
                        "{move}: you have only one {coin} coin; a plan uses different coins.",
                        move=_quote(plan, text),
                        coin=COIN_CHARS[coin],
                    )
                )
        if len(coins) != need:
            raise IllegalMoveError(
                t(
                    "{move}: plan exactly {need} coin(s); you have {count} available.",
                    move=_quote(plan, text),
                    need=need,
                    count=coin_count(avail),
                )
            )

    def _waiting_for(self) -> Text:
        """What the seats to act are doing, after "it is not your turn to"."""
        if self.stage is Stage.PLAN:
            return t("plan")
        if self.stage is Stage.FLEE:
            return t("choose a roarer")
        if self.stage is Stage.PICK:
            return t("pick an outcome")
        if self.stage is Stage.END:
            return t("choose")
        return t("move")

    def _request(self, seat: int) -> Text:
        if self.stage is Stage.PLAN:
            return t("send a plan such as 4E 2N sAE")
        if self.stage is Stage.FLEE:
            return t("choose a roarer with flee N/E/S/W")
        if self.stage is Stage.PICK:
            return t("pick an outcome with pick N")
        if self.endq[seat] is EndChoice.HEAL_ASK:
            return t("answer heal or stay")
        return t("choose coins with aside (for example aside 5 4)")

    def play(self, seat: int, move: Move) -> EverestState:
        self._check(seat, move)
        if isinstance(move, Plan):
            plans = list(self.plans)
            plans[seat] = move.actions
            if any(p is None for p in plans):
                return replace(self, plans=tuple(plans))
            work = _Work(self)
            work.plans = plans
            work.reveal()
            work.start_step()
            return work.freeze()
        work = _Work(self)
        if isinstance(move, Flee):
            work.answer_flee(seat, move.direction)
        elif isinstance(move, Pick):
            work.apply_pick(move.number, self._outcomes()[move.number - 1].order)
        elif isinstance(move, Heal):
            work.endq[seat] = EndChoice.HEALS
            work.after_end_choice()
        elif isinstance(move, Stay):
            avail, need = self.available(seat), self.damage[seat]
            asks = 0 < need < coin_count(avail)
            work.endq[seat] = EndChoice.ASIDE_ASK if asks else EndChoice.NONE
            work.after_end_choice()
        else:
            work.chosen[seat] = move.coins
            work.endq[seat] = EndChoice.NONE
            work.after_end_choice()
        if not work.events:
            # Another seat still has to choose: the last resolution stays on show.
            work.events = list(self.events)
        return work.freeze()

    # --- conflicts ------------------------------------------------------------------------
    def _conflict_actors(self) -> tuple[Moves, Throws]:
        """The actors of the pending conflict."""
        assert self.conflict is not None
        return _actors(self.pos, self.runs, self.plans, self.step, self.conflict)

    def _outcomes(self) -> tuple[ConflictOutcome, ...]:
        """The distinct outcomes of the pending conflict."""
        moves, throws = self._conflict_actors()
        return _pending_outcomes(self.pos, self.damage, tuple(moves), tuple(throws))

    def pick_options(self) -> tuple[PickOption, ...]:
        """The outcomes a roll-off winner chooses from, labelled in words for the yeti
        whose fate differs between them ("1: Red to e2 (+1 damage); Blue stays"), with the
        board after each (stage unchanged, events = that outcome's moves)."""
        if self.stage is not Stage.PICK:
            return ()
        moves, throws = self._conflict_actors()
        found = self._outcomes()
        varying = [
            s
            for s in range(self.players)
            if len({(o.pos[s], o.damage[s]) for o in found}) > 1 or len(found) == 1
        ]
        options = []
        for number, (pos, dmg, order) in enumerate(found, start=1):
            events: list[Event] = []
            _run_order(list(self.pos), list(self.damage), moves, throws, order, events)
            label = _outcome_label(number, self.pos, self.damage, pos, dmg, varying)
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
            f"peak={'-' if self.peak is None else self.peak}",
            "plans=" + ",".join(_plan_field(p) for p in self.plans),
        ]
        if any(run is not None for run in self.runs):
            fields.append("runs=" + ",".join(_run_field(r) for r in self.runs))
        if self.roars:
            fields.append(
                "roars=" + ",".join(f"{r.seat}{DIRS[r.direction]}{r.answers}" for r in self.roars)
            )
        if any(choice is not None for choice in self.choice):
            fields.append("choice=" + ",".join(_choice_field(c) for c in self.choice))
        if self.conflict is not None:
            fields.append(f"pick={self.conflict}:{self.picker}")
        if any(self.endq) or any(self.chosen):
            fields.append("end=" + ",".join(_END_CHARS[self.endq[s]] for s in seats))
            fields.append("chosen=" + ",".join(coins_text(m) or "-" for m in self.chosen))
        if self.stage is not Stage.OVER:
            result = "-"
        else:
            result = "draw" if self.winner is None else f"w{self.winner}"
        fields.append(f"result={result}")
        fields.append(f"rng={self.rng.seed}:{self.rng.counter}")
        if self.events:
            fields.append("ev=" + ",".join(str(e) for e in self.events))
        return " ".join(fields)

    def view(self, seat: int | None) -> EverestState:
        """Without the dice and, while planning, without the other seats' plans (shown
        as `?`). Playing on a view resolves the hidden plans as dazed."""
        plans = self.plans
        if self.stage is Stage.PLAN:
            plans = tuple(p if s == seat or p is None else HIDDEN for s, p in enumerate(self.plans))
        return replace(self, plans=plans, rng=Rng(0, 0))

    # --- builder --------------------------------------------------------------------------
    def move_tokens(self, move: Move) -> tuple[str, ...]:
        """A plan's builder tokens: one per action, kind and direction together (`4E`,
        `0N`, and `sE` for a snowball, whose coin is the lowest the plan leaves free)."""
        if isinstance(move, Plan):
            return tuple(
                f"s{DIRS[a & 3]}" if a & SNOW else f"{COIN_CHARS[a >> 3]}{DIRS[a & 3]}"
                for a in move.actions
            )
        return (str(move),)

    def move_options(self, seat: int, prefix: tuple[str, ...] = ()) -> MoveOptions[Move]:
        if seat not in self.to_act:
            return MoveOptions(prefix, (), None, t("Nothing to choose now."))
        if self.stage is Stage.PLAN:
            return self._plan_options(seat, prefix)
        if prefix:
            move = self.parse_move(seat, " ".join(prefix))
            if isinstance(move, Pick):
                return self._pick_browser(prefix, move.number)
            return MoveOptions(prefix, (), move, t("Confirm."))
        labels = self._option_labels(seat)
        options = tuple(Option(str(m), labels.get(str(m), str(m))) for m in self.legal_moves(seat))
        return MoveOptions(prefix, options, None, self._request(seat))

    def _pick_browser(self, prefix: tuple[str, ...], number: int) -> MoveOptions[Move]:
        """One outcome of a roll-off on show, with its neighbours to look at next."""
        options = self.pick_options()
        browse = []
        if number > 1:
            browse.append(Option(f"pick {number - 1}", str(t("◀ outcome {n}", n=number - 1))))
        if number < len(options):
            browse.append(Option(f"pick {number + 1}", str(t("outcome {n} ▶", n=number + 1))))
        return MoveOptions(
            prefix,
            (),
            Pick(number),
            t("Outcome {number} of {count}.", number=number, count=len(options)),
            options[number - 1].label,
            tuple(browse),
            t("Pick this"),
        )

    def _option_labels(self, seat: int) -> dict[str, str]:
        if self.stage is Stage.PICK:
            return {f"pick {o.number}": str(o.label) for o in self.pick_options()}
        if self.stage is Stage.FLEE:
            roll = self._flee_choice(seat).roll
            labels = {}
            for d in range(4):
                other = _occupant(self.pos, NEXT[self.pos[seat]][d])
                name = DIRS[d] if other is None else SEAT_TITLES[other]
                if roll == 1:
                    labels[f"flee {DIRS[d]}"] = str(t("roar back at {name}", name=name))
                else:
                    labels[f"flee {DIRS[d]}"] = str(
                        t("run from {name} ({d})", name=name, d=DIR_NAMES[OPPOSITE[d]])
                    )
            return labels
        if self.stage is Stage.END:
            labels = {"heal": str(t("heal at home")), "stay": str(t("stay"))}
            for move in self.legal_moves(seat):
                if isinstance(move, Aside):
                    labels[str(move)] = str(
                        t("set aside {coins}", coins=coins_text(move.coins, " "))
                    )
            return labels
        return {}

    def _plan_options(self, seat: int, prefix: tuple[str, ...]) -> MoveOptions[Move]:
        """One choice per slot: an unused coin's value side (roar or move) or a snowball,
        with its direction (`4E`, `0N`, `sW`); the preview says where the yeti ends up."""
        avail = self.available(seat)
        need = min(3, coin_count(avail))
        actions = self.builder_actions(seat, prefix)
        if len(actions) > need:
            raise InvalidMoveError(
                t("{move}: a plan has {need} action(s).", move=" ".join(prefix), need=need)
            )
        preview = self._plan_preview_text(seat, actions) if actions else None
        if len(actions) == need:
            plan = Plan(actions)
            return MoveOptions(
                prefix, (), plan, t("Send this plan?"), preview, confirm=t("Send this plan")
            )
        used = {a >> 3 for a in actions if not a & SNOW}
        kinds = [c for c in range(6) if avail >> c & 1 and c not in used]
        options = tuple(
            _action_option(kind, d) for kind in (*kinds, SNOWBALL_KIND) for d in range(4)
        )
        prompt = t(
            "Action {slot} of {need}: roar, move or throw a snowball, and which way?",
            slot=len(actions) + 1,
            need=need,
        )
        return MoveOptions(prefix, options, None, prompt, preview)

    def builder_actions(self, seat: int, prefix: Sequence[str]) -> tuple[int, ...]:
        """The action codes a plan builder's tokens have chosen so far (snowballs take the
        lowest coins the plan leaves free). Raises InvalidMoveError for tokens that are
        not actions, or coins the seat cannot use."""
        avail = self.available(seat)
        slots = _builder_slots(tuple(prefix), avail)
        actions = canonical_actions(slots, avail)
        if actions is None:
            raise InvalidMoveError(
                t("{move}: no coin left for that snowball.", move=" ".join(prefix))
            )
        return actions

    def plan_preview(self, seat: int, actions: Sequence[int]) -> PlanPreview:
        """What `actions` of `seat`'s plan would do if the other yeti stood still and
        nobody roared back: each action's events in turn, then where everybody ends."""
        pos, dmg = list(self.pos), list(self.damage)
        steps: list[tuple[Event, ...]] = []
        for a in actions:
            ev: list[Event] = []
            here, d = pos[seat], a & 3
            if here == OFF:
                pass  # off the board: the rest of the round is lost
            elif a & SNOW:
                _volley(pos, dmg, [(seat, d)], ev)
            elif a >> 3:
                _move(pos, dmg, seat, d, a >> 3, ev)
            else:
                ev.append(Roared(seat, here, d))
            steps.append(tuple(ev))
        return PlanPreview(tuple(steps), tuple(pos), tuple(dmg))

    def _plan_preview_text(self, seat: int, actions: Sequence[int]) -> Text:
        """`move 4 east, then roar north: if nobody gets in the way, your yeti ends on
        d4, height 3.`"""
        after = self.plan_preview(seat, actions)
        plan = describe_plan(actions)
        end = after.pos[seat]
        taken = after.damage[seat] - self.damage[seat]
        if end == OFF:
            where = t("off the board (it loses the rest of the round)")
        elif taken:
            where = t(
                "on {square}, height {height}, with {n} more damage",
                square=square_name(end),
                height=HEIGHTS[end],
                n=taken,
            )
        else:
            where = t("on {square}, height {height}", square=square_name(end), height=HEIGHTS[end])
        if _meets_step_up(seat, actions, after):
            where = t("{where} (a step up costs 2)", where=where)
        return t(
            "{plan}: if nobody gets in the way, your yeti ends {where}.", plan=plan, where=where
        )

    def move_description(self, seat: int, move: Move) -> Text | None:
        """Where a plan leaves the yeti if nobody gets in the way (`ends on d4, height
        5`); the outcome a roll-off pick leads to, in the words of its browser (`Red to
        g1 (+1 damage)`); what a flight or an end-of-round choice does."""
        if isinstance(move, Pick):
            if self.stage is not Stage.PICK or seat not in self.to_act:
                return None
            options = self.pick_options()
            if not 1 <= move.number <= len(options):
                return None
            # The browser's label is "{number}: {parts}"; beside `pick N` the number is
            # said already, so only the parts (each yeti's fate) are told.
            label = options[move.number - 1].label
            parts = label.params.get("parts")
            return parts if isinstance(parts, Text) else label
        if isinstance(move, Plan):
            if self.stage is not Stage.PLAN or seat not in self.to_act:
                return None
            return self._plan_end_text(seat, move.actions)
        if isinstance(move, Flee) and self.stage is Stage.FLEE and seat in self.to_act:
            other = _occupant(self.pos, NEXT[self.pos[seat]][move.direction])
            name = DIRS[move.direction] if other is None else SEAT_TITLES[other]
            if self._flee_choice(seat).roll == 1:
                return t("roar back at {name}", name=name)
            return t("run from {name} ({d})", name=name, d=DIR_NAMES[OPPOSITE[move.direction]])
        if isinstance(move, Heal):
            return t("go home and get every coin back")
        if isinstance(move, Stay):
            return t("stay where you are, without the coins set aside")
        if isinstance(move, Aside):
            kept = self.available(seat) & ~move.coins
            return t("plan with {coins} next round", coins=coins_text(kept, " ") or "-")
        return None

    def _plan_end_text(self, seat: int, actions: Sequence[int]) -> Text:
        after = self.plan_preview(seat, actions)
        end = after.pos[seat]
        if end == OFF:
            where = t("ends off the board")
        elif end == self.pos[seat]:
            where = t(
                "stays on {square}, height {height}", square=square_name(end), height=HEIGHTS[end]
            )
        elif end in PEAK:
            where = t("ends on the peak, {square}", square=square_name(end))
        else:
            where = t(
                "ends on {square}, height {height}", square=square_name(end), height=HEIGHTS[end]
            )
        if _meets_step_up(seat, actions, after):
            where = t("{where} (a step up costs 2)", where=where)
        taken = after.damage[seat] - self.damage[seat]
        if not taken:
            return where
        return tn("{where}, +{n} damage", "{where}, +{n} damage", n=taken, where=where)

    def move_order(self, seat: int) -> Sequence[int] | None:
        """Plans in the order the computer player tries them: by where a lone yeti
        ends (high ground, the peak most, no falls), one plan of each climb before a
        second of any."""
        if self.stage is not Stage.PLAN or seat not in self.to_act or self.pos[seat] == OFF:
            return None
        return plan_ranking(self.pos[seat], self.available(seat))

    # --- computer players and deadlines ---------------------------------------------------
    def evaluate(self, seat: int) -> float:
        if self.stage is Stage.OVER:
            if self.winner is None:
                return 0.0
            return 100.0 if self.winner == seat else -100.0
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
        if self.stage is Stage.PLAN:
            return Plan(())
        if self.stage is Stage.FLEE:
            return Flee(self._flee_choice(seat).toward[0])
        if self.stage is Stage.PICK:
            return Pick(1)
        if self.endq[seat] is EndChoice.HEAL_ASK:
            return Stay()
        return Aside(highest_coins(self.available(seat), self.damage[seat]))


#: Discord cuts a button's label at 80 characters.
MAX_LABEL = 80


def _outcome_label(
    number: int,
    pos: Sequence[int],
    damage: Sequence[int],
    after: Sequence[int],
    after_damage: Sequence[int],
    seats: Sequence[int],
) -> Text:
    """An outcome in words for `seats`, in fewer words if it must to fit a button:
    "Green off the board (+1 damage)", else "Green off (+1 damage)", else "Green off +1"."""
    tiers: list[list[Text]] = [[], [], []]
    for s in seats:
        name, extra = SEAT_TITLES[s], after_damage[s] - damage[s]
        square = _place_words(after[s])
        if after[s] == OFF:
            parts = [t("{name} off the board", name=name), t("{name} off", name=name)]
        elif after[s] == pos[s]:
            parts = [t("{name} stays", name=name)] * 2
        else:
            parts = [t("{name} to {square}", name=name, square=square)] * 2
        short = t("{name} {square}", name=name, square=square)
        if extra:
            parts = [t("{part} (+{n} damage)", part=part, n=extra) for part in parts]
            short = t("{name} {square} +{n}", name=name, square=square, n=extra)
        tiers[0].append(parts[0])
        tiers[1].append(parts[1])
        tiers[2].append(short)
    for words in tiers[:2]:
        label = t("{number}: {parts}", number=number, parts=joined(words, "; "))
        if len(str(label)) <= MAX_LABEL:
            return label
    return t("{number}: {parts}", number=number, parts=joined(tiers[2]))


def _quote(move: Move, text: str | None) -> str:
    """How a refusal quotes a move: as the player wrote it, else in notation."""
    return str(move) if text is None else text


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


def _run_field(run: Run | None) -> str:
    return "-" if run is None else f"{DIRS[run.direction]}{run.points}"


def _choice_field(choice: FleeChoice | None) -> str:
    if choice is None:
        return "-"
    roll = "A" if choice.roll == 1 else str(choice.roll)
    return roll + "".join(DIRS[d] for d in choice.toward)


def _action_option(kind: int, d: int) -> Option:
    """A plan builder's choice: a kind of action (a coin's value side, or a snowball)
    toward a direction, grouped by its kind when there are too many to show at once."""
    way = DIR_NAMES[d]
    if kind == SNOWBALL_KIND:
        token = f"s{DIRS[d]}"
        label, group = t("snowball {way}", way=way), t("snowball …")
    elif kind == 0:
        token = f"0{DIRS[d]}"
        label, group = t("roar {way}", way=way), t("roar …")
    else:
        token = f"{COIN_CHARS[kind]}{DIRS[d]}"
        label = t("move {n} {way}", n=kind, way=way)
        group = t("move 1 (ace) …") if kind == 1 else t("move {n} …", n=kind)
    return Option(token, str(label), group_label=str(group))


def _builder_slots(prefix: tuple[str, ...], avail: int) -> list[tuple[int, int]]:
    """The (kind, direction) slots a builder prefix has filled, checked as it goes. The
    prefix is read like a typed plan (`4E sN`, or the older `4 E s N`); a snowball's coin
    is left to `canonical_actions`."""
    raw = " ".join(prefix)
    slots: list[tuple[int, int]] = []
    for coin, snow, d in _parse_plan_words(list(prefix), raw):
        if snow:
            slots.append((SNOWBALL_KIND, d))
            continue
        if not avail >> coin & 1 or any(k == coin for k, _ in slots):
            raise InvalidMoveError(
                t(
                    "{move}: {tok} is not a coin you can use here.",
                    move=raw,
                    tok=COIN_CHARS[coin],
                )
            )
        slots.append((coin, d))
    return slots


def describe_plan(actions: Sequence[int]) -> Text:
    """A plan in words: `move 4 east, then move 2 north, then snowball east`."""
    words: list[Text] = []
    for a in actions:
        coin, way = a >> 3, DIR_NAMES[a & 3]
        if a & SNOW:
            words.append(t("snowball {way}", way=way))
        elif coin == 0:
            words.append(t("roar {way}", way=way))
        else:
            words.append(t("move {n} {way}", n=coin, way=way))
    if not words:
        return t("dazed")
    plan = words[0]
    for word in words[1:]:
        plan = t("{before}, then {after}", before=plan, after=word)
    return plan


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
            if state.stage is Stage.END and 0 <= seat < state.players:
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
    """(coin, snowball, direction) per action; coin -1 is a builder snowball (`sN`, or
    `s N`) whose coin is still to be chosen."""
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
        elif len(word) == 2 and word[0] == "s" and word[1] in "nesw":
            actions.append((-1, True, "nesw".index(word[1])))  # the builder's `sE`
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


def _occupant(pos: Sequence[int], sq: int) -> int | None:
    """The seat of the yeti on `sq`, if any."""
    if sq == OFF:
        return None
    for seat, p in enumerate(pos):
        if p == sq:
            return seat
    return None


def _meets_step_up(seat: int, actions: Sequence[int], preview: PlanPreview) -> bool:
    """Whether a move of `seat`'s plan, as `preview` carries it out, goes up a step (2
    points, RULES 3(b)8) or stops at one for want of them: where a plan's preview must say
    what a step up costs, or its end square reads as a miscount."""
    for a, events in zip(actions, preview.steps, strict=False):
        if a & SNOW or not a >> 3:
            continue
        for event in events:
            if not isinstance(event, Moved) or event.seat != seat:
                continue
            here, used = event.start, 0
            while here != event.end:
                ahead = NEXT[here][event.direction]
                rise = HEIGHTS[ahead] - HEIGHTS[here]
                if rise == 1:
                    return True
                used, here = used + 1, ahead
            ahead = NEXT[here][event.direction]
            if ahead != OFF and HEIGHTS[ahead] - HEIGHTS[here] == 1 and used < a >> 3:
                return True
    return False


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
                    ev.insert(mark, Moved(seat, start, here, d))
                ev.append(WentOff(seat, here, d))
            return
        rise = heights[nxt] - heights[here]
        if rise >= 2:
            break  # a cliff from below: stop, the rest is lost
        falling = rise <= -2
        cost = 2 if rise == 1 else 1
        other = _occupant(pos, nxt) if nxt in pos else None
        if other is not None:
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
                ev.append(Pushed(other, nxt, beyond, d))
            if beyond == OFF:
                pos[other] = OFF
                if ev is not None:
                    ev.append(WentOff(other, nxt, d))
            else:
                pos[other] = beyond
                if heights[beyond] - heights[nxt] <= -2:
                    dmg[other] += 1
                    if ev is not None:
                        ev.append(Fell(other, beyond))
        elif mp < cost:
            break  # a step up with 1 point left: stop (RULES 3(b)8)
        else:
            mp -= cost
        here = nxt
        pos[seat] = here
        if falling:
            dmg[seat] += 1
            if ev is not None:
                ev.append(Fell(seat, here))
    if ev is not None:
        ev.insert(mark, Moved(seat, start, here, d))


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
        target: int | None = None
        rising = False  # the ball stopped at a slope that rises
        while True:
            nxt = NEXT[here][d]
            if nxt == OFF:
                break
            if heights[nxt] > heights[here]:
                target = _occupant(pos, nxt)
                if target is not None:
                    here = nxt
                rising = True
                break
            here = nxt
            target = _occupant(pos, here)
            if target is not None:
                break
        if ev is not None:
            missed = Flight.SPLAT if rising else Flight.LOST
            ev.append(Threw(seat, start, here, d, missed if target is None else Flight.HIT))
        if target is not None:
            hits.setdefault(target, []).append(d)
    pushes: dict[int, int] = {}
    for target in sorted(hits):
        dirs = hits[target]
        dmg[target] += len(dirs)
        if ev is not None:
            ev.extend(Hit(target, pos[target], d) for d in dirs)
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
            ev.append(Pushed(target, frm, beyond, d))
            if beyond == OFF:
                ev.append(WentOff(target, frm, d))
        if beyond != OFF and heights[beyond] - heights[frm] <= -2:
            dmg[target] += 1
            if ev is not None:
                ev.append(Fell(target, beyond))


#: The movements of a conflict, each (seat, direction, points).
Moves = list[tuple[int, int, int]]
#: The snowballs of a conflict, each (seat, direction).
Throws = list[tuple[int, int]]


def _actors(
    pos: Sequence[int],
    runs: Sequence[Run | None],
    plans: Sequence[tuple[int, ...] | None],
    step: int,
    conflict: Conflict,
) -> tuple[Moves, Throws]:
    """The movements and throws to settle: the run-aways or the step's planned actions."""
    moves: Moves = []
    throws: Throws = []
    running = conflict is Conflict.RUN
    for seat, here in enumerate(pos):
        if here == OFF:
            continue
        if running:
            run = runs[seat]
            if run is not None:
                moves.append((seat, run.direction, run.points))
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
) -> list[ConflictOutcome]:
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
    return [ConflictOutcome(key[0], key[1], order) for key, order in ranked]


@lru_cache(maxsize=32)
def _pending_outcomes(
    pos: tuple[int, ...],
    damage: tuple[int, ...],
    moves: tuple[tuple[int, int, int], ...],
    throws: tuple[tuple[int, int], ...],
) -> tuple[ConflictOutcome, ...]:
    """The distinct outcomes of a conflict waiting for its roll-off winner. Listing the
    winner's moves, checking a pick and carrying it out each need them: they are found
    once, as they try every order of the actors."""
    return tuple(_distinct_outcomes(list(pos), list(damage), list(moves), list(throws)))


#: The state's fields by name, in order, and a reader of their values.
_STATE_FIELDS = tuple(f.name for f in fields(EverestState))
_state_values = attrgetter(*_STATE_FIELDS)


class _Work:
    """A mutable copy of a state while `play` resolves the round: every field of the
    state under its own name, its tuples as lists. The copy goes by the dataclass's
    fields, so a field added to the state is carried along."""

    # The fields as this copy holds them (what each means: see EverestState).
    players: int
    cap: int
    round: int
    stage: Stage
    step: int
    pos: list[int]
    aside: list[int]
    damage: list[int]
    peak: int | None
    plans: list[tuple[int, ...] | None]
    runs: list[Run | None]
    roars: list[RoarBack]
    choice: list[FleeChoice | None]
    conflict: Conflict | None
    picker: int | None
    endq: list[EndChoice]
    chosen: list[int]
    winner: int | None
    events: list[Event]
    rng: Rng

    def __init__(self, s: EverestState) -> None:
        copy = self.__dict__
        for name, value in zip(_STATE_FIELDS, _state_values(s), strict=True):
            copy[name] = [*value] if type(value) is tuple else value
        # The events are those of this resolution only.
        self.events = []

    def freeze(self) -> EverestState:
        # The copy holds exactly the fields, in the dataclass's order.
        values: list[Any] = [tuple(v) if type(v) is list else v for v in vars(self).values()]
        return EverestState(*values)

    def die(self) -> int:
        """A piecepack die: 0 null, 1 ace, 2-5."""
        value, self.rng = self.rng.below(6)
        return value

    def waiting_to_flee(self) -> bool:
        return any(choice is not None for choice in self.choice)

    # --- steps ----------------------------------------------------------------------------
    def reveal(self) -> None:
        # A view (a computer player's guess) resolves the plans it cannot see as dazed.
        self.plans = [() if p == HIDDEN else p for p in self.plans]
        self.events.append(PlansRevealed())

    def start_step(self) -> None:
        self.stage = Stage.ROAR
        self.events.append(StepStarted(self.step + 1))
        # Each planned roar: (roarer, direction, None: it answers nobody).
        wave: list[tuple[int, int, int | None]] = []
        for seat in range(self.players):
            plan = self.plans[seat] or ()
            if self.pos[seat] != OFF and self.step < len(plan):
                a = plan[self.step]
                if not a & SNOW and a >> 3 == 0:
                    wave.append((seat, a & 3, None))
                    self.events.append(Roared(seat, self.pos[seat], a & 3))
        if wave:
            self.roll_wave(wave)
            if self.waiting_to_flee():
                self.stage = Stage.FLEE
                return
            self.after_wave()
        else:
            self.act()

    def roll_wave(self, wave: Sequence[tuple[int, int, int | None]]) -> None:
        """Find who one wave of roars (roarer, direction, seat it answers) affects, roll for
        them, and record the results; choices between several roarers are left in
        `choice` (RULES 3(b)13-16, 25-27)."""
        pos = self.pos
        affected: dict[int, list[tuple[int, int | None]]] = {}  # seat -> [(roarer, answers)]
        for y in range(self.players):
            if pos[y] == OFF or self.runs[y] is not None:
                continue
            pointed = [(r, a) for r, d, a in wave if r != y and NEXT[pos[r]][d] == pos[y]]
            if pointed:
                affected[y] = pointed
                continue
            near = [(r, a) for r, d, a in wave if r != y and pos[r] in NEXT[pos[y]]]
            if near:
                check = self.die()
                self.events.append(Checked(y, check))
                if check == 0:
                    affected[y] = near
        for y in sorted(affected):
            roll = self.die()
            self.events.append(Rolled(y, roll))
            sources = affected[y]
            if roll == 1:
                sources = [(r, a) for r, a in sources if a != y]
            if roll == 0 or not sources:
                self.events.append(Shivered(y))
                continue
            if len(sources) > 1:
                toward = sorted(NEXT[pos[y]].index(pos[r]) for r, _ in sources)
                self.choice[y] = FleeChoice(roll, tuple(toward))
                continue
            self.resolve_roll(y, roll, NEXT[pos[y]].index(pos[sources[0][0]]))

    def resolve_roll(self, seat: int, roll: int, toward: int) -> None:
        """`seat` rolled `roll` against the roarer lying in direction `toward`."""
        if roll == 1:
            roarer = _occupant(self.pos, NEXT[self.pos[seat]][toward])
            assert roarer is not None  # a roarer stands next to `seat` in that direction
            self.roars.append(RoarBack(seat, toward, roarer))
        else:
            away = OPPOSITE[toward]
            self.runs[seat] = Run(away, roll)
            self.events.append(Fled(seat, away, roll))

    def answer_flee(self, seat: int, toward: int) -> None:
        choice = self.choice[seat]
        assert choice is not None  # `play` checked that `seat` is to choose
        self.choice[seat] = None
        self.resolve_roll(seat, choice.roll, toward)
        if not self.waiting_to_flee():
            self.after_wave()

    def after_wave(self) -> None:
        """Roll the next waves of roar-backs, then move the yeti that run away."""
        self.stage = Stage.ROAR
        while self.roars:
            wave = sorted(self.roars)
            self.roars = []
            for seat, d, answered in wave:
                self.events.append(RoaredBack(seat, self.pos[seat], d, answered))
            self.roll_wave(wave)
            if self.waiting_to_flee():
                self.stage = Stage.FLEE
                return
        if any(run is not None for run in self.runs):
            if self.settle(Conflict.RUN):
                return
            self.runs = [None] * self.players
        self.act()

    def act(self) -> None:
        if self.settle(Conflict.ACT):
            return
        self.next_step()

    def next_step(self) -> None:
        if self.step < 2:
            self.step += 1
            self.start_step()
        else:
            self.end_round()

    def settle(self, conflict: Conflict) -> bool:
        """Carry out the movements of a conflict; True when a roll-off winner must now pick
        among distinct outcomes (RULES 3(b)17, 32)."""
        moves, throws = _actors(self.pos, self.runs, self.plans, self.step, conflict)
        if not moves and not throws:
            return False
        found = _distinct_outcomes(self.pos, self.damage, moves, throws)
        if len(found) == 1:
            _run_order(self.pos, self.damage, moves, throws, found[0].order, self.events)
            return False
        rollers = list(range(self.players))
        while True:
            dice: list[int | None] = [None] * self.players
            for seat in rollers:
                dice[seat] = self.die()
            self.events.append(RolledOff(tuple(dice)))
            best = max(die for die in dice if die is not None)
            rollers = [s for s in rollers if dice[s] == best]
            if len(rollers) == 1:
                break
        self.stage = Stage.PICK
        self.conflict = conflict
        self.picker = rollers[0]
        return True

    def apply_pick(self, number: int, order: Sequence[int]) -> None:
        """Carry out outcome `number` of the pending conflict: its actors in `order`."""
        conflict, picker = self.conflict, self.picker
        assert conflict is not None and picker is not None  # the stage is pick
        moves, throws = _actors(self.pos, self.runs, self.plans, self.step, conflict)
        self.events.append(Picked(picker, number))
        _run_order(self.pos, self.damage, moves, throws, order, self.events)
        self.stage = Stage.ROAR
        self.conflict = None
        self.picker = None
        if conflict is Conflict.RUN:
            self.runs = [None] * self.players
            self.act()
        else:
            self.next_step()

    # --- end of the round -----------------------------------------------------------------
    def end_round(self) -> None:
        """Damage, then heal-or-aside choices and forced returns (RULES 3(b)18-21, 30)."""
        self.stage = Stage.END
        for seat in range(self.players):
            avail = coin_count(ALL_COINS & ~self.aside[seat])
            need = self.damage[seat]
            if self.pos[seat] == OFF:
                # Off the edge: home without healing; damage still sets coins aside.
                if need >= avail:
                    self.chosen[seat] = ALL_COINS & ~self.aside[seat]
                elif need:
                    self.endq[seat] = EndChoice.ASIDE_ASK
            elif need >= avail:
                self.endq[seat] = EndChoice.HEALS  # the last coin is lost: home to heal
            elif self.aside[seat] or need:
                self.endq[seat] = EndChoice.HEAL_ASK
        self.after_end_choice()

    def after_end_choice(self) -> None:
        if any(q in _ASKING for q in self.endq):
            self.stage = Stage.END
            return
        self.finish_round()

    def finish_round(self) -> None:
        returning = []
        for seat in range(self.players):
            if self.endq[seat] is EndChoice.HEALS:
                self.aside[seat] = 0
                self.events.append(Healed(seat))
                returning.append(seat)
            else:
                if self.chosen[seat]:
                    self.aside[seat] |= self.chosen[seat]
                    self.events.append(SetAside(seat, self.chosen[seat]))
                if self.pos[seat] == OFF:
                    returning.append(seat)
        origin = {seat: self.pos[seat] for seat in returning}
        for seat in returning:
            self.pos[seat] = OFF
        reserved = {HOMES[seat] for seat in returning}
        for seat in returning:
            home = HOMES[seat]
            occupant = _occupant(self.pos, home)
            if occupant is not None:
                spot = _nearest_empty(home, self.pos, reserved)
                self.pos[occupant] = spot
                self.events.append(Bumped(occupant, home, spot))
            self.pos[seat] = home
            self.events.append(WentHome(seat, origin[seat], home))
        self.endq = [EndChoice.NONE] * self.players
        self.chosen = [0] * self.players
        # The round's damage is settled (coins set aside, or every coin back): none is
        # left to show, on the last board too (RULES 3(b)18-21).
        self.damage = [0] * self.players
        on_peak = [s for s in range(self.players) if self.pos[s] in PEAK]
        if self.peak is not None and on_peak == [self.peak]:
            self.winner = self.peak
            self.stage = Stage.OVER
            self.events.append(Won(self.peak))
            return
        if self.cap and self.round >= self.cap:
            self.stage = Stage.OVER
            self.events.append(Drawn())
            return
        self.round += 1
        self.start_round()

    def start_round(self) -> None:
        self.events.append(RoundStarted(self.round))
        self.stage = Stage.PLAN
        self.step = 0
        self.damage = [0] * self.players
        on_peak = [s for s in range(self.players) if self.pos[s] in PEAK]
        self.peak = on_peak[0] if len(on_peak) == 1 else None
        self.plans = [None if ALL_COINS & ~self.aside[s] else () for s in range(self.players)]
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
        raise _bad(t("plans: {why}", why=exc.text)) from None
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
#: Largest round cap the notation accepts (the standard cap is 30).
MAX_CAP = 999
#: Most damage one yeti may show: far more than a round can deal.
MAX_DAMAGE = 99
RNG_MAX = (1 << 64) - 1


def parse_state(text: str) -> EverestState:
    words = text.split()
    if not words or words[0] != "everest":
        raise _bad(t("it starts with the word everest."))
    given: dict[str, str] = {}
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
        if key in given:
            raise _bad(t("{key}= is given twice.", key=key))
        given[key] = value
    missing = [key for key in _REQUIRED if key not in given]
    if missing:
        raise _bad(t("missing {keys}.", keys=", ".join(f"{key}=" for key in missing)))
    n = _number(t("n (players)"), given["n"], 2, 4)

    def seats(key: str) -> list[str]:
        raw = given.get(key, ",".join("-" * n))
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

    cap = _number("cap", given["cap"], 0, MAX_CAP)
    round_ = _number("round", given["round"], 1, cap or MAX_ROUND)
    stage_text = given["stage"]
    if stage_text not in POSITION_STAGES:
        raise _bad(
            t(
                "stage={stage}: expected one of {stages}.",
                stage=stage_text,
                stages=", ".join(POSITION_STAGES),
            )
        )
    step = _number("step", given["step"], 1, 3)
    pos = tuple(_square("pos", x) for x in seats("pos"))
    on_board = [p for p in pos if p != OFF]
    if len(set(on_board)) != len(on_board):
        raise _bad(t("pos: two yeti stand on one square."))
    runs: list[Run | None] = []
    for item in seats("runs"):
        if item == "-":
            runs.append(None)
        elif re.fullmatch(r"[NESW][2-5]", item):
            runs.append(Run(DIRS.index(item[0]), int(item[1])))
        else:
            raise _bad(
                t(
                    "runs: {item!r} is not - or a direction and 2 to 5 points, like S4.",
                    item=item,
                )
            )
    choice: list[FleeChoice | None] = []
    for item in seats("choice"):
        if item == "-":
            choice.append(None)
        elif re.fullmatch(r"[A2-5][NESW]+", item):
            roll = 1 if item[0] == "A" else int(item[0])
            choice.append(FleeChoice(roll, tuple(d for d in range(4) if DIRS[d] in item[1:])))
        else:
            raise _bad(
                t(
                    "choice: {item!r} is not - or a roll (A, 2-5) and the roarers' "
                    "directions, like 3EW.",
                    item=item,
                )
            )
    roars = []
    for item in given["roars"].split(",") if "roars" in given else []:
        match = re.fullmatch(r"([0-9])([NESW])([0-9])", item)
        if not match:
            raise _bad(
                t(
                    "roars: {item!r} is not a seat, a direction and the seat it answers, like 1W0.",
                    item=item,
                )
            )
        roars.append(
            RoarBack(
                _seat("roars", match.group(1), n),
                DIRS.index(match.group(2)),
                _seat("roars", match.group(3), n),
            )
        )
    conflict: Conflict | None = None
    picker: int | None = None
    if "pick" in given:
        match = re.fullmatch(r"(run|act):([0-9])", given["pick"])
        if not match:
            raise _bad(
                t("pick={value}: expected run:N or act:N (N the seat).", value=given["pick"])
            )
        conflict, picker = Conflict(match.group(1)), _seat("pick", match.group(2), n)
    endq = []
    for item in seats("end"):
        if len(item) != 1 or item not in _END_CHARS:
            raise _bad(t("end: {item!r} is not one of - h a H.", item=item))
        endq.append(EndChoice(_END_CHARS.index(item)))
    result_text = given["result"]
    winner: int | None = None
    if result_text.startswith("w"):
        winner = _seat("result", result_text[1:], n)
    elif result_text not in ("-", "draw"):
        raise _bad(t("result={value}: expected -, draw or w and a seat.", value=result_text))
    seed, sep, counter = given["rng"].partition(":")
    if not sep:
        raise _bad(t("rng={value}: expected seed:counter.", value=given["rng"]))
    state = EverestState(
        players=n,
        cap=cap,
        round=round_,
        stage=Stage(stage_text),
        step=step - 1,
        pos=pos,
        aside=tuple(_coins("aside", x) for x in seats("aside")),
        damage=tuple(_number("dmg", x, 0, MAX_DAMAGE) for x in seats("dmg")),
        peak=None if given["peak"] == "-" else _seat("peak", given["peak"], n),
        plans=tuple(_plan_from_field(x) for x in seats("plans")),
        runs=tuple(runs),
        roars=tuple(roars),
        choice=tuple(choice),
        conflict=conflict,
        picker=picker,
        endq=tuple(endq),
        chosen=tuple(_coins("chosen", x) for x in seats("chosen")),
        winner=winner,
        events=tuple(_parse_event(e, n) for e in given["ev"].split(",")) if "ev" in given else (),
        rng=Rng(
            _number(t("rng seed"), seed, 0, RNG_MAX), _number(t("rng counter"), counter, 0, RNG_MAX)
        ),
    )
    _check_consistent(state, decided=result_text != "-")
    return state


def _check_consistent(s: EverestState, decided: bool) -> None:
    """The fields agree with the stage: every seat that must act can, and nothing waits
    that the stage never reads. `decided`: the notation gave a result (a winner or a
    draw)."""
    seats, stage = range(s.players), s.stage
    if (stage is Stage.PLAN and s.step != 0) or (stage in (Stage.END, Stage.OVER) and s.step != 2):
        raise _bad(t("step: while planning it is 1; at the end of a round and after it, 3."))
    if stage is Stage.PLAN:
        if all(p is not None for p in s.plans):
            raise _bad(t("plans: while planning, some yeti has yet to plan (-)."))
    elif any(p is None or p == HIDDEN for p in s.plans):
        raise _bad(t("plans: once the plans are revealed every yeti has one (no - or ?)."))
    if stage is Stage.PLAN:
        _check_round_start(s)
    running = [y for y in seats if s.runs[y] is not None]
    if running and stage not in (Stage.FLEE, Stage.PICK):
        raise _bad(t("runs: yeti only run away while roars or a conflict are settled."))
    if any(s.pos[y] == OFF for y in running):
        raise _bad(t("runs: a yeti off the board cannot run away."))
    if s.roars and stage is not Stage.FLEE:
        raise _bad(t("roars: roar-backs only wait while roarers are chosen (stage=flee)."))
    if any(s.pos[r.seat] == OFF or s.pos[r.answers] == OFF or r.seat == r.answers for r in s.roars):
        raise _bad(t("roars: both yeti stand on the board and they are different yeti."))
    if (stage is Stage.FLEE) != any(choice is not None for choice in s.choice):
        raise _bad(t("choice: stage=flee goes exactly with a yeti choosing a roarer."))
    for y in seats:
        choice = s.choice[y]
        if choice is not None and (s.pos[y] == OFF or any(
            _occupant(s.pos, NEXT[s.pos[y]][d]) is None for d in choice.toward
        )):  # fmt: skip
            raise _bad(t("choice: each direction in it points at a yeti next to the one choosing."))
    if (stage is Stage.PICK) != (s.conflict is not None):
        raise _bad(t("pick: stage=pick goes exactly with pick=run:N or pick=act:N."))
    if stage is Stage.END and not any(q in _ASKING for q in s.endq):
        raise _bad(t("end: at the end of a round some yeti still chooses (h or a)."))
    if stage is not Stage.END and (any(s.endq) or any(s.chosen)):
        raise _bad(t("end and chosen are only used at the end of a round."))
    for y in seats:
        avail = s.available(y)
        coins, need = coin_count(avail), s.damage[y]
        if s.chosen[y] & ~avail:
            raise _bad(t("chosen: only coins that are not set aside can be chosen."))
        if s.endq[y] is EndChoice.ASIDE_ASK and not 0 < need < coins:
            raise _bad(t("end: a sets coins aside, so the yeti took damage and has more coins."))
        if s.endq[y] is EndChoice.HEAL_ASK and (s.pos[y] == OFF or need >= coins):
            raise _bad(t("end: h (heal or stay) is for a yeti on the board that keeps a coin."))
    if (stage is Stage.OVER) != decided:
        raise _bad(t("result: a game is over (stage=over) exactly when it has a result."))
    if decided and s.winner is None and (not s.cap or s.round != s.cap):
        raise _bad(t("result: a draw only comes in the last round of a capped game."))


def _check_round_start(s: EverestState) -> None:
    """While the yeti plan, nothing of the round has happened yet: every yeti stands on
    the mountain (one that went off went home at the end of the last round), none has
    taken damage, and `peak` is the yeti alone on the peak tile (RULES 3(b)21), if one is."""
    if OFF in s.pos:
        raise _bad(
            t(
                "pos: while planning every yeti stands on the mountain (a yeti that went "
                "off it went home at the end of the round), so none is off."
            )
        )
    if any(s.damage):
        raise _bad(t("dmg: while planning no yeti has taken damage yet this round (all 0)."))
    on_peak = [y for y in range(s.players) if s.pos[y] in PEAK]
    alone = on_peak[0] if len(on_peak) == 1 else None
    if s.peak is not None and s.peak != alone:
        raise _bad(
            t(
                "peak={seat}: while planning it names the yeti that stands alone on the peak "
                "tile (d3, e3, d4, e4), and yeti {seat} does not.",
                seat=s.peak,
            )
        )
    if s.peak is None and alone is not None:
        # The yeti alone on the peak as the round starts has claimed it: a position that
        # forgets the claim would deny it the win at the end of the round.
        raise _bad(
            t(
                "peak=-: while planning it names the yeti that stands alone on the peak "
                "tile (d3, e3, d4, e4), and yeti {seat} does, so peak={seat}.",
                seat=alone,
            )
        )


# --- the log ----------------------------------------------------------------------------


def describe_events(events: Sequence[Event], names: Sequence[str] = ()) -> list[Text]:
    """Short player-facing lines for a resolution's events (names by seat, else colours)."""

    def who(seat: int) -> Text | str:
        if 0 <= seat < len(names) and names[seat]:
            return names[seat]
        return SEAT_TITLES[seat]

    lines: list[Text] = []
    for event in events:
        match event:
            case RoundStarted():
                lines.append(t("Round {n}: plan your coins.", n=event.number))
            case PlansRevealed():
                lines.append(t("Plans revealed."))
            case StepStarted():
                lines.append(t("Step {n}:", n=event.number))
            case Roared():
                lines.append(
                    t("{who} roars {d}.", who=who(event.seat), d=DIR_NAMES[event.direction])
                )
            case RoaredBack():
                lines.append(
                    t(
                        "{who} roars back at {other}.",
                        who=who(event.seat),
                        other=who(event.answered),
                    )
                )
            case Checked() if event.face == 0:
                lines.append(t("{who} checks the roar: null, affected.", who=who(event.seat)))
            case Checked():
                lines.append(
                    t(
                        "{who} checks the roar: {face}, not affected.",
                        who=who(event.seat),
                        face=_face(event.face),
                    )
                )
            case Rolled():
                lines.append(t("{who} rolls {face}.", who=who(event.seat), face=_face(event.face)))
            case Shivered():
                lines.append(t("{who} shivers.", who=who(event.seat)))
            case Fled():
                lines.append(
                    t("{who} runs {d} with {n} MP.", who=who(event.seat),
                      d=DIR_NAMES[event.direction], n=event.points)
                )  # fmt: skip
            case Moved() if event.start == event.end:
                lines.append(
                    t("{who} cannot move {d} from {sq}.", who=who(event.seat),
                      d=DIR_NAMES[event.direction], sq=square_name(event.start))
                )  # fmt: skip
            case Moved():
                lines.append(
                    t("{who} moves {frm}→{to}.", who=who(event.seat),
                      frm=square_name(event.start), to=square_name(event.end))
                )  # fmt: skip
            case Pushed():
                lines.append(
                    t("{who} is pushed {frm}→{to}.", who=who(event.seat),
                      frm=square_name(event.start), to=_place_words(event.end))
                )  # fmt: skip
            case Fell():
                lines.append(
                    t("{who} falls down a cliff to {sq} (1 damage).", who=who(event.seat),
                      sq=square_name(event.square))
                )  # fmt: skip
            case WentOff():
                lines.append(
                    t("{who} goes off the board from {sq}!", who=who(event.seat),
                      sq=square_name(event.square))
                )  # fmt: skip
            case Threw():
                throw = {
                    "who": who(event.seat),
                    "d": DIR_NAMES[event.direction],
                    "frm": square_name(event.start),
                    "sq": square_name(event.end),
                }
                if event.flight == Flight.HIT:
                    line = t("{who} throws a snowball {d} from {frm}: it hits {sq}.", **throw)
                elif event.flight == Flight.SPLAT:
                    # It bursts against the rise beyond the last square it crossed.
                    throw["sq"] = square_name(NEXT[event.end][event.direction])
                    line = t(
                        "{who} throws a snowball {d} from {frm}: it splats against the slope "
                        "up to {sq}.",
                        **throw,
                    )
                else:
                    line = t(
                        "{who} throws a snowball {d} from {frm}: it flies off past {sq}.", **throw
                    )
                lines.append(line)
            case Hit():
                lines.append(t("{who} is hit (1 damage).", who=who(event.seat)))
            case RolledOff():
                rolled = joined(
                    [
                        t("{who} {face}", who=who(s), face=_face(die))
                        for s, die in enumerate(event.dice)
                        if die is not None
                    ]
                )
                lines.append(t("Conflict! Roll-off: {rolled}.", rolled=rolled))
            case Picked():
                lines.append(t("{who} picks outcome {n}.", who=who(event.seat), n=event.number))
            case SetAside():
                lines.append(
                    t("{who} sets aside {coins}.", who=who(event.seat),
                      coins=coins_text(event.coins, " "))
                )  # fmt: skip
            case Healed():
                lines.append(t("{who} heals: every coin back.", who=who(event.seat)))
            case WentHome():
                lines.append(
                    t(
                        "{who} returns home to {sq}.",
                        who=who(event.seat),
                        sq=square_name(event.home),
                    )
                )
            case Bumped():
                lines.append(
                    t("{who} is bumped {frm}→{to}.", who=who(event.seat),
                      frm=square_name(event.start), to=square_name(event.end))
                )  # fmt: skip
            case Won():
                lines.append(t("{who} is King of the Hill and wins!", who=who(event.seat)))
            case Drawn():
                lines.append(t("The round cap is reached: a draw."))
    return lines


def _face(value: int) -> Text | str:
    """A die's face as the log tells it: null, ace or the number."""
    if value == 0:
        return t("null")
    if value == 1:
        return t("ace")
    return str(value)


# --- what the computer player knows -----------------------------------------------------


def _walk(square: int, direction: int, points: int) -> tuple[int, int]:
    """Where a lone yeti moving `points` toward `direction` stops, and how often it
    falls on the way (RULES 3(a) without other yeti: enough to rank plans)."""
    here, falls = square, 0
    while points > 0:
        ahead = NEXT[here][direction]
        if ahead == OFF:
            return OFF, falls
        rise = HEIGHTS[ahead] - HEIGHTS[here]
        cost = 2 if rise == 1 else 1
        if rise >= 2 or points < cost:
            break
        points -= cost
        here = ahead
        falls += rise <= -2
    return here, falls


#: WALKS[square][direction][points], for squares on the board and 1-5 points.
WALKS: dict[int, tuple[tuple[tuple[int, int], ...], ...]] = {
    sq: tuple(tuple(_walk(sq, d, mp) for mp in range(6)) for d in range(4)) for sq in SQUARES
}


def _spot_value(square: int, falls: int) -> float:
    """How good a lone yeti's end square is: high ground, the peak most, no falls."""
    if square == OFF:
        return -1.0 - falls
    return HEIGHTS[square] + (1.0 if square in PEAK else 0.0) - falls


#: A plan's moves in order, each (coin, direction).
Climb = tuple[tuple[int, int], ...]


@lru_cache(maxsize=4096)
def _climbs(square: int, coins: int) -> tuple[tuple[float, Climb], ...]:
    """Every sequence of (coin, direction) moves a plan can make from `square` with
    `coins`, valued by where a lone yeti ends, best first (the other slots of the plan
    will roar or throw)."""
    slots = min(3, coin_count(coins))
    movers = [c for c in range(1, 6) if coins >> c & 1]
    found: list[tuple[float, Climb]] = []

    def extend(here: int, climb: Climb, used: int, falls: int) -> None:
        if coin_count(coins & ~used) >= slots - len(climb):
            found.append((_spot_value(here, falls), climb))
        if len(climb) == slots or here == OFF:
            return
        for coin in movers:
            if not used >> coin & 1:
                for d in range(4):
                    end, fell = WALKS[here][d][coin]
                    extend(end, (*climb, (coin, d)), used | 1 << coin, falls + fell)

    extend(square, (), 0, 0)
    found.sort(key=lambda item: -item[0])
    return tuple(found)


def _climb_value(square: int, climb: Climb) -> float:
    """The value `_climbs` gives `climb` from `square`: where a lone yeti ends."""
    here, falls = square, 0
    for coin, d in climb:
        if here == OFF:
            break
        here, fell = WALKS[here][d][coin]
        falls += fell
    return _spot_value(here, falls)


@lru_cache(maxsize=256)
def plan_ranking(square: int, coins: int) -> tuple[int, ...]:
    """The indices of the plans of `coins` (`PlanSpace` order) for a yeti on `square`,
    best first by the value of their climb, as `_climbs` ranks them for the computer
    player. Many plans share a climb (the other slots roar or throw), so equal values
    take one plan of each climb before a second of any: the first choices differ."""
    space = _plan_space(coins)
    slots = min(3, coin_count(coins))
    directions = list(itertools.product(range(4), repeat=slots))
    values: dict[Climb, float] = {}
    seen: dict[Climb, int] = {}
    keys: list[tuple[float, int, int]] = []
    index = 0
    for template in space.templates:
        movers = [(i, a >> 3) for i, a in enumerate(template) if not a & SNOW and a >> 3]
        for dirs in directions:
            climb = tuple((coin, dirs[i]) for i, coin in movers)
            value = values.get(climb)
            if value is None:
                value = values[climb] = _climb_value(square, climb)
            nth = seen.get(climb, 0)
            seen[climb] = nth + 1
            keys.append((-value, nth, index))
            index += 1
    keys.sort()
    return tuple(index for _, _, index in keys)


def _plausible_plan(state: EverestState, seat: int, rng: Rng) -> tuple[Plan, Rng]:
    """A plausible plan: mostly one that climbs (or holds the peak) as well as a lone
    yeti could, with its free slots roaring or throwing in random directions; sometimes
    a climb a little worse, sometimes any plan at all."""
    coins = state.available(seat)
    plans = _plan_space(coins)
    where = state.pos[seat]
    roll, rng = rng.below(20)
    if where == OFF or roll < 3:
        index, rng = rng.below(len(plans))
        return plans[index], rng
    climbs = _climbs(where, coins)
    slack = 1.0 if roll < 14 else 2.5
    best = climbs[0][0]
    count = next((i for i, (v, _) in enumerate(climbs) if v < best - slack), len(climbs))
    index, rng = rng.below(count)
    climb = climbs[index][1]
    slots = min(3, coin_count(coins))
    # Which slots move (in the climb's order); the others roar once or throw.
    moving: list[int] = []
    for i in range(slots):
        left, need = slots - i, len(climb) - len(moving)
        pick, rng = rng.below(left)
        if pick < need:
            moving.append(i)
    plan: list[tuple[int, int]] = []
    steps = iter(climb)
    roar_free = bool(coins & 1) and all(c != 0 for c, _ in climb)
    for i in range(slots):
        if i in moving:
            plan.append(next(steps))
            continue
        kind, rng = rng.below(3)
        d, rng = rng.below(4)
        if kind == 0 and roar_free:
            plan.append((0, d))
            roar_free = False
        else:
            plan.append((SNOWBALL_KIND, d))
    actions = canonical_actions(plan, coins)
    if actions is None:
        index, rng = rng.below(len(plans))
        return plans[index], rng
    return Plan(actions), rng


def _plausible_move(state: GameState[Any], seat: int, rng: Rng) -> tuple[Hashable, Rng]:
    """A plausible plan while planning; any legal choice otherwise."""
    assert isinstance(state, EverestState)
    if state.stage is Stage.PLAN:
        return _plausible_plan(state, seat, rng)
    moves = state.legal_moves(seat)
    index, rng = rng.below(len(moves))
    return moves[index], rng


def _determinize(view: GameState[Any], seat: int, rng: Rng) -> tuple[GameState[Any], Rng]:
    """Plausible secret plans for the seats that have planned, and fresh dice."""
    assert isinstance(view, EverestState)
    plans = view.plans
    if view.stage is Stage.PLAN and HIDDEN in plans:
        filled = list(plans)
        for other, plan in enumerate(plans):
            if plan == HIDDEN:
                guess, rng = _plausible_plan(view, other, rng)
                filled[other] = guess.actions
        plans = tuple(filled)
    seed, rng = rng.next64()
    return replace(view, plans=plans, rng=Rng(seed)), rng


# --- the game ---------------------------------------------------------------------------


class EverestGame(Game[Move]):
    id: ClassVar[str] = "everest"
    name: ClassVar[str] = "Everest"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    seat_names: ClassVar[tuple[str, ...]] = ("Red", "Blue", "Green", "Purple")
    variants: ClassVar[tuple[Variant, ...]] = (
        Variant("no-cap", t("no round cap: play until a yeti wins")),
    )
    blurb: ClassVar[Text | str] = t("Yeti King of the Hill: secret plans, roars and snowballs.")
    draw_seats: ClassVar[bool] = False
    #: Plans and choices wait at most 12 hours; then the 3(c) defaults are played.
    decision_seconds: ClassVar[int | None] = 12 * 3600
    #: Plans are made at once and in secret (RULES 3(b)); a yeti wins, it scores nothing.
    secret_decisions: ClassVar[bool] = True
    has_scores: ClassVar[bool] = False
    #: A round's plans and dice are told in one post when it ends; the choices inside it
    #: go to whoever must make them.
    told_in_rounds: ClassVar[bool] = True

    def new_state(self, seed: int, num_players: int, variant: str | None) -> EverestState:
        self.check_setup(num_players, variant)
        work = _Work(
            EverestState(
                players=num_players,
                cap=0 if variant == "no-cap" else DEFAULT_CAP,
                round=1,
                stage=Stage.PLAN,
                step=0,
                pos=HOMES[:num_players],
                aside=(0,) * num_players,
                damage=(0,) * num_players,
                peak=None,
                plans=(None,) * num_players,
                runs=(None,) * num_players,
                roars=(),
                choice=(None,) * num_players,
                conflict=None,
                picker=None,
                endq=(EndChoice.NONE,) * num_players,
                chosen=(0,) * num_players,
                winner=None,
                events=(),
                rng=Rng(seed),
            )
        )
        work.start_round()
        return work.freeze()

    def from_text(self, text: str) -> EverestState:
        return parse_state(text)

    def search_model(self, view: GameState[Any]) -> Model:
        return Model(
            determinize=_determinize,
            playout=_plausible_move,
            propose=_plausible_move,
            playout_depth=2,
            eval_scale=3.0,
            widening=2.0,
            # Every extra yeti makes resolving a round (its orders of play) much dearer.
            effort=1 / (view.num_seats - 1),
        )


GAME = registry.register(EverestGame())
