"""Exports: a two-player event as FIDE's TRF-16 report, column for column (byes,
forfeits, a leaver, a game still being played), refused for tables; the standings and a
cup's ranking as CSV that reads back to the same values."""

from __future__ import annotations

import csv
import io
from datetime import date
from fractions import Fraction as F

import pytest

from host.events.export import EventFacts, csv_table, cup_csv, trf16
from host.events.standings import Bye, CupRow, Entrant, Row, TableResult, standings

ALICE, BOB, CAROL, DAVE, ERIN = 1001, 1002, 1003, 1004, 1005
ENTRANTS = [
    Entrant(ALICE, "Alice", 1, True),
    Entrant(BOB, "Bob", 2, True),
    Entrant(CAROL, "Carol", 3, True),
    Entrant(DAVE, "Dave", 4, True),
    Entrant(ERIN, "Erin", 5, False),
]
#: A Swiss of five over three rounds. Round 1: Alice (white) beats Bob, Carol and Dave
#: draw, Erin has the bye. Round 2: Alice beats Erin, Carol does not come and Bob wins by
#: forfeit, Dave has the bye. Erin leaves. Round 3: Alice and Dave draw, Bob beats Carol.
RESULTS = [
    TableResult(1, (ALICE, BOB), (1, 2), False, 11),
    TableResult(1, (CAROL, DAVE), (1, 1), False, 12),
    TableResult(2, (ERIN, ALICE), (2, 1), False, 13),
    TableResult(2, (BOB, CAROL), (1, 2), True, None),
    TableResult(3, (ALICE, DAVE), (1, 1), False, 14),
    TableResult(3, (CAROL, BOB), (2, 1), False, 15),
]
BYES = [Bye(1, ERIN), Bye(2, DAVE)]
FACTS = EventFacts(
    name="Spring Swiss",
    game="Hokito",
    format="swiss",
    city_or_place="Hilltop Club",
    start=date(2026, 3, 1),
    end=date(2026, 3, 3),
    rounds=3,
    round_dates=(date(2026, 3, 1), date(2026, 3, 2), date(2026, 3, 3)),
)

# Points: Alice 1 + 1 + 1/2 = 2.5, Bob 0 + 1 + 1 = 2, Carol 1/2, Dave 1/2 + 1 + 1/2 = 2,
# Erin 1 (the bye). Erin counts 1.5 in the others' tie-breaks (her round after leaving is
# a draw). Buchholz cut 1: Bob 2.5 (Alice) + 2 (his forfeit: his own points) + 0.5
# (Carol) = 5, cut 0.5: 4.5; Dave 0.5 + 2 (bye) + 2.5 = 5, cut 0.5: 4.5. Sonneborn-Berger:
# Bob 1·0.5 = 0.5, Dave 1/2·0.5 + 1/2·2.5 = 1.5, so Dave is second and Bob third.
# Alice: 2 + 1.5 + 2 = 5.5 cut 1.5 = 4; SB 1·2 + 1·1.5 + 1/2·2 = 4.5. Erin: her bye (1),
# Alice (2.5) and her round after leaving (1), which is cut first: 3.5; SB 0. Carol: 2
# (Dave), 0.5 (her forfeit loss, cut first), 2 (Bob): 4; SB 1/2·2 = 1.

#: Columns, counted from 1: 1-3 the record, 5-8 the start number, 15-47 the name, 81-84
#: the points, 86-89 the rank, then ten columns a round from 90: the opponent in 92-95,
#: the colour in 97, the result in 99.
EXPECTED_TRF = (
    "012 Spring Swiss\n"
    "022 Hilltop Club\n"
    "032\n"
    "042 2026/03/01\n"
    "052 2026/03/03\n"
    "062 5\n"
    "072 0\n"
    "082 0\n"
    "092 Individual: Swiss-System (Hokito)\n"
    "102\n"
    "112\n"
    "122\n"
    # Columns 4-91 blank, then each round's date as YY/MM/DD under its round.
    "132" + " " * 88 + "26/03/01  26/03/02  26/03/03\n"
    "001    1      Alice                                                              2.5    1"
    "     2 w 1     5 b 1     4 w =\n"
    "001    2      Bob                                                                2.0    3"
    "     1 b 0     3 w +     3 b 1\n"
    "001    3      Carol                                                              0.5    5"
    "     4 w =     2 b -     2 w 0\n"
    "001    4      Dave                                                               2.0    2"
    "     3 b =  0000 - U     1 b =\n"
    "001    5      Erin                                                               1.0    4"
    "  0000 - U     1 w 0  0000 - Z\n"
)


def test_trf16_of_a_swiss() -> None:
    assert trf16(FACTS, ENTRANTS, RESULTS, BYES) == EXPECTED_TRF


def test_trf16_columns() -> None:
    """Carol's line, field by field at TRF-16's columns (counted from 1)."""
    lines = trf16(FACTS, ENTRANTS, RESULTS, BYES).splitlines()
    carol = next(line for line in lines if line[4:8] == "   3")
    assert carol[0:3] == "001"
    assert carol[14:47] == "Carol" + " " * 28
    assert carol[80:84] == " 0.5"
    assert carol[85:89] == "   5"
    # Round 2: forfeited to Bob (start number 2) as black.
    assert (carol[101:105], carol[106], carol[108]) == ("   2", "b", "-")
    assert len(carol) == 89 + 3 * 10


