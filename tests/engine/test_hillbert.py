"""Hillbert: one scenario per ruling of RULES.md section 4, move counts against a naive
generator, the row generator against an independent dice reading, and random playouts."""

from __future__ import annotations

import itertools
import re
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import registry
from engine.core import IllegalMoveError, InvalidMoveError, NotationError
from engine.hillbert import (
    HillbertState,
    Turn,
    describe,
    generate_row,
    hill_row,
    new_hill,
    result_text,
)
from engine.rng import Rng, hash64

GAME = registry.get("hillbert")
EMPTY_ROW = "......."


def pos(*rows: str, **fields: int) -> HillbertState:
    """A position from board rows (padded with empty rows to 7) and optional fields."""
    board = list(rows) + [EMPTY_ROW] * (7 - len(rows))
    values = {"score": 0, "turns": 0, "hungry": 0, "facing": 0, "jumped": 0, "seed": 1}
    values.update(fields)
    text = "/".join(board) + " " + " ".join(f"{k}={v}" for k, v in values.items())
    state = GAME.from_text(text)
    assert isinstance(state, HillbertState)
    return state


def play(state: HillbertState, text: str) -> HillbertState:
    return state.play(0, state.parse_move(0, text))


def cells_of(state: HillbertState, mark: str) -> set[tuple[int, int]]:
    return {(r, c) for r, row in enumerate(state.board) for c, ch in enumerate(row) if ch == mark}


# --- setup: 4(a), 4(b) 1-2 ------------------------------------------------------------


def test_setup_small_hillbert_on_d1_of_a_7_by_7_hill() -> None:
    state = GAME.new_state(5, 1, None)
    assert isinstance(state, HillbertState)
    assert (state.size, state.col, state.height, len(state.board[0])) == (1, 3, 7, 7)
    assert state.board[0] == EMPTY_ROW
    assert state.to_text().startswith("...H.../")
    assert [hill_row(5, k) for k in range(2, 8)] == list(state.board[1:])
    assert GAME.seat_names == ("Hillbert",) and GAME.min_players == GAME.max_players == 1
    assert not GAME.draw_seats
    with pytest.raises(ValueError, match="for 1 players, not 2"):
        GAME.new_state(5, 2, None)


def test_a_taller_hill_is_allowed_but_not_a_shorter_one() -> None:
    assert new_hill(3, height=9).height == 9
    with pytest.raises(ValueError, match="at least 7"):
        new_hill(3, height=6)


# --- notation 4(c) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical", "tokens"),
    [
        ("d rrr", "d rrr", ("d", "r", "r", "r")),
        ("drrr", "d rrr", ("d", "r", "r", "r")),
        ("  d   r r  r ", "d rrr", ("d", "r", "r", "r")),
        ("D3", "D3", ("D3",)),
        ("d3", "D3", ("D3",)),
        ("d L2", "d L2", ("d", "L2")),
        ("d r R1", "d r R1", ("d", "r", "R1")),
    ],
)
def test_small_turn_notation(text: str, canonical: str, tokens: tuple[str, ...]) -> None:
    state = pos("...H...")
    move = state.parse_move(0, text)
    assert str(move) == canonical
    assert state.move_tokens(move) == tokens


def test_medium_and_big_turn_notation() -> None:
    medium = pos("...HH..", "...HH..")
    assert str(medium.parse_move(0, "ddr")) == "dd r"
    assert str(medium.parse_move(0, "dD1 l")) == "d D1 l"
    big = pos("..HHH..", "..HHH..", "..HHH..")
    assert str(big.parse_move(0, "dD1d")) == "d D1 d"
    assert big.parse_move(0, "d D1 d") == Turn((1, 2, 1))


@pytest.mark.parametrize(
    ("text", "error", "reason"),
    [
        ("", InvalidMoveError, "Write a turn"),
        ("d x", InvalidMoveError, "'x' is not a move token"),
        ("D", InvalidMoveError, "needs the number of cells"),
        ("D0", InvalidMoveError, "at least 1 cell"),
        ("r d", InvalidMoveError, "forward steps come first"),
        ("d rl", IllegalMoveError, "not both left and right"),
        ("D1 R1", IllegalMoveError, "only one jump per turn"),
        ("dd", IllegalMoveError, "exactly 1 forward"),
        ("r", IllegalMoveError, "exactly 1 forward"),
        ("d rrrr", IllegalMoveError, "at most 3 cell"),
        ("D4", IllegalMoveError, "jump over at most 3"),
        ("d lll", IllegalMoveError, "leave the board on the left"),
        ("d R3 r", IllegalMoveError, "leave the board on the right"),
    ],
)
def test_bad_turns_are_refused_with_the_reason(
    text: str, error: type[Exception], reason: str
) -> None:
    state = pos("..H....")
    with pytest.raises(error, match=reason) as caught:
        state.parse_move(0, text)
    if text.strip():
        assert text.strip() in str(caught.value)


