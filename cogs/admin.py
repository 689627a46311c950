"""/admin start, /admin end and /admin settings, for people with Manage Server.

Discord hides the group from others by default (`default_permissions`), but server
owners can change that, so the service checks the permission again on every call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.games import LEVEL_OPTIONS, game_autocomplete, player_of, variant_autocomplete
from cogs.respond import channel_of, respond, user_of
from host.face import MAX_COMPUTERS, MAX_DEADLINE_MINUTES, MAX_SEED, GameSetup, ServerChange

if TYPE_CHECKING:
    from cogs.client import HilltopBot


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class AdminCog(commands.GroupCog, group_name="admin"):
    """Server admin commands."""

    def __init__(self, bot: HilltopBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="start")
    @app_commands.describe(
        game="Which game",
        player1="Takes the first seat",
        player2="Takes the second seat",
        player3="Takes the third seat (Everest)",
        player4="Takes the fourth seat (Everest)",
        computers="Computer players to add after the people",
        seed="Seed for the random set-up",
        variant="A variant of the game",
        position="Start from this position (the game's notation)",
        level="How strongly the computer plays",
        deadline="Minutes each player has per decision (games with deadlines)",
    )
    @app_commands.autocomplete(game=game_autocomplete, variant=variant_autocomplete)
    @app_commands.choices(level=LEVEL_OPTIONS)
    async def start(
        self,
        interaction: discord.Interaction[Any],
        game: str,
        player1: discord.User,
        player2: discord.User | None = None,
        player3: discord.User | None = None,
        player4: discord.User | None = None,
        computers: app_commands.Range[int, 0, MAX_COMPUTERS] = 0,
        seed: app_commands.Range[int, 0, MAX_SEED] | None = None,
        variant: str | None = None,
        position: str | None = None,
        level: str | None = None,
        deadline: app_commands.Range[int, 1, MAX_DEADLINE_MINUTES] | None = None,
    ) -> None:
        """Start a match here with no challenge step; whoever moves first is pinged."""

        setup = GameSetup(
            game,
            computers=computers,
            seed=seed,
            variant=variant,
            position=position,
            level=level,
            deadline_minutes=deadline,
        )

        async def call() -> list[Any]:
            players = [player_of(interaction, m) for m in (player1, player2, player3, player4) if m]
            return await self.bot.service.admin_start(
                channel_of(interaction), user_of(interaction), setup, players
            )

        await respond(interaction, call)

    @app_commands.command(name="end")
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        """End this channel's game; it is kept, recorded as aborted."""
        await respond(
            interaction,
            lambda: self.bot.service.admin_end(channel_of(interaction), user_of(interaction)),
        )

    @app_commands.command(name="settings")
    @app_commands.describe(
        game="The game whose deadline to set",
        deadline_hours="Hours per decision in that game, by default (1 to 720)",
        min_minutes="The shortest deadline /play may choose, in minutes",
        max_hours="The longest deadline /play may choose, in hours",
        remind_minutes="The last reminder comes this many minutes before time runs out",
        threads="Start every new game in a thread of its own",
        web="Who may see this server's games on the web",
        away_days="Away days a player starts with here (default 7)",
        away_monthly="Away days a player gains each month here (default 2)",
        away_max="The most away days a player holds here (default 30)",
    )
    @app_commands.choices(
        web=[
            app_commands.Choice(name="off", value="off"),
            app_commands.Choice(name="public", value="public"),
            app_commands.Choice(name="members", value="members"),
        ]
    )
    @app_commands.autocomplete(game=game_autocomplete)
    async def settings(
        self,
        interaction: discord.Interaction[Any],
        game: str | None = None,
        deadline_hours: app_commands.Range[int, 1, 720] | None = None,
        min_minutes: app_commands.Range[int, 1, 43_200] | None = None,
        max_hours: app_commands.Range[int, 1, 720] | None = None,
        remind_minutes: app_commands.Range[int, 0, 2880] | None = None,
        threads: bool | None = None,
        web: str | None = None,
        away_days: app_commands.Range[int, 0, 365] | None = None,
        away_monthly: app_commands.Range[int, 0, 365] | None = None,
        away_max: app_commands.Range[int, 0, 365] | None = None,
    ) -> None:
        """Show this server's settings; change any you give."""
        # The pages show the server's name: noted whenever who may see them is set.
        name = interaction.guild.name if web is not None and interaction.guild else None
        await respond(
            interaction,
            lambda: self.bot.service.server_settings(
                channel_of(interaction),
                user_of(interaction),
                ServerChange(
                    game,
                    deadline_hours,
                    min_minutes,
                    max_hours,
                    remind_minutes,
                    threads,
                    web,
                    name,
                    away_days,
                    away_monthly,
                    away_max,
                ),
            ),
            public=False,
        )

    @app_commands.command(name="forget-server")
    async def forget_server(self, interaction: discord.Interaction[Any]) -> None:
        """Delete everything this server has stored, after a confirmation naming what goes."""
        await respond(
            interaction,
            lambda: self.bot.house.servers.forget_server(
                channel_of(interaction), user_of(interaction)
            ),
            public=False,
        )


async def setup(bot: HilltopBot) -> None:
    await bot.add_cog(AdminCog(bot))
