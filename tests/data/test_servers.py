"""Servers' storage on each backend: a server the bot was removed from keeps everything
for 30 days on a simulated clock, then loses all of it and nothing of anyone else's; an
invitation back calls the deletion off; the deletion goes in steps that a new process
continues."""

from __future__ import annotations

import json

import pytest

from data.events import NewEvent
from data.repository import NewGame, UserRecord
from data.results import Ending, GameResult
from data.servers import FORGET_AFTER
from data.storage import Storage, open_storage
from tests.data.test_query_plans import _reads, _whole_reads, recording

DAY = 86_400.0
START = 1_700_000_000.0
GONE = 7 << 22
STAYS = 8 << 22
ADMIN = UserRecord(1, "admin")
ALICE = UserRecord(11, "alice")
BOB = UserRecord(12, "bob")
#: Every table with a row of a server, and how to count the rows of server `{g}` in it.
OF_SERVER = {
    "games": "SELECT count(*) FROM games WHERE guild_id = {g}",
    "seats": "SELECT count(*) FROM seats s JOIN games g ON g.id = s.game_id WHERE g.guild_id = {g}",
    "moves": "SELECT count(*) FROM moves m JOIN games g ON g.id = m.game_id WHERE g.guild_id = {g}",
    "follows": "SELECT count(*) FROM follows f JOIN games g ON g.id = f.game_id"
    " WHERE g.guild_id = {g}",
    "rating_changes": "SELECT count(*) FROM rating_changes r JOIN games g ON g.id = r.game_id"
    " WHERE g.guild_id = {g} OR r.scope = {g}",
    "ratings": "SELECT count(*) FROM ratings WHERE scope = {g}",
    "head_to_head": "SELECT count(*) FROM head_to_head WHERE scope = {g}",
    "guild_members": "SELECT count(*) FROM guild_members WHERE guild_id = {g}",
    "guild_settings": "SELECT count(*) FROM guild_settings WHERE guild_id = {g}",
    "events": "SELECT count(*) FROM events WHERE guild_id = {g}",
    "event_entrants": "SELECT count(*) FROM event_entrants e JOIN events v"
    " ON v.id = e.event_id WHERE v.guild_id = {g}",
}


def new_game(guild_id: int, channel_id: int) -> NewGame:
    return NewGame(
        game="hokito",
        guild_id=guild_id,
        channel_id=channel_id,
        status="active",
        seed=42,
        variant=None,
        rules_version=1,
        start_position=None,
        snapshot="start",
        created_by=ALICE,
        seats=((ALICE, True), (BOB, True)),
        options={},
    )