def test_a_jump_two_turns_running_is_refused() -> None:
    state = pos("...H...", jumped=1)
    with pytest.raises(IllegalMoveError, match="a jump is not allowed two turns running"):
        state.parse_move(0, "D1")
    with pytest.raises(IllegalMoveError, match="two turns running"):
        state.parse_move(0, "d R1")
    assert str(state.parse_move(0, "d rr")) == "d rr"


def test_position_text_round_trips_and_rejects_bad_text() -> None:
    text = (
        ".HH.bb./.HH.BB./o.s.mm./......./..bb.../..BB..o/mmmm.bb "
        "score=12 turns=9 hungry=0 facing=3 jumped=1 seed=77"
    )
    state = GAME.from_text(text)
    assert state.to_text() == text
    assert GAME.from_text(state.to_text()) == state
    bad = {
        "...H.../.......": "at least 7 rows",
        "...H..../......./......./......./......./......./.......": "row 1 has 8 cells",
        "...X.../......./......./......./......./......./.......": "unknown cell",
        "......./...H.../......./......./......./......./.......": "must touch the top row",
        "...HH../...H.../......./......./......./......./.......": "2x2 square",
        "...H.../mmm..../......./......./......./......./.......": "must come in pairs",
        "...H.../bb...../......./......./......./......./.......": "needs BB right below",
    }
    tail = " score=0 turns=0 hungry=0 facing=0 jumped=0 seed=1"
    for board, reason in bad.items():
        with pytest.raises(NotationError, match=reason):
            GAME.from_text(board + tail)
    start = "...H.../......./......./......./......./......./......."
    for fields, reason in [
        ("score=0 turns=0", "the board then"),
        ("turns=0 score=0 hungry=0 facing=0 jumped=0 seed=1", "expected score=N"),
        ("score=x turns=0 hungry=0 facing=0 jumped=0 seed=1", "whole number"),
        ("score=0 turns=0 hungry=4 facing=0 jumped=0 seed=1", "hungry goes from 0 to 3"),
        ("score=0 turns=0 hungry=0 facing=4 jumped=0 seed=1", "facing goes"),
        ("score=0 turns=0 hungry=0 facing=0 jumped=2 seed=1", "jumped is 0 or 1"),
    ]:
        with pytest.raises(NotationError, match=reason):
            GAME.from_text(f"{start} {fields}")
    with pytest.raises(NotationError, match="only Small Hillbert"):
        GAME.from_text(".HH..../.HH..../" + "/".join([EMPTY_ROW] * 5) + tail.replace("y=0", "y=1"))


@pytest.mark.parametrize(
    "fields",
    [
        "score=0 turns=0 hungry=0 facing=3² jumped=0 seed=1",
        "score=٣ turns=0 hungry=0 facing=0 jumped=0 seed=1",
        "score=0 turns=１ hungry=0 facing=0 jumped=0 seed=1",
        "score=0 turns=0 hungry=0 facing=0 jumped=0 seed=1٠",
        "score=0 turns=0 hungry=0 facing=0 jumped=0 seed=" + "9" * 5000,
        "score=0 turns=0 hungry=0 facing=0 jumped=0 seed=18446744073709551616",
    ],
)
def test_position_numbers_are_ascii_digits_in_range(fields: str) -> None:
    board = "/".join(["...H..."] + [EMPTY_ROW] * 6)
    assert GAME.from_text(f"{board} score=0 turns=0 hungry=0 facing=0 jumped=0 seed=1")
    with pytest.raises(NotationError, match=r"must be a whole number|the seed is a 64-bit"):
        GAME.from_text(f"{board} {fields}")


def test_the_board_has_7_to_30_rows() -> None:
    tail = " score=0 turns=0 hungry=0 facing=0 jumped=0 seed=1"
    tallest = GAME.from_text("/".join(["...H..."] + [EMPTY_ROW] * 29) + tail)
    assert tallest.height == 30
    with pytest.raises(NotationError, match="at most 30, found 31"):
        GAME.from_text("/".join(["...H..."] + [EMPTY_ROW] * 30) + tail)
    with pytest.raises(ValueError, match="at most 30"):
        new_hill(3, height=31)


@pytest.mark.parametrize("text", ["d①", "D²", "D1²", "d r٣", "L¹"])
def test_jumps_in_other_digits_are_not_moves(text: str) -> None:
    with pytest.raises(InvalidMoveError, match=re.escape(text)):
        new_hill(5).parse_move(0, text)


