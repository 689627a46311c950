"""The console front-end's memory on SQLite: the buttons shown last in each channel, and
the channels' names.

Each write is one statement, so a process killed mid-write leaves the previous buttons,
and several console processes on one database add to each other's memory.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence

from data.console import Button, ConsoleMemoryError
from data.rows import dump_buttons, parse_buttons
from data.sqlite.db import Database


class SqliteConsoleRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def remember(self, channel: str, owner: str | None, buttons: Sequence[Button]) -> None:
        """The buttons of a reply in `channel`, shown to everyone (`owner` None) or to one
        user; they replace what that audience was shown there before."""
        try:
            await self.db.write(
                "INSERT INTO console_buttons (channel, owner, shown, buttons) VALUES"
                " (?, ?, (SELECT COALESCE(MAX(shown), 0) + 1 FROM console_buttons), ?)"
                " ON CONFLICT (channel, owner) DO UPDATE SET"
                " shown = excluded.shown, buttons = excluded.buttons",
                (channel, owner or "", dump_buttons(buttons)),
            )
        except sqlite3.DatabaseError as exc:
            raise ConsoleMemoryError(str(exc)) from exc

    async def visible(self, channel: str, user: str) -> list[Button]:
        """The newest buttons `user` sees in `channel`: everyone's or their own."""
        try:
            rows = await self.db.fetch(
                "SELECT buttons FROM console_buttons WHERE channel = ? AND owner IN ('', ?)"
                " ORDER BY shown DESC LIMIT 1",
                (channel, user),
            )
            return parse_buttons(json.loads(rows[0][0])) if rows else []
        except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
            raise ConsoleMemoryError(str(exc)) from exc

    async def name_channel(self, channel_id: int, name: str) -> None:
        try:
            await self.db.write(
                "INSERT INTO console_channels (channel_id, name) VALUES (?, ?)"
                " ON CONFLICT (channel_id) DO UPDATE SET name = excluded.name",
                (channel_id, name),
            )
        except sqlite3.DatabaseError as exc:
            raise ConsoleMemoryError(str(exc)) from exc

    async def channel_names(self, ids: Collection[int]) -> dict[int, str]:
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        marks = ",".join("?" * len(wanted))
        try:
            rows = await self.db.fetch(
                f"SELECT channel_id, name FROM console_channels WHERE channel_id IN ({marks})",
                wanted,
            )
        except sqlite3.DatabaseError as exc:
            raise ConsoleMemoryError(str(exc)) from exc
        return {int(row[0]): str(row[1]) for row in rows}
