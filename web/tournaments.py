"""A tournament's page: its standings, crosstable and rounds, which follow its games live.

The page's changing part is sent down its event stream whenever one of the tournament's
games changes, in any process: `WebPages.subscribe_tournaments` tells each change of a
game as a change of its tournament (a new round's games included), and `hub` wakes the
streams of that tournament's open pages."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import jinja2
from aiohttp import web

from host.face import TournamentView, Visitor, WebPages, speaking
from web.config import WebConfig
from web.hub import Hub
from web.paths import page_id, root_of
from web.streams import Laid, follow, sse


class TournamentSite(Protocol):
    """What the tournament pages use of the site that serves them (`web.app.Site`)."""

    pages: WebPages
    config: WebConfig
    env: jinja2.Environment

    def render(
        self, request: web.Request, visitor: Visitor, name: str, status: int = 200, **values: Any
    ) -> web.Response: ...


class Tournaments:
    def __init__(self, site: TournamentSite) -> None:
        self.site = site
        self.pages = site.pages
        #: The open tournament pages' streams, by tournament.
        self.hub = Hub()

    async def page(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """`/s/<server>/t/<id>`: the tournament as it stands."""
        view = await self._view(request, visitor)
        root = root_of(request)
        html = self.live_html(view, root)
        return self.site.render(
            request,
            visitor,
            "tournament.html",
            view=view,
            server=view.server,
            live=html,
            key=_key(html),
        )

    async def live(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """The changing part of the tournament's page, as its event stream sends it."""
        view = await self._view(request, visitor)
        return web.json_response(self.live_event(view, root_of(request)))

    async def stream(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """Server-Sent Events: the changing part each time one of the games changes."""
        guild_id, event_id = page_id(request, "server"), page_id(request, "event")
        root = root_of(request)

        async def first() -> Laid:
            return self.laid(await self.pages.tournament(guild_id, event_id, visitor), root)

        return await follow(
            request,
            self.hub,
            event_id,
            first,
            self._layout_for(guild_id, visitor),
            f"{visitor.language}|{root}",
            lambda server: self.pages.server_info(server, visitor),
        )

    def live_html(self, view: TournamentView, root: str) -> str:
        """The part of the page that changes as the games are played."""
        return self.site.env.get_template("_tournament.html").render(
            view=view, server=view.server, config=self.site.config, root=root
        )

    def live_event(self, view: TournamentView, root: str) -> dict[str, Any]:
        html = self.live_html(view, root)
        return {
            "key": _key(html),
            "state": view.line.state,
            "status": view.line.status,
            "html": html,
        }

    def laid(self, view: TournamentView, root: str) -> Laid:
        event = self.live_event(view, root)
        return Laid(view.server.guild_id, event["key"], sse("tournament", event["key"], event))

    def _layout_for(self, guild_id: int, visitor: Visitor) -> Callable[[int, str], Awaitable[Laid]]:
        async def layout(event_id: int, chosen: str) -> Laid:
            language, _, root = chosen.partition("|")
            with speaking(language):
                view = await self.pages.tournament(guild_id, event_id, visitor)
                return self.laid(view, root)

        return layout

    async def _view(self, request: web.Request, visitor: Visitor) -> TournamentView:
        return await self.pages.tournament(
            page_id(request, "server"), page_id(request, "event"), visitor
        )


def _key(html: str) -> str:
    """What a page shows, named by its digest: a stream sends only what differs."""
    return hashlib.sha256(html.encode()).hexdigest()[:16]
