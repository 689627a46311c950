"""Who is away now: read from the database, and kept a few seconds, since every board
and list of games asks about the players it shows. A process that changes someone's
away time forgets what it kept of them at once; another process sees it within
`KEPT_SECONDS`. The clock, which stops deadlines, always reads afresh."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from data.away import AwayRecord, AwayRepository

#: How long a player's away time is kept in memory before it is read again.
KEPT_SECONDS = 5.0
#: Players kept at most.
KEPT_MOST = 20_000


@dataclass(frozen=True, slots=True)
class Away:
    """A player away: since when and until when."""

    since: float
    until: float


class Absences:
    def __init__(self, repository: AwayRepository, clock: Callable[[], float]) -> None:
        self.repository = repository
        self.clock = clock
        #: Per player: when it was read, and their time away then (None: not away).
        self._kept: dict[int, tuple[float, Away | None]] = {}

    async def of(self, user_ids: Iterable[int], *, fresh: bool = False) -> dict[int, Away]:
        """Those of `user_ids` away now, with since and until when."""
        now = self.clock()
        wanted = set(user_ids)
        missing = [
            u
            for u in wanted
            if fresh or u not in self._kept or self._kept[u][0] + KEPT_SECONDS < now
        ]
        if missing:
            found = await self.repository.many(missing)
            if len(self._kept) > KEPT_MOST:
                self._kept.clear()
            for user_id in missing:
                record = found.get(user_id)
                self._kept[user_id] = (now, _away(record))
        away = {u: self._kept[u][1] for u in wanted}
        return {u: a for u, a in away.items() if a is not None and a.since <= now < a.until}

    def forget(self, user_id: int) -> None:
        self._kept.pop(user_id, None)


def _away(record: AwayRecord | None) -> Away | None:
    if record is None or record.away_from is None or record.away_until is None:
        return None
    return Away(record.away_from, record.away_until)
