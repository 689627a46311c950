"""/ratings and /profile: the ratings of games between people, and a player's record."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from cogs.games import player_of
from cogs.respond import channel_of, in_users_language, respond, user_of
from host.face import SCOPES, Reply

if TYPE_CHECKING:
    from cogs.client import HilltopBot


@in_users_language
async def rated_game_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    key = current.lower().strip()
    bot = cast("HilltopBot", interaction.client)
    return [
        app_commands.Choice(name=name, value=game_id)
        for game_id, name in bot.rating_pages.game_choices()
        if key in game_id or key in name.lower()
    ][:25]


class RatingsCog(commands.Cog):
    def __init__(self, bot: HilltopBot) -> None:
        self.bot = bot

    @app_commands.command(name="ratings")
    @app_commands.describe(game="Which game's table", scope="This server or everyone")
    @app_commands.autocomplete(game=rated_game_autocomplete)
    @app_commands.choices(scope=[app_commands.Choice(name=s, value=s) for s in SCOPES])
    async def ratings(
        self, interaction: discord.Interaction[Any], game: str, scope: str = "server"
    ) -> None:
        """A game's ratings table, with your own place."""
        await respond(
            interaction,
            lambda: self.bot.rating_pages.table(
                channel_of(interaction), user_of(interaction), game, scope
            ),
        )

    @app_commands.command(name="profile")
    @app_commands.describe(
        user="Whose profile (yours, if left out)",
        opponent="Show the head-to-head record against this player",
    )
    async def profile(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | None = None,
        opponent: discord.User | None = None,
    ) -> None:
        """Ratings, record, streak and best win in each game, and daily stats."""

        async def call() -> list[Reply]:
            # Inside the call: naming another bot is refused like any bad input.
            target = player_of(interaction, user) if user is not None else None
            other = player_of(interaction, opponent) if opponent is not None else None
            return await self.bot.rating_pages.profile(
                channel_of(interaction), user_of(interaction), target, other
            )

        await respond(interaction, call)


async def setup(bot: HilltopBot) -> None:
    await bot.add_cog(RatingsCog(bot))
