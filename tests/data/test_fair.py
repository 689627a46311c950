"""Servers take turns at what they share: a burst of one server's work waits behind each
other server's next piece of work, never the other way round."""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from itertools import pairwise

import pytest

from data.fair import PARTY, FairGate, serving


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The gate's clock, which only the test moves on."""
    now = [100.0]
    monkeypatch.setattr("data.fair.time.monotonic", lambda: now[0])
    return now


async def entered_in_order(
    gate: FairGate, parties: list[Hashable], clock: list[float]
) -> list[str]:
    """Waiters of `parties` queued (in that order) while the gate is full, each holding
    it a millisecond; the order in which they get in, each as "party:n" (its n-th
    waiter)."""
    order: list[str] = []
    seen: dict[Hashable, int] = {}

    async def wait(name: str, party: Hashable) -> None:
        with serving(party):
            async with gate:
                order.append(name)
                clock[0] += 0.001
                await asyncio.sleep(0)

    await gate.acquire()  # the gate is busy while they queue
    tasks = []
    for party in parties:
        seen[party] = seen.get(party, 0) + 1
        tasks.append(asyncio.create_task(wait(f"{party}:{seen[party]}", party)))
    await asyncio.sleep(0)
    assert gate.waiting == len(parties)
    gate.release()
    await asyncio.gather(*tasks)
    return order


async def test_a_burst_of_one_server_takes_turns_with_the_others(clock: list[float]) -> None:
    order = await entered_in_order(FairGate(), ["b", "b", "b", "b", "a", "c", "a"], clock)
    assert order == ["b:1", "a:1", "c:1", "b:2", "a:2", "b:3", "b:4"]


async def test_one_servers_work_keeps_its_order(clock: list[float]) -> None:
    order = await entered_in_order(FairGate(), ["a"] * 5, clock)
    assert order == [f"a:{n}" for n in range(1, 6)]


async def test_a_gate_lets_in_as_many_as_it_has_room_for() -> None:
    gate = FairGate(2)
    await gate.acquire()
    await gate.acquire()
    third = asyncio.create_task(gate.acquire())
    await asyncio.sleep(0)
    assert not third.done() and gate.waiting == 1
    gate.release()
    await asyncio.wait_for(third, 1)
    gate.release()
    gate.release()
    with pytest.raises(RuntimeError):
        gate.release()


async def test_a_waiter_that_gives_up_holds_nobody_back() -> None:
    gate = FairGate()
    await gate.acquire()
    quitter = asyncio.create_task(gate.acquire())
    patient = asyncio.create_task(gate.acquire())
    await asyncio.sleep(0)
    quitter.cancel()
    await asyncio.sleep(0)
    gate.release()
    await asyncio.wait_for(patient, 1)
    assert gate.waiting == 0
    gate.release()


async def test_a_waiter_let_in_but_cancelled_passes_its_place_on() -> None:
    gate = FairGate()
    await gate.acquire()
    first = asyncio.create_task(gate.acquire())
    second = asyncio.create_task(gate.acquire())
    await asyncio.sleep(0)
    gate.release()  # the first is let in ...
    first.cancel()  # ... and cancelled before it runs
    await asyncio.wait_for(second, 1)
    with pytest.raises(asyncio.CancelledError):
        await first
    gate.release()
    await asyncio.wait_for(gate.acquire(), 1)  # nobody holds it after
    gate.release()


async def test_the_party_is_that_of_the_command_and_of_the_tasks_it_starts() -> None:
    assert PARTY.get() is None
    with serving(7):
        inner = asyncio.create_task(asyncio.sleep(0, PARTY.get()))
        assert await inner == 7
    assert PARTY.get() is None


async def burst_beside_moves(
    gate: FairGate, clock: list[float], starts: tuple[int, float], moves: int, seen: list[str]
) -> list[str]:
    """`starts` (so many, each holding the gate so long) of one server and `moves` of
    another (1 ms each), all queued at once while the gate is busy, after each party in
    `seen` was seen once; the parties in the order they got in."""
    order: list[str] = []
    hold = {"starts": starts[1], "moves": 0.001}

    async def work(party: str) -> None:
        with serving(party):
            async with gate:
                order.append(party)
                clock[0] += hold[party]
                await asyncio.sleep(0)

    for party in seen:  # the gate learns how long their work holds it
        await work(party)
    order.clear()
    await gate.acquire()
    tasks = [asyncio.create_task(work("starts")) for _ in range(starts[0])]
    tasks += [asyncio.create_task(work("moves")) for _ in range(moves)]
    await asyncio.sleep(0)
    gate.release()
    await asyncio.gather(*tasks)
    return order


async def test_a_server_whose_work_is_long_gets_its_share_of_time_not_of_turns(
    clock: list[float],
) -> None:
    # A burst of starts (30 ms each at the gate) beside a server's moves (1 ms each): the
    # moves get as much of the gate's time as the starts, so many moves go between two
    # starts, not one.
    order = await burst_beside_moves(FairGate(), clock, (3, 0.030), 40, ["starts", "moves"])
    first, second = [n for n, party in enumerate(order) if party == "starts"][:2]
    assert second - first - 1 >= 20, order
    assert order.count("moves") == 40 and order.count("starts") == 3


