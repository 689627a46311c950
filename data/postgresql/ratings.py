"""Ratings storage: each player's rating per game and scope, what every rated game
changed, and which finished games have been through the rating (PostgreSQL).

A rating is read, changed and written back. SQLite runs one writer at a time; here
several processes write at once, so every rating and recomputation runs under one
transaction-scoped advisory lock: two games sharing a player, rated together by two
processes, are rated one after the other, the second from the first's result. A game is
claimed (marked rated) in the same transaction as its changes, so no game is rated twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from data.postgresql.db import PgDatabase, rowcount
from data.postgresql.games import finished_in_order, unrated_finished
from data.queries import MEET, MEETINGS, RESULT_QUERY, STANDING_QUERY, TABLE_QUERY
from data.rating_math import TALLY, changes_for, meetings_again, meetings_of, rated_again
from data.ratings import Change, Meeting, RatedResult, Rater, Skill, Standing, ToRate
from data.repository import GameRecord
from data.rows import change_of, change_row, numbered, result_of, standing_of

if TYPE_CHECKING:
    from data.postgresql.db import Connection

#: The advisory lock every rating write holds until its transaction ends.
RATINGS_LOCK = "hilltop:ratings"

_TEN = ", ".join(f"${n}" for n in range(1, 11))
_INSERT_CHANGE = (
    "INSERT INTO rating_changes (scope, user_id, game_id, game, finished_at, outcome, place,"
    " mu_before, sigma_before, mu_after, sigma_after, others_mu, others)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
)


class PgRatingRepository:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db

    async def unrated_games(self, limit: int) -> list[GameRecord]:
        """Finished games not through the rating yet, in the order they finished."""
        return await unrated_finished(self.db, limit)

    async def finished_in_order(self) -> list[GameRecord]:
        """Every finished game, in the order they finished (for a recomputation)."""
        return await finished_in_order(self.db)

    async def rate(self, game: ToRate, rater: Rater, now: float) -> list[Change] | None:
        """Rate one game from the ratings as they stand in the same transaction, and mark
        it rated (None: it already was, by another process; nothing is written)."""
        async with self.db.transaction() as conn:
            await _lock(conn)
            status = await conn.execute(
                "UPDATE games SET rated_at = $1 WHERE id = $2 AND rated_at IS NULL",
                now,
                game.game_id,
            )
            if rowcount(status) != 1:
                return None
            changes: list[Change] = []
            for scope in game.scopes if game.places else ():
                current = await _skills(conn, game.game, scope, game.places, rater.start)
                found = changes_for(game, scope, current, rater)
                await _write(conn, game, found)
                changes += found
            return changes

    async def recompute(self, games: Iterable[ToRate], rater: Rater, now: float) -> int:
        """Forget every rating and rate `games` again in their order, in one transaction:
        readers see the old tables or the new ones, never a mix. How many were rated."""
        # Everything is computed first, so that the one transaction that replaces the
        # tables is short: other processes' ratings wait for it no longer than a moment.
        rows, tables = rated_again(games, rater)
        async with self.db.transaction() as conn:
            await _lock(conn)
            # The games' rows it changes, locked first and in the order of their ids, as
            # every writer of several games takes them (the sweep saving board links):
            # taken in the order the games finished, two such writers could each hold a
            # row the other waits for.
            await conn.execute(
                "SELECT id FROM games WHERE rated_at IS NOT NULL OR id = ANY($1::bigint[])"
                " ORDER BY id FOR UPDATE",
                [g.game_id for g, _ in rows],
            )
            await conn.execute("DELETE FROM ratings")
            await conn.execute("DELETE FROM rating_changes")
            await conn.execute("DELETE FROM head_to_head")
            await conn.execute("UPDATE games SET rated_at = NULL WHERE rated_at IS NOT NULL")
            await conn.executemany(
                "UPDATE games SET rated_at = $1 WHERE id = $2", [(now, g.game_id) for g, _ in rows]
            )
            await conn.executemany(
                _INSERT_CHANGE, [change_row(g, c) for g, found in rows for c in found]
            )
            await conn.executemany(
                "INSERT INTO ratings (game, scope, user_id, mu, sigma, games, wins, draws,"
                " losses, streak) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                tables,
            )
            await conn.executemany(
                "INSERT INTO head_to_head (scope, user_id, other_id, game, wins, draws, losses,"
                f" last_game_id, last_finished_at, last_outcome) VALUES ({_TEN})",
                meetings_again(rows),
            )
        return sum(1 for game, _ in rows if game.places)

    async def table(self, game: str, scope: int, limit: int) -> list[Standing]:
        rows = await self.db.fetch(TABLE_QUERY.format("$1", "$2", "$3"), (game, scope, limit))
        return numbered(rows)

    async def standing(self, game: str, scope: int, user_id: int) -> Standing | None:
        query = STANDING_QUERY.format("$1", "$2", "$3")
        rows = await self.db.fetch(query, (game, scope, user_id))
        return standing_of(rows[0]) if rows else None

    async def standings_of(self, user_id: int, scope: int) -> list[Standing]:
        """The player's rating in every game they have one in, in that scope."""
        games = await self.db.fetch(
            "SELECT game FROM ratings WHERE scope = $1 AND user_id = $2 ORDER BY game",
            (scope, user_id),
        )
        found = [await self.standing(row[0], scope, user_id) for row in games]
        return [s for s in found if s is not None]

    async def best_win(self, user_id: int, scope: int, game: str) -> RatedResult | None:
        """The win over the strongest opposition (by their mean μ before the game)."""
        rows = await self.db.fetch(
            f"{RESULT_QUERY} WHERE scope = $1 AND user_id = $2 AND game = $3"
            " AND outcome = 'win' ORDER BY others_mu DESC, finished_at DESC LIMIT 1",
            (scope, user_id, game),
        )
        return result_of(rows[0]) if rows else None

    async def head_to_head(self, user_id: int, other_id: int, scope: int) -> list[Meeting]:
        rows = await self.db.fetch(MEETINGS.format("$1", "$2", "$3"), (scope, user_id, other_id))
        return [Meeting(*row) for row in rows]

    async def changes_of(self, game_id: int) -> list[Change]:
        """What a rated game changed (empty: not rated, or not yet)."""
        rows = await self.db.fetch(
            "SELECT scope, user_id, outcome, place, mu_before, sigma_before, mu_after,"
            " sigma_after, others_mu, others FROM rating_changes WHERE game_id = $1"
            " ORDER BY scope, user_id",
            (game_id,),
        )
        return [change_of(row) for row in rows]

    async def names(self, user_ids: Iterable[int]) -> dict[int, str]:
        """The names the players were last seen with."""
        rows = await self.db.fetch(
            "SELECT id, name FROM users WHERE id = ANY($1::bigint[])", (sorted(set(user_ids)),)
        )
        return {row[0]: row[1] for row in rows}


