"""The daily digest: one direct message a day at the player's local hour (across
daylight-saving changes), sent once however many processes tick, listing the games
waiting for the player and those that ended; with it on, boards do not ping the player
and only the last reminder reaches them; bad input is refused with nothing changed."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from data.storage import Storage, open_storage
from host.digests import next_digest_at, timezone_choices
from host.face import House
from host.model import Direct, Reply, ServiceError, Where
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOB, CAROL, HERE
from tests.houses import house_of

HOUR = 3600
DAY = 24 * HOUR
WARSAW = ZoneInfo("Europe/Warsaw")


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def utc(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def digests_in(posts: list[tuple[Where, list[Reply]]]) -> list[tuple[int, Reply]]:
    """(whose, the digest) of each digest among the clock's posts."""
    return [
        (where.user.id, reply)
        for where, replies in posts
        if isinstance(where, Direct)
        for reply in replies
        if reply.title == "Your daily digest"
    ]


@pytest.fixture
def clock() -> Clock:
    return Clock(utc("2025-03-28T12:00:00"))


@pytest.fixture
async def house(storage: Storage, clock: Clock) -> AsyncIterator[House]:
    made = house_of(storage, clock=clock)
    yield made
    made.close()


async def duel(house: House, days: int = 7) -> None:
    """alice vs bob at Hokito, alice to move, `days` to do it."""
    setup = GameSetup("hokito", seed=1, seat="first", deadline_minutes=days * 24 * 60)
    await house.service.start(HERE, ALICE, setup, [BOB])
    await house.service.accept(HERE, BOB)


@pytest.mark.parametrize(
    "start",
    ["2025-03-28T12:00:00", "2025-10-24T12:00:00"],
    ids=["spring-forward", "fall-back"],
)
async def test_the_digest_comes_once_a_day_at_the_local_hour_across_daylight_saving(
    house: House, clock: Clock, start: str
) -> None:
    clock.now = utc(start)
    await duel(house)
    [shown] = await house.service.notify(ALICE, digest=True, hour=8, timezone="Europe/Warsaw")
    assert "Daily digest: on, at 08:00 (Europe/Warsaw)" in shown.text
    sent: list[float] = []
    for _ in range(4 * 24 * 4):  # four days, a tick every quarter of an hour
        clock.now += HOUR / 4
        sent += [clock.now for _ in digests_in(await house.service.expire_due())]
    local = [datetime.fromtimestamp(at, WARSAW) for at in sent]
    assert [(d.day, d.hour, d.minute) for d in local] == [(d.day, 8, 0) for d in local] and len(
        local
    ) == 4
    assert len({d.date() for d in local}) == 4  # one a day
    # The change between two of the days: one day of 23 or 25 hours between digests.
    gaps = sorted(round((b - a) / HOUR) for a, b in itertools.pairwise(sent))
    assert gaps in ([23, 24, 24], [24, 24, 25])


def test_the_next_digest_keeps_the_local_hour_and_never_repeats_one() -> None:
    # The clocks go forward at 02:00 on 2025-03-30 and back at 03:00 on 2025-10-26.
    saturday = utc("2025-03-29T07:00:00")  # 08:00 CET
    sunday = next_digest_at(saturday, 8, "Europe/Warsaw")
    assert sunday - saturday == 23 * HOUR
    assert datetime.fromtimestamp(sunday, WARSAW).hour == 8
    october = utc("2025-10-25T06:00:00")  # 08:00 CEST
    assert next_digest_at(october, 8, "Europe/Warsaw") - october == 25 * HOUR
    # An hour the change repeats comes once: the next after it is a day later.
    first = next_digest_at(utc("2025-10-25T23:30:00"), 2, "Europe/Warsaw")
    assert first == utc("2025-10-26T00:00:00")  # 02:00 CEST
    assert next_digest_at(first, 2, "Europe/Warsaw") == utc("2025-10-27T01:00:00")
    assert next_digest_at(utc("2025-01-01T08:00:00"), 8, "UTC") == utc("2025-01-02T08:00:00")


async def test_two_processes_ticking_together_send_a_digest_once(
    storage_target: str, clock: Clock
) -> None:
    storages = [await open_storage(storage_target) for _ in range(2)]
    houses = [house_of(s, clock=clock) for s in storages]
    try:
        await duel(houses[0])
        await houses[0].service.notify(ALICE, digest=True, hour=13, timezone="UTC")
        await houses[1].service.notify(BOB, digest=True, hour=13, timezone="UTC")
        clock.now = utc("2025-03-28T13:00:00")
        sent: list[tuple[int, Reply]] = []
        for _ in range(3):
            ticks = await asyncio.gather(*(h.service.expire_due() for h in houses * 2))
            sent += [d for posts in ticks for d in digests_in(posts)]
        # alice has a game waiting; bob has nothing to be told, so nothing is sent to him.
        assert [whose for whose, _ in sent] == [ALICE.id]
        rows = await storages[0].digests.due(utc("2025-03-29T13:00:00"))
        assert {r.user_id: r.next_at for r in rows} == {
            ALICE.id: utc("2025-03-29T13:00:00"),
            BOB.id: utc("2025-03-29T13:00:00"),
        }
    finally:
        for house, opened in zip(houses, storages, strict=True):
            house.close()
            await opened.close()


