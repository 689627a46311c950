"""Away time's storage: each player's balance of away days and the time they are away.
One implementation for both backends (`AwayRepository`), each lending its transactions,
as `data.events` does. A start or an end of away time is one write guarded by the row as
it was read. (A game's clock stopped for away time is the games' own:
`GameRepository.pause_clock`.)"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from data.events import Db, Tx
from data.queries import SharedStatements
from data.repository import UserRecord


@dataclass(frozen=True, slots=True)
class AwayRecord:
    user_id: int
    #: Whole days left to take.
    balance: int
    #: The last month whose days were added (YYYY-MM).
    credited: str
    #: When the time away began and ends (None: not away).
    away_from: float | None
    away_until: float | None
    #: The days taken for it.
    days: int | None

    def away_at(self, now: float) -> bool:
        return (
            self.away_from is not None
            and self.away_until is not None
            and self.away_from <= now < self.away_until
        )


_COLUMNS = "user_id, balance, credited, away_from, away_until, days"


class AwayRepository(SharedStatements[Db, Tx]):
    async def get(self, user_id: int) -> AwayRecord | None:
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT {_COLUMNS} FROM away WHERE user_id = {p(user_id)}", p.values
        )
        return _record(rows[0]) if rows else None

    async def many(self, user_ids: Sequence[int]) -> dict[int, AwayRecord]:
        """The rows of those of `user_ids` who have one."""
        wanted = sorted(set(user_ids))
        if not wanted:
            return {}
        p = self._params()
        marks = ", ".join(p(u) for u in wanted)
        rows = await self.db.fetch(
            f"SELECT {_COLUMNS} FROM away WHERE user_id IN ({marks})", p.values
        )
        return {int(row[0]): _record(row) for row in rows}

    async def ending(self, now: float, limit: int = 100) -> list[int]:
        """Players whose time away has ended by `now` and who are not back yet."""
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT user_id FROM away WHERE away_until IS NOT NULL AND away_until <= {p(now)}"
            f" ORDER BY away_until LIMIT {p(limit)}",
            p.values,
        )
        return [int(row[0]) for row in rows]

    async def save(self, before: AwayRecord | None, after: AwayRecord, user: UserRecord) -> bool:
        """Write `after` in place of `before` (None: no row yet); False, with nothing
        written, if the row changed meanwhile (a second /away or /back at once)."""
        async with self._transaction() as tx:
            await tx.upsert_user(user)
            values = (after.balance, after.credited, after.away_from, after.away_until, after.days)
            p = self._params()
            if before is None:
                rows = await tx.rows(
                    f"INSERT INTO away ({_COLUMNS}) VALUES ({p(after.user_id)},"
                    f" {', '.join(p(v) for v in values)}) ON CONFLICT (user_id) DO NOTHING"
                    " RETURNING user_id",
                    p.values,
                )
                return bool(rows)
            sets = ", ".join(
                f"{name} = {p(value)}"
                for name, value in zip(
                    ("balance", "credited", "away_from", "away_until", "days"), values, strict=True
                )
            )
            mine = f"user_id = {p(after.user_id)}"
            same = " AND ".join(
                f"{name} IS NOT DISTINCT FROM {p(value)}"
                for name, value in (
                    ("balance", before.balance),
                    ("away_from", before.away_from),
                    ("away_until", before.away_until),
                )
            )
            rows = await tx.rows(
                f"UPDATE away SET {sets} WHERE {mine} AND {same} RETURNING user_id",
                p.values,
            )
            return bool(rows)


def _record(row: Sequence[Any]) -> AwayRecord:
    return AwayRecord(
        int(row[0]),
        int(row[1]),
        str(row[2]),
        None if row[3] is None else float(row[3]),
        None if row[4] is None else float(row[4]),
        None if row[5] is None else int(row[5]),
    )