def test_a_jump_over_thousands_of_cells_is_refused() -> None:
    with pytest.raises(IllegalMoveError, match="a jump goes over at most 3 cells"):
        new_hill(5).parse_move(0, "D" + "9" * 5000)


def test_view_hides_the_seed() -> None:
    state = new_hill(123456789)
    view = state.view(0)
    assert view.rng == Rng(0, 0)
    assert "123456789" not in view.to_text()
    assert view.board == state.board


# --- movement 4(a) 1, 4(b) 3-4, 9-12, 26 ------------------------------------------------


def test_small_steps_forward_then_sideways_and_scrolls_one_row() -> None:
    after = play(pos("...H..."), "d rr")
    assert (after.col, after.score, after.turns) == (5, 1, 1)


def test_medium_moves_two_forward_and_big_three() -> None:
    medium = play(pos("...HH..", "...HH.."), "dd r")
    assert (medium.col, medium.score) == (4, 2)
    big = play(pos("..HHH..", "..HHH..", "..HHH.."), "ddd l")
    assert (big.col, big.score) == (1, 3)
    with pytest.raises(IllegalMoveError, match="at most 1 cell"):
        pos("..HHH..", "..HHH..", "..HHH..").parse_move(0, "ddd ll")
    with pytest.raises(IllegalMoveError, match="at most 2 cell"):
        pos("...HH..", "...HH..").parse_move(0, "dd lll")


def test_a_jump_adds_distance_and_skips_the_cells_between() -> None:
    # Small D2 lands on d4, three rows down; the stone and the food on d2, d3 are untouched.
    state = pos("...H...", "...s...", "...o...", "...o...")
    after, report = state.resolve(state.parse_move(0, "D2"))
    assert report.path == ((0, 3), (3, 3))
    assert report.eaten == ((3, 3),)
    assert report.blocked_by == ()
    assert after.score == 3  # grew down-right on d4-e5, so the board scrolls 3 rows
    assert after.jumped and after.size == 2


def test_medium_forward_jump_of_one_moves_two_rows_in_one_step() -> None:
    state = pos("...HH..", "...HH..")
    after, report = state.resolve(state.parse_move(0, "D1 d"))
    assert report.path == ((0, 3), (2, 3), (3, 3))
    assert after.score == 3 and after.jumped
    # The landing footprint (rows 3-4) is checked: the log on d4-e4 is smashed and stops him.
    state = pos("...HH..", "...HH..", ".......", "...mm..")
    after, report = state.resolve(state.parse_move(0, "D1 d"))
    assert report.path == ((0, 3),) and sorted(report.destroyed) == [(3, 3), (3, 4)]
    assert after.score == 0 and not after.jumped


def test_sideways_jump() -> None:
    state = pos("...H...", ".......", ".......")
    after = play(state, "d l L1")
    assert after.col == 0 and after.jumped


def test_stop_in_the_forward_phase_keeps_the_sideways_phase() -> None:
    # Small is stopped by the stone on d2, then still steps right twice along row 1.
    state = pos("...H...", "...s...")
    after, report = state.resolve(state.parse_move(0, "d rr"))
    assert report.stops == 1
    assert report.path == ((0, 3), (0, 4), (0, 5))
    assert (after.col, after.score) == (5, 0)


def test_stop_in_the_sideways_phase_ends_the_movement() -> None:
    state = pos("...H...", ".s.....")
    after, report = state.resolve(state.parse_move(0, "d lll"))
    assert report.path == ((0, 3), (1, 3), (1, 2))
    assert report.blocked_by == ((1, 1),)
    assert (after.col, after.score) == (2, 1)


def test_a_required_forward_move_that_is_blocked_scores_nothing() -> None:
    state = pos("...H...", "...s...")
    after = play(state, "d")
    assert after.score == 0 and after.hungry == 1 and after.turns == 1
    assert after.board[1] == "...s..."


def test_a_stopped_jump_is_lost_and_does_not_count_as_a_jump() -> None:
    state = pos("...H...", ".......", "...s...")
    after, report = state.resolve(state.parse_move(0, "D1 r"))
    assert report.stops == 1 and not report.jumped
    assert not after.jumped
    assert after.col == 4 and after.score == 0
    play(after, "D1")  # allowed: the stopped jump did not count


def test_a_jump_never_reached_is_lost() -> None:
    state = pos("...H...", "...s...")
    after = play(state, "d R2")
    assert (after.col, after.jumped) == (6, True)
    blocked = pos("...Hs..", "...s...")
    after = play(blocked, "d r R1")
    assert (after.col, after.jumped) == (3, False)


