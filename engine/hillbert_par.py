"""Par for a Hillbert seed: what a strong player reaches on that seed's hill.

Par stands for a field of players who see what a person sees (the board, never the rows
below it) and look one turn ahead. They weigh each turn the same way: the rows it gains,
plus `TURN_WORTH` rows for each turn he could then still go without food, a count that
grows with his size and shrinks with his hunger. So they never take a turn that starves
him while another does not. They differ only in how they break ties between equally
good turns. Each run is played to its end by the hunger rule every player's run ends by
(RULES.md 4(a) 6), so par is a result a run can reach. Its line is that run's own, a
run a player can replay.

Why this field, and why par is its upper quartile:

- The runs of one hill fall into two groups: those that starve early and those that get
  going. One turn of luck decides which, so the median run jumps between the two groups
  from one set of runs to the next. Par is the `PAR_RANK`-th lowest of `PAR_RUNS` runs,
  the score the best quarter of the field reaches: a strong player's result, and one
  that barely moves when the runs break their ties another way.
- A player that eats when it can and otherwise goes furthest (`careful_run`, the player
  par used to stand for) pays no heed to his hunger. On hill 108 every such run starves
  within 5 rows; no run of this field stops short of 50, and its best quarter goes on
  for hundreds. Par is never below that player's median on the hills the tests pin.
- A player that looks two turns ahead over the rows it sees hardly ever starves: on
  most hills it goes on for thousands of rows, beyond any daily run a person plays. Its
  end comes from one rare slip, so such a par would swing many times over from one set
  of runs to the next, and its search would take seconds for each thousand turns.

The runs are played side by side, the lowest score first. The search stops once the
`PAR_RANK`-th run has ended below every run still going, so the longest runs are never
played to their ends. The result depends only on the seed. `max_turns` and
`max_seconds` are safety caps that no run on an ordinary hill comes near.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.hillbert import BIG, HUNGER_LIMIT, SMALL, HillbertState, Turn, _Sim, new_hill
from engine.rng import Rng, hash64

#: Runs per hill, which differ only in how they break ties.
PAR_RUNS = 21
#: Par is this run counting from the lowest: the upper quartile of `PAR_RUNS`.
PAR_RANK = 16
#: What one more turn he could go without food is worth, in rows (as in the engine's own
#: `evaluate`): a meal is worth more than a row or two, less than a long stride.
TURN_WORTH = 2.0
#: Safety caps: a run stops after this many turns, the search after this many seconds.
DEFAULT_MAX_TURNS = 20_000
DEFAULT_MAX_SECONDS = 60.0
#: Below the worth of any turn after which he can still go on.
_STARVES = -1e9


@dataclass(frozen=True, slots=True)
class ParResult:
    """The par run: its final score, its number of turns and the turns played."""

    score: int
    turns: int
    moves: tuple[str, ...]


# --- the careful player -----------------------------------------------------------------


def _value(state: HillbertState, move: Turn) -> tuple[bool, int, int]:
    after, report = state.resolve(move)
    return (report.ate, after.score, after.size)


def _best_move(
    state: HillbertState, value: Callable[[HillbertState, Turn], Any], rng: Rng | None
) -> tuple[Turn, Rng | None]:
    """The turn of highest `value`, judged from what the player sees (the board, never
    the rows below it); equally good turns are told apart by `rng` (None: the first)."""
    view = state.view(0)
    moves = view.legal_moves(0)
    values = [value(view, move) for move in moves]
    best = max(values)
    tied = [move for move, v in zip(moves, values, strict=True) if v == best]
    if rng is None or len(tied) == 1:
        return tied[0], rng
    return rng.choice(tied)


def careful_move(state: HillbertState, rng: Rng | None = None) -> tuple[Turn, Rng | None]:
    """The turn that eats if it can, then goes furthest, then ends biggest."""
    return _best_move(state, _value, rng)


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
    rng = _tie_breaks(seed, run)
    moves: list[str] = []
    while not state.is_over and state.turns < max_turns:
        if deadline is not None and time.monotonic() > deadline:
            break
        move, rng = careful_move(state, rng)
        moves.append(str(move))
        state = state.play(0, move)
    return ParResult(state.score, state.turns, tuple(moves))


def greedy(seed: int, *, max_turns: int = DEFAULT_MAX_TURNS) -> int:
    """The score of the careful player that always takes the first of its equally good
    turns, on `seed`'s hill."""
    return careful_run(seed, max_turns=max_turns).score