async def test_the_digest_lists_the_games_waiting_and_those_that_ended(
    house: House, clock: Clock
) -> None:
    service = house.service
    await service.notify(ALICE, digest=True, hour=8, timezone="UTC")
    await service.notify(CAROL, digest=True, hour=8, timezone="UTC")
    # Ended before the first digest's day began, but after it was turned on: told.
    await service.start(HERE, ALICE, GameSetup("hokito", seed=2, seat="first"), [CAROL])
    await service.accept(HERE, CAROL)
    for player in (ALICE, CAROL):
        [move, *_] = await service.suggest_moves(HERE, player, "")
        await service.move(HERE, player, move.value)
    clock.now += HOUR
    await service.resign(HERE, ALICE, confirmed=True)
    started = clock.now
    await duel(house, days=3)
    clock.now = utc("2025-03-29T08:00:00")
    [(_, alices), (_, carols)] = sorted(digests_in(await service.expire_due()), key=lambda d: d[0])
    deadline = int(started + 3 * DAY)
    assert "1 game waits for your move:" in alices.text
    assert f"- **Hokito** vs bob in <#{HERE.channel_id}>: your move since <t:{int(started)}:f>" in (
        alices.text
    )
    assert f"time runs out <t:{deadline}:R>." in alices.text
    assert "1 game ended:" in alices.text and "carol beat alice" in alices.text
    assert "waits for your move" not in carols.text and "carol beat alice" in carols.text
    # The next day: the game still waits; its end was told already.
    clock.now += DAY
    [(_, again), *_] = sorted(digests_in(await service.expire_due()), key=lambda d: d[0])
    assert "1 game waits for your move:" in again.text and "ended" not in again.text
    # carol has nothing new: nothing is sent to her.
    assert [w for w, _ in digests_in(await service.expire_due())] == []


async def test_with_the_digest_on_moves_do_not_ping_but_the_last_reminder_does(
    house: House, clock: Clock
) -> None:
    service = house.service
    await service.notify(BOB, digest=True)
    await duel(house, days=3)  # alice to move; bob (digest) waits
    start = clock.now
    [first, *_] = await service.suggest_moves(HERE, ALICE, "")
    [board, *_] = await service.move(HERE, ALICE, first.value)
    assert board.mentions == ()  # bob, to move now, takes the digest instead of pings
    clock.now = start + 1.5 * DAY + 1
    assert [r for _, replies in await service.expire_due() for r in replies if r.mentions] == []
    clock.now = start + 3 * DAY - HOUR + 1
    [(_, [last])] = [p for p in await service.expire_due() if not digests_in([p])]
    assert [u.name for u in last.mentions] == ["bob"]
    # bob moves: alice, without a digest, is pinged as ever.
    [move, *_] = await service.suggest_moves(HERE, BOB, "")
    [board, *_] = await service.move(HERE, BOB, move.value)
    assert [u.name for u in board.mentions] == ["alice"]


async def test_a_digest_turned_off_sends_nothing_and_pings_come_back(
    house: House, clock: Clock
) -> None:
    service = house.service
    await service.notify(ALICE, digest=True, hour=8, timezone="UTC")
    [shown] = await service.notify(ALICE, digest=False)
    assert "Daily digest: off" in shown.text
    await service.start(HERE, BOB, GameSetup("hokito", seed=1, seat="first"), [ALICE])
    [board] = await service.accept(HERE, ALICE)
    assert [u.name for u in board.mentions] == ["bob"]
    [first, *_] = await service.suggest_moves(HERE, BOB, "")
    [board, *_] = await service.move(HERE, BOB, first.value)
    assert [u.name for u in board.mentions] == ["alice"]
    sent = []
    for _ in range(3):
        clock.now += DAY
        sent += digests_in(await service.expire_due())
    assert sent == []


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        ({"hour": 24}, "hour: 24 is not an hour of the day; give one from 0 to 23"),
        ({"hour": -1, "digest": True}, "hour: -1 is not an hour of the day"),
        (
            {"timezone": "Mars/Olympus", "digest": True},
            "timezone: 'Mars/Olympus' is not a time zone; use a name like Europe/Warsaw or "
            "America/New_York.",
        ),
    ],
)
async def test_a_bad_hour_or_time_zone_is_refused_and_changes_nothing(
    house: House, storage: Storage, clock: Clock, change: dict[str, object], refusal: str
) -> None:
    service = house.service
    [before] = await service.notify(ALICE)
    with pytest.raises(ServiceError) as refused:
        await service.notify(ALICE, **change)  # type: ignore[arg-type]
    assert refusal in str(refused.value)
    [after] = await service.notify(ALICE)
    assert after.text == before.text and "Daily digest: off" in after.text
    assert await storage.digests.due(clock.now + 2 * DAY) == []


def test_time_zones_are_offered_by_what_was_typed() -> None:
    assert timezone_choices("warsaw") == ["Europe/Warsaw"]
    offered = timezone_choices("america/")
    assert len(offered) == 25 and all(z.startswith("America/") for z in offered)
    assert timezone_choices("Mars") == []
