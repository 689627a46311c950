"""Open event streams of live pages, each watching one thing by its id (a game, or a
tournament), woken when it changes in any process: each change is read and laid out once
per language, however many pages watch it."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

#: A stream's queue is told the game's generation; `CLOSING` ends the stream.
CLOSING = -1

Render = Callable[[int, str], Awaitable[Any]]


class Hub:
    def __init__(self) -> None:
        self._streams: defaultdict[int, set[asyncio.Queue[int]]] = defaultdict(set)
        #: How many changes each watched game has had, as this process was told them.
        self._generations: defaultdict[int, int] = defaultdict(int)
        #: The latest layout of each game, per language, shared by its streams.
        self._layouts: dict[tuple[int, str], tuple[int, asyncio.Future[Any]]] = {}
        self.closed = False

    @property
    def streams(self) -> int:
        return sum(len(queues) for queues in self._streams.values())

    def changed(self, game_id: int | None) -> None:
        """A game changed (None: any may have): wake the streams that watch it."""
        ids = list(self._streams) if game_id is None else [game_id]
        for watched in ids:
            queues = self._streams.get(watched)
            if not queues:
                continue
            self._generations[watched] += 1
            for queue in queues:
                queue.put_nowait(self._generations[watched])

    def join(self, game_id: int) -> asyncio.Queue[int]:
        queue: asyncio.Queue[int] = asyncio.Queue()
        if self.closed:
            queue.put_nowait(CLOSING)
        self._streams[game_id].add(queue)
        return queue

    def leave(self, game_id: int, queue: asyncio.Queue[int]) -> None:
        queues = self._streams.get(game_id)
        if queues is None:
            return
        queues.discard(queue)
        if not queues:
            del self._streams[game_id]
            self._generations.pop(game_id, None)
            for key in [k for k in self._layouts if k[0] == game_id]:
                del self._layouts[key]

    async def layout(self, game_id: int, language: str, render: Render) -> Any:
        """The game laid out in `language` as of its latest change: made by the first
        stream that asks, awaited by the others."""
        generation = self._generations[game_id]
        key = (game_id, language)
        kept = self._layouts.get(key)
        if kept is None or kept[0] != generation:
            future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._layouts[key] = (generation, future)
            try:
                future.set_result(await render(game_id, language))
            except BaseException as exc:
                future.set_exception(exc)
                future.exception()  # told to the one that made it; no warning later
                del self._layouts[key]
                raise
            return future.result()
        return await asyncio.shield(kept[1])

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        self.closed = True
        for queues in self._streams.values():
            for queue in queues:
                queue.put_nowait(CLOSING)
