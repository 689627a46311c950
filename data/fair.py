"""Taking turns at what every channel shares.

The database's writer and the workers that draw boards are shared by every server the
bot serves. Waiting in one line, first come first served, a burst of one server (a
tournament round starting thirty games at once) would have every other server's moves
wait behind all of it. A `FairGate` keeps a line per party instead (the server a command
came from, set by the front-end with `serving`) and lets the parties in by turns: each
party's work in the order it came, the parties one after the other. Work of no party
(the clock's, a start-up's) is a party of its own.

A piece of work may need the whole gate (`whole`): the database's transactions, which no
single statement may come between, while single statements go several at a time.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Hashable, Iterator
from contextlib import asynccontextmanager, contextmanager
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
    the gate's time lately goes first (start-time fair queueing). Each party is charged
    what its work takes, learned from each piece as it leaves (a moving average): a
    party that comes with a burst of long work, even work never seen before, gets the
    gate's time in about equal share with the others waiting, never all of it first. The
    average pays for a piece held up by a pause of the whole process (a collection, the
    loop busy elsewhere) over the party's next pieces, a little on each, rather than all on
    the next one, which would have that one wait rounds; for the same reason a party that
    turns from short work to long is charged a little less than its time at first (at most
    `1 / COST_WEIGHT - 1` times the difference). Work that needs the whole gate waits at
    the head of the line until all who are inside have left, and nobody overtakes it
    meanwhile."""

    def __init__(self, room: int = 1) -> None:
        if room < 1:
            raise ValueError("a gate lets at least one in")
        self._room = room
        self._inside = 0
        #: The waiting, by party, in the order they came: the places each needs.
        self._lines: dict[Hashable, deque[tuple[int, asyncio.Future[float]]]] = {}
        #: The virtual time: the start of the work let in last.
        self._now = 0.0
        #: The latest any party's share ends: where the virtual time goes on from after
        #: the gate was idle, so that no party's past counts against it once all was done.
        self._latest = 0.0
        #: When each party's work let in so far will have had its share, in virtual time:
        #: guessed as it goes in, put right by the party's average as it leaves.
        self._finish: dict[Hashable, float] = {}
        #: How long each party's work of so many places holds the gate, as seen lately.
        self._cost: dict[tuple[Hashable, int], float] = {}
        #: Who holds the gate, by task: their party, since when, how many places, and the
        #: time they were charged for going in.
        self._holders: dict[asyncio.Task[object] | None, tuple[Hashable, float, int, float]] = {}

    @property
    def waiting(self) -> int:
        return sum(len(line) for line in self._lines.values())

    def _admit(self, party: Hashable, places: int) -> float:
        """Let the party's next work in: the time it is charged for it (a guess)."""
        if self._inside == 0 and not self._lines:
            self._now = max(self._now, self._latest)
        start = max(self._now, self._finish.get(party, 0.0))
        self._now = start
        guess = self._cost.get((party, places), FIRST_COST)
        self._finish[party] = start + guess
        self._latest = max(self._latest, start + guess)
        self._inside += places
        return guess

    async def acquire(self, *, whole: bool = False) -> None:
        """Wait for a place (for every place, if `whole`) and take it; `release` from the
        same task gives it back."""
        party = PARTY.get()
        places = self._room if whole else 1
        if self._inside + places <= self._room and not self._lines:
            guess = self._admit(party, places)
        else:
            turn: asyncio.Future[float] = asyncio.get_running_loop().create_future()
            self._lines.setdefault(party, deque()).append((places, turn))
            try:
                guess = await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    # Let in, then cancelled before it could go in: the places are passed
                    # on, and the party is not charged for them.
                    self._inside -= places
                    self._finish[party] -= turn.result()
                else:
                    self._leave_line(party, turn)
                # Who waited behind it (for the whole gate) may go in.
                self._let_in()
                raise
        self._holders[asyncio.current_task()] = (party, time.monotonic(), places, guess)

    @asynccontextmanager
    async def whole(self) -> AsyncIterator[None]:
        """The whole gate, for the block: nobody else is inside meanwhile."""
        await self.acquire(whole=True)
        try:
            yield
        finally:
            self.release()

    def release(self) -> None:
        if self._inside <= 0:
            raise RuntimeError("the gate was released more often than entered")
        held = self._holders.pop(asyncio.current_task(), None)
        if held is None:
            self._inside -= 1
        else:
            party, since, places, guess = held
            self._inside -= places
            spent = time.monotonic() - since
            # Charged the party's average with this piece in it, not the guess it went in
            # with: what a piece took beyond the average is paid over the party's next
            # pieces (see the class's docstring); the first piece of a party never seen
            # is charged what it took.
            seen = self._cost.get((party, places), spent)
            cost = self._cost[(party, places)] = seen + (spent - seen) * COST_WEIGHT
            finish = self._finish[party] = self._finish.get(party, self._now) + cost - guess
            self._latest = max(self._latest, finish)
        self._let_in()
        self._forget_idle()

    def _let_in(self) -> None:
        """Fill the free places, each with the next work of the party whose share of the
        gate's time is least had; work that needs more places than are free waits for
        them, and so does all behind it."""
        while self._lines:
            party = min(self._lines, key=lambda p: max(self._now, self._finish.get(p, 0.0)))
            line = self._lines[party]
            places, turn = line[0]
            if not turn.done() and self._inside + places > self._room:
                return
            line.popleft()
            if not line:
                del self._lines[party]
            if not turn.done():
                turn.set_result(self._admit(party, places))

    def _forget_idle(self) -> None:
        """Parties whose share is all had and who wait for nothing are forgotten, so that
        what the gate keeps does not grow with every server it ever served."""
        if len(self._finish) <= len(self._lines) + self._room + KEPT_PARTIES:
            return
        inside = {held[0] for held in self._holders.values()}
        for party in [p for p, end in self._finish.items() if end <= self._now]:
            if party not in self._lines and party not in inside:
                del self._finish[party]
                for places in {1, self._room}:
                    self._cost.pop((party, places), None)

    def _leave_line(self, party: Hashable, turn: asyncio.Future[float]) -> None:
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
