"""Pairings for events: Swiss rounds against an exhaustive search, big Swiss events, round
robins, tables of three and four, and the refusals."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from itertools import combinations

import pytest

from host.events.pairing import (
    SINGLE_MATCHING_LIMIT,
    Pairing,
    PairingError,
    Standing,
    round_robin,
    swiss,
    swiss_rounds,
)
from host.events.tables import swiss_tables


def entrant(
    user_id: int,
    points: Fraction | int = 0,
    *,
    rank: int | None = None,
    met: Sequence[int] = (),
    byes: int = 0,
    first: int = 0,
    later: int = 0,
    last_first: bool | None = None,
) -> Standing:
    """An entrant; ranked by their id unless told."""
    return Standing(
        user_id=user_id,
        points=Fraction(points),
        rank=user_id if rank is None else rank,
        met=frozenset(met),
        byes=byes,
        first_seats=first,
        later_seats=later,
        last_first=last_first,
    )


def assert_everyone_once(pairing: Pairing, entrants: Sequence[Standing]) -> None:
    seated = [user_id for table in pairing.tables for user_id in table] + list(pairing.byes)
    assert sorted(seated) == sorted(e.user_id for e in entrants)


# The exhaustive search. A pairing's worth by the first six rules of a Swiss round is one
# whole number, its rules as digits of base 2**16 (no sum below reaches that), the first
# rule the most significant: rematches, the bye's byes so far, the bye's height above the
# bottom, pairs across score groups, summed squared point differences (in half points).
DIGIT = 1 << 16
REMATCH, BYE_AGAIN, BYE_HEIGHT, CROSS = DIGIT**4, DIGIT**3, DIGIT**2, DIGIT
RULES = ("rematches", "byes of the bye", "bye's height", "cross pairs", "spread")


def pair_worth(a: Standing, b: Standing) -> int:
    halves = int(2 * (a.points - b.points))
    met = b.user_id in a.met or a.user_id in b.met
    return met * REMATCH + (halves != 0) * CROSS + halves * halves


def bye_worth(bye: Standing, entrants: int) -> int:
    return bye.byes * BYE_AGAIN + (entrants - bye.rank) * BYE_HEIGHT


def worth(pairing: Pairing, entrants: Sequence[Standing]) -> int:
    by_id = {e.user_id: e for e in entrants}
    return sum(pair_worth(by_id[a], by_id[b]) for a, b in pairing.tables) + sum(
        bye_worth(by_id[bye], len(entrants)) for bye in pairing.byes
    )


def best_worth(entrants: Sequence[Standing]) -> int:
    """The least worth over every pairing, the bye as one more player when the field is
    odd: the first player left is paired with each other in turn, and the best pairing
    of those left is remembered by who is left (a set of bits)."""
    count = len(entrants)
    players = count + count % 2
    worths = [[0] * players for _ in range(players)]
    for i, j in combinations(range(count), 2):
        worths[i][j] = worths[j][i] = pair_worth(entrants[i], entrants[j])
    if count % 2:
        for i, bye in enumerate(entrants):
            worths[i][count] = worths[count][i] = bye_worth(bye, count)

    @cache
    def best(left: int) -> int:
        if not left:
            return 0
        first = (left & -left).bit_length() - 1
        others = left ^ (1 << first)
        least = None
        rest = others
        while rest:
            bit = rest & -rest
            value = worths[first][bit.bit_length() - 1] + best(others ^ bit)
            least = value if least is None or value < least else least
            rest ^= bit
        assert least is not None
        return least

    return best((1 << players) - 1)


def rules(worth: int) -> dict[str, int]:
    digits = []
    for _ in RULES:
        worth, digit = divmod(worth, DIGIT)
        digits.append(digit)
    return dict(zip(RULES, reversed(digits), strict=True))


def random_event(rng: random.Random) -> list[Standing]:
    """2 to 14 entrants with points in halves, ranked by points (ties at random), past
    meetings as dense as chance makes them, and some byes had."""
    count = rng.randint(2, 14)
    top = rng.randint(0, 4)
    points = sorted((Fraction(rng.randint(0, 2 * top), 2) for _ in range(count)), reverse=True)
    user_ids = rng.sample(range(1, 10_000), count)
    density = rng.random() ** 2
    met: dict[int, set[int]] = {user_id: set() for user_id in user_ids}
    for a, b in combinations(user_ids, 2):
        if rng.random() < density:
            met[a].add(b)
            met[b].add(a)
    bye_share = rng.random()
    return [
        entrant(
            user_id,
            points[index],
            rank=index + 1,
            met=sorted(met[user_id]),
            byes=rng.randint(1, 2) if rng.random() < bye_share else 0,
        )
        for index, user_id in enumerate(user_ids)
    ]


def test_swiss_rounds_are_enough_to_halve_the_field_down_to_one() -> None:
    expected = {1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 8: 3, 9: 4, 16: 4, 17: 5, 1000: 10, 1025: 11}
    assert {n: swiss_rounds(n) for n in expected} == expected


def test_random_swiss_rounds_are_as_good_as_an_exhaustive_search() -> None:
    """Rules 1 to 6 against every possible pairing, over ten thousand random events: no
    rematch while one can be avoided, then the bye to the lowest-ranked of those with the
    fewest byes, then the fewest pairs across groups, then the least spread."""
    rng = random.Random(20240611)
    for _ in range(10_000):
        entrants = random_event(rng)
        pairing = swiss(entrants)
        assert_everyone_once(pairing, entrants)
        assert all(len(table) == 2 for table in pairing.tables)
        assert len(pairing.byes) == len(entrants) % 2
        got, best = worth(pairing, entrants), best_worth(entrants)
        assert got == best, (entrants, pairing, rules(got), rules(best))


def test_a_score_group_meets_its_lower_half_in_order() -> None:
    field = [entrant(n) for n in range(1, 9)]
    assert swiss(field).tables == ((1, 5), (2, 6), (3, 7), (4, 8))


def test_an_old_pair_is_undone_by_the_smallest_change_of_order() -> None:
    field = [entrant(1, met=[5]), *(entrant(n) for n in range(2, 9))]
    assert swiss(field).tables == ((1, 6), (2, 5), (3, 7), (4, 8))


def test_a_meeting_recorded_on_one_side_only_still_counts() -> None:
    field = [entrant(1), entrant(2), entrant(3, met=[1]), entrant(4)]
    assert swiss(field).tables == ((1, 4), (2, 3))
    field = [entrant(1, met=[3]), entrant(2), entrant(3), entrant(4)]
    assert swiss(field).tables == ((1, 4), (2, 3))


def test_the_odd_one_of_a_group_floats_down_to_the_top_of_the_next() -> None:
    field = [entrant(n, 1) for n in (1, 2, 3)] + [entrant(n) for n in (4, 5, 6)]
    assert swiss(field).tables == ((1, 2), (3, 4), (5, 6))


def test_the_bye_goes_to_the_lowest_ranked_without_one() -> None:
    field = [entrant(n) for n in range(1, 5)] + [entrant(5, byes=1)]
    assert swiss(field).byes == (4,)


def test_seats_go_to_who_played_first_less_then_by_turns_then_by_rank() -> None:
    def seats(a: Standing, b: Standing) -> tuple[int, ...]:
        return swiss([a, b]).tables[0]

    fewer_firsts = entrant(2, first=1, later=2, last_first=True)
    assert seats(entrant(1, first=2, later=1, last_first=False), fewer_firsts) == (2, 1)
    just_first = entrant(1, first=1, later=1, last_first=True)
    assert seats(just_first, entrant(2, first=1, later=1, last_first=False)) == (2, 1)
    assert seats(just_first, entrant(2)) == (2, 1)
    assert seats(entrant(1, first=1, later=1, last_first=False), entrant(2)) == (1, 2)
    assert seats(entrant(1), entrant(2)) == (1, 2)


def test_tables_are_listed_from_the_top_of_the_standings() -> None:
    field = [entrant(n, 3 if n > 4 else 0, rank=9 - n) for n in range(1, 9)]
    pairing = swiss(field)
    assert [max(table) for table in pairing.tables] == [8, 7, 4, 3]


def play(rng: random.Random, pairing: Pairing, field: dict[int, Standing]) -> dict[int, Standing]:
    """The standings after a round with random results (a win, a loss or a draw at each
    table; a bye is worth a win), ranked by points, then by user id."""
    points = {user_id: s.points for user_id, s in field.items()}
    met = {user_id: set(s.met) for user_id, s in field.items()}
    byes = {user_id: s.byes for user_id, s in field.items()}
    first = {user_id: s.first_seats for user_id, s in field.items()}
    later = {user_id: s.later_seats for user_id, s in field.items()}
    last_first = {user_id: s.last_first for user_id, s in field.items()}
    for table in pairing.tables:
        winner = rng.choice([*table, None])
        for seat, user_id in enumerate(table):
            met[user_id] |= set(table) - {user_id}
            points[user_id] += 1 if winner == user_id else Fraction(1, 2) if winner is None else 0
            first[user_id] += seat == 0
            later[user_id] += seat != 0
            last_first[user_id] = seat == 0
    for user_id in pairing.byes:
        byes[user_id] += 1
        points[user_id] += 1
    order = sorted(field, key=lambda user_id: (-points[user_id], user_id))
    return {
        user_id: entrant(
            user_id,
            points[user_id],
            rank=order.index(user_id) + 1,
            met=sorted(met[user_id]),
            byes=byes[user_id],
            first=first[user_id],
            later=later[user_id],
            last_first=last_first[user_id],
        )
        for user_id in field
    }


def test_seven_entrants_over_seven_rounds() -> None:
    """Seven rounds of seven are a whole round robin, the bye as an eighth player. In the
    first five rounds a pairing without a rematch or a second bye always exists (what is
    left unplayed is a graph of eight vertices where everyone has three or more left, and
    it always has a perfect matching), so the pairing finds one. In the sixth, what is
    left may be a cycle of three and one of five, which no round can cover: a rematch or
    a second bye then happens, and only then, as the exhaustive search confirms."""
    rng = random.Random(7)
    for _ in range(60):
        field = {user_id: entrant(user_id) for user_id in range(1, 8)}
        for number in range(1, 8):
            entrants = list(field.values())
            pairing = swiss(entrants)
            assert len(pairing.tables) == 3
            assert len(pairing.byes) == 1
            got = rules(worth(pairing, entrants))
            forced = rules(best_worth(entrants))
            for rule in ("rematches", "byes of the bye"):
                assert got[rule] == forced[rule]
                if number <= 5:
                    assert got[rule] == 0
            field = play(rng, pairing, field)


def test_a_big_event_pairs_everyone_without_rematches_or_second_byes() -> None:
    """Nine rounds of a field too big for one matching, paired block by block."""
    rng = random.Random(11)
    count = 3 * SINGLE_MATCHING_LIMIT + 1
    field = {user_id: entrant(user_id) for user_id in range(1, count + 1)}
    for _ in range(9):
        entrants = list(field.values())
        pairing = swiss(entrants)
        assert_everyone_once(pairing, entrants)
        assert len(pairing.byes) == 1
        assert field[pairing.byes[0]].byes == 0
        assert not [(a, b) for a, b in pairing.tables if b in field[a].met]
        groups = {standing.points for standing in entrants}
        crossing = sum(field[a].points != field[b].points for a, b in pairing.tables)
        # Blocks cost a few more pairs across groups than one matching, but still fewer
        # than one for each group.
        assert crossing < len(groups)
        # Seat 0 to the one of the pair who has played first less often.
        for a, b in pairing.tables:
            ahead = field[a].first_seats - field[a].later_seats
            assert ahead <= field[b].first_seats - field[b].later_seats
        field = play(rng, pairing, field)


def test_a_block_that_cannot_avoid_rematches_alone_takes_in_the_next() -> None:
    """Twenty leaders who have all met head a field too big for one matching."""
    leaders = range(1, 21)
    rest = range(21, SINGLE_MATCHING_LIMIT + 3)
    field = [entrant(n, 3, met=[m for m in leaders if m != n]) for n in leaders]
    field += [entrant(n) for n in rest]
    pairing = swiss(field)
    assert_everyone_once(pairing, field)
    for a, b in pairing.tables:
        assert not (a in leaders and b in leaders)


def test_a_big_event_gives_the_bye_to_the_lowest_ranked_of_those_with_fewest() -> None:
    count = SINGLE_MATCHING_LIMIT + 3
    field = [entrant(n, 1 if n < 40 else 0, byes=n % 3) for n in range(1, count + 1)]
    pairing = swiss(field)
    assert_everyone_once(pairing, field)
    assert pairing.byes == (max(n for n in range(1, count + 1) if n % 3 == 0),)


def test_a_big_event_gives_the_bye_to_the_only_one_without_one_even_at_the_top() -> None:
    """Only the leader has had no bye; in a field paired block by block too, the bye
    goes to them rather than to the bottom."""
    count = SINGLE_MATCHING_LIMIT + 3
    field = [entrant(1, 2)]
    field += [entrant(n, 1 if n < 40 else 0, byes=1) for n in range(2, count + 1)]
    pairing = swiss(field)
    assert_everyone_once(pairing, field)
    assert pairing.byes == (1,)


def test_a_field_of_old_opponents_is_still_paired_without_growing_a_block_past_its_limit() -> None:
    """A hundred leaders who have all met: avoiding every rematch would take one matching
    over the whole field, which a block does not grow to; the pairing still seats
    everyone, with no more rematches than the leaders' own blocks force."""
    leaders = range(1, 101)
    field = [entrant(n, 3, met=[m for m in leaders if m != n]) for n in leaders]
    field += [entrant(n) for n in range(101, 201)]
    pairing = swiss(field)
    assert_everyone_once(pairing, field)
    rematches = [(a, b) for a, b in pairing.tables if a in leaders and b in leaders]
    assert 0 < len(rematches) <= 25


