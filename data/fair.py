"""Taking turns at what every channel shares.

The database's writer and the workers that draw boards are shared by every server the
bot serves. Waiting in one line, first come first served, a burst of one server (a
tournament round starting thirty games at once) would have every other server's moves
wait behind all of it. A `FairGate` keeps a line per party instead (the server a command
came from, set by the front-end with `serving`) and lets the parties in by turns: each
party's work in the order it came, the parties one after the other. Work of no party
(the clock's, a start-up's) is a party of its own.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import TracebackType

#: The party the running command works for (None: none, e.g. the clock's work).
PARTY: ContextVar[Hashable] = ContextVar("hilltop_party", default=None)


@contextmanager
def serving(party: Hashable) -> Iterator[None]:
    """Work done inside (and in the tasks it starts) is `party`'s, for every gate."""
    token = PARTY.set(party)
    try:
        yield
    finally:
        PARTY.reset(token)


class FairGate:
    """Up to `room` holders at once (1: a lock); waiters let in by turns of party, each
    party's in the order they came."""

    def __init__(self, room: int = 1) -> None:
        if room < 1:
            raise ValueError("a gate lets at least one in")
        self._room = room
        self._inside = 0
        #: The waiting, by party, in the order the parties are next to be served.
        self._lines: OrderedDict[Hashable, deque[asyncio.Future[None]]] = OrderedDict()

    @property
    def waiting(self) -> int:
        return sum(len(line) for line in self._lines.values())

    async def acquire(self) -> None:
        if self._inside < self._room and not self._lines:
            self._inside += 1
            return
        party = PARTY.get()
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._lines.setdefault(party, deque()).append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                # Let in, then cancelled before it could go in: the place is passed on.
                self._inside -= 1
                self._let_in()
            else:
                self._leave_line(party, turn)
            raise

    def release(self) -> None:
        if self._inside <= 0:
            raise RuntimeError("the gate was released more often than entered")
        self._inside -= 1
        self._let_in()

    def _let_in(self) -> None:
        """Fill the free places: each from the party whose turn it is, which then goes to
        the back of the parties' order."""
        while self._inside < self._room and self._lines:
            party, line = next(iter(self._lines.items()))
            turn = line.popleft()
            if line:
                self._lines.move_to_end(party)
            else:
                del self._lines[party]
            if not turn.done():
                self._inside += 1
                turn.set_result(None)

    def _leave_line(self, party: Hashable, turn: asyncio.Future[None]) -> None:
        line = self._lines.get(party)
        if line is None:
            return
        try:
            line.remove(turn)
        except ValueError:
            return
        if not line:
            del self._lines[party]

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.release()
