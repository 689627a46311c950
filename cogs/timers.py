"""Time passing, on a `discord.ext.tasks` loop: every half minute, reminders that are
due are sent, decisions past their deadline get their default (or the win is offered),
each game's latest board message is saved for links to it, and games that finished
without a reply to carry their rating (a computer's last move) are rated. The work itself is the
service's and is stored, so a restart neither loses nor repeats any of it."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from discord.ext import commands, tasks

from host.face import DatabaseUnavailableError

if TYPE_CHECKING:
    from cogs.client import HilltopBot

log = logging.getLogger("hilltop.discord")

SWEEP_SECONDS = 30


class TimersCog(commands.Cog):
    def __init__(self, bot: HilltopBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        if not self.sweep.is_running():
            self.sweep.start()

    async def cog_unload(self) -> None:
        self.sweep.cancel()

    async def tick(self) -> None:
        """One sweep: what is due now is done and posted."""
        await self.bot.save_board_links()
        for where, replies in await self.bot.service.expire_due():
            try:
                await self.bot.post(where, replies)
            except Exception:
                # One channel the bot may no longer write in must not cost the others
                # their reminders and boards.
                log.exception("posting in %s after the sweep failed", where)
        try:
            # Changes whose post the change feed did not bring (a restart, another process).
            await self.bot.service.tell_untold(self.bot.post)
        except Exception:
            log.exception("telling untold changes failed; the next sweep tries again")
        try:
            await self.bot.service.settle_ratings()
        except Exception:
            log.exception("rating the finished games failed; the next sweep tries again")

    @tasks.loop(seconds=SWEEP_SECONDS)
    async def sweep(self) -> None:
        try:
            await self.tick()
        except DatabaseUnavailableError as exc:
            # Nothing is lost: what is due stays due until the database is back.
            log.warning("the sweep waits for the database: %s", exc)

    @sweep.error
    async def sweep_failed(self, error: BaseException) -> None:
        log.error("deadline sweep failed", exc_info=error)
        self.sweep.restart()


async def setup(bot: HilltopBot) -> None:
    await bot.add_cog(TimersCog(bot))
