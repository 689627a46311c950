"""Everest: one round's resolution for four yeti with conflicts."""

from __future__ import annotations

import time

from bench.common import percentiles
from engine import registry
from engine.rng import Rng


def round_resolution(rounds: int = 200) -> tuple[float, float, float]:
    """p50/p95 ms, over `rounds` 4-yeti rounds that had a roll-off, from the last plan
    to the next planning phase (every pick included); and p50 over all rounds tried."""
    game = registry.get("everest")
    with_conflict: list[float] = []
    every: list[float] = []
    seed = 0
    while len(with_conflict) < rounds:
        seed += 1
        state = game.new_state(seed, 4, None)
        rng = Rng(seed)
        for seat in (0, 1, 2):
            plan, rng = rng.choice(state.legal_moves(seat))
            state = state.play(seat, plan)
        last, rng = rng.choice(state.legal_moves(3))
        start = time.perf_counter()
        state = state.play(3, last)
        conflict = False
        while state.to_act and state.stage != "plan":  # type: ignore[attr-defined]
            seat = min(state.to_act)
            conflict |= state.stage == "pick"  # type: ignore[attr-defined]
            state = state.play(seat, state.timeout_move(seat))
        elapsed = (time.perf_counter() - start) * 1000
        every.append(elapsed)
        if conflict:
            with_conflict.append(elapsed)
    p50, p95, _ = percentiles(with_conflict)
    return p50, p95, percentiles(every)[0]