@pytest.mark.parametrize("count", range(2, 18))
@pytest.mark.parametrize("double", [False, True])
def test_round_robin(count: int, double: bool) -> None:
    user_ids = [100 + 7 * n for n in range(count)]
    rounds = round_robin(user_ids, double=double)
    per_cycle = count - 1 + count % 2
    assert len(rounds) == per_cycle * (2 if double else 1)
    for pairing in rounds:
        assert_everyone_once(pairing, [entrant(user_id) for user_id in user_ids])
        assert all(len(table) == 2 for table in pairing.tables)
        assert len(pairing.byes) == count % 2
    first_cycle = rounds[:per_cycle]
    meetings = Counter(frozenset(table) for pairing in first_cycle for table in pairing.tables)
    assert set(meetings) == {frozenset(pair) for pair in combinations(user_ids, 2)}
    assert set(meetings.values()) == {1}
    byes = Counter(user_id for pairing in first_cycle for user_id in pairing.byes)
    assert byes == (Counter(user_ids) if count % 2 else Counter())
    firsts = Counter(table[0] for pairing in first_cycle for table in pairing.tables)
    assert max(firsts[u] for u in user_ids) - min(firsts[u] for u in user_ids) <= 1
    if double:
        for earlier, later in zip(first_cycle, rounds[per_cycle:], strict=True):
            assert later.tables == tuple(table[::-1] for table in earlier.tables)
            assert later.byes == earlier.byes


