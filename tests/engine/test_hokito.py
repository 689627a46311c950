"""Hokito (RULES.md section 2): one scenario per ruling, perft against a naive walker,
notation and invariants over random games."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import registry
from engine.core import IllegalMoveError, InvalidMoveError, NotationError
from engine.hokito import HokitoMove, HokitoState

GAME = registry.get("hokito")
FILES = "abcdef"
#: Every position holds six pawns of each colour and value.
FULL_SET = Counter({f"{colour}{value}": 6 for colour in "bw" for value in "123"})
SEED1_START = (
    "w3,w3,w1,w1,w2,w3/w1,w2,w2,w2,w1,w3/w3,w1,w2,w2,w1,w3/"
    "b1,b1,b2,b2,b2,b1/b2,b3,b3,b3,b2,b3/b3,b1,b1,b2,b1,b3 b"
)
#: A mid-game position: 20 squares occupied, stacks of 2 to 4 pawns of both colours.
MID = (
    "w2,.,.,w1w1,w2w3,w2/w1,w1w2b3b3,.,.,w2b2,w1/.,.,.,.,w3,./b2w3w1b3,.,.,b3,b1w3,./"
    "b1,b3b2,b1w3,.,b1w2b1b3,./b2,.,b1w3,b2,.,b2 b"
)


# --- an independent model: the notation read by hand, moves found by walking squares ---
Board = dict[tuple[int, int], list[str]]
STEP = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}
#: Direction sequences per jump count, turning only at right angles or going straight on.
SEQUENCES = {
    v: [
        seq
        for seq in itertools.product("NESW", repeat=v)
        if all(OPPOSITE[a] != b for a, b in itertools.pairwise(seq))
    ]
    for v in (1, 2, 3)
}


def name(square: tuple[int, int]) -> str:
    return f"{FILES[square[0]]}{square[1] + 1}"


def read(text: str) -> tuple[Board, str]:
    """Squares (file, rank) -> pawns bottom to top like 'w3', and the side to move."""
    rows, side = text.split()
    board: Board = {}
    for i, row in enumerate(rows.split("/")):
        for f, cell in enumerate(row.split(",")):
            if cell != ".":
                board[(f, 5 - i)] = [cell[j : j + 2] for j in range(0, len(cell), 2)]
    return board, side


def naive_moves(board: Board, side: str) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    """Try every direction sequence of the top pawn's length, square by square."""
    found = set()
    for origin, stack in board.items():
        if stack[-1][0] != side:
            continue
        for seq in SEQUENCES[int(stack[-1][1])]:
            x, y = origin
            visited = {origin}
            ok = True
            for d in seq:
                dx, dy = STEP[d]
                while ok:
                    x, y = x + dx, y + dy
                    if not (0 <= x < 6 and 0 <= y < 6) or (x, y) in visited:
                        ok = False
                    else:
                        visited.add((x, y))
                        if (x, y) in board and (x, y) != origin:
                            break
                if not ok:
                    break
            if ok and (len(board[(x, y)]) == 1) == (len(stack) == 1):
                found.add((origin, (x, y)))
    return found


def naive_play(board: Board, move: tuple[tuple[int, int], tuple[int, int]]) -> Board:
    origin, destination = move
    after = dict(board)
    after[destination] = board[destination] + board[origin]
    del after[origin]
    return after


def naive_perft(board: Board, side: str, depth: int) -> int:
    moves = naive_moves(board, side)
    if depth == 1:
        return len(moves)
    other = "w" if side == "b" else "b"
    return sum(naive_perft(naive_play(board, m), other, depth - 1) for m in moves)


def naive_scores(board: Board) -> tuple[int, int]:
    points = {"b": 0, "w": 0}
    for stack in board.values():
        points[stack[-1][0]] += int(stack[-1][1]) * len(stack)
    return points["b"], points["w"]


def engine_perft(state: HokitoState, depth: int) -> int:
    moves = state.legal_moves(state.to_move)
    if depth == 1:
        return len(moves)
    return sum(engine_perft(state.play(state.to_move, m), depth - 1) for m in moves)


