"""Standings: placement points at tables of two to four; Buchholz cut 1, Sonneborn-Berger
and direct encounter as FIDE's Tie-Break Regulations (C.07, 2023) count them, byes,
forfeits and leavers included, checked against FIDE's own exercise; shared ranks; tables
of four; the crosstable of a single and a double round robin; a cup's order."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from host.events.standings import (
    Bye,
    CupRun,
    Entrant,
    TableResult,
    crosstable,
    cup_standings,
    placement_points,
    standings,
)

#: A two-player result as places, white (seat 0) first.
PLACES = {"1-0": (1, 2), "0-1": (2, 1), "½-½": (1, 1)}


def game(round_: int, white: int, black: int, result: str, *, forfeit: bool = False) -> TableResult:
    return TableResult(round_, (white, black), PLACES[result], forfeit, None if forfeit else 1)


def entrants(*user_ids: int, left: tuple[int, ...] = ()) -> list[Entrant]:
    """Entrants in the order given, each named after their id."""
    return [
        Entrant(uid, f"P{uid}", order, uid not in left)
        for order, uid in enumerate(user_ids, start=1)
    ]


# --- placement points -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("places", "points"),
    [
        ((1, 2), (F(1), F(0))),
        ((2, 1), (F(0), F(1))),
        ((1, 1), (F(1, 2), F(1, 2))),
        ((1, 2, 3), (F(1), F(1, 2), F(0))),
        ((3, 1, 2), (F(0), F(1), F(1, 2))),
        # Two share first: (1 + 1/2)/2 each.
        ((1, 1, 3), (F(3, 4), F(3, 4), F(0))),
        # Two share second: (1/2 + 0)/2 each.
        ((1, 2, 2), (F(1), F(1, 4), F(1, 4))),
        ((1, 1, 1), (F(1, 2), F(1, 2), F(1, 2))),
        ((1, 2, 3, 4), (F(1), F(2, 3), F(1, 3), F(0))),
        # Two share first: (1 + 2/3)/2 = 5/6 each.
        ((1, 1, 3, 4), (F(5, 6), F(5, 6), F(1, 3), F(0))),
        # The same tie written with the next place following on.
        ((1, 1, 2, 3), (F(5, 6), F(5, 6), F(1, 3), F(0))),
        # Three share second: (2/3 + 1/3 + 0)/3 = 1/3 each.
        ((1, 2, 2, 2), (F(1), F(1, 3), F(1, 3), F(1, 3))),
        # Seat 1 first; seats 0 and 3 share second and third, (2/3 + 1/3)/2; seat 2 last.
        ((2, 1, 4, 2), (F(1, 2), F(1), F(0), F(1, 2))),
        ((1, 1, 1, 1), (F(1, 2), F(1, 2), F(1, 2), F(1, 2))),
    ],
)
def test_placement_points(places: tuple[int, ...], points: tuple[F, ...]) -> None:
    assert placement_points(places) == points


def test_placement_points_need_two_players() -> None:
    with pytest.raises(ValueError):
        placement_points((1,))


# --- FIDE's exercise: a Swiss with byes, forfeits and a leaver ---------------------------

#: The crosstable of the tie-break exercise FIDE's Technical Commission set for the 2023
#: rules (tec.fide.com, March 2024), a 16-player Swiss of 5 rounds: per round, the
#: result (+ = -), the colour (W, B, F for a forfeit) and the opponent. Player 12's line
#: is rebuilt from the others' lines and from the exercise's Buchholz of player 4 (15): a
#: loss to 4, the pairing's bye, a forfeit won against 14, and gone after round 3 ("--":
#: no game). Half-point byes ("=BYE", for 4 and 9) do not exist here and are left out,
#: so 4 has 3 points and 9 one; no line below depends on them.
EXERCISE = {
    1: "+W9 =B13 =W2 +B15 =W4",
    2: "+B10 +W7 =B1 +W16 =B3",
    3: "=W11 +B6 +W8 =B4 =W2",
    4: "+B12 =BYE +W13 =W3 =B1",
    5: "-W13 -B15 +W11 =B7 +W10",
    6: "-B14 -W3 +BYE +W10 +B8",
    7: "+W15 -B2 -B16 =W5 -B11",
    8: "=B16 +W14 -B3 +W13 -W6",
    9: "-B1 -W10 =BYE -F11 +BYE",
    10: "-W2 +B9 -W15 -B6 -B5",
    11: "=B3 -W16 -B5 +F9 +W7",
    12: "-W4 +BYE +F14 -- --",
    13: "+B5 =W1 -B4 -B8 -W14",
    14: "+W6 -B8 -F12 -- +B13",
    15: "-B7 +W5 +B10 -W1 -B16",
    16: "=W8 +B11 +W7 -B2 +W15",
}


def exercise() -> tuple[list[Entrant], list[TableResult], list[Bye]]:
    """The exercise as the standings take it: each game from its white player's line (a
    forfeit from its winner's), each full-point bye from its player's."""
    results: list[TableResult] = []
    byes: list[Bye] = []
    places = {"+": "1-0", "=": "½-½", "-": "0-1"}
    for player, line in EXERCISE.items():
        for round_, code in enumerate(line.split(), start=1):
            if code == "+BYE":
                byes.append(Bye(round_, player))
            elif code[1] == "W":
                results.append(game(round_, player, int(code[2:]), places[code[0]]))
            elif code[:2] == "+F":
                results.append(game(round_, player, int(code[2:]), "1-0", forfeit=True))
    return entrants(*range(1, 17), left=(12,)), results, byes


def test_fide_exercise_buchholz_cut_1() -> None:
    """The exercise's answer for Buchholz cut 1 of 5, 8 and 11: 7.5, 12 and 12. By hand:
    5 met 13, 15, 11, 7, 10: 1.5 + 2 + 2.5 + 1.5 + 1 = 8.5, cut 1. 8 met 16, 14, 3, 13,
    6: 3.5 + 2 + 3.5 + 1.5 + 3 = 13.5, cut 1.5. 11's forfeit win over 9 counts as a game
    against a dummy opponent with 11's own 2.5 points, not 9's score: 3.5 (3) + 3.5 (16)
    + 2.5 (5) + 2.5 + 1.5 (7) = 13.5, cut 1.5."""
    rows = {row.user_id: row for row in standings(*exercise())}
    assert rows[5].buchholz_cut1 == F(15, 2)
    assert rows[8].buchholz_cut1 == 12
    assert rows[11].buchholz_cut1 == 12


def test_fide_exercise_standings() -> None:
    """Worked by hand from the crosstable (points as encoded: 4 has 3, 9 has 1, 12 has 2,
    and 12 counts 3 in others' tie-breaks, his two rounds after leaving as draws)."""
    rows = standings(*exercise())
    by_id = {row.user_id: row for row in rows}
    # 2 alone on 4; on 3.5, Buchholz cut 1: 3 has 2.5+3+2.5+3+4 - 2.5 = 12.5, 16 has
    # 2.5+2.5+1.5+4+2 - 1.5 = 11, 1 has 1+1.5+4+2+3 - 1 = 10.5. On 3, 6 has
    # 2+3.5+3(bye: his own points)+1+2.5 - 1 = 11 and 4 has 3(12)+1.5+3.5+3.5 - 1.5 = 10.
    # On 2.5, 8 and 11 both 12, then Sonneborn-Berger: 8 has 1/2·3.5 + 2 + 1.5 = 5.25, 11
    # has 1/2·3.5 + 1.5 = 3.25 (his forfeit is not a played game); 5 has 7.5. On 2, 15
    # has 1.5+2.5+1+3.5+3.5 - 1 = 11, 12 has 3+2+2+2+2 - 2 = 9 (a round after leaving is
    # cut first), 14 has 3+2.5+2+1.5 - 2 = 7 (his forfeit loss is cut, not the 1.5). On
    # 1.5, 7 has 2+4+3.5+2.5+2.5 - 2 = 12.5 and 13 has 2.5+3.5+3+2.5+2 - 2 = 11.5. On 1,
    # 10 has 4+1+2+3+2.5 - 1 = 11.5 and 9 has 3.5+1+1(forfeit lost)+1(bye) - 1 = 5.5.
    assert [row.user_id for row in rows] == [2, 3, 16, 1, 6, 4, 8, 11, 5, 15, 12, 14, 7, 13, 10, 9]
    assert [row.rank for row in rows] == list(range(1, 17))
    assert [row.points for row in rows] == [
        4, F(7, 2), F(7, 2), F(7, 2), 3, 3, F(5, 2), F(5, 2), F(5, 2), 2, 2, 2,
        F(3, 2), F(3, 2), 1, 1,
    ]  # fmt: skip
    assert [row.buchholz_cut1 for row in rows] == [
        12, F(25, 2), 11, F(21, 2), 11, 10, 12, 12, F(15, 2), 11, 9, 7, F(25, 2), F(23, 2),
        F(23, 2), F(11, 2),
    ]  # fmt: skip
    assert by_id[8].sonneborn_berger == F(21, 4)
    assert by_id[11].sonneborn_berger == F(13, 4)
    # 5: wins over 11 (2.5) and 10 (1), a draw with 7 (1.5): 2.5 + 1 + 0.75.
    assert by_id[5].sonneborn_berger == F(17, 4)
    assert all(row.direct is None for row in rows)


def test_fide_exercise_counts() -> None:
    rows = {row.user_id: row for row in standings(*exercise())}
    nine, eleven, twelve = rows[9], rows[11], rows[12]
    assert (nine.played, nine.wins, nine.draws, nine.losses, nine.byes) == (2, 0, 0, 2, 1)
    assert (eleven.played, eleven.wins, eleven.draws, eleven.losses) == (4, 1, 1, 2)
    assert (twelve.played, twelve.losses, twelve.byes, twelve.playing) == (1, 1, 1, False)
    assert rows[1].playing


# --- round robins: direct encounter and shared ranks ------------------------------------

#: A single round robin of four: B (1) entered first, then A (2), C (3), D (4).
B, A, C, D = 1, 2, 3, 4
ROUND_ROBIN = [
    game(1, A, B, "1-0"),
    game(1, C, D, "0-1"),
    game(2, A, C, "½-½"),
    game(2, B, D, "½-½"),
    game(3, D, A, "1-0"),
    game(3, B, C, "1-0"),
]


def test_direct_encounter_breaks_a_tie() -> None:
    """A and B both have 1.5. Buchholz: each met everyone else, 1.5 + 0.5 + 2.5 = 4.5, cut
    C's 0.5: 4. Sonneborn-Berger: A beat B (1.5) and drew C (0.25), B beat C (0.5) and
    drew D (1.25): 1.75 each. A beat B: direct encounter 1 to 0, so A goes first though B
    entered first."""
    rows = standings(entrants(B, A, C, D), ROUND_ROBIN, [])
    assert [row.user_id for row in rows] == [D, A, B, C]
    assert [row.rank for row in rows] == [1, 2, 3, 4]
    assert [row.points for row in rows] == [F(5, 2), F(3, 2), F(3, 2), F(1, 2)]
    assert [row.buchholz_cut1 for row in rows] == [3, 4, 4, 4]
    assert [row.sonneborn_berger for row in rows] == [F(11, 4), F(7, 4), F(7, 4), F(3, 4)]
    assert [row.direct for row in rows] == [None, 1, 0, None]


def test_direct_encounter_needs_everyone_tied_to_have_met() -> None:
    """One round: 1 beats 2, 3 beats 4. 1 and 3 are equal on everything (1 point, their
    one Buchholz contribution cut, Sonneborn-Berger 0) but never met: direct encounter
    does not apply, they share first and stand in entry order; 2 and 4 likewise."""
    rows = standings(entrants(1, 2, 3, 4), [game(1, 1, 2, "1-0"), game(1, 3, 4, "1-0")], [])
    assert [(row.user_id, row.rank, row.direct) for row in rows] == [
        (1, 1, None),
        (3, 1, None),
        (2, 3, None),
        (4, 3, None),
    ]


def test_everyone_equal_shares_the_first_rank() -> None:
    """Every one of four on 1.5: Buchholz 4.5 cut 1.5 = 3, Sonneborn-Berger 2.25 each (A
    beat B and drew D, B beat C and drew D, C beat A and drew D, D drew all three), and
    1.5 each among themselves: all first, in entry order."""
    results = [
        game(1, A, B, "1-0"),
        game(1, C, D, "½-½"),
        game(2, C, A, "1-0"),
        game(2, B, D, "½-½"),
        game(3, A, D, "½-½"),
        game(3, B, C, "1-0"),
    ]
    rows = standings(entrants(B, A, C, D), results, [])
    assert [row.user_id for row in rows] == [B, A, C, D]
    assert [row.rank for row in rows] == [1, 1, 1, 1]
    assert {row.buchholz_cut1 for row in rows} == {3}
    assert {row.sonneborn_berger for row in rows} == {F(9, 4)}
    assert {row.direct for row in rows} == {F(3, 2)}


# --- tables of three and four -----------------------------------------------------------


def test_tables_of_four() -> None:
    """Two rounds of two tables of four. Round 1: 1, 2, 3, 4 finish in that order (1,
    2/3, 1/3, 0); 5 and 6 share first (5/6 each), then 7 (1/3), 8 (0). Round 2: 1 first,
    5 and 2 share second and third (1/2 each), 6 last; 3, 7, 4, 8 in that order.
    Points: 1: 2, 2: 7/6, 3: 4/3, 4: 1/3, 5: 4/3, 6: 5/6, 7: 1, 8: 0.

    A table's contribution is the mean of the tablemates' points. 1: round 1 (7/6 + 4/3 +
    1/3)/3 = 17/18, round 2 (4/3 + 7/6 + 5/6)/3 = 10/9; cut 17/18. 5: (5/6 + 1 + 0)/3 =
    11/18 and (2 + 7/6 + 5/6)/3 = 4/3; cut 11/18. 3: (2 + 7/6 + 1/3)/3 = 7/6 and (1 + 1/3 +
    0)/3 = 4/9; cut 4/9. So 5 goes before 3, both on 4/3. Sonneborn-Berger: 1: 17/18 +
    10/9 = 37/18; 5: 5/6·11/18 + 1/2·4/3 = 127/108; 3: 1/3·7/6 + 1·4/9 = 5/6."""
    results = [
        TableResult(1, (1, 2, 3, 4), (1, 2, 3, 4), False, 1),
        TableResult(1, (5, 6, 7, 8), (1, 1, 3, 4), False, 2),
        TableResult(2, (1, 5, 2, 6), (1, 2, 2, 4), False, 3),
        TableResult(2, (3, 7, 4, 8), (1, 2, 3, 4), False, 4),
    ]
    rows = standings(entrants(*range(1, 9)), results, [])
    assert [row.user_id for row in rows] == [1, 5, 3, 2, 7, 6, 4, 8]
    by_id = {row.user_id: row for row in rows}
    assert [by_id[u].points for u in range(1, 9)] == [
        2, F(7, 6), F(4, 3), F(1, 3), F(4, 3), F(5, 6), 1, 0,
    ]  # fmt: skip
    assert (by_id[1].buchholz_cut1, by_id[1].sonneborn_berger) == (F(10, 9), F(37, 18))
    assert (by_id[5].buchholz_cut1, by_id[5].sonneborn_berger) == (F(4, 3), F(127, 108))
    assert (by_id[3].buchholz_cut1, by_id[3].sonneborn_berger) == (F(7, 6), F(5, 6))
    # Won twice; shared first then was second; second then second and third with 5.
    assert (by_id[1].wins, by_id[1].draws, by_id[1].losses) == (2, 0, 0)
    assert (by_id[5].wins, by_id[5].draws, by_id[5].losses) == (0, 1, 1)
    assert (by_id[2].wins, by_id[2].draws, by_id[2].losses) == (0, 0, 2)


def test_a_table_of_three_weighs_as_one_game_like_a_table_of_four() -> None:
    """1 wins a table of four, 5 a table of three: 1 point each. Their one Buchholz
    contribution is cut; Sonneborn-Berger is 1 times the mean of the others' points:
    (2/3 + 1/3 + 0)/3 = 1/3 for 1, (1/2 + 0)/2 = 1/4 for 5."""
    results = [
        TableResult(1, (1, 2, 3, 4), (1, 2, 3, 4), False, 1),
        TableResult(1, (5, 6, 7), (1, 2, 3), False, 2),
    ]
    rows = standings(entrants(5, 6, 7, 1, 2, 3, 4), results, [])
    first, second = rows[0], rows[1]
    assert (first.user_id, first.points, first.sonneborn_berger) == (1, 1, F(1, 3))
    assert (second.user_id, second.points, second.sonneborn_berger) == (5, 1, F(1, 4))
    assert first.buchholz_cut1 == second.buchholz_cut1 == 0


# --- crosstables ------------------------------------------------------------------------


def test_crosstable_of_a_round_robin() -> None:
    """The round robin of the direct encounter, with C's game against D a forfeit D won:
    the standings keep D, A, B, C (D's forfeit counts his own 2.5 in his Buchholz)."""
    results = [game(1, C, D, "0-1", forfeit=True), *ROUND_ROBIN[0:1], *ROUND_ROBIN[2:]]
    rows = standings(entrants(B, A, C, D), results, [])
    assert [row.user_id for row in rows] == [D, A, B, C]
    assert crosstable(entrants(B, A, C, D), results, []) == [
        ["", "1", "½", "+"],
        ["0", "", "1", "½"],
        ["½", "0", "", "1"],
        ["-", "½", "0", ""],
    ]


def test_crosstable_of_a_double_round_robin() -> None:
    """Three players, each resting twice (a bye). X beats Y and draws Z in the first
    cycle, draws Y and beats Z in the second; Y beats Z, then Z beats Y. Points: X 3 + 2,
    Y and Z 1.5 + 2. Y and Z are equal all the way: Buchholz 5+5+3.5+3.5+3.5+3.5 = 24 cut
    3.5, Sonneborn-Berger 1/2·5 + 1·3.5 = 6, and a game each against the other, so they
    share second."""
    x, y, z = 1, 2, 3
    results = [
        game(1, x, y, "1-0"),
        game(2, x, z, "½-½"),
        game(3, y, z, "1-0"),
        game(4, y, x, "½-½"),
        game(5, z, x, "0-1"),
        game(6, z, y, "1-0"),
    ]
    byes = [Bye(1, z), Bye(2, y), Bye(3, x), Bye(4, z), Bye(5, y), Bye(6, x)]
    rows = standings(entrants(x, y, z), results, byes)
    assert [(row.user_id, row.rank, row.points) for row in rows] == [
        (x, 1, 5),
        (y, 2, F(7, 2)),
        (z, 2, F(7, 2)),
    ]
    assert [row.buchholz_cut1 for row in rows][1:] == [F(41, 2), F(41, 2)]
    assert [row.sonneborn_berger for row in rows][1:] == [6, 6]
    assert [row.direct for row in rows] == [None, 1, 1]
    assert [row.byes for row in rows] == [2, 2, 2]
    assert crosstable(entrants(x, y, z), results, byes) == [
        ["", "1 ½", "½ 1"],
        ["0 ½", "", "1 0"],
        ["½ 0", "0 1", ""],
    ]


def test_a_game_being_played_counts_for_nothing_yet() -> None:
    results = [TableResult(1, (1, 2), None, False, 7)]
    rows = standings(entrants(1, 2), results, [])
    assert [(row.user_id, row.rank, row.points, row.played) for row in rows] == [
        (1, 1, 0, 0),
        (2, 1, 0, 0),
    ]
    assert crosstable(entrants(1, 2), results, []) == [["", ""], ["", ""]]


# --- the cup ----------------------------------------------------------------------------


def test_cup_standings() -> None:
    """Score first (60 beats 50), then fewer turns (25 before 30), then the earlier finish
    (150 before 300); the same score, turns and finish share a rank; unfinished runs come
    last, sharing a rank, in the order given."""
    runs = [
        CupRun(1, "a", 50, 30, 100.0),
        CupRun(2, "b", 60, 40, 200.0),
        CupRun(3, "c", 50, 25, 300.0),
        CupRun(4, "d", 50, 25, 150.0),
        CupRun(5, "e", None, None, None),
        CupRun(6, "f", 50, 30, 100.0),
        CupRun(7, "g", None, None, None),
    ]
    rows = cup_standings(runs)
    assert [(row.user_id, row.rank) for row in rows] == [
        (2, 1),
        (4, 2),
        (3, 3),
        (1, 4),
        (6, 4),
        (5, 6),
        (7, 6),
    ]
    assert (rows[0].name, rows[0].score, rows[0].turns, rows[0].finished_at) == (
        "b",
        60,
        40,
        200.0,
    )
