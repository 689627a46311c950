"""`/away` and `/back`: a player's time away, paid for from their balance of away days.

While a player is away, the clocks of their own decisions stop, in every game on every
server (the clock stops a decision that runs out while they are away, keeping the time it
had: `host.announce.clock`); the other players' do not. When they are back, by `/back` or
when the days run out, each stopped clock runs again with the time it had left, and a
decision that came while they were away gets its whole time from then. The balance grows
on the first of each month by the numbers of the server where `/away` is used.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime

from data.away import AwayRecord, AwayRepository
from engine.text import speaking, t, tn
from host import i18n
from host.away.absences import Absences
from host.model import Channel, Direct, Reply, ServiceError, User, Where
from host.play.commit import Commits
from host.play.live import LiveGames, record_of
from host.play.moves import running_timer
from host.play.timeouts import PauseForAway, ResumeFromAway
from host.settings import ServerSettings, SettingsStore

DAY = 24 * 3600


class AwayTime:
    def __init__(
        self,
        repository: AwayRepository,
        absences: Absences,
        commits: Commits,
        settings: SettingsStore,
        clock: Callable[[], float],
    ) -> None:
        self.repository = repository
        self.absences = absences
        self.commits = commits
        self.live: LiveGames = commits.live
        self.settings = settings
        self.clock = clock

    async def away(
        self, channel: Channel, user: User, days: int | None = None, until: str | None = None
    ) -> list[Reply]:
        """`/away [days:] [until:YYYY-MM-DD]`: away from now, for that many whole days (by
        default every day left), the days paid from the balance at once."""
        now = self.clock()
        server = await self.settings.server(channel.guild_id)
        before = await self.repository.get(user.id)
        current = _credited(before, user.id, server, now)
        if current.away_at(now):
            raise ServiceError(
                t(
                    "You are away already, until {day}; /back ends it.",
                    day=i18n.day(current.away_until or now),
                )
            )
        if days is not None and until is not None:
            raise ServiceError(t("Give days: or until:, not both."))
        if current.balance <= 0:
            raise ServiceError(
                t(
                    "You have no away days left; {n} more come on the first of next month.",
                    n=server.away_monthly,
                )
            )
        ends = None
        if until is not None:
            ends = _date(until)
            if ends <= now:
                raise ServiceError(t("until: {day} has passed; give a day after today.", day=until))
            days = math.ceil((ends - now) / DAY)
        wanted = days if days is not None else current.balance
        if not 1 <= wanted <= current.balance:
            raise ServiceError(
                tn(
                    "You have {n} away day left; ask for at most that many.",
                    "You have {n} away days left; ask for at most that many.",
                    n=current.balance,
                )
                if wanted > current.balance
                else t("days: give at least one day.")
            )
        back_at = ends if ends is not None else now + wanted * DAY
        after = replace(
            current,
            balance=current.balance - wanted,
            away_from=now,
            away_until=back_at,
            days=wanted,
        )
        if not await self.repository.save(before, after, record_of(user)):
            raise ServiceError(t("Your away time changed meanwhile; look again with /away."))
        self.absences.forget(user.id)
        stopped = await self._stop_clocks(user, now)
        return [
            Reply(
                title=str(t("Away until {day}", day=i18n.day(back_at))),
                text=" ".join(
                    [
                        str(
                            tn(
                                "Your deadlines stop in every game ({n} stopped now).",
                                "Your deadlines stop in every game ({n} stopped now).",
                                n=stopped,
                            )
                        ),
                        str(
                            tn(
                                "{n} away day left.",
                                "{n} away days left.",
                                n=after.balance,
                            )
                        ),
                        str(t("/back ends it early and gives back the whole days unused.")),
                    ]
                ),
                ephemeral=True,
            )
        ]

    async def back(self, channel: Channel, user: User) -> list[Reply]:
        """`/back`: away time ends now; the whole days unused are given back."""
        now = self.clock()
        before = await self.repository.get(user.id)
        if before is None or not before.away_at(now):
            raise ServiceError(t("You are not away: /away starts your away time."))
        assert before.away_until is not None
        server = await self.settings.server(channel.guild_id)
        unused = int((before.away_until - now) // DAY)
        after = replace(
            before,
            balance=min(server.away_max, before.balance + unused),
            away_from=None,
            away_until=None,
            days=None,
        )
        if not await self.repository.save(before, after, record_of(user)):
            raise ServiceError(t("Your away time changed meanwhile; look again with /away."))
        self.absences.forget(user.id)
        started = await self._start_clocks(user, before.away_from or now, now)
        return [
            Reply(
                title=str(t("Welcome back")),
                text=" ".join(
                    [
                        str(
                            tn(
                                "{n} unused day given back;",
                                "{n} unused days given back;",
                                n=unused,
                            )
                        ),
                        str(tn("{n} away day left.", "{n} away days left.", n=after.balance)),
                        str(
                            tn(
                                "{n} deadline runs again with the time it had left.",
                                "{n} deadlines run again with the time they had left.",
                                n=started,
                            )
                        ),
                    ]
                ),
                ephemeral=True,
            )
        ]

    async def balance(self, channel: Channel, user: User) -> AwayRecord:
        """The player's away time as it stands (their month's days added)."""
        server = await self.settings.server(channel.guild_id)
        return _credited(await self.repository.get(user.id), user.id, server, self.clock())

    async def tick(self, now: float) -> list[tuple[Where, list[Reply]]]:
        """Away times that ran out: their players' clocks run again, and they are told."""
        posts: list[tuple[Where, list[Reply]]] = []
        for user_id in await self.repository.ending(now):
            before = await self.repository.get(user_id)
            if before is None or before.away_until is None or before.away_until > now:
                continue
            after = replace(before, away_from=None, away_until=None, days=None)
            user = await self._user(user_id)
            if not await self.repository.save(before, after, record_of(user)):
                continue  # another process ended it
            self.absences.forget(user_id)
            started = await self._start_clocks(user, before.away_from or now, now)
            language = (await self.settings.player(user_id)).language
            with speaking(language):
                told = tn(
                    "Your away time is over: {n} deadline runs again with the time it had left.",
                    "Your away time is over: {n} deadlines run again with the time they had left.",
                    n=started,
                )
                posts.append((Direct(user), [Reply(text=str(told))]))
        return posts

    async def _user(self, user_id: int) -> User:
        games = await self.live.repository.live_games_of_user(user_id)
        for record in games:
            for seat in record.seats:
                if seat.user.id == user_id:
                    return User(user_id, seat.user.name)
        return User(user_id, str(user_id))

    async def _stop_clocks(self, user: User, since: float) -> int:
        """Stop the clocks of the decisions now pending for `user` (those games that allow
        away time); how many were stopped."""
        stopped = 0
        for record in await self.live.repository.live_games_of_user(user.id):
            if record.status != "active" or record.options.get("away") is False:
                continue
            loaded = await self.live.locked_load(record.id, fresh=True)
            mine = set(loaded.record.seats_of(user.id))
            if not mine & loaded.state.to_act or running_timer(loaded.record) is None:
                continue
            try:
                await self.commits.apply(record.id, PauseForAway(since))
            except ServiceError:
                continue
            stopped += 1
        return stopped

    async def _start_clocks(self, user: User, since: float, now: float) -> int:
        """Run again the clocks stopped for `user`, with the time they had left; a
        decision that came while they were away (its clock running since) gets its whole
        time from now. How many clocks run again."""
        started = 0
        for record in await self.live.repository.live_games_of_user(user.id):
            if record.status != "active" or record.options.get("away") is False:
                continue
            timer = running_timer(record)
            if timer is not None and timer.started_at >= since:
                loaded = await self.live.locked_load(record.id, fresh=True)
                if set(loaded.record.seats_of(user.id)) & loaded.state.to_act:
                    try:
                        await self.commits.apply(record.id, PauseForAway(since))
                    except ServiceError:
                        continue
        for game_id, _ply, left in await self.live.repository.paused_of(user.id):
            try:
                await self.commits.apply(game_id, ResumeFromAway(now, left))
            except ServiceError:
                continue
            started += 1
        return started


def _credited(
    record: AwayRecord | None, user_id: int, server: ServerSettings, now: float
) -> AwayRecord:
    """The balance with every month's days added since it was last credited (a player's
    first balance is the server's starting days)."""
    month = _month(now)
    if record is None:
        return AwayRecord(user_id, server.away_days, month, None, None, None)
    months = _months_between(record.credited, month)
    if months <= 0:
        return record
    balance = min(server.away_max, record.balance + months * server.away_monthly)
    return replace(record, balance=max(balance, record.balance), credited=month)


def _month(now: float) -> str:
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m")


def _months_between(earlier: str, later: str) -> int:
    try:
        y1, m1 = (int(x) for x in earlier.split("-"))
        y2, m2 = (int(x) for x in later.split("-"))
    except ValueError:
        return 0
    return (y2 - y1) * 12 + (m2 - m1)


def _date(text: str) -> float:
    """The start (00:00 UTC) of a day written YYYY-MM-DD."""
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        raise ServiceError(
            t("until: write a day as YYYY-MM-DD, e.g. 2026-12-24 (got {text!r}).", text=text)
        ) from None
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()
