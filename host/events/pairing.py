"""Pairings: who plays whom in each round of an event, and in which seats.

Swiss rounds of two are a maximum-weight matching (networkx) whose whole-number weights
rank the pairing rules one above another, so the heaviest pairing is the best by the
first rule, then among those by the second, and so on. Big events are paired block by
block down the standings, since one matching over everyone grows too slow. Swiss rounds
at tables of three or four are searched whole in a small field, and in a bigger one are
filled down the standings, then improved by moving entrants between tables. Round robins
follow the circle method.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations

import networkx as nx  # type: ignore[import-untyped]

#: Up to this many entrants a Swiss round is one matching over everyone, the best pairing
#: by every rule. Its time grows with the cube of the field: about 0.2 s for 128 in a late
#: round on a small two-core server, 0.5 s for 200.
SINGLE_MATCHING_LIMIT = 128
#: Above the single-matching limit, the standings are cut into blocks of about this many
#: entrants, each matched alone: a thousand entrants pair in about 0.3 s, and a block is
#: big enough to almost always avoid a rematch and a second bye on its own.
BLOCK_SIZE = 60
#: Up to this many entrants, tables are chosen out of every way to seat them (about 10 ms
#: for twelve, the time growing steeply beyond); above it, by improving tables filled down
#: the standings.
EXACT_TABLES_LIMIT = 12
#: How many tables up or down the standings an entrant may move to when tables are
#: improved: far enough to leave a table of old opponents, near enough to stay fast in
#: big events (small events are searched whole).
TABLE_REACH = 8
#: The most changes the local search makes per table, a bound on its time; every change
#: lowers the cost, and it usually stops long before for want of one that does.
MOVES_PER_TABLE = 20
#: The most shakes (see `_improved`) tried while a table still has a fault after the local
#: search: about a millisecond each in a big field.
TABLE_SHAKES = 100

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
class _Ladder:
    """The entrants in standings order, with each one's place: what every rule reads."""

    #: Score groups from the top, then rank within a group.
    entrants: tuple[Standing, ...]
    #: Each entrant's place, by user id.
    places: dict[int, _Place]
    #: The fewest byes anyone has had: a bye to someone with more is a bye twice while
    #: another could take it.
    fewest_byes: int


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
    it the standings are paired block by block (see `_match_in_blocks`).
    """
    ladder = _ladder(entrants, fewest=2, what="a Swiss round")
    if len(ladder.entrants) <= SINGLE_MATCHING_LIMIT:
        matched = _match(ladder.entrants, ladder, next_score=None)
        pairs, bye = matched.pairs, matched.left_out
    else:
        pairs, bye = _match_in_blocks(ladder)
    ordered = sorted(pairs, key=lambda pair: _best_order(pair, ladder))
    return Pairing(
        tables=tuple(_seated_pair(a, b, ladder) for a, b in ordered),
        byes=() if bye is None else (bye.user_id,),
    )


def swiss_tables(entrants: Sequence[Standing], size: int) -> Pairing:
    """A Swiss round at tables of three or four: as many tables of `size` as the field
    allows, the rest of the other size, and a bye only when no such split exists (five
    entrants: one bye, four at one table).

    The tables lower, in order: pairs at one table who have met before, pairs at one
    table from different score groups, then the sum of squared point differences of pairs
    at one table. Up to `EXACT_TABLES_LIMIT` entrants they are the best tables by these;
    above it, tables filled down the standings are improved by swapping entrants between
    them (or moving one from a table of four to a table of three), a bounded search that
    may miss the best in a field where old opponents are many. Seats go to those who have
    sat first least, then by rank.
    """
    if size not in (3, 4):
        raise PairingError(f"a table seats 3 or 4 players, not {size}")
    ladder = _ladder(entrants, fewest=3, what="a round at tables")
    sizes = _table_sizes(len(ladder.entrants), size)
    if sizes is None:
        bye = min(ladder.entrants, key=lambda entrant: _bye_choice(entrant, ladder))
        seated = [entrant for entrant in ladder.entrants if entrant is not bye]
        return Pairing(tables=(_seated_table(seated, ladder),), byes=(bye.user_id,))
    costs = _TableCosts.of(ladder)
    if len(ladder.entrants) <= EXACT_TABLES_LIMIT:
        tables = _best_tables(ladder.entrants, sizes, costs)
    else:
        tables = _improved(_filled(ladder.entrants, sizes, costs), costs)
    ordered = sorted(tables, key=lambda table: _best_order(table, ladder))
    return Pairing(tables=tuple(_seated_table(table, ladder) for table in ordered), byes=())


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


def _ladder(entrants: Sequence[Standing], *, fewest: int, what: str) -> _Ladder:
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
    return _Ladder(
        entrants=ordered,
        places=places,
        fewest_byes=min(entrant.byes for entrant in ordered),
    )


def _have_met(a: Standing, b: Standing) -> bool:
    """Whether two entrants have sat at a table together (as either one recorded it)."""
    return b.user_id in a.met or a.user_id in b.met


def _pair_costs(a: Standing, b: Standing, ladder: _Ladder) -> tuple[int, ...]:
    """What pairing `a` with `b` costs by each rule of `swiss`, in order: a rematch, a
    second bye (never, for a pair), a pair across groups, the squared point difference,
    the bye's rank (none, for a pair), and the departure from the Swiss shape."""
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
        int(_have_met(a, b)),
        0,
        int(difference != 0),
        difference * difference,
        0,
        shape,
    )


