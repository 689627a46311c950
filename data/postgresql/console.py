"""The console front-end's memory on PostgreSQL: the buttons shown last in each channel,
and the channels' names, shared by every console process on the database.

A reply's buttons replace what its audience was shown there before in one transaction,
numbered after every earlier showing under a lock, so that the newest buttons are told
apart even when two processes show some at the same moment. A memory that cannot be read
or written (a damaged row, a missing table) is a `ConsoleMemoryError`, as on SQLite; a
server that cannot be reached stays a `DatabaseUnavailableError`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager

import asyncpg

from data.console import Button, ConsoleMemoryError
from data.postgresql.db import PgDatabase, unavailable_as_error
from data.rows import dump_buttons
from data.shared import SharedConsoleRepository

#: The advisory lock under which a showing takes its number.
_SHOWN_LOCK = "hilltop:console_buttons"


@contextmanager
def _memory_errors() -> Iterator[None]:
    """The server's refusals (a missing table, a damaged value) as ConsoleMemoryError;
    an unreachable server is already DatabaseUnavailableError and passes through."""
    try:
        with unavailable_as_error():
            yield
    except asyncpg.PostgresError as exc:
        raise ConsoleMemoryError(str(exc)) from exc


class PgConsoleRepository(SharedConsoleRepository[PgDatabase]):
    def _memory_errors(self) -> AbstractContextManager[None]:
        return _memory_errors()

    async def remember(self, channel: str, owner: str | None, buttons: Sequence[Button]) -> None:
        """The buttons of a reply in `channel`, shown to everyone (`owner` None) or to one
        user; they replace what that audience was shown there before."""
        with _memory_errors():
            async with self.db.transaction() as conn:
                # Held until commit: the next showing, in any process, numbers itself
                # after this one.
                await conn.execute(
                    "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", _SHOWN_LOCK
                )
                await conn.execute(
                    "INSERT INTO console_buttons (channel, owner, shown, buttons) VALUES"
                    " ($1, $2, (SELECT COALESCE(MAX(shown), 0) + 1 FROM console_buttons), $3)"
                    " ON CONFLICT (channel, owner) DO UPDATE SET"
                    " shown = excluded.shown, buttons = excluded.buttons",
                    channel,
                    owner or "",
                    dump_buttons(buttons),
                )

    async def channel_names(self, ids: Collection[int]) -> dict[int, str]:
        with _memory_errors():
            rows = await self.db.fetch(
                "SELECT channel_id, name FROM console_channels"
                " WHERE channel_id = ANY($1::bigint[])",
                (sorted(set(ids)),),
            )
        return {int(row[0]): str(row[1]) for row in rows}
