"""The daily digests' schedule, for both backends: their statements differ only in their
placeholders.

A digest is sent once a day whatever the number of processes on the database: each finds
the digests due and claims one with a write that succeeds only while the row still holds
the time it read (`claim`); the one process whose write changed the row sends it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic

from data.queries import Params
from data.shared import D

#: Digests read from the due index at one tick at most; the rest wait for the next tick.
DUE_BATCH = 100
#: Ended games one digest lists at most.
ENDS_LISTED = 25


@dataclass(frozen=True, slots=True)
class DueDigest:
    user_id: int
    #: When it fell due, as read: the claim holds only while the row still says so.
    next_at: float
    #: The games that ended after this are told in it.
    ends_from: float


class Digests(Generic[D]):
    def __init__(self, db: D) -> None:
        self.db = db

    async def schedule(self, user_id: int, next_at: float, now: float) -> None:
        """The player's next digest is due at `next_at`; a player who had none yet is
        told of the games that end from `now` on."""
        p = Params(self.db.mark)
        values = f"{p(user_id)}, {p(next_at)}, {p(now)}"
        await self.db.write(
            f"INSERT INTO digests (user_id, next_at, ends_from) VALUES ({values})"
            " ON CONFLICT (user_id) DO UPDATE SET next_at = excluded.next_at",
            p.values,
        )

    async def stop(self, user_id: int) -> None:
        p = Params(self.db.mark)
        await self.db.write(f"DELETE FROM digests WHERE user_id = {p(user_id)}", p.values)

    async def due(self, now: float, limit: int = DUE_BATCH) -> list[DueDigest]:
        """The digests due at `now`, the longest due first."""
        p = Params(self.db.mark)
        rows = await self.db.fetch(
            "SELECT user_id, next_at, ends_from FROM digests"
            f" WHERE next_at <= {p(now)} ORDER BY next_at LIMIT {p(limit)}",
            p.values,
        )
        return [DueDigest(int(r[0]), float(r[1]), float(r[2])) for r in rows]

    async def claim(self, due: DueDigest, next_at: float, now: float) -> bool:
        """Take `due` to send it now, moving the row on to `next_at`: False if another
        process took it first (or the player changed it meanwhile)."""
        p = Params(self.db.mark)
        rows = await self.db.write(
            f"UPDATE digests SET next_at = {p(next_at)}, ends_from = {p(now)}"
            f" WHERE user_id = {p(due.user_id)} AND next_at = {p(due.next_at)} RETURNING 1",
            p.values,
        )
        return bool(rows)

    async def ended(self, user_id: int, after: float, until: float) -> list[int]:
        """The games of the player's own seats in channels that ended after `after` and
        by `until`, in the order they ended (`ENDS_LISTED` at most)."""
        p = Params(self.db.mark)
        rows = await self.db.fetch(
            "SELECT s.game_id, s.finished_at FROM seats s JOIN games g ON g.id = s.game_id"
            f" WHERE s.user_id = {p(user_id)} AND s.live = 0 AND s.finished_at > {p(after)}"
            f" AND s.finished_at <= {p(until)} AND g.kind = 'channel'"
            " AND g.status IN ('finished', 'aborted')"
            f" ORDER BY s.finished_at, s.game_id LIMIT {p(ENDS_LISTED * 4)}",
            p.values,
        )
        ids = list(dict.fromkeys(int(r[0]) for r in rows))
        return ids[:ENDS_LISTED]