def test_a_round_robin_starts_with_the_top_against_the_bottom() -> None:
    first_round = round_robin([1, 2, 3, 4, 5, 6], double=False)[0]
    assert [sorted(table) for table in first_round.tables] == [[1, 6], [2, 5], [3, 4]]
    assert [pairing.byes for pairing in round_robin([1, 2, 3], double=False)] == [
        (3,),
        (2,),
        (1,),
    ]


#: Table sizes for small fields, worked out by hand: (field, size) -> sizes, or a bye.
SMALL_FIELDS = {
    (3, 4): [3],
    (4, 4): [4],
    (5, 4): "bye",
    (6, 4): [3, 3],
    (7, 4): [4, 3],
    (8, 4): [4, 4],
    (9, 4): [3, 3, 3],
    (10, 4): [4, 3, 3],
    (11, 4): [4, 4, 3],
    (12, 4): [4, 4, 4],
    (13, 4): [4, 3, 3, 3],
    (3, 3): [3],
    (4, 3): [4],
    (5, 3): "bye",
    (6, 3): [3, 3],
    (7, 3): [4, 3],
    (8, 3): [4, 4],
    (9, 3): [3, 3, 3],
    (10, 3): [4, 3, 3],
    (11, 3): [4, 4, 3],
    (12, 3): [3, 3, 3, 3],
    (13, 3): [4, 3, 3, 3],
    (14, 3): [4, 4, 3, 3],
}


