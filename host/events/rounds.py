"""An event's rounds as facts: the standings its tables make, the tables of its next
round, and what a finished game records at its table. Pure functions of what is stored;
the service (`host.events.service`) writes and tells them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from data.events import EventRecord, NewTable, SeatResult, TableRecord, WholeEvent
from data.results import Ending
from engine.core import Game
from host.events.pairing import Pairing, Standing, round_robin, swiss, swiss_rounds
from host.events.standings import (
    Bye,
    CupRow,
    CupRun,
    Entrant,
    Row,
    TableResult,
    cup_standings,
    standings,
)
from host.events.tables import swiss_tables
from host.play.live import Loaded
from host.privacy.names import shown_name

#: Rounds a Swiss may be given at most.
MAX_ROUNDS = 20
#: Entrants an event takes at most.
MAX_ENTRANTS = 1000


def entrants_of(whole: WholeEvent) -> list[Entrant]:
    return [
        Entrant(e.user.id, shown_name(e.user.name), e.entry, e.state == "in")
        for e in whole.entrants
    ]


def results_of(whole: WholeEvent) -> tuple[list[TableResult], list[Bye]]:
    """The event's games (decided or being played) and byes, as the standings read them."""
    results: list[TableResult] = []
    byes: list[Bye] = []
    for table in whole.tables:
        if table.bye:
            byes.append(Bye(table.round, table.seats[0].user_id))
            continue
        places = tuple(s.place for s in table.seats)
        decided = table.decided_at is not None and all(p is not None for p in places)
        results.append(
            TableResult(
                table.round,
                table.user_ids,
                tuple(p for p in places if p is not None) if decided else None,
                table.forfeit,
                table.game_id,
            )
        )
    return results, byes


def table_standings(whole: WholeEvent) -> list[Row]:
    results, byes = results_of(whole)
    return standings(entrants_of(whole), results, byes)


def cup_table(whole: WholeEvent) -> list[CupRow]:
    """A cup's standings: every entrant's run by its score, turns and finish."""
    names = {e.user.id: shown_name(e.user.name) for e in whole.entrants}
    runs = []
    seen: set[int] = set()
    for table in whole.tables:
        seat = table.seats[0]
        seen.add(seat.user_id)
        finished = table.decided_at if seat.score is not None else None
        runs.append(
            CupRun(seat.user_id, names.get(seat.user_id, "?"), seat.score, seat.turns, finished)
        )
    runs += [
        CupRun(e.user.id, shown_name(e.user.name), None, None, None)
        for e in whole.entrants
        if e.user.id not in seen
    ]
    return cup_standings(runs)


def least_entrants(event: EventRecord) -> int:
    """Entrants an event needs to play a round: two, or a table of three where tables
    are of three or four."""
    return 3 if event.table_size > 2 else 2


def planned_rounds(event: EventRecord, entrants: int) -> int:
    """The rounds an event starting with `entrants` plays."""
    if event.format == "cup":
        return 1
    if event.format in ("round-robin", "double-round-robin"):
        return len(schedule(event, list(range(entrants))))
    return event.rounds if event.rounds is not None else swiss_rounds(entrants)


def schedule(event: EventRecord, user_ids: Sequence[int]) -> tuple[Pairing, ...]:
    return round_robin(user_ids, double=event.format == "double-round-robin")


def first_tables(event: EventRecord, whole: WholeEvent) -> list[NewTable]:
    """Round 1 of an event about to start."""
    return next_tables(whole, 1, event)


def next_tables(whole: WholeEvent, round_: int, event: EventRecord | None = None) -> list[NewTable]:
    """The tables of round `round_`: the round robin's schedule (a game against someone
    gone is theirs to forfeit), a Swiss pairing of those still in, or a cup's runs."""
    event = event or whole.event
    playing = [e.user.id for e in whole.entrants if e.state == "in"]
    if event.format == "cup":
        return [NewTable(board, (uid,)) for board, uid in enumerate(playing, start=1)]
    if event.format in ("round-robin", "double-round-robin"):
        everyone = [e.user.id for e in whole.entrants]
        pairing = schedule(event, everyone)[round_ - 1]
        return _scheduled(pairing, set(playing))
    rows = table_standings(whole)
    pairing_input = _pairing_standings(whole, rows, set(playing))
    if event.table_size > 2:
        pairing = swiss_tables(pairing_input, event.table_size)
    else:
        pairing = swiss(pairing_input)
    return _tables(pairing)


