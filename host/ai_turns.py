"""Where computer players think: in worker processes, so that a search never holds up the
event loop, and with it every other game, for the second it may take."""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Protocol

from engine import ai
from engine.core import GameState
from host.workers import worker_pool


class ComputerPlayers(Protocol):
    async def choose(self, state: GameState[Any], seat: int, level: str) -> Hashable: ...

    def close(self) -> None: ...


class ThreadedComputers:
    """Decisions in a worker thread of this process (tests and the console, where one
    game at a time is played)."""

    async def choose(self, state: GameState[Any], seat: int, level: str) -> Hashable:
        return await asyncio.to_thread(ai.choose_move, state, seat, level)

    def close(self) -> None:
        return None


class PooledComputers:
    """Decisions in a pool of worker processes. States and moves are small frozen values,
    so sending them costs little; the pool starts on first use."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    async def choose(self, state: GameState[Any], seat: int, level: str) -> Hashable:
        if self._pool is None:
            # A search is background work: it must not slow the replies of other games.
            self._pool = worker_pool(self.workers, background=True)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, ai.choose_move, state, seat, level)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
