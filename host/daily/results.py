"""A daily run's result: recomputed from its seed and move log before it is ranked, and
told in words and a strip of emoji with its legend."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from data.repository import GameRecord, MoveRecord
from engine.core import MoveError
from engine.hillbert import BIG, GAME, MEDIUM, SMALL, HillbertState
from engine.text import Text, t

#: Red for Small, the size he starves at; green for Big, well fed.
SIZE_EMOJI = {1: "🟥", 2: "🟨", 3: "🟩"}
STRIP_LENGTH = 24


def size_strip(sizes: str, length: int = STRIP_LENGTH) -> str:
    """An emoji per stretch of the run: his largest size in it (red Small, yellow
    Medium, green Big; `size_legend` says so in words)."""
    if not sizes:
        return ""
    buckets = min(length, len(sizes))
    out = []
    for i in range(buckets):
        part = sizes[i * len(sizes) // buckets : (i + 1) * len(sizes) // buckets]
        out.append(SIZE_EMOJI[max(int(c) for c in part)])
    return "".join(out)


def size_legend() -> Text:
    """What the strip's colours mean, for the line under it."""
    return t(
        "{small} Small (starving) · {medium} Medium · {big} Big",
        small=SIZE_EMOJI[SMALL],
        medium=SIZE_EMOJI[MEDIUM],
        big=SIZE_EMOJI[BIG],
    )


@dataclass(frozen=True)
class Replayed:
    score: int
    turns: int
    sizes: str
    #: The run ended by the rules (rather than being cut off at its hill's close).
    over: bool


def replay_log(
    record: GameRecord, moves: Sequence[MoveRecord], until: float | None = None
) -> Replayed | None:
    """The result of a run recomputed from its seed and move log, as it stood at `until`
    (moves made later are left out); None if the whole log does not lead to the stored
    position."""
    state: Any = GAME.new_state(record.seed, 1, None)
    scored = state
    sizes = []
    try:
        for entry in moves:
            state = state.play(entry.seat, state.parse_move(entry.seat, entry.text))
            if until is None or entry.created_at < until:
                scored = state
                sizes.append(str(state.size))
    except MoveError:
        return None
    if state.to_text() != record.snapshot:
        return None
    assert isinstance(scored, HillbertState)
    return Replayed(scored.score, scored.turns, "".join(sizes), scored.outcome() is not None)
