"""/mydata: what the bot stores about a player, as a file for them alone, and forgetting
it on their request (confirmed with a button)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.respond import channel_of, respond, user_of

if TYPE_CHECKING:
    from cogs.client import HilltopBot


class MyDataCog(commands.GroupCog, group_name="mydata"):
    """Your data: a copy of everything stored about you, or forgetting it."""

    def __init__(self, bot: HilltopBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="export")
    async def export(self, interaction: discord.Interaction[Any]) -> None:
        """A file, for you alone, with everything stored about you."""
        await respond(
            interaction,
            lambda: self.bot.house.privacy.mydata_export(
                channel_of(interaction), user_of(interaction)
            ),
            public=False,
        )

    @app_commands.command(name="forget")
    async def forget(self, interaction: discord.Interaction[Any]) -> None:
        """Forget everything stored about you (asks to confirm first)."""
        await respond(
            interaction,
            lambda: self.bot.house.privacy.mydata_forget(
                channel_of(interaction), user_of(interaction)
            ),
            public=False,
        )


async def setup(bot: HilltopBot) -> None:
    await bot.add_cog(MyDataCog(bot))
