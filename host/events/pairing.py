"""Pairings: who plays whom in each round of an event, and in which seats.

Swiss rounds of two are a maximum-weight matching (networkx) whose whole-number weights
rank the pairing rules one above another, so the heaviest pairing is the best by the
first rule, then among those by the second, and so on. Big events are paired block by
block down the standings, since one matching over everyone grows too slow. Swiss rounds
at tables of three or four are `host.events.tables`'. Round robins follow the circle
method.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import networkx as nx  # type: ignore[import-untyped]

#: Up to this many entrants a Swiss round is one matching over everyone, the best pairing
#: by every rule. Its time grows with the cube of the field: about 0.2 s for 128 in a late
#: round on a small two-core server, 0.5 s for 200.
SINGLE_MATCHING_LIMIT = 128
#: Above the single-matching limit, the standings are cut into blocks of about this many
#: entrants, each matched alone: a thousand entrants pair in about 0.3 s, and a block is
#: big enough to almost always avoid a rematch on its own.
BLOCK_SIZE = 60
#: The most entrants a block may grow to when it takes in its neighbour to avoid a
#: rematch: a matching over 180 takes about 0.4 s, so even an event where every block
#: needs its neighbour is paired in seconds (one matching over a thousand takes minutes).
GROWN_BLOCK_LIMIT = 3 * BLOCK_SIZE

#: The order of seat 0 between players who have played first equally often: the one whose
#: last game was in a later seat, then one with no game yet, then one who was just first.
_ALTERNATION = {False: 0, None: 1, True: 2}


class PairingError(ValueError):
    """Entrants that cannot be paired as asked: too few, or someone entered twice."""


@dataclass(frozen=True, slots=True)
class Standing:
    """One entrant as the pairing sees them before a round."""

    #: Who the entrant is.
    user_id: int
    #: Points so far: a win 1, a draw 1/2; tables of three or four give thirds too.
    points: Fraction
    #: Place in the current standings, 1 the best (points, then tie-breaks, then entry).
    rank: int
    #: Everyone this entrant has sat at a table with so far.
    met: frozenset[int]
    #: Byes had so far.
    byes: int
    #: Games played in the first seat (seat 0).
    first_seats: int
    #: Games played in any other seat.
    later_seats: int
    #: Whether their last game was in the first seat; None before their first game.
    last_first: bool | None


@dataclass(frozen=True, slots=True)
class Pairing:
    """One round: who sits at which table, and who sits out with a bye."""

    #: The tables, the best-ranked first; each lists its players' user ids in seat order,
    #: seat 0 first.
    tables: tuple[tuple[int, ...], ...]
    #: Who sits out this round with a bye (at most one).
    byes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Place:
    """Where an entrant stands, in the terms the rules speak of."""

    #: Position in the standings, 0 the top: score groups from the top, then rank.
    order: int
    #: Position within the score group (those with equal points), 0 its best.
    in_group: int
    #: How many entrants share this entrant's points.
    group_size: int
    #: The entrant's points as a whole number: points times the ladder's common denominator.
    score: int


@dataclass(frozen=True, slots=True)
class Ladder:
    """The entrants in standings order, with each one's place: what every rule reads."""

    #: Score groups from the top, then rank within a group.
    entrants: tuple[Standing, ...]
    #: Each entrant's place, by user id.
    places: dict[int, _Place]


@dataclass(frozen=True, slots=True)
class _Matched:
    """A group of entrants matched in pairs, with the one left over when they are odd."""

    #: The pairs, in no particular order or seats.
    pairs: tuple[tuple[Standing, Standing], ...]
    #: Who was left without an opponent: the bye, or the one who floats down to the next
    #: block; None when the group was even.
    left_out: Standing | None
    #: How many of the pairs have met before.
    rematches: int


def swiss_rounds(entrants: int) -> int:
    """Rounds a Swiss event needs to find a winner: each round halves those unbeaten, so
    the base-2 logarithm of the field, rounded up, and at least one."""
    if entrants < 1:
        raise PairingError(f"a Swiss event needs entrants to count rounds for, got {entrants}")
    return max(1, (entrants - 1).bit_length())


