"""Ratings storage: each player's rating per game and scope, what every rated game
changed, and which finished games have been through the rating (SQLite).

The rating system itself lives in the host (`host.ratings.rating`); this layer stores its
numbers. A game is marked rated in the same transaction as its changes, and the
ratings it starts from are read inside that transaction, so two processes sharing the
database never rate a game twice nor from stale ratings.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import aiosqlite

from data.db import Database
from data.games import finished_in_order, unrated_finished
from data.repository import GameRecord

#: The scope of the global tables (a server's scope is its id).
GLOBAL = 0
#: Below this many rated games a rating is provisional: shown with "?".
PROVISIONAL_GAMES = 5

Outcome = Literal["win", "draw", "loss"]
#: A rating: (μ, σ).
Skill = tuple[float, float]


class Rater(Protocol):
    """The rating system: a newcomer's rating, and new ratings from the places of a game
    and the ratings before it (by user id)."""

    @property
    def start(self) -> Skill: ...

    def __call__(
        self, places: Mapping[int, int], before: Mapping[int, Skill]
    ) -> Mapping[int, Skill]: ...


@dataclass(frozen=True, slots=True)
class ToRate:
    """A finished game as the rating sees it: who took which place (1 is first) and how it
    went for them, by user id, in which scopes. No places: a game that is not rated
    (against the computer, aborted…)."""

    game_id: int
    game: str
    finished_at: float
    scopes: tuple[int, ...]
    places: Mapping[int, int]
    outcomes: Mapping[int, Outcome]


@dataclass(frozen=True, slots=True)
class Change:
    """What a rated game did to one player's rating in one scope."""

    scope: int
    user_id: int
    outcome: Outcome
    place: int
    before: Skill
    after: Skill
    others_mu: float
    others: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating in one game and scope, with their record and place in the table
    (by μ: the rating shown)."""

    place: int
    game: str
    user_id: int
    name: str
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    streak: int

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


@dataclass(frozen=True, slots=True)
class RatedResult:
    """One rated game of a player: for the best win and head-to-head records (there,
    `outcome` is the player's result against the one other player asked about)."""

    game_id: int
    game: str
    finished_at: float
    outcome: Outcome
    others_mu: float
    others: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Meeting:
    """A player's rated games against one other player in one game: how many they won,
    drew and lost against them (by their places), and the last of them."""

    game: str
    wins: int
    draws: int
    losses: int
    last_game_id: int
    last_finished_at: float
    last_outcome: Outcome

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


class RatingRepository(Protocol):
    async def unrated_games(self, limit: int) -> list[GameRecord]:
        """Finished games not through the rating yet, in the order they finished."""
        ...

    async def rate(self, game: ToRate, rater: Rater, now: float) -> list[Change] | None:
        """Rate one game from the ratings as they stand in the same transaction, and mark
        it rated (None: it already was, by another process; nothing is written)."""
        ...

    async def finished_in_order(self) -> list[GameRecord]:
        """Every finished game, in the order they finished (for a recomputation)."""
        ...

    async def recompute(self, games: Iterable[ToRate], rater: Rater, now: float) -> int:
        """Forget every rating and rate `games` again in their order, in one transaction:
        readers see the old tables or the new ones, never a mix. How many were rated."""
        ...

    async def table(self, game: str, scope: int, limit: int) -> list[Standing]: ...

    async def standing(self, game: str, scope: int, user_id: int) -> Standing | None: ...

    async def standings_of(self, user_id: int, scope: int) -> list[Standing]:
        """The player's rating in every game they have one in, in that scope."""
        ...

    async def best_win(self, user_id: int, scope: int, game: str) -> RatedResult | None:
        """The win over the strongest opposition (by their mean μ before the game)."""
        ...

    async def head_to_head(self, user_id: int, other_id: int, scope: int) -> list[Meeting]:
        """The player's record against `other_id` in each game they were both rated in,
        by game: won, drawn or lost against them by their places (in a game of three or
        four, finishing ahead of them is a win against them)."""
        ...

    async def changes_of(self, game_id: int) -> list[Change]:
        """What a rated game changed (empty: not rated, or not yet)."""
        ...

    async def names(self, user_ids: Iterable[int]) -> dict[int, str]:
        """The names the players were last seen with."""
        ...


_RATING = (
    "SELECT r.game, r.user_id, u.name, r.mu, r.sigma, r.games, r.wins, r.draws, r.losses,"
    " r.streak{place} FROM ratings r JOIN users u ON u.id = r.user_id"
)
#: The order of a table: the rating shown, then more games, then the older account.
TABLE_ORDER = "ORDER BY r.mu DESC, r.games DESC, r.user_id"
#: One more than the ratings ahead, each count a range of the table's index.
_AHEAD = " AND ".join(("a.game = r.game", "a.scope = r.scope"))
PLACE = (
    f", 1 + (SELECT count(*) FROM ratings a WHERE {_AHEAD} AND a.mu > r.mu)"
    f" + (SELECT count(*) FROM ratings a WHERE {_AHEAD} AND a.mu = r.mu AND a.games > r.games)"
    f" + (SELECT count(*) FROM ratings a WHERE {_AHEAD} AND a.mu = r.mu AND a.games = r.games"
    " AND a.user_id < r.user_id) AS place"
)
#: A table's first rows, with placeholders {0} game, {1} scope, {2} how many.
TABLE_QUERY = (
    _RATING.format(place=", 0 AS place")
    + f" WHERE r.game = {{0}} AND r.scope = {{1}} {TABLE_ORDER} LIMIT {{2}}"
)
#: One player's rating and place, with placeholders {0} game, {1} scope, {2} user.
STANDING_QUERY = (
    _RATING.format(place=PLACE) + " WHERE r.game = {0} AND r.scope = {1} AND r.user_id = {2}"
)
#: A player's meetings with another, with placeholders {0} scope, {1} user, {2} other.
MEETINGS = (
    "SELECT game, wins, draws, losses, last_game_id, last_finished_at, last_outcome"
    " FROM head_to_head WHERE scope = {0} AND user_id = {1} AND other_id = {2} ORDER BY game"
)
#: Adding one game to a pair's meetings, with placeholders for the ten columns.
MEET = (
    "INSERT INTO head_to_head (scope, user_id, other_id, game, wins, draws, losses,"
    " last_game_id, last_finished_at, last_outcome) VALUES ({})"
    " ON CONFLICT (scope, user_id, other_id, game) DO UPDATE SET"
    " wins = head_to_head.wins + excluded.wins, draws = head_to_head.draws + excluded.draws,"
    " losses = head_to_head.losses + excluded.losses, last_game_id = excluded.last_game_id,"
    " last_finished_at = excluded.last_finished_at, last_outcome = excluded.last_outcome"
)
RESULT_QUERY = "SELECT game_id, game, finished_at, outcome, others_mu, others FROM rating_changes"


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


def changes_for(
    game: ToRate, scope: int, before: Mapping[int, Skill], rater: Rater
) -> list[Change]:
    after = rater(game.places, before)
    changes = []
    for user in game.places:
        others = tuple(sorted(u for u in game.places if u != user))
        others_mu = sum(before[u][0] for u in others) / len(others)
        outcome = game.outcomes[user]
        place = game.places[user]
        changes.append(
            Change(scope, user, outcome, place, before[user], after[user], others_mu, others)
        )
    return changes


#: What one game adds to a player's record, by outcome: wins, draws, losses, and the
#: streak's step (1: a win, 0: a draw ends it, -1: a loss).
TALLY: dict[Outcome, tuple[int, int, int, int]] = {
    "win": (1, 0, 0, 1),
    "draw": (0, 1, 0, 0),
    "loss": (0, 0, 1, -1),
}


def rated_again(
    games: Iterable[ToRate], rater: Rater
) -> tuple[list[tuple[ToRate, list[Change]]], list[tuple[object, ...]]]:
    """Every game rated again from nothing, in order: each game with its changes, and
    the rows of the ratings table they end with."""
    skills: dict[tuple[str, int, int], Skill] = {}
    records: dict[tuple[str, int, int], list[int]] = {}
    rows: list[tuple[ToRate, list[Change]]] = []
    for game in games:
        found: list[Change] = []
        for scope in game.scopes if game.places else ():
            current = {u: skills.get((game.game, scope, u), rater.start) for u in game.places}
            for change in changes_for(game, scope, current, rater):
                key = (game.game, scope, change.user_id)
                skills[key] = change.after
                count_outcome(records.setdefault(key, [0, 0, 0, 0, 0]), change.outcome)
                found.append(change)
        rows.append((game, found))
    return rows, [(*key, *skills[key], *record) for key, record in records.items()]


def against(mine: int, theirs: int) -> Outcome:
    """A player's result against another from their places (1 is first)."""
    return "win" if mine < theirs else "draw" if mine == theirs else "loss"


def meetings_of(game: ToRate, changes: Iterable[Change]) -> list[tuple[object, ...]]:
    """The rows one rated game adds to the head-to-head records: one for each ordered
    pair of its players in each scope."""
    return [
        (scope, user, other, game.game, *tally, game.game_id, game.finished_at, outcome)
        for (scope, user, other), (tally, outcome) in _meetings(changes).items()
    ]


def _meetings(
    changes: Iterable[Change],
) -> dict[tuple[int, int, int], tuple[tuple[int, int, int], Outcome]]:
    """(scope, player, other player): (wins, draws, losses) of one game, and its outcome."""
    by_scope: dict[int, list[Change]] = {}
    for change in changes:
        by_scope.setdefault(change.scope, []).append(change)
    found = {}
    for scope, players in by_scope.items():
        for a in players:
            for b in players:
                if a.user_id != b.user_id:
                    outcome = against(a.place, b.place)
                    tally = (int(outcome == "win"), int(outcome == "draw"), int(outcome == "loss"))
                    found[(scope, a.user_id, b.user_id)] = (tally, outcome)
    return found


def meetings_again(rated: Iterable[tuple[ToRate, list[Change]]]) -> list[tuple[object, ...]]:
    """Every head-to-head record from games rated again in order, as rows of the table."""
    found: dict[tuple[int, int, int, str], Meeting] = {}
    for game, changes in rated:
        for (scope, user, other), ((won, drew, lost), outcome) in _meetings(changes).items():
            key = (scope, user, other, game.game)
            was = found.get(key)
            found[key] = Meeting(
                game.game,
                won + (was.wins if was else 0),
                drew + (was.draws if was else 0),
                lost + (was.losses if was else 0),
                game.game_id,
                game.finished_at,
                outcome,
            )
    return [
        (*key, m.wins, m.draws, m.losses, m.last_game_id, m.last_finished_at, m.last_outcome)
        for key, m in found.items()
    ]


def change_of(row: Any) -> Change:
    """A stored rating change."""
    return Change(
        row["scope"],
        row["user_id"],
        row["outcome"],
        row["place"],
        (row["mu_before"], row["sigma_before"]),
        (row["mu_after"], row["sigma_after"]),
        row["others_mu"],
        tuple(json.loads(row["others"])),
    )


_INSERT_CHANGE = (
    "INSERT INTO rating_changes (scope, user_id, game_id, game, finished_at, outcome, place,"
    " mu_before, sigma_before, mu_after, sigma_after, others_mu, others)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


def change_row(game: ToRate, c: Change) -> tuple[object, ...]:
    return (
        c.scope,
        c.user_id,
        game.game_id,
        game.game,
        game.finished_at,
        c.outcome,
        c.place,
        *c.before,
        *c.after,
        c.others_mu,
        json.dumps(list(c.others)),
    )


def count_outcome(record: list[int], outcome: Outcome) -> None:
    """Add a game to [games, wins, draws, losses, streak], as the table's upsert does."""
    record[0] += 1
    if outcome == "win":
        record[1] += 1
        record[4] = record[4] + 1 if record[4] > 0 else 1
    elif outcome == "draw":
        record[2] += 1
        record[4] = 0
    else:
        record[3] += 1
        record[4] = record[4] - 1 if record[4] < 0 else -1


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


def numbered(rows: Iterable[Any]) -> list[Standing]:
    """The rows of a table's first page, read in its order, with their places."""
    return [standing_of(row, place) for place, row in enumerate(rows, start=1)]


def standing_of(row: Any, place: int | None = None) -> Standing:
    return Standing(
        place=row["place"] if place is None else place,
        game=row["game"],
        user_id=row["user_id"],
        name=row["name"],
        mu=row["mu"],
        sigma=row["sigma"],
        games=row["games"],
        wins=row["wins"],
        draws=row["draws"],
        losses=row["losses"],
        streak=row["streak"],
    )


def result_of(row: Any) -> RatedResult:
    return RatedResult(
        game_id=row["game_id"],
        game=row["game"],
        finished_at=row["finished_at"],
        outcome=row["outcome"],
        others_mu=row["others_mu"],
        others=tuple(json.loads(row["others"])),
    )
