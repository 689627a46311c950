"""A server's settings (its admins') and a player's (`/notify`), kept in the database.

Each is a frozen value read from and written back to a JSON object; keys the code does
not know are kept as they are, so an older process never drops a newer one's settings.
Every change is checked against its range first, and a refusal names the range.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol, Self

from engine.text import ENGLISH, Text, t, tn
from host.setup import REMIND_BEFORE_SECONDS

MINUTE = 60
HOUR = 3600
DAY = 24 * HOUR

#: What an admin may choose, in seconds.
DEADLINE_RANGE = (1 * MINUTE, 30 * DAY)
REMIND_BEFORE_RANGE = (0, 2 * DAY)
#: The bounds of `/play deadline:` when a server has set none.
DEFAULT_MIN_DEADLINE = 1 * MINUTE
DEFAULT_MAX_DEADLINE = 7 * DAY
DEFAULT_REMIND_BEFORE = REMIND_BEFORE_SECONDS
#: The local hour of a player's daily digest unless they choose one.
DIGEST_HOUR = 8


class SettingError(ValueError):
    """A setting out of its range; `text` says the range."""

    def __init__(self, text: Text) -> None:
        super().__init__(str(text))
        self.text = text


def duration(seconds: int) -> str:
    """Seconds as a person says them: "3 days", "12 hours", "1 day 6 hours", "90 minutes"."""
    if seconds <= 0:
        return str(t("none"))
    days, rest = divmod(seconds, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes = rest // MINUTE
    parts = []
    if days:
        parts.append(str(tn("{n} day", "{n} days", n=days)))
    if hours:
        parts.append(str(tn("{n} hour", "{n} hours", n=hours)))
    if minutes or not parts:
        parts.append(str(tn("{n} minute", "{n} minutes", n=minutes)))
    return " ".join(parts)


def _seconds(stored: Mapping[str, Any], key: str) -> int | None:
    value = stored.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True, slots=True)
class ServerChange:
    """What `/admin settings` was given (None: unchanged), in the units it asks for."""

    game: str | None = None
    deadline_hours: int | None = None
    min_minutes: int | None = None
    max_hours: int | None = None
    remind_minutes: int | None = None
    threads: bool | None = None
    #: Who may see this server's web pages: one of `WEB_ACCESS`.
    web: str | None = None
    #: The server's name, shown on its web pages (noted when `web` is changed).
    name: str | None = None
    #: Away time here: the days a player starts with, gains each month, and holds at most.
    away_days: int | None = None
    away_monthly: int | None = None
    away_max: int | None = None


#: Away time's numbers unless a server sets its own: days to start with, days gained on
#: the first of each month, and the most a balance holds.
AWAY_DAYS, AWAY_MONTHLY, AWAY_MAX = 7, 2, 30
#: The most any of them may be set to.
AWAY_LIMIT = 365


#: Who may see a server's web pages: nobody (the default), anyone with the address, or
#: only the server's members, signed in with Discord.
WEB_ACCESS = ("off", "public", "members")


@dataclass(frozen=True, slots=True)
class ServerSettings:
    #: The time per decision of each game here, by game id (seconds).
    deadlines: Mapping[str, int] = field(default_factory=dict)
    #: The bounds of `/play deadline:` here (seconds).
    min_deadline: int = DEFAULT_MIN_DEADLINE
    max_deadline: int = DEFAULT_MAX_DEADLINE
    #: The last reminder comes this long before a decision runs out (0: none).
    remind_before: int = DEFAULT_REMIND_BEFORE
    #: Every new game starts in a thread of its own.
    threads: bool = False
    #: The server's preferred language (Discord's community setting): the language of
    #: the posts nobody asked for (reminders, deadlines).
    language: str = ENGLISH
    #: Who may see this server's web pages (`WEB_ACCESS`).
    web: str = "off"
    #: The server's name, as its web pages show it.
    name: str = ""
    #: Away time here: days to start with, gained each month, held at most.
    away_days: int = AWAY_DAYS
    away_monthly: int = AWAY_MONTHLY
    away_max: int = AWAY_MAX
    #: What was stored, kept whole so that unknown keys survive a save.
    stored: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_stored(cls, stored: Mapping[str, Any]) -> Self:
        deadlines = stored.get("deadlines")
        return cls(
            deadlines={
                k: v
                for k, v in (deadlines.items() if isinstance(deadlines, dict) else ())
                if isinstance(v, int) and v > 0
            },
            min_deadline=_seconds(stored, "min_deadline") or DEFAULT_MIN_DEADLINE,
            max_deadline=_seconds(stored, "max_deadline") or DEFAULT_MAX_DEADLINE,
            remind_before=_or(_seconds(stored, "remind_before"), DEFAULT_REMIND_BEFORE),
            threads=stored.get("threads") is True,
            language=_language(stored),
            web=web if (web := stored.get("web")) in WEB_ACCESS else "off",
            name=name if isinstance(name := stored.get("name"), str) else "",
            away_days=_or(_seconds(stored, "away_days"), AWAY_DAYS),
            away_monthly=_or(_seconds(stored, "away_monthly"), AWAY_MONTHLY),
            away_max=_or(_seconds(stored, "away_max"), AWAY_MAX),
            stored=dict(stored),
        )

    def to_stored(self) -> dict[str, Any]:
        return {
            **self.stored,
            "deadlines": dict(self.deadlines),
            "min_deadline": self.min_deadline,
            "max_deadline": self.max_deadline,
            "remind_before": self.remind_before,
            "threads": self.threads,
            "language": self.language,
            "web": self.web,
            "name": self.name,
            "away_days": self.away_days,
            "away_monthly": self.away_monthly,
            "away_max": self.away_max,
        }

    def changed(self, change: ServerChange) -> Self:
        """These settings with `change` made, checked (SettingError names the range)."""
        new = self
        game, threads = change.game, change.threads
        deadline = _times(change.deadline_hours, HOUR)
        min_deadline = _times(change.min_minutes, MINUTE)
        max_deadline = _times(change.max_hours, HOUR)
        remind_before = _times(change.remind_minutes, MINUTE)
        if deadline is not None:
            if game is None:
                raise SettingError(t("deadline_hours: say which game it is for (game:)."))
            _check("deadline_hours", deadline, (HOUR, DEADLINE_RANGE[1]))
            new = replace(new, deadlines={**new.deadlines, game: deadline})
        if min_deadline is not None:
            _check("min_minutes", min_deadline, DEADLINE_RANGE)
            new = replace(new, min_deadline=min_deadline)
        if max_deadline is not None:
            _check("max_hours", max_deadline, (HOUR, DEADLINE_RANGE[1]))
            new = replace(new, max_deadline=max_deadline)
        if new.min_deadline > new.max_deadline:
            raise SettingError(
                t(
                    "min_minutes ({low}) must not be longer than max_hours ({high}): the "
                    "shortest deadline /play may choose would be above the longest.",
                    low=duration(new.min_deadline),
                    high=duration(new.max_deadline),
                )
            )
        if remind_before is not None:
            _check("remind_minutes", remind_before, REMIND_BEFORE_RANGE)
            new = replace(new, remind_before=remind_before)
        if threads is not None:
            new = replace(new, threads=threads)
        if change.web is not None:
            if change.web not in WEB_ACCESS:
                raise SettingError(
                    t("web: choose off, public or members (not {web!r}).", web=change.web)
                )
            new = replace(new, web=change.web)
        if change.name is not None and change.name != new.name:
            new = replace(new, name=change.name[:100])
        for option, value in (
            ("away_days", change.away_days),
            ("away_monthly", change.away_monthly),
            ("away_max", change.away_max),
        ):
            if value is not None and not 0 <= value <= AWAY_LIMIT:
                raise SettingError(
                    t(
                        "{name}: {value} is out of range; choose from 0 to {high} days.",
                        name=option,
                        value=value,
                        high=AWAY_LIMIT,
                    )
                )
        return replace(
            new,
            away_days=_or(change.away_days, new.away_days),
            away_monthly=_or(change.away_monthly, new.away_monthly),
            away_max=_or(change.away_max, new.away_max),
        )

    def deadline_for(self, game: str, minutes: int | None) -> int | None:
        """The seconds per decision of a new game of `game` here: the minutes chosen at
        set-up (checked against this server's bounds), else this server's default for
        the game (None: the game's own)."""
        if minutes is None:
            return self.deadlines.get(game)
        low, high = self.min_deadline, self.max_deadline
        if not low <= minutes * MINUTE <= high:
            raise SettingError(
                t(
                    "deadline: this server allows {low} to {high} per decision; give minutes "
                    "from {lo} to {hi}.",
                    low=duration(low),
                    high=duration(high),
                    lo=-(-low // MINUTE),
                    hi=high // MINUTE,
                )
            )
        return minutes * MINUTE


def _language(stored: Mapping[str, Any]) -> str:
    language = stored.get("language")
    return language if isinstance(language, str) and language else ENGLISH


def _times(value: int | None, unit: int) -> int | None:
    return None if value is None else value * unit


def _or(value: int | None, default: int) -> int:
    return default if value is None else value


def _check(name: str, seconds: int, bounds: tuple[int, int]) -> None:
    low, high = bounds
    if not low <= seconds <= high:
        raise SettingError(
            t(
                "{name}: {value} is out of range; choose from {low} to {high}.",
                name=name,
                value=duration(seconds) if seconds > 0 else str(seconds),
                low=duration(low) if low else "0",
                high=duration(high),
            )
        )


@dataclass(frozen=True, slots=True)
class PlayerSettings:
    #: Reminders before a decision runs out.
    reminders: bool = True
    #: Turns, reminders and followed games by direct message instead of a ping.
    dm: bool = False
    #: A direct message could not be delivered: none is tried until `dm` is set again.
    dm_closed: bool = False
    #: The player has been told that direct messages stopped.
    dm_closed_told: bool = False
    #: The language of the player's Discord client, as last seen: for direct messages.
    language: str = ENGLISH
    #: One direct message a day lists the games waiting for them, and those that ended;
    #: boards no longer ping them, and of the reminders only the last reaches them.
    digest: bool = False
    #: The digest's hour (0-23) in `timezone`.
    digest_hour: int = DIGEST_HOUR
    #: The player's time zone, an IANA name (`Europe/Warsaw`).
    timezone: str = "UTC"
    stored: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_stored(cls, stored: Mapping[str, Any]) -> Self:
        return cls(
            reminders=stored.get("reminders") is not False,
            dm=stored.get("dm") is True,
            dm_closed=stored.get("dm_closed") is True,
            dm_closed_told=stored.get("dm_closed_told") is True,
            language=_language(stored),
            digest=stored.get("digest") is True,
            digest_hour=_or(_seconds(stored, "digest_hour"), DIGEST_HOUR),
            timezone=zone if isinstance(zone := stored.get("timezone"), str) and zone else "UTC",
            stored=dict(stored),
        )

    def to_stored(self) -> dict[str, Any]:
        return {
            **self.stored,
            "reminders": self.reminders,
            "dm": self.dm,
            "dm_closed": self.dm_closed,
            "dm_closed_told": self.dm_closed_told,
            "language": self.language,
            "digest": self.digest,
            "digest_hour": self.digest_hour,
            "timezone": self.timezone,
        }

    @property
    def direct(self) -> bool:
        """Whether to send this player direct messages now."""
        return self.dm and not self.dm_closed

    @property
    def digested(self) -> bool:
        """Whether the daily digest tells this player of their games now, instead of the
        boards' pings and all but the last reminder (not while their direct messages
        are closed to the bot)."""
        return self.digest and not self.dm_closed


class SettingsStore:
    """Reads and saves settings through the repository, with a short-lived cache: a
    setting saved by another process is seen here within `TTL` seconds."""

    TTL = 60.0

    def __init__(self, repository: SettingsRepository, clock: Callable[[], float]) -> None:
        self.repository = repository
        self.clock = clock
        self._servers: dict[int, tuple[float, ServerSettings]] = {}
        self._players: dict[int, tuple[float, PlayerSettings]] = {}

    async def server(self, guild_id: int | None, *, fresh: bool = False) -> ServerSettings:
        if guild_id is None:
            return ServerSettings()  # a direct message: the defaults
        cached = self._servers.get(guild_id)
        if cached is not None and cached[0] > self.clock() and not fresh:
            return cached[1]
        settings = ServerSettings.from_stored(await self.repository.settings("guild", guild_id))
        keep_bounded(self._servers, guild_id, (self.clock() + self.TTL, settings))
        return settings

    def forget_server(self, guild_id: int) -> None:
        """Drop the server's settings from memory (it was removed, or its data deleted)."""
        self._servers.pop(guild_id, None)

    async def save_server(self, guild_id: int, settings: ServerSettings) -> None:
        """Store what `settings` changed of the settings it was made from, key by key."""
        changes = changed_keys(ServerSettings.from_stored(settings.stored), settings)
        await self.repository.change_settings("guild", guild_id, changes)
        saved = replace(settings, stored=settings.to_stored())
        keep_bounded(self._servers, guild_id, (self.clock() + self.TTL, saved))

    async def player(self, user_id: int, *, fresh: bool = False) -> PlayerSettings:
        """A player's settings; `fresh` reads them from the database, as a change must
        (another process may have saved them within the cache's time)."""
        cached = self._players.get(user_id)
        if cached is not None and cached[0] > self.clock() and not fresh:
            return cached[1]
        settings = PlayerSettings.from_stored(await self.repository.settings("user", user_id))
        keep_bounded(self._players, user_id, (self.clock() + self.TTL, settings))
        return settings

    async def save_player(self, user_id: int, settings: PlayerSettings) -> None:
        """Store what `settings` changed of the settings it was made from, key by key."""
        changes = changed_keys(PlayerSettings.from_stored(settings.stored), settings)
        await self.repository.change_settings("user", user_id, changes)
        saved = replace(settings, stored=settings.to_stored())
        keep_bounded(self._players, user_id, (self.clock() + self.TTL, saved))

    async def note_languages(
        self, guild_id: int | None, guild: str, user_id: int, own: str
    ) -> None:
        """Remember a server's and a player's language as Discord gives them with each
        command (stored only when it changed: usually a look in the cache)."""
        if guild_id is not None:
            server = await self.server(guild_id)
            if server.language != guild:
                fresh = await self.server(guild_id, fresh=True)
                await self.save_server(guild_id, replace(fresh, language=guild))
        player = await self.player(user_id)
        if player.language != own:
            fresh_player = await self.player(user_id, fresh=True)
            await self.save_player(user_id, replace(fresh_player, language=own))


def changed_keys(
    before: ServerSettings | PlayerSettings, after: ServerSettings | PlayerSettings
) -> dict[tuple[str, ...], Any]:
    """The stored keys whose values differ from `before` to `after` (inside an object
    such as the deadlines, each of its keys apart): only these are written, so a change
    another process makes meanwhile to another key is kept."""
    old, new = before.to_stored(), after.to_stored()
    changes: dict[tuple[str, ...], Any] = {}
    for key, value in new.items():
        was = old.get(key)
        if isinstance(value, dict) and isinstance(was, dict):
            changes.update({(key, k): v for k, v in value.items() if was.get(k) != v})
        elif key not in old or was != value:
            changes[(key,)] = value
    return changes


#: Entries a cache of settings keeps at most; the oldest written go first.
CACHE_SIZE = 10_000


def keep_bounded(cache: dict[int, Any], key: int, value: Any) -> None:
    cache.pop(key, None)
    cache[key] = value
    while len(cache) > CACHE_SIZE:
        del cache[next(iter(cache))]


class SettingsRepository(Protocol):
    async def settings(self, scope: Literal["guild", "user"], key: int) -> dict[str, Any]: ...

    async def change_settings(
        self, scope: Literal["guild", "user"], key: int, changes: Mapping[tuple[str, ...], Any]
    ) -> None: ...
