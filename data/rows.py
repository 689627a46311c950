"""Rows and records: what both backends store for a record, and the record a row read
back holds.

A row is read by column name or position alike (`sqlite3.Row`, `asyncpg.Record`); what
the two drivers return differently (SQLite's JSON arrays against PostgreSQL's arrays of
rows) is decoded by each backend before it gets here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Protocol

from data.console import Button
from data.daily import BoardRow, DailyRecord, DailyRun
from data.ratings import Change, RatedResult, Standing, ToRate
from data.repository import GameRecord, NewGame, SeatRecord, Timer, UserRecord
from data.results import load_result


class Row(Protocol):
    """A result row read by column name (sqlite3.Row, asyncpg.Record)."""

    def __getitem__(self, key: str, /) -> Any: ...


# --- games --------------------------------------------------------------------------


def seat_records(entries: Iterable[Any]) -> tuple[SeatRecord, ...]:
    """A game's seats, in seat order, from (seat, accepted, user id, name, is_bot, id and
    name of the person who left the seat or None) entries."""
    return tuple(
        SeatRecord(
            seat,
            UserRecord(uid, name, bool(is_bot)),
            bool(accepted),
            UserRecord(left_id, left_name, False) if left_id is not None else None,
        )
        for seat, accepted, uid, name, is_bot, left_id, left_name in sorted(
            entries, key=lambda entry: entry[0]
        )
    )


def game_record(row: Row, seats: tuple[SeatRecord, ...]) -> GameRecord:
    """A game from a row holding its `GAME_COLUMNS` (read by name) and its seats."""
    return GameRecord(
        id=row["id"],
        game=row["game"],
        kind=row["kind"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        status=row["status"],
        seed=row["seed"],
        variant=row["variant"],
        rules_version=row["rules_version"],
        start_position=row["start_position"],
        ply=row["ply"],
        snapshot=row["snapshot"],
        options=json.loads(row["options"]),
        result=load_result(row["result"]),
        created_by=row["created_by"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        finished_at=row["finished_at"],
        seats=seats,
        deadline_at=row["deadline_at"],
        deadline_from=row["deadline_from"],
        remind_at=row["remind_at"],
        expired_at=row["expired_at"],
        board_message_id=row["board_message_id"],
        untold_from=row["untold_from"],
    )


def timer_values(timer: Timer | None) -> tuple[float | None, float | None, float | None]:
    """deadline_at, deadline_from and remind_at as stored."""
    if timer is None:
        return (None, None, None)
    return (timer.deadline_at, timer.started_at, timer.remind_at)


def dump_json(value: dict[str, Any] | None) -> str | None:
    """A JSON object as stored (keys sorted; None stays NULL)."""
    return None if value is None else json.dumps(value, sort_keys=True)


# --- daily challenge ----------------------------------------------------------------


def run_of(row: Any) -> DailyRun:
    """A run from a row of its `RUN_COLUMNS`."""
    # The last two columns are flags, stored as 0 or 1.
    return DailyRun(*row[:9], *(bool(flag) for flag in row[9:]))


def record_from(totals: Iterable[Any], last: DailyRun | None) -> DailyRecord | None:
    """A record from its row of totals (runs, total, best, unfinished) and last run."""
    found = list(totals)
    if not found or last is None:
        return None
    runs, total, best, unfinished = found[0]
    return DailyRecord(int(runs), int(total), int(best), int(unfinished), last)


def day_rows(rows: Iterable[Any]) -> list[BoardRow]:
    """A day's board from its rows: (user id, name, score, turns), best first."""
    return [BoardRow(i + 1, r[0], r[1], r[2], r[3], r[2], 1) for i, r in enumerate(rows)]


def total_rows(rows: Iterable[Any]) -> list[BoardRow]:
    """A week's or all time's board from its rows: (user id, name, total, best, runs)."""
    return [BoardRow(i + 1, r[0], r[1], r[2], 0, r[3], r[4]) for i, r in enumerate(rows)]


# --- ratings ------------------------------------------------------------------------


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


def new_game_values(new: NewGame, now: float) -> tuple[Any, ...]:
    """A new game as stored: the values of the columns both backends insert, in order
    (game, kind, guild_id, channel_id, status, seed, variant, rules_version,
    start_position, snapshot, options, created_by, created_at, updated_at, and the
    timer's deadline_at, deadline_from, remind_at)."""
    return (
        new.game,
        new.kind,
        new.guild_id,
        new.channel_id,
        new.status,
        new.seed,
        new.variant,
        new.rules_version,
        new.start_position,
        new.snapshot,
        json.dumps(new.options, sort_keys=True),
        new.created_by.id,
        now,
        now,
        *timer_values(new.timer),
    )


def change_row(game: ToRate, c: Change) -> tuple[object, ...]:
    """A rating change as stored, in the columns of `INSERT_CHANGE`."""
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


# --- console ------------------------------------------------------------------------


def dump_buttons(buttons: Iterable[Button]) -> str:
    """Buttons as stored: a JSON list of [payload, label] pairs."""
    return json.dumps([list(b) for b in buttons])


def parse_buttons(decoded: object) -> list[Button]:
    """Buttons from their stored JSON, decoded; ValueError if it is not a list of pairs."""
    pairs = decoded if isinstance(decoded, list) else None
    if pairs is None or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in pairs
    ):
        raise ValueError(f"not a list of [payload, label] pairs: {decoded!r:.80}")
    return [(str(payload), str(label)) for payload, label in pairs]
