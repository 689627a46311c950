"""Hilltop as a Discord Activity: the game's page in an iframe of the Discord client.

Discord loads the Activity at the root of the application's URL mapping (`/` → the site),
with `frame_id` and the rest in the query: the site answers with the shell
(`activity.html` and its script, built from `web/activity/`), which signs the player in
through Discord's SDK (`POST /api/token`), asks which game this launch is for
(`GET /api/launch`) and opens that game's page. Inside the Activity every request goes
through Discord's proxy, under `/.proxy/`, which Discord strips before passing it on; so
the shell and the pages it opens ask for everything under `ROOT`, and the site answers
the same requests without the proxy (`/.proxy/...` itself) for a browser that has none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol

import jinja2
from aiohttp import web

from host.face import (
    DatabaseUnavailableError,
    PageNotFoundError,
    Payload,
    SignInNeededError,
    Visitor,
    WebPages,
    speaking,
    t,
)
from web.auth import CodeRefusedError, DiscordFailedError, SignIn, embedded_session_cookie
from web.config import WebConfig
from web.paths import MAX_ID

#: The site's own files: its static files hold the Activity's script once built.
HERE = Path(__file__).parent

#: Where the Activity asks for the site's pages: Discord's proxy, then the prefix the site
#: serves its pages under for it (`web.paths.IN_ACTIVITY`, which links within them).
PROXY = "/.proxy"
ROOT = f"{PROXY}/a"
#: Where the Activity asks the site for its session and its game.
API = f"{PROXY}/api"
#: The action of a board's button that launches the Activity on its game.
LAUNCH = "launch"
#: Far longer than an OAuth2 code of Discord's.
MAX_CODE = 512
#: Discord's limit on a component's custom_id.
MAX_CUSTOM_ID = 100


class ActivitySite(Protocol):
    """What the Activity uses of the site that serves it (`web.app.Site`, which builds
    the Activity's routes over itself)."""

    pages: WebPages
    config: WebConfig
    env: jinja2.Environment
    sign_in: SignIn

    async def visitor(self, request: web.Request) -> Visitor: ...


def shell(site: ActivitySite, request: web.Request, visitor: Visitor) -> web.Response:
    """The page Discord opens first: it signs the player in and goes to their game. Laid
    out here rather than by `Site.render`: it has no header to sign in or out with, and
    asks for everything through the proxy."""
    with speaking(visitor.language):
        html = site.env.get_template("activity.html").render(
            visitor=visitor,
            config=site.config,
            root=ROOT,
            api=API,
            built=(HERE / "static" / "activity.js").is_file(),
        )
    response = web.Response(text=html, content_type="text/html")
    response.headers["Content-Language"] = visitor.language
    response.headers["Cache-Control"] = "no-store"
    return response


def activity_routes(site: ActivitySite) -> list[web.RouteDef]:
    """The Activity's requests, with and without Discord's proxy in front."""
    activity = Activity(site)
    routes = []
    for prefix in ("", PROXY):
        routes += [
            web.post(f"{prefix}/api/token", activity.token),
            web.get(f"{prefix}/api/launch", activity.launch),
        ]
    return routes


def _said(status: int, message: object) -> web.Response:
    """A refusal the shell shows as it is: its words, in the player's language."""
    return web.json_response({"message": str(message)}, status=status)


def _id(text: str | None) -> int | None:
    if not text or not text.isascii() or not text.isdigit() or int(text) > MAX_ID:
        return None
    return int(text)


def launched_game(custom_id: str) -> int | None:
    """The game a board's launch button names, from the `custom_id` Discord hands the
    Activity: a payload as the bot writes it (with its front-end's prefix, which is not
    ours to know, or without); None for anything else."""
    for text in (custom_id, custom_id.partition(":")[2]):
        try:
            payload = Payload.parse(text)
        except ValueError:
            continue
        return payload.game_id if payload.action == LAUNCH else None
    return None


class Activity:
    def __init__(self, site: ActivitySite) -> None:
        self.site = site

    async def token(self, request: web.Request) -> web.StreamResponse:
        """The code the Activity was given by Discord, exchanged for an access token (which
        the Activity hands back to Discord) and a session on this site, whose cookie is
        sent inside Discord's frame. Bad input is refused and changes nothing."""
        visitor = await self.site.visitor(request)
        with speaking(visitor.language):
            if not self.site.config.sign_in:
                return _said(404, t("The Activity is not set up on this site."))
            code = await _code(request)
            if code is None:
                return _said(
                    400,
                    t("That sign-in request was not one Discord's Activity makes: relaunch it."),
                )
            try:
                signed = await self.site.sign_in.identify(code, redirect_uri=None)
            except CodeRefusedError:
                return _said(
                    400,
                    t("Discord did not accept that sign-in, which may be used up: relaunch."),
                )
            except DiscordFailedError:
                return _said(502, t("Discord did not confirm who you are; relaunch the Activity."))
        replaced = self.site.sign_in.token(request)
        if replaced:  # a relaunch: the frame's last session ends
            await self.site.pages.sign_out(replaced)
        response = web.json_response({"access_token": signed.access_token})
        response.headers["Cache-Control"] = "no-store"
        embedded_session_cookie(response, self.site.config, signed.session)
        return response

    async def launch(self, request: web.Request) -> web.StreamResponse:
        """Where the Activity goes once signed in: the game a board's button names
        (`custom_id`), else the game in play in the channel it was launched in, as the
        player may see it; `{url}`, or `{message}` saying why there is none."""
        visitor = await self.site.visitor(request)
        with speaking(visitor.language):
            try:
                game_id = await self._game(request, visitor)
            except Refused as exc:
                return _said(exc.status, exc.text)
            except SignInNeededError as exc:
                return _said(403, exc.text)
            except PageNotFoundError:
                return _said(
                    404,
                    t(
                        "This server's games are not shown on Hilltop's pages: its admins "
                        "open them with /admin settings web:."
                    ),
                )
            except DatabaseUnavailableError:
                return _said(503, t("The games cannot be read right now; try again in a moment."))
        response = web.json_response({"url": f"{ROOT}/g/{game_id}"})
        response.headers["Cache-Control"] = "no-store"
        return response

    async def _game(self, request: web.Request, visitor: Visitor) -> int:
        pages = self.site.pages
        if not visitor.signed_in:
            raise Refused(401, t("You are not signed in here: relaunch the Activity."))
        custom_id = request.query.get("custom_id")
        if custom_id:
            game_id = launched_game(custom_id[:MAX_CUSTOM_ID])
            if game_id is None:
                raise Refused(400, t("That button does not open a game of Hilltop."))
            await pages.game(game_id, visitor)  # refused if not theirs to see
            return game_id
        guild_id = _id(request.query.get("guild_id"))
        channel_id = _id(request.query.get("channel_id"))
        if guild_id is None or channel_id is None:
            raise Refused(
                400, t("Hilltop's games are played in a server's channels: launch it in one.")
            )
        found = await pages.channel_game(guild_id, channel_id, visitor)
        if found is None:
            raise Refused(
                404, t("No game is being played in this channel yet: start one with /play.")
            )
        return found


class Refused(Exception):
    """Why the Activity has no game to open, in the player's words."""

    def __init__(self, status: int, text: object) -> None:
        super().__init__(str(text))
        self.status = status
        self.text = str(text)


async def _code(request: web.Request) -> str | None:
    """The code of a request as the shell sends it (JSON `{"code": "…"}`, which a form of
    another site cannot send), or None."""
    if request.content_type != "application/json":
        return None
    try:
        body = json.loads(await request.text())
    except (ValueError, UnicodeDecodeError):
        return None
    code = body.get("code") if isinstance(body, dict) else None
    if not isinstance(code, str) or not 0 < len(code) <= MAX_CODE or not code.isprintable():
        return None
    return code
