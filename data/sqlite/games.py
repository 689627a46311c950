"""The SQLite implementation of `GameRepository`: what differs from PostgreSQL's (its
writes, and how a game is read whole); the rest is shared (`data.shared`)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Sequence
from typing import Any, Literal, cast

import aiosqlite

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
from data.sqlite.db import Database, in_thread


class SqliteGameRepository(SharedGameRepository[Database]):
    async def _games(
        self, where: str, params: Sequence[Any], *, tail: str = "ORDER BY g.id"
    ) -> list[GameRecord]:
        return _records(await self.db.fetch(_select(where, tail=tail), params))

    def _of_shards(self, shards: TimeKeeping | None, p: Params) -> str:
        if shards is None:
            return ""
        if isinstance(shards, OneServer):
            return f" AND guild_id = {p(shards.guild_id)}"
        shard = f"CASE WHEN guild_id IS NULL THEN 0 ELSE (guild_id >> 22) % {p(shards.count)} END"
        return f" AND ({shard}) IN ({','.join(p(held) for held in shards.ids)})"

    # --- writes -----------------------------------------------------------------------
    async def create_game(self, new: NewGame, now: float) -> GameRecord:
        # One hand-over to the writer's thread: a burst of starts holds the writer
        # for their statements only.
        return await self.db.atomic(_create_game, new, now)

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
        # One statement: the ply check, the new snapshot and (by trigger) the log entry
        # commit together or not at all.
        done = dump_result(result)
        rows = await self.db.write(
            "UPDATE games SET ply = ply + 1, snapshot = ?, updated_at = ?, deadline_at = ?,"
            " deadline_from = ?, remind_at = ?, expired_at = NULL,"
            " last_seat = ?, last_user_id = ?, last_move = ?,"
            f"{UNTOLD if untold else ''}"
            " status = COALESCE(?, status),"
            " result = COALESCE(?, result),"
            " finished_at = CASE WHEN ? IS NULL THEN finished_at ELSE ? END"
            " WHERE id = ? AND ply = ? AND status = 'active' RETURNING ply",
            (
                snapshot,
                now,
                *timer_values(timer),
                seat,
                user_id,
                text,
                result.status if result is not None else None,
                done,
                done,
                now,
                game_id,
                expected_ply,
            ),
        )
        if not rows:
            raise StalePlyError(f"game {game_id} is not live at ply {expected_ply}")

    async def accept_seat(
        self, game_id: int, seat: int, now: float, timer: Timer | None = None
    ) -> GameRecord:
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "UPDATE seats SET accepted = 1 WHERE game_id = ? AND seat = ? AND accepted = 0"
                " AND EXISTS (SELECT 1 FROM games WHERE id = ? AND status = 'challenge')",
                (game_id, seat, game_id),
            )
            if cur.rowcount != 1:
                raise StalePlyError(f"seat {seat} of game {game_id} cannot accept now")
            await conn.execute(
                "UPDATE games SET status = 'active', updated_at = ?, deadline_at = ?,"
                " deadline_from = ?, remind_at = ?"
                " WHERE id = ? AND status = 'challenge' AND NOT EXISTS"
                " (SELECT 1 FROM seats WHERE game_id = ? AND accepted = 0)",
                (now, *timer_values(timer), game_id, game_id),
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
        marks = ",".join("?" * len(only_from))
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "UPDATE games SET status = ?, result = ?, updated_at = ?, finished_at = ?,"
                " deadline_at = NULL, remind_at = NULL, expired_at = NULL,"
                f"{UNTOLD_END if untold else ''}"
                " options = COALESCE(?, options)"
                f" WHERE id = ? AND ply = ? AND status IN ({marks})",
                (
                    status,
                    dump_result(result),
                    now,
                    now,
                    None if hand_over is None else dump_json(hand_over.options),
                    game_id,
                    expected_ply,
                    *only_from,
                ),
            )
            if cur.rowcount != 1:
                raise StalePlyError(f"game {game_id} is not live at ply {expected_ply}")
            if hand_over is not None:
                await _seat(conn, game_id, hand_over.seats, hand_over.user)
            return await load_game(conn, game_id)

    async def replace_seats(
        self, game_id: int, seats: tuple[int, ...], user: UserRecord, options: dict[str, Any]
    ) -> GameRecord:
        async with self.db.transaction() as conn:
            await _seat(conn, game_id, seats, user)
            await conn.execute(
                "UPDATE games SET options = ? WHERE id = ?",
                (json.dumps(options, sort_keys=True), game_id),
            )
            return await load_game(conn, game_id)

    async def set_board_messages(self, boards: dict[int, int]) -> None:
        if not boards:
            return
        async with self.db.transaction() as conn:
            await conn.executemany(
                "UPDATE games SET board_message_id = ? WHERE id = ?",
                [(message_id, game_id) for game_id, message_id in boards.items()],
            )

    async def change_settings(
        self, scope: Literal["guild", "user"], key: int, changes: SettingsChanges
    ) -> None:
        settings_paths(changes)
        if not changes:
            return
        table, column = SETTINGS_TABLES[scope]
        # json_set sets each path on the row as it stands (making a missing object on
        # the way); a value that is not an object is replaced, as reading ignores it.
        sets = ", ".join("?, json(?)" for _ in changes)
        params = [
            value
            for path, change in changes.items()
            for value in ("$" + "".join(f'."{k}"' for k in path), json.dumps(change))
        ]
        await self.db.write(
            f"INSERT INTO {table} ({column}, settings) VALUES (?, json_set('{{}}', {sets}))"
            f" ON CONFLICT ({column}) DO UPDATE SET settings = json_set(CASE WHEN"
            f" json_valid({table}.settings) AND json_type({table}.settings) = 'object'"
            f" THEN {table}.settings ELSE '{{}}' END, {sets})",
            (key, *params, *params),
        )

    async def follow(self, game_id: int, user: UserRecord, on: bool) -> None:
        async with self.db.transaction() as conn:
            if on:
                await upsert_user(conn, user)
                await conn.execute(
                    "INSERT OR IGNORE INTO follows (game_id, user_id) VALUES (?, ?)",
                    (game_id, user.id),
                )
            else:
                await conn.execute(
                    "DELETE FROM follows WHERE game_id = ? AND user_id = ?", (game_id, user.id)
                )

    # --- reads ------------------------------------------------------------------------
    async def game_with_moves(self, game_id: int) -> tuple[GameRecord, list[MoveRecord]] | None:
        if not is_stored_id(game_id):
            return None
        rows = await self.db.fetch(_select("g.id = ?", with_moves=True), (game_id,))
        if not rows:
            return None
        return _records(rows)[0], _moves(rows[0]["log"])

    async def live_games(
        self, guild_id: int | None, limit: int, offset: int, excluding: Collection[int] = ()
    ) -> tuple[list[GameRecord], int]:
        where = f"g.guild_id IS ? AND {LIVE}"
        if excluding:
            where += f" AND g.id NOT IN ({','.join('?' * len(excluding))})"
        params = (guild_id, *excluding)
        async with self.db.read() as conn:
            # One snapshot: the count is of the games the page is cut from.
            await conn.execute("BEGIN")
            try:
                count = await conn.execute_fetchall(
                    f"SELECT count(*) FROM games g WHERE {where}", params
                )
                rows = await conn.execute_fetchall(
                    _select(where, tail="ORDER BY g.id LIMIT ? OFFSET ?"),
                    (*params, limit, offset),
                )
            finally:
                await conn.execute("COMMIT")
        return _records(rows), int(next(iter(count))[0])


#: A person (or computer) as last seen: their name is kept up to date.
_UPSERT_USER = (
    "INSERT INTO users (id, name, is_bot) VALUES (?,?,?)"
    " ON CONFLICT (id) DO UPDATE SET name = excluded.name, is_bot = excluded.is_bot"
)
_INSERT_GAME = (
    "INSERT INTO games (game, kind, guild_id, channel_id, status, seed, variant,"
    " rules_version, start_position, ply, snapshot, options, created_by,"
    " created_at, updated_at, deadline_at, deadline_from, remind_at)"
    " VALUES (?,?,?,?,?,?,?,?,?,0,?,?,?,?,?,?,?,?)"
)
_INSERT_SEAT = "INSERT INTO seats (game_id, seat, user_id, is_bot, accepted) VALUES (?,?,?,?,?)"


def _user_row(user: UserRecord) -> tuple[int, str, int]:
    return (user.id, user.name, int(user.is_bot))


def _seat_rows(game_id: int, new: NewGame) -> list[tuple[int, int, int, int, int]]:
    return [
        (game_id, seat, user.id, int(user.is_bot), int(accepted))
        for seat, (user, accepted) in enumerate(new.seats)
    ]


def _live_game_exists(exc: sqlite3.IntegrityError, new: NewGame) -> Exception:
    """What a refused insert of `new` means: its channel has a live game, or a fault."""
    if "UNIQUE" in str(exc):
        return LiveGameExistsError(f"channel {new.channel_id} has a live game")
    return exc


async def insert_game(conn: aiosqlite.Connection, new: NewGame, now: float) -> int:
    """Insert a game and its seats inside the caller's transaction; returns its id."""
    return await in_thread(conn, _insert_game, new, now)