@pytest.mark.parametrize(("count", "size"), list(SMALL_FIELDS))
def test_small_fields_sit_at_tables_of_the_sizes_worked_out_by_hand(count: int, size: int) -> None:
    field = [entrant(n) for n in range(1, count + 1)]
    pairing = swiss_tables(field, size)
    assert_everyone_once(pairing, field)
    sizes = sorted((len(table) for table in pairing.tables), reverse=True)
    if SMALL_FIELDS[count, size] == "bye":
        assert (sizes, pairing.byes) == ([4], (5,))
    else:
        assert (sizes, pairing.byes) == (SMALL_FIELDS[count, size], ())


@pytest.mark.parametrize("size", [3, 4])
def test_any_field_has_as_many_tables_of_the_size_as_can_be(size: int) -> None:
    for count in [*range(6, 60), 333, 1000]:
        field = [entrant(n) for n in range(1, count + 1)]
        pairing = swiss_tables(field, size)
        assert_everyone_once(pairing, field)
        assert pairing.byes == ()
        sizes = Counter(len(table) for table in pairing.tables)
        assert set(sizes) <= {3, 4}
        # One table of `size` more, and the rest cannot be split into tables of the other.
        rest = count - (sizes[size] + 1) * size
        assert rest < 0 or rest % (7 - size) != 0


