"""What is stored about a person: a copy of it, and forgetting it. Both backends share one
implementation (`PrivacyRepository`): their SQL is the same but for placeholders, and each
lends its transactions (`Tx`).

Forgetting a person keeps what other people's games need: their seats in games others
played, their moves, their daily runs on the shared tables, their places in tournaments.
Those pass to "a former player", a users row made for this one forgetting, with a fresh
random id (negative: Discord's ids and the console's are not) and no name, that nothing
links back to them. What is theirs alone is removed: preferences, follows, away time,
digests, memberships, web sessions, ratings and rating changes.

A forgetting is a sequence of steps (`STEPS`), each one transaction. The `forgetting` row
says which are done, so a forgetting interrupted (a process killed midway) is finished by
running it again. That row alone links the person's id to the former player's, and it is
removed by the last step, with the person's own users row.
"""

from __future__ import annotations

import json
import re
import secrets
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from data.queries import Params

#: The columns that hold a person's id, in every table that has one. `users.id` is the
#: person; the console remembers its buttons by its person's name (`owner`).
USER_COLUMNS: dict[str, tuple[str, ...]] = {
    "users": ("id",),
    "games": ("created_by", "last_user_id"),
    "seats": ("user_id", "left_by"),
    "moves": ("user_id",),
    "daily_runs": ("user_id",),
    "daily_totals": ("user_id",),
    "guild_members": ("user_id",),
    "user_settings": ("user_id",),
    "follows": ("user_id",),
    "rating_changes": ("user_id",),
    "ratings": ("user_id",),
    "head_to_head": ("user_id", "other_id"),
    "events": ("created_by",),
    "event_entrants": ("user_id",),
    "event_seats": ("user_id",),
    "digests": ("user_id",),
    "away": ("user_id",),
    "web_sessions": ("user_id",),
    "forgetting": ("user_id",),
}
#: Games read at a time by the step that looks for the person in games they had no seat
#: in (an admin who ended a game, a resigner whose seats were handed over).
GAME_PAGE = 2000
#: The former player ids: negative 63-bit numbers, apart from every Discord snowflake and
#: console id (both are never negative).
FORMER_IDS = 1 << 62


class Tx(Protocol):
    """One backend's write transaction, as the shared statements use it."""

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Any]: ...


class Db(Protocol):
    def mark(self, n: int) -> str: ...

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Any]: ...


@dataclass(frozen=True, slots=True)
class StoredUser:
    id: int
    name: str
    is_bot: bool
    #: A former player: the seats of someone forgotten.
    former: bool


@dataclass(frozen=True, slots=True)
class Forgetting:
    """A forgetting under way."""

    user_id: int
    former_id: int
    #: Steps done (`len(STEPS)`: all).
    step: int
    #: The last row read by the step under way, if it pages (a game, a console channel).
    after_game: int


def new_former_id() -> int:
    """A fresh former player's id: random, so nothing derives it from the person's."""
    return -1 - secrets.randbelow(FORMER_IDS)


def as_dict(row: Any) -> dict[str, Any]:
    """A row of either backend as {column: value}."""
    return dict(zip(row.keys(), tuple(row), strict=True))