# --- the player par stands for ----------------------------------------------------------


def foresee(view: HillbertState, turn: Turn) -> tuple[int, int, int]:
    """What `turn` does, as the player sees it coming: the rows it gains, his size and
    his hunger after it.

    It is played by the engine's own step rules (`_Sim`) on the board alone, which is
    all a turn's outcome depends on, without making the rows that scroll in: those are
    hidden from the player, and making them is half the cost of playing the turn."""
    sim = _Sim([list(row) for row in view.board], view.size, 0, view.col, [], [], [])
    for drow, dcol, steps in ((1, 0, turn.forward), (0, turn.side, turn.sideways)):
        for length in steps:
            if not sim.step(drow, dcol, length):
                break
    if sim.eaten:
        if sim.size < BIG:
            sim.grow()
        return sim.row, sim.size, 0
    hungry = view.hungry + (1 if view.size == SMALL else 0)
    return sim.row, max(sim.size - 1, SMALL), hungry


def worth(view: HillbertState, turn: Turn) -> float:
    """How the player weighs `turn`: the rows it gains, plus `TURN_WORTH` rows for each
    turn he could then still go without food; below every other turn if it starves him
    (the more rows, the better still)."""
    rows, size, hungry = foresee(view, turn)
    if hungry >= HUNGER_LIMIT:
        return _STARVES + rows
    return rows + TURN_WORTH * (size - 1 + HUNGER_LIMIT - hungry)


def weighed_move(state: HillbertState, rng: Rng | None = None) -> tuple[Turn, Rng | None]:
    """The turn worth most (`worth`)."""
    return _best_move(state, worth, rng)


def weighed_run(
    seed: int, run: int | None = None, *, max_turns: int = DEFAULT_MAX_TURNS
) -> ParResult:
    """One run of the field par stands for, on `seed`'s hill to its end; `run` numbers
    the way it breaks ties (None: always the first of the equally good turns)."""
    state, rng = new_hill(seed), _tie_breaks(seed, run)
    moves: list[str] = []
    while not state.is_over and state.turns < max_turns:
        move, rng = weighed_move(state, rng)
        moves.append(str(move))
        state = state.play(0, move)
    return ParResult(state.score, state.turns, tuple(moves))


def _tie_breaks(seed: int, run: int | None) -> Rng | None:
    return None if run is None else Rng(hash64(seed, run))


@dataclass(slots=True)
class _Run:
    """A run under way in the par search."""

    state: HillbertState
    rng: Rng | None
    moves: list[str]

    def result(self) -> ParResult:
        return ParResult(self.state.score, self.state.turns, tuple(self.moves))


def _rank(result: ParResult) -> tuple[int, int]:
    """Runs rank by score, then by fewer turns."""
    return result.score, -result.turns


def par(
    seed: int,
    *,
    runs: int = PAR_RUNS,
    rank: int = PAR_RANK,
    max_turns: int = DEFAULT_MAX_TURNS,
    max_seconds: float = DEFAULT_MAX_SECONDS,
) -> ParResult:
    """Par of `seed`'s hill: of the runs `weighed_run(seed, n)` for n below `runs`, the
    `rank`-th lowest (by score, then more turns), with its line.

    The run with the lowest score so far moves next, so once `rank` runs have ended
    below every run still going, those can only end above par and are left there."""
    if runs < 1:
        raise ValueError(f"runs must be at least 1, not {runs}")
    if not 1 <= rank <= runs:
        raise ValueError(f"rank must be from 1 to {runs}, not {rank}")
    deadline = time.monotonic() + max_seconds
    going = [(0, n, _Run(new_hill(seed), _tie_breaks(seed, n), [])) for n in range(runs)]
    heapq.heapify(going)
    ended: list[ParResult] = []
    while going and time.monotonic() < deadline:
        score, number, run = going[0]
        if len(ended) >= rank and ended[rank - 1].score < score:
            break  # every run still going ends above par
        if run.state.is_over or run.state.turns >= max_turns:
            heapq.heappop(going)
            ended.append(run.result())
            ended.sort(key=_rank)
            continue
        move, run.rng = weighed_move(run.state, run.rng)
        run.moves.append(str(move))
        run.state = run.state.play(0, move)
        heapq.heapreplace(going, (run.state.score, number, run))
    ended.extend(run.result() for _, _, run in going)
    ended.sort(key=_rank)
    return ended[rank - 1]