def seatings(players: list[int], sizes: list[int]) -> list[list[tuple[int, ...]]]:
    """Every way to seat `players` at tables of `sizes` (order of tables aside)."""
    if not players:
        return [[]]
    first, rest = players[0], players[1:]
    found = []
    for size in set(sizes):
        left = list(sizes)
        left.remove(size)
        for others in combinations(rest, size - 1):
            remaining = [p for p in rest if p not in others]
            found += [[(first, *others), *tail] for tail in seatings(remaining, left)]
    return found


def table_faults(tables: Sequence[Sequence[int]], by_id: dict[int, Standing]) -> tuple[int, ...]:
    """Pairs at one table who have met, pairs at one table across groups, and the summed
    squared point differences (in sixths) of pairs at one table."""
    repeats = crossing = spread = 0
    for table in tables:
        for a, b in combinations(table, 2):
            repeats += b in by_id[a].met
            crossing += by_id[a].points != by_id[b].points
            spread += int(6 * (by_id[a].points - by_id[b].points)) ** 2
    return repeats, crossing, spread


def test_small_fields_at_tables_are_as_good_as_every_other_seating() -> None:
    rng = random.Random(3)
    for _ in range(120):
        count = rng.randint(6, 10)
        size = rng.choice([3, 4])
        points = sorted((Fraction(rng.randint(0, 6), 3) for _ in range(count)), reverse=True)
        density = rng.random() * 0.7
        met: dict[int, set[int]] = {n: set() for n in range(1, count + 1)}
        for a, b in combinations(met, 2):
            if rng.random() < density:
                met[a].add(b)
                met[b].add(a)
        field = [entrant(n, points[n - 1], met=sorted(met[n])) for n in met]
        by_id = {e.user_id: e for e in field}
        pairing = swiss_tables(field, size)
        assert_everyone_once(pairing, field)
        sizes = [len(table) for table in pairing.tables]
        best = min(table_faults(tables, by_id) for tables in seatings(list(met), sizes))
        assert table_faults(pairing.tables, by_id) == best, (field, pairing)


