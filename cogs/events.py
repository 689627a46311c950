"""/tournament: events made and started by admins, entered by players, run by themselves.

Every command may leave out the id where the channel has one tournament open; the id's
autocomplete lists the server's tournaments. Admins' commands (create, start, remove,
end) are shown to everyone, and the service refuses them to others with the reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.games import game_autocomplete, player_of
from cogs.respond import (
    channel_of,
    in_users_language,
    missing_permission,
    respond,
    send_error,
    user_of,
)
from host.face import FORMATS, MAX_DEADLINE_MINUTES, MAX_ROUNDS, MAX_SEED, EventSetup, speaking, t
from host.face import language_of as language_named

if TYPE_CHECKING:
    from cogs.client import HilltopBot

ID = app_commands.Range[int, 1, MAX_SEED]
FORMAT_OPTIONS = [app_commands.Choice(name=f, value=f) for f in FORMATS]
FILE_OPTIONS = [app_commands.Choice(name=f, value=f) for f in ("csv", "trf")]
#: Deadlines offered as the admin types (any number of minutes is taken).
DEADLINES = ((60, "1 h"), (720, "12 h"), (1440, "1 day"), (4320, "3 days"), (10080, "7 days"))


@in_users_language
async def event_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[int]]:
    client: HilltopBot = interaction.client
    found = await client.events.choices(channel_of(interaction), current)
    return [app_commands.Choice(name=label, value=event_id) for event_id, label in found]


@in_users_language
async def deadline_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[int]]:
    return [
        app_commands.Choice(name=f"{label} ({minutes} min)", value=minutes)
        for minutes, label in DEADLINES
        if current.strip() in str(minutes) or current.strip().lower() in label
    ]


@app_commands.guild_only()
class EventsCog(commands.GroupCog, group_name="tournament"):
    """Tournaments: Swiss, round robin and cups, at correspondence pace."""

    def __init__(self, bot: HilltopBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="create")
    @app_commands.describe(
        game="Which game",
        format="swiss, round-robin, double-round-robin, or cup (Hillbert)",
        rounds="Rounds of a Swiss (default: enough to find a winner)",
        deadline="Minutes per move in its games (a cup: how long it stays open)",
        name="The tournament's name",
        table="Players at each table (Everest: 2, 3 or 4)",
        away="Whether away time stops the clocks of its games (default: on)",
    )
    @app_commands.autocomplete(game=game_autocomplete)
    @app_commands.autocomplete(deadline=deadline_autocomplete)
    @app_commands.choices(format=FORMAT_OPTIONS)
    async def create(
        self,
        interaction: discord.Interaction[Any],
        game: str,
        format: str,
        rounds: app_commands.Range[int, 1, MAX_ROUNDS] | None = None,
        deadline: app_commands.Range[int, 1, MAX_DEADLINE_MINUTES] | None = None,
        name: app_commands.Range[str, 1, 60] | None = None,
        table: app_commands.Range[int, 1, 4] | None = None,
        away: bool | None = None,
    ) -> None:
        """Make a tournament in this channel, open for entries (admins)."""
        setup = EventSetup(game, format, rounds, deadline, name, table, away is not False)
        await respond(
            interaction,
            lambda: self.bot.events.create(channel_of(interaction), user_of(interaction), setup),
        )

    @app_commands.command(name="join")
    @app_commands.describe(id="The tournament (leave out where this channel has one open)")
    @app_commands.autocomplete(id=event_autocomplete)
    async def join(self, interaction: discord.Interaction[Any], id: ID | None = None) -> None:
        """Enter a tournament."""
        await respond(
            interaction,
            lambda: self.bot.events.join(channel_of(interaction), user_of(interaction), id),
        )

    @app_commands.command(name="leave")
    @app_commands.describe(id="The tournament (leave out where this channel has one open)")
    @app_commands.autocomplete(id=event_autocomplete)
    async def leave(self, interaction: discord.Interaction[Any], id: ID | None = None) -> None:
        """Leave a tournament: a game in play is resigned, your results stand."""
        await respond(
            interaction,
            lambda: self.bot.events.leave(channel_of(interaction), user_of(interaction), id),
        )

    @app_commands.command(name="start")
    @app_commands.describe(id="The tournament (leave out where this channel has one open)")
    @app_commands.autocomplete(id=event_autocomplete)
    async def start(self, interaction: discord.Interaction[Any], id: ID | None = None) -> None:
        """Close the entries and start round 1, each game in a thread (admins)."""
        with speaking(language_named(interaction.locale.value)):
            lacking = _thread_permission_missing(interaction)
            if lacking is not None:
                await send_error(interaction, lacking, deferred=False, public=True)
                return
        await respond(
            interaction,
            lambda: self.bot.events.start(channel_of(interaction), user_of(interaction), id),
        )

    @app_commands.command(name="standings")
    @app_commands.describe(id="The tournament (leave out where this channel has one open)")
    @app_commands.autocomplete(id=event_autocomplete)
    async def standings(self, interaction: discord.Interaction[Any], id: ID | None = None) -> None:
        """Points and tie-breaks (a crosstable for a round robin)."""
        await respond(
            interaction,
            lambda: self.bot.events.standings(channel_of(interaction), user_of(interaction), id),
        )

    @app_commands.command(name="pairings")
    @app_commands.describe(
        round="Which round (default: the one being played)",
        id="The tournament (leave out where this channel has one open)",
    )
    @app_commands.autocomplete(id=event_autocomplete)
    async def pairings(
        self,
        interaction: discord.Interaction[Any],
        round: app_commands.Range[int, 1, 2 * MAX_ROUNDS] | None = None,
        id: ID | None = None,
    ) -> None:
        """A round's tables, their games and results."""
        await respond(
            interaction,
            lambda: self.bot.events.pairings(
                channel_of(interaction), user_of(interaction), round, id
            ),
        )

    @app_commands.command(name="list")
    async def listing(self, interaction: discord.Interaction[Any]) -> None:
        """This server's tournaments, newest first."""
        await respond(
            interaction,
            lambda: self.bot.events.listing(channel_of(interaction), user_of(interaction)),
        )

    @app_commands.command(name="remove")
    @app_commands.describe(
        player="Who to take out", id="The tournament (leave out where this channel has one open)"
    )
    @app_commands.autocomplete(id=event_autocomplete)
    async def remove(
        self, interaction: discord.Interaction[Any], player: discord.User, id: ID | None = None
    ) -> None:
        """Take a player out of a tournament (admins)."""
        await respond(
            interaction,
            lambda: self.bot.events.remove(
                channel_of(interaction), user_of(interaction), player_of(interaction, player), id
            ),
        )

    @app_commands.command(name="end")
    @app_commands.describe(id="The tournament (leave out where this channel has one open)")
    @app_commands.autocomplete(id=event_autocomplete)
    async def end(self, interaction: discord.Interaction[Any], id: ID | None = None) -> None:
        """End a tournament now; its games in play end too (admins)."""
        await respond(
            interaction,
            lambda: self.bot.events.end(channel_of(interaction), user_of(interaction), id),
        )

    @app_commands.command(name="export")
    @app_commands.describe(
        file="csv (any tournament) or trf (FIDE's report, games of two)",
        id="The tournament (leave out where this channel has one open)",
    )
    @app_commands.autocomplete(id=event_autocomplete)
    @app_commands.choices(file=FILE_OPTIONS)
    async def export(
        self, interaction: discord.Interaction[Any], file: str = "csv", id: ID | None = None
    ) -> None:
        """The standings as a file."""
        await respond(
            interaction,
            lambda: self.bot.events.export(channel_of(interaction), user_of(interaction), file, id),
        )


def _thread_permission_missing(interaction: discord.Interaction[Any]) -> str | None:
    """What the bot lacks to start games in threads of this channel (None: nothing)."""
    mine = interaction.app_permissions
    if not mine.create_public_threads:
        return str(missing_permission(t("Create Public Threads")))
    if not mine.send_messages_in_threads:
        return str(missing_permission(t("Send Messages in Threads")))
    return None


async def setup(bot: HilltopBot) -> None:
    await bot.add_cog(EventsCog(bot))
