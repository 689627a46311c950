"""Par: what a careful player reaches on a daily hill under the rules every run ends by
(`engine.hillbert_par`), computed once a day in a worker process so it never slows the
event loop, and stored, so that every process (the console included) reads the same par.
It is shown to a player after their run, beside the spread of the day's runs."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import date

from data.daily import DailyRepository, DaySpread
from engine.hillbert import result_text, rows_text
from engine.hillbert_par import ParResult, par
from engine.text import Text, t, tn
from host.model import Reply
from host.workers import worker_pool

log = logging.getLogger(__name__)

#: How long a reply waits for a par search under way: long enough for one search (a few
#: seconds), so that a short-lived process (the console) that needs par computes and
#: stores it for every later process, rather than giving up and ending the search.
PAR_WAIT = 10.0

#: Seconds between looks for the par another process is searching.
PAR_POLL = 0.5

#: Searches par for a seed: its score, turns and the turns played.
ParRunner = Callable[[int], Awaitable[ParResult]]


class ProcessParRunner:
    """Runs the par search in a worker process, so it never slows the event loop."""

    def __init__(self, search: Callable[[int], ParResult] = par) -> None:
        self._search = search
        self._pool: ProcessPoolExecutor | None = None

    async def __call__(self, seed: int) -> ParResult:
        if self._pool is None:
            self._pool = worker_pool(1, background=True)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self._search, seed)

    def close(self) -> None:
        """Stop at once, even in the middle of a search."""
        if self._pool is None:
            return
        # A running search cannot be cancelled, and at exit the interpreter waits for the
        # pool's work: a short-lived process would sit out a search it then throws away.
        workers = list((self._pool._processes or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.terminate()
        self._pool = None


def spread_text(spread: DaySpread | None) -> Text:
    """The day's runs beside par: `The hill's runs so far: best 97 rows, median 70 rows
    (12 runs).`"""
    if spread is None:
        return t("Nobody has finished this hill yet.")
    return tn(
        "The hill's runs so far: best {best}, median {median} ({n} run).",
        "The hill's runs so far: best {best}, median {median} ({n} runs).",
        n=spread.runs,
        best=rows_text(spread.best),
        median=rows_text(spread.median),
    )


class DailyPar:
    """The par of each day: searched at most once per process, stored for all."""

    def __init__(
        self,
        daily: DailyRepository,
        runner: ParRunner,
        seed_for: Callable[[date], int],
        clock: Callable[[], float],
    ) -> None:
        self.daily = daily
        self.runner = runner
        self.seed_for = seed_for
        self.clock = clock
        self._tasks: dict[str, asyncio.Task[tuple[int, int]]] = {}

    def close(self) -> None:
        for task in self._tasks.values():
            task.cancel()
        closer = getattr(self.runner, "close", None)
        if closer is not None:
            closer()

    async def reply(self, day: str, score: int) -> Reply:
        try:
            par_score, par_turns = await asyncio.wait_for(
                asyncio.shield(self._par(date.fromisoformat(day))), timeout=PAR_WAIT
            )
        except Exception:
            task = self._tasks.get(day)
            if task is not None and task.done():
                # A failed search is dropped, so that the next call tries again.
                log.error("par for %s failed", day, exc_info=task.exception())
                del self._tasks[day]
            return Reply(
                text=str(
                    t("Par for this hill is not ready yet; ask again with /daily in a minute.")
                ),
                ephemeral=True,
            )
        verdict = (
            t("You beat par!")
            if score > par_score
            else t("You matched par.")
            if score == par_score
            else tn("{n} row short of par.", "{n} rows short of par.", n=par_score - score)
        )
        lines = [
            t(
                "Par: {result}, what a careful player reaches on this hill looking one turn "
                "ahead. {verdict}",
                result=result_text(par_score, par_turns),
                verdict=verdict,
            ),
            spread_text(await self.daily.day_spread(day)),
        ]
        return Reply(text="\n".join(str(line) for line in lines), ephemeral=True)

    def start(self, day: date) -> None:
        """Begin the day's par search early, so it is ready when the first run ends."""
        self._par(day)

    def _par(self, day: date) -> asyncio.Task[tuple[int, int]]:
        key = day.isoformat()
        task = self._tasks.get(key)
        if task is None:
            task = self._tasks[key] = asyncio.ensure_future(self._compute(day))
        return task

    async def _compute(self, day: date) -> tuple[int, int]:
        """Par of `day`: stored by any process before, else searched now and stored. Of
        all the processes sharing the database, one searches (the one that takes the
        day's lock); the others wait for its par, and take over if it dies."""
        key = day.isoformat()
        while True:
            cached = await self.daily.get_par(key)
            if cached is not None:
                return cached
            async with self.daily.exclusive(f"daily-par:{key}") as mine:
                if mine:
                    return await self._search(key, day)
            await asyncio.sleep(PAR_POLL)

    async def _search(self, key: str, day: date) -> tuple[int, int]:
        cached = await self.daily.get_par(key)  # stored while this process waited
        if cached is not None:
            return cached
        started = time.monotonic()
        found = await self.runner(self.seed_for(day))
        score, turns = found.score, found.turns
        await self.daily.set_par(key, score, turns, self.clock(), found.moves)
        log.info(
            "par for %s: %d rows in %d turns (%.1fs)", key, score, turns, time.monotonic() - started
        )
        stored = await self.daily.get_par(key)
        return stored or (score, turns)

    async def line(self, day: date) -> tuple[str, ...]:
        """The turns of `day`'s par run: stored with par, or (for a par stored without
        them) searched again in the worker and kept."""
        key = day.isoformat()
        task = self._par(day)
        try:
            await task
        except Exception:
            # A failed search is dropped, so that the next call tries again.
            if self._tasks.get(key) is task:
                del self._tasks[key]
            raise
        stored = await self.daily.par_line(key)
        if stored is not None:
            return stored
        found = await self.runner(self.seed_for(day))
        await self.daily.keep_par_line(key, found.moves)
        return await self.daily.par_line(key) or found.moves