def _scheduled(pairing: Pairing, playing: set[int]) -> list[NewTable]:
    tables: list[NewTable] = []
    for seats in pairing.tables:
        present = [uid in playing for uid in seats]
        if not any(present):
            continue  # both gone: nothing to play, nobody to score
        places = None if all(present) else tuple(1 if here else 2 for here in present)
        tables.append(NewTable(len(tables) + 1, seats, places=places))
    for uid in pairing.byes:
        if uid in playing:
            tables.append(NewTable(len(tables) + 1, (uid,), bye=True))
    return tables


def _tables(pairing: Pairing) -> list[NewTable]:
    tables = [NewTable(board, seats) for board, seats in enumerate(pairing.tables, start=1)]
    start = len(tables) + 1
    tables += [NewTable(start + i, (uid,), bye=True) for i, uid in enumerate(pairing.byes)]
    return tables


def _pairing_standings(whole: WholeEvent, rows: Sequence[Row], playing: set[int]) -> list[Standing]:
    """Those still in, as pairing sees them: their points and rank, who they met, their
    byes and their seats so far."""
    met: dict[int, set[int]] = {uid: set() for uid in playing}
    firsts: dict[int, int] = dict.fromkeys(playing, 0)
    laters: dict[int, int] = dict.fromkeys(playing, 0)
    last_first: dict[int, bool | None] = dict.fromkeys(playing, None)
    byes: dict[int, int] = dict.fromkeys(playing, 0)
    for table in whole.tables:
        ids = table.user_ids
        if table.bye:
            if ids[0] in byes:
                byes[ids[0]] += 1
            continue
        for seat, uid in enumerate(ids):
            if uid not in playing:
                continue
            met[uid].update(other for other in ids if other != uid)
            if seat == 0:
                firsts[uid] += 1
            else:
                laters[uid] += 1
            last_first[uid] = seat == 0
    return [
        Standing(
            row.user_id,
            row.points,
            rank,
            frozenset(met[row.user_id]),
            byes[row.user_id],
            firsts[row.user_id],
            laters[row.user_id],
            last_first[row.user_id],
        )
        for rank, row in enumerate((r for r in rows if r.user_id in playing), start=1)
    ]


@dataclass(frozen=True, slots=True)
class Decided:
    """What a finished game records at its table."""

    results: tuple[SeatResult, ...]
    #: Not played out: aborted before everyone moved, or ended by an admin.
    forfeit: bool
    #: The people who lost without ever moving: out of later rounds.
    absent: tuple[int, ...]


def decided(loaded: Loaded, table: TableRecord) -> Decided:
    """Where each seat of a finished game placed (ties shared; a seat its person left
    to a computer after everyone who stayed), and who never moved and lost."""
    record = loaded.record
    result = record.result
    assert result is not None
    ids = table.user_ids
    moved = set(loaded.movers)
    if loaded.game.solo:
        turns = sum(1 for seat in loaded.movers if seat == 0)
        if not turns:
            # A run never begun scores nothing: it ranks after every run played.
            return Decided((SeatResult(ids[0], 1),), True, ())
        score = result.scores[0] if result.scores else 0
        return Decided((SeatResult(ids[0], 1, score, turns),), False, ())
    forfeit = result.aborted or result.ending is Ending.ADMIN
    if result.ending is Ending.ADMIN:
        # An admin's end scores the game as a draw between everyone at the table.
        places = tuple(1 for _ in ids)
    else:
        places = _places(loaded.game, result.winners, result.scores, _left(loaded))
    absent = tuple(
        uid
        for seat, uid in enumerate(ids)
        if seat not in moved and places[seat] > 1 and result.ending is not Ending.ADMIN
    )
    return Decided(
        tuple(SeatResult(uid, place) for uid, place in zip(ids, places, strict=True)),
        forfeit,
        absent,
    )


def _left(loaded: Loaded) -> set[int]:
    """The seats whose person resigned and left them to a computer."""
    return {s.seat for s in loaded.record.seats if s.left is not None}


def _places(
    game: Game[Any], winners: Sequence[int], scores: Sequence[int], left: set[int]
) -> tuple[int, ...]:
    """Places by seat: the winners first; then those who stayed, by score; then those who
    left; equal keys share a place."""
    seats = len(scores) if scores else len(game.seat_names)
    if seats == 2 and not left:
        if not winners:
            return (1, 1)
        return tuple(1 if s in winners else 2 for s in range(2))
    won = set(winners)

    def key(seat: int) -> tuple[int, int, int]:
        return (
            0 if seat in won else 1,
            1 if seat in left else 0,
            -(scores[seat] if seat < len(scores) else 0),
        )

    ordered = sorted(range(seats), key=key)
    places = [0] * seats
    for position, seat in enumerate(ordered, start=1):
        earlier = ordered[position - 2] if position > 1 else None
        same = earlier is not None and key(earlier) == key(seat)
        places[seat] = places[earlier] if same and earlier is not None else position
    return tuple(places)
