"""Tournaments through the service: made, entered and started by command, every game in
a place of its own, and each round started by itself when the last game of the round
before ends, exactly once; byes, leavers and no-shows; bad input refused with a reason
and nothing changed."""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import AsyncIterator
from fractions import Fraction

import pytest

from data.events import (
    EntrantRecord,
    EventRecord,
    NewTable,
    SeatResult,
    TableRecord,
    WholeEvent,
)
from data.repository import UserRecord
from data.storage import Storage, open_storage
from host.events import words
from host.events.rounds import table_standings
from host.events.running import STARTING_LEASE
from host.events.service import EventSetup
from host.face import FrontEnd, House
from host.model import Channel, Direct, ServiceError, User
from host.payloads import Action
from tests.host.conftest import ADMIN
from tests.houses import BOT, house_of

HERE = Channel(700, 7, "tournaments")
PEOPLE = [
    User(2000 + i, name)
    for i, name in enumerate(["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"])
]


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def house(sqlite_storage: Storage, clock: Clock) -> AsyncIterator[House]:
    made = house_of(sqlite_storage, clock=clock)
    yield made
    made.close()


async def whole(house: House, event_id: int) -> WholeEvent:
    found = await house.events.repository.whole(event_id)
    assert found is not None
    return found


async def made(house: House, setup: EventSetup, people: list[User]) -> int:
    [announced] = await house.events.create(HERE, ADMIN, setup)
    event_id = int(announced.footer.rsplit("#", 1)[1])
    for person in people:
        await house.events.join(HERE, person, event_id)
    return event_id


def thread_of(table_thread: int | None) -> Channel:
    assert table_thread is not None
    return Channel(table_thread, HERE.guild_id)


async def play_round(house: House, event_id: int, loser: dict[frozenset[int], int]) -> None:
    """Every game of the round under way: each player moves once, then the loser given
    for the pair resigns (the first seat if none is given)."""
    event = await whole(house, event_id)
    for table in event.round_tables(event.event.round):
        if table.bye or table.decided_at is not None:
            continue
        where = thread_of(table.thread_id)
        seated = [PEOPLE_BY_ID[uid] for uid in table.user_ids]
        for player in seated:
            [move, *_] = await house.service.suggest_moves(where, player, "")
            await house.service.move(where, player, move.value)
        resigner = loser.get(frozenset(table.user_ids), table.user_ids[0])
        await house.service.resign(where, PEOPLE_BY_ID[resigner], confirmed=True)


PEOPLE_BY_ID = {p.id: p for p in PEOPLE}


async def test_a_round_robin_of_four_meets_every_pair_once_and_ranks_by_points(
    house: House,
) -> None:
    four = PEOPLE[:4]
    event_id = await made(house, EventSetup("hokito", "round-robin", name="Club"), four)
    started = await house.events.start(HERE, ADMIN, event_id)
    # The round is posted in the tournament's channel, naming each game's thread.
    [round_post] = [r for r in started if r.where == Channel(HERE.channel_id, HERE.guild_id)]
    assert "Club: round 1 of 3" in round_post.title
    assert {u.name for u in round_post.mentions} == {"alice", "bob", "carol", "dave"}
    # The earlier entrant wins every game.
    rank = {p.id: i for i, p in enumerate(four)}
    for _ in range(3):
        event = await whole(house, event_id)
        losers = {
            frozenset(t.user_ids): max(t.user_ids, key=rank.__getitem__)
            for t in event.round_tables(event.event.round)
        }
        await play_round(house, event_id, losers)
    event = await whole(house, event_id)
    assert event.event.state == "finished" and event.event.round == 3
    pairs = Counter(frozenset(t.user_ids) for t in event.tables if not t.bye)
    assert set(pairs) == {frozenset(p) for p in itertools.combinations([p.id for p in four], 2)}
    assert set(pairs.values()) == {1}
    rows = table_standings(event)
    assert [(r.name, r.points) for r in rows] == [
        ("alice", 3),
        ("bob", 2),
        ("carol", 1),
        ("dave", 0),
    ]
    assert not any(t.forfeit for t in event.tables)  # every game was played
    # /history names the tournament beside each of its games, /profile the tournament.
    [history] = await house.service.finished(HERE, four[0], viewer=four[0])
    assert history.text.count("Club, round ") == 3
    [profile] = await house.ratings.profile(HERE, four[0], None, None)
    assert ("Tournaments", "Club · finished") in profile.fields


