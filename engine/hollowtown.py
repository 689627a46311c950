"""Hollowtown: the Button Market game of Hollow and Dooky.

"Hollow and his Quiet Adventures Board Game", by catpad (LiveJournal). Rules: RULES.md
section 5. Hollow (seat 0) acts first in every round, then Dooky (seat 1), then the
Harvest pays buttons from the Bank onto the landscape tiles of the 3×3 town. The game ends
when the last of the 7 tiles leaves the Market (if Hollow placed it, Dooky acts once more;
there is no final Harvest), or after 10 rounds in a row without a Buy (ruling 18(b)). Only
the buttons in a player's supply count; most buttons wins, a tie is a draw.

Ruling 18(a), the structural deadlock (neither character can Move nor stands next to a
vacant cell), needs no check here: every cell has at least 2 neighbours and the other
character fills at most one, so a character that cannot Move always has a vacant
neighbour. The tests verify this over every possible town.

Moves (RULES.md 5(c)); input is case-insensitive::

    buy mushroom B2     pay the price to the Bank, place the tile on a vacant cell next to you
    move B2             step onto a tile or house next to you and collect its buttons
    move up             the same, by direction: up, down, left, right
    inc beehive         one button from your supply onto the Beehive row (price + 1)
    dec meadow          one button from the Meadow row and one from you go to the Bank
    steal mushroom      on the opponent's house: take a row that has no tiles left
    beg bank            with an empty supply (or when stuck): one button from the Bank
    beg meadow          ... or from a Market row

A type is a full name, a two-letter code (mu, be, me) or an emoji (🍄 🐝 🌾); single
letters are refused so that a type is never mistaken for column B. The canonical form
(the move log) uses full lower-case names and upper-case cells, as above.

Position notation (the `position:` option): one line, tokens separated by spaces::

    Hh,-,-/Mu2,-,Be/-,Dd,Me market=2/1,1/1,0/2 bank=5 supply=3/2 turn=hollow
    round=3 lastbuy=2 rng=0:0

- the board: rows 1 to 3 separated by `/`, cells A to C by `,`. A cell is `-` (empty),
  `H` or `D` (Hollow's or Dooky's house) or `Mu`, `Be`, `Me` (a Mushroom, Beehive or
  Meadow tile), then the number of buttons lying on a tile (if any), then `h` or `d` when
  Hollow or Dooky stands there: `Mu2` is a Mushroom tile holding 2 buttons, `Bed` a
  Beehive tile with Dooky on it (buttons never lie under a character: stepping on a tile
  collects them, and an occupied tile grows nothing);
- `market=P/T,P/T,P/T`: for the rows Mushroom, Beehive, Meadow, the price (buttons in the
  row) and the number of tiles left;
- `bank=N` and `supply=H/D` (Hollow's and Dooky's buttons);
- `turn=`: `hollow` or `dooky` (whose action it is), `dooky-last` (Dooky's extra action
  after Hollow placed the last tile), `over` (every tile placed) or `stalled` (ten rounds
  without a Buy);
- `round=R` counts rounds from 1; `lastbuy=K` is the round of the latest Buy (0: none);
- `rng=SEED:COUNTER`, the dice (`0:0` in a player's view);
- `variant=dice-harvest`, only in that variant.

The keys may come in any order. The 15 buttons must all be accounted for (Bank, Market
rows, supplies and tiles), and the 7 tiles in play must be on the board or the Market.
"""

from __future__ import annotations

import re
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
    NotationError,
    Outcome,
    Variant,
)
from engine.digits import read_natural
from engine.rng import Rng
from engine.text import Text, joined, t, tn

SEATS = ("Hollow", "Dooky")
HOLLOW, DOOKY = 0, 1
TOTAL_BUTTONS = 15
TILES_IN_PLAY = 7
START_SUPPLY = 3
#: Ruling 18(b): this many full rounds in a row without a Buy end the game.
STALL_ROUNDS = 10
DICE_HARVEST = "dice-harvest"
#: The generator a view shows instead of the real one (Rng is immutable, so sharing is safe).
HIDDEN_RNG = Rng(0, 0)

# Cell contents. A tile type is also its Market row index (ruling 3: Mushroom, Beehive,
# Meadow); the house of seat s is HOUSE + s.
MUSHROOM, BEEHIVE, MEADOW = 0, 1, 2
HOUSE = 3
EMPTY = 5
TYPES = (MUSHROOM, BEEHIVE, MEADOW)
TYPE_NAMES = ("mushroom", "beehive", "meadow")
#: The types in words, for players (TYPE_NAMES are the notation): in a sentence, and as a
#: label.
TYPE_TITLES = (t("mushroom"), t("beehive"), t("meadow"))
TYPE_LABELS = (t("Mushroom"), t("Beehive"), t("Meadow"))
TYPE_CODES = ("Mu", "Be", "Me")
TYPE_EMOJI = ("🍄", "🐝", "🌾")
_CELL_CODES = ("Mu", "Be", "Me", "H", "D", "-")

# Phases (`turn=` in the notation).
HOLLOW_TO_ACT, DOOKY_TO_ACT, DOOKY_LAST, OVER, STALLED = range(5)
PHASE_NAMES = ("hollow", "dooky", "dooky-last", "over", "stalled")

#: Cell index = 3 * (row - 1) + column: A1 = 0, C1 = 2, A2 = 3, C3 = 8 (ruling 1).
CELL_NAMES: tuple[str, ...] = tuple(f"{'ABC'[i % 3]}{i // 3 + 1}" for i in range(9))
CELL_INDEX: dict[str, int] = {name: i for i, name in enumerate(CELL_NAMES)}

