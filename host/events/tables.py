"""Swiss rounds at tables of three or four (Everest): who sits with whom.

A matching library pairs players, not tables, so tables are chosen here: in a small field
out of every way to seat it, in a bigger one filled down the standings and then improved
by moving entrants between tables, by the same rules as a Swiss of two (`pairing`), in
order: old opponents apart, score groups together, the least spread of points.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from host.events.pairing import (
    Ladder,
    Pairing,
    PairingError,
    Standing,
    best_order,
    bye_costs,
    have_met,
    ladder_of,
    pair_costs,
)

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
    ladder = ladder_of(entrants, fewest=3, what="a round at tables")
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
    ordered = sorted(tables, key=lambda table: best_order(table, ladder))
    return Pairing(tables=tuple(_seated_table(table, ladder) for table in ordered), byes=())


def _seated_table(table: Sequence[Standing], ladder: Ladder) -> tuple[int, ...]:
    """A table in seat order: those who have sat first least first, then by rank."""
    return tuple(
        entrant.user_id
        for entrant in sorted(table, key=lambda e: (e.first_seats, ladder.places[e.user_id].order))
    )


def _table_sizes(entrants: int, size: int) -> list[int] | None:
    """Table sizes for a field: as many of `size` as can be, the rest of the other size
    (3 or 4), those of `size` first; None when no mix of 3 and 4 adds up (five)."""
    other = 7 - size
    for tables_of_size in range(entrants // size, -1, -1):
        rest = entrants - tables_of_size * size
        if rest % other == 0:
            return [size] * tables_of_size + [other] * (rest // other)
    return None


def _bye_choice(entrant: Standing, ladder: Ladder) -> tuple[int, ...]:
    """How bad a bye to `entrant` is when five share one table of four, by the rules of
    `swiss`: the meetings repeated at the table left, the entrant's byes so far, how far
    above the bottom they are, the table's pairs across groups, and its spread."""
    table = [other for other in ladder.entrants if other is not entrant]
    pairs = [pair_costs(a, b, ladder) for a, b in combinations(table, 2)]
    bye = bye_costs(entrant, ladder)
    return (
        sum(pair[0] for pair in pairs),
        bye[1],
        bye[2],
        sum(pair[3] for pair in pairs),
        sum(pair[4] for pair in pairs),
    )


@dataclass(frozen=True, slots=True)
class _TableCosts:
    """What a table costs, as one whole number ranking its faults: any repeated meeting
    outweighs any pairs across groups, which outweigh any spread of points."""

    #: Places (for the scores) of everyone.
    ladder: Ladder
    #: What one pair across score groups costs: more than the spread of all pairs can be.
    cross: int
    #: What one repeated meeting costs: more than everything below it can be.
    repeat: int
    #: The cost of each pair worked out so far, by the pair's user ids (both orders): the
    #: search weighs the same pairs many times over.
    known: dict[tuple[int, int], int] = field(default_factory=dict)

    @staticmethod
    def of(ladder: Ladder) -> _TableCosts:
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
                self.repeat * have_met(a, b)
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
