"""Running a service call for an interaction and answering it within Discord's limits.

Discord wants an answer within 3 seconds. A call that has not finished after
`DEFER_AFTER` seconds is deferred first (the user sees "thinking…"), then answered.
Refusals (`ServiceError`) go back ephemeral, to the one user; anything unexpected is
logged once with its traceback and the user is told plainly.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from typing import Any, Protocol, TypeVar

import discord

from cogs.stale_boards import Posted, StaleBoards
from cogs.views import follower_messages, message_parts
from host.face import (
    Channel,
    DatabaseUnavailableError,
    Reply,
    ServiceError,
    StaleControlsError,
    Text,
    User,
    Where,
    serving,
    speaking,
    t,
    unreachable_database,
)
from host.face import language_of as language_named

log = logging.getLogger("hilltop.discord")

DEFER_AFTER = 1.5
T = TypeVar("T")


def channel_of(interaction: discord.Interaction[Any]) -> Channel:
    return Channel(
        channel_id=interaction.channel_id or 0,
        guild_id=interaction.guild_id,
        name=str(getattr(interaction.channel, "name", "") or ""),
    )


def user_of(interaction: discord.Interaction[Any]) -> User:
    """The person who used a command; admins are those with Manage Server here."""
    perms = interaction.permissions
    is_admin = interaction.guild_id is not None and (perms.manage_guild or perms.administrator)
    person = interaction.user
    return User(person.id, person.display_name, is_bot=False, is_admin=is_admin)


def command_name(interaction: discord.Interaction[Any]) -> str:
    if interaction.command is not None:
        return "/" + interaction.command.qualified_name
    data: dict[str, Any] = dict(interaction.data or {})
    custom_id = data.get("custom_id", "")
    return f"component {str(custom_id).split(':', 2)[1] if ':' in str(custom_id) else '?'}"


def language_of(interaction: discord.Interaction[Any]) -> str:
    """The language to answer in: the user's Discord client's, when the bot speaks it."""
    locale = getattr(interaction, "locale", None)
    return language_named(locale.value if isinstance(locale, discord.Locale) else None)


def server_language_of(interaction: discord.Interaction[Any]) -> str:
    locale = getattr(interaction, "guild_locale", None)
    return language_named(locale.value if isinstance(locale, discord.Locale) else None)


def in_users_language(
    suggest: Callable[[discord.Interaction[Any], str], Coroutine[Any, Any, list[T]]],
) -> Callable[[discord.Interaction[Any], str], Coroutine[Any, Any, list[T]]]:
    """An autocomplete that answers in the user's language, and with no choices while
    the database cannot be reached (the command itself then says why)."""

    @functools.wraps(suggest)
    async def speaking_to(interaction: discord.Interaction[Any], current: str) -> list[T]:
        with speaking(language_of(interaction)):
            try:
                return await suggest(interaction, current)
            except DatabaseUnavailableError as exc:
                log.warning("autocomplete without choices: %s", exc)
                return []

    return speaking_to


async def respond(
    interaction: discord.Interaction[Any],
    call: Callable[[], Awaitable[list[Reply]]],
    *,
    public: bool = True,
) -> None:
    """Run `call` and send its replies, in the user's language; `public` says how to
    defer if it is slow."""
    # The server (or the direct messages' channel) takes its turn at what every server
    # shares: the database's writer, the workers drawing boards.
    with (
        speaking(language_of(interaction)),
        serving(interaction.guild_id or interaction.channel_id),
    ):
        await _note_languages(interaction)
        await _respond(interaction, call, public=public)


async def _note_languages(interaction: discord.Interaction[Any]) -> None:
    """The server's and the user's languages, for the posts and direct messages nobody
    asked for."""
    client: _Client = interaction.client
    try:
        await client.note_languages(
            interaction.guild_id,
            server_language_of(interaction),
            interaction.user.id,
            language_of(interaction),
        )
    except DatabaseUnavailableError:
        pass  # the command itself will say so
    except Exception:
        log.exception("remembering the languages of %s failed", interaction.user.id)


async def _respond(
    interaction: discord.Interaction[Any],
    call: Callable[[], Awaitable[list[Reply]]],
    *,
    public: bool = True,
) -> None:
    started = time.monotonic()
    task = asyncio.ensure_future(call())
    deferred = False
    try:
        done, _ = await asyncio.wait({task}, timeout=DEFER_AFTER)
        if not done and not interaction.response.is_done():
            if interaction.type == discord.InteractionType.component:
                await interaction.response.defer()
            else:
                await interaction.response.defer(ephemeral=not public, thinking=True)
            deferred = True
        replies = await task
    except StaleControlsError as exc:
        if _is_component(interaction) and not interaction.response.is_done():
            # Answering a press with an edit of the pressed message costs no request of
            # its own: the old board's controls look stale from now on, for everyone.
            await interaction.response.edit_message(view=_disabled(interaction.message))
            if interaction.message is not None:
                _stale_boards(interaction).edited(interaction.message.id)
        await send_error(interaction, str(exc.text), deferred=deferred, public=public)
        _log(interaction, started, "refused")
        return
    except ServiceError as exc:
        await send_error(interaction, str(exc.text), deferred=deferred, public=public)
        _log(interaction, started, "refused")
        return
    except DatabaseUnavailableError as exc:
        log.warning("%s: %s", command_name(interaction), exc)
        text = str(unreachable_database())
        await send_error(interaction, text, deferred=deferred, public=public)
        _log(interaction, started, "database unavailable")
        return
    except Exception:
        log.exception("%s failed", command_name(interaction))
        await send_error(
            interaction,
            str(t("Something went wrong on my side and the error was logged. Please try again.")),
            deferred=deferred,
            public=public,
        )
        _log(interaction, started, "error")
        return
    client: _Client = interaction.client
    # News for other channels (a tournament's round, a game's thread) is posted there.
    elsewhere = [r for r in replies if r.where is not None]
    replies = [r for r in replies if r.where is None]
    await send_replies(interaction, replies, thinking=deferred and not _is_component(interaction))
    client.delivered(replies)
    for reply in elsewhere:
        assert reply.where is not None
        await client.post(reply.where, [replace(reply, where=None)])
    _log(interaction, started, "ok")
    await _tell_notices(interaction)


async def _tell_notices(interaction: discord.Interaction[Any]) -> None:
    """What the user must be told once (direct messages stopped), after the reply."""
    client: _Client = interaction.client
    try:
        notices = await client.notices(user_of(interaction))
        for notice in notices:
            await interaction.followup.send(ephemeral=True, **message_parts(notice))
    except Exception:
        log.exception("telling %s a notice failed", interaction.user.id)


def _log(interaction: discord.Interaction[Any], started: float, outcome: str) -> None:
    log.info(
        "%s guild=%s channel=%s user=%s %s %.1fms",
        command_name(interaction),
        interaction.guild_id,
        interaction.channel_id,
        interaction.user.id,
        outcome,
        (time.monotonic() - started) * 1000,
    )


async def send_error(
    interaction: discord.Interaction[Any], text: str, *, deferred: bool, public: bool
) -> None:
    embed = discord.Embed(description=text[:4096], colour=0xD64034)
    if not interaction.response.is_done():
        await interaction.response.send_message(embed=embed, ephemeral=True)
        return
    if deferred and public and interaction.type != discord.InteractionType.component:
        # A public "thinking…" would show the refusal to everyone: remove it instead.
        await interaction.delete_original_response()
    await interaction.followup.send(embed=embed, ephemeral=True)


def _disabled(message: discord.Message | None) -> discord.ui.View | None:
    """The components of `message`, every one disabled (None: it had none)."""
    if message is None or not message.components:
        return None
    view = discord.ui.View.from_message(message, timeout=None)
    for item in view.children:
        if isinstance(item, discord.ui.Button | discord.ui.Select):
            item.disabled = True
    return view


def _is_component(interaction: discord.Interaction[Any]) -> bool:
    return interaction.type == discord.InteractionType.component


async def send_replies(
    interaction: discord.Interaction[Any], replies: list[Reply], *, thinking: bool = False
) -> None:
    """Send `replies` in order. After a "thinking…" deferral the first follow-up would
    only edit that message, and edits ping nobody and keep the deferral's visibility: a
    reply that must ping, or that is private, replaces it with a new message instead."""
    for index, reply in enumerate(replies):
        first = index == 0
        if first and reply.launch and not interaction.response.is_done():
            # The game's page opens in the Activity, as the press's own answer: nothing is
            # posted. Where it cannot (answered already, or the application has no Activity
            # after all), the reply is sent as a message instead: the page's link.
            try:
                await interaction.response.launch_activity()
            except discord.HTTPException as exc:
                log.warning("the Activity was not launched (%s): its link is sent", exc.text)
            else:
                continue
        parts = message_parts(reply)
        if first and thinking and (reply.mentions or reply.ephemeral):
            await interaction.delete_original_response()
        message_id: int | None
        if first and reply.edit and _is_component(interaction) and interaction.message:
            # The pressed message itself is updated, as the interaction's own answer.
            edit = {"view": parts.get("view")} if reply.only_controls else _edit_parts(parts)
            if not interaction.response.is_done():
                await interaction.response.edit_message(**edit)
            else:
                await interaction.edit_original_response(**edit)
            message_id = interaction.message.id
            _stale_boards(interaction).edited(message_id)
        elif first and not interaction.response.is_done():
            sent = await interaction.response.send_message(ephemeral=reply.ephemeral, **parts)
            message_id = sent.message_id
        else:
            message_id = (await interaction.followup.send(ephemeral=reply.ephemeral, **parts)).id
        if message_id is not None and interaction.channel_id is not None:
            client: _Client = interaction.client
            client.posted(reply, interaction.channel_id, message_id)
        if not reply.ephemeral:
            for followers in follower_messages(reply):
                await interaction.followup.send(**followers)


def note_posted(boards: StaleBoards, reply: Reply, channel_id: int, message_id: int) -> None:
    """Tell `boards` of a message about a game, so the game's message before it loses
    its controls."""
    if reply.game_id is None or reply.ephemeral:
        return
    has_controls = bool(reply.picks or reply.actions)
    boards.posted(reply.game_id, Posted(channel_id, message_id), has_controls=has_controls)


class _Client(Protocol):
    """What this module needs of the bot (`HilltopBot`)."""

    stale_boards: StaleBoards

    async def notices(self, user: User) -> list[Reply]: ...

    async def note_languages(
        self, guild_id: int | None, guild_language: str, user_id: int, language: str
    ) -> None: ...

    def posted(self, reply: Reply, channel_id: int, message_id: int) -> None: ...

    def delivered(self, replies: list[Reply]) -> None: ...

    async def post(self, where: Where, replies: list[Reply]) -> None: ...


def _stale_boards(interaction: discord.Interaction[Any]) -> StaleBoards:
    client: _Client = interaction.client
    return client.stale_boards


def _edit_parts(parts: dict[str, Any]) -> dict[str, Any]:
    """Edits replace attachments and components rather than adding to them."""
    edit = {k: v for k, v in parts.items() if k not in ("file", "files", "view")}
    edit["attachments"] = parts.get("files") or ([parts["file"]] if "file" in parts else [])
    edit["view"] = parts.get("view")
    return edit


def missing_permission(permission: Text) -> Text:
    """A tournament's games cannot be started in threads for want of `permission` (named
    as Discord's client names it, in the reader's language)."""
    return t(
        "I may not start the tournament's games in threads here: I lack the {permission} "
        "permission in this channel. Ask an admin to grant it, or make the tournament in "
        "another channel.",
        permission=permission,
    )