def test_legality_never_depends_on_obstacles() -> None:
    walled = pos("bb.H.bb", "BB...BB", "sssssss", "mmmmmm.")
    open_hill = pos("...H...")
    assert walled.legal_moves(0) == open_hill.legal_moves(0)


def test_the_token_turns_a_quarter_per_cell_moved() -> None:
    after = play(pos("...H...", facing=3), "d R1")  # 1 + 2 cells
    assert after.facing == (3 + 3) % 4
    assert play(pos("...H...", "...s..."), "d").facing == 0  # no move, no turn


# --- the obstacle table 4(a) 2, 4(b) 8 -----------------------------------------------


def test_small_is_stopped_by_a_small_obstacle() -> None:
    after = play(pos("...H...", "...s..."), "d")
    assert (after.score, after.board[1]) == (0, "...s...")


def test_small_is_stopped_by_a_medium_obstacle() -> None:
    after = play(pos("...H...", "..mm..."), "d")
    assert (after.score, after.board[1]) == (0, "..mm...")


def test_small_is_stopped_by_a_big_obstacle() -> None:
    after = play(pos("...H...", "...bb..", "...BB.."), "d")
    assert (after.score, after.board[1]) == (0, "...bb..")


def test_medium_destroys_a_small_obstacle_and_goes_on() -> None:
    state = pos("...HH..", "...HH..", "....s..")
    after, report = state.resolve(state.parse_move(0, "dd"))
    assert report.destroyed == ((2, 4),) and report.stops == 0
    assert after.score == 2


def test_medium_destroys_a_medium_obstacle_whole_and_is_stopped() -> None:
    state = pos("...HH..", "...HH..", "....mm.")
    after, report = state.resolve(state.parse_move(0, "dd"))
    assert sorted(report.destroyed) == [(2, 4), (2, 5)]
    assert report.stops == 1 and report.path == ((0, 3),)
    assert after.score == 0 and after.board[2] == EMPTY_ROW


def test_medium_is_stopped_by_a_big_obstacle() -> None:
    state = pos("...HH..", "...HH..", "..bb...", "..BB...")
    after, report = state.resolve(state.parse_move(0, "dd"))
    assert report.destroyed == () and report.stops == 1
    assert after.board[2] == "..bb..."


def test_big_destroys_a_small_obstacle_and_goes_on() -> None:
    state = pos("..HHH..", "..HHH..", "..HHH..", "....s..")
    after, report = state.resolve(state.parse_move(0, "ddd"))
    assert report.destroyed == ((3, 4),) and after.score == 3


def test_big_destroys_a_medium_obstacle_and_goes_on() -> None:
    state = pos("..HHH..", "..HHH..", "..HHH..", "....mm.")
    after, report = state.resolve(state.parse_move(0, "ddd"))
    assert sorted(report.destroyed) == [(3, 4), (3, 5)] and after.score == 3


def test_big_is_stopped_by_a_big_obstacle() -> None:
    state = pos("..HHH..", "..HHH..", "..HHH..", "..bb...", "..BB...")
    after, report = state.resolve(state.parse_move(0, "ddd"))
    assert report.destroyed == () and report.stops == 1 and after.score == 0


def test_several_obstacles_at_once_destroy_what_they_can_and_any_stop_wins() -> None:
    # Big's step covers a stone (destroyed) and a boulder (stops him): the stone goes,
    # he stays put.
    state = pos("..HHH..", "..HHH..", "..HHH..", "..s.bb.", "....BB.")
    after, report = state.resolve(state.parse_move(0, "ddd"))
    assert report.destroyed == ((3, 2),)
    assert report.stops == 1 and after.score == 0


def test_a_medium_cell_pair_is_read_from_the_left_of_its_run() -> None:
    # mmmm = logs on a-b and c-d; Medium landing on b-c destroys both whole and stops.
    state = pos(".HH....", ".HH....", "mmmm...")
    after, report = state.resolve(state.parse_move(0, "dd"))
    assert sorted(report.destroyed) == [(2, 0), (2, 1), (2, 2), (2, 3)]
    assert after.score == 0


def test_food_is_not_eaten_on_a_step_that_was_stopped() -> None:
    # The food on d3 and the boulder on e3-f4 are covered by the same step.
    state = pos("...HH..", "...HH..", "...obb.", "....BB.")
    after, report = state.resolve(state.parse_move(0, "dd"))
    assert report.eaten == () and after.size == 1


# --- eating, growing, shrinking 4(a) 3, 4(b) 13-15, 26 ----------------------------------


