"""Replays of a closed daily hill: its par run (a careful player's line) and the day's winning
run, as animated pictures. Never before the day's runs close, so nothing is spoiled."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import date, timedelta

from data.daily import DailyRepository
from engine.hillbert import GAME, new_hill, result_text
from engine.text import t
from host.daily.calendar import closes_at, first_open_day
from host.daily.par import DailyPar
from host.history.finished import animate, frames_of
from host.model import SCOPES, Channel, Reply, ServiceError, User
from host.play.live import start_state
from host.privacy.names import shown_name
from host.service import GameService

log = logging.getLogger(__name__)

RUNS = ("par", "winner")
#: Closed days offered as choices, newest first.
RECENT_DAYS = 7
#: How far back a hill can be replayed (a par run of an older day would be searched
#: anew, in the worker that searches today's par).
OLDEST_DAYS = 365


class DailyReplays:
    def __init__(
        self,
        games: GameService,
        daily: DailyRepository,
        par: DailyPar,
        settle: Callable[[], Awaitable[None]],
    ) -> None:
        self.games = games
        self.daily = daily
        self.par = par
        #: Records the runs of closed days still open when their hill closed.
        self.settle = settle

    def closed_days(self) -> list[date]:
        """The latest closed days, newest first."""
        last = first_open_day(self.games.clock()) - timedelta(days=1)
        return [last - timedelta(days=n) for n in range(RECENT_DAYS)]

    async def replay(
        self,
        channel: Channel,
        user: User,
        day: str | None = None,
        run: str = "winner",
        scope: str = "server",
    ) -> list[Reply]:
        """The par run or the winning run of a closed day's hill (the latest, by default),
        as an animated picture."""
        if run not in RUNS:
            raise ServiceError(t("run: choose par or winner (not {r!r}).", r=run))
        if scope not in SCOPES:
            raise ServiceError(t("scope: choose server or global (not {s!r}).", s=scope))
        hill = self._closed_day(day)
        if run == "par":
            return [await self._par_run(hill)]
        guild = channel.guild_id if scope == "server" else None
        return [await self._winning_run(hill, guild)]

    def _closed_day(self, day: str | None) -> date:
        if not day:
            return self.closed_days()[0]
        try:
            hill = date.fromisoformat(day.strip())
        except ValueError:
            raise ServiceError(
                t(
                    "day: write a date as YYYY-MM-DD, e.g. {example}.",
                    example=self.closed_days()[0].isoformat(),
                )
            ) from None
        latest = self.closed_days()[0]
        if hill > latest + timedelta(days=1):
            raise ServiceError(
                t(
                    "day: {day} has not come yet; the latest closed hill is {latest}.",
                    day=hill.isoformat(),
                    latest=latest.isoformat(),
                )
            )
        if hill < latest - timedelta(days=OLDEST_DAYS):
            raise ServiceError(
                t(
                    "day: hills can be replayed for a year; choose a day from {oldest}.",
                    oldest=(latest - timedelta(days=OLDEST_DAYS)).isoformat(),
                )
            )
        closes = closes_at(hill)
        if self.games.clock() < closes:
            raise ServiceError(
                t(
                    "The hill of {day} is still open: its replays come when it closes, "
                    "<t:{when}:R>, so nothing is spoiled.",
                    day=hill.isoformat(),
                    when=int(closes),
                )
            )
        return hill

    async def _par_run(self, hill: date) -> Reply:
        try:
            moves = await self.par.line(hill)
        except Exception:
            log.exception("the par line of %s failed", hill)
            raise ServiceError(
                t("Par for this hill is not ready yet; ask again in a minute.")
            ) from None
        start = new_hill(self.par.seed_for(hill))
        names = (self.games.bot_user.name,)
        frames = frames_of(start, [(0, move) for move in moves], names)
        end = frames[-1][0]
        gif = await animate(self.games.presenter.painter, frames)
        return Reply(
            title=str(t("Daily Hillbert {day}: par", day=hill.isoformat())),
            text=str(
                t(
                    "The par run, as a careful player plays this hill: {result}.",
                    result=result_text(end.scores()[0], len(moves)),
                )
            ),
            image=gif,
            image_name="par.gif",
        )

    async def _winning_run(self, hill: date, guild: int | None) -> Reply:
        key = hill.isoformat()
        await self.settle()
        top = await self.daily.day_board(key, guild, 1)
        if not top:
            raise ServiceError(
                t("Nobody in this server finished a run on {day}.", day=key)
                if guild is not None
                else t("Nobody finished a run on {day}.", day=key)
            )
        winner = top[0]
        run = await self.daily.run_for(winner.user_id, key)
        found = await self.games.repository.game_with_moves(run.game_id) if run else None
        if found is None:
            raise ServiceError(t("The winning run of {day} is no longer stored.", day=key))
        record, moves = found
        start = start_state(GAME, record)
        name = shown_name(winner.name)
        frames = frames_of(start, [(m.seat, m.text) for m in moves], (name,))
        gif = await animate(self.games.presenter.painter, frames)
        where = t("this server") if guild is not None else t("everyone")
        return Reply(
            title=str(t("Daily Hillbert {day}: the winning run", day=key)),
            text=str(
                t(
                    "{name}'s run, first of {where}: {result}.",
                    name=name,
                    where=where,
                    result=result_text(winner.score, winner.turns),
                )
            ),
            image=gif,
            image_name="winning-run.gif",
        )
