"""Deadlines: every half minute, play the documented default for decisions not made in
time, and post the new board where the game is played."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from discord.ext import commands, tasks

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
        for channel, replies in await self.bot.service.expire_due():
            await self.bot.post(channel, replies)

    @sweep.error
    async def sweep_failed(self, error: BaseException) -> None:
        log.error("deadline sweep failed", exc_info=error)
        self.sweep.restart()


async def setup(bot: HilltopBot) -> None:
    await bot.add_cog(TimersCog(bot))
