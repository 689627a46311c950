"""Spec'd mocks of discord.py's interaction objects, driving the real cogs and views."""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any
from unittest.mock import AsyncMock, MagicMock, create_autospec

import discord
import pytest

from cogs.client import EXTENSIONS, HilltopBot
from data.storage import Storage
from engine.hillbert_par import ParResult
from host.model import User
from tests.houses import bot_houses

BOT_ID = 9000
GUILD = 77
CHANNEL = 600


def member(user_id: int, name: str, *, bot: bool = False) -> Any:
    m = create_autospec(discord.Member, instance=True)
    m.id = user_id
    m.display_name = name
    m.name = name
    m.bot = bot
    m.mention = f"<@{user_id}>"
    return m


ALICE = member(1, "alice")
BOB = member(2, "bob")
CAROL = member(3, "carol")
OTHER_BOT = member(4, "otherbot", bot=True)


async def fixed_par(seed: int) -> ParResult:
    return ParResult(100, 250, ())


async def make_bot(storage: Storage) -> HilltopBot:
    bot = HilltopBot(bot_houses(storage, par_runner=fixed_par))
    # The computer's answer always joins the reply here, so a test reads one message;
    # answers posted later are tested through the fake Discord and the service.
    bot.open_house(User(BOT_ID, "hilltop", is_bot=True), computer_wait=None)
    bot._connection.user = MagicMock(id=BOT_ID, display_name="hilltop")
    for extension in EXTENSIONS:
        await bot.load_extension(extension)
    return bot


@pytest.fixture
async def bot(storage: Storage) -> AsyncIterator[HilltopBot]:
    client = await make_bot(storage)
    yield client
    await client.close()


class Sent:
    """What an interaction answered, in order: (method, kwargs)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def last(self) -> dict[str, Any]:
        return self.calls[-1][1]

    def methods(self) -> list[str]:
        return [name for name, _ in self.calls]


def interaction(
    bot: HilltopBot,
    user: Any,
    *,
    channel_id: int = CHANNEL,
    admin: bool = False,
    component: bool = False,
    namespace: dict[str, Any] | None = None,
    locale: discord.Locale = discord.Locale.american_english,
) -> tuple[Any, Sent]:
    sent = Sent()
    state = {"done": False}
    inter = create_autospec(discord.Interaction, instance=True)
    inter.client = bot
    inter.user = user
    inter.guild_id = GUILD
    inter.locale = locale
    inter.guild_locale = discord.Locale.american_english
    inter.channel_id = channel_id
    inter.channel = create_autospec(discord.TextChannel, instance=True)
    inter.channel.name = "general"
    inter.permissions = discord.Permissions(manage_guild=admin)
    inter.type = (
        discord.InteractionType.component
        if component
        else discord.InteractionType.application_command
    )
    inter.command = None
    inter.data = {}
    inter.namespace = discord.app_commands.Namespace.__new__(discord.app_commands.Namespace)
    for key, value in (namespace or {}).items():
        setattr(inter.namespace, key, value)

    response = create_autospec(discord.InteractionResponse, instance=True)

    def record(name: str) -> Any:
        async def call(*args: Any, **kwargs: Any) -> Any:
            state["done"] = True
            sent.calls.append((name, kwargs))
            # What discord.py returns names the message posted (a callback response's
            # message_id, a followup's id).
            message_id = 10_000 + len(sent.calls)
            return SimpleNamespace(message_id=message_id, id=message_id)

        return AsyncMock(side_effect=call)

    response.send_message = record("send_message")
    response.edit_message = record("edit_message")
    response.defer = record("defer")
    response.is_done.side_effect = lambda: state["done"]
    inter.response = response
    followup = create_autospec(discord.Webhook, instance=True)
    followup.send = record("followup")
    inter.followup = followup
    inter.edit_original_response = record("edit_original")
    inter.delete_original_response = record("delete_original")
    return inter, sent


def embed_text(kwargs: dict[str, Any]) -> str:
    embed: discord.Embed = kwargs["embed"]
    return f"{embed.title or ''}\n{embed.description or ''}"


def buttons(kwargs: dict[str, Any]) -> list[Any]:
    view: discord.ui.View = kwargs["view"]
    return list(view.children)
