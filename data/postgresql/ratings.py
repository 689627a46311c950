"""Ratings storage: each player's rating per game and scope, what every rated game
changed, and which finished games have been through the rating (PostgreSQL).

A rating is read, changed and written back. SQLite runs one writer at a time; here
several processes write at once, so every rating and recomputation runs under one
transaction-scoped advisory lock: two games sharing a player, rated together by two
processes, are rated one after the other, the second from the first's result. A game is
claimed (marked rated) in the same transaction as its changes, so no game is rated twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from data.postgresql.db import PgDatabase, rowcount
from data.postgresql.games import finished_in_order, unrated_finished
from data.queries import FORMER_RATINGS, INSERT_CHANGE, INSERT_MEETINGS, INSERT_RATING, MEET, marks
from data.rating_math import TALLY, changes_for, meetings_again, meetings_of, rated_again
from data.ratings import Change, Rater, Skill, ToRate
from data.repository import GameRecord
from data.rows import change_row
from data.shared import SharedRatingRepository

if TYPE_CHECKING:
    from data.postgresql.db import Connection

#: The advisory lock every rating write holds until its transaction ends.
RATINGS_LOCK = "hilltop:ratings"

_TEN = ", ".join(marks(PgDatabase.mark, 10))
_INSERT_CHANGE = INSERT_CHANGE.format(", ".join(marks(PgDatabase.mark, 13)))


class PgRatingRepository(SharedRatingRepository[PgDatabase]):
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
            return await _rate(conn, game, rater, now)

    async def rate_all(
        self, games: Sequence[ToRate], rater: Rater, now: float
    ) -> dict[int, list[Change]]:
        """Rate `games` in their order in one transaction, under the ratings lock taken
        once (a game another process rated first is left out)."""
        done: dict[int, list[Change]] = {}
        async with self.db.transaction() as conn:
            await _lock(conn)
            for game in games:
                changes = await _rate(conn, game, rater, now)
                if changes is not None:
                    done[game.game_id] = changes
        return done

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
            await conn.executemany(INSERT_RATING.format(_TEN), tables)
            await conn.executemany(INSERT_MEETINGS.format(_TEN), meetings_again(rows))
            for statement in FORMER_RATINGS:
                await conn.execute(statement)
        return sum(1 for game, _ in rows if game.places)

    async def names(self, user_ids: Iterable[int]) -> dict[int, str]:
        """The names the players were last seen with."""
        rows = await self.db.fetch(
            "SELECT id, name FROM users WHERE id = ANY($1::bigint[])", (sorted(set(user_ids)),)
        )
        return {row[0]: row[1] for row in rows}


async def _rate(conn: Connection, game: ToRate, rater: Rater, now: float) -> list[Change] | None:
    """Claim `game` and write its changes, in the caller's transaction under the ratings
    lock (None: another process rated it first)."""
    status = await conn.execute(
        "UPDATE games SET rated_at = $1 WHERE id = $2 AND rated_at IS NULL", now, game.game_id
    )
    if rowcount(status) != 1:
        return None
    changes: list[Change] = []
    for scope in game.scopes if game.places else ():
        current = await _skills(conn, game.game, scope, game.places, rater.start)
        # The arithmetic beside the event loop, which goes on serving other channels.
        found = await asyncio.to_thread(changes_for, game, scope, current, rater)
        await _write(conn, game, found)
        changes += found
    return changes


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
