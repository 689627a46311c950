"""Standings of an event: each entrant's points, tie-breaks and rank, the crosstable of a
round robin, and the ranking of a Hillbert cup.

Points come from where each player finished at their table (`placement_points`) and from
byes. Ties on points are broken by Buchholz cut 1, then Sonneborn-Berger, then direct
encounter, then entry order. These follow FIDE's Tie-Break Regulations (Handbook C.07, in
force from September 2023), stretched to Everest's tables of three and four, where a
table counts like one game: what a player's tablemates bring to a tie-break is the mean
over them, so that a table of four weighs no more than a table of three in a Swiss that
has both.

Unplayed rounds follow C.07's article 16, so that a round without a game neither helps
nor costs a player's tie-breaks much, and costs their opponents nothing:

- For the player's own Buchholz, every unplayed round (a bye, a forfeit won or lost, a
  round after leaving) counts as a game against a dummy opponent who has the player's own
  final points. When the cut drops a contribution, that of a voluntarily unplayed round
  (a forfeit lost, a round after leaving) goes first.
- For the tie-breaks of those who met the player, the player's points count as they
  stand, except that each round after leaving counts as a draw: half a point (a draw's
  worth at a table of any size, since a table hands out half a point per seat).

A player still in the event who has no table and no bye in a round (a game not started
yet) has no round there at all: it counts for nothing.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import groupby

#: A bye is worth a win.
BYE_POINTS = Fraction(1)
#: A round after leaving, in the points the tie-breaks of those who met the player read.
_DRAW = Fraction(1, 2)


@dataclass(frozen=True, slots=True)
class Entrant:
    """Someone who entered the event."""

    user_id: int
    name: str
    #: Entry order, 1 first: the last tie-break, and the start number in a TRF report.
    order: int
    #: Still in the event; False once they left, were removed, or were taken out as a
    #: no-show.
    playing: bool


@dataclass(frozen=True, slots=True)
class TableResult:
    """One game of a round: its players in seat order and where each finished."""

    round: int
    #: User ids, seat 0 first.
    seats: tuple[int, ...]
    #: Each seat's place, 1 best; tied players share a place (two players: (1, 2),
    #: (2, 1), or (1, 1) for a draw). None while the game is being played.
    places: tuple[int, ...] | None
    #: Decided without being played (a no-show, a leaver's game, a game against someone
    #: already gone): its points stand, but for the tie-breaks it is an unplayed round.
    forfeit: bool
    #: The game, where one was played.
    game_id: int | None


@dataclass(frozen=True, slots=True)
class Bye:
    """A round without a game, worth `BYE_POINTS`."""

    round: int
    user_id: int


@dataclass(frozen=True, slots=True)
class Row:
    """One entrant's line of the standings."""

    #: 1 best; entrants equal on points and every tie-break before entry order share it.
    rank: int
    user_id: int
    name: str
    #: Placement points of every decided game (forfeits included) and byes.
    points: Fraction
    #: Buchholz cut 1 (see `standings`).
    buchholz_cut1: Fraction
    #: Sonneborn-Berger (see `standings`).
    sonneborn_berger: Fraction
    #: Points in the games among those tied with this entrant on points, Buchholz cut 1
    #: and Sonneborn-Berger, when every two of them have met in a played game; None when
    #: it does not apply (nobody tied, or some of them never met).
    direct: Fraction | None
    #: Games played: forfeits and byes are not.
    played: int
    #: Played games finished first alone (won), first with others (drawn: a draw between
    #: two, or a first place shared at a table), and not first (lost); they add up to
    #: `played`.
    wins: int
    draws: int
    losses: int
    byes: int
    #: Still in the event.
    playing: bool


def placement_points(places: Sequence[int]) -> tuple[Fraction, ...]:
    """Points per seat from places, so that a table of any size hands out the same range:
    evenly spaced from 1 for first to 0 for last (two or three players 1 / 1/2 / 0, four
    1 / 2/3 / 1/3 / 0). Tied players share the points of the positions they span: four
    players, two tied for first, get (1 + 2/3)/2 each. Only the order of the places
    counts, so (1, 1, 3, 4) and (1, 1, 2, 3) mean the same."""
    size = len(places)
    if size < 2:
        raise ValueError("placement points need two players or more")
    seats = sorted(range(size), key=lambda seat: places[seat])
    points = [Fraction(0)] * size
    position = 0
    for _, tied in groupby(seats, key=lambda seat: places[seat]):
        group = list(tied)
        spanned = range(position, position + len(group))
        share = sum((Fraction(size - 1 - p, size - 1) for p in spanned), Fraction(0))
        for seat in group:
            points[seat] = share / len(group)
        position += len(group)
    return tuple(points)


