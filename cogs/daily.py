"""/daily, /leaderboard, /daily-replay and /stats: the daily Hillbert challenge.

A daily run is played in ephemeral messages: only the player sees the hill, there is no
need for the bot to be allowed to send direct messages, and the run stays in the server
where the player started it. Buttons on those messages carry the game id and ply like
every other board, so they keep working after a restart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.respond import channel_of, in_users_language, respond, user_of
from host.face import PERIODS, RUNS, SCOPES, User

if TYPE_CHECKING:
    from cogs.client import HilltopBot


@in_users_language
async def daily_move_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    client: HilltopBot = interaction.client
    moves = await client.daily.suggest(channel_of(interaction), user_of(interaction), current)
    return [app_commands.Choice(name=m.label[:100], value=m.value[:100]) for m in moves]


@in_users_language
async def closed_day_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    client: HilltopBot = interaction.client
    days = [d.isoformat() for d in client.daily.closed_days()]
    return [app_commands.Choice(name=d, value=d) for d in days if current.strip() in d]


class DailyCog(commands.Cog):
    def __init__(self, bot: HilltopBot) -> None:
        self.bot = bot

    @app_commands.command(name="daily")
    @app_commands.describe(move="A turn of your run, e.g. `d rr`; start typing to see them")
    @app_commands.autocomplete(move=daily_move_autocomplete)
    async def daily(self, interaction: discord.Interaction[Any], move: str | None = None) -> None:
        """Play today's Hillbert hill: one scored run per day, in private."""
        await respond(
            interaction,
            lambda: self.bot.daily.play(channel_of(interaction), user_of(interaction), move),
            public=False,
        )

    @app_commands.command(name="leaderboard")
    @app_commands.describe(period="Today, this week or all time", scope="This server or everyone")
    @app_commands.choices(
        period=[app_commands.Choice(name=p, value=p) for p in PERIODS],
        scope=[app_commands.Choice(name=s, value=s) for s in SCOPES],
    )
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        period: str = "today",
        scope: str = "server",
    ) -> None:
        """The daily Hillbert leaderboard, with your own rank."""
        if interaction.guild_id is None and scope == "server":
            scope = "global"
        await respond(
            interaction,
            lambda: self.bot.daily.leaderboard(
                channel_of(interaction), user_of(interaction), period, scope
            ),
        )

    @app_commands.command(name="daily-replay")
    @app_commands.describe(
        day="A closed day's hill (the latest, if left out)",
        run="The day's winning run, or par: the bot's best line",
        scope="With run:winner: the winner of this server or of everyone",
    )
    @app_commands.autocomplete(day=closed_day_autocomplete)
    @app_commands.choices(
        run=[app_commands.Choice(name=r, value=r) for r in RUNS],
        scope=[app_commands.Choice(name=s, value=s) for s in SCOPES],
    )
    async def daily_replay(
        self,
        interaction: discord.Interaction[Any],
        day: str | None = None,
        run: str = "winner",
        scope: str = "server",
    ) -> None:
        """Replay a closed day's hill: its winning run, or par."""
        await respond(
            interaction,
            lambda: self.bot.daily.replay_day(
                channel_of(interaction), user_of(interaction), day, run, scope
            ),
        )

    @app_commands.command(name="stats")
    @app_commands.describe(user="Whose stats (you, if left out)")
    async def stats(
        self, interaction: discord.Interaction[Any], user: discord.User | None = None
    ) -> None:
        """Daily Hillbert stats: runs, best score, average and streak."""
        target = User(user.id, user.display_name) if user is not None else None
        await respond(
            interaction,
            lambda: self.bot.daily.stats(channel_of(interaction), user_of(interaction), target),
        )


async def setup(bot: HilltopBot) -> None:
    await bot.add_cog(DailyCog(bot))