async def test_a_burst_of_long_work_never_seen_before_still_gets_only_its_share(
    clock: list[float],
) -> None:
    # Thirty starts come at once from a server the gate has not seen, each holding it
    # 10 ms, beside another server's moves of 1 ms: what it is charged is what its work
    # took, so its first start is not followed by all the others.
    order = await burst_beside_moves(FairGate(), clock, (30, 0.010), 60, ["moves"])
    # In the first 100 ms of the gate's time, about half went to each server.
    spent = {"starts": 0.0, "moves": 0.0}
    for party in order:
        if sum(spent.values()) >= 0.100:
            break
        spent[party] += 0.010 if party == "starts" else 0.001
    assert 0.035 <= spent["moves"] <= 0.065, order


async def test_work_that_needs_the_whole_gate_waits_for_all_inside_and_is_not_overtaken(
    clock: list[float],
) -> None:
    gate = FairGate(3)
    await gate.acquire()
    await gate.acquire()  # two single places taken
    whole = asyncio.create_task(gate.acquire(whole=True))
    await asyncio.sleep(0)
    later = asyncio.create_task(gate.acquire())  # a free place, but the whole comes first
    await asyncio.sleep(0)
    assert not whole.done() and not later.done() and gate.waiting == 2
    gate.release()
    await asyncio.sleep(0)
    assert not whole.done() and not later.done()
    gate.release()
    await asyncio.wait_for(whole, 1)
    await asyncio.sleep(0)
    assert not later.done()  # nobody beside the whole
    gate.release()
    await asyncio.wait_for(later, 1)
    gate.release()


async def test_single_places_go_several_at_once_and_a_whole_waiter_giving_up_frees_them(
    clock: list[float],
) -> None:
    gate = FairGate(3)
    await gate.acquire()
    whole = asyncio.create_task(gate.acquire(whole=True))
    await asyncio.sleep(0)
    singles = [asyncio.create_task(gate.acquire()) for _ in range(2)]
    await asyncio.sleep(0)
    assert not any(t.done() for t in singles)
    whole.cancel()
    await asyncio.wait_for(asyncio.gather(*singles), 1)  # both in beside the first
    assert gate.waiting == 0
    for _ in range(3):
        gate.release()


async def after_short_work(
    clock: list[float], before: list[float], pieces: tuple[int, float]
) -> list[int]:
    """Two servers whose work has held the gate 1 ms a piece; then "a"'s pieces that took
    `before` each, one after the other; then, queued at once, `pieces` of "a" (so many,
    each holding it so long) and 250 of "b" (1 ms each). How many of "b"'s went in before
    each of "a"'s. A third party holds the gate's other place all along: the gate is
    never idle, which would forgive every party's past."""
    gate = FairGate(2)
    with serving("c"):
        await gate.acquire()
    order: list[str] = []

    async def work(party: str, hold: float) -> None:
        with serving(party):
            async with gate:
                order.append(party)
                clock[0] += hold
                await asyncio.sleep(0)

    for _ in range(8):
        await work("a", 0.001)
        await work("b", 0.001)
    for hold in before:
        await work("a", hold)
    order.clear()
    await gate.acquire()
    tasks = [asyncio.create_task(work("a", pieces[1])) for _ in range(pieces[0])]
    tasks += [asyncio.create_task(work("b", 0.001)) for _ in range(250)]
    await asyncio.sleep(0)
    gate.release()
    await asyncio.gather(*tasks)
    return [order[:n].count("b") for n, party in enumerate(order) if party == "a"]


async def test_a_piece_held_up_by_a_pause_is_paid_for_a_little_on_each_next_piece(
    clock: list[float],
) -> None:
    # One piece of "a" held up 40 ms (a collection, the loop busy elsewhere): its next
    # piece does not wait behind forty of "b"'s, nor does any after it behind many...
    ahead = await after_short_work(clock, [0.040], (12, 0.001))
    assert ahead[0] <= 15, ahead
    assert all(later - earlier <= 15 for earlier, later in pairwise(ahead)), ahead
    # ... but the pause is still paid for over them: without it, "b" would have had only
    # about one piece between two of "a"'s.
    assert ahead[-1] >= 40, ahead


async def test_a_server_that_turns_to_long_work_is_charged_nearly_all_of_it(
    clock: list[float],
) -> None:
    # "a" has done 1 ms pieces; now ten of 20 ms each. Charged its time in full, it would
    # let about twenty of "b"'s in between two of its own (some 180 before its last);
    # the average it is charged by falls short of that by at most three times the
    # difference (19 ms) in all.
    ahead = await after_short_work(clock, [], (10, 0.020))
    assert 180 - 3 * 19 - 10 <= ahead[-1] <= 200, ahead
