"""A person who resigns from a game of three or four leaves their seats to a computer,
and the game stays in their history: each seat keeps who left it (`left_by`), a player's
pages list the games of the seats they hold and of those they left, once each and in the
order the games ended; and the schema's migration finds who left the seats of games
stored before, on both databases."""

from __future__ import annotations

import json
from typing import Any

from data.repository import GameRepository, HandOver, NewGame, UserRecord
from data.results import Ending, GameResult
from data.storage import Storage, open_storage
from tests.data.schema_before import Statements, database_before

ALICE = UserRecord(1, "alice")
BOB = UserRecord(2, "bob")
CAROL = UserRecord(3, "carol")
COMPUTER = UserRecord(99, "hilltop", is_bot=True)
OTHER_COMPUTER = UserRecord(98, "hilltop 2", is_bot=True)
GUILD = 5


def everest(channel: int, *players: UserRecord, guild_id: int = GUILD) -> NewGame:
    return NewGame(
        game="everest",
        guild_id=guild_id,
        channel_id=channel,
        status="active",
        seed=11,
        variant=None,
        rules_version=1,
        start_position=None,
        snapshot="start",
        created_by=players[0],
        seats=tuple((player, True) for player in players),
        options={"level": "easy"},
    )


async def resign(
    repo: GameRepository, game_id: int, user: UserRecord, now: float, *, last: bool = False
) -> None:
    """`user` resigns as the service has them: a computer takes their seats, which the
    options list with them; the last person's resignation ends the game."""
    record = await repo.get_game(game_id)
    assert record is not None
    seats = record.seats_of(user.id)
    options = dict(record.options)
    options["taken_over"] = [*options.get("taken_over", []), *seats]
    options["resigned"] = [*options.get("resigned", []), user.id]
    if last:
        result = GameResult(Ending.RESIGNED, by=seats)
        hand_over = HandOver(seats, COMPUTER, options)
        await repo.close_game(game_id, record.ply, "aborted", result, now, hand_over=hand_over)
    else:
        await repo.replace_seats(game_id, seats, COMPUTER, options)


async def finish(repo: GameRepository, game_id: int, now: float) -> None:
    result = GameResult(Ending.RULES, (1,))
    await repo.close_game(game_id, 0, "finished", result, now)


async def history(repo: GameRepository, user: UserRecord, limit: int = 10, **cut: int) -> list[int]:
    return [g.id for g in await repo.finished_games(GUILD, user.id, None, limit, **cut)]


async def left_by(storage: Storage, game_id: int) -> list[int | None]:
    rows = await storage.database.fetch(
        f"SELECT left_by FROM seats WHERE game_id = {game_id:d} ORDER BY seat"
    )
    return [row[0] for row in rows]


async def test_a_resigner_against_computers_finds_the_game_in_their_history_once(
    storage: Storage,
) -> None:
    repo = storage.games
    game = await repo.create_game(everest(10, ALICE, COMPUTER, COMPUTER, COMPUTER), now=1.0)
    await resign(repo, game.id, ALICE, now=2.0, last=True)
    stored = await repo.get_game(game.id)
    assert stored is not None and [s.user for s in stored.seats] == [COMPUTER] * 4
    assert await history(repo, ALICE) == [game.id]
    assert await left_by(storage, game.id) == [ALICE.id, None, None, None]
    [listed] = await repo.finished_games(GUILD, ALICE.id, None, 10)
    assert listed == stored
    assert await history(repo, COMPUTER) == [game.id]  # its holder's, as before
    assert await repo.live_games_of_user(ALICE.id) == []