async def fill(storage: Storage, guild_id: int, now: float) -> int:
    """A server with a finished, rated game (its moves, a follower, its rating rows in the
    server's table and the global one), a live game, settings, daily-board members and a
    tournament. The finished game's id."""
    games, db = storage.games, storage.database
    finished = await games.create_game(new_game(guild_id, guild_id + 1), now)
    for ply in range(3):
        result = GameResult(Ending.RULES, (0,)) if ply == 2 else None
        await games.append_move(
            finished.id,
            ply,
            ply % 2,
            (ALICE, BOB)[ply % 2].id,
            f"m{ply}",
            f"s{ply}",
            now + ply,
            result,
        )
    await games.follow(finished.id, ADMIN, True)
    for scope in (guild_id, 0):
        for user, other, place in ((ALICE, BOB, 1), (BOB, ALICE, 2)):
            await db.write(
                "INSERT INTO rating_changes (scope, user_id, game_id, game, finished_at,"
                " outcome, place, mu_before, sigma_before, mu_after, sigma_after, others_mu,"
                f" others) VALUES ({', '.join(db.mark(n) for n in range(1, 14))})",
                (
                    scope,
                    user.id,
                    finished.id,
                    "hokito",
                    now + 2,
                    "win" if place == 1 else "loss",
                    place,
                    25.0,
                    8.0,
                    26.0,
                    7.0,
                    25.0,
                    json.dumps([other.id]),
                ),
            )
            await db.write(
                "INSERT INTO ratings (game, scope, user_id, mu, sigma, games, wins, draws,"
                f" losses, streak) VALUES ({', '.join(db.mark(n) for n in range(1, 11))})"
                " ON CONFLICT (game, scope, user_id) DO UPDATE SET games = ratings.games + 1",
                ("hokito", scope, user.id, 26.0, 7.0, 1, 1, 0, 0, 1),
            )
            await db.write(
                "INSERT INTO head_to_head (scope, user_id, other_id, game, wins, draws,"
                " losses, last_game_id, last_finished_at, last_outcome)"
                f" VALUES ({', '.join(db.mark(n) for n in range(1, 11))})"
                " ON CONFLICT (scope, user_id, other_id, game) DO UPDATE SET"
                " wins = head_to_head.wins + excluded.wins,"
                " losses = head_to_head.losses + excluded.losses,"
                " last_game_id = excluded.last_game_id,"
                " last_finished_at = excluded.last_finished_at",
                (
                    scope,
                    user.id,
                    other.id,
                    "hokito",
                    int(place == 1),
                    0,
                    int(place == 2),
                    finished.id,
                    now + 2,
                    "win" if place == 1 else "loss",
                ),
            )
    await games.create_game(new_game(guild_id, guild_id + 2), now)
    await games.change_settings("guild", guild_id, {("threads",): True})
    await storage.daily.note_member(guild_id, ALICE)
    event = await storage.events.create(
        NewEvent(guild_id, guild_id + 3, "hokito", "swiss", "Spring", 2, None, None, 9, ADMIN),
        now,
    )
    await storage.events.join(event.id, BOB, now)
    return finished.id


async def counts(storage: Storage, guild_id: int) -> dict[str, int]:
    db = storage.database
    found = {}
    for table, sql in OF_SERVER.items():
        # SQLite's `?` takes a value each time; PostgreSQL's `$1` one value for all.
        times = sql.count("{g}") if db.mark(2) == "?" else 1
        rows = await db.fetch(sql.format(g=db.mark(1)), (guild_id,) * times)
        found[table] = int(rows[0][0])
    return found


async def sweep(storage: Storage, now: float) -> None:
    """What the clock's sweep does at `now`, every step of it."""
    servers = storage.servers
    for guild_id in await servers.due(now):
        if await servers.begin_forgetting(guild_id, now):
            while await servers.forget_step(guild_id):
                pass


async def test_a_removed_server_keeps_its_data_29_days_and_loses_it_at_30(
    storage: Storage,
) -> None:
    await fill(storage, GONE, START)
    kept = await fill(storage, STAYS, START)
    full = await counts(storage, GONE)
    assert all(full.values()), full
    await storage.servers.joined([GONE, STAYS], START)
    assert await storage.servers.left(GONE, START + DAY)
    assert not await storage.servers.left(GONE, START + 2 * DAY)  # the first date stands
    assert await storage.servers.is_gone(GONE) and not await storage.servers.is_gone(STAYS)

    await sweep(storage, START + 30 * DAY)  # 29 days after it left
    assert await counts(storage, GONE) == full

    await sweep(storage, START + DAY + FORGET_AFTER)
    assert set((await counts(storage, GONE)).values()) == {0}
    assert await storage.servers.get(GONE) is None
    # The other server, the people and their global ratings are untouched; the global
    # head-to-head record now names the pair's last game elsewhere.
    assert all((await counts(storage, STAYS)).values())
    assert await storage.ratings.names([ALICE.id, BOB.id]) == {11: "alice", 12: "bob"}
    [meeting] = await storage.ratings.head_to_head(ALICE.id, BOB.id, 0)
    assert meeting.last_game_id == kept
    [standing] = await storage.ratings.standings_of(ALICE.id, 0)
    assert standing.user_id == ALICE.id


