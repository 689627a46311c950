"""The console front-end's memory: the buttons shown last in each channel, and the
channels' names. Both backends implement `ConsoleRepository` (`data.sqlite.console`,
`data.postgresql.console`).

A reply's buttons replace what its audience was shown there before, so a process killed
mid-write leaves the previous buttons, and several console processes on one database add
to each other's memory.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from data.repository import StorageError

#: A button as the console remembers it: (payload, label).
Button = tuple[str, str]


class ConsoleMemoryError(StorageError):
    """The console's memory cannot be read or written: damaged, or missing from the file."""


class ConsoleRepository(Protocol):
    async def remember(
        self, channel: str, owner: str | None, buttons: Sequence[Button]
    ) -> None: ...

    async def visible(self, channel: str, user: str) -> list[Button]: ...

    async def name_channel(self, channel_id: int, name: str) -> None: ...

    async def channel_names(self, ids: Collection[int]) -> dict[int, str]:
        """The names of the channels `ids` that have one."""
        ...
