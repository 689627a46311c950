"""Addresses of the web pages, for the posts that link to them."""

from __future__ import annotations

from data.repository import GameRecord
from host.settings import SettingsStore


class WebLinks:
    """Links to a game's or a server's pages, given only where the server has opened its
    pages and the deployment says where they are served (`base`, e.g.
    `https://hilltop.example`)."""

    def __init__(self, settings: SettingsStore, base: str | None) -> None:
        self.settings = settings
        self.base = (base or "").rstrip("/")

    async def game(self, record: GameRecord) -> str:
        """The page of a game everyone in its server may see ("": none)."""
        if not self.base or record.kind != "channel" or record.guild_id is None:
            return ""
        if (await self.settings.server(record.guild_id)).web == "off":
            return ""
        return f"{self.base}/g/{record.id}"

    async def server(self, guild_id: int | None) -> str:
        """A server's front page ("": none)."""
        if not self.base or guild_id is None:
            return ""
        if (await self.settings.server(guild_id)).web == "off":
            return ""
        return f"{self.base}/s/{guild_id}"
