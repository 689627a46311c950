"""The web pages, served by aiohttp: each handler asks the service for one page (which
checks who may see it) and lays it out with a template."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import jinja2
from aiohttp import web

from host.face import (
    DatabaseUnavailableError,
    GameView,
    PageNotFoundError,
    ServiceError,
    SignInNeededError,
    Visitor,
    WebPages,
    current_language,
    languages,
    speaking,
    t,
    tn,
)
from web import language
from web.auth import SignIn
from web.config import WebConfig
from web.hub import CLOSING, Hub
from web.markup import rich, time_tag, whole_dates

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
#: The largest id a game or a server can have (a signed 64-bit integer).
MAX_ID = 2**63 - 1
#: A comment sent down an idle event stream, so that proxies keep it open.
KEEPALIVE = 25.0
#: Pages made at once; the others wait their turn. The bot's own commands share the
#: process, and a crowd of readers must not hold up a move (event streams are not
#: counted: they wait, and cost nothing until their game moves).
PAGES_AT_ONCE = 4
#: Laid-out live parts of game pages kept, by game, move and language.
LIVE_KEPT = 512

PAGES: web.AppKey[WebPages] = web.AppKey("pages", WebPages)
CONFIG: web.AppKey[WebConfig] = web.AppKey("config", WebConfig)
HUB: web.AppKey[Hub] = web.AppKey("hub", Hub)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
PageHandler = Callable[[web.Request, Visitor], Awaitable[web.StreamResponse]]


def templates() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        # The templates are those the process started with: no look at the files per page.
        auto_reload=False,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(
        t=lambda template, **params: str(t(template, **params)),
        tn=lambda one, many, n, **params: str(tn(one, many, n=n, **params)),
        rich=rich,
        whole_dates=whole_dates,
        time_tag=time_tag,
    )
    return env


def _id(request: web.Request, name: str) -> int:
    text = request.match_info[name]
    if not text.isascii() or not text.isdigit() or int(text) > MAX_ID:
        raise PageNotFoundError(t("There is no such page."))
    return int(text)


class Site:
    def __init__(self, pages: WebPages, config: WebConfig) -> None:
        self.pages = pages
        self.config = config
        self.env = templates()
        self.sign_in = SignIn(config, pages)
        self.hub = Hub()
        self.at_once = asyncio.Semaphore(PAGES_AT_ONCE)
        self._live: dict[tuple[int, int, str, float, str], str] = {}

    # --- the frame of every page ------------------------------------------------------------
    async def visitor(self, request: web.Request) -> Visitor:
        chosen = language.chosen(request)
        return await self.pages.sessions.visitor(self.sign_in.token(request), chosen)

    def render(
        self, request: web.Request, visitor: Visitor, name: str, status: int = 200, **values: Any
    ) -> web.Response:
        with speaking(visitor.language):
            html = self.env.get_template(name).render(
                visitor=visitor,
                config=self.config,
                path=request.path_qs,
                here=request.path,
                languages=languages(),
                **values,
            )
        response = web.Response(text=html, content_type="text/html", status=status)
        response.headers["Content-Language"] = visitor.language
        response.headers["Cache-Control"] = "no-store" if visitor.signed_in else "no-cache"
        if "lang" in request.query:
            response.set_cookie(
                language.COOKIE, visitor.language, max_age=365 * 24 * 3600, samesite="Lax"
            )
        return response

    def page(self, handler: PageHandler, *, stream: bool = False) -> Handler:
        """`handler` with the visitor found, and refusals shown as pages: a page that is
        not there (or not for this visitor) is the same 404 whatever the reason. Pages are
        made `PAGES_AT_ONCE` at a time; an event `stream` is not counted."""

        async def serve(request: web.Request) -> web.StreamResponse:
            if stream:
                return await made(request)
            async with self.at_once:
                return await made(request)

        async def made(request: web.Request) -> web.StreamResponse:
            visitor = await self.visitor(request)
            try:
                with speaking(visitor.language):
                    return await handler(request, visitor)
            except SignInNeededError as exc:
                if self.config.sign_in and not visitor.signed_in:
                    raise web.HTTPFound(f"/login?next={request.path}") from None
                return self.render(request, visitor, "error.html", 403, message=str(exc.text))
            except PageNotFoundError:
                message = str(t("There is no such page."))
                return self.render(request, visitor, "error.html", 404, message=message)
            except DatabaseUnavailableError:
                message = str(t("The games cannot be read right now; try again in a moment."))
                return self.render(request, visitor, "error.html", 503, message=message)
            except ServiceError as exc:
                return self.render(request, visitor, "error.html", 400, message=str(exc.text))

        return serve

    # --- pages -----------------------------------------------------------------------------
    async def index(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        if self.config.console:
            raise web.HTTPFound("/s/1")
        return self.render(request, visitor, "index.html")

    async def server(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        view = await self.pages.server(_id(request, "server"), visitor)
        return self.render(request, visitor, "server.html", view=view, server=view.server)

    async def game(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        view = await self.pages.game(_id(request, "game"), visitor)
        return self.render(
            request,
            visitor,
            "game.html",
            view=view,
            server=view.server,
            live=self.live_html(view),
            board_alt=board_alt(view),
        )

    def live_html(self, view: GameView) -> str:
        """The part of a game's page that changes with each move (made once per move and
        language, however many read it)."""
        card = view.card
        key = (card.id, view.shown_ply, card.status, card.updated_at, current_language())
        html = self._live.get(key)
        if html is None:
            html = self.env.get_template("_live.html").render(view=view, config=self.config)
            if len(self._live) >= LIVE_KEPT:
                self._live.pop(next(iter(self._live)))
            self._live[key] = html
        return html

    async def board(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        _, picture = await self.pages.board(_id(request, "game"), visitor)
        return _picture(request, picture, "image/png")

    async def frame(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        picture = await self.pages.frame(_id(request, "game"), _id(request, "n"), visitor)
        return _picture(request, picture, "image/png")

    async def replay(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        view = await self.pages.replay(_id(request, "game"), visitor)
        return self.render(request, visitor, "replay.html", view=view, server=view.server)

    async def record(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        game_id = _id(request, "game")
        text = await self.pages.record_text(game_id, visitor)
        return web.Response(
            text=text,
            content_type="text/plain",
            charset="utf-8",
            headers={"Content-Disposition": f'inline; filename="hilltop-game-{game_id}.txt"'},
        )

    async def history(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        player_text = request.query.get("player", "")
        player = int(player_text) if player_text.isdigit() and len(player_text) < 20 else None
        view = await self.pages.history(
            _id(request, "server"),
            visitor,
            player,
            request.query.get("game") or None,
            request.query.get("page") or None,
        )
        return self.render(request, visitor, "history.html", view=view, server=view.server)

    async def leaderboard(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        period = request.query.get("period", "today")
        card = await self.pages.leaderboard(_id(request, "server"), visitor, period)
        tabs = (("today", t("Today")), ("week", t("This week")), ("all", t("All time")))
        return self.render(
            request, visitor, "card.html", card=card, server=card.server, tabs=tabs, tab=period
        )

    async def ratings(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        game = request.match_info["game"]
        card = await self.pages.ratings(_id(request, "server"), visitor, game)
        tabs = tuple((g, name) for g, name in self.pages.tables.ratings.game_choices())
        return self.render(
            request,
            visitor,
            "card.html",
            card=card,
            server=card.server,
            tabs=tabs,
            tab=game,
            tab_path="ratings",
        )

    async def profile(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        server_id, user_id = _id(request, "server"), _id(request, "user")
        card = await self.pages.profile(server_id, visitor, user_id)
        return self.render(
            request, visitor, "card.html", card=card, server=card.server, player=user_id
        )

    async def dailies(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        server = await self.pages.server_info(_id(request, "server"), visitor)
        day = request.match_info.get("day") or self.pages.closed_days()[0]
        view = await self.pages.daily_day(server.guild_id, visitor, day)
        return self.render(
            request,
            visitor,
            "daily.html",
            server=server,
            view=view,
            days=self.pages.closed_days(),
        )

    async def daily_run(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        run = request.match_info["run"]
        if run not in ("winner", "par"):
            raise PageNotFoundError(t("There is no such page."))
        picture = await self.pages.daily_run(
            _id(request, "server"), visitor, request.match_info["day"], run
        )
        return _picture(request, picture, "image/gif")

    # --- live ------------------------------------------------------------------------------
    async def live(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """The changing part of a game's page, as the event stream sends it."""
        view = await self.pages.game(_id(request, "game"), visitor)
        return web.json_response(self.live_event(view))

    def live_event(self, view: GameView) -> dict[str, Any]:
        return {
            "ply": view.shown_ply,
            "alt": board_alt(view),
            "status": view.card.status,
            "html": self.live_html(view),
            "board": f"/g/{view.card.id}/board.png?ply={view.shown_ply}&s={view.card.status}",
        }

    async def events(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """Server-Sent Events: the game's changing part each time it moves, in any process."""
        game_id = _id(request, "game")
        view = await self.pages.game(game_id, visitor)  # refused before any stream opens
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",
            }
        )
        await response.prepare(request)
        queue = self.hub.join(game_id)
        try:
            # What the page shows (its first connection) or last heard (a reconnection):
            # a move made in between is sent at once.
            seen = request.headers.get("Last-Event-ID") or request.query.get("since", "")
            key = f"{view.shown_ply}.{view.card.status}"
            if seen and seen != key:
                await _send(response, key, self.live_event(view))
            await response.write(b": open\n\n")
            while True:
                try:
                    generation = await asyncio.wait_for(queue.get(), KEEPALIVE)
                except TimeoutError:
                    await response.write(b": still here\n\n")
                    continue
                if generation == CLOSING:
                    break
                while not queue.empty():  # several changes at once: the latest is enough
                    if queue.get_nowait() == CLOSING:
                        return response
                event = await self.hub.layout(game_id, visitor.language, self._layout_for(visitor))
                await self.pages.server_info(event["server"], visitor)  # still allowed?
                if event["key"] != key:
                    key = event["key"]
                    await response.write(event["body"])
        except (ConnectionResetError, PageNotFoundError, SignInNeededError):
            pass
        finally:
            self.hub.leave(game_id, queue)
        return response

    def _layout_for(self, visitor: Visitor) -> Callable[[int, str], Awaitable[dict[str, Any]]]:
        async def layout(game_id: int, chosen: str) -> dict[str, Any]:
            with speaking(chosen):
                view = await self.pages.game(game_id, visitor)
                key = f"{view.shown_ply}.{view.card.status}"
                return {
                    "server": view.server.guild_id,
                    "key": key,
                    # Written once, sent as it is down every stream that watches the game.
                    "body": _event(key, self.live_event(view)),
                }

        return layout


