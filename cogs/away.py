"""/away and /back: a player's time away, when the clocks of their decisions stop."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.respond import channel_of, respond, user_of

if TYPE_CHECKING:
    from cogs.client import HilltopBot


class AwayCog(commands.Cog):
    def __init__(self, bot: HilltopBot) -> None:
        self.bot = bot

    @app_commands.command(name="away")
    @app_commands.describe(
        days="How many days (default: every day you have left)",
        until="Or the day you are back, as YYYY-MM-DD",
    )
    async def away(
        self,
        interaction: discord.Interaction[Any],
        days: app_commands.Range[int, 1, 365] | None = None,
        until: app_commands.Range[str, 10, 10] | None = None,
    ) -> None:
        """Go away: your deadlines stop in every game until you are back."""
        await respond(
            interaction,
            lambda: self.bot.house.away.away(
                channel_of(interaction), user_of(interaction), days, until
            ),
            public=False,
        )

    @app_commands.command(name="back")
    async def back(self, interaction: discord.Interaction[Any]) -> None:
        """Back early: your deadlines run again, and unused whole days are given back."""
        await respond(
            interaction,
            lambda: self.bot.house.away.back(channel_of(interaction), user_of(interaction)),
            public=False,
        )


async def setup(bot: HilltopBot) -> None:
    await bot.add_cog(AwayCog(bot))