def _bye_costs(entrant: Standing, ladder: _Ladder) -> tuple[int, ...]:
    """What giving `entrant` the bye costs by each rule of `swiss`: their byes so far, and
    how far above the bottom of the standings they are."""
    from_bottom = len(ladder.entrants) - 1 - ladder.places[entrant.user_id].order
    return (0, entrant.byes, 0, 0, from_bottom, 0)


def _float_costs(entrant: Standing, ladder: _Ladder, next_score: int) -> tuple[int, ...]:
    """What sending `entrant` down to the next block costs by each rule of `swiss`, as
    if they were paired with the top of that block: a pair across groups when their
    points differ, with its squared difference, and the lowest-ranked floats first."""
    place = ladder.places[entrant.user_id]
    difference = place.score - next_score
    from_bottom = len(ladder.entrants) - 1 - place.order
    return (0, 0, int(difference != 0), difference * difference, from_bottom, 0)


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


def _match(members: Sequence[Standing], ladder: _Ladder, next_score: int | None) -> _Matched:
    """The best pairing of `members` by the rules of `swiss`. When they are odd, one is
    left out: the bye when `next_score` is None (the last block), otherwise a floater to
    the next block, whose top has `next_score`."""
    edges = list(combinations(range(len(members)), 2))
    costs = [_pair_costs(members[i], members[j], ladder) for i, j in edges]
    spare = len(members)
    if len(members) % 2:
        for i, entrant in enumerate(members):
            edges.append((i, spare))
            if next_score is None:
                costs.append(_bye_costs(entrant, ladder))
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
        rematches=sum(_have_met(a, b) for a, b in pairs),
    )