def _insert_game(conn: sqlite3.Connection, new: NewGame, now: float) -> int:
    """`insert_game`, in the connection's thread."""
    conn.executemany(_UPSERT_USER, [_user_row(u) for u in _people(new)])
    try:
        cur = conn.execute(_INSERT_GAME, new_game_values(new, now))
    except sqlite3.IntegrityError as exc:
        raise _live_game_exists(exc, new) from exc
    game_id = cast(int, cur.lastrowid)
    conn.executemany(_INSERT_SEAT, _seat_rows(game_id, new))
    return game_id


def _create_game(conn: sqlite3.Connection, new: NewGame, now: float) -> GameRecord:
    """`insert_game` then `load_game`, in the writer's thread (`Database.atomic`)."""
    game_id = _insert_game(conn, new, now)
    return _records(conn.execute(_select("g.id = ?"), (game_id,)).fetchall())[0]


def _people(new: NewGame) -> list[UserRecord]:
    """Everyone a new game names: its seats' players, then whoever made it."""
    return [user for user, _accepted in new.seats] + [new.created_by]


async def _seat(
    conn: aiosqlite.Connection, game_id: int, seats: tuple[int, ...], user: UserRecord
) -> None:
    """`user` takes `seats` of the game, inside the caller's transaction; a seat a person
    held keeps who they were (`LEFT_BY`)."""
    await upsert_user(conn, user)
    await conn.executemany(
        f"UPDATE seats SET {LEFT_BY.format('?')}, user_id = ?, is_bot = ?, accepted = 1"
        " WHERE game_id = ? AND seat = ?",
        [(user.id, user.id, int(user.is_bot), game_id, seat) for seat in seats],
    )


