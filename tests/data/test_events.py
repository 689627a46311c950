"""Events' storage on each backend: what only one process may do is done once (a round's
start, a table's game, a table's result), and entering and leaving follow the event's
state."""

from __future__ import annotations

import asyncio

from data.events import NewEvent, NewTable, SeatResult
from data.repository import NewGame, OneServer, Shards, UserRecord
from data.storage import Storage, open_storage

ADMIN = UserRecord(1, "admin")
ALICE = UserRecord(11, "alice")
BOB = UserRecord(12, "bob")
CAROL = UserRecord(13, "carol")
GUILD = 5 << 22  # shard 5 % count


def new_event(**changes: object) -> NewEvent:
    fields: dict[str, object] = {
        "guild_id": GUILD,
        "channel_id": 700,
        "game": "hokito",
        "format": "swiss",
        "name": "Spring",
        "table_size": 2,
        "rounds": None,
        "deadline_minutes": None,
        "seed": 9,
        "created_by": ADMIN,
    }
    fields.update(changes)
    return NewEvent(**fields)  # type: ignore[arg-type]


def table_game(channel: int, *players: UserRecord) -> NewGame:
    return NewGame(
        game="hokito",
        guild_id=GUILD,
        channel_id=channel,
        status="active",
        seed=42,
        variant=None,
        rules_version=1,
        start_position=None,
        snapshot="start",
        created_by=ADMIN,
        seats=tuple((p, True) for p in players),
        options={},
    )


async def test_entering_follows_the_events_state(storage: Storage) -> None:
    events = storage.events
    event = await events.create(new_event(), 10.0)
    assert event.state == "open" and event.round == 0 and event.name == "Spring"
    assert await events.join(event.id, ALICE, 11.0)
    assert not await events.join(event.id, ALICE, 12.0)  # in already
    assert await events.join(event.id, BOB, 13.0)
    assert await events.join(event.id, CAROL, 14.0)
    assert await events.leave(event.id, CAROL.id, "left")  # struck off before the start
    assert not await events.leave(event.id, CAROL.id, "left")
    whole = await events.whole(event.id)
    assert whole is not None
    assert [(e.user.name, e.entry, e.state) for e in whole.entrants] == [
        ("alice", 1, "in"),
        ("bob", 2, "in"),
    ]
    assert await events.start_round(event.id, 1, [NewTable(1, (ALICE.id, BOB.id))], 20.0, rounds=3)
    assert not await events.join(event.id, CAROL, 21.0)  # started
    assert await events.leave(event.id, BOB.id, "left")
    whole = await events.whole(event.id)
    assert whole is not None
    assert [e.state for e in whole.entrants] == ["in", "left"]
    assert whole.event.state == "running" and whole.event.rounds == 3


async def test_a_round_starts_once_and_only_after_every_table_is_decided(
    storage: Storage,
) -> None:
    events = storage.events
    event = await events.create(new_event(), 10.0)
    for user in (ALICE, BOB, CAROL):
        await events.join(event.id, user, 11.0)
    first = [NewTable(1, (ALICE.id, BOB.id)), NewTable(2, (CAROL.id,), bye=True)]
    assert await events.start_round(event.id, 1, first, 20.0, rounds=2)
    assert not await events.start_round(event.id, 1, first, 21.0, rounds=2)
    second = [NewTable(1, (CAROL.id, ALICE.id)), NewTable(2, (BOB.id,), bye=True)]
    assert not await events.start_round(event.id, 2, second, 22.0)  # board 1 undecided
    game = await events.start_table(event.id, 1, 1, table_game(801, ALICE, BOB), 23.0)
    assert game is not None and [s.user.id for s in game.seats] == [ALICE.id, BOB.id]
    again = await events.start_table(event.id, 1, 1, table_game(802, ALICE, BOB), 24.0)
    assert again is None  # its game exists: nothing else was stored
    assert await storage.games.live_game_in_channel(802) is None
    assert (await events.of_games([game.id]))[game.id].board == 1
    results = [SeatResult(ALICE.id, 2), SeatResult(BOB.id, 1)]
    assert await events.decide_table(event.id, 1, 1, results, 30.0, forfeit=True, absent=[11])
    assert not await events.decide_table(event.id, 1, 1, results, 31.0, forfeit=False)
    # Both processes see the round complete; one makes the next.
    made = await asyncio.gather(
        events.start_round(event.id, 2, second, 32.0), events.start_round(event.id, 2, second, 32.0)
    )
    assert sorted(made) == [False, True]
    whole = await events.whole(event.id)
    assert whole is not None
    [played, bye] = whole.round_tables(1)
    assert played.forfeit and played.decided_at == 30.0 and played.game_id == game.id
    assert [(s.user_id, s.place) for s in played.seats] == [(ALICE.id, 2), (BOB.id, 1)]
    assert bye.bye and bye.decided_at == 20.0 and bye.seats[0].place == 1
    assert [t.board for t in whole.round_tables(2)] == [1, 2]
    assert next(e for e in whole.entrants if e.user.id == ALICE.id).state == "absent"
    # An absent player may join again while the event runs.
    assert await events.join(event.id, ALICE, 33.0)
    assert not await events.join(event.id, ALICE, 34.0)


