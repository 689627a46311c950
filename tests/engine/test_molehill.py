"""Mole Hill (RULES.md section 1): one scenario per ruling, perft against a naive model,
notation and invariants over random games."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import registry
from engine.core import IllegalMoveError, InvalidMoveError, NotationError
from engine.molehill import MoleHillState, Place, Rod, Step

GAME = registry.get("molehill")
FLOWERS = "e1,a4,i4,e7/b2,h2,b6,h6"
FILES = "abcdefghi"


def pos(text: str) -> MoleHillState:
    state = GAME.from_text(text)
    assert isinstance(state, MoleHillState)
    return state


def fresh(seed: int, variant: str | None = None) -> MoleHillState:
    state = GAME.new_state(seed, 2, variant)
    assert isinstance(state, MoleHillState)
    return state


def names(moves: object) -> set[str]:
    assert isinstance(moves, tuple)
    return {str(m) for m in moves}


def play(state: MoleHillState, *texts: str) -> MoleHillState:
    for text in texts:
        (seat,) = state.to_act
        state = state.play(seat, state.parse_move(seat, text))
    return state


# --- an independent model: the notation read by hand, moves found by geometry ----------
Square = tuple[int, int]
SIDES = {"n": (0, 1), "e": (1, 0), "s": (0, -1), "w": (-1, 0)}


def sq(name: str) -> Square:
    return FILES.index(name[0]), int(name[1:]) - 1


def sq_name(square: Square) -> str:
    return f"{FILES[square[0]]}{square[1] + 1}"


def inside(square: Square) -> bool:
    return 0 <= square[0] < 9 and 0 <= square[1] < 7


@dataclass
class Naive:
    round_no: int
    phase: str
    path: list[Square]
    rods: set[frozenset[Square]]
    red: list[Square]
    white: list[Square]
    first: int
    log: list[str] = field(default_factory=list)

    @staticmethod
    def read(text: str) -> Naive:
        head, path, rods, flowers, first = text.split()
        red, white = flowers.split("/")
        rod_set: set[frozenset[Square]] = set()
        for rod in [] if rods == "-" else rods.split(","):
            a = sq(rod[:-1])
            dc, dr = SIDES[rod[-1]]
            rod_set.add(frozenset({a, (a[0] + dc, a[1] + dr)}))
        return Naive(
            int(head[0]),
            head[1],
            [] if path == "-" else [sq(n) for n in path.split(",")],
            rod_set,
            [sq(n) for n in red.split(",")],
            [sq(n) for n in white.split(",")],
            -1 if first == "-" else int(first),
        )

    def score(self) -> int:
        bonus = sum(2 for s in self.red if s in self.path)
        bonus += sum(1 for s in self.white if s in self.path)
        return max(0, len(self.path) - 10) + bonus

    def open_between(self, a: Square, b: Square) -> bool:
        return frozenset({a, b}) not in self.rods

    def mole_squares(self) -> list[Square]:
        everywhere = [(c, r) for c in range(9) for r in range(7)]
        if not self.path:
            return everywhere
        here = self.path[-1]
        if here == (4, 3):
            return [s for s in everywhere if s not in self.path]
        out = []
        for s in everywhere:
            dc, dr = s[0] - here[0], s[1] - here[1]
            if s in self.path or max(abs(dc), abs(dr)) != 1:
                continue
            if dc == 0 or dr == 0:
                ok = self.open_between(here, s)
            else:
                a, b = (here[0] + dc, here[1]), (here[0], here[1] + dr)
                ok = (self.open_between(here, a) and self.open_between(a, s)) or (
                    self.open_between(here, b) and self.open_between(b, s)
                )
            if ok:
                out.append(s)
        return out

    def edges(self) -> list[frozenset[Square]]:
        out = []
        for c in range(9):
            for r in range(7):
                for nb in ((c + 1, r), (c, r + 1)):
                    edge = frozenset({(c, r), nb})
                    if inside(nb) and edge not in self.rods:
                        out.append(edge)
        return out

    def children(self) -> list[Naive]:
        if self.phase == "x":
            return []
        out = []
        if self.phase == "g":
            for edge in self.edges():
                child = Naive(
                    self.round_no,
                    "m",
                    self.path,
                    self.rods | {edge},
                    self.red,
                    self.white,
                    self.first,
                )
                if not child.mole_squares():
                    child = child.ended()
                out.append(child)
            return out
        for s in self.mole_squares():
            child = Naive(
                self.round_no, "g", [*self.path, s], self.rods, self.red, self.white, self.first
            )
            out.append(child.ended() if len(child.path) == 22 else child)
        return out

    def ended(self) -> Naive:
        if self.round_no == 1:
            return Naive(2, "m", [], set(), self.red, self.white, self.score())
        return Naive(2, "x", self.path, self.rods, self.red, self.white, self.first)


def naive_perft(node: Naive, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(naive_perft(child, depth - 1) for child in node.children())


def perft(state: MoleHillState, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for seat in state.to_act:
        for move in state.legal_moves(seat):
            total += perft(state.play(seat, move), depth - 1)
    return total


SNAKE_21 = "a1,b1,c1,d1,e1,f1,g1,h1,i1,i2,h2,g2,f2,e2,d2,c2,b2,a2,a3,b3,c3"
FAR_RODS_21 = "a7e,b7e,c7e,d7e,e7e,f7e,g7e,h7e,a6e,b6e,c6e,d6e,e6e,f6e,g6e,h6e,a5e,b5e,c5e,d5e,e5e"
#: Position -> leaf counts at depth 1, 2, ... (worked out by hand where small: 63 squares
#: then 110 edges; on the centre 108 free edges then 60 unvisited squares; in the round-2
#: trap one rod of 109 ends the game, the other 108 leave the single step to b1).
PERFT_POSITIONS = {
    "start": (f"1m - - {FLOWERS} -", (63, 6930)),
    "near-centre": (f"1m d3,d4 a1e,h7e {FLOWERS} -", (7, 756, 10672)),
    "on-centre": (f"1g c3,d3,e4 e4n,e3n {FLOWERS} -", (108, 6480)),
    "last-square": (f"1m {SNAKE_21} {FAR_RODS_21} {FLOWERS} -", (4, 252, 27720)),
    "round2-trap": (f"2g b2,a1 a1n {FLOWERS} 5", (109, 108, 11664)),
}


@pytest.mark.parametrize("key", sorted(PERFT_POSITIONS))
def test_perft_matches_a_naive_model_and_the_table(key: str) -> None:
    text, counts = PERFT_POSITIONS[key]
    for depth, expected in enumerate(counts, start=1):
        assert naive_perft(Naive.read(text), depth) == expected, (key, depth, "naive")
        assert perft(pos(text), depth) == expected, (key, depth)


def test_perft_known_counts() -> None:
    # On the centre: every one of the 63 - 3 unvisited squares.
    assert perft(pos(f"1m c3,d3,e4 e4n,e3n,a1e {FLOWERS} -"), 1) == 60


# --- 1(a) and 1(b): one scenario per ruling ---------------------------------------------
def test_b1_board_is_nine_by_seven() -> None:
    start = fresh(1)
    assert {str(m) for m in start.legal_moves(0)} == {
        f"place {c}{r}" for c in FILES for r in range(1, 8)
    }
    for bad in ("j1", "a8", "a0"):
        with pytest.raises(InvalidMoveError, match="no square"):
            start.parse_move(0, bad)


def test_b2_centre_is_e4_and_allows_a_jump() -> None:
    state = pos(f"1m c3,d3,e4 a1e,a2e,a3e {FLOWERS} -")
    assert state.can_jump
    assert "i7" in names(state.legal_moves(0))
    # d4 is a neighbour, not the centre: no jump from there.
    assert not pos(f"1m c3,d4 a1e,a2e {FLOWERS} -").can_jump


def test_b3_default_flowers_and_the_random_variant() -> None:
    start = fresh(7)
    assert start.to_text() == f"1m - - {FLOWERS} -"
    boards = set()
    for seed in range(30):
        state = fresh(seed, "random-flowers")
        spots = state.red + state.white
        assert len(set(spots)) == 8 and 31 not in spots
        assert fresh(seed, "random-flowers") == state
        boards.add(spots)
    assert len(boards) > 20
    # The same flowers in round 2.
    state = fresh(3, "random-flowers")
    after = play(state, "place a1", "rod a1n", "b1", "rod b1n", "c1", "rod c1n")
    after = play(after, "d1", "rod d1n", "e1", "rod e1n")
    while after.round_no == 1:
        (seat,) = after.to_act
        after = after.play(seat, after.legal_moves(seat)[0])
    assert (after.red, after.white) == (state.red, state.white)


def test_b4_flowers_score_on_orange_pieces_too() -> None:
    # Three squares, all orange: e1 red (+2), plus d2, c2 with nothing.
    assert pos(f"1m e1,d2,c2 a7e,b7e,c7e {FLOWERS} -").round_score() == 2
    # b2 white (+1) and a4 red... not visited: path b2,a3.
    assert pos(f"1m b2,a3 a7e,b7e {FLOWERS} -").round_score() == 1


def test_b5_pieces_beyond_the_tenth_score_one_each() -> None:
    ten = "a3,b3,c3,d3,e3,f3,g3,h3,i3,i4"  # i4 is red: +2
    nine_rods = "a7e,b7e,c7e,d7e,e7e,f7e,g7e,h7e,a6e"
    # Ten orange pieces score nothing; only the flower counts.
    assert pos(f"1g {ten} {nine_rods} {FLOWERS} -").round_score() == 2
    # The eleventh square gets the first dark piece: one point.
    assert pos(f"1g {ten},i5 {nine_rods},b6e {FLOWERS} -").round_score() == 3


def test_b6_the_22nd_square_ends_the_round_at_once() -> None:
    state = pos(f"1m {SNAKE_21} {FAR_RODS_21} {FLOWERS} -")
    after = play(state, "d3")
    # 12 dark pieces, e1 (+2), b2 (+1), h2 (+1).
    assert after.to_text() == f"2m - - {FLOWERS} 16"
    assert after.to_act == frozenset({1})
    assert after.scores() == (16, 0)


def test_b7_the_starting_square_counts_for_flowers() -> None:
    state = play(fresh(1), "place a4")
    assert isinstance(state, MoleHillState)
    assert state.round_score() == 2 and state.path == (27,)


def test_b8_centre_jump_is_optional_ignores_rods_and_is_lost_after() -> None:
    state = pos(f"1m c3,d3,e4 e4n,e4e,e3n {FLOWERS} -")
    legal = names(state.legal_moves(0))
    # Rods on every side of e4 do not stop the jump; visited squares stay closed.
    assert {"e5", "f4", "e3", "i7", "a1"} <= legal
    assert "d3" not in legal and "c3" not in legal
    assert len(legal) == 60
    # Optional: an ordinary step is among the moves; after a jump only steps remain.
    after = play(state, "i7", "rod a1e")
    assert names(after.legal_moves(0)) == {"h7", "i6", "h6"}
    with pytest.raises(IllegalMoveError, match="neighbouring"):
        after.parse_move(0, "a2")


def test_b9_the_mole_may_start_on_the_centre() -> None:
    state = play(fresh(1), "place e4", "rod e4n")
    assert len(state.legal_moves(0)) == 62
    assert "a1" in names(state.legal_moves(0))


def test_b10_diagonals_need_one_free_side_and_ignore_visited_squares() -> None:
    # Both ways around the corner c3 -> d4 blocked: via d3 by c3e, via c4 by c4e.
    blocked = pos(f"1m b3,c3 c3e,c4e {FLOWERS} -")
    assert "d4" not in names(blocked.legal_moves(0))
    with pytest.raises(IllegalMoveError, match="both ways around the corner"):
        blocked.parse_move(0, "d4")
    # One way free (via c4: c3n and c4e) is enough.
    one_way = pos(f"1m b3,c3 c3e,d3n {FLOWERS} -")
    assert "d4" in names(one_way.legal_moves(0))
    # The way via d3 is free of rods although d3 was visited: still legal.
    through_visited = pos(f"1m d3,c3 c3n,c4e {FLOWERS} -")
    assert "d4" in names(through_visited.legal_moves(0))


def test_a_straight_step_may_not_cross_a_rod_nor_revisit() -> None:
    state = pos(f"1m d3,c3 c3n,c4e {FLOWERS} -")
    with pytest.raises(IllegalMoveError, match="a rod blocks the way from c3 to c4"):
        state.parse_move(0, "c4")
    with pytest.raises(IllegalMoveError, match="already visited d3"):
        state.parse_move(0, "d3")
    with pytest.raises(IllegalMoveError, match="already on c3"):
        state.parse_move(0, "c3")
    assert names(state.legal_moves(0)) == {"d4", "d2", "c2", "b2", "b3", "b4"}


def test_b11_rods_only_on_the_110_interior_edges() -> None:
    state = play(fresh(1), "place e4")
    assert len(state.legal_moves(1)) == 110
    for border in ("rod a1w", "rod a1s", "rod i7n", "rod i7e", "e1s"):
        with pytest.raises(IllegalMoveError, match="edge of the lawn"):
            state.parse_move(1, border)
    with pytest.raises(InvalidMoveError, match="do not share a side"):
        state.parse_move(1, "rod a1-c1")
    after = play(state, "rod e4n", "e3")
    with pytest.raises(IllegalMoveError, match="already a rod between e4 and e5"):
        after.parse_move(1, "rod e5s")


def test_b12_rods_stay_and_come_back_for_round_2() -> None:
    state = play(pos(f"1m d3,c3 c3n,c4e {FLOWERS} -"), "d4", "rod a1e")
    assert state.rods_placed == 3
    with pytest.raises(IllegalMoveError, match="already a rod between c3 and c4"):
        play(state, "e5").parse_move(1, "rod c4s")
    for text in ("remove c3n", "take c3n", "rod"):
        with pytest.raises(InvalidMoveError):
            state.parse_move(0, text)
    round2 = play(pos(f"1g b2,a1 a1n {FLOWERS} -"), "rod a1e")
    assert round2.rods == 0 and round2.path == ()


def test_b13_gardener_places_a_rod_even_after_a_dead_end() -> None:
    state = play(pos(f"1m b1,a2,b2 f7e,g7e,h7e {FLOWERS} -"), "a1")
    # The mole on a1 has every neighbour visited, yet the gardener still plays.
    assert state.to_act == frozenset({1}) and not state.mole_targets()
    assert len(state.legal_moves(1)) == 107
    with pytest.raises(InvalidMoveError):
        state.parse_move(1, "pass")
    after = play(state, "rod i1n")
    assert after.to_text() == f"2m - - {FLOWERS} 1"


def test_b14_the_mole_may_not_pass() -> None:
    state = pos(f"1m d3,c3 c3n,c4e {FLOWERS} -")
    with pytest.raises(InvalidMoveError):
        state.parse_move(0, "pass")
    assert all(isinstance(m, Step) for m in state.legal_moves(0))


def test_b15_a_blocked_mole_ends_the_round_at_its_turn() -> None:
    state = pos(f"1g b2,a1 a1n {FLOWERS} -")
    trapped = play(state, "rod a1e")
    assert trapped.to_text() == f"2m - - {FLOWERS} 1"
    free = play(state, "rod i1n")
    assert free.round_no == 1 and names(free.legal_moves(0)) == {"b1"}


def test_b16_seat_0_is_mole_first_then_gardener() -> None:
    start = fresh(5)
    assert start.to_act == frozenset({0})
    assert GAME.seat_names == ("First mole", "First gardener")
    assert GAME.draw_seats
    after = play(start, "place c3")
    assert after.to_act == frozenset({1})
    with pytest.raises(IllegalMoveError, match="not your turn"):
        after.parse_move(0, "rod c3n")
    round2 = pos(f"2m - - {FLOWERS} 4")
    assert round2.to_act == frozenset({1})
    assert play(round2, "place a1").to_act == frozenset({0})


def test_b17_equal_totals_are_a_draw_and_higher_wins() -> None:
    # Round 2: the second mole is trapped on a1 with b2 (white, +1) visited: 1 point.
    draw = play(pos(f"2g b2,a1 a1n {FLOWERS} 1"), "rod a1e")
    outcome = draw.outcome()
    assert outcome is not None and outcome.is_draw and outcome.scores == (1, 1)
    assert "Round 1" in str(outcome.reason) and "Round 2" in str(outcome.reason)
    first_wins = play(pos(f"2g b2,a1 a1n {FLOWERS} 5"), "rod a1e").outcome()
    assert first_wins is not None and first_wins.winners == {0}
    assert "5" in str(first_wins.reason) and "1" in str(first_wins.reason)
    second_wins = play(pos(f"2g b2,a1 a1n {FLOWERS} 0"), "rod a1e").outcome()
    assert second_wins is not None and second_wins.winners == {1}


def test_b18_twenty_two_pieces_at_most() -> None:
    with pytest.raises(NotationError, match="22"):
        pos(f"1g {SNAKE_21},d3,e3 {FAR_RODS_21},f5e {FLOWERS} -")


# --- 1(c) notation and move syntax ---------------------------------------------------------
def test_c_move_notation_forms() -> None:
    start = fresh(1)
    assert start.parse_move(0, "place e4") == start.parse_move(0, "E4") == Place(31)
    with pytest.raises(IllegalMoveError, match="place it first"):
        start.parse_move(0, "move e4")
    placed = play(start, "place e4")
    forms = ("rod e4n", "rod e5s", "rod e4-e5", "rod e5-e4", "e4n", "e4 n", "ROD E5S", "e4 - e5")
    assert {placed.parse_move(1, f) for f in forms} == {
        Rod(56 + 3 * 9 + 4)
    }  # north edges follow the 56 east edges
    assert str(placed.parse_move(1, "rod e5s")) == "rod e4n"
    assert str(placed.parse_move(1, "rod f4w")) == "rod e4e"
    moved = play(placed, "rod a1e")
    assert moved.parse_move(0, "f5") == moved.parse_move(0, "move f5") == Step(41)
    with pytest.raises(IllegalMoveError, match="already on the lawn"):
        moved.parse_move(0, "place f5")
    with pytest.raises(IllegalMoveError, match="gardener's turn"):
        placed.parse_move(1, "f5")
    with pytest.raises(IllegalMoveError, match="mole's turn"):
        moved.parse_move(0, "rod e4n")


def test_c_position_notation_round_trips_and_rejects_nonsense() -> None:
    text = f"1g c3,d3,e4 e3n,e4n {FLOWERS} -"
    assert pos(text).to_text() == text
    assert pos(f"1g c3,d3,e4 e4s,e5s {FLOWERS} -").to_text() == text
    assert pos(text.upper()) == pos(text)
    bad = {
        f"1m - - {FLOWERS}": "5 fields",
        f"3m - - {FLOWERS} -": "first field",
        f"1m a1,a1 a1e,a2e {FLOWERS} -": "twice",
        f"1m a1,c1 a1e,a2e {FLOWERS} -": "not neighbours",
        f"1m a1,b1 a1e {FLOWERS} -": "one rod per visited square",
        f"1g a1 a1e {FLOWERS} -": "one rod fewer",
        "1m - - e1,a4,i4/b2,h2,b6,h6 -": "four red",
        "1m - - e1,a4,i4,e4/b2,h2,b6,h6 -": "none of them e4",
        f"1m - - {FLOWERS} 3": "written -",
        f"2m - - {FLOWERS} x": "number",
        f"1m b2,a1 a1n,a1e {FLOWERS} -": "already over",
        f"1x b2,a1 a1n,a1e {FLOWERS} -": "round 2",
        f"2x b2,a1 a1n,i1n {FLOWERS} 3": "cannot move",
        f"1m a1 a1z {FLOWERS} -": "rods",
        f"1m a1 a1e,a1e {FLOWERS} -": "twice",
        f"1m k1 a1e {FLOWERS} -": "not a square",
    }
    for text, reason in bad.items():
        with pytest.raises(NotationError, match=reason):
            pos(text)


@pytest.mark.parametrize("score", ["1²", "٣", "１", "9" * 5000, "25", "-1"])
def test_the_round_1_score_is_ascii_digits_up_to_24(score: str) -> None:
    assert pos(f"2m - - {FLOWERS} 24").first_score == 24
    with pytest.raises(NotationError, match="round-1 score must be a number from 0 to 24"):
        pos(f"2m - - {FLOWERS} {score}")


def test_squares_in_other_digits_are_refused() -> None:
    with pytest.raises(NotationError, match="not a square"):
        pos(f"1g e٤ - {FLOWERS} -")
    with pytest.raises(InvalidMoveError):
        pos(f"1m - - {FLOWERS} -").parse_move(0, "place e٤")


# --- front-end helpers and evaluation ---------------------------------------------------
def test_builder_labels_and_edges_around_mole() -> None:
    state = pos(f"1m d3,c3 c3n,c4e {FLOWERS} -")
    assert state.option_label((), "d4") == "↗ d4"
    assert state.option_label((), "b3") == "← b3"
    centre = pos(f"1m c3,d3,e4 e4n,e3n,a1e {FLOWERS} -")
    assert centre.option_label((), "i7") == "i7"
    assert centre.option_label((), "d5") == "↖ d5"
    gardener = play(state, "d4")
    # d4's west side (c4e) already holds a rod.
    assert names(gardener.edges_around_mole()) == {"rod d4n", "rod d4e", "rod d3n"}
    corner = play(pos(f"1m b1,a2,b2 f7e,g7e,h7e {FLOWERS} -"), "a1")
    assert names(corner.edges_around_mole()) == {"rod a1n", "rod a1e"}
    assert state.edges_around_mole() == ()
    top = gardener.move_options(1, ())
    labels = {o.token: o.label for o in top.options}
    # The free sides of the mole's square first, then the 62 other squares.
    assert len(labels) == 3 + 62 and "d4" not in labels and labels["d5"] == "d5"
    opts = gardener.move_options(1, ("d5",))
    assert {o.token for o in opts.options} == {"n", "e", "s", "w"}
    assert gardener.move_options(1, ("d5", "s")).complete == gardener.parse_move(1, "rod d4n")
    assert gardener.option_label(("d5",), "s") == "↓ south"


#: The mole on b7 after walking up column a; rods on the east sides of column b wall it in
#: with b1-b6 still free (six squares).
WALLED = f"1g a1,a2,a3,a4,a5,a6,a7,b7 b1e,b2e,b3e,b4e,b5e,b6e,b7e {FLOWERS} -"


def test_gardener_picks_a_side_of_the_mole_square_in_one_step() -> None:
    state = pos(WALLED)
    top = state.move_options(1, ())
    pinned = [(o.token, o.label) for o in top.options if o.pinned]
    # b7: north is the lawn's edge and east holds a rod.
    assert pinned == [("b7s", "↓ south of b7"), ("b7w", "← west of b7")]
    assert top.options[:2] == tuple(o for o in top.options if o.pinned)
    assert "b7" not in {o.token for o in top.options} and "b6" in {o.token for o in top.options}
    assert str(top.prompt) == "Choose a side of the mole's square, or a square to put a rod beside."
    south = state.move_options(1, ("b7s",))
    assert south.options == () and south.complete == Rod(state.parse_move(1, "rod b6n").edge)
    assert south.confirm
    assert (
        str(south.preview) == "Rod south of b7 closes the mole in: it cannot move, so round 1 ends."
    )
    west = state.move_options(1, ("b7w",))
    assert west.complete == state.parse_move(1, "rod a7e") and west.confirm
    assert str(west.preview) == (
        "Rod west of b7: the mole can still reach 6 squares, as now. "
        "Next turn it can move to 1 square."
    )
    # The tokens form typed moves as before: "b7s" and "b7 s" are the same rod.
    assert state.parse_move(1, "b7s") == state.parse_move(1, "b7 s") == south.complete


def test_every_rod_elsewhere_is_previewed_before_it_is_placed() -> None:
    state = pos(WALLED)
    sides = state.move_options(1, ("b3",))
    assert [o.token for o in sides.options] == ["n", "s", "w"] and sides.complete is None
    built = state.move_options(1, ("b3", "n"))
    assert built.complete == state.parse_move(1, "rod b4s") and built.confirm
    assert str(built.preview) == (
        "Rod north of b3: the mole can still reach 3 squares (6 now). "
        "Next turn it can move to 1 square."
    )
    assert str(built.prompt).startswith("Place this rod?")
    opening = pos(f"1g a1 - {FLOWERS} -").move_options(1, ("a1n",))
    assert str(opening.preview) == (
        "Rod north of a1: the mole can still reach 62 squares, as now. "
        "Next turn it can move to 2 squares."
    )
    # A taken edge, the lawn's edge and nonsense complete nothing.
    for prefix in [("b7e",), ("b7n",), ("b3", "e"), ("b7", "x"), ("zz",), ("b3", "n", "s")]:
        assert state.move_options(1, prefix).complete is None, prefix


def test_the_mole_still_moves_in_one_click_without_a_confirm() -> None:
    mole = pos(f"1m d3,c3 c3n,c4e {FLOWERS} -")
    top = mole.move_options(0, ())
    assert not any(o.pinned for o in top.options)
    step = mole.move_options(0, ("d4",))
    assert step.complete == Step(mole.parse_move(0, "d4").square) and not step.confirm


def test_evaluate_prefers_trapping_for_the_gardener() -> None:
    state = pos(f"1g b2,a1 a1n {FLOWERS} -")
    trap = play(state, "rod a1e")
    far = play(state, "rod i1n")
    assert trap.evaluate(1) > far.evaluate(1)
    assert far.evaluate(0) == -far.evaluate(1)
    open_lawn = pos(f"1m e2,f3 a1e,a2e {FLOWERS} -")
    boxed = pos(f"1m e2,f3 f3n,f3e {FLOWERS} -")
    assert open_lawn.evaluate(0) > boxed.evaluate(0)


# --- random games: notation and invariants ---------------------------------------------
def random_game(choices: list[int]) -> list[MoleHillState]:
    state = fresh(choices[0])
    states = [state]
    i = 0
    while state.to_act:
        (seat,) = state.to_act
        moves = state.legal_moves(seat)
        state = state.play(seat, moves[choices[i % len(choices)] % len(moves)])
        states.append(state)
        i += 1
    return states


def recount(text: str) -> int:
    """The current round's score from the notation alone."""
    _, path, _, flowers, _ = text.split()
    squares = [] if path == "-" else path.split(",")
    red, white = (part.split(",") for part in flowers.split("/"))
    return (
        max(0, len(squares) - 10)
        + 2 * len(set(red) & set(squares))
        + len(set(white) & set(squares))
    )


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=60))
def test_random_games_round_trip_and_keep_invariants(choices: list[int]) -> None:
    states = random_game(choices)
    assert states[-1].outcome() is not None
    for state in states:
        text = state.to_text()
        assert GAME.from_text(text) == state
        assert len(state.path) <= 22 and state.rods_placed <= 21
        assert len(set(state.path)) == len(state.path)
        for a, b in zip(state.path, state.path[1:], strict=False):
            near = max(abs(a % 9 - b % 9), abs(a // 9 - b // 9)) == 1
            assert near or a == 31, (a, b)
        assert state.rods_placed == len(state.path) - (1 if state.phase == "g" else 0) or (
            state.phase == "x" and len(state.path) == 22 and state.rods_placed == 21
        )
        assert state.round_score() == recount(text)
        squares = text.split()[1]
        visited = 0 if squares == "-" else len(squares.split(","))
        assert state.pieces_left == 22 - visited
        assert state.orange_left == max(0, 10 - visited)
        if state.round_no == 2:
            assert state.scores() == (state.first_score, recount(text))
        else:
            assert state.scores() == (recount(text), 0)
    final = states[-1].outcome()
    assert final is not None and final.scores == (
        states[-1].first_score,
        recount(states[-1].to_text()),
    )


OPPOSITE = {"n": "s", "s": "n", "e": "w", "w": "e"}


def other_forms(move: Place | Step | Rod) -> list[str]:
    """Every other way to write `move` that RULES.md 1(c) accepts, built by hand."""
    text = str(move)
    if isinstance(move, Rod):
        square, side = text[4:-1], text[-1]
        dc, dr = SIDES[side]
        col, row = sq(square)
        neighbour = sq_name((col + dc, row + dr))
        return [
            f"rod {neighbour}{OPPOSITE[side]}",
            f"rod {square}-{neighbour}",
            f"{neighbour}-{square}",
            f"{square} {side}",
            text.upper(),
        ]
    if isinstance(move, Place):
        return [text[6:], text.upper()]
    return [f"move {text}", text.upper()]


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=0, max_value=40))
def test_move_notation_round_trips(seed: int, plies: int) -> None:
    states = random_game([seed, seed // 7, seed // 13])
    state = states[min(plies, len(states) - 1)]
    for seat in state.to_act:
        for move in state.legal_moves(seat):
            assert state.parse_move(seat, str(move)) == move
            for form in other_forms(move):
                assert state.parse_move(seat, form) == move, form


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="12mgx -,/abcdefghijnesw0123456789", max_size=60))
def test_garbage_notation_is_refused_or_round_trips(text: str) -> None:
    try:
        state = GAME.from_text(text)
    except NotationError:
        return
    assert GAME.from_text(state.to_text()) == state