@dataclass(frozen=True, slots=True)
class _Game:
    """A played game as one of its players saw it."""

    #: Where the player finished, 1 best, and the placement points that gave.
    place: int
    points: Fraction
    #: Each tablemate's user id and place.
    mates: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class _Record:
    """What the standings count of one player."""

    points: Fraction
    games: tuple[_Game, ...]
    #: One entry per unplayed round: whether it was voluntary (a forfeit lost, a round
    #: after leaving), which a cut drops first.
    unplayed: tuple[bool, ...]
    byes: int
    #: Rounds after leaving, up to the last round begun.
    absent: int


def standings(
    entrants: Sequence[Entrant], results: Sequence[TableResult], byes: Sequence[Bye]
) -> list[Row]:
    """The entrants ordered by points, Buchholz cut 1, Sonneborn-Berger, direct encounter,
    then entry order; a rank is shared only by entrants equal on all but entry order.

    - Buchholz: for each played game, the tablemates' points (their mean at a table of
      three or four); for each unplayed round, the player's own points (see the module's
      note). Cut 1 drops one contribution: a voluntarily unplayed round's if there is
      one, else the lowest.
    - Sonneborn-Berger: over played games, the player's placement points in the game
      times the tablemates' points (their mean at a table), so a win against a strong
      field counts most.
    - Direct encounter: among those still tied, if every two of them have met in a
      played game, the points each made against the others there (1 for finishing ahead
      of one of them, 1/2 level, 0 behind, per game).
    """
    records = _records(entrants, results, byes)
    scores = {user: r.points + _DRAW * r.absent for user, r in records.items()}
    measures = {
        e.user_id: (
            records[e.user_id].points,
            _buchholz_cut1(records[e.user_id], scores),
            _sonneborn_berger(records[e.user_id], scores),
        )
        for e in entrants
    }
    tied: defaultdict[tuple[Fraction, Fraction, Fraction], list[int]] = defaultdict(list)
    for e in entrants:
        tied[measures[e.user_id]].append(e.user_id)
    direct: dict[int, Fraction | None] = {}
    for group in tied.values():
        found = _direct(group, records) if len(group) > 1 else None
        for user in group:
            direct[user] = None if found is None else found[user]

    def criteria(e: Entrant) -> tuple[Fraction, Fraction, Fraction, Fraction | None]:
        return (*measures[e.user_id], direct[e.user_id])

    ordered = sorted(
        entrants,
        key=lambda e: (*(-m for m in measures[e.user_id]), -(direct[e.user_id] or 0), e.order),
    )
    rows: list[Row] = []
    for index, e in enumerate(ordered):
        same = index > 0 and criteria(ordered[index - 1]) == criteria(e)
        record = records[e.user_id]
        points, cut1, berger, encounter = criteria(e)
        wins, draws, losses = _outcomes(record.games)
        rows.append(
            Row(
                rank=rows[-1].rank if same else index + 1,
                user_id=e.user_id,
                name=e.name,
                points=points,
                buchholz_cut1=cut1,
                sonneborn_berger=berger,
                direct=encounter,
                played=len(record.games),
                wins=wins,
                draws=draws,
                losses=losses,
                byes=record.byes,
                playing=e.playing,
            )
        )
    return rows


def _records(
    entrants: Sequence[Entrant], results: Sequence[TableResult], byes: Sequence[Bye]
) -> dict[int, _Record]:
    points: defaultdict[int, Fraction] = defaultdict(Fraction)
    games: defaultdict[int, list[_Game]] = defaultdict(list)
    unplayed: defaultdict[int, list[bool]] = defaultdict(list)
    bye_count: defaultdict[int, int] = defaultdict(int)
    last_round: defaultdict[int, int] = defaultdict(int)
    for result in results:
        for user in result.seats:
            last_round[user] = max(last_round[user], result.round)
        if result.places is None:
            continue
        shares = placement_points(result.places)
        best = min(result.places)
        seated = tuple(zip(result.seats, result.places, strict=True))
        for seat, (user, place) in enumerate(seated):
            points[user] += shares[seat]
            if result.forfeit:
                unplayed[user].append(place != best)
            else:
                mates = seated[:seat] + seated[seat + 1 :]
                games[user].append(_Game(place, shares[seat], mates))
    for bye in byes:
        last_round[bye.user_id] = max(last_round[bye.user_id], bye.round)
        points[bye.user_id] += BYE_POINTS
        unplayed[bye.user_id].append(False)
        bye_count[bye.user_id] += 1
    begun = max(last_round.values(), default=0)
    absent = {e.user_id: 0 if e.playing else begun - last_round[e.user_id] for e in entrants}
    users = set(last_round) | set(absent)
    return {
        user: _Record(
            points=points[user],
            games=tuple(games[user]),
            unplayed=(*unplayed[user], *[True] * absent.get(user, 0)),
            byes=bye_count[user],
            absent=absent.get(user, 0),
        )
        for user in users
    }


def _mean(values: Iterable[Fraction]) -> Fraction:
    found = list(values)
    return sum(found, Fraction(0)) / len(found)


