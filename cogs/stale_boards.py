"""Taking the controls off boards the game has left behind.

Every move posts a new board, and the one before it keeps buttons that no longer do
anything. Pressing one is refused (and greys that message out), but a channel full of
live-looking buttons misleads. So the bot remembers each game's latest message with
controls, and when a newer one is posted it removes the older one's buttons with an edit.

Those edits never slow a move down: the reply is sent first, and the edits are made in
the background at a bounded rate (`PER_SECOND`), the newest first. When moves come faster
than that, the oldest pending edits are given up (`MAX_PENDING`): those boards keep their
buttons, which still refuse politely and grey out when pressed. The memory of the latest
messages is a cache: after a restart, boards posted before it are left as they are.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

log = logging.getLogger("hilltop.discord")

#: Edits per second at most, across all channels: a small share of Discord's global
#: limit of 50 requests a second, so replies never queue behind them.
PER_SECOND = 4.0
#: Edits waiting at most; beyond it the oldest are given up.
MAX_PENDING = 256
#: Games whose latest message is remembered.
MAX_GAMES = 20_000


@dataclass(frozen=True, slots=True)
class Posted:
    channel_id: int
    message_id: int


#: Removes the controls of one message (an HTTP edit); raises on failure.
Retire = Callable[[Posted], Awaitable[None]]


class StaleBoards:
    def __init__(
        self,
        retire: Retire,
        *,
        per_second: float = PER_SECOND,
        max_pending: int = MAX_PENDING,
    ) -> None:
        self._retire = retire
        self._interval = 1.0 / per_second
        self._latest: OrderedDict[int, Posted] = OrderedDict()
        #: The game of each message in `_latest`.
        self._game_of: dict[int, int] = {}
        #: Each game's newest message, with or without controls (for links to it).
        self._newest: OrderedDict[int, Posted] = OrderedDict()
        #: Games whose newest message is not saved yet.
        self._unsaved: set[int] = set()
        self._pending: deque[Posted] = deque(maxlen=max_pending)
        self._wake = asyncio.Event()
        #: Set while nothing is pending or being edited.
        self._idle = asyncio.Event()
        self._idle.set()
        self._worker: asyncio.Task[None] | None = None

        #: Messages whose controls were removed (for the logs and the tests).
        self.retired = 0
        self.given_up = 0

    def posted(self, game_id: int, where: Posted, *, has_controls: bool) -> None:
        """A message about `game_id` was posted: the one before it is left behind."""
        self._newest.pop(game_id, None)
        self._newest[game_id] = where
        self._unsaved.add(game_id)
        while len(self._newest) > MAX_GAMES:
            self._unsaved.discard(self._newest.popitem(last=False)[0])
        previous = self._forget(game_id)
        if previous is not None and previous != where:
            self._queue(previous)
        if has_controls:
            self._latest[game_id] = where
            self._game_of[where.message_id] = game_id
            while len(self._latest) > MAX_GAMES:
                self._forget(next(iter(self._latest)))

    def edited(self, message_id: int) -> None:
        """A message was edited in answer to a press of its own: its controls are what
        that edit made them, so it needs no further edit."""
        game_id = self._game_of.get(message_id)
        if game_id is not None:
            self._forget(game_id)

    def _forget(self, game_id: int) -> Posted | None:
        posted = self._latest.pop(game_id, None)
        if posted is not None:
            self._game_of.pop(posted.message_id, None)
        return posted

    def latest(self, game_id: int) -> Posted | None:
        """The game's message whose controls are live, if known."""
        return self._latest.get(game_id)

    def take_unsaved(self) -> dict[int, Posted]:
        """Each game's newest message posted since the last call (to be saved)."""
        unsaved = {g: self._newest[g] for g in self._unsaved if g in self._newest}
        self._unsaved = set()
        return unsaved

    def newest(self, game_id: int) -> Posted | None:
        """The game's newest message posted by this process, if remembered."""
        return self._newest.get(game_id)

    def _queue(self, message: Posted) -> None:
        if len(self._pending) == self._pending.maxlen:
            self.given_up += 1
        self._pending.append(message)
        self._idle.clear()
        self._wake.set()
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._work(), name="hilltop-stale-boards")

    async def _work(self) -> None:
        loop = asyncio.get_running_loop()
        next_at = loop.time()
        while True:
            if not self._pending:
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            delay = next_at - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            message = self._pending.pop()  # the newest first: the one right above the board
            next_at = loop.time() + self._interval
            try:
                await self._retire(message)
            except Exception as exc:  # deleted, no access any more: leave it be
                log.debug("could not retire message %s: %s", message.message_id, exc)
            else:
                self.retired += 1

    async def drain(self) -> None:
        """Wait until no edit is pending (for tests and a clean shutdown)."""
        await self._idle.wait()

    def close(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
