"""The SQL both backends send alike, apart from their placeholders.

Statements are written once, here, as templates or as builders given the backend's
placeholder: `mark(n)` is how the n-th parameter is written (SQLite's `?`,
PostgreSQL's `$n`). Parameters are numbered in the order they stand in the text, which
both styles accept.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Generic, Protocol, TypeVar

#: How a backend writes the placeholder of the n-th parameter (from 1).
Mark = Callable[[int], str]


class Params:
    """The parameters of a query being written: each call adds one and returns its
    placeholder."""

    def __init__(self, mark: Mark) -> None:
        self.mark = mark
        self.values: list[Any] = []

    def __call__(self, value: Any) -> str:
        self.values.append(value)
        return self.mark(len(self.values))


class Marked(Protocol):
    """A connection whose placeholders a statement is written with."""

    def mark(self, n: int) -> str: ...


DbT = TypeVar("DbT", bound=Marked)
TxT = TypeVar("TxT")


class SharedStatements(ABC, Generic[DbT, TxT]):
    """A repository whose statements are written once for both backends: its connection
    (`db`), a statement's parameters in that connection's placeholders (`_params`), and
    the backend's own write transaction (`_transaction`)."""

    def __init__(self, db: DbT) -> None:
        self.db = db

    @abstractmethod
    def _transaction(self) -> AbstractAsyncContextManager[TxT]: ...

    def _params(self) -> Params:
        return Params(self.db.mark)


def marks(mark: Mark, count: int) -> list[str]:
    """The placeholders of `count` parameters in a row."""
    return [mark(n) for n in range(1, count + 1)]


# --- games --------------------------------------------------------------------------

GAME_COLUMNS = (
    "id, game, kind, guild_id, channel_id, status, seed, variant, rules_version, "
    "start_position, ply, snapshot, options, result, created_by, created_at, updated_at, "
    "finished_at, deadline_at, deadline_from, remind_at, expired_at, board_message_id, untold_from"
)
#: `GAME_COLUMNS` of the games aliased `g`.
GAME_COLUMNS_OF_G = ", ".join(f"g.{c.strip()}" for c in GAME_COLUMNS.split(","))
SETTINGS_TABLES = {"guild": ("guild_settings", "guild_id"), "user": ("user_settings", "user_id")}

#: Part of a move's statement in a game played in a channel: the channel is to be told of
#: it, and of every move since the first one not told yet (cleared once told).
UNTOLD = " untold_from = COALESCE(untold_from, ply), untold_last = ply + 1,"
#: Part of a game's closing statement in a game played in a channel: its end is to be told
#: (an end counts as one ply past the game's last move).
UNTOLD_END = " untold_from = COALESCE(untold_from, ply), untold_last = ply + 1,"
#: Games of the channels (not daily runs) that are live.
LIVE = "g.kind = 'channel' AND g.status IN ('challenge', 'active')"
#: Games of the channels that finished (those the rating takes).
FINISHED = "g.kind = 'channel' AND g.status = 'finished'"
NEWEST_FIRST = "ORDER BY g.finished_at DESC, g.id DESC"
#: A seat changing hands (its new holder's id: placeholder {0}) keeps the person who held
#: it until then, unless it already keeps one: so a resigner's game stays in their
#: history, once a computer sits in their seat.
LEFT_BY = "left_by = COALESCE(left_by, CASE WHEN is_bot = 0 AND user_id <> {0} THEN user_id END)"


def finished_page_query(
    guild_id: int | None,
    user_id: int | None,
    game: str | None,
    limit: int,
    older_than: int | None,
    newer_than: int | None,
    mark: Mark,
) -> tuple[str, list[Any]]:
    """The condition on `games g` for one page of ended games (see
    `GameRepository.finished_games`), and its parameters. The page's ids are found first,
    in an index that holds the server's (or the player's) ended games in order of their
    end, from where the last page stopped; only those games are then read whole.

    A player's games are those of the seats they hold and of those they left to a
    computer (`left_by`): each kind is a page read in its own index, and the two pages,
    at most twice a page of ids, are cut again to one."""
    p = Params(mark)
    order = "ASC" if older_than is None and newer_than is not None else "DESC"

    def page(source: str, key: str, ids: str, whose: str) -> str:
        where = whose + (
            "g.guild_id IS NULL" if guild_id is None else f"g.guild_id = {p(guild_id)}"
        )
        where += " AND g.kind = 'channel' AND g.status IN ('finished', 'aborted')"
        if game is not None:
            where += f" AND g.game = {p(game)}"
        if older_than is not None:
            where += (
                f" AND ({key}) < (SELECT finished_at, id FROM games WHERE id = {p(older_than)})"
            )
        elif newer_than is not None:
            where += (
                f" AND ({key}) > (SELECT finished_at, id FROM games WHERE id = {p(newer_than)})"
            )
        by = ", ".join(f"{column.strip()} {order}" for column in key.split(","))
        return f"SELECT {ids} FROM {source} WHERE {where} ORDER BY {by} LIMIT {p(limit)}"

    if user_id is None:
        return f"g.id IN ({page('games g', 'g.finished_at, g.id', 'g.id', '')})", p.values
    pages = []
    for column, alias in (("user_id", "held"), ("left_by", "gone")):
        # A player in two seats of one game (held or left) lists it once: from their
        # first seat. The placeholders are written in the order they stand in the text.
        whose = (
            f"s.{column} = {p(user_id)} AND s.live = 0 AND NOT EXISTS (SELECT 1 FROM seats o"
            " WHERE o.game_id = s.game_id AND o.seat < s.seat"
            f" AND s.{column} IN (o.user_id, o.left_by)) AND "
        )
        found = page(
            "seats s JOIN games g ON g.id = s.game_id",
            "s.finished_at, s.game_id",
            "s.game_id, s.finished_at",
            whose,
        )
        pages.append(f"SELECT game_id, finished_at FROM ({found}) AS {alias}")
    both = " UNION ALL ".join(pages)
    inner = (
        f"SELECT game_id FROM ({both}) AS mine"
        f" ORDER BY finished_at {order}, game_id {order} LIMIT {p(limit)}"
    )
    return f"g.id IN ({inner})", p.values


