"""The web pages, served by aiohttp: each handler asks the service for one page (which
checks who may see it) and lays it out with a template."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextlib import suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from aiohttp import web

from host.face import (
    DatabaseUnavailableError,
    GameView,
    PageNotFoundError,
    ServiceError,
    SignInNeededError,
    StaleControlsError,
    Visitor,
    WebPages,
    current_language,
    languages,
    privacy_notice,
    speaking,
    t,
    tn,
)
from web import language, streams
from web.activity import activity_routes, shell
from web.auth import SignIn
from web.config import WebConfig
from web.hub import Hub
from web.markup import rich, time_tag, whole_dates
from web.paths import ROOTS, here_of, page_id, root_of
from web.play_as import PlayAs
from web.streams import Gate, Laid, follow, sse
from web.tournaments import Tournaments
from web.turns import Turns

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
#: Pages made at once; the others wait their turn. The bot's own commands share the
#: process, and a crowd of readers must not hold up a move (event streams are not
#: counted: they wait, and cost nothing until their game moves).
PAGES_AT_ONCE = 4
#: Laid-out live parts of game pages kept, by game, move and language.
LIVE_KEPT = 512
#: Seconds a connection may take to send a request's headers (and may stay idle between
#: requests) before it is closed: a client that sends half a request holds nothing long.
HEADERS_TIMEOUT = 10.0

#: The header a page sends its move with: `Site.check_of`.
CHECK_HEADER = "X-Hilltop-Check"
#: Pictures of move panels kept, by player, game, move, choices and language.
PANELS_KEPT = 256

PAGES: web.AppKey[WebPages] = web.AppKey("pages", WebPages)
CONFIG: web.AppKey[WebConfig] = web.AppKey("config", WebConfig)
HUB: web.AppKey[Hub] = web.AppKey("hub", Hub)
#: The streams of open tournament pages, by tournament.
TOURNAMENT_HUB: web.AppKey[Hub] = web.AppKey("tournament_hub", Hub)

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


class Site:
    def __init__(self, pages: WebPages, config: WebConfig) -> None:
        self.pages = pages
        self.config = config
        self.env = templates()
        self.sign_in = SignIn(config, pages)
        self.play_as = PlayAs(self, self.sign_in)
        self.hub = Hub()
        self.tournaments = Tournaments(self)
        self.turns = Turns(self, self.visitor)
        self.at_once = asyncio.Semaphore(PAGES_AT_ONCE)
        self.gate = Gate()
        self._live: dict[tuple[int, int, str, float, str, str], str] = {}
        self._panels: OrderedDict[tuple[int, int, int, tuple[str, ...], str], bytes] = OrderedDict()

    # --- the frame of every page ------------------------------------------------------------
    async def visitor(self, request: web.Request) -> Visitor:
        chosen = language.chosen(request)
        return await self.pages.visitor(self.sign_in.token(request), chosen)

    def render(
        self, request: web.Request, visitor: Visitor, name: str, status: int = 200, **values: Any
    ) -> web.Response:
        with speaking(visitor.language):
            html = self.env.get_template(name).render(
                visitor=visitor,
                config=self.config,
                path=request.path_qs,
                here=here_of(request),
                root=root_of(request),
                check=self.check_of(request),
                languages=languages(),
                rating_games=self.pages.rating_games(),
                play_as=self.play_as.offered(request),
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
        made `PAGES_AT_ONCE` at a time; an event `stream` is not counted there, but against
        the caps of open streams (each visitor's, by session or address, and all)."""

        async def serve(request: web.Request) -> web.StreamResponse:
            if stream:
                who = self.sign_in.token(request) or request.remote or ""
                with self.gate.opening(who) as allowed:
                    if not allowed:
                        return refused(request)
                    return await made(request)
            async with self.at_once:
                return await made(request)

        async def made(request: web.Request) -> web.StreamResponse:
            visitor = await self.visitor(request)
            try:
                with speaking(visitor.language):
                    return await handler(request, visitor)
            except SignInNeededError as exc:
                # Inside the Activity, Discord's sign-in page cannot open: it is relaunched.
                offered = self.config.sign_in or self.play_as.offered(request)
                if offered and not visitor.signed_in and not root_of(request):
                    root, here = root_of(request), here_of(request)
                    raise web.HTTPFound(f"{root}/login?next={here}") from None
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
        if "frame_id" in request.query:  # Discord opening the Activity
            return shell(self, request, visitor)
        if self.config.console:
            raise web.HTTPFound("/s/1")
        return self.render(request, visitor, "index.html", games=self.pages.game_names())

    async def privacy(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        return self.render(request, visitor, "privacy.html", notice=privacy_notice())

    async def server(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        view = await self.pages.server(page_id(request, "server"), visitor)
        return self.render(request, visitor, "server.html", view=view, server=view.server)

    async def game(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        game_id = page_id(request, "game")
        view = await self.pages.game(game_id, visitor)
        root = root_of(request)
        play: dict[str, Any] | None = None
        if visitor.signed_in and view.live and await self.pages.offered(game_id, visitor):
            with suppress(ServiceError):  # moved on meanwhile: the page shows it as it is
                play = await self.panel_parts(request, visitor, game_id, None, ())
        return self.render(
            request,
            visitor,
            "game.html",
            view=view,
            server=view.server,
            live=self.live_html(view, root),
            board_alt=board_alt(view),
            play=play,
            player=visitor.signed_in
            and any(p.user_id == visitor.user_id for p in view.card.players),
        )

    def live_html(self, view: GameView, root: str = "") -> str:
        """The part of a game's page that changes with each move (made once per move and
        language, however many read it)."""
        card = view.card
        key = (card.id, view.shown_ply, card.status, card.updated_at, current_language(), root)
        html = self._live.get(key)
        if html is None:
            html = self.env.get_template("_live.html").render(
                view=view, config=self.config, root=root
            )
            if len(self._live) >= LIVE_KEPT:
                self._live.pop(next(iter(self._live)))
            self._live[key] = html
        return html

    async def board(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        _, picture = await self.pages.board(page_id(request, "game"), visitor)
        return _picture(request, picture, "image/png")

    async def frame(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        picture = await self.pages.frame(page_id(request, "game"), page_id(request, "n"), visitor)
        return _picture(request, picture, "image/png")

    async def replay(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        view = await self.pages.replay(page_id(request, "game"), visitor)
        return self.render(request, visitor, "replay.html", view=view, server=view.server)

    async def record(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        game_id = page_id(request, "game")
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
            page_id(request, "server"),
            visitor,
            player,
            request.query.get("game") or None,
            request.query.get("page") or None,
        )
        return self.render(request, visitor, "history.html", view=view, server=view.server)

    async def leaderboard(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        period = request.query.get("period", "today")
        card = await self.pages.leaderboard(page_id(request, "server"), visitor, period)
        tabs = (("today", t("Today")), ("week", t("This week")), ("all", t("All time")))
        return self.render(
            request, visitor, "card.html", card=card, server=card.server, tabs=tabs, tab=period
        )

    async def ratings(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        game = request.match_info["game"]
        card = await self.pages.ratings(page_id(request, "server"), visitor, game)
        tabs = tuple(self.pages.rating_games())
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
        server_id, user_id = page_id(request, "server"), page_id(request, "user")
        card = await self.pages.profile(server_id, visitor, user_id)
        return self.render(
            request, visitor, "card.html", card=card, server=card.server, player=user_id
        )

    async def dailies(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        server = await self.pages.server_info(page_id(request, "server"), visitor)
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
            page_id(request, "server"), visitor, request.match_info["day"], run
        )
        return _picture(request, picture, "image/gif")

    # --- live ------------------------------------------------------------------------------
    async def live(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """The changing part of a game's page, as the event stream sends it."""
        view = await self.pages.game(page_id(request, "game"), visitor)
        return web.json_response(self.live_event(view, root_of(request)))

    def live_event(self, view: GameView, root: str = "") -> dict[str, Any]:
        card = view.card
        return {
            "ply": view.shown_ply,
            "alt": board_alt(view),
            "status": card.status,
            "html": self.live_html(view, root),
            "board": f"{root}/g/{card.id}/board.png?ply={view.shown_ply}&s={card.status}",
        }

    # --- playing ---------------------------------------------------------------------------
    def check_of(self, request: web.Request) -> str:
        """The value a page of a signed-in visitor sends back with a move, which a page of
        another site cannot know: the visitor's session, signed for this purpose."""
        token = self.sign_in.token(request)
        if not token:
            return ""
        mac = hmac.new(self.config.cookie_key, f"play|{token}".encode(), hashlib.sha256)
        return mac.hexdigest()[:32]

    async def panel_parts(
        self,
        request: web.Request,
        visitor: Visitor,
        game_id: int,
        ply: int | None,
        prefix: tuple[str, ...],
    ) -> dict[str, Any]:
        """The visitor's move panel laid out: its words and buttons, the buttons over the
        picture, and the picture's address (drawn now, kept for the page to fetch)."""
        picture, panel = await self.pages.panel_picture(game_id, visitor, ply, prefix)
        key = (visitor.user_id or 0, game_id, panel.ply, panel.prefix, current_language())
        self._panels[key] = picture
        self._panels.move_to_end(key)
        while len(self._panels) > PANELS_KEPT:
            self._panels.popitem(last=False)
        root = root_of(request)
        query = urlencode([("ply", panel.ply), *(("step", token) for token in panel.prefix)])
        values = {"panel": panel, "root": root, "config": self.config}
        return {
            "ply": panel.ply,
            "prefix": list(panel.prefix),
            "at_once": panel.plays_at_once,
            "panel": self.env.get_template("_play.html").render(**values),
            "spots": self.env.get_template("_spots.html").render(**values),
            "picture": f"{root}/g/{game_id}/play.png?{query}",
            "alt": str(t("Your view of the board, with your choices marked")),
        }

    async def play_panel(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """`GET /g/<id>/play?ply=&step=…`: the visitor's next choices, as JSON; a page out
        of date is told so, with the game as it is now."""
        game_id = page_id(request, "game")
        ply = _ply(request.query.get("ply"))
        prefix = tuple(request.query.getall("step", []))
        found = await self._panel_or_why(request, visitor, game_id, ply, prefix)
        return _private(web.json_response(found))

    async def _panel_or_why(
        self,
        request: web.Request,
        visitor: Visitor,
        game_id: int,
        ply: int | None,
        prefix: tuple[str, ...],
        said: str = "",
    ) -> dict[str, Any]:
        try:
            parts = await self.panel_parts(request, visitor, game_id, ply, prefix)
            return {**parts, "message": said} if said else parts
        except (PageNotFoundError, SignInNeededError):
            raise
        except StaleControlsError as exc:
            if ply is None:
                return {"idle": True, "message": said or str(exc.text)}
            # The page was drawn before a move: the game as it is now, and why.
            return await self._panel_or_why(
                request, visitor, game_id, None, (), said or str(exc.text)
            )
        except ServiceError as exc:
            if ply is not None and prefix:
                return await self._panel_or_why(
                    request, visitor, game_id, ply, (), said or str(exc.text)
                )
            return {"idle": True, "message": said or str(exc.text)}

    async def play_picture(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """The picture a player builds their move on (theirs alone: never cached by others)."""
        game_id = page_id(request, "game")
        ply = _ply(request.query.get("ply"))
        prefix = tuple(request.query.getall("step", []))
        key = (
            visitor.user_id or 0,
            game_id,
            ply if ply is not None else -1,
            prefix,
            current_language(),
        )
        picture = self._panels.get(key)
        if picture is None:
            picture, _ = await self.pages.panel_picture(game_id, visitor, ply, prefix)
        else:
            # Drawn for this visitor a moment ago: shown if they may still see the game.
            await self.pages.may_see(game_id, visitor)
        response = web.Response(body=picture, content_type="image/png")
        response.headers["Cache-Control"] = "private, no-store"
        return response

    async def play_move(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """`POST /g/<id>/play` with `{ply, step: [...]}`: the visitor's move. Refused (with
        the game as it is now) when the page is out of date: a second click of the same
        confirm never plays twice."""
        game_id = page_id(request, "game")
        check = self.check_of(request)
        given = request.headers.get(CHECK_HEADER, "")
        if not check or not given.isascii() or not hmac.compare_digest(check, given):
            message = str(t("Your sign-in could not be checked: load the page again."))
            return _private(web.json_response({"message": message}, status=403))
        try:
            body = json.loads(await request.text(), parse_constant=_no_constant)
            ply = int(body["ply"])
            steps = body["step"]
            if not isinstance(steps, list) or not all(isinstance(x, str) for x in steps):
                raise ValueError(steps)
            if ply < 0:
                # A move of no ply would pass for up to date whatever the game is at.
                raise ValueError(ply)
        except (ValueError, KeyError, TypeError, OverflowError, RecursionError):
            message = str(t("That was not a move: load the page again."))
            return _private(web.json_response({"message": message}, status=400))
        try:
            done = await self.pages.play_move(game_id, visitor, ply, tuple(steps))
        except (PageNotFoundError, SignInNeededError, DatabaseUnavailableError):
            raise
        except ServiceError as exc:
            refused = await self._panel_or_why(request, visitor, game_id, None, (), str(exc.text))
            return _private(web.json_response({**refused, "refused": True}, status=409))
        after = await self._panel_or_why(request, visitor, game_id, None, ())
        return _private(web.json_response({**after, "done": done.text, "played": done.ply}))

    async def events(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """Server-Sent Events: the game's changing part each time it moves, in any process."""
        game_id = page_id(request, "game")
        root = root_of(request)

        async def first() -> Laid:
            return self.laid(await self.pages.game(game_id, visitor), root)

        return await follow(
            request,
            self.hub,
            game_id,
            first,
            self._layout_for(visitor),
            f"{visitor.language}|{root}",
            lambda server: self.pages.server_info(server, visitor),
        )

    def laid(self, view: GameView, root: str) -> Laid:
        key = f"{view.shown_ply}.{view.card.status}"
        return Laid(view.server.guild_id, key, sse("game", key, self.live_event(view, root)))

    def _layout_for(self, visitor: Visitor) -> Callable[[int, str], Awaitable[Laid]]:
        async def layout(game_id: int, chosen: str) -> Laid:
            language, _, root = chosen.partition("|")
            with speaking(language):
                return self.laid(await self.pages.game(game_id, visitor), root)

        return layout


def refused(request: web.Request) -> web.Response:
    """A stream above the caps: refused for now, with when to ask again."""
    with speaking(language.chosen(request)):
        message = str(t("Hilltop cannot be reached right now; try again in a moment."))
    return web.Response(
        status=503,
        text=message,
        headers={"Retry-After": str(streams.RETRY_AFTER), "Cache-Control": "no-store"},
    )


def _private(response: web.Response) -> web.Response:
    """A player's own answer (their panel, their plan): kept by no cache on the way."""
    response.headers["Cache-Control"] = "private, no-store"
    return response


def _no_constant(name: str) -> None:
    """Refuses NaN and Infinity, which JSON itself does not have."""
    raise ValueError(name)


def _ply(text: str | None) -> int | None:
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 9:
        return None
    return int(text)


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
    app[TOURNAMENT_HUB] = site.tournaments.hub
    for root in ROOTS:
        app.add_routes(_routes(site, root))
    app.add_routes(activity_routes(site))
    unsubscribe: list[Callable[[], None]] = []

    async def start(_: web.Application) -> None:
        unsubscribe.append(pages.subscribe(site.hub.changed))
        unsubscribe.append(pages.subscribe_tournaments(site.tournaments.hub.changed))
        unsubscribe.append(pages.subscribe_turns(site.turns.hub.changed))

    async def stop(_: web.Application) -> None:
        # An open stream would hold the server's shutdown up until it timed out.
        site.hub.close()
        site.tournaments.hub.close()
        site.turns.hub.close()
        for undo in unsubscribe:
            undo()

    app.on_startup.append(start)
    app.on_shutdown.append(stop)
    return app


def _routes(site: Site, root: str) -> list[web.AbstractRouteDef]:
    """Every page of the site, under `root` (see `ROOTS`)."""
    page = site.page
    paths: list[tuple[str, str, Handler]] = [
        ("GET", "/", page(site.index)),
        ("GET", "/privacy", page(site.privacy)),
        ("GET", "/s/{server}", page(site.server)),
        ("GET", "/s/{server}/history", page(site.history)),
        ("GET", "/s/{server}/leaderboard", page(site.leaderboard)),
        ("GET", "/s/{server}/ratings/{game}", page(site.ratings)),
        ("GET", "/s/{server}/u/{user}", page(site.profile)),
        ("GET", "/s/{server}/daily", page(site.dailies)),
        ("GET", "/s/{server}/daily/{day}", page(site.dailies)),
        ("GET", "/s/{server}/daily/{day}/{run}.gif", page(site.daily_run)),
        ("GET", "/s/{server}/t/{event}", page(site.tournaments.page)),
        ("GET", "/s/{server}/t/{event}/live", page(site.tournaments.live)),
        ("GET", "/s/{server}/t/{event}/events", page(site.tournaments.stream, stream=True)),
        ("GET", "/me", page(site.turns.page)),
        ("GET", "/me/live", page(site.turns.live)),
        ("GET", "/me/events", page(site.turns.stream, stream=True)),
        ("GET", "/g/{game}", page(site.game)),
        ("GET", "/g/{game}/live", page(site.live)),
        ("GET", "/g/{game}/events", page(site.events, stream=True)),
        ("GET", "/g/{game}/board.png", page(site.board)),
        ("GET", "/g/{game}/replay", page(site.replay)),
        ("GET", "/g/{game}/frames/{n}.png", page(site.frame)),
        ("GET", "/g/{game}/record.txt", page(site.record)),
        ("GET", "/g/{game}/play", page(site.play_panel)),
        ("GET", "/g/{game}/play.png", page(site.play_picture)),
        ("POST", "/g/{game}/play", page(site.play_move)),
        ("GET", "/login", page(site.play_as.login) if site.config.console else site.sign_in.login),
        ("GET", "/auth/discord", site.sign_in.callback),
        ("POST", "/logout", site.sign_in.logout),
    ]
    if site.config.console:
        paths.append(("POST", "/login", page(site.play_as.choose)))
    routes: list[web.AbstractRouteDef] = [
        web.route(method, (root + path).rstrip("/") or "/", handler)
        for method, path, handler in paths
    ]
    routes.append(web.static(f"{root}/static", HERE / "static"))
    return routes


async def serve(pages: WebPages, config: WebConfig) -> web.AppRunner:
    """Start serving the site on the configured address (in the running event loop)."""
    # A reader who leaves ends their request's handler (their event stream, at once). A
    # connection waiting for its request (one that sent only part of its headers, or an
    # idle kept-alive one) is closed after `HEADERS_TIMEOUT`.
    runner = web.AppRunner(
        make_app(pages, config),
        access_log=None,
        shutdown_timeout=5.0,
        handler_cancellation=True,
        keepalive_timeout=HEADERS_TIMEOUT,
    )
    await runner.setup()
    await web.TCPSite(runner, config.host, config.port).start()
    log.info("web pages on %s (listening on %s:%s)", config.url, config.host, config.port)
    return runner
