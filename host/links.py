"""Addresses of the web pages, for the posts that link to them."""

from __future__ import annotations

from collections.abc import Collection

from data.repository import GameRecord
from host.settings import SettingsStore


class WebLinks:
    """Links to a game's or a server's pages, given only where the server has opened its
    pages and the deployment says where they are served (`base`, e.g.
    `https://hilltop.example`)."""

    def __init__(
        self, settings: SettingsStore, base: str | None, always_open: Collection[int] = ()
    ) -> None:
        self.settings = settings
        self.base = (base or "").rstrip("/")
        #: Servers whose pages are open whatever their settings (the console's own).
        self.always_open = frozenset(always_open)

    def serve_at(self, base: str, always_open: Collection[int]) -> None:
        """The pages are served at `base` from now on (a process that serves them itself
        learns its address once it listens), with `always_open`'s pages open to all."""
        self.base = base.rstrip("/")
        self.always_open = frozenset(always_open)

    async def is_open(self, guild_id: int) -> bool:
        """Whether a server's pages may be linked: open by its settings, or always."""
        if guild_id in self.always_open:
            return True
        return (await self.settings.server(guild_id)).web != "off"

    async def game(self, record: GameRecord) -> str:
        """The page of a game everyone in its server may see ("": none)."""
        if not self.base or record.kind != "channel" or record.guild_id is None:
            return ""
        if not await self.is_open(record.guild_id):
            return ""
        return f"{self.base}/g/{record.id}"

    async def server(self, guild_id: int | None) -> str:
        """A server's front page ("": none)."""
        if not self.base or guild_id is None or not await self.is_open(guild_id):
            return ""
        return f"{self.base}/s/{guild_id}"
