"""A player's daily run still open: the one `/daily move:` plays and suggests moves of,
and the one `/move` and `/moves` act on in a channel with no game of its own (the run's
board is shown privately in whatever channel `/daily` was used in)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from data.daily import DailyRepository
from host.daily.calendar import closes_at
from host.model import User
from host.play.live import OwnGame


async def open_game(daily: DailyRepository, clock: Callable[[], float], user: User) -> int | None:
    """The game of `user`'s oldest run still open (yesterday's while it is, else today's);
    None when they have none."""
    now = clock()
    for run in await daily.pending_runs(user.id):
        if run.finished_at is None and now < closes_at(date.fromisoformat(run.day)):
            return run.game_id
    return None


def own_games(daily: DailyRepository, clock: Callable[[], float]) -> OwnGame:
    """`open_game` of `daily`'s runs, for `LiveGames.own_game`."""

    async def own(user: User) -> int | None:
        return await open_game(daily, clock, user)

    return own
