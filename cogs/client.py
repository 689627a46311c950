"""The Discord client: the service is built once logged in, extensions are loaded, the
restart-proof components are registered and the slash commands synced."""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from discord.http import Route

from cogs.command_texts import CommandTranslator
from cogs.extensions import EXTENSIONS
from cogs.respond import (
    channel_of,
    language_of,
    missing_permission,
    note_posted,
    respond,
    user_of,
)
from cogs.stale_boards import Posted, StaleBoards
from cogs.views import (
    PayloadButton,
    PayloadSelect,
    UnknownButton,
    follower_messages,
    message_parts,
)
from host.face import (
    Channel,
    DailyService,
    Direct,
    Events,
    FrontEnd,
    GameRecord,
    GameService,
    House,
    Payload,
    RatingPages,
    Reply,
    ServiceError,
    Shards,
    User,
    Where,
    speaking,
    t,
)

log = logging.getLogger("hilltop.discord")

#: Seconds a reply waits for the computer players' answer: a quick answer joins the
#: reply; a longer search is posted when done, so a move is never answered slowly.
COMPUTER_WAIT = 0.2
#: Discord's code for a message refused in an archived thread that is locked.
ARCHIVED_THREAD = 50083
#: Discord allows one IDENTIFY per bucket of shards this often.
IDENTIFY_SECONDS = 5.0
#: The application command type of an Activity's Entry Point (discord.py has none).
PRIMARY_ENTRY_POINT = 4
#: Discord's code for a request whose body it refuses, field by field.
INVALID_FORM_BODY = 50035


