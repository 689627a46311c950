"""The fake Discord as a sharded bot meets Discord: guilds spread over shards, each gateway
connection told about its own shard's guilds and handed their interactions, real
discord.py clients on each side."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack

import aiohttp
import discord
import pytest

from tests.cogs.fake_discord import (
    API,
    WAIT,
    FakeDiscord,
    FakeUser,
    InteractionType,
    running,
    serving,
)

GUILDS_ONLY = discord.Intents(guilds=True)


class ShardClient(discord.AutoShardedClient):
    """One process's shards of the bot, recording every interaction it is handed and
    answering /ping with its shard ids."""

    def __init__(self, shard_ids: list[int], shard_count: int) -> None:
        super().__init__(intents=GUILDS_ONLY, shard_ids=shard_ids, shard_count=shard_count)
        self.tree = discord.app_commands.CommandTree(self)
        self.interactions: list[discord.Interaction] = []
        self.received = asyncio.Event()

        @self.tree.command(description="Which shards answer")
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(f"pong from {self.shard_ids}")

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        self.interactions.append(interaction)
        self.received.set()

    async def next_interaction(self, *, within: float = WAIT) -> discord.Interaction:
        await asyncio.wait_for(self.received.wait(), within)
        self.received.clear()
        return self.interactions[-1]


@pytest.fixture(autouse=True)
def nothing_logged_an_error(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.WARNING)
    yield
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == []


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with serving(guilds=4, shard_count=2) as server:
        yield server
    refused = [(c.method, c.path, reason) for c, reason in server.rejections]
    assert refused == [], "Discord would have refused these requests"


@pytest.fixture
async def clients(fake: FakeDiscord) -> AsyncIterator[tuple[ShardClient, ShardClient]]:
    """Shard 0 and shard 1 of 2, as two processes would run them, both connected."""
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(running(ShardClient([0], 2), fake))
        second = await stack.enter_async_context(running(ShardClient([1], 2), fake))
        yield first, second


def guilds_of(fake: FakeDiscord, shard_id: int) -> list[int]:
    return [g for g in fake.guild_ids if fake.shard_of(g) == shard_id]


async def test_guilds_are_spread_evenly_over_the_shards() -> None:
    fake = FakeDiscord(guilds=5, shard_count=2)
    assert len(set(fake.guild_ids)) == 5
    assert fake.guild_id == fake.guild_ids[0]
    assert [fake.shard_of(g) for g in fake.guild_ids] == [0, 1, 0, 1, 0]
    assert [(g >> 22) % 2 for g in fake.guild_ids] == [0, 1, 0, 1, 0]
    # Each guild has its own "general" channel, and new channels go where they are asked.
    assert fake.general_channels[fake.guild_id] == fake.channel_id
    last = fake.guild_ids[-1]
    assert fake.guild_of(fake.general_channels[last]) == last
    assert fake.guild_of(fake.text_channel("games", last)) == last
    assert fake.guild_of(fake.text_channel("more")) == fake.guild_id


async def test_one_guild_on_one_shard_keeps_its_ids() -> None:
    fake = FakeDiscord()
    assert fake.guild_ids == [fake.guild_id] == [fake.owner.id + 1]
    assert fake.channel_id == fake.guild_id + 1
    assert fake.shard_of(fake.guild_id) == 0


async def test_the_gateway_recommends_the_fakes_shards(fake: FakeDiscord) -> None:
    headers = {"Authorization": f"Bot {fake.token}"}
    url = f"http://127.0.0.1:{fake.port}{API}/gateway/bot"
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as got:
        answer = await got.json()
    assert answer["shards"] == 2
    assert answer["session_start_limit"]["max_concurrency"] == 2


async def test_each_shard_sees_only_its_own_guilds(
    fake: FakeDiscord, clients: tuple[ShardClient, ShardClient]
) -> None:
    for shard_id, client in enumerate(clients):
        mine = guilds_of(fake, shard_id)
        assert len(mine) == 2
        assert sorted(g.id for g in client.guilds) == sorted(mine)
        for guild_id in mine:
            guild = client.get_guild(guild_id)
            assert guild is not None and guild.shard_id == shard_id
            assert [c.id for c in guild.text_channels] == [fake.general_channels[guild_id]]
    assert sorted((s.shard_id, s.shard_count) for s in fake.sessions) == [(0, 2), (1, 2)]


async def test_an_interaction_goes_to_the_shard_that_owns_its_guild(
    fake: FakeDiscord, clients: tuple[ShardClient, ShardClient]
) -> None:
    first, second = clients
    alice = fake.user("alice")
    data = {"id": str(fake.new_id()), "name": "ping", "type": 1}
    for shard_id, client in ((1, second), (0, first)):
        guild_id = guilds_of(fake, shard_id)[-1]
        channel_id = fake.general_channels[guild_id]
        payload = fake._interaction(InteractionType.APPLICATION_COMMAND, alice, data, channel_id)
        assert payload["guild_id"] == str(guild_id)
        assert fake.session_for(guild_id).shard_id == shard_id
        await fake.dispatch(payload)
        got = await client.next_interaction()
        assert (got.guild_id, got.channel_id, got.user.id) == (guild_id, channel_id, alice.id)
    await fake.caught_up()  # nothing else came, on the wrong shard or late
    assert [i.guild_id for i in first.interactions] == [guilds_of(fake, 0)[-1]]
    assert [i.guild_id for i in second.interactions] == [guilds_of(fake, 1)[-1]]


async def test_a_direct_message_interaction_goes_to_shard_zero(
    fake: FakeDiscord, clients: tuple[ShardClient, ShardClient]
) -> None:
    first, second = clients
    alice = fake.user("alice")
    dm = await second.create_dm(discord.Object(alice.id))
    data = {"id": str(fake.new_id()), "name": "ping", "type": 1}
    payload = fake._interaction(InteractionType.APPLICATION_COMMAND, alice, data, dm.id)
    assert "guild_id" not in payload and "member" not in payload
    await fake.dispatch(payload)
    got = await first.next_interaction()
    assert (got.guild_id, got.channel_id, got.user.id) == (None, dm.id, alice.id)
    await fake.caught_up()
    assert second.interactions == []


async def test_a_command_synced_to_a_guild_is_answered_by_its_shard(
    fake: FakeDiscord, clients: tuple[ShardClient, ShardClient]
) -> None:
    first, second = clients
    # The first guild's shard, in a guild other than the first: the newest connection is
    # the other shard's, and the command is synced to that guild alone.
    elsewhere, there = guilds_of(fake, 0)
    first.tree.copy_global_to(guild=discord.Object(there))
    await first.tree.sync(guild=discord.Object(there))
    alice = fake.user("alice")
    answered = await fake.slash(alice, "ping", channel_id=fake.general_channels[there])
    assert answered.payload["guild_id"] == str(there)
    assert answered.payload["member"]["user"]["id"] == str(alice.id)
    assert answered.payload["data"]["guild_id"] == str(there)
    assert answered.message.content == "pong from [0]"
    assert answered.message.channel_id == fake.general_channels[there]
    await fake.caught_up()
    assert second.interactions == []
    # Synced to one guild only, the command does not exist in the others.
    with pytest.raises(AssertionError, match="was not synced"):
        await fake.dispatch_slash(alice, "ping", channel_id=fake.general_channels[elsewhere])


async def test_commands_sync_to_every_guild_of_the_fake_and_no_other(fake: FakeDiscord) -> None:
    headers = {"Authorization": f"Bot {fake.token}"}
    command = [{"name": "ping", "description": "Which shards answer", "type": 1}]
    app = f"http://127.0.0.1:{fake.port}{API}/applications/{fake.application_id}"
    async with aiohttp.ClientSession(headers=headers) as session:
        for guild_id in fake.guild_ids:
            async with session.put(f"{app}/guilds/{guild_id}/commands", json=command) as got:
                assert got.status == 200
        unknown = fake.new_id()
        async with session.put(f"{app}/guilds/{unknown}/commands", json=command) as got:
            assert got.status == 404
    assert sorted(fake.guild_commands) == sorted(fake.guild_ids)
    assert [reason for _, reason in fake.rejections] == ["Unknown Guild"]
    fake.rejections.clear()


async def test_a_thread_is_announced_on_its_guilds_shard(
    fake: FakeDiscord, clients: tuple[ShardClient, ShardClient]
) -> None:
    first, second = clients
    guild_id = guilds_of(fake, 0)[-1]
    guild = first.get_guild(guild_id)
    assert guild is not None
    parent = guild.get_channel(fake.general_channels[guild_id])
    assert isinstance(parent, discord.TextChannel)
    thread = await parent.create_thread(name="game", type=discord.ChannelType.public_thread)
    assert fake.channels[thread.id]["guild_id"] == str(guild_id)
    await fake.caught_up()  # THREAD_CREATE comes over the gateway, after the REST answer
    assert guild.get_thread(thread.id) is not None
    assert all(g.get_thread(thread.id) is None for g in second.guilds)


@pytest.mark.parametrize(
    ("shard_id", "shard_count", "code"),
    [(0, 3, 4010), (2, 2, 4010), (None, None, 4011)],
    ids=["wrong shard count", "shard id out of range", "no shard"],
)
async def test_an_identify_outside_the_fakes_shards_is_refused(
    fake: FakeDiscord, shard_id: int | None, shard_count: int | None, code: int
) -> None:
    client = discord.Client(intents=GUILDS_ONLY, shard_id=shard_id, shard_count=shard_count)
    with pytest.raises(discord.ConnectionClosed) as closed:
        async with running(client, fake):
            pass
    assert closed.value.code == code
    assert fake.sessions == []


async def test_a_sharded_client_with_the_wrong_shard_count_is_refused(fake: FakeDiscord) -> None:
    with pytest.raises(discord.ConnectionClosed) as closed:
        async with running(ShardClient([0], 3), fake):
            pass
    assert closed.value.code == 4010
    assert fake.sessions == []
    with pytest.raises(AssertionError, match="no bot is connected"):
        fake.session_for(fake.guild_id)


async def test_interactions_need_a_connection_on_their_shard(fake: FakeDiscord) -> None:
    async with running(ShardClient([0], 2), fake):
        alice: FakeUser = fake.user("alice")
        data = {"id": str(fake.new_id()), "name": "ping", "type": 1}
        guild_id = guilds_of(fake, 1)[0]
        channel_id = fake.general_channels[guild_id]
        payload = fake._interaction(InteractionType.APPLICATION_COMMAND, alice, data, channel_id)
        with pytest.raises(AssertionError, match="as shard 1"):
            await fake.dispatch(payload)
        assert fake.session.shard_id == 0