FLOWERS = "e1,a4,i4,e7/b2,h2,b6,h6"


def test_a_rod_is_described_by_what_it_leaves_the_mole() -> None:
    game = registry.get("molehill")
    open_lawn = game.from_text(f"1g d4 - {FLOWERS} -")
    cornered = game.from_text(f"1g b2,a1 a1n {FLOWERS} -")

    def said(state: object, text: str) -> str:
        assert isinstance(state, MoleHillState)
        return str(state.move_description(state.gardener_seat, state.parse_move(1, text)))

    assert said(open_lawn, "rod d4n") == "mole still reaches all 62 squares, 7 ways on next turn"
    assert said(cornered, "rod a1e") == "closes the mole in: round 1 ends"
    assert said(cornered, "rod a2e") == "mole still reaches all 61 squares, 1 way on next turn"


def test_a_mole_square_is_described_by_its_points_and_the_ways_on() -> None:
    game = registry.get("molehill")
    start = game.from_text(f"1m - - {FLOWERS} -")
    later = game.from_text(f"1m d4 d4n {FLOWERS} -")

    def said(state: object, text: str) -> str:
        assert isinstance(state, MoleHillState)
        return str(state.move_description(0, state.parse_move(0, text)))

    assert said(start, "place e1") == "+2 points, red flower, then 5 ways on"
    assert said(start, "place a1") == "+0 points, then 3 ways on"
    assert said(later, "e4") == "+0 points, the centre: then anywhere"
    assert said(later, "c3") == "+0 points, then 7 ways on"
