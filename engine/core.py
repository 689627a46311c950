"""The engine contract every game implements.

A game is a `Game` (its metadata and constructors, registered by id in `engine.registry`)
and a `GameState` subclass: an immutable value (frozen dataclass of tuples) with a compact
text notation that round-trips. Seats are numbered 0..n-1; seat 0 acts first. The host
decides which person sits in which seat.

Kinds of node (as in OpenSpiel): one seat to act (turn-based), several seats to act
(secret simultaneous plans), and terminal (`to_act` empty, `outcome()` set). Chance is
resolved inside `play` from an `Rng` kept in the state.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Self, TypeVar

from engine.rng import Rng
from engine.text import Text, t

M = TypeVar("M", bound=Hashable)


class MoveError(ValueError):
    """A move was refused. `text` is the player-facing reason (see `engine.text`)."""

    def __init__(self, text: Text | str) -> None:
        self.text = text if isinstance(text, Text) else Text(text)
        super().__init__(str(self.text))


class InvalidMoveError(MoveError):
    """The text is not a move at all (bad syntax)."""


class IllegalMoveError(MoveError):
    """The move is well formed but breaks a rule in this position."""


class NotationError(ValueError):
    """A position's text notation could not be read."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    `scores` has one entry per seat. `winners` is empty for a draw (or a solo game, which
    has a score and no winner); one seat normally. `reason` says why it ended, in words;
    `code` names the rule that ended it, as the game's own short, stable identifier (kept
    with the stored result, where words are not).
    """

    scores: tuple[int, ...]
    winners: frozenset[int]
    reason: Text
    code: str = ""

    @property
    def is_draw(self) -> bool:
        return len(self.scores) > 1 and not self.winners


@dataclass(frozen=True, slots=True)
class Option:
    """One next piece of a move, as offered by a step-by-step move builder.

    `token` is text that the game's `parse_move` accepts when the chosen tokens are joined
    with spaces; `label` is what a button shows. When there are too many options for one
    message they are grouped by the first letter of their token, and `group_label` names
    the group this option opens with ("move 4 …"); None: the group is named by its first
    and last tokens ("a1 … a8"). A `pinned` option keeps a button of its own, before the
    groups (Mole Hill's rods beside the mole).
    """

    token: str
    label: str
    pinned: bool = False
    group_label: str | None = None


@dataclass(frozen=True, slots=True)
class MoveOptions(Generic[M]):
    """What a seat may add after having chosen `prefix` so far.

    `complete` is the move that `prefix` already forms, if it is a whole legal move; with
    no `options` left the builder can play it at once, otherwise it offers a confirm.
    `prompt` says what to choose next; `preview` describes the effect of `complete` (or of
    the part chosen so far). `browse` holds the neighbours of the move on show, each as a
    token that stands in place of the whole `prefix`, to look at one by one before
    confirming (Everest's roll-off outcomes: `pick 2`, `pick 4`). `confirm` names the
    confirm button of a move that is always confirmed, with its preview, even with nothing
    left to choose (Mole Hill's rods, Everest's plans); None: "Confirm", where one is
    offered. A move with `browse` or `confirm` is never played unasked;
    `Game.confirm_moves` asks to confirm every move of a game.
    """

    prefix: tuple[str, ...]
    options: tuple[Option, ...]
    complete: M | None
    prompt: Text
    preview: Text | None = None
    browse: tuple[Option, ...] = ()
    confirm: Text | None = None


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    #: What the variant changes, for players (a `Text`, so it reads in their language).
    description: Text | str


class GameState(ABC, Generic[M]):
    """One position of a game. Subclasses are frozen dataclasses; never mutate one."""

    #: The registry id of the game this state belongs to.
    game_id: ClassVar[str]

    # --- whose turn, how it ended -------------------------------------------------------
    @property
    @abstractmethod
    def num_seats(self) -> int: ...

    @property
    @abstractmethod
    def to_act(self) -> frozenset[int]:
        """Seats that must act now: one in turn-based play, several while planning in
        secret, none when the game is over."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """None while the game runs; the result once `to_act` is empty."""

    @abstractmethod
    def scores(self) -> tuple[int, ...]:
        """Points per seat as they stand now (final once the game is over)."""

    # --- moves ----------------------------------------------------------------------------
    @abstractmethod
    def legal_moves(self, seat: int) -> Sequence[M]:
        """Every legal move of `seat` now, each once, in a stable order; empty if the seat
        is not to act."""

    @abstractmethod
    def parse_move(self, seat: int, text: str) -> M:
        """Read a move. Raises InvalidMoveError for bad syntax and IllegalMoveError for a
        well-formed move that is not legal here; the message names the input and why."""

    @abstractmethod
    def play(self, seat: int, move: M) -> Self:
        """The state after `seat` plays `move` (raises IllegalMoveError if it may not)."""

    def move_text(self, move: M) -> str:
        """The canonical notation of `move` (what the move log stores)."""
        return str(move)

    def move_texts(self, seat: int) -> Sequence[str]:
        """The notation of every legal move of `seat`, in `legal_moves` order, for move
        lists and autocomplete. Games with very many moves override it with a table
        that is cheaper than writing each move out."""
        return [self.move_text(move) for move in self.legal_moves(seat)]

    # --- notation and hidden information ------------------------------------------------
    @abstractmethod
    def to_text(self) -> str:
        """Compact notation; `Game.from_text(s.to_text()) == s`."""

    def view(self, seat: int | None) -> Self:
        """What `seat` may see (None: a spectator). Never contains the generator's seed or
        counter, nor another seat's secret plan. Games without secrets return self."""
        return self

    # --- helpers for front-ends and computer players ------------------------------------
    def move_tokens(self, move: M) -> tuple[str, ...]:
        """The pieces a step-by-step builder offers for `move`, in order."""
        return tuple(self.move_text(move).split())

    def option_label(self, prefix: tuple[str, ...], token: str) -> str:
        """The button label for `token` after `prefix`."""
        return token

    def option_prompt(self, prefix: tuple[str, ...]) -> Text:
        return t("Choose the next part of your move.") if prefix else t("Choose a move.")

    def move_options(self, seat: int, prefix: tuple[str, ...] = ()) -> MoveOptions[M]:
        """The builder's next choices, derived from `legal_moves` and `move_tokens`.

        Games with very many legal moves (Everest plans) override this.
        """
        depth = len(prefix)
        seen: dict[str, None] = {}
        complete: M | None = None
        for move in self.legal_moves(seat):
            tokens = self.move_tokens(move)
            if tokens[:depth] != prefix:
                continue
            if len(tokens) == depth:
                complete = move
            else:
                seen.setdefault(tokens[depth], None)
        options = tuple(Option(tok, self.option_label(prefix, tok)) for tok in seen)
        return MoveOptions(prefix, options, complete, self.option_prompt(prefix))

    def evaluate(self, seat: int) -> float:
        """How good this position looks for `seat` (higher is better), for computer
        players. The default is the seat's score lead over its best opponent."""
        scores = self.scores()
        others = [s for i, s in enumerate(scores) if i != seat]
        return float(scores[seat] - (max(others) if others else 0))

    def report(self, previous: Self | None, names: Sequence[str]) -> tuple[Text, ...]:
        """What happened by itself since `previous` (dice, automatic steps of a round),
        as short lines for the reply to a move; `names` are the players by seat."""
        return ()

    def move_effect(self, move: M) -> Text | None:
        """What `move`, played from this position, did, told after its notation in the
        reply to it (Hillbert: what he ate, whether he grew, shrank or was stopped, how
        long before he starves); None: the notation and `report` say it all. Asked of
        the position as everyone sees it (`view(None)`)."""
        return None

    def move_description(self, seat: int, move: M) -> Text | None:
        """What `move` of `seat` does, in a few words beside its notation where moves are
        offered to pick from (`c2-c4: by c2>c3>c4, onto W2`); short enough that the two
        fit in one autocomplete choice (100 characters) in every language. None: the
        notation says it all."""
        return None

    def move_order(self, seat: int) -> Sequence[int] | None:
        """The indices of `legal_moves(seat)`, the likeliest first, for offering moves to
        pick from when there are too many to offer them all (Everest's plans, in the order
        its computer player tries them); None: the order of `legal_moves`."""
        return None

    def move_guide(self, seat: int) -> Text | None:
        """How to write a move, for a seat whose moves are too many to list one by one
        (Everest's plans); None: the moves are listed."""
        return None

    @property
    def round_number(self) -> int | None:
        """The round this position belongs to, for games told a round at a time
        (`Game.told_in_rounds`); None: the game has no rounds."""
        return None

    @property
    def planning(self) -> bool:
        """Whether the seats to act are planning in secret, for plans that are revealed
        together once all are in (Everest's plans): who is to act is still planning."""
        return False

    def seat_role(self, seat: int) -> Text | None:
        """The role `seat` plays now, for games whose roles change as they go (Mole Hill's
        mole and gardener swap for round 2); None: the seat's fixed name, its `Game`'s
        `seat_names`."""
        return None

    def result_text(self, names: Sequence[str]) -> Text | None:
        """Who won and by how much, in the players' names (`names`, by seat), for a game
        over on the board whose scores by seat would mislead (Mole Hill: each player
        scores as the mole of one round, whatever role they end in); None: the reason,
        the scores by seat and the winner say it."""
        return None

    def timeout_move(self, seat: int) -> M | None:
        """The documented default when `seat` lets a deadline pass (None: no default)."""
        return None

    @property
    def is_over(self) -> bool:
        return not self.to_act


# --- what the computer player's search knows about a game --------------------------------
#: Chooses a move for a seat that is to act, returning the generator after its draws.
MovePolicy = Callable[[GameState[Any], int, Rng], tuple[Hashable, Rng]]
#: Fills in what a view hides (other seats' secret plans, the dice) with plausible values.
Determinizer = Callable[[GameState[Any], int, Rng], tuple[GameState[Any], Rng]]


@dataclass(frozen=True, slots=True)
class Model:
    """What the search knows about one game beyond the contract.

    `determinize` samples what the view hides; None when the view is the whole truth (no
    secrets, no dice), which lets nodes keep their state and the solver prove results.
    `playout` picks moves after the tree (None: uniform at random). `propose` offers the
    next move to try at a node that is widening (None: uniform among the untried ones).
    `playout_depth` cuts a playout after that many plies and scores it by `evaluate`
    (None: play to the end); `eval_scale` is the `evaluate` difference that moves the
    squashed reward from 0.5 to about 0.73. `widening` is None to try every move of a node
    before trying any twice, else the factor of progressive widening. `effort` scales a
    level's simulation count, for games whose simulations are costly.
    """

    determinize: Determinizer | None = None
    playout: MovePolicy | None = None
    propose: MovePolicy | None = None
    playout_depth: int | None = None
    eval_scale: float = 10.0
    widening: float | None = None
    effort: float = 1.0


class Game(ABC, Generic[M]):
    """A game's registry entry: what it is called, who plays it, how a game starts."""

    id: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: Names of the seats, indexed by seat (e.g. Black, White), as notation, records and
    #: parsing use them; messages for players use `seat_title`.
    seat_names: ClassVar[tuple[str, ...]]
    variants: ClassVar[tuple[Variant, ...]] = ()
    #: A one-line description for menus.
    #: One line about the game for players (a `Text`, so it reads in their language).
    blurb: ClassVar[Text | str] = ""
    #: True when `seat:random` is the default way to fill seats (two-player duels).
    draw_seats: ClassVar[bool] = True
    #: Bumped when a rule change would make an old move log replay differently.
    rules_version: ClassVar[int] = 1
    #: Seconds a person has for each decision; None: three days
    #: (`host.play.deadlines.DEFAULT_SECONDS`). A time chosen at `/play deadline:`, else the
    #: server's for the game, comes first. When it runs out, `timeout_move` is played,
    #: else the others may claim the win. A solo game has no deadlines.
    decision_seconds: ClassVar[int | None] = None

    # --- facts that generic code relies on; declared, never guessed ---------------------
    #: When several seats act at once, they decide in secret and nobody sees a decision
    #: before all are in (Everest's plans). Without it, seats acting at once are free to
    #: see each other's choices.
    secret_decisions: ClassVar[bool] = False
    #: Whether `scores()` are points worth showing. False: a game is only won or lost
    #: (Everest: the first yeti alone on the peak), so no points are shown.
    has_scores: ClassVar[bool] = True
    #: A game for one person: no opponents, no computer seats, no winner.
    solo: ClassVar[bool] = False
    #: Whether an unscored game offers a hint (the computer's suggestion) to the player.
    hints: ClassVar[bool] = False
    #: Whether the move builder asks to confirm every move, with its preview, even one
    #: with nothing left to choose (Hillbert, whose turns grow one step at a time);
    #: otherwise a move is played as soon as it is complete and nothing could be added.
    confirm_moves: ClassVar[bool] = False
    #: The game is told to its channel a round at a time (Everest): one public post when
    #: a round ends, telling it whole (the plans every seat made in secret at its start,
    #: revealed, then what they set off), while the decisions inside a round are asked
    #: and answered privately. Its states say which round they are in (`round_number`)
    #: and when seats are planning (`planning`).
    told_in_rounds: ClassVar[bool] = False

    def search_model(self, view: GameState[Any]) -> Model | None:
        """What the computer player's search should know about this game in `view`
        beyond the contract (`Model`, read by `engine.mcts`); None: the search's defaults."""
        return None

    @abstractmethod
    def new_state(self, seed: int, num_players: int, variant: str | None) -> GameState[M]:
        """The starting position for `seed`; random set-ups draw from it."""

    @abstractmethod
    def from_text(self, text: str) -> GameState[M]:
        """Parse the notation written by `GameState.to_text` (raises NotationError)."""

    def seat_title(self, seat: int) -> Text:
        """The name of `seat` as players read it: `seat_names[seat]` looked up in the
        catalogue (each game names its seats with literal `t()` calls, so that they are
        extracted). The plain name stays what notation, records and parsing use."""
        return Text(self.seat_names[seat])

    def variant_names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.variants)

    def check_setup(self, num_players: int, variant: str | None) -> None:
        """Raise ValueError with a player-facing reason if the set-up is not allowed."""
        if not self.min_players <= num_players <= self.max_players:
            if self.min_players == self.max_players:
                wrong = t(
                    "{game} is for {need} players, not {n}.",
                    game=self.name,
                    need=self.min_players,
                    n=num_players,
                )
            else:
                wrong = t(
                    "{game} is for {low} to {high} players, not {n}.",
                    game=self.name,
                    low=self.min_players,
                    high=self.max_players,
                    n=num_players,
                )
            raise ValueError(str(wrong))
        if variant is not None and variant not in self.variant_names():
            if self.variants:
                unknown = t(
                    "{game} has no variant {variant!r}; variants: {known}.",
                    game=self.name,
                    variant=variant,
                    known=", ".join(self.variant_names()),
                )
            else:
                unknown = t(
                    "{game} has no variant {variant!r}; variants: none.",
                    game=self.name,
                    variant=variant,
                )
            raise ValueError(str(unknown))
