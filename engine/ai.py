"""Computer players over the engine contract.

A computer player only ever sees `state.view(seat)`. `choose_move` is the single entry
point the host calls, so a stronger search can replace the policy behind a level name
without touching any caller.

Levels: `easy`, `normal` and `hard` search with `engine.mcts` (more simulations each);
`random` and `greedy` (one ply ahead by `evaluate`) are kept to measure them against.
What the search needs to know about a game beyond the contract (how to sample what a
view hides, how to play on quickly, where to cut playouts) is its `Model`, which the
game's `Game.search_model` gives; a game without one is searched with the defaults. This
module names no game.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from engine import mcts, registry
from engine.core import GameState, Model
from engine.mcts import Budget
from engine.rng import Rng, seed_from_text

Policy = Callable[[GameState[Any], int, Rng], Hashable]
State = GameState[Any]


def random_policy(state: GameState[Any], seat: int, rng: Rng) -> Hashable:
    moves: Sequence[Hashable] = state.legal_moves(seat)
    move, _ = rng.choice(moves)
    return move


#: The most moves the greedy player tries in one decision.
GREEDY_SAMPLE = 200


def _sample_indices(total: int, count: int, rng: Rng) -> list[int]:
    """`count` distinct indices below `total`, in increasing order."""
    chosen: set[int] = set()
    while len(chosen) < count:
        index, rng = rng.below(total)
        chosen.add(index)
    return sorted(chosen)


def greedy_policy(state: GameState[Any], seat: int, rng: Rng) -> Hashable:
    """The move whose resulting position `evaluate`s best for `seat` (one ply ahead);
    ties are broken by the generator so the bot does not always play the same line.
    Seats that choose at the same moment are assumed to let their deadline pass."""
    legal = state.legal_moves(seat)
    if len(legal) > GREEDY_SAMPLE:
        # Everest offers thousands of plans; a fixed sample keeps a decision well under
        # a second while still choosing among many candidates.
        moves = [legal[i] for i in _sample_indices(len(legal), GREEDY_SAMPLE, rng)]
    else:
        moves = list(legal)
    others = sorted(state.to_act - {seat})
    best: list[Hashable] = []
    best_value = float("-inf")
    for move in moves:
        after = state.play(seat, move)
        for other in others:
            idle = after.timeout_move(other)
            after = after.play(other, idle if idle is not None else after.legal_moves(other)[0])
        value = after.evaluate(seat)
        if value > best_value:
            best_value, best = value, [move]
        elif value == best_value:
            best.append(move)
    choice, _ = rng.choice(best)
    return choice


#: For a game with no model: random playouts, cut after 40 plies and scored by `evaluate`.
DEFAULT_MODEL = Model(playout_depth=40)


def model_for(view: State) -> Model:
    """What the search knows about the game of `view` (its `Game.search_model`)."""
    return registry.get(view.game_id).search_model(view) or DEFAULT_MODEL


@dataclass(frozen=True, slots=True)
class Searcher:
    """A level that searches: `simulations` per decision, at most `seconds` each."""

    simulations: int
    seconds: float

    def budget(self, model: Model) -> Budget:
        return Budget(max(1, round(self.simulations * model.effort)), self.seconds)

    def __call__(self, state: State, seat: int, rng: Rng) -> Hashable:
        model = model_for(state)
        return mcts.search(state, seat, model, self.budget(model), rng).move


LEVELS: dict[str, Policy] = {
    "random": random_policy,
    "easy": Searcher(40, 0.25),
    "normal": Searcher(300, 0.5),
    "hard": Searcher(2000, 1.0),
    "greedy": greedy_policy,
}
DEFAULT_LEVEL = "normal"


def choose_move(state: GameState[Any], seat: int, level: str = DEFAULT_LEVEL) -> Hashable:
    """A legal move for `seat`, chosen from what the seat may see; deterministic for a
    given position so replays and tests are reproducible."""
    view = state.view(seat)
    if not view.legal_moves(seat):
        raise ValueError(f"seat {seat} has no move to make")
    policy = LEVELS.get(level, LEVELS[DEFAULT_LEVEL])
    return policy(view, seat, decision_rng(view, seat, level))


def decision_rng(view: State, seat: int, level: str) -> Rng:
    """The generator of one decision: a function of what the seat sees and the level."""
    return Rng(seed_from_text(f"{view.to_text()}|{seat}|{level}"))


def hint(state: GameState[Any], seat: int) -> Hashable:
    """A suggested move for a practising player (a Hillbert run, say): what `hard` would
    play from what the seat may see."""
    return choose_move(state, seat, "hard")
