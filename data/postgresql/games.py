"""The PostgreSQL implementation of `GameRepository`.

Several bot processes share the database, each statement in READ COMMITTED. A write that
depends on what it reads is one conditional statement (a move checks and raises the ply
in one UPDATE, and the database's trigger logs it), or locks the game's row first (a
seat accepting a challenge), so that no process acts on what another has just changed.
A game is loaded by one query returning its row with its seats (and, if asked, its move
log) aggregated as arrays of rows: one round trip, one snapshot, and times decoded from
PostgreSQL's binary doubles, exactly as stored. The reads and writes whose statements
are SQLite's too are shared (`data.shared`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import asyncpg

from data.postgresql.db import PgDatabase, rowcount
from data.queries import (
    FINISHED,
    GAME_COLUMNS_OF_G,
    LEFT_BY,
    LIVE,
    SETTINGS_TABLES,
    UNTOLD,
    UNTOLD_END,
    Params,
)
from data.repository import (
    LIVE_STATUSES,
    GameRecord,
    HandOver,
    LiveGameExistsError,
    MoveRecord,
    NewGame,
    OneServer,
    SettingsChanges,
    StalePlyError,
    Status,
    TimeKeeping,
    Timer,
    UserRecord,
    is_stored_id,
    settings_paths,
)
from data.results import GameResult, dump_result
from data.rows import dump_json, game_record, new_game_values, seat_records, timer_values
from data.shared import SharedGameRepository

if TYPE_CHECKING:
    from data.postgresql.db import Connection

#: The unique index that allows one live game per channel.
LIVE_GAME_INDEX = "games_one_live_per_channel"


class PgGameRepository(SharedGameRepository[PgDatabase]):
    async def _games(
        self, where: str, params: Sequence[Any], *, tail: str = "ORDER BY g.id"
    ) -> list[GameRecord]:
        return records(await self.db.fetch(select_games(where, tail=tail), params))

    def _of_shards(self, shards: TimeKeeping | None, p: Params) -> str:
        if shards is None:
            return ""
        if isinstance(shards, OneServer):
            return f" AND guild_id = {p(shards.guild_id)}"
        return (
            " AND (CASE WHEN guild_id IS NULL THEN 0"
            f" ELSE (guild_id >> 22) % {p(shards.count)} END) = ANY({p(list(shards.ids))}::int[])"
        )

    # --- writes -----------------------------------------------------------------------
    async def create_game(self, new: NewGame, now: float) -> GameRecord:
        async with self.db.transaction() as conn:
            game_id = await insert_game(conn, new, now)
            return await load_game(conn, game_id)

    async def append_move(
        self,
        game_id: int,
        expected_ply: int,
        seat: int,
        user_id: int,
        text: str,
        snapshot: str,
        now: float,
        result: GameResult | None = None,
        timer: Timer | None = None,
        *,
        untold: bool = False,
    ) -> None:
        # One statement, one round trip: the ply check, the new snapshot and (by trigger)
        # the log entry commit together or not at all. A concurrent move at the same ply
        # waits for this row, then finds the ply moved on and changes nothing.
        rows = await self.db.write(
            "UPDATE games SET ply = ply + 1, snapshot = $1, updated_at = $2, deadline_at = $3,"
            " deadline_from = $4, remind_at = $5, expired_at = NULL,"
            " last_seat = $6, last_user_id = $7, last_move = $8,"
            f"{UNTOLD if untold else ''}"
            " status = COALESCE($12::text, status),"
            " result = COALESCE($9::text, result),"
            " finished_at = CASE WHEN $9::text IS NULL THEN finished_at ELSE $2 END"
            " WHERE id = $10 AND ply = $11 AND status = 'active' RETURNING ply",
            (
                snapshot,
                now,
                *timer_values(timer),
                seat,
                user_id,
                text,
                dump_result(result),
                game_id,
                expected_ply,
                result.status if result is not None else None,
            ),
        )
        if not rows:
            raise StalePlyError(f"game {game_id} is not live at ply {expected_ply}")

    async def accept_seat(
        self, game_id: int, seat: int, now: float, timer: Timer | None = None
    ) -> GameRecord:
        async with self.db.transaction() as conn:
            # The game's row is locked first: players accepting other seats at the same
            # time wait, and the last one sees every other acceptance and starts the game.
            status = await conn.fetchval(
                "SELECT status FROM games WHERE id = $1 FOR NO KEY UPDATE", game_id
            )
            accepted = 0
            if status == "challenge":
                accepted = rowcount(
                    await conn.execute(
                        "UPDATE seats SET accepted = 1"
                        " WHERE game_id = $1 AND seat = $2 AND accepted = 0",
                        game_id,
                        seat,
                    )
                )
            if accepted != 1:
                raise StalePlyError(f"seat {seat} of game {game_id} cannot accept now")
            await conn.execute(
                "UPDATE games SET status = 'active', updated_at = $2, deadline_at = $3,"
                " deadline_from = $4, remind_at = $5"
                " WHERE id = $1 AND status = 'challenge' AND NOT EXISTS"
                " (SELECT 1 FROM seats WHERE game_id = $1 AND accepted = 0)",
                game_id,
                now,
                *timer_values(timer),
            )
            return await load_game(conn, game_id)

    async def close_game(
        self,
        game_id: int,
        expected_ply: int,
        status: Status,
        result: GameResult | None,
        now: float,
        only_from: tuple[Status, ...] = LIVE_STATUSES,
        hand_over: HandOver | None = None,
        *,
        untold: bool = False,
    ) -> GameRecord:
        async with self.db.transaction() as conn:
            if hand_over is not None:
                await upsert_user(conn, hand_over.user)
            # The game's row before its seats, in the order accept_seat takes them.
            done = await conn.execute(
                "UPDATE games SET status = $1, result = $2, updated_at = $3, finished_at = $3,"
                " deadline_at = NULL, remind_at = NULL, expired_at = NULL,"
                f"{UNTOLD_END if untold else ''}"
                " options = COALESCE($7, options)"
                " WHERE id = $4 AND ply = $5 AND status = ANY($6::text[])",
                status,
                dump_result(result),
                now,
                game_id,
                expected_ply,
                list(only_from),
                None if hand_over is None else dump_json(hand_over.options),
            )
            if rowcount(done) != 1:
                raise StalePlyError(f"game {game_id} is not live at ply {expected_ply}")
            if hand_over is not None:
                await _seat(conn, game_id, hand_over.seats, hand_over.user)
            return await load_game(conn, game_id)

    async def replace_seats(
        self, game_id: int, seats: tuple[int, ...], user: UserRecord, options: dict[str, Any]
    ) -> GameRecord:
        async with self.db.transaction() as conn:
            await upsert_user(conn, user)
            # The game's row before its seats, in the order accept_seat takes them.
            await conn.execute(
                "UPDATE games SET options = $1 WHERE id = $2",
                json.dumps(options, sort_keys=True),
                game_id,
            )
            await _seat(conn, game_id, seats, user)
            return await load_game(conn, game_id)

    async def set_board_messages(self, boards: dict[int, int]) -> None:
        if not boards:
            return
        async with self.db.transaction() as conn:
            # In the order of the games' ids, as every writer of several games locks them,
            # so that two processes never wait for each other's rows.
            await conn.executemany(
                "UPDATE games SET board_message_id = $1 WHERE id = $2",
                [(boards[game_id], game_id) for game_id in sorted(boards)],
            )

    async def change_settings(
        self, scope: Literal["guild", "user"], key: int, changes: SettingsChanges
    ) -> None:
        settings_paths(changes)
        if not changes:
            return
        table, column = SETTINGS_TABLES[scope]
        # The keys given replace theirs (`||`), and so do those inside an object-valued
        # key, on the row as it stands: ON CONFLICT DO UPDATE locks it and sees the last
        # committed change. A value that is not an object is replaced, as reading
        # ignores it.
        p = Params(self.db.mark)
        row_key = p(key)
        top: dict[str, Any] = {}
        inner: dict[str, dict[str, Any]] = {}
        for path, value in changes.items():
            if len(path) == 1:
                top[path[0]] = value
            else:
                inner.setdefault(path[0], {})[path[1]] = value
        merged = f"s || {p(json.dumps(top))}::jsonb"
        for parent, keys in inner.items():
            name = f"{p(parent)}::text"
            merged += (
                f" || jsonb_build_object({name}, CASE WHEN jsonb_typeof(s -> {name}) = 'object'"
                f" THEN s -> {name} ELSE '{{}}' END || {p(json.dumps(keys))}::jsonb)"
            )
        stored = f"{table}.settings::jsonb"
        current = f"CASE WHEN jsonb_typeof({stored}) = 'object' THEN {stored} ELSE '{{}}' END"
        await self.db.write(
            f"INSERT INTO {table} ({column}, settings) VALUES ({row_key},"
            f" (SELECT ({merged})::text FROM (SELECT '{{}}'::jsonb AS s) AS stored))"
            f" ON CONFLICT ({column}) DO UPDATE SET settings ="
            f" (SELECT ({merged})::text FROM (SELECT {current} AS s) AS stored)",
            p.values,
        )

    async def follow(self, game_id: int, user: UserRecord, on: bool) -> None:
        async with self.db.transaction() as conn:
            if on:
                await upsert_user(conn, user)
                await conn.execute(
                    "INSERT INTO follows (game_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                    game_id,
                    user.id,
                )
            else:
                await conn.execute(
                    "DELETE FROM follows WHERE game_id = $1 AND user_id = $2", game_id, user.id
                )

    # --- reads ------------------------------------------------------------------------
    async def game_with_moves(self, game_id: int) -> tuple[GameRecord, list[MoveRecord]] | None:
        if not is_stored_id(game_id):
            return None
        rows = await self.db.fetch(select_games("g.id = $1", with_moves=True), (game_id,))
        if not rows:
            return None
        return records(rows)[0], [MoveRecord(*entry) for entry in rows[0]["log"]]

    async def live_games(
        self, guild_id: int | None, limit: int, offset: int, excluding: Collection[int] = ()
    ) -> tuple[list[GameRecord], int]:
        p = Params(self.db.mark)
        where = f"{_in_guild(guild_id, p)} AND {LIVE}"
        if excluding:
            where += f" AND NOT (g.id = ANY({p(list(excluding))}::bigint[]))"
        filters = list(p.values)
        page = select_games(where, tail=f"ORDER BY g.id LIMIT {p(limit)} OFFSET {p(offset)}")
        async with self.db.read() as conn:
            # One snapshot: the count is of the games the page is cut from.
            count = await conn.fetchval(f"SELECT count(*) FROM games g WHERE {where}", *filters)
            rows = await conn.fetch(page, *p.values)
        return records(rows), int(count)


# --- helpers shared with the other PostgreSQL repositories ----------------------------


async def insert_game(conn: Connection, new: NewGame, now: float) -> int:
    """Insert a game and its seats inside the caller's transaction; returns its id.
    LiveGameExistsError if its channel has a live game (the transaction is then failed:
    the caller rolls it back, or a savepoint around this call)."""
    await _upsert_users(conn, [*(user for user, _accepted in new.seats), new.created_by])
    try:
        game_id = await conn.fetchval(
            "INSERT INTO games (game, kind, guild_id, channel_id, status, seed, variant,"
            " rules_version, start_position, ply, snapshot, options, created_by,"
            " created_at, updated_at, deadline_at, deadline_from, remind_at)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $10, $11, $12, $13, $14,"
            " $15, $16, $17) RETURNING id",
            *new_game_values(new, now),
        )
    except asyncpg.UniqueViolationError as exc:
        if exc.constraint_name == LIVE_GAME_INDEX:
            raise LiveGameExistsError(f"channel {new.channel_id} has a live game") from exc
        raise
    if new.seats:
        await conn.execute(
            "INSERT INTO seats (game_id, seat, user_id, is_bot, accepted)"
            " SELECT $1, s.seat, s.user_id, s.is_bot, s.accepted"
            " FROM unnest($2::int[], $3::bigint[], $4::int[], $5::int[])"
            " AS s (seat, user_id, is_bot, accepted)",
            game_id,
            list(range(len(new.seats))),
            [user.id for user, _accepted in new.seats],
            [int(user.is_bot) for user, _accepted in new.seats],
            [int(accepted) for _user, accepted in new.seats],
        )
    return int(game_id)


async def _seat(conn: Connection, game_id: int, seats: tuple[int, ...], user: UserRecord) -> None:
    """`user` (already stored) takes `seats` of the game, inside the caller's transaction;
    a seat a person held keeps who they were (`LEFT_BY`)."""
    await conn.execute(
        f"UPDATE seats SET {LEFT_BY.format('$1')}, user_id = $1, is_bot = $2, accepted = 1"
        " WHERE game_id = $3 AND seat = ANY($4::int[])",
        user.id,
        int(user.is_bot),
        game_id,
        list(seats),
    )


async def upsert_user(conn: Connection, user: UserRecord) -> None:
    """Store a user's name and kind as last seen, inside the caller's transaction."""
    await _upsert_users(conn, [user])


async def _upsert_users(conn: Connection, users: Iterable[UserRecord]) -> None:
    """Store several users in one statement (the last of any id given twice wins). Rows
    are taken in the order of their ids, as every writer of several users does, so that
    two transactions never wait for each other's rows; a row already as given is left
    untouched."""
    latest = {user.id: user for user in users}
    chosen = [latest[user_id] for user_id in sorted(latest)]
    await conn.execute(
        "INSERT INTO users (id, name, is_bot)"
        " SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[])"
        " ON CONFLICT (id) DO UPDATE SET name = excluded.name, is_bot = excluded.is_bot"
        " WHERE (users.name, users.is_bot) IS DISTINCT FROM (excluded.name, excluded.is_bot)",
        [user.id for user in chosen],
        [user.name for user in chosen],
        [int(user.is_bot) for user in chosen],
    )


async def load_game(conn: Connection, game_id: int) -> GameRecord:
    """A game as the caller's connection sees it (inside its transaction)."""
    return records(await conn.fetch(select_games("g.id = $1"), game_id))[0]


