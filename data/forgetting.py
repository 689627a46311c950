"""The steps of forgetting a person (`data.privacy`), each one transaction on either
backend: what is the person's alone is removed, what others' games need passes to the
former player. A step that reads a table a page at a time returns where it stopped, and
is run again from there."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from data.queries import Params

#: Games read at a time by the step that looks for the person in games they had no seat
#: in (an admin who ended a game, a resigner whose seats were handed over).
GAME_PAGE = 2000


class Tx(Protocol):
    """One backend's write transaction, as the shared statements use it."""

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Any]: ...


@dataclass(frozen=True, slots=True)
class Forgetting:
    """A forgetting under way."""

    user_id: int
    former_id: int
    #: Steps done (`len(STEPS)`: all).
    step: int
    #: The last row read by the step under way, if it pages (a game, a console channel,
    #: the console's buttons by the order they were shown).
    after_game: int


_SLOT = re.compile(r"\{(\w+)\}")


@dataclass(slots=True)
class Step:
    """A step's transaction, with the forgetting it belongs to."""

    tx: Tx
    params: Callable[[], Params]
    forgetting: Forgetting
    #: The games changed so far, to be drawn anew.
    touched: set[int]
    #: `PrivacyRepository.ANNOUNCE`.
    announce: str | None = None

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
    if step.announce is not None:
        await step.run(step.announce, game=game_id)


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


async def _buttons(step: Step) -> int | None:
    """The console's buttons that hold the person: by id in a payload (a page of their
    finished games, shown to someone else) or by name in a label. Forgotten (the reply
    they belong to keeps its words, without buttons). Read `GAME_PAGE` rows at a time,
    in the order they were shown; a row shown again meanwhile is met again later."""
    payload = f":{step.forgetting.user_id}:"
    name = (await step.name()).lower()
    word = re.compile(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])") if name else None
    rows = await step.run(
        "SELECT channel, owner, shown, buttons FROM console_buttons WHERE shown > {after}"
        " ORDER BY shown LIMIT {page}",
        after=step.forgetting.after_game,
        page=GAME_PAGE,
    )
    for channel, owner, _shown, buttons in [tuple(r) for r in rows]:
        text = str(buttons)
        if payload in text or (word is not None and word.search(text.lower())):
            await step.run(
                "DELETE FROM console_buttons WHERE channel = {channel} AND owner = {owner}",
                channel=channel,
                owner=owner,
            )
    return int(rows[-1][2]) if len(rows) == GAME_PAGE else None


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
    _buttons,
    _last,
)