# --- helpers --------------------------------------------------------------------------
def position(cells: dict[str, str], side: str = "b", dump: str = "f6") -> HokitoState:
    """A position from notation: `cells` maps squares to pawns bottom to top; every pawn
    not placed goes at the bottom of the stack on `dump`, under what `cells` puts there."""
    left = FULL_SET.copy()
    for cell in cells.values():
        left.subtract(cell[j : j + 2] for j in range(0, len(cell), 2))
    assert all(n >= 0 for n in left.values()), left
    placed = dict(cells)
    placed[dump] = "".join(sorted(left.elements())) + cells.get(dump, "")
    rows = [",".join(placed.get(f"{f}{r}", "") or "." for f in FILES) for r in range(6, 0, -1)]
    state = GAME.from_text("/".join(rows) + " " + side)
    assert isinstance(state, HokitoState)
    return state


def sq(square_name: str) -> int:
    return FILES.index(square_name[0]) + 6 * (int(square_name[1]) - 1)


def ends(state: HokitoState, origin: str) -> set[str]:
    return {name((d % 6, d // 6)) for d in state.destinations(sq(origin))}


def refused(state: HokitoState, text: str, error: type[ValueError] = IllegalMoveError) -> str:
    with pytest.raises(error) as info:
        state.parse_move(state.to_move, text)
    return str(info.value)


def cell(state: HokitoState, square_name: str) -> str:
    """The pawns on a square, bottom to top, as the notation writes them."""
    board, _ = read(state.to_text())
    file, rank = FILES.index(square_name[0]), int(square_name[1]) - 1
    return "".join(board.get((file, rank), [])) or "."


def act(state: HokitoState, text: str) -> HokitoState:
    return state.play(state.to_move, state.parse_move(state.to_move, text))


# --- 2(b)1, 2(b)2: set-up -------------------------------------------------------------
def test_setup_black_on_ranks_1_to_3_white_on_4_to_6() -> None:
    start = GAME.new_state(1, 2, None)
    assert start.to_text() == SEED1_START
    for seed in range(40):
        board, side = read(GAME.new_state(seed, 2, None).to_text())
        assert side == "b" and len(board) == 36
        assert all(len(stack) == 1 for stack in board.values())
        black = Counter(board[(f, r)][0] for f in range(6) for r in range(3))
        white = Counter(board[(f, r)][0] for f in range(6) for r in range(3, 6))
        assert black == Counter({"b1": 6, "b2": 6, "b3": 6})
        assert white == Counter({"w1": 6, "w2": 6, "w3": 6})


def test_setup_shuffles_each_colour_independently_from_the_seed() -> None:
    assert GAME.new_state(7, 2, None) == GAME.new_state(7, 2, None)
    seeds = range(900)
    layouts = [read(GAME.new_state(seed, 2, None).to_text())[0] for seed in seeds]
    assert len({tuple(b[(f, r)][0] for f in range(6) for r in range(3)) for b in layouts}) == 900
    # Each value lands on a given square about a third of the time.
    for square in ((0, 0), (3, 1), (5, 2), (0, 5), (4, 3)):
        values = Counter(b[square][0][1] for b in layouts)
        assert all(240 <= values[v] <= 360 for v in "123"), (square, values)
    # White's layout is not a mirror or copy of Black's: a1 and a6 agree a third of the time.
    same = sum(b[(0, 0)][0][1] == b[(0, 5)][0][1] for b in layouts)
    assert 240 <= same <= 360


def test_scatter_spreads_all_36_pawns_over_the_whole_board() -> None:
    blacks_low = []
    black_at = Counter[tuple[int, int]]()
    for seed in range(600):
        state = GAME.new_state(seed, 2, "scatter")
        board, side = read(state.to_text())
        assert side == "b" and len(board) == 36
        assert all(len(stack) == 1 for stack in board.values())
        assert Counter(stack[0] for stack in board.values()) == FULL_SET
        blacks_low.append(sum(board[(f, r)][0][0] == "b" for f in range(6) for r in range(3)))
        black_at.update(s for s, stack in board.items() if stack[0][0] == "b")
    assert 8.5 <= sum(blacks_low) / len(blacks_low) <= 9.5
    assert len(set(blacks_low)) > 5
    assert all(240 <= black_at[(f, r)] <= 360 for f in range(6) for r in range(6))
    assert GAME.new_state(3, 2, "scatter") != GAME.new_state(3, 2, None)
    with pytest.raises(ValueError, match="no variant"):
        GAME.new_state(3, 2, "bogus")


# --- 2(b)3: right angles only, no 180° turn ---------------------------------------------
def test_no_180_degree_reversal() -> None:
    state = position({"c2": "b2", "c4": "w1", "c1": "b1", "f6": "w1"})
    # c2>c4>c1 would be two jumps: north to c4, then straight back south past c2 to c1.
    assert ends(state, "c2") == set()
    assert "turns back at c4" in refused(state, "c2>c4>c1")
    assert "no path of 2 jumps reaches c1" in refused(state, "c2-c1")
    assert [str(m) for m in state.legal_moves(0)] == ["c1-c2"]


def test_straight_on_is_allowed() -> None:
    state = position({"a1": "b2", "a3": "w1", "a5": "b1", "f6": "w1"})
    assert state.destinations(sq("a1")) == {sq("a5"): (sq("a1"), sq("a3"), sq("a5"))}
    move = state.parse_move(0, "a1>a3>a5")
    assert move == HokitoMove(sq("a1"), sq("a5"))
    assert cell(act(state, "a1-a5"), "a5") == "b1b2"


def test_right_angle_turn_is_allowed() -> None:
    state = position({"c2": "b2", "c4": "w1", "e4": "b3", "f6": "w1"})
    assert ends(state, "c2") == {"e4"}
    assert state.parse_move(0, "c2-e4").path == (sq("c2"), sq("c4"), sq("e4"))


# --- 2(b)4, 2(b)5: the path never visits a square twice; the origin is lifted ----------
def test_path_never_revisits_a_square() -> None:
    # A 3 on b2 can go round three sides of a square but never back onto its own trail.
    state = position({"b2": "b3", "b4": "w1", "d4": "w2", "d1": "b1", "f6": "w1"})
    assert state.destinations(sq("b2")) == {sq("d1"): (sq("b2"), sq("b4"), sq("d4"), sq("d1"))}
    for path in ("b2>b4>b1>d1", "b2>b4>d4>b4"):
        assert "turns back" in refused(state, path)


def test_u_shaped_paths_come_back_beside_the_origin_without_crossing() -> None:
    # 2(b)5: the origin is lifted, yet no right-angle path of 3 jumps can reach it again.
    state = position({"c2": "b3", "c4": "w1", "e4": "b3", "e2": "w2", "f6": "w1"})
    assert state.parse_move(0, "c2>c4>e4>e2") == HokitoMove(sq("c2"), sq("e2"))
    assert state.parse_move(0, "c2>e2>e4>c4") == HokitoMove(sq("c2"), sq("c4"))
    assert ends(state, "c2") == {"c4", "e2"}


# --- 2(b)6: only the final landing must match -----------------------------------------
def test_single_lands_only_on_single_at_the_final_landing() -> None:
    state = position({"a1": "b2", "a3": "w2w1", "c3": "w3", "e1": "b1", "e3": "b3w2"})
    assert ends(state, "a1") == {"c3"}
    assert ends(state, "e1") == {"a1"}
    assert (
        refused(state, "e1-e3")
        == "e1-e3: a single pawn must land on a single pawn; e3 holds a stack of 2."
    )
    assert "e3 holds a stack of 2" in refused(state, "a1>e1>e3")


def test_stack_lands_only_on_stack_at_the_final_landing() -> None:
    state = position({"a1": "w1b2", "a3": "w3", "c3": "b1w1", "a5": "w2", "f6": "w1"})
    assert ends(state, "a1") == {"c3"}
    assert (
        refused(state, "a1-a5")
        == "a1-a5: a stack must land on another stack; a5 holds a single pawn."
    )
    after = act(state, "a1-c3")
    assert cell(after, "c3") == "b1w1w1b2" and cell(after, "a1") == "."


def test_intermediate_landings_on_anything_occupied() -> None:
    # A single black 2 goes via a White stack (a3) to a single; a Black stack via a single
    # White pawn (a3) to a stack: neither colour nor size matters on the way.
    single = position({"a1": "b2", "a3": "w2w1", "c3": "w3", "f6": "w1"})
    assert single.parse_move(0, "a1>a3>c3") == HokitoMove(sq("a1"), sq("c3"))
    stack = position({"a1": "w1b2", "a3": "w3", "c3": "b1w1", "f6": "w1"})
    assert stack.parse_move(0, "a1>a3>c3") == HokitoMove(sq("a1"), sq("c3"))


# --- 2(b)7: a jump over empty squares to the first occupied one; never off the board --
def test_jumps_over_empty_squares() -> None:
    state = position({"a1": "b1", "a6": "w2", "f6": "w1"})
    assert ends(state, "a1") == {"a6"}
    assert act(state, "a1-a6").to_text().startswith("w2b1,")
    assert refused(state, "a1-a3") == "a1-a3: a3 is empty; a move ends on a pawn or a stack."
    assert "a3 is empty; a jump lands on the first occupied square" in refused(state, "a1>a3")
    blocked = position({"a1": "b1", "a4": "w3", "a6": "w2", "f6": "w1"})
    assert (
        refused(blocked, "a1>a6")
        == "a1>a6: the jump from a1 towards a6 stops at a4, the first occupied square."
    )


def test_a_jump_with_nothing_ahead_is_impossible() -> None:
    # A 1 in the corner with nothing in its file or rank cannot move at all.
    state = position({"a1": "b1", "c3": "w2", "f6": "w1"})
    assert ends(state, "a1") == set()


# --- 2(b)8: exactly v jumps -----------------------------------------------------------
def test_exact_jump_count() -> None:
    state = position({"b2": "b3", "b4": "w1", "d4": "w2", "d1": "b1", "f6": "w1"})
    assert ends(state, "b2") == {"d1"}
    assert (
        refused(state, "b2-b4")
        == "b2-b4: a 3 makes exactly 3 jumps; no path of 3 jumps reaches b4 from b2."
    )
    assert "no path of 3 jumps reaches d4" in refused(state, "b2-d4")
    assert refused(state, "b2>b4") == "b2>b4: a 3 makes exactly 3 jumps; this path has 1 jump."
    assert "a 1 makes exactly 1 jump; this path has 2 jumps" in refused(state, "d1>d4>b4")
    # A stack jumps as often as its top pawn says.
    stacked = position({"a1": "w3b1", "a3": "w1w2", "c3": "b2b2", "f6": "w1"})
    assert ends(stacked, "a1") == {"a3"}
    assert "a stack topped by a 1 makes exactly 1 jump" in refused(stacked, "a1>a3>c3")


# --- 2(b)9: the mover goes on top, order kept; control changes ------------------------
def test_landing_stacks_on_top_keeping_order_and_changing_control() -> None:
    state = position({"c2": "b1", "c3": "w3", "c5": "b2w1", "e5": "w1b3", "f6": "w1"})
    after = act(state, "c2-c3")
    assert cell(after, "c3") == "w3b1" and cell(after, "c2") == "."
    assert after.to_move == 1
    # Black now tops c3; White may not move it.
    assert "the stack on c3 is Black's" in refused(after, "c3-c5")
    again = act(after, "c5-c3")
    assert cell(again, "c3") == "w3b1b2w1" and cell(again, "c5") == "."
    assert naive_scores(read(again.to_text())[0]) == again.scores()
    # The whole stack moves: the four pawns now count 1 × 4 for White.
    board, _ = read(again.to_text())
    assert board[(2, 2)] == ["w3", "b1", "b2", "w1"]


# --- 2(b)10: no passing ---------------------------------------------------------------
def test_no_passing() -> None:
    state = position({"a1": "b1", "a2": "b2", "c4": "w3", "f6": "b1"})
    assert [str(m) for m in state.legal_moves(0)] == ["a1-a2"]
    assert refused(state, "pass") == "pass: there is no passing in Hokito; every turn is one move."
    assert "not a move" in refused(state, "", InvalidMoveError)
    with pytest.raises(IllegalMoveError, match="It is Black's turn"):
        state.play(1, HokitoMove(sq("c4"), sq("c2")))


# --- 2(b)11: the end is checked for the player to move, at the start of the turn -----
def test_end_checked_at_the_start_of_the_turn_of_the_player_to_move() -> None:
    state = position({"a1": "b1", "a2": "b2", "c4": "w3", "f6": "b1"})
    # White has no move here, but Black is to move and has one: the game goes on.
    assert state.outcome() is None and state.to_act == frozenset({0})
    assert naive_moves(read(state.to_text())[0], "w") == set()
    over = act(state, "a1-a2")
    assert over.to_act == frozenset() and over.is_over
    outcome = over.outcome()
    assert outcome is not None
    # Black tops a2 (b2b1: 1 × 2) and f6 (33 pawns under a black 1); White has c4 (3).
    assert outcome.scores == (35, 3) and outcome.winners == frozenset({0})
    assert str(outcome.reason) == "White has no legal move."
    assert outcome.scores == (35, 3) and outcome.winners == {0}
    assert over.legal_moves(1) == ()
    assert refused(over, "c4-c2") == "The game is over."


def test_player_to_move_without_a_move_ends_the_game_even_if_the_other_could_move() -> None:
    state = position({"c4": "b3", "a1": "w1", "a2": "w2", "f6": "w1"})
    assert naive_moves(read(state.to_text())[0], "w") != set()
    assert state.to_act == frozenset()
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == frozenset({1})
    assert str(outcome.reason) == "Black has no legal move." and outcome.winners == {1}


# --- scoring (2(a)) and 2(b)12: tie = draw --------------------------------------------
def test_scoring_top_value_times_height() -> None:
    text = (
        "b1,b1,b1,b2,b2,b2/b2,b3,b3,b3,w1,w1/w1,w1,w2,w2,w2,w3/w3,w3,.,.,.,./"
        ".,.,.,.,.,./b1b2w1w2b3w3,w1b2b1w3w2w3b3b1,w2,b3,.,. w"
    )
    state = GAME.from_text(text)
    # a1: 6 pawns, white 3 on top = 18 for White; b1: 8 pawns, black 1 on top = 8 for
    # Black; c1 a single white 2, d1 a single black 3; the singles on ranks 3-6 add
    # 3 + 8 + 9 = 20 for Black and 4 + 6 + 9 = 19 for White.
    assert state.scores() == (8 + 3 + 20, 18 + 2 + 19)


def test_tie_is_a_draw() -> None:
    a1 = "w2" * 6 + "w3" * 6 + "b2" * 5 + "b1"
    f6 = "b3" * 6 + "b2" + "b1" * 5 + "w1" * 6
    state = position({"a1": a1, "f6": f6})
    outcome = state.outcome()
    assert outcome is not None and outcome.is_draw and outcome.winners == frozenset()
    assert outcome.scores == (18, 18)
    assert str(outcome.reason) == "Black has no legal move."


# --- 2(b)13, 2(c): notation -----------------------------------------------------------
def test_move_forms_are_parsed_alike() -> None:
    state = position({"c2": "b2", "c4": "w1", "e4": "b3", "f6": "w1"})
    expected = HokitoMove(sq("c2"), sq("e4"))
    for text in ("c2-e4", "c2 e4", "c2e4", "C2-E4", " c2 - e4 ", "c2>c4>e4", "c2 > c4 > E4"):
        move = state.parse_move(0, text)
        assert move == expected, text
        assert str(move) == "c2-e4" and move.path_text == "c2>c4>e4"
    assert HokitoMove(sq("c2"), sq("e4"), (1, 2, 3)) == expected
    assert state.move_tokens(expected) == ("c2", "e4")
    assert state.parse_move(0, " ".join(state.move_tokens(expected))) == expected


def test_error_messages_name_the_problem() -> None:
    state = position({"c2": "b2", "c4": "w1", "e4": "b3", "e6": "b1w2", "f6": "w1"})
    assert refused(state, "hello", InvalidMoveError) == (
        "hello: not a move; write origin and destination like c2-e4, or the full path "
        "like c2>c4>e4."
    )
    assert refused(state, "c7-e4", InvalidMoveError) == (
        "c7-e4: c7 is not a square (files a-f, ranks 1-6)."
    )
    assert refused(state, "d3-e4") == "d3-e4: d3 is empty; there is nothing to move."
    assert refused(state, "c4-c2") == (
        "c4-c2: c4 is White's pawn; move a pawn or stack of your colour."
    )
    assert refused(state, "e6-e4") == (
        "e6-e4: the stack on e6 is White's (a White pawn is on top)."
    )
    assert refused(state, "c2-c2") == "c2-c2: a move must end on another square."
    assert refused(state, "c2-c4") == (
        "c2-c4: a 2 makes exactly 2 jumps; no path of 2 jumps reaches c4 from c2."
    )
    assert refused(state, "c2>d3>e4") == (
        "c2>d3>e4: d3 is not straight up, down, left or right of c2; jumps are never diagonal."
    )
    assert refused(state, "c2>c2>e4") == "c2>c2>e4: a jump from c2 must leave c2."
    assert refused(state, "c2>c6>e6") == (
        "c2>c6>e6: the jump from c2 towards c6 stops at c4, the first occupied square."
    )
    white = position({"c2": "b2", "c4": "w1", "e4": "b3", "f6": "w1"}, side="w")
    with pytest.raises(IllegalMoveError, match=r"^It is White's turn\.$"):
        white.parse_move(0, "c2-e4")
    stacked = position({"a2": "b1", "c2": "b2", "c4": "w1", "e4": "w1b2w3", "f6": "w1"})
    assert refused(stacked, "c2-e4") == (
        "c2-e4: a single pawn must land on a single pawn; e4 holds a stack of 3."
    )


def test_position_notation_errors_are_clear() -> None:
    good = SEED1_START
    with pytest.raises(NotationError, match="side to move must be b or w"):
        GAME.from_text(good[:-1] + "x")
    with pytest.raises(NotationError, match="expected 6 ranks"):
        GAME.from_text(good.split("/", 1)[1])
    with pytest.raises(NotationError, match="rank 6 needs 6 squares"):
        GAME.from_text("w3," + good)
    with pytest.raises(NotationError, match="a6 reads 'w4'"):
        GAME.from_text("w4" + good[2:])
    with pytest.raises(NotationError, match=r"found 7 × w1, 5 × w3"):
        GAME.from_text("w1" + good[2:])
    with pytest.raises(NotationError, match="expected the board"):
        GAME.from_text("")
    upper = GAME.from_text(good.upper())
    assert upper == GAME.new_state(1, 2, None) and upper.to_text() == good


def test_values_and_squares_in_other_digits_are_refused() -> None:
    good = SEED1_START
    for value in ("٣", "³", "３"):
        with pytest.raises(NotationError, match="a6 reads"):
            GAME.from_text("w" + value + good[2:])
    state = GAME.from_text(good)
    for text in ("c٢-e4", "c2-e٤", "c²>c4"):
        with pytest.raises(InvalidMoveError):
            state.parse_move(0, text)


def test_option_labels_show_the_stack() -> None:
    state = position({"c2": "b2", "c4": "w1", "e4": "b3", "e6": "b1w2", "f6": "w1"})
    options = state.move_options(0)
    assert [o.token for o in options.options] == ["c2"]
    assert state.option_label((), "e6") == "e6 (W2×2)"
    assert state.option_label((), "c2") == "c2 (B2)"
    second = state.move_options(0, ("c2",))
    assert [o.token for o in second.options] == ["e4"]
    assert str(second.prompt) == "Choose where c2 lands."


# --- perft: engine against the naive walker -------------------------------------------
@pytest.mark.parametrize(
    ("text", "counts"),
    [(SEED1_START, (111, 11_560, 1_139_158)), (MID, (35, 798, 20_668))],
    ids=["seed1-start", "mid-game"],
)
def test_perft(text: str, counts: tuple[int, int, int]) -> None:
    state = GAME.from_text(text)
    assert isinstance(state, HokitoState)
    board, side = read(text)
    for depth, expected in enumerate(counts, start=1):
        assert naive_perft(board, side, depth) == expected
        assert engine_perft(state, depth) == expected


def test_perft_positions_are_what_they_claim() -> None:
    assert GAME.new_state(1, 2, None).to_text() == SEED1_START
    board, _ = read(MID)
    assert len(board) == 20 and Counter(p for s in board.values() for p in s) == FULL_SET
    assert max(len(s) for s in board.values()) == 4


# --- Hypothesis: random playouts ------------------------------------------------------
def check_path(board: Board, move: HokitoMove) -> None:
    """The move's path, walked square by square: straight rays to the first occupied
    square, no reversal, no square twice, the right kind at the end."""
    squares = [(s % 6, s // 6) for s in move.path]
    origin = squares[0]
    visited = {origin}
    last = None
    for at, to in itertools.pairwise(squares):
        dx, dy = (to[0] > at[0]) - (to[0] < at[0]), (to[1] > at[1]) - (to[1] < at[1])
        assert (dx == 0) != (dy == 0)
        assert last is None or (dx, dy) != (-last[0], -last[1])
        x, y = at
        while (x, y) != to:
            x, y = x + dx, y + dy
            assert (x, y) not in visited
            visited.add((x, y))
            assert ((x, y) in board and (x, y) != origin) == ((x, y) == to)
        last = (dx, dy)
    assert len(squares) - 1 == int(board[origin][-1][1])
    assert (len(board[squares[-1]]) == 1) == (len(board[origin]) == 1)


@settings(max_examples=60)
@given(
    seed=st.integers(0, 2**40),
    scatter=st.booleans(),
    picks=st.lists(st.integers(0, 10_000), min_size=20, max_size=80),
)
def test_random_playouts_keep_notation_pawns_and_scores(
    seed: int, scatter: bool, picks: list[int]
) -> None:
    start = GAME.new_state(seed, 2, "scatter" if scatter else None)
    assert isinstance(start, HokitoState)
    state = start
    for pick in picks:
        text = state.to_text()
        again = GAME.from_text(text)
        assert again == state and again.to_text() == text
        board, side = read(text)
        assert side == "bw"[state.to_move]
        assert Counter(p for stack in board.values() for p in stack) == FULL_SET
        assert state.scores() == naive_scores(board)
        moves = state.legal_moves(state.to_move)
        found = {(a[0] + 6 * a[1], b[0] + 6 * b[1]) for a, b in naive_moves(board, side)}
        assert {(m.origin, m.destination) for m in moves} == found
        if not moves:
            outcome = state.outcome()
            assert outcome is not None and outcome.scores == naive_scores(board)
            black, white = outcome.scores
            assert outcome.winners == (
                frozenset() if black == white else frozenset({0 if black > white else 1})
            )
            break
        move = moves[pick % len(moves)]
        check_path(board, move)
        assert state.parse_move(state.to_move, str(move)) == move
        assert state.parse_move(state.to_move, move.path_text).path == move.path
        state = state.play(state.to_move, move)


@given(st.text(alphabet="bw123.,/ xBW", max_size=60))
def test_position_parser_raises_only_notation_errors(text: str) -> None:
    try:
        state = GAME.from_text(text)
    except NotationError:
        return
    assert GAME.from_text(state.to_text()) == state


@given(st.text(alphabet="abcdefg01234567-> x", max_size=14))
def test_move_parser_raises_only_move_errors(text: str) -> None:
    state = GAME.new_state(1, 2, None)
    try:
        move = state.parse_move(0, text)
    except (InvalidMoveError, IllegalMoveError):
        return
    assert move in state.legal_moves(0)