def test_eating_twice_grows_once() -> None:
    state = pos("...H...", "...oo..")
    after, report = state.resolve(state.parse_move(0, "d r"))
    assert len(report.eaten) == 2
    assert after.size == 2 and after.hungry == 0


def test_big_stays_big_when_eating_and_shrinks_when_not() -> None:
    big = pos("..HHH..", "..HHH..", "..HHH..", "...o...")
    assert play(big, "ddd").size == 3
    hungry = play(pos("..HHH..", "..HHH..", "..HHH.."), "ddd r")
    assert hungry.size == 2 and hungry.col == 3  # keeps the top-left cells


def test_shrinking_keeps_the_top_left_cells() -> None:
    state = pos("...HH..", "...HH..")
    after, report = state.resolve(state.parse_move(0, "dd r"))
    assert report.end == (2, 4) and after.size == 1 and after.col == 4 and after.score == 2


def test_growth_goes_down_right_first() -> None:
    state = pos("...H...", "...o...")
    after, report = state.resolve(state.parse_move(0, "d"))
    assert report.end == (1, 3) and after.col == 3 and after.size == 2


def test_growth_against_the_right_wall_goes_down_left() -> None:
    state = pos("......H", "......o")
    after, report = state.resolve(state.parse_move(0, "d"))
    assert report.end == (1, 5) and after.size == 2


def test_growth_blocked_below_goes_up_right_and_scores_one_row_less() -> None:
    # Small jumps to d5 and eats; boulders on c6-d7 block both downward squares, so he
    # grows to d4-e5: the board scrolls 3 rows, not 4.
    state = pos("...H...", ".......", ".......", ".......", "...o...", "..bb...", "..BB...")
    after, report = state.resolve(state.parse_move(0, "D3"))
    assert report.end == (3, 3)
    assert (after.size, after.col, after.score) == (2, 3, 3)


def test_growth_up_left_is_the_last_choice() -> None:
    # Boulders on e4-f5 and c6-d7 block every square but the up-left one, c4-d5.
    state = pos("...H...", ".......", ".......", "....bb.", "...oBB.", "..bb...", "..BB...")
    after, report = state.resolve(state.parse_move(0, "D3"))
    assert report.end == (3, 2)
    assert (after.size, after.col, after.score) == (2, 2, 3)


def test_no_room_to_grow_means_no_growth_and_no_shrink() -> None:
    # Medium is stopped above the boulders, steps right and eats on c2; every 3x3 square
    # around him holds a boulder or leaves the board, so he stays Medium.
    state = pos("HH.....", "HHo....", "bbbb...", "BBBB...")
    after, report = state.resolve(state.parse_move(0, "dd r"))
    assert report.eaten == ((1, 2),)
    assert after.size == 2 and after.col == 1 and after.score == 0 and after.hungry == 0


def test_growing_destroys_obstacles_the_new_size_can_smash() -> None:
    # Small eats on d2 and grows to Medium on d2-e3: the stone on e3 and the whole log on
    # e2-f2 are destroyed, the food on d3 is simply removed.
    state = pos("...H...", "...omm.", "...os..")
    after, report = state.resolve(state.parse_move(0, "d"))
    assert sorted(report.destroyed) == [(1, 4), (1, 5), (2, 4)]
    assert after.size == 2 and after.col == 3
    assert after.board[0] == EMPTY_ROW and after.board[1] == EMPTY_ROW


# --- hunger and the end 4(a) 6, 4(b) 22, 26 -----------------------------------------


def test_three_hungry_small_turns_end_the_game_and_the_last_points_count() -> None:
    state = pos("...H...")
    for expected in (1, 2):
        state = play(state, "d")
        assert state.hungry == expected and not state.is_over
    state = play(state, "d")
    assert state.hungry == 3 and state.is_over and state.score == 3
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.scores == (3,) and outcome.winners == frozenset()
    assert "went hungry for 3 turns" in str(outcome.reason)
    assert state.legal_moves(0) == ()
    with pytest.raises(IllegalMoveError, match="the game is over"):
        state.play(0, Turn((1,)))


def test_hungry_turns_that_begin_medium_or_big_do_not_count() -> None:
    state = play(pos("..HHH..", "..HHH..", "..HHH.."), "ddd")
    assert (state.size, state.hungry, state.turns_to_starve) == (2, 0, 4)
    state = play(state, "dd")
    assert (state.size, state.hungry, state.turns_to_starve) == (1, 0, 3)
    state = play(state, "d")
    assert (state.size, state.hungry, state.turns_to_starve) == (1, 1, 2)


def test_eating_resets_the_hunger_counter() -> None:
    state = pos("...H...", "...o...", hungry=2)
    after = play(state, "d")
    assert after.hungry == 0 and after.size == 2 and after.turns_to_starve == 4