class HilltopBot(commands.AutoShardedBot):
    """The bot: one process, holding every shard (the number Discord recommends), or the
    `shards` given, when several processes share the bot on one database."""

    def __init__(
        self,
        make_house: Callable[[FrontEnd], House],
        *,
        dev_guild_id: int | None = None,
        shards: Shards | None = None,
    ) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        if shards is None:
            super().__init__(
                command_prefix=commands.when_mentioned, intents=intents, help_command=None
            )
        else:
            super().__init__(
                command_prefix=commands.when_mentioned,
                intents=intents,
                help_command=None,
                shard_ids=list(shards.ids),
                shard_count=shards.count,
            )
        #: The shards this process holds (None: all of them).
        self.shard_set = shards
        #: How many shards may identify at once, and when each bucket of them last did.
        self._max_concurrency: int | None = None
        self._identified: dict[int, float] = {}
        self._logged_in = False
        #: Builds the service for this front-end once the bot knows its own user.
        self.make_house = make_house
        self.dev_guild_id = dev_guild_id
        self._house: House | None = None
        #: Takes the controls off each game's boards left behind.
        self.stale_boards = StaleBoards(self._retire)
        self._background: set[asyncio.Task[None]] = set()

    @property
    def house(self) -> House:
        if self._house is None:
            raise RuntimeError("the service exists once the bot has logged in")
        return self._house

    @property
    def service(self) -> GameService:
        return self.house.service

    @property
    def daily(self) -> DailyService:
        return self.house.daily

    @property
    def rating_pages(self) -> RatingPages:
        return self.house.ratings

    def open_house(self, bot_user: User, computer_wait: float | None = COMPUTER_WAIT) -> None:
        """Build the service, lending it what only Discord has: posting outside any
        command, links to boards, and the shards whose time this process keeps."""
        self._house = self.make_house(
            FrontEnd(
                bot_user,
                post=self.post,
                computer_wait=computer_wait,
                link=self.board_link,
                shards=self.shard_set,
                make_thread=self.make_thread,
            )
        )

    @property
    def events(self) -> Events:
        return self.house.events

    async def make_thread(self, parent: Channel, name: str) -> Channel:
        """A public thread off `parent` for a tournament's game; a refusal names the
        permission the bot lacks there (the start of a tournament checks the command's
        own permissions first: a later round finds out from Discord's answer)."""
        channel = self.get_channel(parent.channel_id)
        if channel is None:
            try:
                channel = await self.fetch_channel(parent.channel_id)
            except discord.HTTPException as exc:
                raise ServiceError(
                    t("The tournament's channel cannot be reached ({reason}).", reason=exc.text)
                ) from exc
        if not isinstance(channel, discord.TextChannel):
            raise ServiceError(t("Threads cannot be made in the tournament's channel."))
        try:
            # A game at correspondence pace may be quiet for days: a week before Discord
            # archives its thread (a post in it opens it again).
            thread = await channel.create_thread(
                name=name[:100], type=discord.ChannelType.public_thread, auto_archive_duration=10080
            )
        except discord.Forbidden as exc:
            lacking = t("View Channels") if exc.code == 50001 else t("Create Public Threads")
            raise ServiceError(missing_permission(lacking)) from exc
        return Channel(thread.id, parent.guild_id, thread.name)

    async def post(self, where: Where, replies: list[Reply]) -> None:
        """Post replies outside any command (deadlines, reminders, computers): in a
        game's channel, or as a direct message."""
        if isinstance(where, Direct):
            await self._direct(where, replies)
            return
        channel = self.get_channel(where.channel_id)
        if channel is None:
            try:
                channel = await self.fetch_channel(where.channel_id)
            except discord.HTTPException:
                log.warning("channel %s of a game is gone", where.channel_id)
                return
        if not isinstance(channel, discord.abc.Messageable):
            return
        for reply in replies:
            try:
                message = await channel.send(**message_parts(reply))
            except discord.HTTPException as exc:
                if not (isinstance(exc, discord.Forbidden) or exc.code == ARCHIVED_THREAD):
                    raise
                # Not ours to mend: a server took a permission away, or locked the thread.
                log.warning("cannot post in channel %s: %s", where.channel_id, exc.text)
                return
            self.posted(reply, message.channel.id, message.id)
            for followers in follower_messages(reply):
                await channel.send(**followers)
        self.delivered(replies)

    def delivered(self, replies: list[Reply]) -> None:
        """Replies were sent where they belong: the service may count them told."""
        if self._house is not None:
            self.service.delivered(replies)

    def posted(self, reply: Reply, channel_id: int, message_id: int) -> None:
        """A message was posted in a channel: the game's earlier board loses its controls,
        and the people it asks to act who want direct messages get one (after it)."""
        note_posted(self.stale_boards, reply, channel_id, message_id)
        people = [u for u in reply.mentions if not u.is_bot]
        followers = list(reply.followers_direct)
        if reply.game_id is not None and (people or followers) and not reply.ephemeral:
            task = asyncio.create_task(self._tell_directly(reply.game_id, people, followers))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _tell_directly(self, game_id: int, people: list[User], followers: list[User]) -> None:
        """Direct messages after a post: turns to the players who want them, news to
        the followers who want them."""
        try:
            posts = await self.service.turn_messages(game_id, people) if people else []
            if followers:
                posts += await self.service.follow_messages(game_id, followers)
            for where, replies in posts:
                await self.post(where, replies)
        except Exception:
            log.exception("game %s: direct messages after a post failed", game_id)

    async def _direct(self, where: Direct, replies: list[Reply]) -> None:
        """A direct message; if the person does not take them, none is tried again until
        they turn them on anew (and they are told so, once, at their next command)."""
        try:
            person = self.get_user(where.user.id) or await self.fetch_user(where.user.id)
            for reply in replies:
                await person.send(**message_parts(reply))
        except discord.Forbidden:
            await self.service.direct_messages_closed(where.user)
            if where.fallback is not None:
                await self.post(where.fallback, replies)
        except discord.HTTPException:
            log.warning("a direct message to %s failed", where.user.id, exc_info=True)

    async def _retire(self, where: Posted) -> None:
        """Remove the controls of a message of ours that the game has left behind."""
        channel = self.get_partial_messageable(where.channel_id)
        await channel.get_partial_message(where.message_id).edit(view=None)

    async def save_board_links(self) -> None:
        """Save each game's latest board message, so that links to it survive a restart
        and other processes know it (a few seconds late at most: links are no game
        state)."""
        unsaved = self.stale_boards.take_unsaved()
        if unsaved and self._house is not None:
            boards = {game_id: posted.message_id for game_id, posted in unsaved.items()}
            await self.service.note_board_messages(boards)

    def board_link(self, record: GameRecord) -> str | None:
        """A link that opens a game's latest board in Discord."""
        posted = self.stale_boards.newest(record.id)
        message_id = posted.message_id if posted is not None else record.board_message_id
        if message_id is None or record.channel_id is None:
            return None
        guild = record.guild_id if record.guild_id is not None else "@me"
        return f"https://discord.com/channels/{guild}/{record.channel_id}/{message_id}"

    async def notices(self, user: User) -> list[Reply]:
        """What `user` must be told once, privately (after their command's reply)."""
        return await self.service.notices(user) if self._house is not None else []

    async def note_languages(
        self, guild_id: int | None, guild_language: str, user_id: int, language: str
    ) -> None:
        if self._house is not None:
            await self.service.note_languages(guild_id, guild_language, user_id, language)

    async def handle_press(self, interaction: discord.Interaction[Any], payload: Payload) -> None:
        """A button or select of ours was used (also after a restart)."""
        await respond(
            interaction,
            lambda: self.service.press(channel_of(interaction), user_of(interaction), payload),
        )

    async def login(self, token: str) -> None:
        await super().login(token)
        self._logged_in = True

    async def close(self) -> None:
        self.stale_boards.close()
        if self._house is not None:
            self._house.close()
        if self._logged_in:
            await super().close()
            return
        # Never connected (built and closed in one process, as tests do): the shards'
        # machinery was never set up, so only the extensions and the client close.
        for extension in tuple(self.extensions):
            await self.unload_extension(extension)
        for cog in tuple(self.cogs):
            await self.remove_cog(cog)
        await discord.Client.close(self)

    async def setup_hook(self) -> None:
        me = self.user
        self.open_house(User(me.id if me else 0, me.name if me else "hilltop", is_bot=True))
        self.add_dynamic_items(PayloadButton, PayloadSelect, UnknownButton)
        await self.tree.set_translator(CommandTranslator())
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        self.tree.error(self.on_tree_error)
        await self.sync_commands()
        # What starting made (the games, the commands, the libraries' tables) lives as long
        # as the bot: it is kept out of the collector's full passes, which walked all of it
        # each time and were among the longest pauses of a busy bot's moves.
        gc.freeze()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Discord lets `max_concurrency` shards identify together (those of different
        `shard_id % max_concurrency`), each of them once every IDENTIFY_SECONDS: a
        process holding many shards starts in a few seconds, not five per shard."""
        if self._max_concurrency is None:
            limits = await self.fetch_session_start_limits()
            self._max_concurrency = max(1, limits.max_concurrency)
        bucket = (shard_id or 0) % self._max_concurrency
        last = self._identified.get(bucket)
        if last is not None and not initial:
            await asyncio.sleep(max(0.0, last + IDENTIFY_SECONDS - time.monotonic()))
        self._identified[bucket] = time.monotonic()

    async def sync_commands(self) -> None:
        """Commands show at once in the dev guild; global ones can take up to an hour.
        Of several processes, the one holding shard 0 syncs them for all. A dev guild's
        sync overwrites that guild's commands only: the application's global commands,
        its Entry Point among them, are left as they are."""
        if self.shard_set is not None and 0 not in self.shard_set.ids:
            return
        if self.dev_guild_id:
            guild = discord.Object(id=self.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), self.dev_guild_id)
        else:
            count = await self.sync_global_commands()
            log.info("synced %d global commands", count)

    async def sync_global_commands(self) -> int:
        """Overwrite the application's global commands with the tree's, keeping its Entry
        Point commands: Discord makes one when the application's Activity is turned on,
        and refuses an overwrite that leaves it out (error 50240), which `tree.sync()`
        would, knowing no such command. They are sent back as Discord gave them (with
        their ids), so the Activity's launcher stays as it is. How many were synced."""
        application_id = self.application_id
        if application_id is None:
            raise app_commands.MissingApplicationID
        commands = self.tree.get_commands()
        translator = self.tree.translator
        payload = [
            await command.get_translated_payload(self.tree, translator)
            if translator is not None
            else command.to_dict(self.tree)
            for command in commands
        ]
        route = Route(
            "GET", "/applications/{application_id}/commands", application_id=application_id
        )
        existing = await self.http.request(route, params={"with_localizations": "true"})
        entry_points = [c for c in existing if c.get("type") == PRIMARY_ENTRY_POINT]
        try:
            synced = await self.http.bulk_upsert_global_commands(
                application_id, payload=[*payload, *entry_points]
            )
        except discord.HTTPException as exc:
            if exc.status == 400 and exc.code == INVALID_FORM_BODY:
                raise app_commands.CommandSyncFailure(exc, commands) from None
            raise
        return len(synced)

    async def on_ready(self) -> None:
        log.info(
            "logged in as %s (%s) in %d servers",
            self.user,
            getattr(self.user, "id", "?"),
            len(self.guilds),
        )

    async def on_shard_ready(self, shard_id: int) -> None:
        """A shard is connected anew (at the start, or after Discord ended its session)
        and has every server of its own, those only unavailable for now among them: they
        are compared with the servers stored as that shard's, and one the bot was removed
        from while it was away stops, as on a removal seen live."""
        if self._house is None:
            return
        shard = Shards((shard_id,), self.shard_count or 1)
        here = [guild.id for guild in self.guilds if shard.owns(guild.id)]
        try:
            removed = await self.house.servers.connected(here, shard)
        except Exception:
            if not self.is_closed():  # closing: the database may be gone already
                log.exception("the servers the bot is in could not be noted")
            return
        if removed:
            log.info("removed from %d servers while away", len(removed))

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from a server (kicked, banned, or the server deleted): it
        stops now, and its data goes later unless the bot is invited back. A server only
        unavailable (an outage: `on_guild_unavailable`) changes nothing."""
        if self._house is not None:
            await self.house.servers.left(guild.id)

    async def on_guild_join(self, guild: discord.Guild) -> None:
        """The bot was invited to a server: a deletion pending for it is called off."""
        if self._house is not None:
            await self.house.servers.joined(guild.id)

    async def on_tree_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        with speaking(language_of(interaction)):
            if isinstance(error, app_commands.CheckFailure):
                text = str(t("You may not use this command here."))
            else:
                log.error("command failed", exc_info=error)
                text = str(t("Something went wrong on my side and the error was logged."))
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