async def upsert_user(conn: aiosqlite.Connection, user: UserRecord) -> None:
    await conn.execute(_UPSERT_USER, _user_row(user))


async def load_game(conn: aiosqlite.Connection, game_id: int) -> GameRecord:
    """A game as the caller's connection sees it (inside its transaction)."""
    return _records(await conn.execute_fetchall(_select("g.id = ?"), (game_id,)))[0]


_BY_FINISH = "ORDER BY g.finished_at, g.id"


async def unrated_finished(db: Database, limit: int) -> list[GameRecord]:
    """Finished games not through the rating yet, in the order they finished."""
    where = f"{FINISHED} AND g.rated_at IS NULL"
    query = _select(where).replace("ORDER BY g.id", f"{_BY_FINISH} LIMIT ?")
    return _records(await db.fetch(query, (limit,)))


async def finished_in_order(db: Database) -> list[GameRecord]:
    """Every finished game, in the order they finished."""
    return _records(await db.fetch(_select(FINISHED).replace("ORDER BY g.id", _BY_FINISH)))


_SEATS = (
    "(SELECT json_group_array(json_array(s.seat, s.accepted, u.id, u.name, s.is_bot,"
    " l.id, l.name)) FROM seats s JOIN users u ON u.id = s.user_id"
    " LEFT JOIN users l ON l.id = s.left_by WHERE s.game_id = g.id) AS seat_list"
)
_LOG = (
    "(SELECT json_group_array(json_array(m.ply, m.seat, m.user_id, m.text, m.created_at))"
    " FROM moves m WHERE m.game_id = g.id) AS log"
)


def _select(where: str, *, with_moves: bool = False, tail: str = "ORDER BY g.id") -> str:
    """One query for whole games, ordered and cut by `tail`: their row, their seats and,
    if asked, their move log, so that a load is one round trip and one consistent
    snapshot of the database."""
    log = f", {_LOG}" if with_moves else ""
    return f"SELECT {GAME_COLUMNS_OF_G}, {_SEATS}{log} FROM games g WHERE {where} {tail}"


def _moves(log: str) -> list[MoveRecord]:
    return [MoveRecord(*entry) for entry in sorted(json.loads(log))]


def _records(rows: Iterable[sqlite3.Row]) -> list[GameRecord]:
    return [game_record(row, seat_records(json.loads(row["seat_list"]))) for row in rows]