def swiss(entrants: Sequence[Standing]) -> Pairing:
    """A Swiss round of two-player games. The rules, each never given up for a later one:

    1. everyone plays but at most one, who has a bye (an odd field);
    2. no rematch while a pairing without one exists;
    3. the bye to someone who has had the fewest byes (never twice while another can take
       it);
    4. the fewest pairs across score groups (entrants with equal points);
    5. those who float out of their group meet the nearest group: the least sum of squared
       point differences of the pairs, so one jump over two groups counts for more than
       two jumps of one;
    6. the bye to the lowest-ranked who may take it;
    7. in a score group, its top half meets its bottom half in order (its first meets the
       first of the lower half), changed as little as the rules above need: first by
       another order of the lower half, then by swaps between the halves; a floater meets
       the other group's nearest end (the last of the higher group meets the first of the
       lower);
    8. the seats: see `_seated_pair`.

    Up to `SINGLE_MATCHING_LIMIT` entrants this is the best pairing by these rules; above
    it the standings are paired block by block (see `_match_in_blocks`), close to it.
    """
    ladder = ladder_of(entrants, fewest=2, what="a Swiss round")
    if len(ladder.entrants) <= SINGLE_MATCHING_LIMIT:
        matched = _match(ladder.entrants, ladder, next_score=None)
        pairs, bye = matched.pairs, matched.left_out
    else:
        pairs, bye = _match_in_blocks(ladder)
    ordered = sorted(pairs, key=lambda pair: best_order(pair, ladder))
    return Pairing(
        tables=tuple(_seated_pair(a, b, ladder) for a, b in ordered),
        byes=() if bye is None else (bye.user_id,),
    )


