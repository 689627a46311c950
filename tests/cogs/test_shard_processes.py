"""The bot as two shard processes on one database, through discord.py and a fake Discord
with two shards: each answers its own servers, and what spans servers (`/games mine`,
ratings, profiles) is the same whichever process answers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import pytest

from cogs.client import HilltopBot
from data.repository import Shards
from data.storage import open_storage
from engine.hillbert_par import ParResult
from tests.cogs.fake_discord import FakeDiscord, running, serving
from tests.houses import bot_houses

SHARDS = 2


async def fixed_par(seed: int) -> ParResult:
    return ParResult(40, 120, ())


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with serving(guilds=SHARDS, shard_count=SHARDS) as server:
        yield server
    refused = [(c.method, c.path, reason) for c, reason in server.rejections]
    assert refused == [], "Discord would have refused these requests"


@pytest.fixture
async def bots(fake: FakeDiscord, storage_target: str) -> AsyncIterator[list[HilltopBot]]:
    """One bot per shard, each with its own connections to the one database, as two
    processes would have; shard 0's starts first (it syncs the commands)."""
    async with AsyncExitStack() as stack:
        started = []
        for shard in range(SHARDS):
            storage = await open_storage(storage_target)
            stack.push_async_callback(storage.close)
            bot = HilltopBot(
                bot_houses(storage, par_runner=fixed_par), shards=Shards((shard,), SHARDS)
            )
            started.append(await stack.enter_async_context(running(bot, fake)))
        yield started


async def test_each_process_answers_its_own_servers_and_both_see_everything(
    fake: FakeDiscord, bots: list[HilltopBot]
) -> None:
    alice, bob = fake.user("alice"), fake.user("bob")
    first, second = (fake.general_channels[g] for g in fake.guild_ids)
    assert [fake.shard_of(g) for g in fake.guild_ids] == [0, 1]
    for bot, shard in zip(bots, range(SHARDS), strict=True):
        assert bot.service.timeouts.shards == Shards((shard,), SHARDS)
        assert [g.id for g in bot.guilds] == [fake.guild_ids[shard]]

    challenges = {}
    for channel in (first, second):
        challenge = await fake.slash(
            alice, "play", channel_id=channel, game="hokito", opponent=bob, seed=1, seat="first"
        )
        accepted = await fake.click(bob, challenge.message, label="Accept")
        await accepted.followups(1)
        challenges[channel] = challenge
    # Each game is in the memory of the process that holds its server's shard only.
    for bot, channel in zip(bots, (first, second), strict=True):
        other = bots[1 - bots.index(bot)]
        record = await bot.service.repository.live_game_in_channel(channel)
        assert record is not None
        assert bot.service.live.cached(record.id) is not None
        assert other.service.live.cached(record.id) is None

    # `/games mine`, asked in either server, lists the games of both.
    for channel in (first, second):
        mine = await fake.slash(alice, "games mine", channel_id=channel)
        assert mine.ephemeral
        assert f"<#{first}>" in mine.message.text and f"<#{second}>" in mine.message.text

    # Ratings gathered from both servers' games, whichever process asks.
    for channel in (first, second):
        for player in (alice, bob):  # a game nobody played would be aborted, not rated
            legal = await fake.autocomplete(player, "move", "text", channel_id=channel, text="")
            value = legal.choices[0]["value"]
            await fake.slash(player, "move", channel_id=channel, text=value)
        asked = await fake.slash(bob, "resign", channel_id=channel)
        assert asked.ephemeral  # /resign asks first
        resigned = await fake.click(bob, asked.message, label="Yes, resign")
        assert not resigned.ephemeral and "bob (White) resigned" in resigned.message.text
    for channel in (second, first):
        table = await fake.slash(
            alice, "ratings", channel_id=channel, game="hokito", scope="global"
        )
        text = table.message.text
        assert "alice" in text and "bob" in text
        profile = await fake.slash(alice, "profile", channel_id=channel)
        [hokito, here, _daily] = profile.message.embeds[0]["fields"]
        # This server's one game, and the global rating from both servers' (two wins).
        assert here["name"] == "Games here" and "1 game: 1 win" in here["value"]
        assert "1 game: 1 win" in hokito["value"]
        assert "global 1779?" in hokito["value"], hokito["value"]
