"""The SQLite implementation of `RatingRepository`.

SQLite runs one writer at a time: a game is claimed (marked rated) and its changes are
written in one transaction, from the ratings read inside it, so no game is rated twice
nor from stale ratings, even by several processes on one file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence

from data.queries import FORMER_RATINGS, INSERT_CHANGE, INSERT_MEETINGS, INSERT_RATING, MEET
from data.rating_math import TALLY, changes_for, meetings_again, meetings_of, rated_again
from data.ratings import Change, Rater, Skill, ToRate
from data.repository import GameRecord
from data.rows import change_row
from data.shared import SharedRatingRepository
from data.sqlite.db import Database
from data.sqlite.games import finished_in_order, unrated_finished


class SqliteRatingRepository(SharedRatingRepository[Database]):
    async def unrated_games(self, limit: int) -> list[GameRecord]:
        return await unrated_finished(self.db, limit)

    async def finished_in_order(self) -> list[GameRecord]:
        return await finished_in_order(self.db)

    async def rate(self, game: ToRate, rater: Rater, now: float) -> list[Change] | None:
        return await self.db.atomic(_rate, game, rater, now)

    async def rate_all(
        self, games: Sequence[ToRate], rater: Rater, now: float
    ) -> dict[int, list[Change]]:
        # One hand-over to the writer's thread for the lot: its reads, the arithmetic
        # (a few milliseconds a game, beside the event loop) and its writes.
        return await self.db.atomic(_rate_all, games, rater, now)

    async def recompute(self, games: Iterable[ToRate], rater: Rater, now: float) -> int:
        # Everything is computed first, so that the one transaction that replaces the
        # tables is short: other processes' moves wait for it no longer than a moment.
        rows, tables = rated_again(games, rater)
        async with self.db.transaction() as conn:
            await conn.execute("DELETE FROM ratings")
            await conn.execute("DELETE FROM rating_changes")
            await conn.execute("DELETE FROM head_to_head")
            await conn.execute("UPDATE games SET rated_at = NULL WHERE rated_at IS NOT NULL")
            await conn.executemany(
                "UPDATE games SET rated_at = ? WHERE id = ?", [(now, g.game_id) for g, _ in rows]
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
        wanted = sorted(set(user_ids))
        marks = ",".join("?" * len(wanted))
        rows = await self.db.fetch(f"SELECT id, name FROM users WHERE id IN ({marks})", wanted)
        return {row[0]: row[1] for row in rows}


def _rate_all(
    conn: sqlite3.Connection, games: Sequence[ToRate], rater: Rater, now: float
) -> dict[int, list[Change]]:
    done: dict[int, list[Change]] = {}
    for game in games:
        changes = _rate(conn, game, rater, now)
        if changes is not None:
            done[game.game_id] = changes
    return done


def _rate(conn: sqlite3.Connection, game: ToRate, rater: Rater, now: float) -> list[Change] | None:
    """Claim `game` and write its changes, in the caller's transaction, in the writer's
    thread (None: another process rated it first)."""
    cur = conn.execute(
        "UPDATE games SET rated_at = ? WHERE id = ? AND rated_at IS NULL", (now, game.game_id)
    )
    if cur.rowcount != 1:
        return None
    changes: list[Change] = []
    for scope in game.scopes if game.places else ():
        current = _skills(conn, game.game, scope, game.places, rater.start)
        found = changes_for(game, scope, current, rater)
        _write(conn, game, found)
        changes += found
    return changes


def _skills(
    conn: sqlite3.Connection, game: str, scope: int, places: Mapping[int, int], start: Skill
) -> dict[int, Skill]:
    marks = ",".join("?" * len(places))
    rows = conn.execute(
        f"SELECT user_id, mu, sigma FROM ratings WHERE game = ? AND scope = ?"
        f" AND user_id IN ({marks})",
        (game, scope, *places),
    ).fetchall()
    found = dict.fromkeys(places, start)
    for user, mu, sigma in rows:
        found[user] = (mu, sigma)
    return found


_TEN = ",".join("?" * 10)
_INSERT_CHANGE = INSERT_CHANGE.format(",".join("?" * 13))


def _write(conn: sqlite3.Connection, game: ToRate, changes: list[Change]) -> None:
    conn.executemany(_INSERT_CHANGE, [change_row(game, c) for c in changes])
    conn.executemany(MEET.format(_TEN), meetings_of(game, changes))
    conn.executemany(
        "INSERT INTO ratings (game, scope, user_id, mu, sigma, games, wins, draws, losses,"
        " streak) VALUES (?,?,?,?,?,1,?,?,?,?)"
        " ON CONFLICT (game, scope, user_id) DO UPDATE SET mu = excluded.mu,"
        " sigma = excluded.sigma, games = games + 1, wins = wins + excluded.wins,"
        " draws = draws + excluded.draws, losses = losses + excluded.losses,"
        " streak = CASE excluded.streak WHEN 0 THEN 0"
        " WHEN 1 THEN CASE WHEN streak > 0 THEN streak + 1 ELSE 1 END"
        " ELSE CASE WHEN streak < 0 THEN streak - 1 ELSE -1 END END",
        [(game.game, c.scope, c.user_id, *c.after, *TALLY[c.outcome]) for c in changes],
    )