def _match_in_blocks(
    ladder: _Ladder,
) -> tuple[tuple[tuple[Standing, Standing], ...], Standing | None]:
    """The pairs and the bye of a big event, block by block down the standings.

    Each block (see `_blocks`) is matched alone, with the one left over from the block
    above; when it is odd, its lowest-ranked who fits best floats down into the next.
    A block that cannot avoid a rematch on its own is joined to the next one and tried
    again; the last block, when it cannot avoid a rematch or a bye to someone who has had
    more than the fewest, takes back the block above it (and so on up), so a big event
    never has a rematch or a second bye that one matching over everyone would avoid.
    """
    blocks = _blocks(ladder.entrants)
    # The blocks matched so far: who floated in, the block's own entrants, their matching.
    settled: list[tuple[list[Standing], list[Standing], _Matched]] = []
    carried: list[Standing] = []
    index = 0
    while index < len(blocks):
        block = blocks[index]
        last = index == len(blocks) - 1
        next_score = None if last else ladder.places[blocks[index + 1][0].user_id].score
        matched = _match(carried + block, ladder, next_score)
        second_bye = (
            last and matched.left_out is not None and matched.left_out.byes > ladder.fewest_byes
        )
        if (matched.rematches == 0 and not second_bye) or (last and not settled):
            settled.append((carried, block, matched))
            carried = [] if matched.left_out is None else [matched.left_out]
            index += 1
        elif not last:
            blocks[index + 1] = block + blocks[index + 1]
            index += 1
        else:
            carried, above, _ = settled.pop()
            blocks[index] = above + block
    pairs = tuple(pair for _, _, matched in settled for pair in matched.pairs)
    return pairs, settled[-1][2].left_out


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


def _seated_pair(a: Standing, b: Standing, ladder: _Ladder) -> tuple[int, int]:
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


def _seated_table(table: Sequence[Standing], ladder: _Ladder) -> tuple[int, ...]:
    """A table in seat order: those who have sat first least first, then by rank."""
    return tuple(
        entrant.user_id
        for entrant in sorted(table, key=lambda e: (e.first_seats, ladder.places[e.user_id].order))
    )


def _best_order(table: Iterable[Standing], ladder: _Ladder) -> int:
    """Where a table's best-placed player stands: tables are listed from the top."""
    return min(ladder.places[entrant.user_id].order for entrant in table)