async def test_a_server_the_bot_is_invited_back_to_keeps_everything(storage: Storage) -> None:
    await fill(storage, GONE, START)
    full = await counts(storage, GONE)
    assert await storage.servers.left(GONE, START)
    assert await storage.servers.joined([GONE], START + 10 * DAY) == [GONE]
    assert not await storage.servers.is_gone(GONE)
    await sweep(storage, START + 31 * DAY)
    assert await counts(storage, GONE) == full
    record = await storage.servers.get(GONE)
    assert record is not None and record.left_at is None and record.forget_at is None


async def test_a_head_to_head_met_only_in_the_removed_server_goes(storage: Storage) -> None:
    await fill(storage, GONE, START)
    await storage.servers.left(GONE, START)
    await sweep(storage, START + FORGET_AFTER)
    assert await storage.ratings.head_to_head(ALICE.id, BOB.id, 0) == []


async def test_a_deletion_interrupted_is_continued_by_another_process(
    storage: Storage, storage_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("data.servers.GAMES_PER_STEP", 1)
    await fill(storage, GONE, START)
    await storage.servers.left(GONE, START)
    now = START + FORGET_AFTER
    assert await storage.servers.begin_forgetting(GONE, now)
    assert await storage.servers.forget_step(GONE)  # then the process stops
    left_over = await counts(storage, GONE)
    assert any(left_over.values())
    other = await open_storage(storage_target)
    try:
        assert await other.servers.due(now) == [GONE]
        await sweep(other, now)
        assert set((await counts(other, GONE)).values()) == {0}
    finally:
        await other.close()


async def test_the_move_log_of_other_games_stays_append_only(storage: Storage) -> None:
    game_id = await fill(storage, STAYS, START)
    await storage.servers.left(GONE, START)  # another server is forgotten meanwhile
    await sweep(storage, START + FORGET_AFTER)
    db = storage.database
    with pytest.raises(Exception, match="append-only"):
        await db.write(f"DELETE FROM moves WHERE game_id = {db.mark(1)}", (game_id,))
    assert (await counts(storage, STAYS))["moves"] == 3


async def test_an_admin_s_deletion_keeps_the_server_known(storage: Storage) -> None:
    await fill(storage, GONE, START)
    await storage.servers.joined([GONE], START)
    contents = await storage.servers.contents(GONE)
    assert (contents.games, contents.results, contents.ratings) == (2, 2, 2)
    assert (contents.members, contents.events) == (1, 1)
    await storage.servers.forget_now(GONE, START + 5)
    while await storage.servers.forget_step(GONE):
        pass
    assert set((await counts(storage, GONE)).values()) == {0}
    assert (await storage.servers.contents(GONE)).empty
    record = await storage.servers.get(GONE)
    assert record is not None and record.left_at is None and not record.forgetting
    assert await storage.servers.due(START + 100 * DAY) == []


async def test_servers_found_at_connecting_are_paged_by_id(storage: Storage) -> None:
    ids = [GONE + n for n in range(5)]
    assert await storage.servers.joined(ids, START) == []
    await storage.servers.left(ids[2], START)
    assert await storage.servers.stored_present(limit=2) == ids[:2]
    assert await storage.servers.stored_present(ids[1], limit=2) == [ids[3], ids[4]]


async def test_every_statement_of_a_servers_life_reads_by_its_indexes(storage: Storage) -> None:
    await fill(storage, GONE, START)
    await fill(storage, STAYS, START)
    servers = storage.servers
    with recording() as sent:
        await servers.joined([GONE, STAYS], START)
        await servers.stored_present()
        await servers.contents(GONE)
        await servers.live_games(GONE)
        await servers.live_events(GONE)
        await servers.left(GONE, START)
        await servers.is_gone(GONE)
        await sweep(storage, START + FORGET_AFTER)
        await servers.forget_now(STAYS, START + FORGET_AFTER)
        while await servers.forget_step(STAYS):
            pass
    reads = _reads(sent)
    assert len(reads) > 30, "too few statements to judge"
    offenders = await _whole_reads(storage, reads)
    assert not offenders, "\n\n".join(f"{sql}\n  -> {scans}" for sql, scans in offenders.items())