# --- scrolling and the row generator 4(a) 4-5, 4(b) 17-21, 24 -----------------------


def test_each_row_scrolled_scores_one_point_and_brings_a_new_row() -> None:
    after = play(pos("...H..."), "D3")
    assert after.score == 4
    carry: frozenset[int] = frozenset()
    expected = []
    for k in range(8, 12):
        row, carry = _reference_row(1, k, carry)
        expected.append(row)
    assert after.board[3:] == tuple(expected)
    assert play(pos("...HH..", "...HH.."), "dd").score == 2
    assert play(pos("..HHH..", "..HHH..", "..HHH.."), "d D1 d").score == 4


def _reference_row(seed: int, row: int, carry: frozenset[int]) -> tuple[str, frozenset[int]]:
    """The row generator, read from the rules again: d8 positions, d6 types, then food."""
    cells = ["B" if c in carry else "." for c in range(7)]
    below: set[int] = set()
    rng = Rng(hash64(seed, row))
    for food in (False, True):
        roll, rng = rng.die(8)
        if roll == 8:
            first, rng = rng.die(8)
            second, rng = rng.die(8)
            rolls = [first, second]
        else:
            rolls = [roll]
        for roll in rolls:
            if roll == 8:
                continue
            col = roll - 1
            if food:
                if cells[col] == ".":
                    cells[col] = "o"
                continue
            kind, rng = rng.die(6)
            if kind <= 2:
                if cells[col] == ".":
                    cells[col] = "s"
            elif col < 6 and cells[col] == "." and cells[col + 1] == ".":
                mark = "m" if kind <= 4 else "b"
                cells[col] = cells[col + 1] = mark
                if mark == "b":
                    below.update((col, col + 1))
    return "".join(cells), frozenset(below)


@cache
def _reference_hill(seed: int, rows: int) -> tuple[str, ...]:
    out = [EMPTY_ROW]
    carry: frozenset[int] = frozenset()
    for k in range(2, rows + 1):
        text, carry = _reference_row(seed, k, carry)
        out.append(text)
    return tuple(out)


@pytest.mark.parametrize("seed", [0, 1, 2023, 2**63 + 5])
def test_the_hill_matches_an_independent_reading_of_the_generator(seed: int) -> None:
    expected = _reference_hill(seed, 300)
    assert [hill_row(seed, k) for k in range(1, 301)] == list(expected)


def test_row_generator_statistics() -> None:
    rows = [hill_row(4242, k) for k in range(2, 3002)]
    for row in rows:
        assert row[6] not in "mb" or row[5] == row[6]  # nothing sticks out past g
    counts = {mark: sum(r.count(mark) for r in rows) for mark in "osmbB"}
    assert counts["b"] == counts["B"]
    assert all(counts[mark] > 300 for mark in "osmb")


def test_big_obstacles_carry_their_lower_half_into_the_next_row() -> None:
    for k in range(2, 600):
        upper, lower = hill_row(77, k), hill_row(77, k + 1)
        for c, ch in enumerate(upper):
            assert (ch == "b") == (lower[c] == "B"), (k, c)
    # The carried half is placed before the row's own dice, whatever they say.
    for row in range(1, 200):
        text, _ = generate_row(5, row, 0b1100000)
        assert text[5:] == "BB"


def test_a_boulder_on_the_bottom_row_is_completed_by_the_next_row() -> None:
    state = pos("...H...", ".......", ".......", ".......", ".......", ".......", "bb.....")
    after = play(state, "d")
    assert after.board[5] == "bb....." and after.board[6][:2] == "BB"


def test_the_lower_half_of_a_boulder_still_stops_when_its_top_has_gone() -> None:
    # Medium is stopped above a boulder, then steps left into the lone BB on b1.
    state = pos("BB.HH..", "...HH..", "...bb..", "...BB..")
    after, report = state.resolve(state.parse_move(0, "dd ll"))
    assert report.blocked_by == ((2, 3), (2, 4), (0, 1))
    assert after.col == 2 and after.board[0][:2] == "BB"


def test_the_hill_does_not_depend_on_the_moves() -> None:
    seed = 31337
    greedy_line = new_hill(seed)
    first_line = new_hill(seed)
    seen = 0
    for _ in range(40):
        for state, pick in ((greedy_line, -1), (first_line, 0)):
            if state.is_over:
                continue
            moves = state.legal_moves(0)
            nxt = state.play(0, moves[pick])
            bottom = nxt.score + nxt.height
            if nxt.score > state.score:
                assert nxt.board[-1] == hill_row(seed, bottom)
                seen += 1
            for r, row in enumerate(nxt.board):
                pristine = hill_row(seed, nxt.score + r + 1)
                for c, ch in enumerate(row):
                    assert ch in (".", pristine[c])
                    assert (pristine[c] in "bB") == (ch in "bB")
            if pick == -1:
                greedy_line = nxt
            else:
                first_line = nxt
    assert seen > 10


