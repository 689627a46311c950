"""The console front-end's memory on SQLite: the buttons shown last in each channel, and
the channels' names.

Each write is one statement, so a process killed mid-write leaves the previous buttons,
and several console processes on one database add to each other's memory.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager

from data.console import Button, ConsoleMemoryError
from data.rows import dump_buttons
from data.shared import SharedConsoleRepository
from data.sqlite.db import Database


@contextmanager
def _memory_errors() -> Iterator[None]:
    """SQLite's refusals (a missing table, a damaged file) as ConsoleMemoryError."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise ConsoleMemoryError(str(exc)) from exc


class SqliteConsoleRepository(SharedConsoleRepository[Database]):
    def _memory_errors(self) -> AbstractContextManager[None]:
        return _memory_errors()

    async def remember(self, channel: str, owner: str | None, buttons: Sequence[Button]) -> None:
        """The buttons of a reply in `channel`, shown to everyone (`owner` None) or to one
        user; they replace what that audience was shown there before."""
        with _memory_errors():
            await self.db.write(
                "INSERT INTO console_buttons (channel, owner, shown, buttons) VALUES"
                " (?, ?, (SELECT COALESCE(MAX(shown), 0) + 1 FROM console_buttons), ?)"
                " ON CONFLICT (channel, owner) DO UPDATE SET"
                " shown = excluded.shown, buttons = excluded.buttons",
                (channel, owner or "", dump_buttons(buttons)),
            )

    async def channel_names(self, ids: Collection[int]) -> dict[int, str]:
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        marks = ",".join("?" * len(wanted))
        with _memory_errors():
            rows = await self.db.fetch(
                f"SELECT channel_id, name FROM console_channels WHERE channel_id IN ({marks})",
                wanted,
            )
        return {int(row[0]): str(row[1]) for row in rows}
