"""Who may see which page: a server's pages exist once an admin opens them, to anyone or to
its members signed in with Discord; a game is seen only through its own server's pages,
and only as everyone in that server may see it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from data.repository import GameRecord
from engine.text import t
from host.model import Channel
from host.pages.views import MEMBERS, PageNotFoundError, ServerInfo, SignInNeededError, Visitor
from host.play.live import LiveGames, Loaded
from host.settings import SettingsStore

#: Whether the bot was removed from a server: its pages are gone with it.
Gone = Callable[[int], Awaitable[bool]]


def not_found() -> PageNotFoundError:
    return PageNotFoundError(t("There is no such page."))


class Access:
    def __init__(
        self,
        live: LiveGames,
        settings: SettingsStore,
        always_open: dict[int, str] | None = None,
        *,
        gone: Gone | None = None,
    ) -> None:
        self.live = live
        #: Whether the bot was removed from a server (None: no server is ever gone).
        self.gone = gone
        self.settings = settings
        #: Servers whose pages are open to anyone whatever their settings say, by name
        #: (the console's own games, for whoever runs it).
        self.always_open = always_open or {}

    async def server(self, guild_id: int, visitor: Visitor) -> ServerInfo:
        """The server, if `visitor` may see its pages (PageNotFoundError: unknown, closed,
        or members only and `visitor` is not one; SignInNeededError: not signed in)."""
        if guild_id in self.always_open:
            return ServerInfo(guild_id, self.always_open[guild_id], "public")
        if self.gone is not None and await self.gone(guild_id):
            raise not_found()
        settings = await self.settings.server(guild_id)
        if settings.web == "off":
            raise not_found()
        if settings.web == MEMBERS:
            if not visitor.signed_in:
                raise SignInNeededError(
                    t("This server shows its games to its members: sign in with Discord.")
                )
            if guild_id not in visitor.guild_ids:
                raise not_found()
        return ServerInfo(guild_id, settings.name or str(guild_id), settings.web)

    async def game(self, game_id: int, visitor: Visitor) -> tuple[ServerInfo, GameRecord]:
        """A game of a server whose pages `visitor` may see, read afresh (another process
        may have moved it): never a daily run, a direct-message game or a game that does
        not exist, all of which look alike."""
        record = await self.live.repository.get_game(game_id)
        if record is None or record.kind != "channel" or record.guild_id is None:
            raise not_found()
        return await self.server(record.guild_id, visitor), record

    async def loaded(self, record: GameRecord) -> Loaded:
        """The game as `record` has it, from memory when it is there as stored."""
        cached = self.live.cached(record.id)
        if cached is not None and cached.record == record:
            return cached  # no lock, no second read
        return await self.live.locked_load(record.id, fresh=True)


def where(server: ServerInfo) -> Channel:
    """The server as a place that commands are used in, for the parts of the service that
    answer a command (no channel)."""
    return Channel(0, server.guild_id, server.name)
