"""When the fake Discord counts an answer as visible, which is what the load benchmark
times: a small discord.py client answers in each of the ways the bot can."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from discord import app_commands

from tests.cogs.fake_discord import (
    WAIT,
    CallbackType,
    Exchange,
    FakeDiscord,
    FakeUser,
    running,
    serving,
)

PAUSE = 0.2


class Answerer(discord.Client):
    def __init__(self, guild_id: int) -> None:
        super().__init__(intents=discord.Intents(guilds=True))
        self.tree = app_commands.CommandTree(self)
        self.guild = discord.Object(id=guild_id)

        @self.tree.command(name="now")
        async def now(interaction: discord.Interaction[Any]) -> None:
            """Answers at once."""
            await interaction.response.send_message("now")

        @self.tree.command(name="later")
        @app_commands.describe(text="What to type")
        async def later(interaction: discord.Interaction[Any], text: str) -> None:
            """Thinks, then fills the "thinking…" message in."""
            await interaction.response.defer(thinking=True)
            await asyncio.sleep(PAUSE)
            await interaction.followup.send(text)

        @later.autocomplete("text")
        async def complete(
            interaction: discord.Interaction[Any], current: str
        ) -> list[app_commands.Choice[str]]:
            return [app_commands.Choice(name=current or "x", value=current or "x")]

        @self.tree.command(name="replace")
        async def replace(interaction: discord.Interaction[Any]) -> None:
            """Thinks, removes the "thinking…" message, then posts a new one."""
            await interaction.response.defer(thinking=True)
            await asyncio.sleep(PAUSE)
            await interaction.delete_original_response()
            await asyncio.sleep(PAUSE)
            await interaction.followup.send("new", file=discord.File(io.BytesIO(b"png!"), "b.png"))

        @self.tree.command(name="refuse")
        async def refuse(interaction: discord.Interaction[Any]) -> None:
            """Thinks, then refuses privately."""
            await interaction.response.defer(thinking=True)
            await interaction.delete_original_response()
            await interaction.followup.send("no", ephemeral=True)

        @self.tree.command(name="edit")
        async def edit(interaction: discord.Interaction[Any]) -> None:
            """Thinks, then edits the "thinking…" message."""
            await interaction.response.defer(thinking=True)
            await asyncio.sleep(PAUSE)
            await interaction.edit_original_response(content="edited")

    async def setup_hook(self) -> None:
        self.tree.copy_global_to(guild=self.guild)
        await self.tree.sync(guild=self.guild)


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with serving(keep_uploads=False) as server, running(Answerer(server.guild_id), server):
        yield server
    assert server.rejections == []


@pytest.fixture
def alice(fake: FakeDiscord) -> FakeUser:
    return fake.user("alice")


async def answered(exchange: Any) -> Any:
    await asyncio.wait_for(exchange.replied.wait(), WAIT)
    return exchange


async def test_an_immediate_answer_is_visible_with_its_callback(
    fake: FakeDiscord, alice: FakeUser
) -> None:
    exchange = await answered(await fake.dispatch_slash(alice, "now"))
    assert exchange.callback_type == CallbackType.MESSAGE
    assert exchange.replied_at == exchange.answer.at
    assert exchange.latency == exchange.seconds
    assert exchange.reply_id == exchange.original_id and not exchange.reply_ephemeral


async def test_autocomplete_is_answered_with_its_callback(
    fake: FakeDiscord, alice: FakeUser
) -> None:
    exchange = await answered(await fake.dispatch_autocomplete(alice, "later", "text", text="b2"))
    assert exchange.choices == [{"name": "b2", "value": "b2"}]
    assert exchange.replied_at == exchange.answer.at and exchange.reply_id is None


def not_replied(exchange: Exchange) -> bool:
    """Whether nothing has answered the exchange yet (a call, so that the answer awaited
    next is read afresh)."""
    return exchange.replied_at is None


async def test_a_deferred_answer_counts_until_the_followup_fills_it(
    fake: FakeDiscord, alice: FakeUser
) -> None:
    exchange = await fake.dispatch_slash(alice, "later", text="done")
    await asyncio.wait_for(exchange.answered.wait(), WAIT)
    assert exchange.callback_type == CallbackType.DEFERRED_MESSAGE
    assert not_replied(exchange)
    await answered(exchange)
    [fill] = exchange.calls
    assert exchange.replied_at == fill.at and exchange.latency >= PAUSE
    assert exchange.reply_id == exchange.original_id and not exchange.reply_ephemeral
    assert exchange.reply_id is not None
    assert fake.message(exchange.reply_id).content == "done"


async def test_an_edit_of_the_deferred_message_fills_it(fake: FakeDiscord, alice: FakeUser) -> None:
    exchange = await answered(await fake.dispatch_slash(alice, "edit"))
    [edit] = exchange.calls
    assert edit.method == "PATCH" and exchange.replied_at == edit.at
    assert fake.message(exchange.original_id or 0).content == "edited"


async def test_a_replacing_message_counts_not_the_delete_before_it(
    fake: FakeDiscord, alice: FakeUser
) -> None:
    exchange = await answered(await fake.dispatch_slash(alice, "replace"))
    delete, post = exchange.calls
    assert (delete.method, post.method) == ("DELETE", "POST")
    assert exchange.replied_at == post.at and exchange.latency >= 2 * PAUSE
    assert exchange.reply_id != exchange.original_id
    [upload] = fake.message(exchange.reply_id or 0).uploads
    assert (upload.filename, upload.data, upload.size) == ("b.png", b"", 4)


async def test_a_private_refusal_after_a_deferral_is_ephemeral(
    fake: FakeDiscord, alice: FakeUser
) -> None:
    exchange = await answered(await fake.dispatch_slash(alice, "refuse"))
    assert exchange.reply_ephemeral
    assert exchange.replied_at == exchange.calls[-1].at
