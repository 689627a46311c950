"""Changes committed by another process (a web page served apart from the bot), told in
their games' channels as a change made here is.

Every change of a game played in a channel is committed with a mark that its channel has
not been told. This process tells the channels of its own shards' servers: at once when
the change feed says a game changed (a change this process told already is passed over
without reading the game), and on each sweep for any it missed (a restart, a lost
connection to the database). The mark is cleared only after the post, so a change is
told once, by one process, and after a crash told rather than lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from discord.ext import commands

if TYPE_CHECKING:
    from cogs.client import HilltopBot

log = logging.getLogger("hilltop.discord")


class TellingCog(commands.Cog):
    def __init__(self, bot: HilltopBot) -> None:
        self.bot = bot
        self._unsubscribe: Callable[[], None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Listen from the first connection on (READY comes again after a reconnection),
        and tell at once what was left untold while the bot was away."""
        if self._unsubscribe is None:
            self._unsubscribe = self.bot.house.pages.subscribe(self.changed)
            self.changed(None)

    def changed(self, game_id: int | None) -> None:
        """A game changed in some process (None: changes may have been missed)."""
        task = asyncio.get_running_loop().create_task(self.tell(game_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def tell(self, game_id: int | None) -> None:
        try:
            await self.bot.service.tell_untold(self.bot.post, game_id)
        except Exception:
            # The mark stays: the next change or sweep tells the moves.
            log.exception("telling game %s's channel of its moves failed", game_id)

    async def cog_unload(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        for task in self._tasks:
            task.cancel()


async def setup(bot: HilltopBot) -> None:
    await bot.add_cog(TellingCog(bot))