# --- move counts against a naive generator ------------------------------------------

_TOKENS = ["d", "l", "r"] + [f"{a}{k}" for a in "DLR" for k in (1, 2, 3)]


@cache
def _naive_count(size: int, col: int, jumped: bool) -> int:
    """Every token string of up to 4 tokens that the rules allow, counted one by one."""
    total = 0
    for n in range(1, 5):
        for tokens in itertools.product(_TOKENS, repeat=n):
            kinds = [tok[0].lower() for tok in tokens]
            jumps = [int(tok[1:]) for tok in tokens if len(tok) > 1]
            forward = [k for k in kinds if k == "d"]
            if kinds[: len(forward)] != forward or len(forward) != size:
                continue
            side = kinds[size:]
            if len(side) > 4 - size or len(set(side)) > 1:
                continue
            if len(jumps) > 1 or (jumps and (jumped or jumps[0] > 4 - size)):
                continue
            shift = sum(1 + (int(tok[1:]) if len(tok) > 1 else 0) for tok in tokens[size:])
            end = col - shift if side and side[0] == "l" else col + shift
            if 0 <= end <= 7 - size:
                total += 1
    return total


@pytest.mark.parametrize(
    "state",
    [
        pos("...H..."),
        pos("H......", jumped=1),
        pos("...HH..", "...HH.."),
        pos(".....HH", ".....HH", jumped=1),
        pos("..HHH..", "..HHH..", "..HHH.."),
    ],
)
def test_move_counts_match_the_naive_generator(state: HillbertState) -> None:
    assert len(state.legal_moves(0)) == _naive_count(state.size, state.col, state.jumped)
    assert len(set(state.legal_moves(0))) == len(state.legal_moves(0))


@pytest.mark.parametrize(("seed", "expected_depth1"), [(8, 36), (2024, 36)])
def test_move_counts_to_depth_two_and_three(seed: int, expected_depth1: int) -> None:
    start = new_hill(seed)
    assert len(start.legal_moves(0)) == expected_depth1 == _naive_count(1, 3, False)
    depth2 = 0
    depth3 = 0
    for move in start.legal_moves(0):
        child = start.play(0, move)
        count = len(child.legal_moves(0))
        assert count == (0 if child.is_over else _naive_count(child.size, child.col, child.jumped))
        depth2 += count
        for grand_move in child.legal_moves(0)[::7]:
            grand = child.play(0, grand_move)
            depth3 += 0 if grand.is_over else _naive_count(grand.size, grand.col, grand.jumped)
            assert len(grand.legal_moves(0)) == (
                0 if grand.is_over else _naive_count(grand.size, grand.col, grand.jumped)
            )
    assert depth2 > expected_depth1 and depth3 > 0


# --- the builder ----------------------------------------------------------------------


def test_builder_offers_unit_tokens_and_previews_a_complete_turn() -> None:
    state = pos("...H...", "...o...", ".......")
    first = state.move_options(0)
    assert [o.token for o in first.options] == ["d", "D1", "D2", "D3"]
    assert first.options[0].label == "↓ step" and first.options[1].label == "↓ jump 1"
    assert first.complete is None and first.preview is None
    after_d = state.move_options(0, ("d",))
    assert after_d.complete == Turn((1,))
    assert [o.token for o in after_d.options] == ["l", "L1", "L2", "r", "R1", "R2"]
    assert after_d.preview is not None
    preview = str(after_d.preview)
    assert "ends on d2 as Medium" in preview and "eats food on d2" in preview
    assert "+1 point" in preview
    stuck = pos("...H...", "...s...").move_options(0, ("d",))
    assert stuck.preview is not None and "is stopped at d2" in str(stuck.preview)
    jumped = pos("...H...", jumped=1).move_options(0, ("d",))
    assert [o.token for o in jumped.options] == ["l", "r"]


# --- random playouts ------------------------------------------------------------------