def _table_sizes(entrants: int, size: int) -> list[int] | None:
    """Table sizes for a field: as many of `size` as can be, the rest of the other size
    (3 or 4), those of `size` first; None when no mix of 3 and 4 adds up (five)."""
    other = 7 - size
    for tables_of_size in range(entrants // size, -1, -1):
        rest = entrants - tables_of_size * size
        if rest % other == 0:
            return [size] * tables_of_size + [other] * (rest // other)
    return None


def _bye_choice(entrant: Standing, ladder: _Ladder) -> tuple[int, ...]:
    """How bad a bye to `entrant` is when five share one table of four, by the rules of
    `swiss`: the meetings repeated at the table left, the entrant's byes so far, the
    table's pairs across groups, its spread, and how far above the bottom they are."""
    table = [other for other in ladder.entrants if other is not entrant]
    pairs = [_pair_costs(a, b, ladder) for a, b in combinations(table, 2)]
    bye = _bye_costs(entrant, ladder)
    return (
        sum(pair[0] for pair in pairs),
        bye[1],
        sum(pair[2] for pair in pairs),
        sum(pair[3] for pair in pairs),
        bye[4],
    )


@dataclass(frozen=True, slots=True)
class _TableCosts:
    """What a table costs, as one whole number ranking its faults: any repeated meeting
    outweighs any pairs across groups, which outweigh any spread of points."""

    #: Places (for the scores) of everyone.
    ladder: _Ladder
    #: What one pair across score groups costs: more than the spread of all pairs can be.
    cross: int
    #: What one repeated meeting costs: more than everything below it can be.
    repeat: int
    #: The cost of each pair worked out so far, by the pair's user ids (both orders): the
    #: search weighs the same pairs many times over.
    known: dict[tuple[int, int], int] = field(default_factory=dict)

    @staticmethod
    def of(ladder: _Ladder) -> _TableCosts:
        """The costs for a field, the weights set by its widest spread of points and its
        most pairs at tables (six for every four entrants)."""
        scores = [place.score for place in ladder.places.values()]
        pairs = 3 * len(scores) // 2
        cross = (max(scores) - min(scores)) ** 2 * pairs + 1
        return _TableCosts(ladder=ladder, cross=cross, repeat=(pairs + 1) * cross)

    def table(self, table: Sequence[Standing]) -> int:
        """The cost of a table: the sum over its pairs."""
        return sum(self.pair(a, b) for a, b in combinations(table, 2))

    def pair(self, a: Standing, b: Standing) -> int:
        """The cost of `a` and `b` at one table: a repeat, a crossing, their spread."""
        cost = self.known.get((a.user_id, b.user_id))
        if cost is None:
            places = self.ladder.places
            difference = places[a.user_id].score - places[b.user_id].score
            cost = (
                self.repeat * _have_met(a, b)
                + self.cross * (difference != 0)
                + difference * difference
            )
            self.known[a.user_id, b.user_id] = self.known[b.user_id, a.user_id] = cost
        return cost


def _best_tables(
    entrants: Sequence[Standing], sizes: Sequence[int], costs: _TableCosts
) -> list[list[Standing]]:
    """The tables of the given sizes with the least cost (see `_TableCosts`), out of every
    way to seat a small field: the best-placed entrant not yet seated takes each possible
    table in turn, and the best seating of those left is remembered by who is left."""
    pair = [[costs.pair(a, b) for b in entrants] for a in entrants]

    @functools.cache
    def best(seated: int, fours: int) -> tuple[int, tuple[tuple[int, ...], ...]]:
        free = [i for i in range(len(entrants)) if not seated >> i & 1]
        if not free:
            return 0, ()
        first, rest = free[0], free[1:]
        threes = (len(free) - 4 * fours) // 3
        options = []
        for size, fours_after in ((4, fours - 1), (3, fours)):
            if (fours if size == 4 else threes) == 0:
                continue
            for others in combinations(rest, size - 1):
                table = (first, *others)
                cost_after, tables_after = best(seated | sum(1 << i for i in table), fours_after)
                cost = cost_after + sum(pair[i][j] for i, j in combinations(table, 2))
                options.append((cost, (table, *tables_after)))
        return min(options, key=lambda option: option[0])

    _, tables = best(0, sizes.count(4))
    return [[entrants[i] for i in table] for table in tables]


def _filled(
    entrants: Sequence[Standing], sizes: Sequence[int], costs: _TableCosts
) -> list[list[Standing]]:
    """Tables filled straight down the standings, with the tables of each size placed
    where they cost least (see `_TableCosts`): a score group of three, say, takes a
    table of three rather than being split. Every order of the sizes is weighed, by
    keeping the best fill for each count of tables of four and of three seated so far."""
    fours, threes = sizes.count(4), sizes.count(3)
    # For each count of tables of four and of three: the least cost of filling that many
    # from the top, and the size of the last table of that fill.
    cheapest: dict[tuple[int, int], tuple[int, int]] = {(0, 0): (0, 0)}
    for filled_fours in range(fours + 1):
        for filled_threes in range(threes + 1):
            end = 4 * filled_fours + 3 * filled_threes
            options = [
                (cheapest[before][0] + costs.table(entrants[end - size : end]), size)
                for size, before in (
                    (4, (filled_fours - 1, filled_threes)),
                    (3, (filled_fours, filled_threes - 1)),
                )
                if before in cheapest
            ]
            if options:
                cheapest[filled_fours, filled_threes] = min(options, key=lambda o: o[0])
    from_the_bottom: list[list[Standing]] = []
    counts = (fours, threes)
    while counts != (0, 0):
        size = cheapest[counts][1]
        end = 4 * counts[0] + 3 * counts[1]
        from_the_bottom.append(list(entrants[end - size : end]))
        counts = (counts[0] - 1, counts[1]) if size == 4 else (counts[0], counts[1] - 1)
    return from_the_bottom[::-1]


def _improved(tables: list[list[Standing]], costs: _TableCosts) -> list[list[Standing]]:
    """The tables after a local search (see `_descend`) and then up to `TABLE_SHAKES`
    shakes while a table has a fault: a random swap out of a table with a repeated
    meeting (or, when none is left, with mixed score groups), another descent, and the
    result kept when it costs no more. One change at a time cannot always untangle
    repeats; a shake and a fresh descent often can. The shakes are the same for the same
    entrants, so a round is paired the same way twice."""
    best = [list(table) for table in tables]
    best_cost = [costs.table(table) for table in best]
    _descend(best, best_cost, costs, range(len(best)))
    shaker = random.Random(len(costs.ladder.entrants))
    for _ in range(TABLE_SHAKES):
        repeated = [index for index, cost in enumerate(best_cost) if cost >= costs.repeat]
        faulty = repeated or [index for index, cost in enumerate(best_cost) if cost > 0]
        if not faulty:
            break
        here = shaker.choice(faulty)
        there = shaker.choice([index for index in _reach(here, best) if index != here])
        shaken, shaken_cost = [list(table) for table in best], list(best_cost)
        i, j = shaker.randrange(len(shaken[here])), shaker.randrange(len(shaken[there]))
        shaken[here][i], shaken[there][j] = shaken[there][j], shaken[here][i]
        for changed in (here, there):
            shaken_cost[changed] = costs.table(shaken[changed])
        _descend(shaken, shaken_cost, costs, [*_reach(here, shaken), *_reach(there, shaken)])
        if sum(shaken_cost) <= sum(best_cost):
            best, best_cost = shaken, shaken_cost
    return best


def _reach(index: int, tables: Sequence[object]) -> range:
    """The tables an entrant of table `index` may move to: `TABLE_REACH` either way."""
    return range(max(0, index - TABLE_REACH), min(len(tables), index + TABLE_REACH + 1))


def _descend(
    tables: list[list[Standing]], cost: list[int], costs: _TableCosts, start: Iterable[int]
) -> None:
    """Improves `tables` (and their `cost`) in place: at a table with a fault (a repeated
    meeting or mixed score groups), makes the change of one entrant with a table within
    reach that lowers the total cost most, again and again, until no change does or
    `MOVES_PER_TABLE` changes a table have been made. A table without a fault needs no
    change of its own; after a change, the tables with a fault within reach of either
    changed table are looked at again. Begins at the tables of `start` with a fault."""
    pending = {index for index in start if cost[index] > 0}
    budget = MOVES_PER_TABLE * len(tables)
    while pending and budget > 0:
        here = min(pending)
        pending.discard(here)
        best: tuple[int, list[Standing], list[Standing]] | None = None
        best_saving = 0
        for there in _reach(here, tables):
            if there == here:
                continue
            for new_here, new_there in _changes(tables[here], tables[there]):
                saving = cost[here] + cost[there] - costs.table(new_here) - costs.table(new_there)
                if saving > best_saving:
                    best, best_saving = (there, new_here, new_there), saving
        if best is None:
            continue
        there = best[0]
        tables[here], tables[there] = best[1], best[2]
        cost[here], cost[there] = costs.table(tables[here]), costs.table(tables[there])
        budget -= 1
        pending |= {
            index for index in (*_reach(here, tables), *_reach(there, tables)) if cost[index] > 0
        }


def _changes(
    here: list[Standing], there: list[Standing]
) -> Iterable[tuple[list[Standing], list[Standing]]]:
    """Every way to change two tables by one entrant: a swap of one from each, or one
    moved from a table of four to a table of three (which keeps the mix of sizes)."""
    for i, mine in enumerate(here):
        for j, theirs in enumerate(there):
            yield (
                [*here[:i], theirs, *here[i + 1 :]],
                [*there[:j], mine, *there[j + 1 :]],
            )
    if len(here) > len(there):
        for i, mine in enumerate(here):
            yield [*here[:i], *here[i + 1 :]], [*there, mine]
    elif len(here) < len(there):
        for j, theirs in enumerate(there):
            yield [*here, theirs], [*there[:j], *there[j + 1 :]]
