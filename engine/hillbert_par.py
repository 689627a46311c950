"""Par for a Hillbert seed: the score a bounded search reaches on that seed's hill.

The hill is a pure function of the seed (RULES.md 4(b) 24), so a search that knows the
seed sees exactly what a player will meet. `par` runs a beam search: every turn it expands
each kept position by all its legal turns, merges identical positions, and keeps the
`beam_width` most promising ones. The result depends only on the seed and the width, not
on the machine, unless `max_seconds` runs out first (a safety cap; the default width stays
far below it). `greedy` is a one-turn lookahead player to compare against.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine.hillbert import HillbertState, Turn, new_hill

DEFAULT_BEAM_WIDTH = 16
DEFAULT_MAX_SECONDS = 60.0
#: A search can keep Hillbert fed for thousands of turns on most seeds, so lines stop
#: at this many turns; par is then the best score reached within them.
DEFAULT_MAX_TURNS = 250


@dataclass(frozen=True, slots=True)
class ParResult:
    """The best line found: its final score, its number of turns and the turns played."""

    score: int
    turns: int
    moves: tuple[str, ...]


def _promise(state: HillbertState) -> tuple[int, int, int, int]:
    """Sort key for the beam: points first, then reserves against starving."""
    size_left = state.turns_to_starve
    open_cells = sum(row.count(".") + row.count("o") for row in state.board[:4])
    return (state.score + 3 * size_left, size_left, open_cells, -state.turns)


def _key(state: HillbertState) -> tuple[object, ...]:
    return (state.board, state.size, state.col, state.score, state.hungry, state.jumped)


@dataclass(slots=True)
class _Line:
    state: HillbertState
    parent: _Line | None
    move: Turn | None

    def moves(self) -> tuple[str, ...]:
        out: list[str] = []
        line: _Line | None = self
        while line is not None and line.move is not None:
            out.append(str(line.move))
            line = line.parent
        return tuple(reversed(out))


def par(
    seed: int,
    *,
    beam_width: int = DEFAULT_BEAM_WIDTH,
    max_seconds: float = DEFAULT_MAX_SECONDS,
    max_turns: int = DEFAULT_MAX_TURNS,
) -> ParResult:
    """The best score a beam search of `beam_width` finds on `seed`'s hill within
    `max_turns` turns."""
    if beam_width < 1:
        raise ValueError(f"beam_width must be at least 1, not {beam_width}")
    deadline = time.monotonic() + max_seconds
    start = _Line(new_hill(seed), None, None)
    best = start
    beam = [start]
    while beam and time.monotonic() < deadline:
        children: dict[tuple[object, ...], _Line] = {}
        for line in beam:
            state = line.state
            for move in state.legal_moves(0):
                child = state.play(0, move)
                key = _key(child)
                if key not in children:
                    children[key] = _Line(child, line, move)
        beam = []
        for line in children.values():
            state = line.state
            if (state.score, -state.turns) > (best.state.score, -best.state.turns):
                best = line
            if not state.is_over and state.turns < max_turns:
                beam.append(line)
        beam.sort(key=lambda line: _promise(line.state), reverse=True)
        del beam[beam_width:]
    return ParResult(best.state.score, best.state.turns, best.moves())


def greedy_move(state: HillbertState) -> Turn:
    """The turn that eats if it can, then goes furthest, then ends biggest."""

    def value(move: Turn) -> tuple[bool, int, int]:
        after, report = state.resolve(move)
        return (report.ate, after.score, after.size)

    return max(state.legal_moves(0), key=value)


def greedy(seed: int, *, max_turns: int = DEFAULT_MAX_TURNS) -> int:
    """The score of the one-turn greedy player on `seed`'s hill within `max_turns` turns."""
    state = new_hill(seed)
    while not state.is_over and state.turns < max_turns:
        state = state.play(0, greedy_move(state))
    return state.score