DIRECTIONS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


def _step(cell: int, dx: int, dy: int) -> int:
    x, y = cell % 3 + dx, cell // 3 + dy
    return y * 3 + x if 0 <= x < 3 and 0 <= y < 3 else -1


#: NEIGHBOURS[cell]: the orthogonal neighbours, in reading order.
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        sorted(n for d in DIRECTIONS.values() if (n := _step(c, *d)) >= 0),
    )
    for c in range(9)
)

#: Each word a player may use for a type (ruling 5(c)); single letters are deliberately
#: absent.
TYPE_WORDS: dict[str, int] = {}
for _ty in TYPES:
    TYPE_WORDS[TYPE_NAMES[_ty]] = _ty
    TYPE_WORDS[TYPE_CODES[_ty].lower()] = _ty
    TYPE_WORDS[TYPE_EMOJI[_ty]] = _ty

ACTIONS = ("buy", "move", "inc", "dec", "steal", "beg")
_ACTION_WORDS = {
    "buy": "buy",
    "move": "move",
    "inc": "inc",
    "increase": "inc",
    "dec": "dec",
    "decrease": "dec",
    "steal": "steal",
    "beg": "beg",
}
_TYPE_HINT = t("mushroom (mu, 🍄), beehive (be, 🐝) or meadow (me, 🌾)")
_EXAMPLES = "buy mushroom B2, move up, inc beehive, dec meadow, steal mushroom, beg bank"


@dataclass(frozen=True, slots=True)
class HollowtownMove:
    """One action.

    `action` is one of ACTIONS. `tile` is the landscape type (Market row) the action
    concerns, -1 for `move` and `beg bank`. `cell` is the cell a tile is placed on (buy)
    or stepped onto (move), -1 otherwise.
    """

    action: str
    tile: int = -1
    cell: int = -1

    def __str__(self) -> str:
        words = [self.action]
        if self.tile >= 0:
            words.append(TYPE_NAMES[self.tile])
        elif self.action == "beg":
            words.append("bank")
        if self.cell >= 0:
            words.append(CELL_NAMES[self.cell])
        return " ".join(words)


# Every possible move once, shared by all states (legal_moves allocates nothing new).
BUY = tuple(tuple(HollowtownMove("buy", ty, c) for c in range(9)) for ty in TYPES)
MOVE = tuple(HollowtownMove("move", -1, c) for c in range(9))
INC = tuple(HollowtownMove("inc", ty) for ty in TYPES)
DEC = tuple(HollowtownMove("dec", ty) for ty in TYPES)
STEAL = tuple(HollowtownMove("steal", ty) for ty in TYPES)
BEG_ROW = tuple(HollowtownMove("beg", ty) for ty in TYPES)
BEG_BANK = HollowtownMove("beg")


def _buttons(n: int) -> Text:
    return tn("{n} button", "{n} buttons", n=n)


def _cell_words(cells: tuple[int, ...], cell: int) -> Text:
    what = cells[cell]
    if what == EMPTY:
        return t("an empty cell")
    if what >= HOUSE:
        return t("{name}'s house", name=SEATS[what - HOUSE])
    return t("a {type} tile", type=TYPE_TITLES[what])


def _harvest(
    cells: tuple[int, ...],
    piles: list[int],
    places: tuple[int, int],
    prices: tuple[int, ...],
    stock: tuple[int, ...],
    bank: int,
    rng: Rng,
    dice: bool,
) -> tuple[int, Rng]:
    """Pay the Harvest into `piles`; return the Bank and the generator afterwards.

    Rulings 14-16: tiles whose type still has tiles on the Market, with a price of at
    least 1 and no character on them, in order of price, then Market row, then reading
    order (or a fresh shuffle for ties with dice); the first tile the Bank cannot pay in
    full gets what is left and the Harvest stops.
    """
    growing = [
        c
        for c in range(9)
        if cells[c] < HOUSE and stock[cells[c]] and prices[cells[c]] and c not in places
    ]
    if dice:
        shuffled, rng = rng.shuffled(growing)
        order = sorted(shuffled, key=lambda c: prices[cells[c]])
    else:
        order = sorted(growing, key=lambda c: (prices[cells[c]], cells[c]))
    for c in order:
        due = prices[cells[c]]
        paid = min(due, bank)
        piles[c] += paid
        bank -= paid
        if paid < due:
            break
    return bank, rng


