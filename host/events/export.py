"""An event's results as files: FIDE's Tournament Report File (TRF-16), which pairing
programs, rating officers and crosstable sites read, and CSV tables for spreadsheets."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from host.events.standings import Bye, CupRow, Entrant, Row, TableResult, standings

#: TRF-16's type of tournament (record 092) for each format it can report.
_TOURNAMENT_TYPES = {
    "swiss": "Individual: Swiss-System",
    "round-robin": "Individual: Round-Robin",
    "double-round-robin": "Individual: Double Round-Robin",
}
#: The width of the name column of a TRF-16 player line.
_NAME_WIDTH = 33
#: The column of a TRF-16 line where round 1 begins (10 columns a round), counted from 1.
_FIRST_ROUND_COLUMN = 92

_TABLE_HEADER = (
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
)
_CUP_HEADER = ("rank", "name", "user_id", "score", "turns", "finished_at")
#: What a spreadsheet takes for the start of a formula in a cell.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True, slots=True)
class EventFacts:
    """What a report says of the event itself, beyond its games."""

    #: The event's name.
    name: str
    #: The game's display name.
    game: str
    #: "swiss", "round-robin" or "double-round-robin".
    format: str
    #: Where it is played, such as the server's name.
    city_or_place: str
    #: Its first and last days; None when not known.
    start: date | None
    end: date | None
    #: Rounds planned.
    rounds: int
    #: The day of each round, round 1 first; None for a day not known.
    round_dates: tuple[date | None, ...]


def trf16(
    facts: EventFacts,
    entrants: Sequence[Entrant],
    results: Sequence[TableResult],
    byes: Sequence[Bye],
) -> str:
    """The event as a TRF-16 file (FIDE Handbook C.04, annex 2), so that its results can
    be checked, re-paired or published by the programs arbiters use.

    Header records 012 to 132 come first (a record with nothing known is its code alone;
    092, the type of tournament, names the game in brackets), then one 001 line per
    entrant in start-number order: start number (entry order), name, points and rank
    (from `standings`), then per round, from column 92, ten columns: the opponent's start
    number, the colour (seat 0 "w", seat 1 "b") and the
    result, "1", "=" or "0" for a played game, "+" or "-" for a forfeit won or lost ("D",
    a draw not played, for a forfeit neither won), "0000 - U" for a bye (the pairing's
    bye, worth a win), and "0000 - Z" (a zero-point bye, a known absence) for a round with
    neither game nor bye, such as one after leaving. A game still being played has its
    opponent and colour and a blank result, which readers take as not played. Names have
    their whitespace collapsed and are cut to 33 characters. Only games of two fit the
    format: a table of any other size is a ValueError, as is a format it has no type for.
    """
    if any(len(result.seats) != 2 for result in results):
        raise ValueError("TRF-16 reports games between two players only")
    kind = _TOURNAMENT_TYPES.get(facts.format)
    if kind is None:
        raise ValueError(f"TRF-16 has no type of tournament for the format {facts.format!r}")
    rows = {row.user_id: row for row in standings(entrants, results, byes)}
    numbers = {e.user_id: e.order for e in entrants}
    tables = {(user, r.round): (r, seat) for r in results for seat, user in enumerate(r.seats)}
    bye_rounds = {(b.user_id, b.round) for b in byes}
    last_round = max([r.round for r in results] + [b.round for b in byes], default=0)
    lines = [
        _record("012", facts.name),
        _record("022", facts.city_or_place),
        _record("032", ""),
        _record("042", _trf_date(facts.start)),
        _record("052", _trf_date(facts.end)),
        _record("062", str(len(entrants))),
        _record("072", "0"),
        _record("082", "0"),
        _record("092", f"{kind} ({facts.game})"),
        _record("102", ""),
        _record("112", ""),
        _record("122", ""),
        _round_dates(facts.round_dates),
    ]
    for entrant in sorted(entrants, key=lambda e: e.order):
        row = rows[entrant.user_id]
        name = _one_line(entrant.name)[:_NAME_WIDTH]
        # Blank: sex and title (columns 10-13), then rating, federation, FIDE number and
        # birth date (49-79), none of which a player here has.
        line = (
            f"001 {entrant.order:>4}{'':6}{name:<{_NAME_WIDTH}}{'':33}"
            f"{float(row.points):>4.1f} {row.rank:>4}"
        )
        for round_ in range(1, last_round + 1):
            if (entrant.user_id, round_) in bye_rounds:
                line += "  0000 - U"
            elif (entrant.user_id, round_) in tables:
                result, seat = tables[entrant.user_id, round_]
                opponent = numbers[result.seats[1 - seat]]
                line += f"  {opponent:>4} {'wb'[seat]} {_trf_result(result, seat)}"
            else:
                line += "  0000 - Z"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    """Text with its whitespace collapsed, so that it cannot break a record in two."""
    return " ".join(text.split())


def _record(code: str, value: str) -> str:
    value = _one_line(value)
    return f"{code} {value}" if value else code


def _trf_date(day: date | None) -> str:
    return "" if day is None else day.strftime("%Y/%m/%d")


def _round_dates(days: Sequence[date | None]) -> str:
    """Record 132: each round's date as YY/MM/DD, under that round's columns."""
    line = "132".ljust(_FIRST_ROUND_COLUMN - 1)
    slots = ["" if day is None else day.strftime("%y/%m/%d") for day in days]
    return (line + "  ".join(f"{slot:<8}" for slot in slots)).rstrip()


def _trf_result(result: TableResult, seat: int) -> str:
    if result.places is None:
        return " "
    mine, theirs = result.places[seat], result.places[1 - seat]
    if result.forfeit:
        return "+" if mine < theirs else "-" if mine > theirs else "D"
    return "1" if mine < theirs else "0" if mine > theirs else "="


def csv_table(rows: Sequence[Row]) -> str:
    """The standings as CSV, a header and then one line per row. Points and tie-breaks
    are decimals rounded to at most two places with a "." (2/3 is "0.67"), which every
    spreadsheet reads as a number; `direct` is empty when it does not apply, `playing`
    is "true" or "false"."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(_TABLE_HEADER)
    for row in rows:
        writer.writerow(
            (
                row.rank,
                _cell(row.name),
                row.user_id,
                _decimal(row.points),
                _decimal(row.buchholz_cut1),
                _decimal(row.sonneborn_berger),
                "" if row.direct is None else _decimal(row.direct),
                row.played,
                row.wins,
                row.draws,
                row.losses,
                row.byes,
                "true" if row.playing else "false",
            )
        )
    return out.getvalue()


def cup_csv(rows: Sequence[CupRow]) -> str:
    """A cup's standings as CSV, a header and then one line per row: score and turns
    empty for a run not finished, and the finish as "YYYY-MM-DD HH:MM:SS" in UTC, which
    spreadsheets read as a date and time."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(_CUP_HEADER)
    for row in rows:
        writer.writerow(
            (
                row.rank,
                _cell(row.name),
                row.user_id,
                "" if row.score is None else row.score,
                "" if row.turns is None else row.turns,
                "" if row.finished_at is None else _utc(row.finished_at),
            )
        )
    return out.getvalue()


def _decimal(value: Fraction) -> str:
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    rounded = exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP).normalize()
    return f"{rounded:f}"


def _cell(text: str) -> str:
    """A player's name as a cell a spreadsheet shows as text: one that would start a
    formula (names are chosen by players) gets a leading apostrophe."""
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def _utc(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S")
