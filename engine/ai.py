"""Computer players over the engine contract.

A computer player only ever sees `state.view(seat)`. `choose_move` is the single entry
point the host calls, so a stronger search can replace the policy behind a level name
without touching any caller.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from engine.core import GameState
from engine.rng import Rng, seed_from_text

Policy = Callable[[GameState[Any], int, Rng], Hashable]


def random_policy(state: GameState[Any], seat: int, rng: Rng) -> Hashable:
    moves: list[Hashable] = list(state.legal_moves(seat))
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
    ties are broken by the generator so the bot does not always play the same line."""
    moves = list(state.legal_moves(seat))
    if len(moves) > GREEDY_SAMPLE:
        # Everest offers thousands of plans; a fixed sample keeps a decision well under
        # a second while still choosing among many candidates.
        moves = [moves[i] for i in _sample_indices(len(moves), GREEDY_SAMPLE, rng)]
    best: list[Hashable] = []
    best_value = float("-inf")
    for move in moves:
        value = state.play(seat, move).evaluate(seat)
        if value > best_value:
            best_value, best = value, [move]
        elif value == best_value:
            best.append(move)
    choice, _ = rng.choice(best)
    return choice


LEVELS: dict[str, Policy] = {
    "random": random_policy,
    "easy": greedy_policy,
    "normal": greedy_policy,
    "hard": greedy_policy,
}
DEFAULT_LEVEL = "normal"


def choose_move(state: GameState[Any], seat: int, level: str = DEFAULT_LEVEL) -> Hashable:
    """A legal move for `seat`, chosen from what the seat may see; deterministic for a
    given position so replays and tests are reproducible."""
    view = state.view(seat)
    if not view.legal_moves(seat):
        raise ValueError(f"seat {seat} has no move to make")
    policy = LEVELS.get(level, LEVELS[DEFAULT_LEVEL])
    rng = Rng(seed_from_text(f"{view.to_text()}|{seat}|{level}"))
    return policy(view, seat, rng)