@dataclass(frozen=True, slots=True)
class HollowtownState(GameState[HollowtownMove]):
    """A Hollowtown position.

    `cells` is what lies on each cell of the town (a tile type, a house or EMPTY) and
    `piles` the buttons lying there (only tiles ever hold any); index = 3 * (row - 1) +
    column, the letter die giving the column and the number die the row::

                A   B   C
            1   0   1   2
            2   3   4   5
            3   6   7   8

    `places` is the cell of Hollow and of Dooky. `prices` holds the buttons in each Market
    row (Mushroom, Beehive, Meadow) and `stock` the tiles still on it. `bank` is the
    Bank's buttons, `supplies` the players'. `phase` is one of HOLLOW_TO_ACT,
    DOOKY_TO_ACT, DOOKY_LAST, OVER, STALLED. `round` counts rounds from 1 and `last_buy`
    is the round of the latest Buy (0: none yet). `variant` is "" or "dice-harvest";
    `rng` draws the dice (set-up and, in the variant, the Harvest ties).
    """

    game_id: ClassVar[str] = "hollowtown"

    cells: tuple[int, ...]
    piles: tuple[int, ...]
    places: tuple[int, int]
    prices: tuple[int, int, int]
    stock: tuple[int, int, int]
    bank: int
    supplies: tuple[int, int]
    phase: int = HOLLOW_TO_ACT
    round: int = 1
    last_buy: int = 0
    variant: str = ""
    rng: Rng = HIDDEN_RNG

    # --- whose turn, how it ended -------------------------------------------------------
    @property
    def num_seats(self) -> int:
        return 2

    @property
    def to_act(self) -> frozenset[int]:
        if self.phase == HOLLOW_TO_ACT:
            return frozenset((HOLLOW,))
        if self.phase in (DOOKY_TO_ACT, DOOKY_LAST):
            return frozenset((DOOKY,))
        return frozenset()

    @property
    def seat_to_act(self) -> int:
        """The seat whose action it is, -1 once the game is over."""
        return (HOLLOW, DOOKY, DOOKY, -1, -1)[self.phase]

    def report(self, previous: Self | None, names: Sequence[str]) -> tuple[Text, ...]:
        """The Harvest, when the move that led here ended a round: what the Bank paid onto
        which tile."""
        if previous is None or self.round <= previous.round:
            return ()
        paid = [
            t(
                "{n} on {cell} ({kind})",
                n=self.piles[c] - previous.piles[c],
                cell=CELL_NAMES[c],
                kind=TYPE_TITLES[self.cells[c]],
            )
            for c in range(9)
            if self.piles[c] > previous.piles[c]
        ]
        if not paid:
            return (t("Harvest: nothing grows this round."),)
        return (t("Harvest: the Bank pays {paid}.", paid=joined(paid)),)

    def scores(self) -> tuple[int, ...]:
        return self.supplies

    def outcome(self) -> Outcome | None:
        if self.phase < OVER:
            return None
        # Why it ended; who won, and by how much, the scores and `winners` say.
        if self.phase == OVER:
            reason, code = t("Every tile is in Hollowtown."), "town-complete"
        else:
            code = "no-buys"
            reason = tn(
                "{n} round passed without a Buy.",
                "{n} rounds passed without a Buy.",
                n=STALL_ROUNDS,
            )
        hollow, dooky = self.supplies
        if hollow == dooky:
            return Outcome(self.supplies, frozenset(), reason, code)
        winner = frozenset((HOLLOW if hollow > dooky else DOOKY,))
        return Outcome(self.supplies, winner, reason, code)

    # --- moves ----------------------------------------------------------------------------
    def _actions(self, seat: int) -> list[HollowtownMove]:
        """Every legal Buy, Move, Increase, Decrease and Steal of `seat` (no Beggar)."""
        cells, stock, prices = self.cells, self.stock, self.prices
        here = self.places[seat]
        other = self.places[1 - seat]
        supply = self.supplies[seat]
        moves: list[HollowtownMove] = []
        vacant = [n for n in NEIGHBOURS[here] if cells[n] == EMPTY]
        if vacant:
            for ty in TYPES:
                if stock[ty] and prices[ty] <= supply:
                    row = BUY[ty]
                    moves.extend(row[c] for c in vacant)
        moves.extend(MOVE[n] for n in NEIGHBOURS[here] if cells[n] != EMPTY and n != other)
        standing = cells[here]
        if supply:
            if standing == HOUSE + seat:
                market = [ty for ty in TYPES if stock[ty]]
            elif standing < HOUSE and stock[standing]:
                market = [standing]
            else:
                market = []
            moves.extend(INC[ty] for ty in market)
            moves.extend(DEC[ty] for ty in market if prices[ty])
        if standing == HOUSE + 1 - seat:
            moves.extend(STEAL[ty] for ty in TYPES if not stock[ty] and prices[ty])
        return moves

    def _begging(self, seat: int, actions: list[HollowtownMove]) -> list[HollowtownMove]:
        """The Beggar moves (ruling 13) of `seat`, given its other legal actions."""
        if self.supplies[seat] == 0:
            begs = [BEG_BANK] if self.bank else []
            begs.extend(BEG_ROW[ty] for ty in TYPES if self.prices[ty])
            return begs
        if actions:
            return []
        if self.bank:
            return [BEG_BANK]
        return [BEG_ROW[ty] for ty in TYPES if self.prices[ty]]

    def legal_moves(self, seat: int) -> tuple[HollowtownMove, ...]:
        if seat != self.seat_to_act or seat < 0:
            return ()
        actions = self._actions(seat)
        actions.extend(self._begging(seat, actions))
        return tuple(actions)

    def parse_move(self, seat: int, text: str) -> HollowtownMove:
        raw = " ".join(text.split())
        spaced = raw.replace("\ufe0f", "")
        for emoji in TYPE_EMOJI:
            spaced = spaced.replace(emoji, f" {emoji} ")
        words = spaced.lower().split()
        if not words:
            raise InvalidMoveError(t("Empty move. Try one of: {examples}.", examples=_EXAMPLES))
        verb = _ACTION_WORDS.get(words[0])
        if verb is None:
            raise InvalidMoveError(
                t(
                    "{text}: {word!r} is not an action; start with buy, move, inc, dec, "
                    "steal or beg (for example {examples}).",
                    text=raw,
                    word=words[0],
                    examples=_EXAMPLES,
                )
            )
        args = words[1:]
        if verb == "buy":
            move = self._parse_buy(raw, args)
        elif verb == "move":
            move = self._parse_step(seat, raw, args)
        elif verb == "beg":
            move = self._parse_beg(raw, args)
        else:
            move = _action_on_type(raw, verb, args)
        self._check(seat, move, raw)
        return move

    def _parse_buy(self, raw: str, args: list[str]) -> HollowtownMove:
        usage = t("{text}: write the type, then a cell: buy mushroom B2.", text=raw)
        if len(args) != 2:
            if len(args) == 1 and args[0] in TYPE_WORDS:
                raise InvalidMoveError(
                    t(
                        "{text}: say where the tile goes, e.g. buy {name} B2.",
                        text=raw,
                        name=TYPE_NAMES[TYPE_WORDS[args[0]]],
                    )
                )
            raise InvalidMoveError(usage)
        if args[0].upper() in CELL_INDEX and args[1] in TYPE_WORDS:
            raise InvalidMoveError(usage)
        return BUY[_parse_type(raw, args[0])][_parse_cell(raw, args[1])]

    def _parse_step(self, seat: int, raw: str, args: list[str]) -> HollowtownMove:
        if len(args) != 1:
            raise InvalidMoveError(
                t("{text}: write one cell or direction, e.g. move B2 or move up.", text=raw)
            )
        word = args[0]
        if word in DIRECTIONS:
            here = self.places[seat]
            target = _step(here, *DIRECTIONS[word])
            if target < 0:
                raise IllegalMoveError(
                    t(
                        "{text}: {name} is on {cell}, at the {edge} of the town.",
                        text=raw,
                        name=SEATS[seat],
                        cell=CELL_NAMES[here],
                        edge=_EDGE_WORDS[word],
                    )
                )
            return MOVE[target]
        return MOVE[_parse_cell(raw, word, directions=True)]

    def _parse_beg(self, raw: str, args: list[str]) -> HollowtownMove:
        if len(args) != 1:
            raise InvalidMoveError(
                t("{text}: write beg bank, or beg and a Market row, e.g. beg meadow.", text=raw)
            )
        if args[0] == "bank":
            return BEG_BANK
        return BEG_ROW[_parse_type(raw, args[0], bank=True)]

    def _check(self, seat: int, move: HollowtownMove, label: str) -> None:
        acting = self.seat_to_act
        if acting < 0:
            raise IllegalMoveError(t("{text}: the game is over.", text=label))
        if seat != acting:
            raise IllegalMoveError(
                t("{text}: it is {name}'s turn.", text=label, name=SEATS[acting])
            )
        if move not in self.legal_moves(seat):
            raise IllegalMoveError(self._refusal(seat, move, label))

    def _refusal(self, seat: int, move: HollowtownMove, label: str) -> Text:
        """Why the well-formed `move` of the seat to act is not legal here."""
        cells, prices, stock = self.cells, self.prices, self.stock
        here = self.places[seat]
        other = self.places[1 - seat]
        supply = self.supplies[seat]
        ty = move.tile
        common = {
            "text": label,
            "name": SEATS[seat],
            "here": CELL_NAMES[here],
            "type": TYPE_TITLES[ty] if ty >= 0 else "",
            "cell": CELL_NAMES[move.cell] if move.cell >= 0 else "",
        }
        if move.action == "buy":
            if not stock[ty]:
                return t("{text}: no {type} tiles are left on the Market.", **common)
            if move.cell not in NEIGHBOURS[here]:
                return t(
                    "{text}: {cell} is not next to {name} (on {here}); a tile goes on a "
                    "vacant cell up, down, left or right of you.",
                    **common,
                )
            if cells[move.cell] != EMPTY:
                return t(
                    "{text}: {cell} is not vacant, it holds {what}.",
                    what=_cell_words(cells, move.cell),
                    **common,
                )
            return t(
                "{text}: a {type} costs {price} and you have {have}.",
                price=_buttons(prices[ty]),
                have=_buttons(supply),
                **common,
            )
        if move.action == "move":
            if move.cell == here:
                return t("{text}: {name} is already on {cell}.", **common)
            if move.cell not in NEIGHBOURS[here]:
                return t(
                    "{text}: {cell} is not next to {here}; move one step up, down, left or right.",
                    **common,
                )
            if cells[move.cell] == EMPTY:
                return t(
                    "{text}: {cell} is empty; you may only step onto a tile or a house.",
                    **common,
                )
            if move.cell == other:
                return t("{text}: {other} stands on {cell}.", other=SEATS[1 - seat], **common)
        if move.action in ("inc", "dec"):
            if not stock[ty]:
                return t(
                    "{text}: no {type} tiles are left on the Market, so its price no longer "
                    "changes.",
                    **common,
                )
            if cells[here] != ty and cells[here] != HOUSE + seat:
                return t(
                    "{text}: stand on a {type} tile or on your own house to change its "
                    "price; {name} is on {what} ({here}).",
                    what=_cell_words(cells, here),
                    **common,
                )
            if move.action == "dec" and not prices[ty]:
                return t("{text}: the {type} row is empty; there is nothing to take.", **common)
            return t("{text}: it costs 1 button and you have none.", **common)
        if move.action == "steal":
            if cells[here] != HOUSE + 1 - seat:
                return t(
                    "{text}: the Thief must stand on {other}'s house.",
                    other=SEATS[1 - seat],
                    **common,
                )
            if stock[ty]:
                return t(
                    "{text}: {type} tiles are still on the Market; only a row with no tiles "
                    "left can be stolen.",
                    **common,
                )
            return t("{text}: the {type} row holds no buttons.", **common)
        if move.action == "beg":
            if supply and self._actions(seat):
                return t(
                    "{text}: {name} still has {have} and other actions; beg only with an "
                    "empty supply or when stuck.",
                    have=_buttons(supply),
                    **common,
                )
            if supply and self.bank:
                return t("{text}: when stuck, the button comes from the Bank: beg bank.", **common)
            if ty < 0:
                return t("{text}: the Bank is empty; beg from a Market row instead.", **common)
            return t("{text}: the {type} row holds no buttons.", **common)
        return t("{text}: not allowed now.", **common)

    def play(self, seat: int, move: HollowtownMove) -> Self:
        self._check(seat, move, str(move))
        cells = self.cells
        piles = list(self.piles)
        places = self.places
        prices = list(self.prices)
        stock = list(self.stock)
        bank = self.bank
        supplies = list(self.supplies)
        last_buy = self.last_buy
        ty = move.tile
        action = move.action
        if action == "buy":
            supplies[seat] -= prices[ty]
            bank += prices[ty]
            stock[ty] -= 1
            cells = (*cells[: move.cell], ty, *cells[move.cell + 1 :])
            last_buy = self.round
        elif action == "move":
            supplies[seat] += piles[move.cell]
            piles[move.cell] = 0
            places = (move.cell, places[1]) if seat == HOLLOW else (places[0], move.cell)
        elif action == "inc":
            supplies[seat] -= 1
            prices[ty] += 1
        elif action == "dec":
            supplies[seat] -= 1
            prices[ty] -= 1
            bank += 2
        elif action == "steal":
            supplies[seat] += prices[ty]
            prices[ty] = 0
        elif ty >= 0:
            supplies[seat] += 1
            prices[ty] -= 1
        else:
            supplies[seat] += 1
            bank -= 1
        rng = self.rng
        round_ = self.round
        if self.phase == DOOKY_LAST or (action == "buy" and not any(stock)):
            phase = DOOKY_LAST if self.phase == HOLLOW_TO_ACT else OVER
        elif self.phase == HOLLOW_TO_ACT:
            phase = DOOKY_TO_ACT
        else:
            bank, rng = _harvest(
                cells,
                piles,
                places,
                tuple(prices),
                tuple(stock),
                bank,
                rng,
                self.variant == DICE_HARVEST,
            )
            if round_ - last_buy >= STALL_ROUNDS:
                phase = STALLED
            else:
                phase = HOLLOW_TO_ACT
                round_ += 1
        return type(self)(
            cells,
            tuple(piles),
            places,
            (prices[0], prices[1], prices[2]),
            (stock[0], stock[1], stock[2]),
            bank,
            (supplies[0], supplies[1]),
            phase,
            round_,
            last_buy,
            self.variant,
            rng,
        )

    # --- notation and hidden information ------------------------------------------------
    def to_text(self) -> str:
        rows = []
        for row in range(3):
            tokens = []
            for c in range(row * 3, row * 3 + 3):
                token = _CELL_CODES[self.cells[c]]
                if self.piles[c]:
                    token += str(self.piles[c])
                if c == self.places[HOLLOW]:
                    token += "h"
                elif c == self.places[DOOKY]:
                    token += "d"
                tokens.append(token)
            rows.append(",".join(tokens))
        market = ",".join(f"{self.prices[ty]}/{self.stock[ty]}" for ty in TYPES)
        parts = [
            "/".join(rows),
            f"market={market}",
            f"bank={self.bank}",
            f"supply={self.supplies[0]}/{self.supplies[1]}",
            f"turn={PHASE_NAMES[self.phase]}",
            f"round={self.round}",
            f"lastbuy={self.last_buy}",
            f"rng={self.rng.seed}:{self.rng.counter}",
        ]
        if self.variant:
            parts.append(f"variant={self.variant}")
        return " ".join(parts)

    def view(self, seat: int | None) -> Self:
        return type(self)(
            self.cells,
            self.piles,
            self.places,
            self.prices,
            self.stock,
            self.bank,
            self.supplies,
            self.phase,
            self.round,
            self.last_buy,
            self.variant,
            HIDDEN_RNG,
        )

    # --- helpers for front-ends and computer players ------------------------------------
    def move_tokens(self, move: HollowtownMove) -> tuple[str, ...]:
        return tuple(str(move).split())

    def option_label(self, prefix: tuple[str, ...], token: str) -> str:
        if not prefix:
            return str(_ACTION_LABELS[token])
        action = prefix[0]
        if token == "bank":
            return str(t("🏦 Bank ({buttons})", buttons=_buttons(self.bank)))
        if token in TYPE_WORDS:
            ty = TYPE_WORDS[token]
            label = joined((TYPE_EMOJI[ty], TYPE_LABELS[ty]), " ")
            price = self.prices[ty]
            if action == "buy":
                return str(joined((label, _buttons(price)), ": "))
            if action in ("inc", "dec"):
                change = 1 if action == "inc" else -1
                return str(
                    t("{label}: price {old} → {new}", label=label, old=price, new=price + change)
                )
            return str(t("{label} row: {buttons}", label=label, buttons=_buttons(price)))
        cell = CELL_INDEX[token]
        if action == "move":
            acting = max(self.seat_to_act, 0)
            arrow = _ARROWS.get(cell - self.places[acting], "")
            pile = self.piles[cell]
            gain = f" +{pile}" if pile else ""
            return f"{arrow} {token}{gain}".strip()
        return token

    def move_description(self, seat: int, move: HollowtownMove) -> Text | None:
        """What an action costs and what it brings: `costs 2 buttons; the tile grows 2 a
        Harvest`, `collects 3 buttons`, `costs 1 button; beehive price 2 → 3`."""
        if seat != self.seat_to_act:
            return None
        ty, action = move.tile, move.action
        if action == "buy":
            price = _buttons(self.prices[ty])
            if self.stock[ty] > 1 and self.prices[ty]:
                return t(
                    "costs {price}; the tile grows {n} a Harvest", price=price, n=self.prices[ty]
                )
            if self.stock[ty] > 1:
                return t("costs {price}; the tile grows nothing at price 0", price=price)
            return t(
                "costs {price}; the last {type} tile, it grows nothing",
                price=price,
                type=TYPE_TITLES[ty],
            )
        if action == "move":
            pile = self.piles[move.cell]
            if pile:
                return tn("collects {n} button", "collects {n} buttons", n=pile)
            return t("collects nothing")
        if action in ("inc", "dec"):
            old = self.prices[ty]
            new = old + 1 if action == "inc" else old - 1
            return t(
                "costs 1 button; {type} price {old} → {new}",
                type=TYPE_TITLES[ty],
                old=old,
                new=new,
            )
        if action == "steal":
            return tn(
                "takes {n} button from the {type} row",
                "takes {n} buttons from the {type} row",
                n=self.prices[ty],
                type=TYPE_TITLES[ty],
            )
        if ty >= 0:
            return t("takes 1 button from the {type} row", type=TYPE_TITLES[ty])
        return t("takes 1 button from the Bank")

    def option_prompt(self, prefix: tuple[str, ...]) -> Text:
        if not prefix:
            return t("Choose an action.")
        action = prefix[0]
        if action == "buy":
            if len(prefix) == 1:
                return t("Buy which landscape? The price goes to the Bank.")
            ty = TYPE_WORDS.get(prefix[1])
            return t(
                "Place the {type} on which vacant cell next to you?",
                type=prefix[1] if ty is None else TYPE_TITLES[ty],
            )
        if action == "move":
            return t("Move where? You collect the buttons on that tile.")
        if action == "inc":
            return t("Raise which price by 1? One of your buttons goes onto its row.")
        if action == "dec":
            return t("Lower which price by 1? It costs you 1 button.")
        if action == "steal":
            return t("Take all the buttons of which empty row?")
        return t("Take 1 button from where?")

    def evaluate(self, seat: int) -> float:
        """Buttons in hand, plus a share of the buttons lying nearer to `seat`.

        A finished game is worth ±1000 plus the margin. Otherwise: the supply lead; the
        richest tile each character can step onto right away (almost all of it for the
        side to act, less for the other, who may lose it first); and the piles and next
        Harvests of the tiles closer to one character than to the other.
        """
        me, them = self.supplies[seat], self.supplies[1 - seat]
        if self.phase >= OVER:
            margin = me - them
            return float(margin + (1000 if margin > 0 else -1000 if margin < 0 else 0))
        value = float(me - them)
        acting = self.seat_to_act
        for side, sign in ((seat, 1.0), (1 - seat, -1.0)):
            here, other = self.places[side], self.places[1 - side]
            reach = max((self.piles[n] for n in NEIGHBOURS[here] if n != other), default=0)
            value += sign * reach * (0.9 if side == acting else 0.4)
        mine, theirs = self.places[seat], self.places[1 - seat]
        for c in range(9):
            kind = self.cells[c]
            if kind >= HOUSE or c in self.places:
                continue
            worth = self.piles[c] + (0.5 * self.prices[kind] if self.stock[kind] else 0.0)
            near = _DISTANCE[mine][c] - _DISTANCE[theirs][c]
            if near:
                value += 0.3 * worth * (1 if near < 0 else -1)
        return value


