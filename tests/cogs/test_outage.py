"""The database restarting under the bot: players are told plainly that their command
was not carried out, nothing is half applied, and the bot takes moves again by itself
once the server is back. On a PostgreSQL server of the test's own, through discord.py
and the fake Discord."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest

from cogs.client import HilltopBot
from data.storage import Storage, open_storage
from tests.cogs.fake_discord import running, serving
from tests.houses import bot_houses
from tests.postgres_server import PostgresServer

UNREACHABLE = "I cannot reach the game database right now, so your command may not have"


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    with PostgresServer(durable=True) as started:
        yield started


@pytest.fixture
async def storage(server: PostgresServer) -> AsyncIterator[Storage]:
    url = await server.create_database_async("outage")
    opened = await open_storage(url)
    yield opened
    await opened.close()
    await server.drop_database_async("outage")


async def test_a_restart_of_the_database_is_explained_and_survived(
    server: PostgresServer, storage: Storage
) -> None:
    async with serving() as fake:
        bot = HilltopBot(bot_houses(storage))
        async with running(bot, fake):
            alice, bob = fake.user("alice"), fake.user("bob")
            challenge = await fake.slash(
                alice, "play", game="hokito", opponent=bob, seed=1, seat="first"
            )
            accepted = await fake.click(bob, challenge.message, label="Accept")
            await accepted.followups(1)
            record = await storage.games.live_game_in_channel(fake.channel_id)
            assert record is not None and record.ply == 0

            await asyncio.to_thread(server.stop_server, "fast")
            refused = await fake.slash(alice, "move", text="b2-b1")
            assert refused.ephemeral and UNREACHABLE in refused.message.text
            choices = await fake.autocomplete(alice, "move", "text", text="b")
            assert choices.choices == []  # no choices, at once: not a failed interaction
            told = await fake.slash(bob, "games mine")
            assert told.ephemeral and UNREACHABLE in told.message.text

            await asyncio.to_thread(server.start_server)
            moved = await fake.slash(alice, "move", text="b2-b1")
            assert not moved.ephemeral, moved.message.text
            assert [m.text for m in await storage.games.moves(record.id)] == ["b2-b1"]
            again = await fake.slash(alice, "move", text="b2-b1")
            assert again.ephemeral and UNREACHABLE not in again.message.text
    assert [(c.method, c.path, r) for c, r in fake.rejections] == []
