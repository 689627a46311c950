"""The migration that readies years of history, on both databases: ended games keep an
end time, seats learn whether their game is live and when it ended, head-to-head records
are counted from the rating changes stored, and daily totals from the runs."""

from __future__ import annotations

from typing import Any

from data.storage import open_storage
from tests.data.schema_before import database_before

#: The schema version before this migration.
BEFORE = 9

USERS = [(1, "alice", 0), (2, "bob", 0), (3, "carol", 0)]
#: id, game, status, finished_at (None: never set), players in seat order.
GAMES: list[tuple[int, str, str, float | None, tuple[int, ...]]] = [
    (1, "hokito", "finished", 10.0, (1, 2)),
    (2, "hokito", "finished", 20.0, (2, 1)),
    (3, "everest", "finished", 30.0, (3, 1, 2)),
    (4, "hokito", "aborted", None, (1, 2)),
    (5, "hokito", "active", None, (1, 3)),
    (6, "hillbert", "finished", 40.0, (1,)),
    (7, "hillbert", "finished", 50.0, (1,)),
]
#: game, user, place (1 is first), in the global scope (0) and server 7.
PLACES = [(1, 1, 1), (1, 2, 2), (2, 2, 1), (2, 1, 2), (3, 3, 1), (3, 1, 2), (3, 2, 2)]
#: user, day, week, game, score, unfinished.
RUNS = [(1, "2026-11-01", "2026-W44", 6, 5, 1), (1, "2026-11-02", "2026-W44", 7, 8, 0)]


def _statements() -> list[tuple[str, list[tuple[Any, ...]]]]:
    games, seats, changes = [], [], []
    for game_id, game, status, finished_at, players in GAMES:
        kind = "daily" if game == "hillbert" else "channel"
        games.append((game_id, game, kind, 7, status, 1, 1, 0, "s", 1, 1.0, 2.0, finished_at))
        seats += [(game_id, seat, user, 0, 1) for seat, user in enumerate(players)]
    for scope in (0, 7):
        for game_id, user, place in PLACES:
            game = next(g[1] for g in GAMES if g[0] == game_id)
            at = next(g[3] for g in GAMES if g[0] == game_id)
            changes.append(
                (
                    scope,
                    user,
                    game_id,
                    game,
                    at,
                    "win" if place == 1 else "loss",
                    place,
                    25.0,
                    8.0,
                    26.0,
                    7.0,
                    25.0,
                    "[]",
                )
            )
    return [
        ("INSERT INTO users (id, name, is_bot) VALUES (?,?,?)", list(USERS)),
        (
            "INSERT INTO games (id, game, kind, guild_id, status, seed, rules_version, ply,"
            " snapshot, created_by, created_at, updated_at, finished_at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            games,
        ),
        ("INSERT INTO seats (game_id, seat, user_id, is_bot, accepted) VALUES (?,?,?,?,?)", seats),
        (
            "INSERT INTO rating_changes (scope, user_id, game_id, game, finished_at, outcome,"
            " place, mu_before, sigma_before, mu_after, sigma_after, others_mu, others)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            changes,
        ),
        (
            "INSERT INTO daily_runs (user_id, day, week, game_id, started_at, finished_at,"
            " score, turns, sizes, unfinished) VALUES (?,?,?,?,1.0,2.0,?,3,'1',?)",
            [(u, d, w, g, s, f) for u, d, w, g, s, f in RUNS],
        ),
        (
            "INSERT INTO daily_totals (period, user_id, total, best, runs, last_at)"
            " VALUES (?,?,?,?,?,?)",
            [("all", 1, 13, 8, 2, 2.0), ("2026-W44", 1, 13, 8, 2, 2.0)],
        ),
    ]


async def test_history_is_made_ready_for_years(empty_storage_target: str) -> None:
    await database_before(empty_storage_target, BEFORE, _statements())
    storage = await open_storage(empty_storage_target)
    try:
        fetch = storage.database.fetch
        ended = await fetch("SELECT id, finished_at FROM games ORDER BY id")
        assert [tuple(r) for r in ended] == [
            (1, 10.0),
            (2, 20.0),
            (3, 30.0),
            (4, 2.0),
            (5, None),
            (6, 40.0),
            (7, 50.0),
        ]
        seats = await fetch("SELECT game_id, live, finished_at FROM seats WHERE seat = 0")
        assert sorted(tuple(r) for r in seats) == [
            (1, 0, 10.0),
            (2, 0, 20.0),
            (3, 0, 30.0),
            (4, 0, 2.0),
            (5, 1, None),
            (6, 0, 40.0),
            (7, 0, 50.0),
        ]
        ratings = storage.ratings
        for scope in (0, 7):
            alice = await ratings.head_to_head(1, 2, scope)
            assert [(m.game, m.wins, m.draws, m.losses) for m in alice] == [
                ("everest", 0, 1, 0),
                ("hokito", 1, 0, 1),
            ]
            assert (alice[1].last_game_id, alice[1].last_outcome) == (2, "loss")
            bob = await ratings.head_to_head(2, 1, scope)
            assert [(m.game, m.wins, m.draws, m.losses, m.last_outcome) for m in bob] == [
                ("everest", 0, 1, 0, "draw"),
                ("hokito", 1, 0, 1, "win"),
            ]
            [carol] = await ratings.head_to_head(3, 2, scope)
            assert (carol.game, carol.wins, carol.last_game_id) == ("everest", 1, 3)
        assert await ratings.head_to_head(3, 3, 0) == []
        record = await storage.daily.record_of(1)
        assert record is not None
        assert (record.runs, record.total, record.best, record.unfinished) == (2, 13, 8, 1)
        assert record.last.day == "2026-11-02"
        assert await storage.daily.days_played(1, 5) == ["2026-11-02", "2026-11-01"]
    finally:
        await storage.close()