_ACTION_LABELS = {
    "buy": t("🛒 Buy"),
    "move": t("🚶 Move"),
    "inc": t("➕ Increase"),
    "dec": t("➖ Decrease"),
    "steal": t("🦝 Steal"),
    "beg": t("🙏 Beg"),
}
#: The edge of the town a step `up`, `down`, `left` or `right` would cross, in words.
_EDGE_WORDS = {
    "up": t("top edge"),
    "down": t("bottom edge"),
    "left": t("left edge"),
    "right": t("right edge"),
}
_ARROWS = {-3: "⬆️", 3: "⬇️", -1: "⬅️", 1: "➡️"}
_DISTANCE = tuple(
    tuple(abs(a % 3 - b % 3) + abs(a // 3 - b // 3) for b in range(9)) for a in range(9)
)


def _parse_type(raw: str, word: str, bank: bool = False) -> int:
    if word in TYPE_WORDS:
        return TYPE_WORDS[word]
    if len(word) == 1:
        raise InvalidMoveError(
            t(
                "{text}: single letters are not landscape types ({letter!r} could be a "
                "column); write {hint}.",
                text=raw,
                letter=word.upper(),
                hint=_TYPE_HINT,
            )
        )
    if bank:
        raise InvalidMoveError(
            t(
                "{text}: {word!r} is not the bank or a landscape type; write the bank or {hint}.",
                text=raw,
                word=word,
                hint=_TYPE_HINT,
            )
        )
    raise InvalidMoveError(
        t(
            "{text}: {word!r} is not a landscape type; write {hint}.",
            text=raw,
            word=word,
            hint=_TYPE_HINT,
        )
    )


def _parse_cell(raw: str, word: str, directions: bool = False) -> int:
    cell = CELL_INDEX.get(word.upper())
    if cell is not None:
        return cell
    if directions:
        raise InvalidMoveError(
            t(
                "{text}: {word!r} is not a cell; cells are A1 to C3 (column letter, then row "
                "number), or a direction: up, down, left, right.",
                text=raw,
                word=word.upper(),
            )
        )
    raise InvalidMoveError(
        t(
            "{text}: {word!r} is not a cell; cells are A1 to C3 (column letter, then row number).",
            text=raw,
            word=word.upper(),
        )
    )


def _action_on_type(raw: str, verb: str, args: list[str]) -> HollowtownMove:
    if len(args) != 1:
        raise InvalidMoveError(
            t("{text}: name one landscape type, e.g. {verb} mushroom.", text=raw, verb=verb)
        )
    ty = _parse_type(raw, args[0])
    return {"inc": INC, "dec": DEC, "steal": STEAL}[verb][ty]


# --- reading the notation -----------------------------------------------------------------
_CELL_RE = re.compile(r"(Mu|Be|Me|H|D|-)([0-9]*)([hd]?)")
_KEYS = ("market", "bank", "supply", "turn", "round", "lastbuy", "rng", "variant")
#: The latest round a position may be in: far beyond any game (each of the 7 tiles can
#: hold off the ten-round stall only once).
MAX_ROUND = 999
RNG_MAX = (1 << 64) - 1


def _bad(reason: Text) -> NotationError:
    return NotationError(str(t("Hollowtown position: {reason}", reason=reason)))


def _number(key: str, value: str, maximum: int) -> int:
    number = read_natural(value, maximum)
    if number is None:
        raise _bad(
            t(
                "{key}= needs a whole number from 0 to {maximum}, not {value!r}.",
                key=key,
                maximum=maximum,
                value=value,
            )
        )
    return number


def _pair(key: str, value: str, sep: str, maxima: tuple[int, int]) -> tuple[int, int]:
    parts = value.split(sep)
    if len(parts) != 2:
        raise _bad(
            t(
                "{key}= needs two numbers joined by {sep!r}, not {value!r}.",
                key=key,
                sep=sep,
                value=value,
            )
        )
    return _number(key, parts[0], maxima[0]), _number(key, parts[1], maxima[1])


def _read_board(text: str) -> tuple[tuple[int, ...], tuple[int, ...], list[int]]:
    rows = text.split("/")
    if len(rows) != 3:
        raise _bad(t("the board needs 3 rows separated by /, got {n}.", n=len(rows)))
    cells: list[int] = []
    piles: list[int] = []
    places = [-1, -1]
    for r, row in enumerate(rows):
        tokens = row.split(",")
        if len(tokens) != 3:
            raise _bad(t("row {r} needs 3 cells separated by commas.", r=r + 1))
        for token in tokens:
            match = _CELL_RE.fullmatch(token)
            cell = len(cells)
            if not match:
                raise _bad(
                    t(
                        "cell {cell} is {token!r}; write -, H, D, Mu, Be or Me, then the "
                        "buttons on a tile, then h or d for a character.",
                        cell=CELL_NAMES[cell],
                        token=token,
                    )
                )
            kind = _CELL_CODES.index(match.group(1))
            pile = read_natural(match.group(2) or "0", TOTAL_BUTTONS)
            if pile is None:
                raise _bad(
                    t(
                        "cell {cell} holds more than the {n} buttons of the game.",
                        cell=CELL_NAMES[cell],
                        n=TOTAL_BUTTONS,
                    )
                )
            if pile and kind >= HOUSE:
                raise _bad(t("only tiles hold buttons, not {cell}.", cell=CELL_NAMES[cell]))
            if match.group(3):
                seat = "hd".index(match.group(3))
                if pile:
                    raise _bad(
                        t(
                            "buttons never lie under a character, as on {cell}.",
                            cell=CELL_NAMES[cell],
                        )
                    )
                if places[seat] >= 0:
                    raise _bad(t("{name} stands on two cells.", name=SEATS[seat]))
                if kind == EMPTY:
                    raise _bad(
                        t(
                            "{name} stands on the empty cell {cell}.",
                            name=SEATS[seat],
                            cell=CELL_NAMES[cell],
                        )
                    )
                places[seat] = cell
            cells.append(kind)
            piles.append(pile)
    for seat in (HOLLOW, DOOKY):
        if cells.count(HOUSE + seat) != 1:
            raise _bad(t("the town needs exactly one house of {name}.", name=SEATS[seat]))
        if places[seat] < 0:
            raise _bad(t("{name} is not on the board (add h or d to a cell).", name=SEATS[seat]))
    return tuple(cells), tuple(piles), places


def _read_state(text: str) -> HollowtownState:
    tokens = text.split()
    if not tokens:
        raise _bad(t("the text is empty."))
    cells, piles, places = _read_board(tokens[0])
    fields: dict[str, str] = {}
    for token in tokens[1:]:
        key, eq, value = token.partition("=")
        if not eq or key not in _KEYS:
            raise _bad(
                t(
                    "{token!r} is not a known key=value (keys: {keys}).",
                    token=token,
                    keys=", ".join(_KEYS),
                )
            )
        if key in fields:
            raise _bad(t("{key}= is given twice.", key=key))
        fields[key] = value
    missing = [key for key in _KEYS if key != "variant" and key not in fields]
    if missing:
        raise _bad(t("missing {keys}.", keys=", ".join(f"{k}=" for k in missing)))
    rows = fields["market"].split(",")
    if len(rows) != 3:
        raise _bad(t("market= needs 3 rows price/tiles separated by commas."))
    market = [_pair("market", row, "/", (TOTAL_BUTTONS, 3)) for row in rows]
    prices = (market[0][0], market[1][0], market[2][0])
    stock = (market[0][1], market[1][1], market[2][1])
    supplies = _pair("supply", fields["supply"], "/", (TOTAL_BUTTONS, TOTAL_BUTTONS))
    bank = _number("bank", fields["bank"], TOTAL_BUTTONS)
    if fields["turn"] not in PHASE_NAMES:
        raise _bad(t("turn= is one of {names}.", names=", ".join(PHASE_NAMES)))
    phase = PHASE_NAMES.index(fields["turn"])
    round_ = _number("round", fields["round"], MAX_ROUND)
    last_buy = _number("lastbuy", fields["lastbuy"], MAX_ROUND)
    seed, counter = _pair("rng", fields["rng"], ":", (RNG_MAX, RNG_MAX))
    variant = fields.get("variant", "")
    if variant not in ("", DICE_HARVEST):
        raise _bad(t("the only variant is {name}.", name=DICE_HARVEST))
    for ty in TYPES:
        if cells.count(ty) + stock[ty] > 3:
            raise _bad(t("there are only 3 {type} tiles.", type=TYPE_TITLES[ty]))
    if sum(1 for c in cells if c < HOUSE) + sum(stock) != TILES_IN_PLAY:
        raise _bad(t("the board and the Market must hold the 7 tiles in play together."))
    total = bank + sum(prices) + sum(supplies) + sum(piles)
    if total != TOTAL_BUTTONS:
        raise _bad(t("the buttons add up to {total}, not 15.", total=total))
    if round_ < 1 or last_buy > round_:
        raise _bad(t("round= starts at 1 and lastbuy= cannot be later than it."))
    if phase < OVER and round_ - last_buy > STALL_ROUNDS:
        raise _bad(t("more than 10 rounds without a Buy: the game would have ended."))
    if phase == STALLED and round_ - last_buy != STALL_ROUNDS:
        raise _bad(t("turn=stalled comes exactly 10 rounds after the last Buy (round - lastbuy)."))
    if (phase in (DOOKY_LAST, OVER)) == any(stock):
        raise _bad(t("turn=dooky-last and turn=over go exactly with an empty Market."))
    return HollowtownState(
        cells,
        piles,
        (places[0], places[1]),
        prices,
        stock,
        bank,
        supplies,
        phase,
        round_,
        last_buy,
        variant,
        Rng(seed, counter),
    )


# --- what the computer player knows -------------------------------------------------------


def _hidden_dice(view: GameState[Any], seat: int, rng: Rng) -> tuple[GameState[Any], Rng]:
    """Sampled dice for the Harvest ties of the dice variant."""
    assert isinstance(view, HollowtownState)
    seed, rng = rng.next64()
    return replace(view, rng=Rng(seed)), rng


#: The search scores the positions where its tree stops by `evaluate`, without random
#: playouts; in the dice variant it also samples the dice that settle Harvest ties, which
#: the view hides.
SEARCH_MODEL = Model(playout_depth=0, eval_scale=2.0)
DICE_SEARCH_MODEL = replace(SEARCH_MODEL, determinize=_hidden_dice)


class Hollowtown(Game[HollowtownMove]):
    id: ClassVar[str] = "hollowtown"
    name: ClassVar[str] = "Hollowtown"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    seat_names: ClassVar[tuple[str, ...]] = SEATS
    variants: ClassVar[tuple[Variant, ...]] = (
        Variant(
            DICE_HARVEST,
            t(
                "Harvest ties of equal production are settled by a fresh shuffle each "
                "round; lower production still comes first."
            ),
        ),
    )
    blurb: ClassVar[Text | str] = t(
        "Hollow and Dooky buy landscape tiles, set Market prices and harvest buttons in a 3×3 town."
    )
    draw_seats: ClassVar[bool] = True

    def new_state(self, seed: int, num_players: int, variant: str | None) -> HollowtownState:
        """Set-up by dice (RULES.md 5(a) and rulings 1, 2, 4, 5)."""
        self.check_setup(num_players, variant)
        rng = Rng(seed)
        column, rng = rng.die(3)
        row, rng = rng.die(3)
        hollow_house = (row - 1) * 3 + column - 1
        dooky_house = hollow_house
        while dooky_house == hollow_house:
            column, rng = rng.die(3)
            row, rng = rng.die(3)
            dooky_house = (row - 1) * 3 + column - 1
        tiles = [ty for ty in TYPES for _ in range(3)]
        for _ in range(9 - TILES_IN_PLAY):
            index, rng = rng.below(len(tiles))
            del tiles[index]
        stock = (tiles.count(MUSHROOM), tiles.count(BEEHIVE), tiles.count(MEADOW))
        dice = []
        for _ in TYPES:
            price, rng = rng.die(3)
            dice.append(price)
        prices = (dice[0], dice[1], dice[2])
        cells = [EMPTY] * 9
        cells[hollow_house] = HOUSE + HOLLOW
        cells[dooky_house] = HOUSE + DOOKY
        return HollowtownState(
            tuple(cells),
            (0,) * 9,
            (hollow_house, dooky_house),
            prices,
            stock,
            TOTAL_BUTTONS - 2 * START_SUPPLY - sum(prices),
            (START_SUPPLY, START_SUPPLY),
            variant=variant or "",
            rng=rng,
        )

    def from_text(self, text: str) -> HollowtownState:
        return _read_state(text)

    def search_model(self, view: GameState[Any]) -> Model:
        assert isinstance(view, HollowtownState)
        return DICE_SEARCH_MODEL if view.variant == DICE_HARVEST else SEARCH_MODEL


GAME = registry.register(Hollowtown())
