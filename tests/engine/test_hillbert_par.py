"""Par for a Hillbert seed: the upper quartile of a field of one-turn players who mind
his hunger. Each run is played to its end by the hunger rule and replays to its score.
Par stays put when the field breaks its ties another way, never falls below the careful
player's median on the pinned hills, and does not collapse where that player does."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest

from engine.hillbert import HillbertState, new_hill
from engine.hillbert_par import (
    PAR_RANK,
    PAR_RUNS,
    ParResult,
    careful_run,
    foresee,
    greedy,
    greedy_move,
    par,
    weighed_move,
    weighed_run,
    worth,
)
from engine.rng import Rng

#: Regression pins, measured with this code (par is the 16th lowest of 21 runs): hills 1,
#: 5 and 12 as pinned before par changed, and 108, where every careful run starves at
#: once. They move if the field's judgement, its tie-breaks or the hill generator change.
#: Then measure again, and check that each still clears the careful median below.
PINNED = {1: (335, 174), 5: (133, 80), 12: (297, 165), 108: (270, 156)}
#: The median of 7 careful runs on each pinned hill (measured; par used to be exactly this).
CAREFUL_MEDIAN = {1: 328, 5: 45, 12: 142, 108: 5}
TURNS = 60


@cache
def par_of(seed: int) -> ParResult:
    return par(seed)


@cache
def field(seed: int, first: int) -> list[ParResult]:
    """The runs numbered `first` to `first + PAR_RUNS - 1` on `seed`'s hill, each played
    to its end, lowest first (by score, then more turns)."""
    runs = [weighed_run(seed, n) for n in range(first, first + PAR_RUNS)]
    return sorted(runs, key=lambda r: (r.score, -r.turns))


def replay(seed: int, moves: tuple[str, ...]) -> tuple[int, int, bool]:
    """Score, turns and whether the game ended, from the seed and the written turns."""
    state = new_hill(seed)
    for text in moves:
        state = state.play(0, state.parse_move(0, text))
    return state.score, state.turns, state.is_over


@pytest.mark.parametrize("seed", sorted(PINNED))
def test_par_is_a_run_that_ends_by_the_hunger_rule_and_replays_to_its_score(seed: int) -> None:
    result = par_of(seed)
    score, turns, over = replay(seed, result.moves)
    assert (score, turns) == (result.score, result.turns) == (score, len(result.moves))
    assert over  # ended as a player's run ends, not cut at a number of turns


def test_par_on_the_pinned_hills() -> None:
    assert {seed: (par_of(seed).score, par_of(seed).turns) for seed in PINNED} == PINNED


@pytest.mark.parametrize("seed", sorted(PINNED))
def test_par_is_at_least_the_careful_median(seed: int) -> None:
    careful = sorted(careful_run(seed, run).score for run in range(7))
    assert careful[3] == CAREFUL_MEDIAN[seed]
    assert par_of(seed).score >= careful[3]


def test_par_does_not_collapse_where_the_careful_player_starves_at_once() -> None:
    # On hill 108 no food is in reach at first; every careful run strides on and
    # starves within 5 rows (par used to be 5). The field minds his hunger and goes on
    # for hundreds of rows.
    assert {careful_run(108, run).score for run in range(7)} == {5}
    assert par_of(108).score >= 100
    assert field(108, 0)[0].score >= 50  # not one run of the field collapses


def test_par_is_the_rank_th_run_of_the_field_played_to_its_end() -> None:
    # The search leaves the runs above par unfinished; par is the same run all the same.
    assert PAR_RANK == 16 and PAR_RUNS == 21  # the upper quartile
    assert par_of(5) == field(5, 0)[PAR_RANK - 1]


def test_par_stays_put_when_the_field_breaks_ties_another_way() -> None:
    # On hill 112 the runs fall into those that starve early (35 rows or fewer) and those
    # that get going (over 300): the median of one set of runs lands on either side, the
    # upper quartile does not.
    one, other = field(112, 0), field(112, 100)
    assert one[PAR_RANK - 1].score == other[PAR_RANK - 1].score == 320
    assert one[PAR_RUNS // 2].score == 318 and other[PAR_RUNS // 2].score == 35
    assert par_of(112) == one[PAR_RANK - 1]


def playable(seed: int, turns: int) -> list[HillbertState]:
    """The positions of a field run's first `turns` turns on `seed`'s hill."""
    state = new_hill(seed)
    rng: Rng | None = Rng(seed)
    seen: list[HillbertState] = []
    while not state.is_over and len(seen) < turns:
        seen.append(state)
        move, rng = weighed_move(state, rng)
        state = state.play(0, move)
    return seen


@pytest.mark.parametrize("seed", [5, 108, 112])
def test_foresee_agrees_with_the_engine_on_every_turn(seed: int) -> None:
    for state in playable(seed, TURNS):
        view = state.view(0)
        for move in view.legal_moves(0):
            after, report = view.resolve(move)
            assert foresee(view, move) == (report.scrolled, after.size, after.hungry)
            # A turn that starves him is worth less than any other.
            assert (worth(view, move) < 0) == after.is_over


def test_the_field_never_starves_him_while_another_turn_keeps_him_going() -> None:
    # The positions of a careful run on hill 12, hungry ones among them: where some turns
    # starve him and others do not, the field takes one that does not.
    state, choices = new_hill(12), 0
    for text in careful_run(12, 0).moves:
        view = state.view(0)
        ends = {move: view.resolve(move)[0].is_over for move in view.legal_moves(0)}
        if any(ends.values()) and not all(ends.values()):
            choices += 1
            assert not ends[weighed_move(state)[0]]
        state = state.play(0, state.parse_move(0, text))
    assert choices == 3  # measured: the test is not vacuous


def test_the_field_sees_only_the_board() -> None:
    # The same board on another seed: the rows below differ, the choice does not.
    hidden_rows_differ = False
    for state in playable(12, 20):
        elsewhere = replace(state, rng=Rng(987654321))
        move, _ = weighed_move(state)
        assert weighed_move(elsewhere) == (move, None)
        hidden_rows_differ |= state.play(0, move).board != elsewhere.play(0, move).board
    assert hidden_rows_differ


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


def test_time_cap_and_bad_arguments() -> None:
    assert par(3, max_seconds=0.0) == ParResult(0, 0, ())
    with pytest.raises(ValueError, match="runs"):
        par(3, runs=0)
    with pytest.raises(ValueError, match="rank"):
        par(3, runs=5, rank=6)
    with pytest.raises(ValueError, match="rank"):
        par(3, rank=0)