class PrivacyRepository(ABC):
    """A person's stored data on either backend."""

    def __init__(self, db: Db) -> None:
        self.db = db

    @abstractmethod
    def _transaction(self) -> AbstractAsyncContextManager[Tx]: ...

    def _params(self) -> Params:
        return Params(self.db.mark)

    # --- reads ------------------------------------------------------------------------
    async def user(self, user_id: int) -> StoredUser | None:
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT id, name, is_bot, former FROM users WHERE id = {p(user_id)}", p.values
        )
        if not rows:
            return None
        row = rows[0]
        return StoredUser(int(row[0]), str(row[1]), bool(row[2]), bool(row[3]))

    async def computer(self) -> StoredUser | None:
        """The bot's own user, as its games seat it (the first computer stored)."""
        rows = await self.db.fetch(
            "SELECT id, name, is_bot, former FROM users WHERE is_bot = 1 ORDER BY id LIMIT 1"
        )
        if not rows:
            return None
        row = rows[0]
        return StoredUser(int(row[0]), str(row[1]), bool(row[2]), bool(row[3]))

    async def forgetting(self, user_id: int) -> Forgetting | None:
        p = self._params()
        rows = await self.db.fetch(
            "SELECT user_id, former_id, step, after_game FROM forgetting"
            f" WHERE user_id = {p(user_id)}",
            p.values,
        )
        return _forgetting(rows[0]) if rows else None

    async def unfinished(self, before: float | None = None) -> list[int]:
        """The people whose forgetting is under way (begun before `before`, if given): a
        few at a time, the oldest first. The table holds only forgettings under way."""
        p = self._params()
        since = "" if before is None else f" WHERE started_at < {p(before)}"
        rows = await self.db.fetch(
            f"SELECT user_id FROM forgetting{since} ORDER BY started_at LIMIT 100", p.values
        )
        return [int(row[0]) for row in rows]

    async def _select(self, table: str, where: str, values: Sequence[Any]) -> list[dict[str, Any]]:
        rows = await self.db.fetch(f"SELECT * FROM {table} WHERE {where}", values)
        return [as_dict(row) for row in rows]

    async def _rows_of(
        self, table: str, column: str, value: int, order: str | None = None
    ) -> list[dict[str, Any]]:
        p = self._params()
        ordered = f" ORDER BY {order}" if order else ""
        return await self._select(table, f"{column} = {p(value)}{ordered}", p.values)

    async def export(self, user_id: int) -> dict[str, list[dict[str, Any]]]:
        """Every row stored about the person, by table: their own rows, and the games
        they sat in (or made, or left) with every seat and move of them. Web sessions
        are given without the hash of their token."""
        found: dict[str, list[dict[str, Any]]] = {}
        for table, columns in USER_COLUMNS.items():
            if table in ("games", "moves"):
                continue
            p = self._params()
            where = " OR ".join(f"{column} = {p(user_id)}" for column in columns)
            found[table] = await self._select(table, where, p.values)
        for session in found["web_sessions"]:
            session.pop("token_hash", None)
        found["games"] = []
        found["moves"] = []
        for game_id in await self._game_ids(user_id):
            game = await self._rows_of("games", "id", game_id)
            if not game:
                continue
            record = game[0]
            record["seats"] = await self._rows_of("seats", "game_id", game_id, "seat")
            record["moves"] = await self._rows_of("moves", "game_id", game_id, "ply")
            found["games"].append(record)
            found["moves"].extend(m for m in record["moves"] if m["user_id"] == user_id)
        return found

    async def _game_ids(self, user_id: int) -> list[int]:
        """The games the person sat in, left, or made, each read in its own index."""
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT game_id FROM seats WHERE user_id = {p(user_id)}"
            f" UNION SELECT game_id FROM seats WHERE left_by = {p(user_id)}"
            f" UNION SELECT id FROM games WHERE created_by = {p(user_id)}",
            p.values,
        )
        return sorted({int(row[0]) for row in rows})

    # --- forgetting -------------------------------------------------------------------
    async def begin(self, user_id: int, now: float) -> Forgetting | None:
        """The person's forgetting: begun now (with its former player), or the one under
        way. None: no such person (or a former player: they are forgotten)."""
        async with self._transaction() as tx:
            p = self._params()
            rows = await tx.rows(
                "SELECT user_id, former_id, step, after_game FROM forgetting"
                f" WHERE user_id = {p(user_id)}",
                p.values,
            )
            if rows:
                return _forgetting(rows[0])
            p = self._params()
            rows = await tx.rows(f"SELECT former FROM users WHERE id = {p(user_id)}", p.values)
            if not rows or int(rows[0][0]):
                return None
            former_id = new_former_id()
            p = self._params()
            await tx.rows(
                f"INSERT INTO users (id, name, is_bot, former) VALUES ({p(former_id)}, '', 0, 1)",
                p.values,
            )
            p = self._params()
            await tx.rows(
                "INSERT INTO forgetting (user_id, former_id, step, after_game, started_at)"
                f" VALUES ({p(user_id)}, {p(former_id)}, 0, 0, {p(now)})",
                p.values,
            )
            return Forgetting(user_id, former_id, 0, 0)

    async def run(
        self, forgetting: Forgetting, after_step: Callable[[int], Awaitable[None]] | None = None
    ) -> set[int]:
        """Every step not yet done, each in its own transaction (a step that pages, one
        per page); `after_step` is told each step's number once it is committed. Returns
        the games whose pages change."""
        touched: set[int] = set()
        current = forgetting
        while current.step < len(STEPS):
            async with self._transaction() as tx:
                step = Step(tx, self._params, current, touched)
                cursor = await STEPS[current.step](step)
                done = cursor is None
                current = Forgetting(
                    current.user_id,
                    current.former_id,
                    current.step + 1 if done else current.step,
                    0 if cursor is None else cursor,
                )
                if current.step < len(STEPS):
                    await step.run(
                        "UPDATE forgetting SET step = {step}, after_game = {after}"
                        " WHERE user_id = {old}",
                        step=current.step,
                        after=current.after_game,
                    )
            if after_step is not None and done:
                await after_step(current.step)
        return touched