async def test_players_who_resign_one_after_another_each_find_the_game(
    storage: Storage,
) -> None:
    repo = storage.games
    game = await repo.create_game(everest(10, ALICE, BOB, CAROL, COMPUTER), now=1.0)
    await resign(repo, game.id, ALICE, now=2.0)
    # The game goes on: not yet in anyone's history, and no longer alice's to play.
    assert await history(repo, ALICE) == []
    assert [g.id for g in await repo.live_games_of_user(BOB.id)] == [game.id]
    assert await repo.live_games_of_user(ALICE.id) == []
    await resign(repo, game.id, BOB, now=3.0)
    await finish(repo, game.id, now=4.0)
    for player in (ALICE, BOB, CAROL):
        assert await history(repo, player) == [game.id], player
    assert await left_by(storage, game.id) == [ALICE.id, BOB.id, None, None]


async def test_a_player_who_left_two_seats_finds_the_game_once(storage: Storage) -> None:
    repo = storage.games
    game = await repo.create_game(everest(10, ALICE, BOB, ALICE, COMPUTER), now=1.0)
    await resign(repo, game.id, ALICE, now=2.0)
    await finish(repo, game.id, now=3.0)
    assert await history(repo, ALICE) == [game.id]
    assert await history(repo, ALICE, 1) == [game.id]
    assert await left_by(storage, game.id) == [ALICE.id, None, ALICE.id, None]


async def test_a_seat_taken_over_again_keeps_who_left_it_first(storage: Storage) -> None:
    repo = storage.games
    game = await repo.create_game(everest(10, ALICE, BOB, COMPUTER, COMPUTER), now=1.0)
    await resign(repo, game.id, ALICE, now=2.0)
    record = await repo.replace_seats(game.id, (0, 2), OTHER_COMPUTER, {"level": "easy"})
    assert [s.user for s in record.seats] == [OTHER_COMPUTER, BOB, OTHER_COMPUTER, COMPUTER]
    # A computer's seat that changes hands was left by no person.
    assert await left_by(storage, game.id) == [ALICE.id, None, None, None]


async def test_pages_of_held_and_left_games_follow_on_in_order_of_their_end(
    storage: Storage,
) -> None:
    repo = storage.games
    channels = iter(range(100, 200))

    async def held(at: float) -> int:
        game = await repo.create_game(everest(next(channels), ALICE, BOB, CAROL), now=at - 1)
        await finish(repo, game.id, at)
        return game.id

    async def left(at: float, *players: UserRecord, guild_id: int = GUILD) -> int:
        new = everest(next(channels), *players, guild_id=guild_id)
        game = await repo.create_game(new, now=at - 1)
        await resign(repo, game.id, ALICE, at - 0.5)
        await finish(repo, game.id, at)
        return game.id

    a = await held(1.0)
    b = await left(2.0, ALICE, BOB, CAROL)
    c = await held(3.0)
    d = await left(3.0, BOB, ALICE, CAROL)  # ends with c: told apart by their ids
    e = await left(5.0, ALICE, BOB, ALICE)
    f = await held(4.0)
    g = await left(6.0, BOB, CAROL, ALICE)
    await left(7.0, ALICE, BOB, CAROL, guild_id=GUILD + 1)  # another server's
    live = await repo.create_game(everest(next(channels), ALICE, BOB, CAROL), now=8.0)
    await resign(repo, live.id, ALICE, 8.5)  # left, but not over
    bobs = await repo.create_game(everest(next(channels), BOB, CAROL, COMPUTER), now=8.0)
    await finish(repo, bobs.id, 9.0)
    newest_first = [g, e, f, d, c, b, a]

    assert await history(repo, ALICE) == newest_first
    assert await history(repo, ALICE, 3) == newest_first[0:3]
    assert await history(repo, ALICE, 3, older_than=newest_first[2]) == newest_first[3:6]
    assert await history(repo, ALICE, 3, older_than=newest_first[5]) == newest_first[6:]
    assert await history(repo, ALICE, 3, older_than=a) == []
    assert await history(repo, ALICE, 3, newer_than=a) == newest_first[3:6]
    assert await history(repo, ALICE, 3, newer_than=newest_first[3]) == newest_first[0:3]
    assert await history(repo, ALICE, 3, newer_than=e) == [g]
    assert await history(repo, ALICE, 2, older_than=c) == [b, a]
    assert await history(repo, ALICE, 2, newer_than=c) == [f, d]
    assert await history(repo, BOB) == [bobs.id, *newest_first]


