"""Deadlines: every half minute, play the documented default for decisions not made in
time, and post the new board where the game is played."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands, tasks

from cogs.views import message_parts

if TYPE_CHECKING:
    from cogs.client import HilltopBot

log = logging.getLogger("hilltop.discord")


class TimersCog(commands.Cog):
    def __init__(self, bot: HilltopBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        if not self.sweep.is_running():
            self.sweep.start()

    async def cog_unload(self) -> None:
        self.sweep.cancel()

    @tasks.loop(seconds=30)
    async def sweep(self) -> None:
        for place, replies in await self.bot.service.expire_due():
            channel = self.bot.get_channel(place.channel_id)
            if channel is None:
                try:
                    channel = await self.bot.fetch_channel(place.channel_id)
                except discord.HTTPException:
                    log.warning("channel %s of a game past its deadline is gone", place.channel_id)
                    continue
            if not isinstance(channel, discord.abc.Messageable):
                continue
            for reply in replies:
                await channel.send(**message_parts(reply))

    @sweep.error
    async def sweep_failed(self, error: BaseException) -> None:
        log.error("deadline sweep failed", exc_info=error)
        self.sweep.restart()


async def setup(bot: HilltopBot) -> None:
    await bot.add_cog(TimersCog(bot))