_SLOT = re.compile(r"\{(\w+)\}")


@dataclass(slots=True)
class Step:
    """A step's transaction, with the forgetting it belongs to."""

    tx: Tx
    params: Callable[[], Params]
    forgetting: Forgetting
    #: The games changed so far, to be drawn anew.
    touched: set[int]

    async def run(self, sql: str, **values: Any) -> Sequence[Any]:
        """`sql` with its `{slots}` filled, in the order they appear: `{old}` is the
        person, `{new}` the former player, any other slot a value given."""
        p = self.params()
        known = {"old": self.forgetting.user_id, "new": self.forgetting.former_id, **values}
        filled = _SLOT.sub(lambda m: p(known[m.group(1)]), sql)
        return await self.tx.rows(filled, p.values)

    async def name(self) -> str:
        rows = await self.run("SELECT name FROM users WHERE id = {old}")
        return str(rows[0][0]) if rows else ""


#: A step: None once done, else the game to go on after (a step that pages).
StepFunction = Callable[[Step], Awaitable[int | None]]


async def _own_rows(step: Step) -> int | None:
    """What is the person's alone: settings, follows, away time, digests, memberships,
    web sessions, and the console's buttons shown to them alone."""
    for table in ("user_settings", "follows", "away", "digests", "guild_members", "web_sessions"):
        await step.run(f"DELETE FROM {table} WHERE user_id = {{old}}")
    name = await step.name()
    if name:
        await step.run("DELETE FROM console_buttons WHERE owner = {name}", name=name)
    return None


async def _ratings(step: Step) -> int | None:
    """The person's ratings, rating changes and head-to-head records are removed; others'
    rating changes and records against them keep the games, against the former player."""
    f = step.forgetting
    games = await step.run("SELECT DISTINCT game_id FROM rating_changes WHERE user_id = {old}")
    for game_id in sorted(int(g[0]) for g in games):
        others = await step.run(
            "SELECT scope, user_id, others FROM rating_changes"
            " WHERE game_id = {game} AND user_id <> {old}",
            game=game_id,
        )
        for scope, user_id, listed in [tuple(o) for o in others]:
            ids = json.loads(listed)
            if f.user_id not in ids:
                continue
            await step.run(
                "UPDATE rating_changes SET others = {others} WHERE scope = {scope}"
                " AND user_id = {user} AND game_id = {game}",
                others=json.dumps([f.former_id if i == f.user_id else i for i in ids]),
                scope=scope,
                user=user_id,
                game=game_id,
            )
    for table in ("rating_changes", "ratings", "head_to_head"):
        await step.run(f"DELETE FROM {table} WHERE user_id = {{old}}")
    await step.run("UPDATE head_to_head SET other_id = {new} WHERE other_id = {old}")
    return None


async def _games(step: Step) -> int | None:
    """The games the person sat in, left or made: their seats, moves and mentions pass to
    the former player, and each game is marked changed, so every process draws it anew."""
    rows = await step.run(
        "SELECT game_id FROM seats WHERE user_id = {old}"
        " UNION SELECT game_id FROM seats WHERE left_by = {old}"
        " UNION SELECT id FROM games WHERE created_by = {old}"
    )
    for game_id in sorted({int(r[0]) for r in rows}):
        for sql in (
            "UPDATE seats SET user_id = {new} WHERE game_id = {game} AND user_id = {old}",
            "UPDATE seats SET left_by = {new} WHERE game_id = {game} AND left_by = {old}",
            "UPDATE moves SET user_id = {new} WHERE game_id = {game} AND user_id = {old}",
            "UPDATE games SET created_by = {new} WHERE id = {game} AND created_by = {old}",
            "UPDATE games SET last_user_id = {new} WHERE id = {game} AND last_user_id = {old}",
        ):
            await step.run(sql, game=game_id)
        await _mentions(step, game_id, always=True)
    return None