def round_robin(user_ids: Sequence[int], *, double: bool) -> tuple[Pairing, ...]:
    """Every round of a round robin, in order, by the circle method: one entrant stays put
    while the others turn one place a round, so everyone meets everyone once a cycle.

    `user_ids` is the entry order (rank 1 first). An odd field has a phantom who stays
    put; whoever meets it has the bye, so everyone has exactly one bye a cycle. Seats:
    the pair at the k-th place from the top puts its upper player first when k is even,
    so a turning player is first at every even place, and first or not against the one
    who stays put by the round's parity; everyone's count of first seats in a cycle is
    then within one of everyone else's (equal in an odd field). `double` adds a second
    cycle of the same rounds with the seats swapped.
    """
    _check_unique(user_ids)
    if len(user_ids) < 2:
        raise PairingError(f"a round robin needs at least 2 entrants, got {len(user_ids)}")
    entry = {user_id: index for index, user_id in enumerate(user_ids)}
    # An odd field's phantom is the one who stays put: its opponent each round has the bye.
    fixed = None if len(user_ids) % 2 else user_ids[0]
    turning = list(user_ids) if fixed is None else list(user_ids[1:])
    rounds: list[Pairing] = []
    for number in range(len(turning)):
        shift = len(turning) - number
        places = turning[shift:] + turning[:shift]
        # The one who stays put meets the last place; then the k-th place from the top
        # meets the k-th from the bottom.
        byes: tuple[int, ...] = ()
        tables: list[tuple[int, ...]] = []
        if fixed is None:
            byes = (places[-1],)
        else:
            tables.append((fixed, places[-1]) if number % 2 == 0 else (places[-1], fixed))
        for k in range(1, (len(turning) + 1) // 2):
            upper, lower = places[k - 1], places[-1 - k]
            tables.append((upper, lower) if k % 2 == 0 else (lower, upper))
        tables.sort(key=lambda table: min(entry[user_id] for user_id in table))
        rounds.append(Pairing(tables=tuple(tables), byes=byes))
    if double:
        rounds += [
            Pairing(tables=tuple(table[::-1] for table in pairing.tables), byes=pairing.byes)
            for pairing in rounds
        ]
    return tuple(rounds)


def _check_unique(user_ids: Iterable[int]) -> None:
    """Refuses an entrant listed twice: everyone plays once a round."""
    seen: set[int] = set()
    for user_id in user_ids:
        if user_id in seen:
            raise PairingError(f"user {user_id} is entered twice; everyone plays once a round")
        seen.add(user_id)


def ladder_of(entrants: Sequence[Standing], *, fewest: int, what: str) -> Ladder:
    """The entrants in standings order with their places, after checking there are enough
    of them and none twice."""
    _check_unique(entrant.user_id for entrant in entrants)
    if len(entrants) < fewest:
        raise PairingError(f"{what} needs at least {fewest} entrants, got {len(entrants)}")
    ordered = tuple(sorted(entrants, key=lambda e: (-e.points, e.rank, e.user_id)))
    denominator = math.lcm(*(entrant.points.denominator for entrant in ordered))
    group_sizes: dict[Fraction, int] = {}
    for entrant in ordered:
        group_sizes[entrant.points] = group_sizes.get(entrant.points, 0) + 1
    places: dict[int, _Place] = {}
    group_start = 0
    for order, entrant in enumerate(ordered):
        if order and entrant.points != ordered[order - 1].points:
            group_start = order
        places[entrant.user_id] = _Place(
            order=order,
            in_group=order - group_start,
            group_size=group_sizes[entrant.points],
            score=int(entrant.points * denominator),
        )
    return Ladder(entrants=ordered, places=places)


def have_met(a: Standing, b: Standing) -> bool:
    """Whether two entrants have sat at a table together (as either one recorded it)."""
    return b.user_id in a.met or a.user_id in b.met


def pair_costs(a: Standing, b: Standing, ladder: Ladder) -> tuple[int, ...]:
    """What pairing `a` with `b` costs by each rule of `swiss`, in order: a rematch, a
    second bye and the bye's height (none, for a pair), a pair across groups, the squared
    point difference, a floater's height (none), and the departure from the Swiss
    shape."""
    place_a, place_b = ladder.places[a.user_id], ladder.places[b.user_id]
    if place_a.score == place_b.score:
        # The best shape pairs places half a group apart; a pair from one half swaps a
        # player between the halves, a bigger change than another order of the lower half.
        half = place_a.group_size // 2
        above, below = sorted((place_a.in_group, place_b.in_group))
        shape = abs(below - above - half) + (half if (above < half) == (below < half) else 0)
        difference = 0
    else:
        higher, lower = sorted((place_a, place_b), key=lambda place: place.order)
        shape = (higher.group_size - 1 - higher.in_group) + lower.in_group
        difference = place_a.score - place_b.score
    return (
        int(have_met(a, b)),
        0,
        0,
        int(difference != 0),
        difference * difference,
        0,
        shape,
    )


def bye_costs(entrant: Standing, ladder: Ladder) -> tuple[int, ...]:
    """What giving `entrant` the bye costs by each rule of `swiss`: their byes so far, then
    how far above the bottom of the standings they are. The bye's place comes before the
    score groups' pairs: the lowest-ranked without one sits out, and a leader floats down
    rather than take it."""
    from_bottom = len(ladder.entrants) - 1 - ladder.places[entrant.user_id].order
    return (0, entrant.byes, from_bottom, 0, 0, 0, 0)


def _float_costs(entrant: Standing, ladder: Ladder, next_score: int) -> tuple[int, ...]:
    """What sending `entrant` down to the next block costs by each rule of `swiss`, as
    if they were paired with the top of that block: a pair across groups when their
    points differ, with its squared difference, and the lowest-ranked floats first."""
    place = ladder.places[entrant.user_id]
    difference = place.score - next_score
    from_bottom = len(ladder.entrants) - 1 - place.order
    return (0, 0, 0, int(difference != 0), difference * difference, from_bottom, 0)


def _weights(costs: Sequence[tuple[int, ...]], pairs: int) -> list[int]:
    """One positive whole number per edge from its costs, most important first, such that
    the heaviest matching of `pairs` edges is the one whose summed costs are the least
    lexicographically: each cost is worth more than the most that every later cost can
    add up to over a matching, so no amount of a later one outweighs one of an earlier."""
    bases = [max(edge[k] for edge in costs) * pairs + 1 for k in range(len(costs[0]))]
    totals = []
    for edge in costs:
        total = 0
        for cost, base in zip(edge, bases, strict=True):
            total = total * base + cost
        totals.append(total)
    heaviest = max(totals) + 1
    return [heaviest - total for total in totals]


def _match(members: Sequence[Standing], ladder: Ladder, next_score: int | None) -> _Matched:
    """The best pairing of `members` by the rules of `swiss`. When they are odd, one is
    left out: the bye when `next_score` is None (a whole field), otherwise a floater to
    the next block, whose top has `next_score`."""
    edges = list(combinations(range(len(members)), 2))
    costs = [pair_costs(members[i], members[j], ladder) for i, j in edges]
    spare = len(members)
    if len(members) % 2:
        for i, entrant in enumerate(members):
            edges.append((i, spare))
            if next_score is None:
                costs.append(bye_costs(entrant, ladder))
            else:
                costs.append(_float_costs(entrant, ladder, next_score))
    graph = nx.Graph()
    for (i, j), weight in zip(edges, _weights(costs, (len(members) + 1) // 2), strict=True):
        graph.add_edge(i, j, weight=weight)
    matching: set[tuple[int, int]] = nx.max_weight_matching(graph, maxcardinality=True)
    pairs: list[tuple[Standing, Standing]] = []
    left_out = None
    for i, j in matching:
        low, high = min(i, j), max(i, j)
        if high == spare:
            left_out = members[low]
        else:
            pairs.append((members[low], members[high]))
    return _Matched(
        pairs=tuple(pairs),
        left_out=left_out,
        rematches=sum(have_met(a, b) for a, b in pairs),
    )


def _match_in_blocks(
    ladder: Ladder,
) -> tuple[tuple[tuple[Standing, Standing], ...], Standing | None]:
    """The pairs and the bye of a big event, block by block down the standings.

    The bye of an odd field is chosen first: the lowest-ranked of those with the fewest
    byes (rules 3 and 6 of `swiss`). Each block (see `_blocks`) is then matched alone,
    with the one left over from the block above; when it is odd, its lowest-ranked who
    fits best floats down into the next. A block that cannot avoid a rematch on its own
    takes in the next block and is matched again (the last one takes back the block
    above it), as long as it stays within `GROWN_BLOCK_LIMIT` entrants: past that, it
    keeps the rematch rather than grow into a matching too slow to wait for.
    """
    entrants = list(ladder.entrants)
    bye = None
    if len(entrants) % 2:
        bye = min(entrants, key=lambda e: (e.byes, -ladder.places[e.user_id].order))
        entrants.remove(bye)
    blocks = _blocks(entrants)
    # The blocks matched so far: who floated in, the block's own entrants, their matching.
    settled: list[tuple[list[Standing], list[Standing], _Matched]] = []
    carried: list[Standing] = []
    index = 0
    while index < len(blocks):
        block = blocks[index]
        last = index == len(blocks) - 1
        next_score = None if last else ladder.places[blocks[index + 1][0].user_id].score
        matched = _match(carried + block, ladder, next_score)
        if matched.rematches and not last:
            grown = carried + block + blocks[index + 1]
        elif matched.rematches and settled:
            grown = [*settled[-1][0], *settled[-1][1], *block]
        else:
            grown = []
        if not grown or len(grown) > GROWN_BLOCK_LIMIT:
            settled.append((carried, block, matched))
            carried = [] if matched.left_out is None else [matched.left_out]
            index += 1
        elif not last:
            blocks[index + 1] = block + blocks[index + 1]
            index += 1
        else:
            carried, above, _ = settled.pop()
            blocks[index] = above + block
    return tuple(pair for _, _, matched in settled for pair in matched.pairs), bye


def _blocks(ordered: Sequence[Standing]) -> list[list[Standing]]:
    """The standings cut into blocks of at most about `BLOCK_SIZE`: whole score groups
    together while they fit, a group too big for one block cut into even chunks that each
    keep the top-half-against-bottom-half shape (a slice of its top half with the same
    slice of its bottom half), and a last block too small to pair well joined to the one
    above it."""
    groups: list[list[Standing]] = []
    for entrant in ordered:
        if groups and groups[-1][0].points == entrant.points:
            groups[-1].append(entrant)
        else:
            groups.append([entrant])
    blocks: list[list[Standing]] = []
    current: list[Standing] = []
    for group in groups:
        if len(group) > BLOCK_SIZE:
            if current:
                blocks.append(current)
                current = []
            blocks += _chunks(group)
        elif len(current) + len(group) > BLOCK_SIZE:
            blocks.append(current)
            current = group
        else:
            current = current + group
    if current:
        blocks.append(current)
    if len(blocks) > 1 and len(blocks[-1]) < BLOCK_SIZE // 2:
        blocks[-2:] = [blocks[-2] + blocks[-1]]
    return blocks


def _chunks(group: list[Standing]) -> list[list[Standing]]:
    """A big score group cut into chunks of at most about `BLOCK_SIZE`, each holding the
    same stretch of the group's top half and of its bottom half, so the usual pairs (the
    group's first against the first of its lower half) stay within one chunk. The odd one
    of an odd group ends the last chunk."""
    half = len(group) // 2
    count = math.ceil(len(group) / BLOCK_SIZE)
    stretch = math.ceil(half / count)
    chunks = []
    for start in range(0, half, stretch):
        end = min(start + stretch, half)
        chunks.append(group[start:end] + group[half + start : half + end])
    chunks[-1] += group[2 * half :]
    return chunks


def _seated_pair(a: Standing, b: Standing, ladder: Ladder) -> tuple[int, int]:
    """A pair in seat order: first the one who has played first less (more games in later
    seats than in the first), then, between equals, the one whose turn it is by
    alternation (the last game in a later seat), then the better ranked."""

    def claim(entrant: Standing) -> tuple[int, int, int]:
        return (
            entrant.first_seats - entrant.later_seats,
            _ALTERNATION[entrant.last_first],
            ladder.places[entrant.user_id].order,
        )

    first, second = sorted((a, b), key=claim)
    return (first.user_id, second.user_id)


def best_order(table: Iterable[Standing], ladder: Ladder) -> int:
    """Where a table's best-placed player stands: tables are listed from the top."""
    return min(ladder.places[entrant.user_id].order for entrant in table)
