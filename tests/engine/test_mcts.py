"""The tree search behind the computer levels: legal and reproducible decisions in every
game, proven endgames, wins over a random player, and nothing seen beyond a seat's view."""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from engine import ai, everest, mcts, registry
from engine.core import Game, GameState, Model
from engine.everest import HIDDEN, HOMES, PEAK, EverestState, Plan
from engine.mcts import Budget
from engine.rng import Rng

GAMES = registry.all_games()
#: Every game at each of its smallest and largest number of seats.
SETUPS = [(g, n) for g in GAMES for n in sorted({g.min_players, g.max_players})]
SETUP_IDS = [f"{g.id}-{n}" for g, n in SETUPS]
UNTIMED = math.inf


def random_position(game: Game[Any], players: int, seed: int, plies: int) -> GameState[Any]:
    """The position after up to `plies` seeded random moves (stopping before the end)."""
    state = game.new_state(seed, players, None)
    rng = Rng(seed)
    for _ in range(plies):
        seat, rng = rng.choice(sorted(state.to_act))
        move, rng = rng.choice(state.legal_moves(seat))
        after = state.play(seat, move)
        if not after.to_act:
            break
        state = after
    return state


def search(state: GameState[Any], seat: int, simulations: int, seed: int) -> mcts.SearchResult:
    view = state.view(seat)
    return mcts.search(view, seat, ai.model_for(view), Budget(simulations, UNTIMED), Rng(seed))


@pytest.mark.parametrize(("game", "players"), SETUPS, ids=SETUP_IDS)
def test_search_plays_legal_moves_from_random_positions(game: Game[Any], players: int) -> None:
    for seed in range(4):
        state = random_position(game, players, seed, 3 + 5 * seed)
        for seat in sorted(state.to_act):
            result = search(state, seat, 60, seed)
            assert result.move in state.legal_moves(seat)
            assert 1 <= result.simulations <= 60 or len(state.legal_moves(seat)) == 1


@pytest.mark.parametrize(("game", "players"), SETUPS, ids=SETUP_IDS)
def test_search_is_deterministic_for_a_seed_and_count(game: Game[Any], players: int) -> None:
    state = random_position(game, players, 7, 6)
    seat = min(state.to_act)
    first = search(state, seat, 150, 11)
    again = search(state, seat, 150, 11)
    assert (first.move, first.simulations, first.root) == (
        again.move,
        again.simulations,
        again.root,
    )
    assert first.simulations == 150 or (first.root and max(s.visits for s in first.root) < 150)


def test_every_level_answers_from_the_contract_entry_point() -> None:
    assert set(ai.LEVELS) == {"random", "greedy", "easy", "normal", "hard"}
    assert ai.DEFAULT_LEVEL == "normal"
    budgets = [ai.LEVELS[level] for level in ("easy", "normal", "hard")]
    assert all(isinstance(b, ai.Searcher) for b in budgets)
    sims = [b.simulations for b in budgets if isinstance(b, ai.Searcher)]
    assert sims == sorted(sims) and len(set(sims)) == 3
    assert all(b.seconds <= 1.0 for b in budgets if isinstance(b, ai.Searcher))
    state = registry.get("hollowtown").new_state(5, 2, None)
    for level in ai.LEVELS:
        move = ai.choose_move(state, 0, level)
        assert move in state.legal_moves(0)
        assert ai.choose_move(state, 0, level) == move


def test_search_refuses_a_seat_that_is_not_to_act() -> None:
    state = registry.get("hokito").new_state(3, 2, None)
    with pytest.raises(ValueError, match="seat 1"):
        mcts.search(state, 1, ai.model_for(state), Budget(10), Rng(1))


def test_the_wall_time_cap_stops_a_long_search(monkeypatch: pytest.MonkeyPatch) -> None:
    state = registry.get("hokito").new_state(3, 2, None)
    result = mcts.search(state, 0, ai.model_for(state), Budget(10**9, 0.2), Rng(1))
    assert 0 < result.simulations < 10**9
    # On a clock that moves on 1/64 s each time it is read (once at the start, once after
    # each simulation), the search ends with the first simulation done past the cap.
    readings = itertools.count()
    clock = SimpleNamespace(perf_counter=lambda: next(readings) / 64)
    monkeypatch.setattr(mcts, "time", clock)
    result = mcts.search(state, 0, ai.model_for(state), Budget(10**9, 0.2), Rng(1))
    assert result.simulations == 13  # 12/64 s is within 0.2 s, 13/64 s beyond it


# --- the solver ---------------------------------------------------------------------------

