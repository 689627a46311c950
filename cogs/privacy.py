"""/privacy: what the bot keeps, why, for how long, who sees it, and how to have a copy or
have it removed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.respond import channel_of, respond, user_of
from host.face import privacy

if TYPE_CHECKING:
    from cogs.client import HilltopBot


class PrivacyCog(commands.Cog):
    def __init__(self, bot: HilltopBot) -> None:
        self.bot = bot

    @app_commands.command(name="privacy")
    async def privacy(self, interaction: discord.Interaction[Any]) -> None:
        """What the bot keeps about you, why, for how long, and how to have it removed."""
        await respond(
            interaction,
            lambda: privacy(channel_of(interaction), user_of(interaction)),
            public=False,
        )


async def setup(bot: HilltopBot) -> None:
    await bot.add_cog(PrivacyCog(bot))
