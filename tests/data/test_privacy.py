"""Forgetting a person on each backend: after a season played through the console, no row
of any table holds their id or their name; other players' ratings are unchanged and their
games still read and replay; a forgetting stopped midway is finished by running it again;
the copy covers every table that holds a person."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest

from console.front import Console
from console.lines import console_user
from data.privacy import USER_COLUMNS, as_dict
from data.storage import Storage
from host.play.playing import Resign
from host.play.starting import Decline
from host.privacy.service import Forgotten
from host.rating import Ratings
from tests.data.season import SEASON

ALICE = console_user("alice")
BOB = console_user("bob")
#: Columns that name a person by their id, wherever a table keeps one.
_ID_COLUMNS = {"user_id", "created_by", "left_by", "last_user_id", "other_id", "former_id"}


class Stop(Exception):
    """Stands for a process killed between two steps."""


async def _play(console: Console) -> None:
    for line in SEASON:
        await console.run_line(line)
    await console.service.settle_ratings()


async def _tables(storage: Storage) -> dict[str, list[str]]:
    """Every table of the schema with its columns, read from the database itself."""
    if storage.backend == "sqlite":
        names = await storage.database.fetch(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
        found = {}
        for (name,) in [tuple(n) for n in names]:
            columns = await storage.database.fetch(f"PRAGMA table_info({name})")
            found[str(name)] = [str(c[1]) for c in columns]
        return found
    rows = await storage.database.fetch(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
    )
    tables: dict[str, list[str]] = {}
    for table, column in [tuple(r) for r in rows]:
        tables.setdefault(str(table), []).append(str(column))
    return tables


async def _referring_to_users(storage: Storage) -> set[str]:
    """The tables with a foreign key to users, read from the schema."""
    if storage.backend == "sqlite":
        found = set()
        for table in await _tables(storage):
            keys = await storage.database.fetch(f"PRAGMA foreign_key_list({table})")
            if any(str(k[2]) == "users" for k in keys):
                found.add(table)
        return found
    rows = await storage.database.fetch(
        "SELECT DISTINCT tc.table_name FROM information_schema.table_constraints tc"
        " JOIN information_schema.constraint_column_usage cu"
        " ON cu.constraint_name = tc.constraint_name"
        " WHERE tc.constraint_type = 'FOREIGN KEY' AND cu.table_name = 'users'"
    )
    return {str(r[0]) for r in rows}


async def _mentions(storage: Storage, user_id: int, name: str) -> list[tuple[str, dict[str, Any]]]:
    """Every row of every table with `user_id` or `name` in any column."""
    found = []
    needles = (str(user_id), name.lower())
    for table in await _tables(storage):
        for row in await storage.database.fetch(f"SELECT * FROM {table}"):
            values = as_dict(row)
            for value in values.values():
                text = str(value).lower()
                if value == user_id or any(n in text for n in needles):
                    found.append((table, values))
                    break
    return found


async def _ratings_of_others(storage: Storage, *people: int) -> list[tuple[Any, ...]]:
    rows = await storage.database.fetch(
        "SELECT game, scope, user_id, mu, sigma, games, wins, draws, losses FROM ratings"
        " ORDER BY game, scope, user_id"
    )
    return [tuple(r) for r in rows if int(r[2]) in people]


async def _meetings_of_others(storage: Storage, *people: int) -> list[tuple[Any, ...]]:
    """Their head-to-head records, whoever the other is (a former player keeps the
    forgotten person's place)."""
    rows = await storage.database.fetch(
        "SELECT scope, user_id, game, wins, draws, losses, last_game_id, last_outcome"
        " FROM head_to_head ORDER BY scope, user_id, game, last_game_id"
    )
    return [tuple(r) for r in rows if int(r[1]) in people]


async def test_a_forgotten_player_is_in_no_row_and_others_games_still_read(
    console: Console, storage: Storage
) -> None:
    await _play(console)
    carol = console_user("carol")
    before = await _ratings_of_others(storage, BOB.id, carol.id)
    assert before, "the season rates bob and carol"
    met = await _meetings_of_others(storage, BOB.id, carol.id)
    assert met, "bob met alice"
    assert await _mentions(storage, ALICE.id, "alice")
    console.stream = io.StringIO()
    await console.run_line("alice /mydata export")
    exported = console.stream.getvalue()
    seated = await storage.database.fetch(
        f"SELECT DISTINCT game_id FROM seats WHERE user_id = {ALICE.id} OR left_by = {ALICE.id}"
    )
    assert seated and "hilltop-data-" in exported
    copy = json.loads((await console.house.privacy.export(ALICE.id)).text)  # type: ignore[union-attr]
    assert {g["id"] for g in copy["tables"]["games"]} >= {int(r[0]) for r in seated}
    for line in ("alice /mydata forget", "alice /press Forget me"):
        await console.run_line(line)
    assert "Everything stored about you is forgotten" in console.stream.getvalue()
    assert await _mentions(storage, ALICE.id, "alice") == []
    assert await _ratings_of_others(storage, BOB.id, carol.id) == before
    assert await _meetings_of_others(storage, BOB.id, carol.id) == met
    console.stream = io.StringIO()
    for line in ("bob /history", "bob /game id:1", "bob /replay id:1"):
        await console.run_line(line)
    shown = console.stream.getvalue()
    assert "a former player" in shown and "alice" not in shown.lower()
    assert "Error" not in shown and "went wrong" not in shown
    # Twice: nothing is stored, nothing changes.
    assert await console.house.privacy.forget(ALICE) is Forgotten.UNKNOWN


async def test_a_forgetting_stopped_midway_is_finished_by_running_it_again(
    console: Console, storage: Storage
) -> None:
    await _play(console)
    privacy = console.house.privacy

    async def stop_after(step: int) -> None:
        if step == 3:
            raise Stop

    privacy.after_step = stop_after
    with pytest.raises(Stop):
        await privacy.forget(ALICE)
    assert await storage.privacy.unfinished() == [ALICE.id]
    assert await _mentions(storage, ALICE.id, "alice"), "the forgetting was stopped midway"
    privacy.after_step = None
    assert await privacy.forget(ALICE) is Forgotten.DONE
    assert await _mentions(storage, ALICE.id, "alice") == []
    assert await storage.privacy.unfinished() == []


async def test_the_copy_covers_every_table_that_holds_a_person(
    console: Console, storage: Storage
) -> None:
    await _play(console)
    holding = {
        table
        for table, columns in (await _tables(storage)).items()
        if _ID_COLUMNS & set(columns) or table == "users"
    } | await _referring_to_users(storage)
    # A table that holds a person and is not in the copy fails here.
    assert holding <= set(USER_COLUMNS), holding - set(USER_COLUMNS)
    exported = await console.house.privacy.export(ALICE.id)
    assert exported is not None
    copy = json.loads(exported.text)
    assert set(copy["tables"]) >= holding - {"forgetting"}
    games = {g["id"] for g in copy["tables"]["games"]}
    seated = await storage.database.fetch(
        f"SELECT DISTINCT game_id FROM seats WHERE user_id = {ALICE.id} OR left_by = {ALICE.id}"
    )
    assert games >= {int(r[0]) for r in seated} and games
    assert copy["tables"]["users"] == [{"id": ALICE.id, "name": "alice", "is_bot": 0, "former": 0}]
    assert all("token_hash" not in s for s in copy["tables"]["web_sessions"])
    assert copy["tables"]["daily_runs"] and copy["tables"]["ratings"]
    assert await console.house.privacy.export(BOB.id) != exported


async def test_the_move_log_takes_no_change_but_a_former_players_id(
    console: Console, storage: Storage
) -> None:
    await _play(console)
    for change in ("text = 'x'", "ply = ply + 100", f"user_id = {BOB.id}"):
        with pytest.raises(Exception, match="append-only"):
            await storage.database.write(f"UPDATE moves SET {change} WHERE game_id = 1")


async def test_the_clock_finishes_a_forgetting_a_stopped_process_left(
    console: Console, storage: Storage
) -> None:
    await _play(console)
    privacy = console.house.privacy

    async def stop_after(step: int) -> None:
        if step == 1:
            raise Stop

    privacy.after_step = stop_after
    with pytest.raises(Stop):
        await privacy.forget(ALICE)
    privacy.after_step = None
    [begun] = await storage.database.fetch("SELECT started_at FROM forgetting")
    # Just begun: its command may still be running it.
    await privacy.tick(float(begun[0]) + 1)
    assert await storage.privacy.unfinished() == [ALICE.id]
    await privacy.tick(float(begun[0]) + 3600)
    assert await storage.privacy.unfinished() == []
    assert await _mentions(storage, ALICE.id, "alice") == []


#: What others read after a forgetting: every list and page that names players.
READ_AFTER = [
    "bob /history",
    "bob /history game:hokito",
    "bob /game id:1",
    "bob /replay id:1",
    "bob /profile",
    "bob /profile user:carol",
    "bob /ratings game:hokito",
    "bob /leaderboard",
    "bob /leaderboard period:week",
    "bob /leaderboard period:all scope:global",
    "bob /games here",
    "#second carol /history",
    "#second carol /game id:2",
    "#club bob /tournament standings id:1",
    "#club bob /tournament pairings id:1",
    "#club bob /tournament list",
    "#club bob /tournament export id:1 file:trf",
]
#: A name's place left empty: a separator or a word that precedes a name, then at once
#: the punctuation that follows one.
EMPTY_NAME = re.compile(r"(\bvs|\bagainst|\bbeat|\bof|,) +[(:,·|]|\(\)|^\s*\d+\. *:")


async def test_every_reply_that_names_a_former_player_says_so(
    console: Console, storage: Storage
) -> None:
    await _play(console)
    for line in ("alice /mydata forget", "alice /press Forget me"):
        await console.run_line(line)
    console.stream = io.StringIO()
    for line in READ_AFTER:
        console.stream.write(f"\n=== {line}\n")
        await console.run_line(line)
    shown = console.stream.getvalue()
    assert "a former player" in shown and "alice" not in shown.lower()
    empty = [line for line in shown.splitlines() if EMPTY_NAME.search(line)]
    assert empty == []


async def test_the_consoles_buttons_that_hold_a_forgotten_person_are_forgotten(
    console: Console, storage: Storage
) -> None:
    await _play(console)
    # A page of alice's finished games shown to bob, its buttons holding her id; and
    # bob's own page, which holds nothing of hers.
    pages_of_hers = [(f"history:{ALICE.id}:1:<5", "Older")]
    pages_of_his = [(f"history:{BOB.id}:1:<5", "Older")]
    await storage.console.remember("general", "bob", pages_of_hers)
    await storage.console.remember("second", "bob", pages_of_his)
    assert await console.house.privacy.forget(ALICE) is Forgotten.DONE
    assert await _mentions(storage, ALICE.id, "alice") == []
    assert await storage.console.visible("second", "bob") == pages_of_his


async def test_a_game_of_theirs_not_yet_rated_leaves_the_former_player_no_rating(
    console: Console, storage: Storage
) -> None:
    await _play(console)
    privacy = console.house.privacy
    for record in await storage.games.live_games_of_user(ALICE.id):
        act = Decline(ALICE) if record.status == "challenge" else Resign(ALICE)
        await privacy.change(record.id, act)
    assert await storage.games.live_games_of_user(ALICE.id) == []
    # Game 1 finished, but is not rated yet (a restart came between).
    await storage.database.write("DELETE FROM rating_changes WHERE game_id = 1")
    await storage.database.write("UPDATE games SET rated_at = NULL WHERE id = 1")
    assert await console.house.privacy.forget(ALICE) is Forgotten.DONE
    await console.service.settle_ratings()
    for table in ("ratings", "rating_changes", "head_to_head"):
        rows = await storage.database.fetch(
            f"SELECT count(*) FROM {table} t JOIN users u ON u.id = t.user_id WHERE u.former = 1"
        )
        assert int(rows[0][0]) == 0, table


async def test_ratings_computed_again_keep_none_for_a_former_player(
    console: Console, storage: Storage
) -> None:
    await _play(console)
    carol = console_user("carol")
    assert await console.house.privacy.forget(ALICE) is Forgotten.DONE
    before = await _ratings_of_others(storage, BOB.id, carol.id)
    assert await Ratings(storage.ratings).recompute() > 0
    for table in ("ratings", "rating_changes", "head_to_head"):
        rows = await storage.database.fetch(
            f"SELECT count(*) FROM {table} t JOIN users u ON u.id = t.user_id WHERE u.former = 1"
        )
        assert int(rows[0][0]) == 0, table
    after = await _ratings_of_others(storage, BOB.id, carol.id)
    assert len(after) == len(before)
    for now, then in zip(after, before, strict=True):
        assert now == pytest.approx(then)