def test_trf16_round_dates_not_known() -> None:
    facts = EventFacts(
        "Open", "Hokito", "round-robin", "Here", None, None, 3, (date(2026, 3, 1), None, None)
    )
    lines = trf16(facts, ENTRANTS, RESULTS, BYES).splitlines()
    assert lines[3:5] == ["042", "052"]
    assert lines[8] == "092 Individual: Round-Robin (Hokito)"
    assert lines[12] == "132" + " " * 88 + "26/03/01"


def test_trf16_game_being_played_and_long_names() -> None:
    """A game not decided yet shows its pairing and a blank result; a name longer than the
    33 columns is cut, and a line break in it cannot start a new record."""
    long_name = "Bartholomew Montgomery-Fitzwilliam the Third"
    people = [Entrant(1, long_name, 1, True), Entrant(2, "Two\nLines", 2, True)]
    results = [TableResult(1, (2, 1), None, False, 5)]
    facts = EventFacts("Cup\nfinal", "Hokito", "double-round-robin", "Here", None, None, 2, ())
    lines = trf16(facts, people, results, []).splitlines()
    assert lines[0] == "012 Cup final"
    assert lines[8] == "092 Individual: Double Round-Robin (Hokito)"
    assert lines[12] == "132"
    assert lines[13][14:47] == "Bartholomew Montgomery-Fitzwillia"
    assert lines[13][80:] == " 0.0    1     2 b  "
    assert lines[14][14:47] == "Two Lines".ljust(33)
    assert lines[14][80:] == " 0.0    1     1 w  "
    assert len(lines) == 15


def test_trf16_refuses_tables_and_unknown_formats() -> None:
    tables = [TableResult(1, (ALICE, BOB, CAROL), (1, 2, 3), False, 1)]
    with pytest.raises(ValueError):
        trf16(FACTS, ENTRANTS, tables, [])
    cup = EventFacts("Cup", "Hillbert", "cup", "Here", None, None, 1, ())
    with pytest.raises(ValueError):
        trf16(cup, ENTRANTS, RESULTS, BYES)


def read_back(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_csv_table_reads_back() -> None:
    assert read_back(csv_table(standings(ENTRANTS, RESULTS, BYES))) == [
        [
            "rank",
            "name",
            "user_id",
            "points",
            "buchholz_cut1",
            "sonneborn_berger",
            "direct",
            "played",
            "wins",
            "draws",
            "losses",
            "byes",
            "playing",
        ],
        ["1", "Alice", "1001", "2.5", "4", "4.5", "", "3", "2", "1", "0", "0", "true"],
        ["2", "Dave", "1004", "2", "4.5", "1.5", "", "2", "0", "2", "0", "1", "true"],
        ["3", "Bob", "1002", "2", "4.5", "0.5", "", "2", "1", "0", "1", "0", "true"],
        ["4", "Erin", "1005", "1", "3.5", "0", "", "1", "0", "0", "1", "1", "false"],
        ["5", "Carol", "1003", "0.5", "4", "1", "", "2", "0", "1", "1", "0", "true"],
    ]


def test_csv_table_decimals_and_names_that_look_like_formulas() -> None:
    """Thirds and sixths as two decimals (halves rounded up), and a name a spreadsheet
    would run as a formula kept as text."""
    rows = [
        Row(1, 7, "=SUM(A1)", F(2, 3), F(5, 6), F(1, 8), F(3, 2), 1, 0, 1, 0, 0, True),
        Row(2, 8, "-minus", F(1, 3), F(10), F(0), None, 0, 0, 0, 0, 1, False),
        Row(3, 9, "Ann", F(7, 6), F(101, 8), F(1, 200), F(0), 2, 1, 0, 1, 0, True),
    ]
    lines = read_back(csv_table(rows))[1:]
    assert lines == [
        ["1", "'=SUM(A1)", "7", "0.67", "0.83", "0.13", "1.5", "1", "0", "1", "0", "0", "true"],
        ["2", "'-minus", "8", "0.33", "10", "0", "", "0", "0", "0", "0", "1", "false"],
        ["3", "Ann", "9", "1.17", "12.63", "0.01", "0", "2", "1", "0", "1", "0", "true"],
    ]  # fmt: skip


def test_cup_csv_reads_back() -> None:
    """1,700,000,000 seconds after the epoch is 2023-11-14 22:13:20 UTC."""
    rows = [
        CupRow(1, 5, "Ann", 812, 40, 1_700_000_000.0),
        CupRow(2, 6, "@bob", 640, 52, 0.0),
        CupRow(3, 7, "Cy", None, None, None),
    ]
    assert read_back(cup_csv(rows)) == [
        ["rank", "name", "user_id", "score", "turns", "finished_at"],
        ["1", "Ann", "5", "812", "40", "2023-11-14 22:13:20"],
        ["2", "'@bob", "6", "640", "52", "1970-01-01 00:00:00"],
        ["3", "Cy", "7", "", "", ""],
    ]
