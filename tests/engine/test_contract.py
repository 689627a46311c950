"""The engine contract, checked over every registered game by seeded random playouts."""

from __future__ import annotations

from typing import Any

import pytest

from engine import ai, registry
from engine.core import Game, GameState, IllegalMoveError, InvalidMoveError, MoveError
from engine.rng import Rng

GAMES = registry.all_games()
IDS = [g.id for g in GAMES]
SEED = 987_654_321_012
MAX_PLIES = 3000


def player_counts(game: Game[Any]) -> list[int]:
    return sorted({game.min_players, game.max_players})


def playout(game: Game[Any], seed: int, players: int) -> list[GameState[Any]]:
    """A whole random game; every state along the way."""
    state = game.new_state(seed, players, None)
    rng = Rng(seed)
    states = [state]
    for _ in range(MAX_PLIES):
        if not state.to_act:
            break
        seat, rng = rng.choice(sorted(state.to_act))
        moves = state.legal_moves(seat)
        assert len(moves), f"{game.id}: seat {seat} is to act but has no legal move"
        move, rng = rng.choice(moves)
        state = state.play(seat, move)
        states.append(state)
    return states


def test_registry_lists_games_by_id() -> None:
    assert "hokito" in IDS
    for game in GAMES:
        assert registry.get(game.id) is game
        assert len(game.seat_names) >= game.max_players or game.max_players == 1
    with pytest.raises(KeyError):
        registry.get("no-such-game")


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@pytest.mark.parametrize("seed", [1, 2, SEED])
def test_random_playouts_keep_the_contract(game: Game[Any], seed: int) -> None:
    for players in player_counts(game):
        states = playout(game, seed, players)
        final = states[-1]
        assert not final.to_act, f"{game.id} did not end within {MAX_PLIES} plies"
        outcome = final.outcome()
        assert outcome is not None and len(outcome.scores) == players
        assert outcome.winners <= set(range(players))
        assert str(outcome.reason)
        for state in states:
            assert game.from_text(state.to_text()) == state
            assert state.num_seats == players
            assert (state.outcome() is None) == bool(state.to_act)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_moves_round_trip_through_their_text(game: Game[Any]) -> None:
    for state in playout(game, 5, game.min_players)[:60]:
        for seat in sorted(state.to_act):
            for move in list(state.legal_moves(seat))[:40]:
                text = state.move_text(move)
                assert state.parse_move(seat, text) == move, text


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_move_texts_write_out_every_legal_move_in_order(game: Game[Any]) -> None:
    for state in playout(game, 6, game.max_players)[:80:3]:
        for seat in range(state.num_seats):
            expected = [str(state.move_text(m)) for m in state.legal_moves(seat)]
            assert list(state.move_texts(seat)) == expected


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_replay_from_seed_and_log_is_exact(game: Game[Any]) -> None:
    states = playout(game, 11, game.max_players)
    log: list[tuple[int, str]] = []
    rng = Rng(11)
    state = game.new_state(11, game.max_players, None)
    for _ in range(len(states) - 1):
        seat, rng = rng.choice(sorted(state.to_act))
        move, rng = rng.choice(state.legal_moves(seat))
        log.append((seat, state.move_text(move)))
        state = state.play(seat, move)
    replayed = game.new_state(11, game.max_players, None)
    for seat, text in log:
        replayed = replayed.play(seat, replayed.parse_move(seat, text))
    assert replayed == states[-1] == state


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_views_never_show_the_seed(game: Game[Any]) -> None:
    for state in playout(game, SEED, game.max_players)[:200]:
        for seat in [None, *range(state.num_seats)]:
            assert str(SEED) not in state.view(seat).to_text()


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_bad_input_raises_move_errors_and_changes_nothing(game: Game[Any]) -> None:
    state = game.new_state(3, game.min_players, None)
    seat = min(state.to_act)
    before = state.to_text()
    for text in ["", "zzz", "a0-q9", "🙂", "1234567890" * 5]:
        with pytest.raises(MoveError):
            state.parse_move(seat, text)
    idle = [s for s in range(state.num_seats) if s not in state.to_act]
    for other in idle:
        assert not state.legal_moves(other)
        move = state.legal_moves(seat)[0]
        with pytest.raises((IllegalMoveError, InvalidMoveError)):
            state.play(other, move)
    assert state.to_text() == before


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_builder_reaches_every_legal_move(game: Game[Any]) -> None:
    state = game.new_state(8, game.min_players, None)
    seat = min(state.to_act)
    legal = {state.move_text(m) for m in state.legal_moves(seat)}
    built: set[str] = set()

    def walk(prefix: tuple[str, ...], depth: int) -> None:
        options = state.move_options(seat, prefix)
        if options.complete is not None:
            built.add(state.move_text(options.complete))
        if depth < 8:
            for option in options.options:
                walk((*prefix, option.token), depth + 1)

    walk((), 0)
    assert built == legal


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_computer_player_makes_legal_moves(game: Game[Any]) -> None:
    state = game.new_state(4, game.min_players, None)
    for _ in range(6):
        if not state.to_act:
            break
        seat = min(state.to_act)
        move = ai.choose_move(state, seat)
        assert move in list(state.legal_moves(seat))
        state = state.play(seat, move)