#: In the order they finished; a game without an end time first, as SQLite orders NULL.
_BY_FINISH = "ORDER BY g.finished_at NULLS FIRST, g.id"


async def unrated_finished(db: PgDatabase, limit: int) -> list[GameRecord]:
    """Finished games not through the rating yet, in the order they finished."""
    where = f"{FINISHED} AND g.rated_at IS NULL"
    return records(await db.fetch(select_games(where, tail=f"{_BY_FINISH} LIMIT $1"), (limit,)))


async def finished_in_order(db: PgDatabase) -> list[GameRecord]:
    """Every finished game, in the order they finished."""
    return records(await db.fetch(select_games(FINISHED, tail=_BY_FINISH)))


_SEATS = (
    "ARRAY(SELECT ROW(s.seat, s.accepted, u.id, u.name, s.is_bot, l.id, l.name)"
    " FROM seats s JOIN users u ON u.id = s.user_id LEFT JOIN users l ON l.id = s.left_by"
    " WHERE s.game_id = g.id ORDER BY s.seat) AS seat_list"
)
_LOG = (
    "ARRAY(SELECT ROW(m.ply, m.seat, m.user_id, m.text, m.created_at)"
    " FROM moves m WHERE m.game_id = g.id ORDER BY m.ply) AS log"
)


def select_games(where: str, *, with_moves: bool = False, tail: str = "ORDER BY g.id") -> str:
    """One query for whole games matching `where` (on `games g`), ordered and cut by
    `tail`: their row, their seats in seat order and, if asked, their move log in ply
    order (`log`), so that a load is one round trip and one consistent snapshot."""
    log = f", {_LOG}" if with_moves else ""
    return f"SELECT {GAME_COLUMNS_OF_G}, {_SEATS}{log} FROM games g WHERE {where} {tail}"


def records(rows: Iterable[asyncpg.Record]) -> list[GameRecord]:
    """The games of rows read with `select_games`."""
    return [game_record(row, seat_records(row["seat_list"])) for row in rows]


def _in_guild(guild_id: int | None, p: Params) -> str:
    """The condition for games of a server, or with None of direct messages (SQLite's
    `IS ?`); spelled as `=` or `IS NULL` rather than `IS NOT DISTINCT FROM`, which no
    index serves."""
    return "g.guild_id IS NULL" if guild_id is None else f"g.guild_id = {p(guild_id)}"
