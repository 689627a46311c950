"""Par for a Hillbert seed: what a careful player reaches on that seed's hill.

A careful player sees what a person sees (the board, never the rows below it) and looks
one turn ahead: it eats when it can, then goes furthest, then ends biggest. Each run is
played to its end by the hunger rule every player's run ends by (RULES.md 4(a) 6), so
par is a result a good run can reach. (A search that picks, among many lines, those that
the rows below happen to feed keeps Hillbert going for thousands of rows on most hills:
a best no person reaches.) Players alike in skill end far apart on one hill, as one turn
of luck early on keeps them fed or not, so par is the median of `PAR_RUNS` careful runs
that differ only in how they break ties between equally good turns; its line is that
median run's. The result depends only on the seed; `max_turns` and `max_seconds` are
safety caps that no run on an ordinary hill comes near.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine.hillbert import HillbertState, Turn, new_hill
from engine.rng import Rng, hash64

#: Careful runs per hill; par is the median run (an odd count, so one run is the median).
PAR_RUNS = 7
#: Safety caps: a run stops after this many turns, the search after this many seconds.
DEFAULT_MAX_TURNS = 20_000
DEFAULT_MAX_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class ParResult:
    """The par run: its final score, its number of turns and the turns played."""

    score: int
    turns: int
    moves: tuple[str, ...]


def _value(state: HillbertState, move: Turn) -> tuple[bool, int, int]:
    after, report = state.resolve(move)
    return (report.ate, after.score, after.size)


def careful_move(state: HillbertState, rng: Rng | None = None) -> tuple[Turn, Rng | None]:
    """The turn that eats if it can, then goes furthest, then ends biggest, judged from
    what the player sees; equally good turns are told apart by `rng` (None: the first)."""
    view = state.view(0)
    moves = view.legal_moves(0)
    values = [_value(view, move) for move in moves]
    best = max(values)
    tied = [move for move, value in zip(moves, values, strict=True) if value == best]
    if rng is None or len(tied) == 1:
        return tied[0], rng
    return rng.choice(tied)


def greedy_move(state: HillbertState) -> Turn:
    """The careful turn, ties broken by the order of the legal turns."""
    return careful_move(state)[0]


def careful_run(
    seed: int,
    run: int | None = None,
    *,
    max_turns: int = DEFAULT_MAX_TURNS,
    deadline: float | None = None,
) -> ParResult:
    """A careful player's run on `seed`'s hill to its end; `run` numbers the way it
    breaks ties (None: always the first of the equally good turns)."""
    state = new_hill(seed)
    rng = None if run is None else Rng(hash64(seed, run))
    moves: list[str] = []
    while not state.is_over and state.turns < max_turns:
        if deadline is not None and time.monotonic() > deadline:
            break
        move, rng = careful_move(state, rng)
        moves.append(str(move))
        state = state.play(0, move)
    return ParResult(state.score, state.turns, tuple(moves))


def par(
    seed: int,
    *,
    runs: int = PAR_RUNS,
    max_turns: int = DEFAULT_MAX_TURNS,
    max_seconds: float = DEFAULT_MAX_SECONDS,
) -> ParResult:
    """Par of `seed`'s hill: the median of `runs` careful runs (by score, then turns)."""
    if runs < 1:
        raise ValueError(f"runs must be at least 1, not {runs}")
    deadline = time.monotonic() + max_seconds
    found = [careful_run(seed, run, max_turns=max_turns, deadline=deadline) for run in range(runs)]
    found.sort(key=lambda result: (result.score, -result.turns))
    return found[(runs - 1) // 2]


def greedy(seed: int, *, max_turns: int = DEFAULT_MAX_TURNS) -> int:
    """The score of the careful player that always takes the first of its equally good
    turns, on `seed`'s hill."""
    return careful_run(seed, max_turns=max_turns).score
