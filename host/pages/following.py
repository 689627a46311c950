"""Following the change feed for pages about something other than one game (a player's
games waiting for them, a tournament): which of them a changed game concerns."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable

#: The keys a game concerns, if remembered (None: not known yet).
Known = Callable[[int], Iterable[int] | None]
#: The keys of these games, read (and remembered) together.
LookUp = Callable[[list[int]], Awaitable[Iterable[int]]]


class FeedFollower:
    """One subscriber's listener on the change feed: the keys of a changed game that is
    remembered are told at once; the games not known yet are read together, in the
    background, and their keys told once read. `None` (changes may have been missed) is
    passed on as it is."""

    def __init__(
        self, known: Known, look_up: LookUp, listener: Callable[[int | None], None]
    ) -> None:
        self.known = known
        self.look_up = look_up
        self.listener = listener
        self._unknown: dict[int, None] = {}
        self._task: asyncio.Task[None] | None = None

    def heard(self, game_id: int | None) -> None:
        if game_id is None:
            self.listener(None)
            return
        keys = self.known(game_id)
        if keys is not None:
            for key in keys:
                self.listener(key)
            return
        self._unknown[game_id] = None
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            while self._unknown:
                wanted, self._unknown = list(self._unknown), {}
                try:
                    found = await self.look_up(wanted)
                except Exception:
                    # Unread, their pages may be out of date: they read again.
                    self.listener(None)
                    continue
                for key in dict.fromkeys(found):
                    self.listener(key)
        finally:
            self._task = None

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
