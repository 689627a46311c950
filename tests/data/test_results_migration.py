"""Results stored before they were facts (a sentence in the language of whoever ended
the game, beside a few marks) are converted by the schema's migration, on both
databases: how each game ended is recovered, the sentence is dropped, no game is lost,
and a game ended off the board before every person had moved becomes aborted."""

from __future__ import annotations

import json
from typing import Any

from data.results import Actor, Ending, GameResult
from data.storage import open_storage
from tests.data.schema_before import Statements, database_before

#: The schema version before results became facts.
BEFORE = 8

USERS = [(1, "alice", 0), (2, "bob", 0), (9, "hilltop", 1)]
#: id, status, the stored result as it was, the seats that moved (in order).
GAMES: list[tuple[int, str, dict[str, Any] | None, list[int]]] = [
    (
        1,
        "finished",
        {"scores": [38, 34], "winners": [0], "reason": "bob poddaje się.", "resigned": [1]},
        [0, 1, 0],
    ),
    (
        2,
        "finished",
        {"scores": [36, 36], "winners": [0], "reason": "bob resigned.", "resigned": [1]},
        [0],
    ),
    (3, "declined", {"reason": "alice wycofuje wyzwanie."}, []),
    (4, "declined", {"reason": "The challenge expired: nobody answered within a day."}, []),
    (5, "declined", {"reason": "bob declined the challenge."}, []),
    (
        6,
        "aborted",
        {"scores": [1, 2], "winners": [], "reason": "Ended by root, an admin.", "aborted": True},
        [0, 1],
    ),
    (
        7,
        "finished",
        {"scores": [36, 0], "winners": [0], "reason": "White has no legal move."},
        [0, 1, 0],
    ),
    (8, "finished", {"scores": [5, 5], "winners": [0], "reason": "x", "on_time": True}, [0]),
    (9, "finished", {"scores": [5, 5], "winners": [], "reason": "y", "agreed_draw": True}, [0, 1]),
    (10, "active", None, [0]),
]

EXPECTED = {
    1: ("finished", GameResult(Ending.RESIGNED, (0,), (38, 34), (1,))),
    2: ("aborted", GameResult(Ending.RESIGNED, (0,), (36, 36), (1,), aborted=True)),
    3: ("declined", GameResult(Ending.WITHDRAWN)),
    4: ("declined", GameResult(Ending.EXPIRED)),
    5: ("declined", GameResult(Ending.DECLINED)),
    6: ("aborted", GameResult(Ending.ADMIN, (), (1, 2))),
    7: ("finished", GameResult(Ending.RULES, (0,), (36, 0))),
    8: ("aborted", GameResult(Ending.CLAIMED, (0,), (5, 5), (0,), aborted=True)),
    9: ("finished", GameResult(Ending.AGREED_DRAW, (), (5, 5))),
    10: ("active", None),
}


def _rows() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    games, seats, moves = [], [], []
    for game_id, status, result, movers in GAMES:
        stored = json.dumps(result) if result is not None else None
        games.append((game_id, "hokito", status, 1, 1, len(movers), "s", stored, 1, 1.0, 2.0))
        seats += [(game_id, 0, 1, 0, 1), (game_id, 1, 2, 0, 1)]
        moves += [(game_id, ply, seat, seat + 1, "m", 1.5) for ply, seat in enumerate(movers, 1)]
    return games, seats, moves


GAME_COLUMNS = (
    "id, game, status, seed, rules_version, ply, snapshot, result, created_by, created_at,"
    " updated_at"
)


def _statements() -> Statements:
    games, seats, moves = _rows()
    return [
        ("INSERT INTO users (id, name, is_bot) VALUES (?,?,?)", list(USERS)),
        (f"INSERT INTO games ({GAME_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)", games),
        ("INSERT INTO seats (game_id, seat, user_id, is_bot, accepted) VALUES (?,?,?,?,?)", seats),
        (
            "INSERT INTO moves (game_id, ply, seat, user_id, text, created_at)"
            " VALUES (?,?,?,?,?,?)",
            moves,
        ),
    ]


async def test_stored_results_become_facts_and_early_endings_aborts(
    empty_storage_target: str,
) -> None:
    await database_before(empty_storage_target, BEFORE, _statements())
    storage = await open_storage(empty_storage_target)
    try:
        found = {}
        for game_id in EXPECTED:
            record = await storage.games.get_game(game_id)
            assert record is not None, game_id  # no game is lost
            found[game_id] = (record.status, record.result)
        assert found == EXPECTED
        # No sentence is left in any stored result.
        rows = await storage.database.fetch("SELECT result FROM games WHERE result IS NOT NULL")
        assert rows and all("reason" not in json.loads(r[0]) for r in rows)
        # Ended games without an end time are given their last change; their seats are
        # marked ended with it, and the live game's seats stay live.
        ends = await storage.database.fetch(
            "SELECT g.id, g.finished_at, s.live, s.finished_at FROM games g"
            " JOIN seats s ON s.game_id = g.id ORDER BY g.id, s.seat"
        )
        assert {tuple(row) for row in ends} == {
            (game_id, *((None, 1, None) if game_id == 10 else (2.0, 0, 2.0)))
            for game_id in EXPECTED
        }
        ended = await storage.games.finished_games(None, 1, None, 20)
        assert {g.id for g in ended} == {1, 2, 6, 7, 8, 9}
    finally:
        await storage.close()


def test_an_actor_is_kept_as_a_fact() -> None:
    result = GameResult(Ending.ADMIN, actor=Actor(4, "root"))
    assert GameResult.from_stored(json.loads(json.dumps(result.stored()))) == result