#: Black to move. f2-f4 (path f2>d2>d4>f4) leaves White without a move, so the game ends
#: and Black wins 90 to 6; after any of Black's four other moves White has only replies
#: that leave Black stuck and losing.
HOKITO_WIN_IN_ONE = (
    ".,.,.,.,.,./.,.,.,.,.,./.,w3b1b2b2b1w3w1b2b3b3,.,w3,.,"
    "b3b1w2b2w2w2b1b1w1b3b2w1w2w2w2/.,.,.,.,.,./.,.,.,b2w1w1w3w1b1,.,w3b3b3/.,.,.,.,w3,. b"
)


def test_solver_proves_the_only_winning_move() -> None:
    state = registry.get("hokito").from_text(HOKITO_WIN_IN_ONE)
    assert len(state.legal_moves(0)) == 5
    for seed in range(5):
        result = search(state, 0, 5000, seed)
        assert str(result.move) == "f2-f4"
        proven = {str(s.move): s.proven for s in result.root}
        assert proven["f2-f4"] == 1.0
        assert 0.0 not in proven.values() or len(proven) > 1
        # Proving the root ends the search as soon as the winning move is tried.
        assert result.simulations <= len(state.legal_moves(0))


#: Black to move; no move wins at once, but after c2-e3 (White's only reply is a3-e4,
#: then d4-e4 leaves White stuck and behind) or e4-a3 Black wins by force.
HOKITO_WIN_IN_TWO = (
    ".,.,.,.,.,./.,.,.,.,.,./.,.,.,b2b2b1w3b1,b2b2b3w1w2w2w2b3,./b1w2b3w1b1b3w2b3b2w3,.,"
    "w3b3,.,b1b1w1w3w2,./.,.,w1w1w3w1w3b2,.,.,./.,.,.,.,.,. b"
)


def forces_win(state: GameState[Any], seat: int, plies: int) -> bool:
    """Plain minimax: does `seat` win by force within `plies`?"""
    outcome = state.outcome()
    if outcome is not None:
        return seat in outcome.winners
    if plies == 0:
        return False
    (actor,) = state.to_act
    results = (forces_win(state.play(actor, m), seat, plies - 1) for m in state.legal_moves(actor))
    return any(results) if actor == seat else all(results)


def test_solver_proves_a_win_in_two_moves() -> None:
    state = registry.get("hokito").from_text(HOKITO_WIN_IN_TWO)
    winning = {str(m) for m in state.legal_moves(0) if forces_win(state.play(0, m), 0, 2)}
    assert winning == {"c2-e3", "e4-a3"}
    for seed in range(3):
        result = search(state, 0, 5000, seed)
        assert str(result.move) in winning
        proven = {str(s.move): s.proven for s in result.root}
        assert proven[str(result.move)] == 1.0
        assert result.simulations < 5000


def test_solver_proves_losing_moves() -> None:
    """c3-d4 lets White end the game ahead at once: proven lost once it is explored."""
    state = registry.get("hokito").from_text(HOKITO_WIN_IN_TWO)
    losing = state.play(0, state.parse_move(0, "c3-d4"))
    result = search(losing, 1, 5000, 4)
    assert str(result.move) in {"a3-d4", "e3-d4"}
    proven = {str(s.move): s.proven for s in result.root}
    assert proven[str(result.move)] == 1.0


# --- strength -----------------------------------------------------------------------------


def play(game_id: str, seed: int, policies: tuple[ai.Policy, ai.Policy]) -> float:
    """Seat 0's points (1 win, 0.5 draw) in one game between two policies."""
    state = registry.get(game_id).new_state(seed, 2, None)
    while state.to_act:
        seats = sorted(state.to_act)
        moves: list[Hashable] = []
        for seat in seats:
            view = state.view(seat)
            moves.append(policies[seat](view, seat, Rng(seed * 7919 + len(moves))))
        for seat, move in zip(seats, moves, strict=True):
            state = state.play(seat, move)
    outcome = state.outcome()
    assert outcome is not None
    if not outcome.winners:
        return 0.5
    return 1.0 if 0 in outcome.winners else 0.0


@pytest.mark.parametrize(("game_id", "simulations"), [("hollowtown", 150), ("everest", 150)])
def test_search_beats_a_random_player(game_id: str, simulations: int) -> None:
    searcher = ai.Searcher(simulations, UNTIMED)
    points = 0.0
    games = 6
    for i in range(games):
        if i % 2 == 0:
            points += play(game_id, 100 + i, (searcher, ai.random_policy))
        else:
            points += 1.0 - play(game_id, 100 + i, (ai.random_policy, searcher))
    assert points >= games - 0.5


# --- hidden information -------------------------------------------------------------------


