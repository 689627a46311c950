"""The SQLite implementation of `RatingRepository`.

SQLite runs one writer at a time: a game is claimed (marked rated) and its changes are
written in one transaction, from the ratings read inside it, so no game is rated twice
nor from stale ratings, even by several processes on one file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import aiosqlite

from data.queries import MEET, MEETINGS, RESULT_QUERY, STANDING_QUERY, TABLE_QUERY
from data.rating_math import TALLY, changes_for, meetings_again, meetings_of, rated_again
from data.ratings import Change, Meeting, RatedResult, Rater, Skill, Standing, ToRate
from data.repository import GameRecord
from data.rows import change_of, change_row, numbered, result_of, standing_of
from data.sqlite.db import Database
from data.sqlite.games import finished_in_order, unrated_finished


class SqliteRatingRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def unrated_games(self, limit: int) -> list[GameRecord]:
        return await unrated_finished(self.db, limit)

    async def finished_in_order(self) -> list[GameRecord]:
        return await finished_in_order(self.db)

    async def rate(self, game: ToRate, rater: Rater, now: float) -> list[Change] | None:
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "UPDATE games SET rated_at = ? WHERE id = ? AND rated_at IS NULL",
                (now, game.game_id),
            )
            if cur.rowcount != 1:
                return None
            changes: list[Change] = []
            for scope in game.scopes if game.places else ():
                current = await _skills(conn, game.game, scope, game.places, rater.start)
                found = changes_for(game, scope, current, rater)
                await _write(conn, game, found)
                changes += found
            return changes

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
            await conn.executemany(
                "INSERT INTO ratings (game, scope, user_id, mu, sigma, games, wins, draws,"
                " losses, streak) VALUES (?,?,?,?,?,?,?,?,?,?)",
                tables,
            )
            await conn.executemany(
                "INSERT INTO head_to_head (scope, user_id, other_id, game, wins, draws, losses,"
                " last_game_id, last_finished_at, last_outcome) VALUES (?,?,?,?,?,?,?,?,?,?)",
                meetings_again(rows),
            )
        return sum(1 for game, _ in rows if game.places)

    async def table(self, game: str, scope: int, limit: int) -> list[Standing]:
        rows = await self.db.fetch(TABLE_QUERY.format("?", "?", "?"), (game, scope, limit))
        return numbered(rows)

    async def standing(self, game: str, scope: int, user_id: int) -> Standing | None:
        rows = await self.db.fetch(STANDING_QUERY.format("?", "?", "?"), (game, scope, user_id))
        return standing_of(rows[0]) if rows else None

    async def standings_of(self, user_id: int, scope: int) -> list[Standing]:
        games = await self.db.fetch(
            "SELECT game FROM ratings WHERE scope = ? AND user_id = ? ORDER BY game",
            (scope, user_id),
        )
        found = [await self.standing(row[0], scope, user_id) for row in games]
        return [s for s in found if s is not None]

    async def best_win(self, user_id: int, scope: int, game: str) -> RatedResult | None:
        rows = await self.db.fetch(
            f"{RESULT_QUERY} WHERE scope = ? AND user_id = ? AND game = ? AND outcome = 'win'"
            " ORDER BY others_mu DESC, finished_at DESC LIMIT 1",
            (scope, user_id, game),
        )
        return result_of(rows[0]) if rows else None

    async def head_to_head(self, user_id: int, other_id: int, scope: int) -> list[Meeting]:
        rows = await self.db.fetch(MEETINGS.format("?", "?", "?"), (scope, user_id, other_id))
        return [Meeting(*row) for row in rows]

    async def changes_of(self, game_id: int) -> list[Change]:
        rows = await self.db.fetch(
            "SELECT scope, user_id, outcome, place, mu_before, sigma_before, mu_after,"
            " sigma_after, others_mu, others FROM rating_changes WHERE game_id = ?"
            " ORDER BY scope, user_id",
            (game_id,),
        )
        return [change_of(row) for row in rows]

    async def names(self, user_ids: Iterable[int]) -> dict[int, str]:
        wanted = sorted(set(user_ids))
        marks = ",".join("?" * len(wanted))
        rows = await self.db.fetch(f"SELECT id, name FROM users WHERE id IN ({marks})", wanted)
        return {row[0]: row[1] for row in rows}


async def _skills(
    conn: aiosqlite.Connection, game: str, scope: int, places: Mapping[int, int], start: Skill
) -> dict[int, Skill]:
    marks = ",".join("?" * len(places))
    rows = await conn.execute_fetchall(
        f"SELECT user_id, mu, sigma FROM ratings WHERE game = ? AND scope = ?"
        f" AND user_id IN ({marks})",
        (game, scope, *places),
    )
    found = dict.fromkeys(places, start)
    for user, mu, sigma in rows:
        found[user] = (mu, sigma)
    return found


_INSERT_CHANGE = (
    "INSERT INTO rating_changes (scope, user_id, game_id, game, finished_at, outcome, place,"
    " mu_before, sigma_before, mu_after, sigma_after, others_mu, others)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


async def _write(conn: aiosqlite.Connection, game: ToRate, changes: list[Change]) -> None:
    await conn.executemany(_INSERT_CHANGE, [change_row(game, c) for c in changes])
    await conn.executemany(MEET.format(",".join("?" * 10)), meetings_of(game, changes))
    await conn.executemany(
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
