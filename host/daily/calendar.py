"""The daily challenge's calendar: UTC days, when a day's runs close, ISO weeks for the
weekly leaderboard, and streaks of days played."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from data.daily import DailyRepository

#: How long after the end of its day a run may still be finished.
GRACE = timedelta(hours=1)


def utc_day(moment: float) -> date:
    return datetime.fromtimestamp(moment, UTC).date()


def iso_week(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def _midnight_after(day: date) -> float:
    tomorrow = day + timedelta(days=1)
    return datetime(tomorrow.year, tomorrow.month, tomorrow.day, tzinfo=UTC).timestamp()


def next_rollover(moment: float) -> int:
    """Unix time of the next 00:00 UTC."""
    return int(_midnight_after(utc_day(moment)))


def closes_at(day: date) -> float:
    """When the runs of `day` close: 01:00 UTC the day after."""
    return _midnight_after(day) + GRACE.total_seconds()


def first_open_day(moment: float) -> date:
    """The earliest day whose runs can still be played at `moment`."""
    return utc_day(moment - GRACE.total_seconds())


def streak_of(days: list[str], today: date) -> int:
    """Consecutive days played up to today (or up to yesterday, if not yet today)."""
    played = {date.fromisoformat(d) for d in days}
    day = today if today in played else today - timedelta(days=1)
    count = 0
    while day in played:
        count += 1
        day -= timedelta(days=1)
    return count


async def streak_now(daily: DailyRepository, user_id: int, today: date) -> int:
    """Days played in a row up to today (or yesterday, if not yet today): the latest days
    played are read back to the first day missed, a few more at a time, never all."""
    wanted = 16
    while True:
        days = await daily.days_played(user_id, wanted)
        streak = streak_of(days, today)
        if streak < len(days) or len(days) < wanted:
            return streak
        wanted *= 4
