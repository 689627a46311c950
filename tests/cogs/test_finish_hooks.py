"""Through Discord, every way a game ends runs the finish hooks once: a button, a command,
a claim after a deadline; neither the sweep nor a restart of the bot runs them again."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from cogs.client import HilltopBot
from data.storage import Storage
from host.face import Reply
from host.play.live import Loaded
from tests.cogs.fake_discord import MANAGE_GUILD, FakeDiscord
from tests.cogs.test_gateway import (  # noqa: F401 (fixtures)
    DAY,
    Clock,
    Players,
    fake,
    hilltop,
    nothing_logged_an_error,
    players,
    start_hokito,
)

Ending = Callable[[FakeDiscord, HilltopBot, Players, Clock], Awaitable[None]]


async def resigned_by_the_button(
    discord: FakeDiscord, bot: HilltopBot, people: Players, clock: Clock
) -> None:
    board = await start_hokito(discord, people.alice, people.bob)
    ask = await discord.click(people.bob, board, label="Resign")
    await discord.click(people.bob, ask.message, label="Yes, resign")


async def ended_by_an_admin(
    discord: FakeDiscord, bot: HilltopBot, people: Players, clock: Clock
) -> None:
    await start_hokito(discord, people.alice, people.bob)
    await discord.slash(people.alice, "move", text="b2-b1")
    admin = discord.user("root", permissions=MANAGE_GUILD)
    ended = await discord.slash(admin, "admin end")
    assert "ended" in ended.message.text.lower()


async def claimed_after_the_deadline(
    discord: FakeDiscord, bot: HilltopBot, people: Players, clock: Clock
) -> None:
    await start_hokito(discord, people.alice, people.bob)
    clock.now += 3 * DAY + 1
    await bot.get_cog("TimersCog").tick()  # type: ignore[union-attr]
    offer = discord.channel_messages()[-1]
    await discord.click(people.bob, offer, label="Claim the win")


ENDINGS: dict[str, Ending] = {
    "resigned by the button": resigned_by_the_button,
    "ended by an admin": ended_by_an_admin,
    "claimed after the deadline": claimed_after_the_deadline,
}


@pytest.mark.parametrize("how", sorted(ENDINGS))
async def test_an_ending_through_discord_runs_the_finish_hooks_once(
    fake: FakeDiscord,  # noqa: F811
    storage: Storage,
    players: Players,  # noqa: F811
    how: str,
) -> None:
    ended: list[int] = []

    async def hook(loaded: Loaded) -> list[Reply]:
        ended.append(loaded.id)
        return []

    clock = Clock()
    async with hilltop(fake, storage, clock) as bot:
        bot.service.finish_hooks.append(hook)
        await ENDINGS[how](fake, bot, players, clock)
        assert len(ended) == 1, ended
        await bot.get_cog("TimersCog").tick()  # type: ignore[union-attr]
        await bot.service.announcer.cleared()
        assert len(ended) == 1, ended
        record = await storage.games.get_game(ended[0])
        assert record is not None and not record.is_live
        assert await storage.games.untold(ended[0]) is None
    async with hilltop(fake, storage, clock) as again:
        again.service.finish_hooks.append(hook)
        await again.get_cog("TimersCog").tick()  # type: ignore[union-attr]
        assert len(ended) == 1, ended
