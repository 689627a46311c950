"""Par for a Hillbert seed: a beam search that beats the greedy player and replays."""

from __future__ import annotations

import pytest

from engine.hillbert import new_hill
from engine.hillbert_par import ParResult, greedy, greedy_move, par

SEEDS = [1, 5, 12, 2024]
TURNS = 60


def replay(seed: int, moves: tuple[str, ...]) -> tuple[int, int, bool]:
    """Score, turns and whether the game ended, from the seed and the written turns."""
    state = new_hill(seed)
    for text in moves:
        state = state.play(0, state.parse_move(0, text))
    return state.score, state.turns, state.is_over


@pytest.mark.parametrize("seed", SEEDS)
def test_par_is_at_least_greedy_and_its_moves_replay_to_its_score(seed: int) -> None:
    result = par(seed, beam_width=8, max_turns=TURNS)
    assert result.score >= greedy(seed, max_turns=TURNS)
    score, turns, over = replay(seed, result.moves)
    assert (score, turns) == (result.score, result.turns) == (score, len(result.moves))
    assert over or turns <= TURNS


def test_a_wider_beam_does_not_do_worse_here_and_the_result_is_deterministic() -> None:
    narrow = par(12, beam_width=2, max_turns=40)
    wide = par(12, beam_width=16, max_turns=40)
    assert wide.score >= narrow.score
    assert par(12, beam_width=16, max_turns=40) == wide


def test_greedy_replays_and_prefers_to_eat() -> None:
    state = new_hill(5)
    turns = 0
    while not state.is_over and turns < TURNS:
        move = greedy_move(state)
        ate = any(state.resolve(m)[1].ate for m in state.legal_moves(0))
        assert state.resolve(move)[1].ate == ate
        state = state.play(0, move)
        turns += 1
    assert state.score == greedy(5, max_turns=TURNS)


def test_time_cap_and_bad_width() -> None:
    capped = par(3, beam_width=4, max_seconds=0.0)
    assert capped == ParResult(0, 0, ())
    with pytest.raises(ValueError, match="beam_width"):
        par(3, beam_width=0)
