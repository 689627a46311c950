"""Servers through discord.py and a fake Discord that refuses what Discord refuses: a
removal stops the server's game, an outage changes nothing, an invitation back calls the
deletion off, and `/admin forget-server` names what goes and deletes it only when its
button is pressed, by an admin."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from cogs.client import HilltopBot
from data.storage import Storage
from tests.cogs.fake_discord import MANAGE_GUILD, FakeDiscord, running, serving
from tests.cogs.test_gateway import Clock, Players, game_id, hilltop, start_hokito
from tests.cogs.test_gateway import fake as fake
from tests.cogs.test_gateway import nothing_logged_an_error as nothing_logged_an_error
from tests.cogs.test_gateway import players as players
from tests.houses import bot_houses


async def settled(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Wait (a few seconds at most) for a gateway event's handler to have done `check`."""
    for _ in range(100):
        if await check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"waited in vain for {what}")


async def test_a_removal_stops_the_server_and_an_outage_changes_nothing(
    storage: Storage, players: Players, fake: FakeDiscord
) -> None:
    alice, bob, _ = players
    guild = fake.guild_id
    async with hilltop(fake, storage, Clock()) as bot:
        await start_hokito(fake, alice, bob)
        game = await game_id(storage, fake)
        assert await storage.servers.get(guild) is not None  # noted as it connected
        session = fake.session_for(guild)
        await session.dispatch("GUILD_DELETE", {"id": str(guild), "unavailable": True})
        await fake.caught_up([session], within=10)
        # The outage is over: the server comes back as it was.
        await session.dispatch("GUILD_CREATE", fake._guild(guild))
        await fake.caught_up([session], within=10)
        record = await storage.games.get_game(game)
        assert record is not None and record.status == "active"
        assert not await bot.house.servers.is_gone(guild)

        await session.dispatch("GUILD_DELETE", {"id": str(guild)})

        async def ended() -> bool:
            record = await storage.games.get_game(game)
            return record is not None and record.status == "aborted"

        await settled(ended, "the removed server's game to end")
        assert await bot.house.servers.is_gone(guild)
        # Invited back: a GUILD_CREATE that does not say the server was unavailable.
        joined = {k: v for k, v in fake._guild(guild).items() if k != "unavailable"}
        await session.dispatch("GUILD_CREATE", joined)

        async def back() -> bool:
            return not await bot.house.servers.is_gone(guild)

        await settled(back, "the invitation back to call the deletion off")


async def test_forget_server_is_confirmed_by_an_admin_then_deletes_everything(
    storage: Storage, players: Players, fake: FakeDiscord
) -> None:
    alice, bob, _ = players
    admin = fake.user("root", permissions=MANAGE_GUILD)
    async with hilltop(fake, storage, Clock()):
        await start_hokito(fake, alice, bob)
        game = await game_id(storage, fake)
        refused = await fake.slash(alice, "admin forget-server")
        refusal = await refused.shown()
        assert refused.ephemeral and "Only server admins" in refusal.text
        assert refusal.labels() == []
        asked = await fake.slash(admin, "admin forget-server")
        shown = await asked.shown()
        assert asked.ephemeral and "1 game," in shown.text and "Delete everything" in shown.labels()
        # Only the admin sees the question: nothing goes until they press its button.
        assert await storage.games.get_game(game) is not None
        done = await fake.click(admin, shown, label="Delete everything")
        assert "is deleted" in (await done.shown()).text
        assert await storage.games.get_game(game) is None
        assert (await storage.servers.contents(fake.guild_id)).empty


async def test_a_removal_while_the_bot_was_offline_is_noticed_when_it_connects(
    storage: Storage,
) -> None:
    # Two shards in one process, each comparing the servers of its own shard.
    async with serving(guilds=2, shard_count=2) as fake:
        alice, bob = fake.user("alice"), fake.user("bob")
        kept, removed = fake.guild_ids
        assert fake.shard_of(kept) != fake.shard_of(removed)
        channel = fake.general_channels[removed]
        async with running(HilltopBot(bot_houses(storage, clock=Clock())), fake):
            challenge = await fake.slash(
                alice, "play", channel_id=channel, game="hokito", opponent=bob, seat="first"
            )
            await (await fake.click(bob, challenge.message, label="Accept")).followups(1)

            async def noted() -> bool:
                return await storage.servers.stored_present() == sorted(fake.guild_ids)

            await settled(noted, "the servers found at connecting to be noted")
        record = await storage.games.live_game_in_channel(channel)
        assert record is not None
        fake.guild_ids.remove(removed)  # the bot is removed while it is offline
        async with running(HilltopBot(bot_houses(storage, clock=Clock())), fake) as bot:

            async def ended() -> bool:
                found = await storage.games.get_game(record.id)
                return found is not None and found.status == "aborted"

            await settled(ended, "the game of the server left while offline to end")
            assert await bot.house.servers.is_gone(removed)
            assert not await bot.house.servers.is_gone(kept)
        assert [(c.method, c.path, r) for c, r in fake.rejections] == []
