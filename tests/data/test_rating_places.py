"""A place in a ratings table is one more than the ratings ahead of it: by the rating
shown, then more games played, then the lower user id; the same on both databases,
whether read from the table's first page or for one player."""

from __future__ import annotations

from data.ratings import GLOBAL
from data.storage import Storage

#: user id, μ, games: ties on μ, and on μ and games, are broken as the table orders them.
RATINGS = [
    (11, 30.0, 4),
    (12, 25.0, 9),
    (13, 25.0, 3),
    (14, 25.0, 9),
    (15, 31.5, 1),
    (16, 20.0, 50),
    (17, 25.0, 3),
]
#: The places by hand: 15; then 30.0; then 25.0 with 9 games (12 before 14), with 3
#: games (13 before 17); then 16.
EXPECTED = [(1, 15), (2, 11), (3, 12), (4, 14), (5, 13), (6, 17), (7, 16)]


async def test_places_count_the_ratings_ahead(storage: Storage) -> None:
    db = storage.database
    lite = storage.backend == "sqlite"
    marks = "?, ?, ?" if lite else "$1, $2, $3"
    for user_id, _mu, _games in RATINGS:
        await db.write(
            f"INSERT INTO users (id, name, is_bot) VALUES ({marks})", (user_id, f"p{user_id}", 0)
        )
    values = ", ".join("?" * 10 if lite else (f"${i}" for i in range(1, 11)))
    for user_id, mu, games in RATINGS:
        for game in ("hokito", "everest"):
            await db.write(
                "INSERT INTO ratings (game, scope, user_id, mu, sigma, games, wins, draws,"
                f" losses, streak) VALUES ({values})",
                (game, GLOBAL, user_id, mu if game == "hokito" else -mu, 5.0, games, 0, 0, 0, 0),
            )
    table = await storage.ratings.table("hokito", GLOBAL, 10)
    assert [(s.place, s.user_id) for s in table] == EXPECTED
    assert [(s.place, s.user_id) for s in await storage.ratings.table("hokito", GLOBAL, 3)] == (
        EXPECTED[:3]
    )
    for place, user_id in EXPECTED:
        standing = await storage.ratings.standing("hokito", GLOBAL, user_id)
        assert standing is not None and standing.place == place, user_id
    # Another game's table is counted apart: there the order is reversed on μ.
    everest = await storage.ratings.standing("everest", GLOBAL, 16)
    assert everest is not None and everest.place == 1
    assert await storage.ratings.standing("hokito", GLOBAL + 1, 11) is None