async def test_a_tables_start_is_claimed_by_one_process_for_a_while(storage: Storage) -> None:
    events = storage.events
    event = await events.create(new_event(), 10.0)
    await events.join(event.id, ALICE, 11.0)
    await events.join(event.id, BOB, 11.0)
    await events.start_round(event.id, 1, [NewTable(1, (ALICE.id, BOB.id))], 20.0, rounds=1)
    assert await events.claim_table(event.id, 1, 1, 21.0, lease=60)
    assert not await events.claim_table(event.id, 1, 1, 50.0, lease=60)
    assert await events.claim_table(event.id, 1, 1, 82.0, lease=60)  # the first never finished
    await events.set_thread(event.id, 1, 1, 9000)
    whole = await events.whole(event.id)
    assert whole is not None and whole.tables[0].thread_id == 9000


async def test_events_are_listed_by_server_channel_and_shard(storage: Storage) -> None:
    events = storage.events
    made = [await events.create(new_event(name=f"e{i}"), float(i)) for i in range(3)]
    other = await events.create(new_event(guild_id=(6 << 22), channel_id=701), 5.0)
    assert [e.id for e in await events.of_guild(GUILD)] == [e.id for e in reversed(made)]
    assert [e.id for e in await events.of_guild(GUILD, before=made[2].id)] == [
        made[1].id,
        made[0].id,
    ]
    assert [e.id for e in await events.live_in_channel(701)] == [other.id]
    for event in (made[0], other):
        await events.join(event.id, ALICE, 6.0)
        await events.join(event.id, BOB, 6.0)
        await events.start_round(event.id, 1, [NewTable(1, (ALICE.id, BOB.id))], 7.0, rounds=1)
    assert await events.running() == [made[0].id, other.id]
    assert await events.running(Shards((5,), 8)) == [made[0].id]
    assert await events.running(OneServer(6 << 22)) == [other.id]
    assert [e.id for e in await events.entered(ALICE.id)] == [other.id, made[0].id]
    assert await events.finish(made[0].id, "finished", 9.0)
    assert not await events.finish(made[0].id, "ended", 10.0)
    assert await events.running() == [other.id]
    assert [e.id for e in await events.live_in_channel(700)] == [made[2].id, made[1].id]


async def test_two_processes_race_for_a_round_once(storage_target: str) -> None:
    """Two processes on one database, each with its own connections, start the same next
    round at once: one does."""
    first, second = await open_storage(storage_target), await open_storage(storage_target)
    try:
        event = await first.events.create(new_event(), 10.0)
        for user in (ALICE, BOB):
            await first.events.join(event.id, user, 11.0)
        await first.events.start_round(
            event.id, 1, [NewTable(1, (ALICE.id, BOB.id))], 12.0, rounds=2
        )
        await first.events.decide_table(
            event.id, 1, 1, [SeatResult(ALICE.id, 1), SeatResult(BOB.id, 2)], 13.0, forfeit=False
        )
        next_round = [NewTable(1, (BOB.id, ALICE.id))]
        made = await asyncio.gather(
            first.events.start_round(event.id, 2, next_round, 14.0),
            second.events.start_round(event.id, 2, next_round, 14.0),
        )
        assert sorted(made) == [False, True]
        whole = await second.events.whole(event.id)
        assert whole is not None and len(whole.round_tables(2)) == 1
    finally:
        await first.close()
        await second.close()