def _recount(states: list[HillbertState], moves: list[Turn]) -> None:
    for before, move, after in zip(states[:-1], moves, states[1:], strict=True):
        _, report = before.resolve(move)
        assert after.score - before.score == report.end[0]
        assert after.turns == before.turns + 1


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), picks=st.lists(st.integers(0, 10_000), max_size=60))
def test_random_playouts_keep_notation_and_invariants(seed: int, picks: list[int]) -> None:
    state = new_hill(seed)
    states, moves = [state], []
    for pick in picks:
        if state.is_over:
            break
        legal = state.legal_moves(0)
        move = legal[pick % len(legal)]
        assert state.parse_move(0, str(move)) == move
        state = state.play(0, move)
        states.append(state)
        moves.append(move)
        assert GAME.from_text(state.to_text()) == state
        assert state.hungry == 0 or state.size == 1
        # Content only ever disappears: every cell is empty or what the hill generated,
        # and boulders are never destroyed.
        for r, row in enumerate(state.board):
            pristine = hill_row(seed, state.score + r + 1)
            for c, ch in enumerate(row):
                assert ch in (".", pristine[c])
                assert (pristine[c] in "bB") == (ch in "bB")
    _recount(states, moves)


def test_the_preview_says_when_a_meal_finds_no_room_to_grow() -> None:
    state = GAME.from_text(
        ".H.BB.o/...obb./.o..BB./...obb./..mmBB./.mm..../...obb. "
        "score=7 turns=7 hungry=0 facing=1 jumped=0 seed=1"
    )
    turn = state.parse_move(0, "d rr R2")
    _, report = state.resolve(turn)
    assert report.eaten and report.size_after == report.size_before == 1
    assert str(describe(report)) == (
        "Hillbert ends on g2 as Small; eats food on d2 but has no room to grow; +1 point."
    )


def test_a_runs_result_has_each_word_in_its_number() -> None:
    assert str(result_text(1, 1)) == "1 row in 1 turn"
    assert str(result_text(0, 2)) == "0 rows in 2 turns"


def test_a_turn_is_described_by_its_rows_food_and_size_after() -> None:
    # Small Hillbert on d1, food on d2, a small obstacle on c2.
    board = "...H.../..so.../......./......./......./......./......."
    fed = registry.get("hillbert").from_text(
        f"{board} score=0 turns=0 hungry=0 facing=0 jumped=0 seed=42"
    )
    starving = registry.get("hillbert").from_text(
        f"{board} score=0 turns=0 hungry=2 facing=0 jumped=0 seed=42"
    )

    def said(state: object, text: str) -> str:
        assert isinstance(state, HillbertState)
        return str(state.move_description(0, state.parse_move(0, text)))

    assert said(fed, "d") == "1 row down, eats 1 food, Medium after"
    assert said(fed, "d l") == "1 row down, eats 1 food, stopped, Medium after"
    assert said(fed, "D1") == "2 rows down, eats nothing, Small, hungry 1 of 3"
    assert said(starving, "D1") == "2 rows down, eats nothing, starves: the run ends"


# --- what a played turn did, told after it ----------------------------------------------


def test_a_turn_tells_that_he_ate_grew_and_how_long_before_he_starves() -> None:
    state = pos("...H...", "...o...")
    assert str(state.move_effect(state.parse_move(0, "d"))) == (
        "Hillbert ate 1 piece of food and grew to Medium; +1 point; "
        "he starves after 4 more turns without food"
    )


def test_a_turn_tells_what_he_smashed_and_what_stopped_him() -> None:
    # Medium smashes the small obstacle on c3, then the big one on c4-d4 stops him.
    state = pos("..HH...", "..HH...", "..s....", "..bb...", "..BB...")
    assert str(state.move_effect(state.parse_move(0, "dd"))) == (
        "Hillbert ate nothing and shrank to Small; smashed 1 obstacle; "
        "was stopped by a big obstacle; +1 point; he starves after 3 more turns without food"
    )


def test_a_medium_obstacle_smashed_counts_once() -> None:
    state = pos("..HHH..", "..HHH..", "..HHH..", "..mm...")
    assert str(state.move_effect(state.parse_move(0, "ddd"))) == (
        "Hillbert ate nothing and shrank to Medium; smashed 1 obstacle; +3 points; "
        "he starves after 4 more turns without food"
    )


def test_the_hungry_turn_that_ends_the_run_leaves_the_starving_to_the_result() -> None:
    state = pos("...H...", hungry=2)
    assert str(state.move_effect(state.parse_move(0, "d"))) == "Hillbert ate nothing; +1 point"


def test_a_meal_without_room_to_grow_is_told_so() -> None:
    state = GAME.from_text(
        ".H.BB.o/...obb./.o..BB./...obb./..mmBB./.mm..../...obb. "
        "score=7 turns=7 hungry=0 facing=1 jumped=0 seed=1"
    )
    assert str(state.move_effect(state.parse_move(0, "d rr R2"))) == (
        "Hillbert ate 1 piece of food but had no room to grow; +1 point; "
        "he starves after 3 more turns without food"
    )
