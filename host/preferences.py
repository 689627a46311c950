"""The commands that change settings: a server's (`/admin settings`) and a player's
(`/notify`). Each answers with the settings as they now stand, so nobody has to guess."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypedDict, Unpack

from data.digests import Digests
from engine.text import t
from host import catalog
from host.digests import checked_hour, checked_timezone, next_digest_at
from host.links import WebLinks
from host.model import Channel, Reply, ServiceError, User
from host.settings import (
    PlayerSettings,
    ServerChange,
    ServerSettings,
    SettingError,
    SettingsStore,
    duration,
)


class PlayerChange(TypedDict, total=False):
    """What `/notify` was given (left out, or None: unchanged)."""

    reminders: bool | None
    dm: bool | None
    digest: bool | None
    #: The digest's local hour, 0-23.
    hour: int | None
    #: An IANA time zone name (`Europe/Warsaw`).
    timezone: str | None


class Preferences:
    def __init__(
        self,
        settings: SettingsStore,
        links: WebLinks | None = None,
        digests: Digests[Any] | None = None,
    ) -> None:
        self.settings = settings
        #: Where the web pages are, to tell an admin who opens them (None: not served).
        self.links = links
        #: When each player's daily digest is due (None: no digests sent).
        self.digests = digests

    # --- a server's -----------------------------------------------------------------------
    async def server(self, channel: Channel, user: User, change: ServerChange) -> Reply:
        """Show this server's settings, changed first by whatever is given."""
        if channel.guild_id is None:
            raise ServiceError(t("Server settings are made in a server, not here."))
        if not user.is_admin:
            raise ServiceError(t("Only admins (Manage Server) can change this server's settings."))
        game = change.game
        if game is not None:
            try:
                change = replace(change, game=catalog.listing(game).id)
            except KeyError:
                raise ServiceError(
                    t(
                        "Unknown game {game!r}; games: {known}.",
                        game=game,
                        known=", ".join(lst.game.id for lst in catalog.all_listings()),
                    )
                ) from None
        current = await self.settings.server(channel.guild_id, fresh=True)
        try:
            new = current.changed(change)
        except SettingError as exc:
            raise ServiceError(exc.text) from None
        if new != current:
            await self.settings.save_server(channel.guild_id, new)
        served = self.links is not None and bool(self.links.base)
        always = served and self.links is not None and channel.guild_id in self.links.always_open
        text = server_text(new, changed=new != current, always_open=always)
        if (new.web != "off" or always) and served:
            assert self.links is not None
            text += "\n" + str(t("The pages: {url}", url=await self.links.server(channel.guild_id)))
        elif new.web != "off":
            text += "\n" + str(
                t("This bot serves no web pages yet: its host sets HILLTOP_WEB_URL.")
            )
        return Reply(title=str(t("Settings of this server")), text=text, ephemeral=True)

    # --- a player's -----------------------------------------------------------------------
    async def player(self, user: User, **change: Unpack[PlayerChange]) -> Reply:
        """Show `user`'s notifications, changed first by whatever is given (all of it
        checked before anything is saved)."""
        current = await self.settings.player(user.id, fresh=True)
        new = current
        reminders, dm, digest = change.get("reminders"), change.get("dm"), change.get("digest")
        hour, timezone = change.get("hour"), change.get("timezone")
        if hour is not None:
            new = replace(new, digest_hour=checked_hour(hour))
        if timezone is not None:
            new = replace(new, timezone=checked_timezone(timezone))
        if digest and self.digests is None:
            raise ServiceError(t("This bot sends no daily digests."))
        if reminders is not None:
            new = replace(new, reminders=reminders)
        if dm is not None or digest:
            # Turning direct messages on again tries them again.
            new = replace(new, dm_closed=False, dm_closed_told=False)
        if dm is not None:
            new = replace(new, dm=dm)
        if digest is not None:
            new = replace(new, digest=digest)
        if new != current:
            await self.settings.save_player(user.id, new)
        moved = (new.digest_hour, new.timezone) != (current.digest_hour, current.timezone)
        await self._schedule(user, new, again=digest is not None or moved)
        return Reply(
            title=str(t("Your notifications")),
            text=player_text(new),
            ephemeral=True,
        )

    async def _schedule(self, user: User, settings: PlayerSettings, *, again: bool) -> None:
        """Keep the player's digest row as their settings say: due at their next hour
        while they take one, gone when they do not."""
        if self.digests is None or not again:
            return
        if not settings.digest:
            await self.digests.stop(user.id)
            return
        now = self.settings.clock()
        due = next_digest_at(now, settings.digest_hour, settings.timezone)
        await self.digests.schedule(user.id, due, now)

    async def direct_messages_closed(self, user: User) -> None:
        """A direct message to `user` was refused: stop trying."""
        current = await self.settings.player(user.id, fresh=True)
        if not current.dm_closed:
            closed = replace(current, dm_closed=True, dm_closed_told=False)
            await self.settings.save_player(user.id, closed)

    async def notices(self, user: User) -> list[Reply]:
        """What `user` must be told once, privately, at their next command."""
        cached = await self.settings.player(user.id)
        if not cached.dm_closed or cached.dm_closed_told:
            return []
        current = await self.settings.player(user.id, fresh=True)
        if not current.dm_closed or current.dm_closed_told:
            return []
        await self.settings.save_player(user.id, replace(current, dm_closed_told=True))
        text = t(
            "I could not send you a direct message (they are closed for me), so I stopped "
            "trying: you are pinged in the game's channel instead. To have them again, "
            "allow direct messages from this server's members, then use /notify dm:on."
        )
        return [Reply(title=str(t("Direct messages")), text=str(text), ephemeral=True)]