# --- daily challenge ----------------------------------------------------------------

RUN_COLUMNS = (
    "user_id, day, week, game_id, started_at, finished_at, score, turns, sizes, unfinished, untold"
)
#: Placeholders {0} the user, {1} how many.
DAYS_PLAYED = (
    "SELECT day FROM daily_runs WHERE user_id = {0} AND finished_at IS NOT NULL"
    " ORDER BY day DESC LIMIT {1}"
)
#: A run in a day's ranking.
RANKED_RUN = "finished_at IS NOT NULL"


def median_offset(runs: int) -> int:
    """How far below the best the median (the lower middle one) of `runs` scores is."""
    return runs - 1 - (runs - 1) // 2


def ahead_query(
    table: str,
    within: tuple[str, object],
    order: Sequence[tuple[str, str, object]],
    guild_id: int | None,
    mark: Mark,
    ranked: str = "",
) -> tuple[str, list[object]]:
    """How many rows of `table` (`ranked`: the condition of the rows in its ranking)
    rank ahead of one: those with the same `within` (column,
    value) that come first by `order` ((column, "<" or ">", the row's value), from the
    first key), each tie on the keys before counted in its own range of the ranking's
    index; only server members' rows when `guild_id` is given. The query and its
    parameters."""
    p = Params(mark)
    counts = []
    for depth, (column, sense, value) in enumerate(order):
        # Placeholders in the order they stand in the text (SQLite's are positional).
        where = f"x.{within[0]} = {p(within[1])}"
        where += "".join(f" AND x.{c} = {p(v)}" for c, _, v in order[:depth])
        where += f" AND x.{column} {sense} {p(value)}"
        if ranked:
            where += f" AND x.{ranked}"
        if guild_id is not None:
            where += (
                " AND EXISTS (SELECT 1 FROM guild_members m"
                f" WHERE m.guild_id = {p(guild_id)} AND m.user_id = x.user_id)"
            )
        counts.append(f"(SELECT count(*) FROM {table} x WHERE {where})")
    return "SELECT " + " + ".join(counts), p.values


# --- ratings ------------------------------------------------------------------------

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
#: The same without the place (0), which costs a count of the rows ahead.
RATING_QUERY = (
    _RATING.format(place=", 0 AS place")
    + " WHERE r.game = {0} AND r.scope = {1} AND r.user_id = {2}"
)
STANDING_QUERY = (
    _RATING.format(place=PLACE) + " WHERE r.game = {0} AND r.scope = {1} AND r.user_id = {2}"
)
#: A player's meetings with another, with placeholders {0} scope, {1} user, {2} other.
MEETINGS = (
    "SELECT game, wins, draws, losses, last_game_id, last_finished_at, last_outcome"
    " FROM head_to_head WHERE scope = {0} AND user_id = {1} AND other_id = {2} ORDER BY game"
)
#: A rating change, with placeholders for its thirteen columns (`change_row`).
INSERT_CHANGE = (
    "INSERT INTO rating_changes (scope, user_id, game_id, game, finished_at, outcome, place,"
    " mu_before, sigma_before, mu_after, sigma_after, others_mu, others)"
    " VALUES ({})"
)
#: A rating computed again, with placeholders for its ten columns (`rated_again`).
INSERT_RATING = (
    "INSERT INTO ratings (game, scope, user_id, mu, sigma, games, wins, draws,"
    " losses, streak) VALUES ({})"
)
#: A pair's meetings computed again, with placeholders for the ten columns
#: (`meetings_again`).
INSERT_MEETINGS = (
    "INSERT INTO head_to_head (scope, user_id, other_id, game, wins, draws, losses,"
    " last_game_id, last_finished_at, last_outcome) VALUES ({})"
)
#: A recomputation keeps no rating of a former player (someone forgotten, whose seats
#: still count for the others): their own rows go, in the same transaction.
FORMER_RATINGS = tuple(
    f"DELETE FROM {table} WHERE user_id IN (SELECT id FROM users WHERE former = 1)"
    for table in ("ratings", "rating_changes", "head_to_head")
)
#: Adding one game to a pair's meetings, with placeholders for the ten columns
#: (`meetings_of`).
MEET = (
    INSERT_MEETINGS + " ON CONFLICT (scope, user_id, other_id, game) DO UPDATE SET"
    " wins = head_to_head.wins + excluded.wins, draws = head_to_head.draws + excluded.draws,"
    " losses = head_to_head.losses + excluded.losses, last_game_id = excluded.last_game_id,"
    " last_finished_at = excluded.last_finished_at, last_outcome = excluded.last_outcome"
)
RESULT_QUERY = "SELECT game_id, game, finished_at, outcome, others_mu, others FROM rating_changes"