async def test_a_swiss_of_seven_gives_one_bye_a_round_never_twice_and_no_rematch(
    house: House,
) -> None:
    seven = PEOPLE[:7]
    event_id = await made(house, EventSetup("hokito", "swiss", rounds=3), seven)
    await house.events.start(HERE, ADMIN, event_id)
    for round_ in range(1, 4):
        event = await whole(house, event_id)
        assert event.event.round == round_
        tables = event.round_tables(round_)
        byes = [t for t in tables if t.bye]
        assert len(byes) == 1 and len([t for t in tables if not t.bye]) == 3
        # Pairs within score groups as far as the groups allow: at most one pair of
        # players whose points differ when the groups are all of an even count but one.
        points = {r.user_id: r.points for r in table_standings(event)}
        games = [t for t in tables if not t.bye]
        across = [t for t in games if points[t.user_ids[0]] != points[t.user_ids[1]]]
        groups = Counter(points[uid] for t in games for uid in t.user_ids)
        odd_groups = sum(1 for n in groups.values() if n % 2)
        assert len(across) <= max(odd_groups // 2, 0) + (1 if odd_groups % 2 else 0)
        await play_round(house, event_id, {})
    event = await whole(house, event_id)
    assert event.event.state == "finished"
    bye_holders = [t.user_ids[0] for t in event.tables if t.bye]
    assert len(bye_holders) == 3 and len(set(bye_holders)) == 3
    met = Counter(frozenset(t.user_ids) for t in event.tables if not t.bye)
    assert set(met.values()) == {1}
    # A bye is worth a win.
    row = next(r for r in table_standings(event) if r.user_id == bye_holders[0])
    assert row.byes == 1 and row.points >= 1


async def test_a_player_who_loses_without_moving_is_out_until_they_join_again(
    house: House,
) -> None:
    four = PEOPLE[:4]
    event_id = await made(house, EventSetup("hokito", "swiss", rounds=3), four)
    await house.events.start(HERE, ADMIN, event_id)
    event = await whole(house, event_id)
    no_show_table = event.round_tables(1)[0]
    no_show = PEOPLE_BY_ID[no_show_table.user_ids[1]]
    where = thread_of(no_show_table.thread_id)
    first = PEOPLE_BY_ID[no_show_table.user_ids[0]]
    [move, *_] = await house.service.suggest_moves(where, first, "")
    await house.service.move(where, first, move.value)
    replies = await house.service.resign(where, no_show, confirmed=True)
    told = "\n".join(r.text for r in replies)
    assert f"{no_show.name} lost without moving and is out of later rounds" in told
    await play_round(house, event_id, {})
    event = await whole(house, event_id)
    decided = event.table(1, no_show_table.board)
    assert decided is not None and decided.forfeit
    assert event.event.round == 2
    assert all(no_show.id not in t.user_ids for t in event.round_tables(2))
    assert next(e for e in event.entrants if e.user.id == no_show.id).state == "absent"
    # The game was never played: aborted, so never rated.
    game = await house.service.repository.get_game(no_show_table.game_id or 0)
    assert game is not None and game.status == "aborted"
    # They come back before the next round, and are paired in it.
    [back] = await house.events.join(HERE, no_show, event_id)
    assert "back in" in back.text
    await play_round(house, event_id, {})
    event = await whole(house, event_id)
    assert any(no_show.id in t.user_ids for t in event.round_tables(3))


async def test_a_leaver_forfeits_the_game_in_play_and_is_not_paired_again(house: House) -> None:
    four = PEOPLE[:4]
    event_id = await made(house, EventSetup("hokito", "swiss", rounds=3), four)
    await house.events.start(HERE, ADMIN, event_id)
    event = await whole(house, event_id)
    table = event.round_tables(1)[0]
    where = thread_of(table.thread_id)
    for uid in table.user_ids:
        [move, *_] = await house.service.suggest_moves(where, PEOPLE_BY_ID[uid], "")
        await house.service.move(where, PEOPLE_BY_ID[uid], move.value)
    leaver = PEOPLE_BY_ID[table.user_ids[0]]
    replies = await house.events.leave(HERE, leaver, event_id)
    assert f"{leaver.name} left" in replies[0].text
    # The resignation is told in the game's own place.
    assert any(r.where == where for r in replies[1:])
    event = await whole(house, event_id)
    decided = event.table(1, table.board)
    assert decided is not None and [s.place for s in decided.seats] == [2, 1]
    await play_round(house, event_id, {})
    event = await whole(house, event_id)
    assert event.event.round == 2
    assert all(leaver.id not in t.user_ids for t in event.round_tables(2))
    rows = {r.user_id: r for r in table_standings(event)}
    assert not rows[leaver.id].playing and rows[table.user_ids[1]].points >= 1
    with pytest.raises(ServiceError, match="cannot enter it again"):
        await house.events.join(HERE, leaver, event_id)


async def test_an_everest_table_event_seats_tables_of_three(house: House) -> None:
    six = PEOPLE[:6]
    event_id = await made(house, EventSetup("everest", "swiss", rounds=2, table=3), six)
    await house.events.start(HERE, ADMIN, event_id)
    event = await whole(house, event_id)
    tables = event.round_tables(1)
    assert [len(t.seats) for t in tables] == [3, 3]
    # An admin ends each game: a draw at the table, not played, so not rated.
    for table in tables:
        await house.service.admin_end(thread_of(table.thread_id), ADMIN)
    event = await whole(house, event_id)
    assert event.event.round == 2
    first = event.round_tables(1)
    assert all(t.forfeit and [s.place for s in t.seats] == [1, 1, 1] for t in first)
    rows = table_standings(event)
    assert {r.points for r in rows} == {Fraction(1, 2)}


async def test_a_hillbert_cup_plays_one_hill_and_ranks_by_score(house: House, clock: Clock) -> None:
    three = PEOPLE[:3]
    event_id = await made(house, EventSetup("hillbert", "cup", deadline_minutes=60), three)
    await house.events.start(HERE, ADMIN, event_id)
    event = await whole(house, event_id)
    games = [await house.service.loaded(t.game_id or 0) for t in event.round_tables(1)]
    assert len({g.record.snapshot for g in games}) == 1  # the same hill for everyone
    assert len({g.record.seed for g in games}) == 1
    # alice plays two turns, bob one, carol none; then the window closes.
    for person, turns in ((three[0], 2), (three[1], 1)):
        table = next(t for t in event.round_tables(1) if t.user_ids == (person.id,))
        for _ in range(turns):
            [move, *_] = await house.service.suggest_moves(thread_of(table.thread_id), person, "")
            await house.service.move(thread_of(table.thread_id), person, move.value)
    clock.now += 61 * 60
    posts = await house.service.expire_due()
    event = await whole(house, event_id)
    assert event.event.state == "finished"
    assert any("final standings" in r.title for _, replies in posts for r in replies)
    [reply] = await house.events.standings(HERE, PEOPLE[0], event_id)
    table = reply.text.split("```")[1].splitlines()
    # carol never began her run: she is last, her run not finished; the others by score.
    assert table[-1].split()[:2] == ["3", "carol"] and "not finished" in table[-1]
    event = await whole(house, event_id)
    runs = {t.seats[0].user_id: t.seats[0] for t in event.round_tables(1)}
    assert runs[three[0].id].turns == 2 and runs[three[1].id].turns == 1
    assert runs[three[2].id].score is None


@pytest.mark.parametrize(
    ("setup", "refusal"),
    [
        (EventSetup("chess", "swiss"), "There is no game 'chess'"),
        (EventSetup("hokito", "arena"), "'arena' is not a format"),
        (EventSetup("hokito", "swiss", table=3), "Hokito is played by 2 to 2 players, not 3"),
        (EventSetup("hokito", "swiss", rounds=21), "give 1 to 20 rounds, not 21"),
        (EventSetup("hokito", "round-robin", rounds=3), "only a Swiss is given its rounds"),
        (EventSetup("everest", "round-robin", table=4), "a round robin is played in games of two"),
        (EventSetup("hillbert", "swiss"), "its tournament is a cup"),
        (EventSetup("hokito", "cup"), "A cup is for a game played alone"),
    ],
)
async def test_a_tournament_that_cannot_be_made_is_refused(
    house: House, setup: EventSetup, refusal: str
) -> None:
    with pytest.raises(ServiceError, match=refusal):
        await house.events.create(HERE, ADMIN, setup)
    assert await house.events.repository.of_guild(HERE.guild_id or 0) == []


async def test_commands_refused_with_their_reason_change_nothing(house: House) -> None:
    alice, bob = PEOPLE[:2]
    with pytest.raises(ServiceError, match="Only server admins"):
        await house.events.create(HERE, alice, EventSetup("hokito", "swiss"))
    event_id = await made(house, EventSetup("hokito", "swiss"), [alice])
    with pytest.raises(ServiceError, match="already entered"):
        await house.events.join(HERE, alice, event_id)
    with pytest.raises(ServiceError, match="at least 2 entrants to start; it has 1"):
        await house.events.start(HERE, ADMIN, event_id)
    with pytest.raises(ServiceError, match="Only server admins"):
        await house.events.start(HERE, alice, event_id)
    with pytest.raises(ServiceError, match="bob is not entered"):
        await house.events.remove(HERE, ADMIN, bob, event_id)
    with pytest.raises(ServiceError, match="no tournament #999"):
        await house.events.standings(HERE, alice, 999)
    await house.events.join(HERE, bob)  # the channel's one open event
    # Two starts at once: one starts it, the other is told it has started.
    outcomes = await asyncio.gather(
        house.events.start(HERE, ADMIN, event_id),
        house.events.start(HERE, ADMIN, event_id),
        return_exceptions=True,
    )
    refused = [o for o in outcomes if isinstance(o, ServiceError)]
    assert len(refused) == 1 and "has already started" in str(refused[0].text)
    event = await whole(house, event_id)
    assert len(event.round_tables(1)) == 1
    with pytest.raises(ServiceError, match="entries are closed"):
        await house.events.join(HERE, PEOPLE[2], event_id)


async def test_the_join_button_enters_and_updates_the_announcement(house: House) -> None:
    [announced] = await house.events.create(HERE, ADMIN, EventSetup("hokito", "swiss"))
    join = next(c for c in announced.actions if c.payload.action is Action.EVENT_JOIN)
    [updated] = await house.service.press(HERE, PEOPLE[0], join.payload)
    assert updated.edit and "alice" in updated.text
    with pytest.raises(ServiceError, match="already entered"):
        await house.service.press(HERE, PEOPLE[0], join.payload)


async def test_a_round_is_started_once_when_two_processes_race_for_it(
    storage_target: str, clock: Clock
) -> None:
    """Two processes on one database see the last result of a round: one starts the next
    round; and a process that died between the last result and the next round leaves it
    to the clock of the process after it."""
    first_storage = await open_storage(storage_target)
    second_storage = await open_storage(storage_target)
    first = house_of(first_storage, clock=clock)
    second = house_of(second_storage, clock=clock)
    try:
        event_id = await made(first, EventSetup("hokito", "swiss", rounds=3), PEOPLE[:4])
        await first.events.start(HERE, ADMIN, event_id)
        event = await whole(first, event_id)
        # Every table decided behind the services' backs, as a process killed after its
        # last result and before the next round would leave it.
        for table in event.round_tables(1):
            await first.events.repository.decide_table(
                event_id,
                1,
                table.board,
                [
                    SeatResult(s.user_id, place)
                    for s, place in zip(table.seats, (1, 2), strict=True)
                ],
                clock.now,
                forfeit=False,
            )
        await asyncio.gather(first.service.expire_due(), second.service.expire_due())
        event = await whole(second, event_id)
        assert event.event.round == 2
        assert len(event.round_tables(2)) == 2
        assert all(t.game_id is not None for t in event.round_tables(2))
        started = [t.game_id for t in event.round_tables(2)]
        await asyncio.gather(first.service.expire_due(), second.service.expire_due())
        again = await whole(first, event_id)
        assert [t.game_id for t in again.round_tables(2)] == started
        assert again.event.round == 2
    finally:
        first.close()
        second.close()
        await first_storage.close()
        await second_storage.close()


async def test_a_round_paired_before_a_crash_gets_its_games_from_the_clock(
    house: House, clock: Clock
) -> None:
    """A process that paired a round and died before starting its games: the next
    process's clock starts them once the dead one's claim has run out, and posts the
    round."""
    event_id = await made(house, EventSetup("hokito", "swiss", rounds=2), PEOPLE[:4])
    repository = house.events.repository
    event = await repository.get(event_id)
    assert event is not None
    claimed = [
        NewTable(1, (PEOPLE[0].id, PEOPLE[1].id)),
        NewTable(2, (PEOPLE[2].id, PEOPLE[3].id)),
    ]
    assert await repository.start_round(event_id, 1, claimed, clock.now, rounds=2)
    assert await repository.claim_table(event_id, 1, 1, clock.now, STARTING_LEASE)
    # Table 2 is nobody's: started at once; table 1 waits for the dead claim to run out.
    posts = await house.service.expire_due()
    started = await whole(house, event_id)
    assert [t.game_id is not None for t in started.round_tables(1)] == [False, True]
    clock.now += STARTING_LEASE + 1
    posts += await house.service.expire_due()
    started = await whole(house, event_id)
    assert all(t.game_id is not None for t in started.round_tables(1))
    rounds_posted = [r for _, replies in posts for r in replies if "round 1 of 2" in r.title]
    assert len(rounds_posted) == 2  # each time games started, the round is posted
    # Nothing more is due: the clock starts no game twice.
    assert await house.service.expire_due() == []


async def test_players_who_take_direct_messages_hear_of_their_round(house: House) -> None:
    alice, bob, carol = PEOPLE[:3]
    await house.service.notify(alice, dm=True)
    event_id = await made(house, EventSetup("hokito", "swiss", rounds=2), [alice, bob, carol])
    started = await house.events.start(HERE, ADMIN, event_id)
    direct = [r for r in started if isinstance(r.where, Direct)]
    assert [r.where.user.name for r in direct if isinstance(r.where, Direct)] == ["alice"]
    assert "Round 1 of" in direct[0].text or "bye in round 1" in direct[0].text


async def test_a_round_whose_threads_are_refused_says_so_once(
    sqlite_storage: Storage, clock: Clock
) -> None:
    refusing = True

    async def threads(parent: Channel, name: str) -> Channel:
        if refusing:
            raise ServiceError("I lack the Create Public Threads permission.")
        return Channel(hash(name) & 0xFFFFFFFF, parent.guild_id, name)

    front = FrontEnd(BOT, make_thread=threads)
    house = house_of(sqlite_storage, clock=clock, front=front)
    try:
        event_id = await made(house, EventSetup("hokito", "swiss", rounds=1), PEOPLE[:2])
        started = await house.events.start(HERE, ADMIN, event_id)
        assert any("could not start every game" in r.text for r in started)
        clock.now += STARTING_LEASE + 1
        assert await house.service.expire_due() == []  # tried again, quietly
        refusing = False
        clock.now += STARTING_LEASE + 1
        posts = await house.service.expire_due()
        assert any("round 1 of 1" in r.title for _, replies in posts for r in replies)
        event = await whole(house, event_id)
        assert event.round_tables(1)[0].game_id is not None
    finally:
        house.close()


def test_a_big_events_posts_fit_discords_limits() -> None:
    """500 entrants with the longest names Discord allows: every post about the event
    stays within an embed's limits (title 256, text 4,096, footer 2,048 characters)."""
    people = [UserRecord(10_000 + i, f"{i:03d}" + "x" * 29) for i in range(500)]
    event = EventRecord(
        1,
        7,
        700,
        "hokito",
        "swiss",
        "N" * 60,
        2,
        9,
        1440,
        1,
        "running",
        1,
        1,
        0.0,
        0.0,
        0.0,
        None,
        None,
    )
    entrants = tuple(EntrantRecord(p, i + 1, "in", 0.0) for i, p in enumerate(people))
    tables = tuple(
        TableRecord(
            1,
            b + 1,
            (SeatResult(people[2 * b].id, None), SeatResult(people[2 * b + 1].id, None)),
            False,
            5000 + b,
            9_000_000_000 + b,
            False,
            None,
        )
        for b in range(250)
    )
    whole = WholeEvent(event, entrants, tables)
    posts = [
        words.round_post(whole, 1, words.people_of(whole)),
        words.pairings_reply(whole, 1),
        words.announcement(WholeEvent(event, entrants, ())),
        words.standings_reply(whole),
        words.final_post(whole),
    ]
    for post in posts:
        assert len(post.title) <= 256 and len(post.text) <= 4096 and len(post.footer) <= 2048
    assert "… and 210 more tables" in posts[0].text
    assert len(posts[0].mentions) == 0 and len(posts[0].followers) == 500