async def _mentions(step: Step, game_id: int, *, always: bool = False) -> None:
    """The person in a game's options (a resigner) and result (who ended it) becomes the
    former player, and the game is marked changed (`always`: even if neither names them)."""
    rows = await step.run(
        "SELECT options, result, updated_at FROM games WHERE id = {game}", game=game_id
    )
    if not rows:
        return
    options, result, updated_at = tuple(rows[0])
    new_options = _renamed_options(options, step.forgetting)
    new_result = _renamed_result(result, step.forgetting)
    if not always and (new_options, new_result) == (options, result):
        return
    await step.run(
        "UPDATE games SET options = {options}, result = {result}, updated_at = {at}"
        " WHERE id = {game}",
        options=new_options,
        result=new_result,
        at=float(updated_at) + 0.001,
        game=game_id,
    )
    step.touched.add(game_id)


def _renamed_options(options: str, f: Forgetting) -> str:
    stored = json.loads(options or "{}")
    resigned = stored.get("resigned")
    if not isinstance(resigned, list) or f.user_id not in resigned:
        return options
    stored["resigned"] = [f.former_id if u == f.user_id else u for u in resigned]
    return json.dumps(stored)


def _renamed_result(result: str | None, f: Forgetting) -> str | None:
    if result is None:
        return None
    stored = json.loads(result)
    actor = stored.get("actor")
    if not isinstance(actor, dict) or actor.get("id") != f.user_id:
        return result
    stored["actor"] = {**actor, "id": f.former_id, "name": ""}
    return json.dumps(stored, sort_keys=True)


async def _other_games(step: Step) -> int | None:
    """Games the person had no seat in but is named in (an admin who ended one): read
    `GAME_PAGE` games at a time, each page one transaction, from the primary key."""
    needle = str(step.forgetting.user_id)
    rows = await step.run(
        "SELECT id, options, result FROM games WHERE id > {after} ORDER BY id LIMIT {page}",
        after=step.forgetting.after_game,
        page=GAME_PAGE,
    )
    for game_id, options, result in [tuple(r) for r in rows]:
        if needle in (options or "") or needle in (result or ""):
            await _mentions(step, int(game_id))
    return int(rows[-1][0]) if len(rows) == GAME_PAGE else None


async def _daily_and_events(step: Step) -> int | None:
    """Daily runs and totals, and tournaments (made, entered, seated at), keep the former
    player; one still open or running has them left."""
    for sql in (
        "UPDATE daily_runs SET user_id = {new} WHERE user_id = {old}",
        "UPDATE daily_totals SET user_id = {new} WHERE user_id = {old}",
        "UPDATE events SET created_by = {new} WHERE created_by = {old}",
        "UPDATE event_entrants SET state = 'left' WHERE user_id = {old} AND state = 'in'"
        " AND EXISTS (SELECT 1 FROM events e WHERE e.id = event_entrants.event_id"
        " AND e.state IN ('open', 'running'))",
        "UPDATE event_entrants SET user_id = {new} WHERE user_id = {old}",
        "UPDATE event_seats SET user_id = {new} WHERE user_id = {old}",
    ):
        await step.run(sql)
    return None


async def _console(step: Step) -> int | None:
    """The console's memory of channels named after the person (a tournament's threads),
    with the buttons it keeps for them: forgotten (such a channel is then shown by its
    number). Read `GAME_PAGE` channels at a time, each page one transaction."""
    name = (await step.name()).lower()
    if not name:
        return None
    word = re.compile(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])")
    rows = await step.run(
        "SELECT channel_id, name FROM console_channels WHERE channel_id > {after}"
        " ORDER BY channel_id LIMIT {page}",
        after=step.forgetting.after_game,
        page=GAME_PAGE,
    )
    for channel_id, channel in [tuple(r) for r in rows]:
        if word.search(str(channel).lower()):
            await step.run("DELETE FROM console_buttons WHERE channel = {name}", name=channel)
            await step.run("DELETE FROM console_channels WHERE channel_id = {id}", id=channel_id)
    return int(rows[-1][0]) if len(rows) == GAME_PAGE else None


async def _last(step: Step) -> int | None:
    """The person's users row, and the row that linked them to the former player."""
    await step.run("DELETE FROM users WHERE id = {old}")
    await step.run("DELETE FROM forgetting WHERE user_id = {old}")
    return None


#: The steps of a forgetting, in order; each is one transaction.
STEPS: tuple[StepFunction, ...] = (
    _own_rows,
    _ratings,
    _games,
    _other_games,
    _daily_and_events,
    _console,
    _last,
)


def _forgetting(row: Any) -> Forgetting:
    return Forgetting(int(row[0]), int(row[1]), int(row[2]), int(row[3]))