def secret_plan_state(plan: str = "4W 3S 2W", seed: int = 21) -> EverestState:
    """Two yeti at the start; Blue (seat 1) has sent `plan` in secret, Red must plan."""
    state = registry.get("everest").new_state(seed, 2, None)
    assert isinstance(state, EverestState)
    after = state.play(1, state.parse_move(1, plan))
    assert after.to_act == frozenset({0})
    return after


def test_the_search_only_ever_receives_the_seats_view(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[GameState[Any]] = []
    real_search = mcts.search

    def spy(view: GameState[Any], seat: int, model: Model, budget: Budget, rng: Rng) -> Any:
        seen.append(view)
        return real_search(view, seat, model, budget, rng)

    monkeypatch.setattr(mcts, "search", spy)
    state = secret_plan_state()
    for level in ("easy", "normal", "hard"):
        ai.choose_move(state, 0, level)
    assert len(seen) == 3
    for view in seen:
        assert isinstance(view, EverestState)
        assert view.plans[1] == HIDDEN
        assert view.rng == Rng(0, 0)


def test_a_secret_plan_does_not_change_the_decision() -> None:
    state = secret_plan_state()
    other = secret_plan_state("sAN s2N s3N", seed=99)
    assert state != other and state.view(0) == other.view(0)
    for level in ("easy", "normal"):
        assert ai.choose_move(state, 0, level) == ai.choose_move(other, 0, level)


def test_determinized_plans_are_legal_and_varied() -> None:
    state = secret_plan_state()
    view = state.view(0)
    model = ai.model_for(view)
    assert model.determinize is not None
    rng = Rng(5)
    sampled = set()
    for _ in range(30):
        filled, rng = model.determinize(view, 0, rng)
        assert isinstance(filled, EverestState)
        plan = filled.plans[1]
        assert plan is not None and plan != HIDDEN
        assert Plan(plan) in registry.get("everest").new_state(1, 2, None).legal_moves(1)
        sampled.add(plan)
    assert len(sampled) > 5


# --- Everest plans the search starts from -------------------------------------------------


def test_climbs_from_home_reach_the_peak_in_one_round() -> None:
    """The best climbs from Red's home are the only two plans that reach the peak when
    Blue stays put; the engine agrees."""
    state = registry.get("everest").new_state(3, 2, None)
    assert isinstance(state, EverestState)
    best = [climb for value, climb in everest._climbs(HOMES[0], state.available(0)) if value == 6.0]
    assert len(best) == 2
    lone = replace(state, plans=(None, HIDDEN))
    for climb in best:
        plan = Plan(tuple(coin * 8 + d for coin, d in climb))
        assert lone.play(0, plan).pos[0] in PEAK


def test_proposed_plans_are_legal_everywhere() -> None:
    game = registry.get("everest")
    for seed in range(8):
        state = random_position(game, 4, seed, 4 * seed)
        assert isinstance(state, EverestState)
        rng = Rng(seed)
        for seat in range(4):
            if state.stage != "plan" or seat not in state.to_act:
                continue
            for _ in range(20):
                plan, rng = everest._plausible_plan(state, seat, rng)
                assert plan in state.legal_moves(seat)


def test_greedy_expects_simultaneous_seats_to_stay_idle() -> None:
    """With both yeti to plan, greedy still weighs its plan: it leaves home and climbs."""
    state = registry.get("everest").new_state(8, 2, None)
    assert isinstance(state, EverestState)
    plan = ai.choose_move(state, 0, "greedy")
    after = state.play(0, plan).play(1, Plan(()))
    assert isinstance(after, EverestState)
    assert after.evaluate(0) > state.evaluate(0)


# --- Hillbert ------------------------------------------------------------------------------


def test_hint_is_a_legal_reproducible_move(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same search twice gives the same move when it runs its simulations to the end;
    # a busy machine would cut it short by the clock at different points, so the test
    # gives it all the time it needs.
    hard = ai.LEVELS["hard"]
    assert isinstance(hard, ai.Searcher)
    monkeypatch.setitem(ai.LEVELS, "hard", ai.Searcher(hard.simulations, 600.0))
    state = registry.get("hillbert").new_state(2024, 1, None)
    move = ai.hint(state, 0)
    assert move in state.legal_moves(0)
    assert ai.hint(state, 0) == move


def test_hillbert_search_does_not_see_the_hill_below() -> None:
    """Two hills that agree on every visible row give the same decision."""
    game = registry.get("hillbert")
    state = game.new_state(77, 1, None)
    twin = replace(state, rng=Rng(78))
    assert state.view(0) == twin.view(0)
    assert ai.choose_move(state, 0, "easy") == ai.choose_move(twin, 0, "easy")
