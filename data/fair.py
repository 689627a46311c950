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
import time
from collections import deque
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import TracebackType

#: The party the running command works for (None: none, e.g. the clock's work).
PARTY: ContextVar[Hashable] = ContextVar("hilltop_party", default=None)
#: What a party's first piece of work is taken to cost, in seconds, until one is seen.
FIRST_COST = 0.002
#: How much each piece of work seen moves a party's cost towards its own.
COST_WEIGHT = 0.25
#: Parties remembered beyond those waiting or inside, before the idle are forgotten.
KEPT_PARTIES = 1000


@contextmanager
def serving(party: Hashable) -> Iterator[None]:
    """Work done inside (and in the tasks it starts) is `party`'s, for every gate."""
    token = PARTY.set(party)
    try:
        yield
    finally:
        PARTY.reset(token)


class FairGate:
    """Up to `room` holders at once (1: a lock). Waiters are let in fairly by time: each
    party's work in the order it came, and among the parties the one that has had least of
    the gate's time lately goes first (start-time fair queueing, each piece of work's cost
    guessed from how long that party's last ones held the gate). A party that comes with a
    burst of long work gets the gate's time in equal share with the others waiting, never
    all of it first."""

    def __init__(self, room: int = 1) -> None:
        if room < 1:
            raise ValueError("a gate lets at least one in")
        self._room = room
        self._inside = 0
        #: The waiting, by party: each with the virtual time its work may start at.
        self._lines: dict[Hashable, deque[tuple[float, asyncio.Future[None]]]] = {}
        #: The virtual time: the start of the work let in last.
        self._now = 0.0
        #: When each party's work queued so far will have had its share, in virtual time.
        self._finish: dict[Hashable, float] = {}
        #: How long each party's work holds the gate, as seen lately (seconds).
        self._cost: dict[Hashable, float] = {}
        #: Who holds the gate, by task: their party and since when.
        self._holders: dict[asyncio.Task[object] | None, tuple[Hashable, float]] = {}

    @property
    def waiting(self) -> int:
        return sum(len(line) for line in self._lines.values())

    def _tag(self, party: Hashable) -> float:
        """The virtual time the party's next piece of work starts at, noted as queued."""
        start = max(self._now, self._finish.get(party, 0.0))
        self._finish[party] = start + self._cost.get(party, FIRST_COST)
        return start

    async def acquire(self) -> None:
        party = PARTY.get()
        if self._inside < self._room and not self._lines:
            self._now = self._tag(party)
            self._enter(party)
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._lines.setdefault(party, deque()).append((self._tag(party), turn))
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
        self._holders[asyncio.current_task()] = (party, time.monotonic())

    def _enter(self, party: Hashable) -> None:
        self._inside += 1
        self._holders[asyncio.current_task()] = (party, time.monotonic())

    def release(self) -> None:
        if self._inside <= 0:
            raise RuntimeError("the gate was released more often than entered")
        self._inside -= 1
        held = self._holders.pop(asyncio.current_task(), None)
        if held is not None:
            party, since = held
            spent = time.monotonic() - since
            cost = self._cost.get(party, spent)
            self._cost[party] = cost + (spent - cost) * COST_WEIGHT
        self._let_in()
        self._forget_idle()

    def _let_in(self) -> None:
        """Fill the free places, each with the work of the earliest virtual start."""
        while self._inside < self._room and self._lines:
            party = min(self._lines, key=lambda p: self._lines[p][0][0])
            line = self._lines[party]
            start, turn = line.popleft()
            if not line:
                del self._lines[party]
            if not turn.done():
                self._now = max(self._now, start)
                self._inside += 1
                turn.set_result(None)

    def _forget_idle(self) -> None:
        """Parties whose share is all had and who wait for nothing are forgotten, so that
        what the gate keeps does not grow with every server it ever served."""
        if len(self._finish) <= len(self._lines) + self._room + KEPT_PARTIES:
            return
        for party in [p for p, end in self._finish.items() if end <= self._now]:
            if party not in self._lines:
                del self._finish[party]
                self._cost.pop(party, None)

    def _leave_line(self, party: Hashable, turn: asyncio.Future[None]) -> None:
        line = self._lines.get(party)
        if line is None:
            return
        for queued in line:
            if queued[1] is turn:
                line.remove(queued)
                break
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