async def _lock(conn: Connection) -> None:
    """Wait for the ratings lock, held until the caller's transaction ends. Taken before
    any read, so that what is read afterwards includes every earlier rating."""
    await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", RATINGS_LOCK)


async def _skills(
    conn: Connection, game: str, scope: int, places: Mapping[int, int], start: Skill
) -> dict[int, Skill]:
    rows = await conn.fetch(
        "SELECT user_id, mu, sigma FROM ratings WHERE game = $1 AND scope = $2"
        " AND user_id = ANY($3::bigint[])",
        game,
        scope,
        list(places),
    )
    found = dict.fromkeys(places, start)
    for user, mu, sigma in rows:
        found[user] = (mu, sigma)
    return found


async def _write(conn: Connection, game: ToRate, changes: list[Change]) -> None:
    await conn.executemany(_INSERT_CHANGE, [change_row(game, c) for c in changes])
    await conn.executemany(MEET.format(_TEN), meetings_of(game, changes))
    await conn.executemany(
        "INSERT INTO ratings (game, scope, user_id, mu, sigma, games, wins, draws, losses,"
        " streak) VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8, $9)"
        " ON CONFLICT (game, scope, user_id) DO UPDATE SET mu = excluded.mu,"
        " sigma = excluded.sigma, games = ratings.games + 1,"
        " wins = ratings.wins + excluded.wins, draws = ratings.draws + excluded.draws,"
        " losses = ratings.losses + excluded.losses,"
        " streak = CASE excluded.streak WHEN 0 THEN 0"
        " WHEN 1 THEN CASE WHEN ratings.streak > 0 THEN ratings.streak + 1 ELSE 1 END"
        " ELSE CASE WHEN ratings.streak < 0 THEN ratings.streak - 1 ELSE -1 END END",
        [(game.game, c.scope, c.user_id, *c.after, *TALLY[c.outcome]) for c in changes],
    )