def board_alt(view: GameView) -> str:
    """The board's words for those who do not see it: which game, after how many moves
    (those everyone may see), and who the game waits for or how it ended."""
    return str(
        t(
            "The board of game {id}: {game} after move {n}. {state}",
            id=view.card.id,
            game=view.card.game_name,
            n=len(view.moves),
            state=view.card.state_line,
        )
    )


def _event(key: str, data: dict[str, Any]) -> bytes:
    body = json.dumps(data, separators=(",", ":"))
    return f"id: {key}\nevent: game\ndata: {body}\n\n".encode()


async def _send(response: web.StreamResponse, key: str, data: dict[str, Any]) -> None:
    await response.write(_event(key, data))


def _picture(request: web.Request, picture: bytes, kind: str) -> web.StreamResponse:
    tag = '"' + hashlib.sha256(picture).hexdigest()[:32] + '"'
    headers = {"ETag": tag, "Cache-Control": "no-cache"}
    if request.headers.get("If-None-Match") == tag:
        return web.Response(status=304, headers=headers)
    return web.Response(body=picture, content_type=kind, headers=headers)


def make_app(pages: WebPages, config: WebConfig) -> web.Application:
    """The site over `pages`: its routes, its static files, and its event streams woken by
    the changes of games in any process."""
    site = Site(pages, config)
    app = web.Application()
    app[PAGES] = pages
    app[CONFIG] = config
    app[HUB] = site.hub
    page = site.page
    app.add_routes(
        [
            web.get("/", page(site.index)),
            web.get("/s/{server}", page(site.server)),
            web.get("/s/{server}/history", page(site.history)),
            web.get("/s/{server}/leaderboard", page(site.leaderboard)),
            web.get("/s/{server}/ratings/{game}", page(site.ratings)),
            web.get("/s/{server}/u/{user}", page(site.profile)),
            web.get("/s/{server}/daily", page(site.dailies)),
            web.get("/s/{server}/daily/{day}", page(site.dailies)),
            web.get("/s/{server}/daily/{day}/{run}.gif", page(site.daily_run)),
            web.get("/g/{game}", page(site.game)),
            web.get("/g/{game}/live", page(site.live)),
            web.get("/g/{game}/events", page(site.events, stream=True)),
            web.get("/g/{game}/board.png", page(site.board)),
            web.get("/g/{game}/replay", page(site.replay)),
            web.get("/g/{game}/frames/{n}.png", page(site.frame)),
            web.get("/g/{game}/record.txt", page(site.record)),
            web.get("/login", site.sign_in.login),
            web.get("/auth/discord", site.sign_in.callback),
            web.post("/logout", site.sign_in.logout),
            web.static("/static", HERE / "static"),
        ]
    )
    unsubscribe: list[Callable[[], None]] = []

    async def start(_: web.Application) -> None:
        unsubscribe.append(pages.subscribe(site.hub.changed))

    async def stop(_: web.Application) -> None:
        # An open stream would hold the server's shutdown up until it timed out.
        site.hub.close()
        for undo in unsubscribe:
            undo()

    app.on_startup.append(start)
    app.on_shutdown.append(stop)
    return app


async def serve(pages: WebPages, config: WebConfig) -> web.AppRunner:
    """Start serving the site on the configured address (in the running event loop)."""
    # A reader who leaves ends their request's handler (their event stream, at once).
    runner = web.AppRunner(
        make_app(pages, config), access_log=None, shutdown_timeout=5.0, handler_cancellation=True
    )
    await runner.setup()
    await web.TCPSite(runner, config.host, config.port).start()
    log.info("web pages on %s (listening on %s:%s)", config.url, config.host, config.port)
    return runner
