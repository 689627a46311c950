"""A signed-in player's own page, `/me`: the games waiting for them, which follows their
games live.

The page's list is sent down its event stream whenever one of the player's games changes,
in any process: `WebPages.subscribe_turns` tells each change of a game as a change of each
of its players (a new game included), and `hub` wakes the streams of those players' open
pages. The page's title counts the games, and is sent with the list."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from host.face import SignInNeededError, TurnsView, Visitor, WebPages, speaking, t
from web.hub import Hub
from web.paths import root_of
from web.streams import Laid, follow, sse
from web.tournaments import TournamentSite


class Turns:
    def __init__(
        self, site: TournamentSite, visitor: Callable[[web.Request], Awaitable[Visitor]]
    ) -> None:
        """The pages over `site`; `visitor` finds who asks (again, for an open stream)."""
        self.site = site
        self.pages: WebPages = site.pages
        self.visitor = visitor
        #: The open pages' streams, by player.
        self.hub = Hub()

    async def page(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """`/me`: the games waiting for the reader."""
        view = await self.pages.your_turn(visitor)
        event = self.live_event(view, root_of(request))
        return self.site.render(
            request, visitor, "me.html", view=view, live=event["html"], event=event
        )

    async def live(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """The changing part of the page, as its event stream sends it."""
        view = await self.pages.your_turn(visitor)
        response = web.json_response(self.live_event(view, root_of(request)))
        response.headers["Cache-Control"] = "private, no-store"
        return response

    async def stream(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """Server-Sent Events: the list each time one of the reader's games changes; the
        stream ends once the reader has signed out."""
        root = root_of(request)

        async def first() -> Laid:
            return self.laid(await self.pages.your_turn(visitor), root)

        async def still_signed_in(_: int) -> None:
            if (await self.visitor(request)).user_id != visitor.user_id:
                raise SignInNeededError(t("Sign in with Discord to see the games waiting for you."))

        async def layout(_: int, chosen: str) -> Laid:
            with speaking(chosen.partition("|")[0]):
                return self.laid(await self.pages.your_turn(visitor), root)

        return await follow(
            request,
            self.hub,
            visitor.user_id or 0,
            first,
            layout,
            f"{visitor.language}|{root}",
            still_signed_in,
        )

    def live_event(self, view: TurnsView, root: str) -> dict[str, Any]:
        html = self.site.env.get_template("_turns.html").render(
            view=view, config=self.site.config, root=root
        )
        count = len(view.lines)
        heading = str(t("Your turn"))
        key = hashlib.sha256(html.encode()).hexdigest()[:16]
        return {
            "key": key,
            "count": count,
            "title": f"({count}) {heading} · Hilltop" if count else f"{heading} · Hilltop",
            "html": html,
        }

    def laid(self, view: TurnsView, root: str) -> Laid:
        event = self.live_event(view, root)
        return Laid(0, event["key"], sse("turns", event["key"], event))