def test_repeat_meetings_at_tables_are_avoided_when_they_can_be() -> None:
    # 1, 2, 3 and 4 sat together last round; so did 5, 6, 7 and 8.
    first_round = [range(1, 5), range(5, 9)]
    field = [entrant(n, met=[m for m in t if m != n]) for t in first_round for n in t]
    pairing = swiss_tables(field, 4)
    for table in pairing.tables:
        assert sorted(n <= 4 for n in table) == [False, False, True, True]


def test_a_big_field_at_tables_never_meets_again() -> None:
    rng = random.Random(5)
    field = {n: entrant(n) for n in range(1, 202)}
    for _ in range(4):
        entrants = list(field.values())
        pairing = swiss_tables(entrants, 4)
        assert_everyone_once(pairing, entrants)
        assert sorted(len(table) for table in pairing.tables) == [3] * 3 + [4] * 48
        for table in pairing.tables:
            assert not [(a, b) for a, b in combinations(table, 2) if b in field[a].met]
        field = play(rng, pairing, field)


def test_five_at_tables_leave_the_lowest_ranked_without_a_bye_out() -> None:
    field = [entrant(n) for n in range(1, 5)] + [entrant(5, byes=1)]
    pairing = swiss_tables(field, 4)
    assert pairing.byes == (4,)
    assert sorted(pairing.tables[0]) == [1, 2, 3, 5]


def test_seats_at_a_table_go_to_who_sat_first_least() -> None:
    field = [entrant(1, first=2), entrant(2, first=1), entrant(3, first=1), entrant(4)]
    assert swiss_tables(field, 4).tables == ((4, 2, 3, 1),)


def test_refusals_say_what_is_wrong() -> None:
    with pytest.raises(PairingError, match="a Swiss round needs at least 2 entrants, got 1"):
        swiss([entrant(1)])
    with pytest.raises(PairingError, match="a Swiss round needs at least 2 entrants, got 0"):
        swiss([])
    with pytest.raises(PairingError, match="a round at tables needs at least 3 entrants, got 2"):
        swiss_tables([entrant(1), entrant(2)], 3)
    with pytest.raises(PairingError, match="a table seats 3 or 4 players, not 2"):
        swiss_tables([entrant(n) for n in range(1, 5)], 2)
    with pytest.raises(PairingError, match="a round robin needs at least 2 entrants, got 1"):
        round_robin([1], double=False)
    with pytest.raises(PairingError, match="user 2 is entered twice"):
        swiss([entrant(1), entrant(2), entrant(2)])
    with pytest.raises(PairingError, match="user 3 is entered twice"):
        swiss_tables([entrant(3), entrant(1), entrant(2), entrant(3)], 3)
    with pytest.raises(PairingError, match="user 1 is entered twice"):
        round_robin([1, 2, 1], double=True)
    with pytest.raises(PairingError, match="needs entrants to count rounds for, got 0"):
        swiss_rounds(0)
    assert issubclass(PairingError, ValueError)