# --- the migration ------------------------------------------------------------------------

#: The schema version before seats kept who left them.
BEFORE = 12
USERS = [(1, "alice", 0), (2, "bob", 0), (3, "carol", 0), (99, "hilltop", 1)]
#: id, who sits in each seat now, the options, (seat, user) of each move, when it ended.
GAMES: list[tuple[int, tuple[int, ...], dict[str, Any], list[tuple[int, int]], float]] = [
    # alice alone against computers: her one seat.
    (1, (99, 99, 99, 99), {"taken_over": [0], "resigned": [1]}, [], 10.0),
    # bob, then alice, each from one seat.
    (2, (99, 99, 3, 99), {"taken_over": [1, 0], "resigned": [2, 1]}, [], 20.0),
    # alice left two seats, then bob one: the first seat is alice's, the last bob's, and
    # the one between is known from the move alice made from it.
    (3, (99, 99, 99, 3), {"taken_over": [0, 2, 1], "resigned": [1, 2]}, [(2, 1)], 30.0),
    # The same without a move: the seat between cannot be told.
    (4, (99, 99, 99, 3), {"taken_over": [0, 2, 1], "resigned": [1, 2]}, [], 40.0),
    # Taken over before resigners were listed: known only from the person's move.
    (5, (1, 2, 99), {"taken_over": [2]}, [(0, 1), (1, 2), (2, 3)], 50.0),
    # Computers from the start, and no one resigned.
    (6, (1, 99, 99), {}, [(0, 1), (1, 99)], 60.0),
]
EXPECTED = {
    1: [1, None, None, None],
    2: [1, 2, None, None],
    3: [1, 2, 1, None],
    4: [1, 2, None, None],
    5: [None, None, 3],
    6: [None, None, None],
}


def _statements() -> Statements:
    games, seats, moves = [], [], []
    for game_id, sitting, options, moved, at in GAMES:
        stored = json.dumps({"level": "easy", **options})
        games.append((game_id, "everest", 7, "aborted", 1, 1, len(moved), "s", stored, 1, at))
        seats += [(game_id, seat, user, int(user == 99), at) for seat, user in enumerate(sitting)]
        moves += [(game_id, ply, seat, user, "m", at) for ply, (seat, user) in enumerate(moved, 1)]
    return [
        ("INSERT INTO users (id, name, is_bot) VALUES (?,?,?)", USERS),
        (
            "INSERT INTO games (id, game, guild_id, status, seed, rules_version, ply, snapshot,"
            " options, created_by, created_at, updated_at, finished_at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,1.0,?,?)",
            [(*row, row[-1]) for row in games],
        ),
        (
            "INSERT INTO seats (game_id, seat, user_id, is_bot, accepted, live, finished_at)"
            " VALUES (?,?,?,?,1,0,?)",
            seats,
        ),
        (
            "INSERT INTO moves (game_id, ply, seat, user_id, text, created_at)"
            " VALUES (?,?,?,?,?,?)",
            moves,
        ),
    ]


async def test_the_migration_finds_who_left_each_seat(empty_storage_target: str) -> None:
    await database_before(empty_storage_target, BEFORE, _statements())
    storage = await open_storage(empty_storage_target)
    try:
        for game_id, want in EXPECTED.items():
            assert await left_by(storage, game_id) == want, game_id

        async def ids(user: int) -> list[int]:
            return [g.id for g in await storage.games.finished_games(7, user, None, 10)]

        assert await ids(1) == [6, 5, 4, 3, 2, 1]
        assert await ids(2) == [5, 4, 3, 2]
        assert await ids(3) == [5, 4, 3, 2]
    finally:
        await storage.close()
