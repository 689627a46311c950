"""The stored history the data-scale benchmark builds: what it holds, that every move log
in it replays to its stored position, and that the product works on it."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import asyncpg
import pytest

from bench.scale.build import Built, build
from bench.scale.pool import DAILY_SECRET
from bench.scale.shape import Scale
from console.lines import bot_user
from data.migrations import BACKENDS
from data.storage import backend_of, open_storage
from host.daily.service import DailyService
from host.model import Channel, User
from host.play.live import game_of
from host.service import GameService

TINY = Scale(
    name="tiny",
    finished=120,
    live=40,
    busy_live=16,
    busy_members=20,
    users=90,
    guilds=6,
    daily_runs=3,
    days=9,
)


async def _rows(target: str, sql: str) -> list[tuple[Any, ...]]:
    if backend_of(target) == "postgresql":
        conn = await asyncpg.connect(target)
        try:
            return [tuple(r) for r in await conn.fetch(sql)]
        finally:
            await conn.close()
    with closing(sqlite3.connect(target)) as db:
        return [tuple(r) for r in db.execute(sql).fetchall()]


async def _one(target: str, sql: str) -> Any:
    return (await _rows(target, sql))[0][0]


@pytest.fixture(scope="module", params=BACKENDS, ids=BACKENDS)
def built(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Built]:
    """One history per backend for the module; the last test plays on it."""
    if request.param == "sqlite":
        target = str(tmp_path_factory.mktemp("history") / "history.sqlite3")
        yield asyncio.run(build(target, TINY, now=time.time()))
        return
    databases = request.getfixturevalue("postgres")
    name, url = databases.create()
    try:
        yield asyncio.run(build(url, TINY, now=time.time()))
    finally:
        databases.drop(name)


async def test_every_table_holds_what_the_size_asks(built: Built) -> None:
    target, m = built.target, built.manifest
    statuses = Counter(
        {
            (kind, status): n
            for kind, status, n in await _rows(
                target, "SELECT kind, status, count(*) FROM games GROUP BY kind, status"
            )
        }
    )
    ended = sum(statuses[("channel", s)] for s in ("finished", "aborted", "declined"))
    assert ended == TINY.finished
    assert statuses[("channel", "finished")] > statuses[("channel", "aborted")] > 0
    live = statuses[("channel", "active")] + statuses[("channel", "challenge")]
    assert live == TINY.live + TINY.busy_live == len(m.live_ids)
    assert statuses[("daily", "finished")] == TINY.days * TINY.daily_runs
    for table in ("games", "seats", "moves", "rating_changes", "ratings", "daily_runs"):
        assert await _one(target, f"SELECT count(*) FROM {table}") == m.counts[table] > 0
    assert await _one(target, "SELECT count(*) FROM users") == TINY.users + 1  # and the bot
    assert await _one(target, "SELECT count(*) FROM daily_par") == TINY.days
    assert await _one(target, "SELECT count(DISTINCT week) FROM daily_runs") >= 2
    totals = await _rows(
        target, "SELECT sum(runs), sum(total) FROM daily_totals WHERE period = 'all'"
    )
    assert totals == await _rows(target, "SELECT count(*), sum(score) FROM daily_runs")
    # Every finished game is through the rating: nothing is left for the bot to rate.
    unrated = (
        "SELECT count(*) FROM games WHERE kind = 'channel' AND status = 'finished'"
        " AND rated_at IS NULL"
    )
    assert await _one(target, unrated) == 0


async def test_the_busy_server_and_the_people_are_as_asked(built: Built) -> None:
    target, m = built.target, built.manifest
    busy = await _rows(
        target,
        "SELECT channel_id FROM games WHERE status IN ('active', 'challenge')"
        f" AND guild_id = {m.busy_guild}",
    )
    assert len(busy) == TINY.busy_live == len({channel for (channel,) in busy})
    orphans = (
        "SELECT count(*) FROM seats s WHERE NOT EXISTS"
        " (SELECT 1 FROM users u WHERE u.id = s.user_id)"
    )
    assert await _one(target, orphans) == 0
    outsiders = (
        "SELECT count(*) FROM games g JOIN seats s ON s.game_id = g.id"
        " WHERE g.kind = 'channel' AND s.is_bot = 0 AND NOT EXISTS (SELECT 1 FROM"
        " guild_members m WHERE m.guild_id = g.guild_id AND m.user_id = s.user_id)"
    )
    assert await _one(target, outsiders) == 0
    mine = (
        "SELECT count(*) FROM games g JOIN seats s ON s.game_id = g.id WHERE s.user_id ="
        f" {m.heavy.id} AND g.guild_id = {m.busy_guild} AND g.status = 'active'"
    )
    assert await _one(target, mine) >= 2
    rated = await _rows(
        target,
        "SELECT g.id, count(*) FROM games g JOIN seats s ON s.game_id = g.id"
        " WHERE g.kind = 'channel' AND g.status = 'finished' GROUP BY g.id"
        " HAVING max(s.is_bot) = 0 AND count(*) > 1",
    )
    changes = dict(await _rows(target, "SELECT game_id, count(*) FROM rating_changes GROUP BY 1"))
    assert rated and all(changes[game] == 2 * seats for game, seats in rated)


async def test_every_move_log_replays_to_its_stored_position(built: Built) -> None:
    games = await _rows(
        built.target,
        "SELECT g.id, g.game, g.seed, g.variant, g.ply, g.snapshot,"
        " (SELECT count(*) FROM seats s WHERE s.game_id = g.id) FROM games g",
    )
    moves: dict[int, list[tuple[int, int, str]]] = {}
    for game_id, ply, seat, text in await _rows(
        built.target, "SELECT game_id, ply, seat, text FROM moves ORDER BY game_id, ply"
    ):
        moves.setdefault(game_id, []).append((ply, seat, text))
    for game_id, name, seed, variant, ply, snapshot, seats in games:
        log = moves.get(game_id, [])
        assert [entry[0] for entry in log] == list(range(1, ply + 1)), game_id
        state = game_of(name).new_state(seed, seats, variant)
        for _, seat, text in log:
            state = state.play(seat, state.parse_move(seat, text))
        assert state.to_text() == snapshot, game_id


async def test_the_product_plays_on_it(built: Built) -> None:
    """Last: it changes the history."""
    m = built.manifest
    storage = await open_storage(built.target)
    # The moment the history was built up to: its today is the product's, even when the
    # day has changed since.
    service = GameService(
        storage.games,
        bot_user=bot_user(),
        ratings=storage.ratings,
        render_images=False,
        clock=lambda: m.now,
    )
    daily = DailyService(service, storage.daily, secret=DAILY_SECRET)
    try:
        assert await storage.ratings.unrated_games(10) == []
        probe = m.moves[0]
        channel = Channel(probe.channel_id, probe.guild_id)
        await service.move(channel, User(probe.player.id, probe.player.name), probe.move)
        assert (await service.loaded(probe.game_id)).record.ply > 0
        resign = m.resigns[0]
        where = Channel(resign.channel_id, resign.guild_id)
        player = User(resign.player.id, resign.player.name)
        replies = await service.resign(where, player, confirmed=True)
        assert any("Ratings:" in reply.text for reply in replies)
        busy = Channel(m.busy_channel, m.busy_guild)
        [record] = await service.game_record(busy, m.records[0])
        assert record.title.startswith(f"Game {m.records[0]}")
        played = User(m.played_today.id, m.played_today.name)
        [board] = await daily.leaderboard(busy, played, "today", "server")
        assert f"**{played.name}**" in board.text
        # A new game is numbered after the generated ones.
        newcomer = m.newcomers[0]
        [started] = await daily.play(busy, User(newcomer.id, newcomer.name))
        assert "Today's hill" in started.text
    finally:
        daily.close()
        service.close()
        await storage.close()
