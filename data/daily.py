"""The daily challenge's storage interface: runs, leaderboards, streak data and par, and
the records they are read as. Both backends implement `DailyRepository`
(`data.sqlite.daily`, `data.postgresql.daily`)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Literal, Protocol

from data.repository import GameRecord, NewGame, UserRecord
from data.results import GameResult

Scope = Literal["server", "global"]


@dataclass(frozen=True, slots=True)
class DailyRun:
    user_id: int
    day: str
    week: str
    game_id: int
    started_at: float
    finished_at: float | None
    score: int | None
    turns: int | None
    sizes: str | None
    #: Scored as it stood when its hill closed, not played to its end.
    unfinished: bool
    #: Scored unfinished, and its player has not been told yet.
    untold: bool


@dataclass(frozen=True, slots=True)
class DailyRecord:
    """A player's daily runs in all, from their totals, and their last finished run."""

    runs: int
    total: int
    best: int
    unfinished: int
    last: DailyRun


@dataclass(frozen=True, slots=True)
class BoardRow:
    """One line of a leaderboard. For a day: `score` and `turns` of the run. For a week
    or all time: `score` is the total, `best` the best run, `runs` how many."""

    rank: int
    user_id: int
    name: str
    score: int
    turns: int
    best: int
    runs: int


@dataclass(frozen=True, slots=True)
class DaySpread:
    """The finished runs of one day: how many, the best score, and the median (the lower
    of the two middle ones)."""

    runs: int
    best: int
    median: int


class DailyRepository(Protocol):
    async def start_run(
        self, new: NewGame, user: UserRecord, day: str, week: str, now: float
    ) -> tuple[GameRecord, bool]: ...

    async def run_for(self, user_id: int, day: str) -> DailyRun | None: ...

    async def run_by_game(self, game_id: int) -> DailyRun | None: ...

    async def pending_runs(self, user_id: int) -> list[DailyRun]: ...

    async def open_runs_before(self, day: str) -> list[DailyRun]: ...

    async def finish_run(
        self,
        game_id: int,
        score: int,
        turns: int,
        sizes: str,
        now: float,
        *,
        unfinished: bool = False,
    ) -> bool: ...

    async def close_run(
        self,
        game_id: int,
        expected_ply: int,
        result: GameResult,
        score: int,
        turns: int,
        sizes: str,
        now: float,
    ) -> bool: ...

    async def take_untold(self, user_id: int) -> list[DailyRun]: ...

    async def note_member(self, guild_id: int, user: UserRecord) -> None: ...

    async def day_board(self, day: str, guild_id: int | None, limit: int) -> list[BoardRow]: ...

    async def day_rank(self, day: str, guild_id: int | None, user_id: int) -> BoardRow | None: ...

    async def day_spread(self, day: str) -> DaySpread | None:
        """How `day`'s finished runs went, everyone's (None: none finished yet): read from
        the day's index, never the runs themselves."""
        ...

    async def total_board(
        self, period: str, guild_id: int | None, limit: int
    ) -> list[BoardRow]: ...

    async def total_rank(
        self, period: str, guild_id: int | None, user_id: int
    ) -> BoardRow | None: ...

    async def record_of(self, user_id: int) -> DailyRecord | None:
        """A player's daily record from their totals, with their last finished run (None:
        no finished run yet)."""
        ...

    async def days_played(self, user_id: int, limit: int) -> list[str]:
        """The days of the player's `limit` latest finished runs, newest first."""
        ...

    async def get_par(self, day: str) -> tuple[int, int] | None: ...

    async def set_par(
        self, day: str, score: int, turns: int, now: float, moves: Sequence[str] = ()
    ) -> None:
        """Store a day's par, with its line of turns if given (the first store wins)."""
        ...

    async def par_line(self, day: str) -> tuple[str, ...] | None:
        """The turns of a day's par run (None: no par stored, or stored without them)."""
        ...

    async def keep_par_line(self, day: str, moves: Sequence[str]) -> None:
        """Store the turns of a par stored without them."""
        ...

    def exclusive(self, name: str) -> AbstractAsyncContextManager[bool]:
        """Whether this process is the one (of all sharing the database) doing the work
        that must happen once, `name`, for the block; False at once if another is."""
        ...
