"""The game commands, for every registered game: /play, /move, /moves, /board and more.

The cog only translates: Discord options in, a service call, replies out. Command
docstrings are what Discord shows as help.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from cogs.respond import channel_of, in_users_language, respond, user_of
from cogs.views import message_parts
from host.face import (
    LEVELS,
    MAX_COMPUTERS,
    MAX_DEADLINE_MINUTES,
    MAX_RECORD_BYTES,
    MAX_RECORD_MOVES,
    MAX_SEED,
    SPEEDS,
    Channel,
    ChannelBusyError,
    GameService,
    GameSetup,
    Reply,
    SeatChoice,
    ServiceError,
    User,
    game_of,
    t,
    timezone_choices,
)

if TYPE_CHECKING:
    from cogs.client import HilltopBot

log = logging.getLogger("hilltop.discord")


def service_of(interaction: discord.Interaction[Any]) -> GameService:
    client: HilltopBot = interaction.client
    return client.service


def player_of(interaction: discord.Interaction[Any], member: discord.abc.User) -> User:
    """A user named in an option: a person, or this bot as a computer player."""
    me = interaction.client.user
    if me is not None and member.id == me.id:
        return User(member.id, member.display_name, is_bot=True)
    if member.bot:
        raise ServiceError(
            t(
                "{name} is a bot and cannot play. Choose a person, or me (@{me}) as a "
                "computer opponent.",
                name=member.display_name,
                me=me.display_name if me else "Hilltop",
            )
        )
    return User(member.id, member.display_name)


@in_users_language
async def game_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    key = current.lower().strip()
    return [
        app_commands.Choice(name=name, value=game_id)
        for game_id, name in service_of(interaction).game_choices()
        if key in game_id or key in name.lower()
    ][:25]


async def timezone_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=zone, value=zone) for zone in timezone_choices(current)]


@in_users_language
async def variant_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    game = str(getattr(interaction.namespace, "game", "") or "")
    key = current.lower().strip()
    return [
        app_commands.Choice(name=f"{name}: {about}"[:100], value=name)
        for name, about in service_of(interaction).variant_choices(game)
        if key in name.lower()
    ][:25]


@in_users_language
async def move_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    moves = await service_of(interaction).suggest_moves(
        channel_of(interaction), user_of(interaction), current
    )
    return [app_commands.Choice(name=m.label[:100], value=m.value[:100]) for m in moves]


SEAT_OPTIONS = [app_commands.Choice(name=s.value, value=s.value) for s in SeatChoice]
LEVEL_OPTIONS = [app_commands.Choice(name=level, value=level) for level in LEVELS]


class ThreadRefused(Exception):
    """Discord would not give a game a thread: for a permission the bot lacks (named as
    Discord's client names it, in the user's language), or for another reason."""

    def __init__(self, permission: str | None, reason: str) -> None:
        super().__init__(reason)
        self.permission = permission
        self.reason = reason


async def new_thread(
    interaction: discord.Interaction[Any], channel: discord.TextChannel, title: str
) -> discord.Thread:
    """A public thread for a game, in which the bot may post."""
    if not interaction.app_permissions.send_messages_in_threads:
        # Found before the thread is made: it would hold a game nobody could see.
        raise ThreadRefused(str(t("Send Messages in Threads")), "Missing Permissions")
    try:
        return await channel.create_thread(name=title[:100], type=discord.ChannelType.public_thread)
    except discord.Forbidden as exc:
        # A channel the bot cannot see is "Missing Access" (50001); otherwise it lacks
        # the permission to make threads (50013 "Missing Permissions").
        lacking = t("View Channels") if exc.code == 50001 else t("Create Public Threads")
        raise ThreadRefused(str(lacking), exc.text) from exc
    except discord.HTTPException as exc:
        raise ThreadRefused(None, exc.text or str(exc.status)) from exc


class ThreadOffer(discord.ui.View):
    """Offered when /play is used in a channel that already has a game."""

    def __init__(self, start: Any, title: str) -> None:
        super().__init__(timeout=600)
        self.start = start
        self.title = title
        self.used = False
        self.new_thread.label = str(t("Start it in a new thread"))  # in the user's language

    @discord.ui.button(label="Start it in a new thread", style=discord.ButtonStyle.primary)
    async def new_thread(
        self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]
    ) -> None:
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            await interaction.response.send_message(
                str(t("Threads cannot be made here; try another channel.")), ephemeral=True
            )
            return
        if self.used:
            await interaction.response.send_message(
                str(t("That game is already being started.")), ephemeral=True
            )
            return
        # Answer at once (Discord allows 3 s) and remove the button: a second click
        # must not make a second thread.
        self.used = True
        self.stop()
        await interaction.response.edit_message(
            content=str(t("Starting your game in a new thread…")), view=None
        )
        try:
            thread = await new_thread(interaction, channel, self.title)
        except ThreadRefused as exc:
            if exc.permission is not None:
                text = t(
                    "I may not start a game in a thread here: I lack the {permission} "
                    "permission in this channel. Ask an admin to grant it, or use another "
                    "channel.",
                    permission=exc.permission,
                )
            else:
                text = t(
                    "Discord would not make a thread in this channel ({reason}). Try "
                    "another channel.",
                    reason=exc.reason,
                )
            await interaction.edit_original_response(content=str(text))
            return
        try:
            replies = await self.start(Channel(thread.id, interaction.guild_id, thread.name))
            for reply in replies:
                await thread.send(**message_parts(reply))
        except ServiceError as exc:
            await interaction.edit_original_response(content=str(exc.text))
            return
        except Exception:
            log.exception("starting a game in a new thread failed")
            await interaction.edit_original_response(
                content=str(t("Something went wrong on my side and the error was logged."))
            )
            return
        await interaction.edit_original_response(
            content=str(t("Your game is in {thread}.", thread=thread.mention))
        )


class GamesCog(commands.Cog):
    def __init__(self, bot: HilltopBot) -> None:
        self.bot = bot

    @app_commands.command(name="play")
    @app_commands.describe(
        game="Which game to play",
        opponent="Who to challenge (choose me to play against the computer)",
        opponent2="A second opponent (Everest, 3-4 players)",
        opponent3="A third opponent (Everest, 4 players)",
        computers="How many computer players to add",
        seed="Seed for the random set-up, to replay a set-up",
        seat="Take the first seat, the second, or draw lots (the default)",
        variant="A variant of the game",
        position="Start from this position (the game's notation, see /rules)",
        level="How strongly the computer plays",
        deadline="Minutes each player has per decision (games with deadlines)",
        record="A game's record (from /game's Download log) to start from",
        ply="With record: start after this many of its moves (all by default)",
    )
    @app_commands.autocomplete(game=game_autocomplete, variant=variant_autocomplete)
    @app_commands.choices(seat=SEAT_OPTIONS, level=LEVEL_OPTIONS)
    async def play(
        self,
        interaction: discord.Interaction[Any],
        game: str,
        opponent: discord.User | None = None,
        opponent2: discord.User | None = None,
        opponent3: discord.User | None = None,
        computers: app_commands.Range[int, 0, MAX_COMPUTERS] = 0,
        seed: app_commands.Range[int, 0, MAX_SEED] | None = None,
        seat: str | None = None,
        variant: str | None = None,
        position: str | None = None,
        level: str | None = None,
        deadline: app_commands.Range[int, 1, MAX_DEADLINE_MINUTES] | None = None,
        record: discord.Attachment | None = None,
        ply: app_commands.Range[int, 0, MAX_RECORD_MOVES] | None = None,
    ) -> None:
        """Start a game here: challenge someone, or play against me."""
        user = user_of(interaction)
        members = [m for m in (opponent, opponent2, opponent3) if m is not None]

        read: list[str | None] = []

        async def setup_of() -> GameSetup:
            if not read:  # the attachment is read once
                read.append(await record_text(record) if record is not None else None)
            return GameSetup(
                game,
                computers=computers,
                seed=seed,
                seat=seat,
                variant=variant,
                position=position,
                level=level,
                deadline_minutes=deadline,
                record=read[0],
                ply=ply,
            )

        async def start(channel: Channel) -> list[Any]:
            opponents = [player_of(interaction, m) for m in members]
            return await self.bot.service.start(channel, user, await setup_of(), opponents)

        def title(game_name: str) -> str:
            """A thread's name: the game's own name (never the text typed), and who plays."""
            return f"{game_name}: " + " vs ".join([user.name, *(m.display_name for m in members)])

        async def call() -> list[Any]:
            here = channel_of(interaction)
            text_channel = interaction.channel
            if isinstance(
                text_channel, discord.TextChannel
            ) and await self.bot.service.new_games_in_threads(here):
                # A thread only for a game that starts: a refusal leaves nothing behind.
                opponents = [player_of(interaction, m) for m in members]
                name = await self.bot.service.check_start(here, user, await setup_of(), opponents)
                return await self._in_new_thread(interaction, text_channel, start, title(name))
            try:
                return await start(here)
            except ChannelBusyError as exc:
                if isinstance(interaction.channel, discord.TextChannel):
                    offer = ThreadOffer(start, title(game_of(game).name))
                    if interaction.response.is_done():
                        await interaction.followup.send(str(exc.text), view=offer, ephemeral=True)
                    else:
                        await interaction.response.send_message(
                            str(exc.text), view=offer, ephemeral=True
                        )
                    return []
                raise

        await respond(interaction, call)

    async def _in_new_thread(
        self,
        interaction: discord.Interaction[Any],
        channel: discord.TextChannel,
        start: Callable[[Channel], Awaitable[list[Reply]]],
        title: str,
    ) -> list[Reply]:
        """This server starts every game in a thread of its own: make it, start the game
        there, and say where in the channel."""
        try:
            thread = await new_thread(interaction, channel, title)
        except ThreadRefused as exc:
            if exc.permission is not None:
                raise ServiceError(
                    t(
                        "This server starts games in threads, but I lack the {permission} "
                        "permission in this channel. Ask an admin to grant it, or to turn "
                        "threads off with /admin settings threads:False.",
                        permission=exc.permission,
                    )
                ) from None
            raise ServiceError(
                t(
                    "This server starts games in threads, but Discord would not make one in "
                    "this channel ({reason}). Use another channel, or ask an admin to turn "
                    "threads off with /admin settings threads:False.",
                    reason=exc.reason,
                )
            ) from None
        replies = await start(Channel(thread.id, interaction.guild_id, thread.name))
        for reply in replies:
            message = await thread.send(**message_parts(reply))
            self.bot.posted(reply, thread.id, message.id)
        user = user_of(interaction)
        where = t("{name} started a game in {thread}.", name=user.name, thread=thread.mention)
        return [Reply(text=str(where))]

    @app_commands.command(name="accept")
    async def accept(self, interaction: discord.Interaction[Any]) -> None:
        """Accept the challenge in this channel."""
        await respond(
            interaction,
            lambda: self.bot.service.accept(channel_of(interaction), user_of(interaction)),
        )

    @app_commands.command(name="decline")
    async def decline(self, interaction: discord.Interaction[Any]) -> None:
        """Decline the challenge in this channel (or withdraw your own)."""
        await respond(
            interaction,
            lambda: self.bot.service.decline(channel_of(interaction), user_of(interaction)),
        )

    @app_commands.command(name="move")
    @app_commands.describe(text="Your move; start typing to see your legal moves")
    @app_commands.autocomplete(text=move_autocomplete)
    async def move(self, interaction: discord.Interaction[Any], text: str) -> None:
        """Make your move in this channel's game."""
        await respond(
            interaction,
            lambda: self.bot.service.move(channel_of(interaction), user_of(interaction), text),
        )

    @app_commands.command(name="moves")
    @app_commands.describe(start="Only moves from this square (or starting with this text)")
    @app_commands.rename(start="from")
    async def moves(self, interaction: discord.Interaction[Any], start: str | None = None) -> None:
        """List your legal moves privately."""
        await respond(
            interaction,
            lambda: self.bot.service.legal_moves(
                channel_of(interaction), user_of(interaction), start
            ),
            public=False,
        )

    @app_commands.command(name="board")
    async def board(self, interaction: discord.Interaction[Any]) -> None:
        """Post this channel's board again."""
        await respond(interaction, lambda: self.bot.service.board(channel_of(interaction)))

    @app_commands.command(name="resign")
    async def resign(self, interaction: discord.Interaction[Any]) -> None:
        """Give up this channel's game."""
        await respond(
            interaction,
            lambda: self.bot.service.resign(channel_of(interaction), user_of(interaction)),
        )

    @app_commands.command(name="draw")
    async def draw(self, interaction: discord.Interaction[Any]) -> None:
        """Offer the other player a draw (they accept or decline with buttons)."""
        await respond(
            interaction,
            lambda: self.bot.service.draw(channel_of(interaction), user_of(interaction)),
        )

    @app_commands.command(name="takeback")
    async def takeback(self, interaction: discord.Interaction[Any]) -> None:
        """Ask the other player to let you take back your last move."""
        await respond(
            interaction,
            lambda: self.bot.service.takeback(channel_of(interaction), user_of(interaction)),
        )

    @app_commands.command(name="rules")
    @app_commands.describe(game="Which game")
    @app_commands.autocomplete(game=game_autocomplete)
    async def rules(self, interaction: discord.Interaction[Any], game: str) -> None:
        """Show a game's rules and the house rulings."""

        async def call() -> list[Any]:
            return await self.bot.service.rules(game)

        await respond(interaction, call, public=False)

    @app_commands.command(name="help")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        """How to play: the games, starting one, the computer, your games, the daily."""

        async def call() -> list[Any]:
            return self.bot.service.help()

        await respond(interaction, call, public=False)

    @app_commands.command(name="history")
    @app_commands.describe(user="Whose games (yours by default)", game="Only this game")
    @app_commands.autocomplete(game=game_autocomplete)
    async def history(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | None = None,
        game: str | None = None,
    ) -> None:
        """Finished games of this server, newest first: yours, or someone's."""

        async def call() -> list[Reply]:
            # Inside the call: naming another bot is refused like any bad input.
            whose = player_of(interaction, user) if user is not None else user_of(interaction)
            return await self.bot.service.finished(
                channel_of(interaction), whose, game, viewer=user_of(interaction)
            )

        await respond(interaction, call, public=False)

    @app_commands.command(name="game")
    @app_commands.describe(id="The game's number (from /history or a board's footer)")
    async def game_record(
        self, interaction: discord.Interaction[Any], id: app_commands.Range[int, 1]
    ) -> None:
        """One game's record: players, result, set-up and every move, to download."""
        await respond(
            interaction,
            lambda: self.bot.service.game_record(
                channel_of(interaction), id, viewer=user_of(interaction)
            ),
            public=False,
        )

    @app_commands.command(name="replay")
    @app_commands.describe(
        id="The game's number (from /history or a board's footer)",
        speed="How fast it plays: normal, or fast for a quick look",
    )
    @app_commands.choices(speed=[app_commands.Choice(name=s, value=s) for s in SPEEDS])
    async def replay(
        self,
        interaction: discord.Interaction[Any],
        id: app_commands.Range[int, 1],
        speed: str = "normal",
    ) -> None:
        """A game as an animated picture, every move drawn; step through it privately."""
        await respond(
            interaction,
            lambda: self.bot.service.replay(
                channel_of(interaction), id, speed, viewer=user_of(interaction)
            ),
        )

    @app_commands.command(name="notify")
    @app_commands.describe(
        reminders="Reminders before your time to move runs out",
        dm="Turns and reminders as direct messages instead of pings in the channel",
        digest="One direct message a day with your games waiting and those that ended",
        hour="The hour of your daily digest, 0-23 in your time zone (8 unless you choose)",
        timezone="Your time zone, such as Europe/Warsaw (UTC unless you choose)",
    )
    @app_commands.autocomplete(timezone=timezone_autocomplete)
    async def notify(
        self,
        interaction: discord.Interaction[Any],
        reminders: Literal["on", "off"] | None = None,
        dm: Literal["on", "off"] | None = None,
        digest: Literal["on", "off"] | None = None,
        hour: app_commands.Range[int, 0, 23] | None = None,
        timezone: str | None = None,
    ) -> None:
        """Show how you are told of your turns; change what you give."""
        await respond(
            interaction,
            lambda: self.bot.service.notify(
                user_of(interaction),
                reminders=_switch(reminders),
                dm=_switch(dm),
                digest=_switch(digest),
                hour=hour,
                timezone=timezone,
            ),
            public=False,
        )

    games = app_commands.Group(name="games", description="Lists of games")

    @games.command(name="here")
    async def games_here(self, interaction: discord.Interaction[Any]) -> None:
        """This server's games, the ones waiting for you first."""
        await respond(
            interaction,
            lambda: self.bot.service.list_games(channel_of(interaction), user_of(interaction)),
            public=False,
        )

    @games.command(name="mine")
    async def games_mine(self, interaction: discord.Interaction[Any]) -> None:
        """Every game you play, in every server, waiting on you first, with links."""
        await respond(
            interaction,
            lambda: self.bot.service.my_games(user_of(interaction)),
            public=False,
        )


async def record_text(attachment: discord.Attachment) -> str:
    """The text of an attached game record; a refusal says what is wrong with it."""
    if attachment.size > MAX_RECORD_BYTES:
        raise ServiceError(t("record: the file is too large for a game record (at most 256 KB)."))
    try:
        return (await attachment.read()).decode("utf-8")
    except UnicodeDecodeError:
        raise ServiceError(t("record: the file is not text; attach a game record.")) from None
    except discord.HTTPException:
        raise ServiceError(t("record: the file could not be read; try again.")) from None


def _switch(value: str | None) -> bool | None:
    return None if value is None else value == "on"


async def setup(bot: HilltopBot) -> None:
    await bot.add_cog(GamesCog(bot))
