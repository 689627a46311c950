"""The console's memory: the buttons each channel was shown last, to press by number or
label, and the channels' names, to show replies under. Kept in the database, so that a
restarted console, or another on the same database, finds them; a memory that cannot be
read or written raises `ConsoleMemoryError`, and the console goes on without it."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from data.console import Button, ConsoleRepository


class ConsoleMemory:
    def __init__(self, repository: ConsoleRepository) -> None:
        self.repository = repository

    async def remember(self, channel: str, owner: str | None, buttons: Sequence[Button]) -> None:
        """The buttons of a reply in `channel`, replacing what its audience was shown there
        before: `owner` alone, for a private reply (None: everyone)."""
        await self.repository.remember(channel, owner, buttons)

    async def visible(self, channel: str, user: str) -> list[Button]:
        """The buttons `user` was shown last in `channel`: everyone's or their own,
        whichever came later."""
        return await self.repository.visible(channel, user)

    async def name_channel(self, channel_id: int, name: str) -> None:
        """Remember the name the channel `channel_id` goes by."""
        await self.repository.name_channel(channel_id, name)

    async def channel_names(self, ids: Collection[int]) -> dict[int, str]:
        """The names of the channels `ids` that have one."""
        return await self.repository.channel_names(ids)