def _faced(game: _Game, scores: dict[int, Fraction]) -> Fraction:
    """The tablemates' points as the tie-breaks read them: one game's worth of opposition."""
    return _mean(scores[mate] for mate, _ in game.mates)


def _buchholz_cut1(record: _Record, scores: dict[int, Fraction]) -> Fraction:
    contributions = [_faced(g, scores) for g in record.games]
    contributions += [record.points] * len(record.unplayed)
    if not contributions:
        return Fraction(0)
    cut = record.points if any(record.unplayed) else min(contributions)
    return sum(contributions, Fraction(0)) - cut


def _sonneborn_berger(record: _Record, scores: dict[int, Fraction]) -> Fraction:
    return sum((g.points * _faced(g, scores) for g in record.games), Fraction(0))


def _versus(place: int, other: int) -> Fraction:
    """One player's result against another at the same table, from their places."""
    return Fraction(1) if place < other else Fraction(1, 2) if place == other else Fraction(0)


def _direct(group: Sequence[int], records: dict[int, _Record]) -> dict[int, Fraction] | None:
    members = set(group)
    met = {
        frozenset((user, mate))
        for user in group
        for game in records[user].games
        for mate, _ in game.mates
        if mate in members
    }
    if len(met) < len(group) * (len(group) - 1) // 2:
        return None
    return {
        user: sum(
            (
                _versus(game.place, place)
                for game in records[user].games
                for mate, place in game.mates
                if mate in members
            ),
            Fraction(0),
        )
        for user in group
    }


def _outcomes(games: Iterable[_Game]) -> tuple[int, int, int]:
    wins = draws = losses = 0
    for game in games:
        best = min(place for _, place in game.mates)
        if game.place < best:
            wins += 1
        elif game.place == best:
            draws += 1
        else:
            losses += 1
    return wins, draws, losses


def crosstable(
    entrants: Sequence[Entrant], results: Sequence[TableResult], byes: Sequence[Bye]
) -> list[list[str]]:
    """A square of cells, rows and columns both in `standings` order: row i, column j is
    what the player of row i scored against the player of column j, one mark per game in
    round order, separated by a space ("1 ½" after two games of a double round robin).
    A played game is "1", "½" or "0"; a forfeit "+" (won), "-" (lost) or "=" (neither);
    the diagonal, and a pair with no decided game yet, are "". At a table of more than
    two, each pair of its players is marked by who finished ahead."""
    order = [row.user_id for row in standings(entrants, results, byes)]
    marks: defaultdict[tuple[int, int], list[tuple[int, str]]] = defaultdict(list)
    for result in results:
        if result.places is None:
            continue
        seated = tuple(zip(result.seats, result.places, strict=True))
        for user, place in seated:
            for other, other_place in seated:
                if other != user:
                    mark = _mark(_versus(place, other_place), forfeit=result.forfeit)
                    marks[user, other].append((result.round, mark))
    return [[" ".join(m for _, m in sorted(marks[row, col])) for col in order] for row in order]


def _mark(score: Fraction, *, forfeit: bool) -> str:
    if score == 1:
        return "+" if forfeit else "1"
    if score == 0:
        return "-" if forfeit else "0"
    return "=" if forfeit else "½"


@dataclass(frozen=True, slots=True)
class CupRun:
    """One player's run at a cup's hill."""

    user_id: int
    name: str
    #: The score the run ended with, higher better; None while it is not finished.
    score: int | None
    #: The turns it took.
    turns: int | None
    #: When it finished, in seconds since the epoch.
    finished_at: float | None


@dataclass(frozen=True, slots=True)
class CupRow:
    """One player's line of a cup's standings."""

    #: 1 best; runs equal in score, turns and finish share it, and so do all unfinished.
    rank: int
    user_id: int
    name: str
    #: None: not finished.
    score: int | None
    turns: int | None
    #: In seconds since the epoch.
    finished_at: float | None


def cup_standings(runs: Sequence[CupRun]) -> list[CupRow]:
    """Finished runs by score (higher better), then fewer turns, then the earlier finish,
    since everyone played the same hill; unfinished runs last, in the order given."""
    ordered = sorted(runs, key=_cup_key)
    rows: list[CupRow] = []
    for index, run in enumerate(ordered):
        same = index > 0 and _cup_key(ordered[index - 1]) == _cup_key(run)
        rank = rows[-1].rank if same else index + 1
        rows.append(CupRow(rank, run.user_id, run.name, run.score, run.turns, run.finished_at))
    return rows


def _cup_key(run: CupRun) -> tuple[int, int, float, float]:
    if run.score is None:
        return (1, 0, 0.0, 0.0)
    turns = math.inf if run.turns is None else run.turns
    finished = math.inf if run.finished_at is None else run.finished_at
    return (0, -run.score, turns, finished)
