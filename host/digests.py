"""The daily digest (`/notify digest:on`): one direct message a day, at the player's hour
in their own time zone, listing the games waiting for their move and the games of theirs
that ended since the last one. Boards then leave the player out of their pings, and of
the reminders only the last reaches them (`PlayerSettings.digested`).

Sent once a day across every process: the clock's tick of each reads the digests due
and claims each with a compare-and-set write (`data.digests.Digests.claim`); only the
process whose write moved the row on sends it. The next time is the player's local hour
on the next day, found in their time zone, so it stays that hour across daylight-saving
changes (a day of 23 or 25 hours).
"""

from __future__ import annotations

import logging
from datetime import datetime, time, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from data.digests import Digests, DueDigest
from data.repository import GameRecord
from engine.text import speaking, t, tn
from host.links import WebLinks
from host.model import Direct, Reply, ServiceError, Where
from host.play.live import LiveGames, Loaded, game_of, user_of
from host.play.results import list_names, short_line
from host.present.presenter import Presenter
from host.settings import PlayerSettings, SettingsStore

log = logging.getLogger(__name__)

#: Autocomplete offers this many time zones at most (Discord's limit).
ZONE_CHOICES = 25


@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def checked_timezone(name: str) -> str:
    """`name` as an IANA time zone, or a refusal that says how to write one."""
    typed = name.strip()
    if typed in _zones():
        return typed
    raise ServiceError(
        t(
            "timezone: {name!r} is not a time zone; use a name like Europe/Warsaw or "
            "America/New_York.",
            name=name,
        )
    )


def checked_hour(hour: int) -> int:
    if not 0 <= hour <= 23:
        raise ServiceError(
            t(
                "hour: {hour} is not an hour of the day; give one from 0 to 23 (8 is 8:00 "
                "in your time zone).",
                hour=hour,
            )
        )
    return hour


def timezone_choices(typed: str) -> list[str]:
    """The time zones whose names hold what was typed (those starting with it first),
    for autocomplete."""
    needle = typed.strip().lower().replace(" ", "_")
    found = sorted(
        (not zone.lower().startswith(needle), zone) for zone in _zones() if needle in zone.lower()
    )
    return [zone for _, zone in found[:ZONE_CHOICES]]


def next_digest_at(after: float, hour: int, timezone: str) -> float:
    """The first moment after `after` at which it is `hour`:00 in `timezone`. An hour a
    daylight-saving change skips comes as the clocks move on; one it repeats, the first
    time."""
    zone = ZoneInfo(timezone)
    day = datetime.fromtimestamp(after, zone).date()
    for ahead in range(3):
        at = datetime.combine(day + timedelta(days=ahead), time(hour), tzinfo=zone).timestamp()
        if at > after:
            return at
    raise AssertionError("an hour of the day comes within three days")


class DailyDigests:
    """Sends the digests due at each tick of the clock."""

    def __init__(
        self,
        digests: Digests[Any],
        live: LiveGames,
        settings: SettingsStore,
        presenter: Presenter,
        links: WebLinks,
    ) -> None:
        self.digests = digests
        self.live = live
        self.settings = settings
        self.presenter = presenter
        self.links = links

    async def tick(self, now: float) -> list[tuple[Where, list[Reply]]]:
        """The digests due at `now` that this process claimed, as direct messages."""
        posts: list[tuple[Where, list[Reply]]] = []
        for due in await self.digests.due(now):
            try:
                posts += await self._send(due, now)
            except Exception:
                # One player's digest must not hold up everyone else's.
                log.exception("the digest of user %s failed", due.user_id)
        return posts

    async def _send(self, due: DueDigest, now: float) -> list[tuple[Where, list[Reply]]]:
        settings = await self.settings.player(due.user_id, fresh=True)
        if not settings.digest:
            await self.digests.stop(due.user_id)  # turned off by another process meanwhile
            return []
        following = next_digest_at(now, settings.digest_hour, settings.timezone)
        if not await self.digests.claim(due, following, now) or not settings.digested:
            return []
        with speaking(settings.language):
            return await self.digest(due.user_id, settings, due.ends_from, now)

    async def digest(
        self, user_id: int, settings: PlayerSettings, ends_from: float, now: float
    ) -> list[tuple[Where, list[Reply]]]:
        """The player's digest (nothing if there is nothing to tell): their games waiting
        for them, soonest deadline first, and those that ended after `ends_from`."""
        waiting = await self._waiting(user_id)
        ended = [
            await self.live.record(g) for g in await self.digests.ended(user_id, ends_from, now)
        ]
        if not waiting and not ended:
            return []
        lines: list[str] = []
        if waiting:
            lines.append(
                str(
                    tn(
                        "{n} game waits for your move:",
                        "{n} games wait for your move:",
                        n=len(waiting),
                    )
                )
            )
            lines += [await self._waiting_line(loaded, user_id) for loaded in waiting]
        if ended:
            lines.append(str(tn("{n} game ended:", "{n} games ended:", n=len(ended))))
            lines += [await self._ended_line(record) for record in ended]
        person = next(
            user_of(seat.user)
            for record in [*(w.record for w in waiting), *ended]
            for seat in record.seats
            if seat.user.id == user_id
        )
        reply = Reply(title=str(t("Your daily digest")), text="\n".join(lines), tone="info")
        return [(Direct(person), [reply])]

    async def _waiting(self, user_id: int) -> list[Loaded]:
        found = []
        for record in await self.live.repository.live_games_of_user(user_id):
            if record.status != "active" or record.kind != "channel":
                continue
            loaded = await self.live.locked_load(record.id)
            if loaded.game.solo or not set(record.seats_of(user_id)) & loaded.state.to_act:
                continue
            found.append(loaded)
        return sorted(found, key=lambda w: (w.record.deadline_at or float("inf"), w.id))

    async def _waiting_line(self, loaded: Loaded, user_id: int) -> str:
        record = loaded.record
        names = list_names(loaded.game, record)
        others = [n for s, n in zip(record.seats, names, strict=True) if s.user.id != user_id]
        since = int(record.deadline_from or record.updated_at)
        if record.deadline_at is not None:
            line = t(
                "**{game}** vs {others} in <#{channel}>: your move since <t:{since}:f>; "
                "time runs out <t:{deadline}:R>.",
                game=loaded.game.name,
                others=", ".join(dict.fromkeys(others)),
                channel=record.channel_id,
                since=since,
                deadline=int(record.deadline_at),
            )
        else:
            line = t(
                "**{game}** vs {others} in <#{channel}>: your move since <t:{since}:f>.",
                game=loaded.game.name,
                others=", ".join(dict.fromkeys(others)),
                channel=record.channel_id,
                since=since,
            )
        return "- " + str(line) + await self._link(record)

    async def _ended_line(self, record: GameRecord) -> str:
        game = game_of(record.game)
        names = list_names(game, record)
        assert record.result is not None  # an ended game keeps its result
        line = t(
            "**{game}** · {players}: {result}",
            game=game.name,
            players=" vs ".join(names),
            result=short_line(game, record.result, names),
        )
        return "- " + str(line) + await self._link(record)

    async def _link(self, record: GameRecord) -> str:
        """The way to the game: its latest board on Discord, else its web page."""
        link = self.presenter.link(record) or await self.links.game(record)
        label = t("board")  # outside the f-string, where the catalogue finds it
        return f" [{label}]({link})" if link else ""
