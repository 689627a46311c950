"""Moving an SQLite database into PostgreSQL: everything arrives, the games go on there,
and the check finds any difference."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from data.copy import TABLES, CopyError, copy_database
from data.storage import Storage, open_storage
from engine.hillbert_par import ParResult
from host.daily import DailyService
from host.model import Channel
from host.service import GameService
from host.setup import GameSetup
from tests.conftest import PostgresDatabases
from tests.host.conftest import ALICE, BOB, BOT, CAROL, HERE, each_moves_once

ROOT = Path(__file__).resolve().parents[2]
NOON = datetime(2026, 11, 22, 12, 0, tzinfo=UTC).timestamp()
ELSEWHERE = Channel(channel_id=502, guild_id=7, name="elsewhere")


@pytest.fixture
def postgres_target(postgres: PostgresDatabases) -> Iterator[str]:
    name, url = postgres.create()
    yield url
    postgres.drop(name)


async def fixed_par(seed: int) -> ParResult:
    return ParResult(40, 120, ("d",))


def services(storage: Storage) -> tuple[GameService, DailyService]:
    games = GameService(
        storage.games,
        bot_user=BOT,
        clock=lambda: NOON,
        render_images=False,
        ratings=storage.ratings,
    )
    return games, DailyService(games, storage.daily, secret="s", par_runner=fixed_par)


async def played(path: Path) -> None:
    """A database with a bit of everything: a finished rated game, a live game, a
    follower, settings, a daily run, console memory."""
    storage = await open_storage(path)
    games, daily = services(storage)
    try:
        await games.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
        await games.accept(HERE, BOB)
        await each_moves_once(games, HERE, ALICE, BOB)
        await games.resign(HERE, BOB, confirmed=True)
        await games.start(ELSEWHERE, ALICE, GameSetup("hokito", seed=2), [CAROL])
        await games.accept(ELSEWHERE, CAROL)
        move = (await games.suggest_moves(ELSEWHERE, CAROL, ""))[0].value
        await games.move(ELSEWHERE, CAROL, move)
        await games.notify(BOB, reminders=False, dm=None)
        await daily.play(HERE, ALICE)
        await daily.par.reply("2026-11-22", 0)  # the day's par stored, its search over
        await storage.console.remember("general", None, [("accept:1", "Accept")])
        await storage.console.name_channel(500, "general")
        await games.settle_ratings()
    finally:
        daily.close()
        games.close()
        await storage.close()


async def test_everything_arrives_and_the_games_go_on(tmp_path: Path, postgres_target: str) -> None:
    source = tmp_path / "old.sqlite3"
    await played(source)
    copied, tables = await copy_database(source, postgres_target)
    assert copied > 10
    assert [t.table for t in tables] == list(TABLES)
    assert all(t.same for t in tables), tables
    counts = {t.table: t.postgresql_rows for t in tables}
    assert counts["games"] == 3 and counts["moves"] == 3 and counts["rating_changes"] == 4
    assert counts["daily_runs"] == 1 and counts["console_buttons"] == 1

    target = await open_storage(postgres_target)
    games, daily = services(target)
    try:
        # The live game goes on from its stored position, and new games are numbered on.
        move = (await games.suggest_moves(ELSEWHERE, ALICE, ""))[0].value
        [board] = await games.move(ELSEWHERE, ALICE, move)
        assert board.game_id == 2
        [challenge] = await games.start(HERE, BOB, GameSetup("molehill", seed=3), [CAROL])
        assert challenge.game_id == 4
        table = await target.ratings.table("hokito", 0, 10)
        assert [(s.name, s.wins, s.losses) for s in table] == [("alice", 1, 0), ("bob", 0, 1)]
        assert (await daily.daily.run_for(ALICE.id, "2026-11-22")) is not None
        assert await target.console.visible("general", "alice") == [("accept:1", "Accept")]
    finally:
        daily.close()
        games.close()
        await target.close()


async def test_a_second_run_copies_nothing_and_finds_a_difference(
    tmp_path: Path, postgres_target: str
) -> None:
    source = tmp_path / "old.sqlite3"
    await played(source)
    await copy_database(source, postgres_target)
    copied, tables = await copy_database(source, postgres_target)
    assert copied == 0 and all(t.same for t in tables)
    target = await open_storage(postgres_target)
    try:
        await target.database.write("UPDATE users SET name = 'mallory' WHERE id = 1002")
    finally:
        await target.close()
    _, tables = await copy_database(source, postgres_target)
    assert [t.table for t in tables if not t.same] == ["users"]


async def test_schemas_of_different_versions_are_not_copied(
    tmp_path: Path, postgres_target: str
) -> None:
    source = tmp_path / "old.sqlite3"
    await played(source)
    storage = await open_storage(source)
    try:
        await storage.database.write("PRAGMA user_version = 99")
    finally:
        await storage.close()
    with pytest.raises(CopyError, match="schema versions differ"):
        await copy_database(source, postgres_target)


def test_the_command_copies_and_checks(tmp_path: Path, postgres_target: str) -> None:
    source = tmp_path / "old.sqlite3"
    missing = subprocess.run(
        [sys.executable, "bot.py", "--db", str(tmp_path / "none.sqlite3"), "--copy-to", "x"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode != 0 and "there is none at" in missing.stderr
    import asyncio

    asyncio.run(played(source))
    done = subprocess.run(
        [sys.executable, "bot.py", "--db", str(source), "--copy-to", postgres_target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Everything arrived" in done.stdout
    assert "games                    3           3  identical" in done.stdout


async def test_a_database_a_bot_has_used_is_not_copied_into(
    tmp_path: Path, postgres_target: str
) -> None:
    source = tmp_path / "old.sqlite3"
    await played(source)
    used = await open_storage(postgres_target)
    try:
        await used.daily.set_par("2026-11-20", 40, 120, NOON)  # a bot ran here, no game yet
    finally:
        await used.close()
    with pytest.raises(CopyError, match="daily_par is not empty"):
        await copy_database(source, postgres_target)
    target = await open_storage(postgres_target)
    try:
        [row] = await target.database.fetch("SELECT count(*) FROM users")
        assert row[0] == 0  # nothing was written
    finally:
        await target.close()
