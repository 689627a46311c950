"""Where computer players think: in worker processes, so that a search never holds up the
event loop, and with it every other game, for the second it may take.

Computer opponents' decisions and hints are queued apart, each in workers of their own: a
hint is background work a person asks for, and however many are asked for, no computer
opponent waits behind them for its turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable
from concurrent.futures import Executor
from typing import Any, Protocol

from engine import ai
from engine.core import GameState
from host.workers import worker_pool

#: A search: the move a seat makes at a level, from a state.
Search = Callable[[GameState[Any], int, str], Hashable]

#: Makes an executor of so many workers (the pools start on first use).
Pool = Callable[[int], Executor]

#: The level a hint is searched at: the best the bot plays.
HINT_LEVEL = "hard"


class ComputerPlayers(Protocol):
    async def choose(self, state: GameState[Any], seat: int, level: str) -> Hashable: ...

    async def hint(self, state: GameState[Any], seat: int) -> Hashable: ...

    def close(self) -> None: ...


class ThreadedComputers:
    """Decisions in a worker thread of this process (tests and the console, where one
    game at a time is played)."""

    async def choose(self, state: GameState[Any], seat: int, level: str) -> Hashable:
        return await asyncio.to_thread(ai.choose_move, state, seat, level)

    async def hint(self, state: GameState[Any], seat: int) -> Hashable:
        return await asyncio.to_thread(ai.choose_move, state, seat, HINT_LEVEL)

    def close(self) -> None:
        return None


def background_pool(workers: int) -> Executor:
    # A search is background work: it must not slow the replies of other games.
    return worker_pool(workers, background=True)


class PooledComputers:
    """Decisions in a pool of worker processes, hints in a worker of their own. States
    and moves are small frozen values, so sending them costs little; each pool starts on
    first use."""

    def __init__(
        self,
        workers: int = 1,
        *,
        pool: Pool = background_pool,
        search: Search = ai.choose_move,
    ) -> None:
        self.workers = workers
        self._make_pool = pool
        #: Runs in the workers: a function of its module, so that a process can load it.
        self._search = search
        self._decisions: Executor | None = None
        self._hints: Executor | None = None

    async def choose(self, state: GameState[Any], seat: int, level: str) -> Hashable:
        if self._decisions is None:
            self._decisions = self._make_pool(self.workers)
        return await self._run(self._decisions, state, seat, level)

    async def hint(self, state: GameState[Any], seat: int) -> Hashable:
        if self._hints is None:
            self._hints = self._make_pool(1)
        return await self._run(self._hints, state, seat, HINT_LEVEL)

    async def _run(
        self, executor: Executor, state: GameState[Any], seat: int, level: str
    ) -> Hashable:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(executor, self._search, state, seat, level)

    def close(self) -> None:
        for executor in (self._decisions, self._hints):
            if executor is not None:
                executor.shutdown(wait=False, cancel_futures=True)