def server_text(settings: ServerSettings, *, changed: bool, always_open: bool = False) -> str:
    """A server's settings in words; `always_open`: its pages are served open to all
    whatever `web` says (the console's own server, by the console)."""
    lines = [str(t("Saved.")) if changed else str(t("Nothing changed; as they stand:"))]
    for listing in catalog.all_listings():
        game = listing.game
        if game.solo:
            continue
        own = settings.deadlines.get(game.id)
        default = game.decision_seconds or None
        if own is not None:
            line = t("{game}: {time} per decision.", game=game.name, time=duration(own))
        elif default is not None:
            line = t(
                "{game}: {time} per decision (the game's own).",
                game=game.name,
                time=duration(default),
            )
        else:
            line = t("{game}: 3 days per decision (the default).", game=game.name)
        lines.append(f"- {line}")
    lines.append(
        str(
            t(
                "/play deadline: may choose from {low} to {high}.",
                low=duration(settings.min_deadline),
                high=duration(settings.max_deadline),
            )
        )
    )
    if settings.remind_before:
        lines.append(
            str(
                t(
                    "Reminders: half-way, and {time} before a decision runs out.",
                    time=duration(settings.remind_before),
                )
            )
        )
    else:
        lines.append(str(t("Reminders: half-way only.")))
    lines.append(
        str(t("New games start in a thread of their own."))
        if settings.threads
        else str(t("New games start in the channel where /play is used."))
    )
    lines.append(
        str(
            t(
                "Away time: {start} days to start with, {monthly} more each month, {most} at most.",
                start=settings.away_days,
                monthly=settings.away_monthly,
                most=settings.away_max,
            )
        )
    )
    lines.append(
        str(t("Web pages: open to anyone who can reach this computer, whatever web: says."))
        if always_open
        else {
            "off": str(t("Web pages: off (games are seen only here).")),
            "public": str(t("Web pages: open to anyone with the address.")),
            "members": str(t("Web pages: open to this server's members, signed in with Discord.")),
        }[settings.web]
    )
    lines.append(
        str(
            t(
                "Change with /admin settings game: deadline_hours: min_minutes: max_hours: "
                "remind_minutes: threads: web: away_days: away_monthly: away_max:."
            )
        )
    )
    return "\n".join(lines)


def player_text(settings: PlayerSettings) -> str:
    lines = [
        str(t("Reminders before your time runs out: on."))
        if settings.reminders
        else str(t("Reminders before your time runs out: off.")),
    ]
    if settings.dm and settings.dm_closed:
        lines.append(
            str(t("Direct messages: on, but yours are closed to me, so you are pinged instead."))
        )
    elif settings.dm:
        lines.append(
            str(
                t(
                    "Your turns: a ping in the game's channel and a direct message. "
                    "Reminders: a direct message."
                )
            )
        )
    else:
        lines.append(str(t("Turns and reminders come as pings in the game's channel.")))
    hour = f"{settings.digest_hour:02d}:00"
    if settings.digest:
        lines.append(
            str(
                t(
                    "Daily digest: on, at {hour} ({timezone}): one direct message with your "
                    "games waiting for you and those that ended; boards do not ping you, and "
                    "of the reminders only the last one reaches you.",
                    hour=hour,
                    timezone=settings.timezone,
                )
            )
        )
    else:
        lines.append(
            str(
                t(
                    "Daily digest: off (it would come at {hour}, {timezone}).",
                    hour=hour,
                    timezone=settings.timezone,
                )
            )
        )
    lines.append(str(t("Change with /notify reminders: dm: digest: hour: timezone:.")))
    return "\n".join(lines)
