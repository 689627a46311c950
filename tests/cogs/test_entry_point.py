"""Command sync for an application with Activities: Discord made an Entry Point command
for them, and refuses an overwrite of the global commands that drops it. The bot's sync
keeps it, at its first start and at every restart; discord.py's own would be refused."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator

import discord
import pytest

from cogs.client import HilltopBot
from data.storage import Storage
from tests.cogs.fake_discord import (
    ENTRY_POINT_DROPPED,
    PRIMARY_ENTRY_POINT,
    FakeDiscord,
    Json,
    running,
    serving,
)
from tests.cogs.test_gateway import COMMANDS
from tests.houses import bot_houses


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with serving(activities=True) as server:
        yield server


def entry_points(commands: list[Json] | None) -> list[Json]:
    return [c for c in commands or [] if c.get("type") == PRIMARY_ENTRY_POINT]


def slash_ids(fake: FakeDiscord) -> dict[str, str]:
    return {c["name"]: c["id"] for c in fake.global_commands or [] if c.get("type", 1) == 1}


async def start(fake: FakeDiscord, storage: Storage, dev_guild_id: int | None = None) -> None:
    """The bot logs in (and syncs its commands), then stops."""
    bot = HilltopBot(bot_houses(storage), dev_guild_id=dev_guild_id)
    async with running(bot, fake):
        pass


async def test_the_fake_application_starts_with_discords_entry_point_command(
    fake: FakeDiscord,
) -> None:
    [entry] = entry_points(fake.global_commands)
    assert entry["name"] == "launch" and entry["handler"] == 2
    assert entry["application_id"] == str(fake.application_id)


async def test_a_global_sync_keeps_the_entry_point_with_its_id_beside_every_command(
    fake: FakeDiscord, sqlite_storage: Storage
) -> None:
    [made] = copy.deepcopy(entry_points(fake.global_commands))
    await start(fake, sqlite_storage)
    assert fake.rejections == []
    [listed] = [c for c in fake.calls if c.method == "GET" and c.path.endswith("/commands")]
    assert listed.path == f"/applications/{fake.application_id}/commands"
    assert listed.query == {"with_localizations": "true"}
    [sync] = [c for c in fake.calls if c.method == "PUT"]
    assert sync.path == f"/applications/{fake.application_id}/commands"
    # Sent back as Discord listed it: its id, handler, contexts and integration types.
    assert entry_points(sync.body) == [made]
    assert entry_points(fake.global_commands) == [made]
    assert set(slash_ids(fake)) >= COMMANDS
    assert fake.guild_commands == {}


async def test_a_restart_syncs_again_and_keeps_the_entry_point_and_the_commands(
    fake: FakeDiscord, sqlite_storage: Storage
) -> None:
    [made] = copy.deepcopy(entry_points(fake.global_commands))
    await start(fake, sqlite_storage)
    first = slash_ids(fake)
    await start(fake, sqlite_storage)
    assert fake.rejections == []
    assert len([c for c in fake.calls if c.method == "PUT"]) == 2
    assert entry_points(fake.global_commands) == [made]
    assert slash_ids(fake) == first
    assert set(first) >= COMMANDS


async def test_discord_refuses_an_overwrite_that_drops_the_entry_point(
    fake: FakeDiscord, sqlite_storage: Storage
) -> None:
    [made] = copy.deepcopy(entry_points(fake.global_commands))
    bot = HilltopBot(bot_houses(sqlite_storage), dev_guild_id=fake.guild_id)
    async with running(bot, fake):
        # discord.py's own sync sends the tree's commands alone.
        with pytest.raises(discord.HTTPException) as refused:
            await bot.tree.sync()
    assert (refused.value.status, refused.value.code) == (400, 50240)
    assert refused.value.text == ENTRY_POINT_DROPPED.message
    assert ENTRY_POINT_DROPPED.message.startswith(
        "You cannot remove this app's Entry Point command in a bulk update operation."
    )
    [(call, reason)] = fake.rejections
    assert (call.method, call.path) == ("PUT", f"/applications/{fake.application_id}/commands")
    assert reason == ENTRY_POINT_DROPPED.message
    assert fake.global_commands == [made]


async def test_a_dev_guild_sync_leaves_the_global_commands_and_their_entry_point_alone(
    fake: FakeDiscord, sqlite_storage: Storage
) -> None:
    made = copy.deepcopy(fake.global_commands)
    await start(fake, sqlite_storage, dev_guild_id=fake.guild_id)
    assert fake.rejections == []
    assert fake.global_commands == made
    [sync] = [c for c in fake.calls if c.method == "PUT"]
    assert sync.path.endswith(f"/guilds/{fake.guild_id}/commands")
    assert {c["name"] for c in fake.guild_commands[fake.guild_id]} >= COMMANDS


async def test_an_application_without_activities_gets_its_commands_and_no_entry_point(
    sqlite_storage: Storage,
) -> None:
    async with serving() as fake:
        await start(fake, sqlite_storage)
    assert fake.rejections == []
    assert entry_points(fake.global_commands) == []
    assert set(slash_ids(fake)) >= COMMANDS
