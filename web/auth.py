"""Signing in with Discord (OAuth2, scopes `identify` and `guilds`), for the servers that
show their pages to their members only: in a browser through Discord's authorize page,
and inside Discord's Activity frame with the code the Activity is given (`web.activity`);
both end in `SignIn.identify`. The cookie holds a random token, signed; the database keeps
who it is (`host.pages.sessions`)."""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass
from urllib.parse import urlencode

import aiohttp
from aiohttp import hdrs, web

from host.face import WebPages
from web.config import WebConfig

log = logging.getLogger(__name__)

SESSION = "hilltop_session"
STATE = "hilltop_state"
SCOPES = "identify guilds"
#: How long a browser keeps the session cookie (the session itself lasts as long).
COOKIE_SECONDS = 7 * 24 * 3600


def sign(config: WebConfig, value: str) -> str:
    mac = hmac.new(config.cookie_key, value.encode(), hashlib.sha256).hexdigest()[:32]
    return f"{value}.{mac}"


def unsign(config: WebConfig, signed: str | None) -> str | None:
    """The value of a signed cookie, or None if it was not signed here (nothing signed
    here has other characters than ASCII)."""
    if not signed or "." not in signed or not signed.isascii():
        return None
    value, _, mac = signed.rpartition(".")
    if hmac.compare_digest(sign(config, value), f"{value}.{mac}"):
        return value
    return None


def safe_next(path: str | None) -> str:
    """Where to go after signing in: a path of this site only."""
    if not path or not path.startswith("/") or path.startswith("//") or "\\" in path:
        return "/"
    # A cookie holds ASCII only (a link's own other characters come %-encoded).
    if not path.isascii():
        return "/"
    # A browser drops tabs and newlines from an address: "/\t/evil" would be "//evil".
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in path):
        return "/"
    return path


def _cookie(response: web.StreamResponse, config: WebConfig, name: str, value: str) -> None:
    response.set_cookie(
        name,
        value,
        httponly=True,
        samesite="Lax",
        secure=config.secure,
        path="/",
        max_age=COOKIE_SECONDS,
    )


def session_cookie(response: web.StreamResponse, config: WebConfig, token: str) -> None:
    """The session cookie of a page of this site, for the session `token`."""
    _cookie(response, config, SESSION, sign(config, token))


def embedded_session_cookie(response: web.StreamResponse, config: WebConfig, token: str) -> None:
    """The session cookie of a page inside Discord's Activity frame, a site other than
    Discord's own: sent there only as `SameSite=None` (hence `Secure`), and kept apart
    for that frame (`Partitioned`) where browsers refuse other sites' cookies. Written by
    hand: Python before 3.14 has no `Partitioned` attribute."""
    response.headers.add(
        hdrs.SET_COOKIE,
        f"{SESSION}={sign(config, token)}; Path=/; Max-Age={COOKIE_SECONDS}; HttpOnly; Secure; "
        "SameSite=None; Partitioned",
    )


class CodeRefusedError(Exception):
    """Discord refused the sign-in code: used already, expired, or never issued to this
    application. The person tries again; nothing is wrong with the site."""


class DiscordFailedError(Exception):
    """Discord could not be reached or answered what it should not."""


@dataclass(frozen=True, slots=True)
class SignedIn:
    """Someone Discord vouched for, with a new session of theirs."""

    user_id: int
    name: str
    #: Discord's access token, which the Activity hands back to Discord.
    access_token: str
    #: The new session's token, for the cookie.
    session: str


class SignIn:
    def __init__(self, config: WebConfig, pages: WebPages) -> None:
        self.config = config
        self.pages = pages

    def token(self, request: web.Request) -> str | None:
        return unsign(self.config, request.cookies.get(SESSION))

    async def login(self, request: web.Request) -> web.StreamResponse:
        if not self.config.sign_in:
            raise web.HTTPNotFound(text="Signing in is not set up on this site.")
        state = secrets.token_urlsafe(16)
        target = safe_next(request.query.get("next"))
        query = urlencode(
            {
                "client_id": self.config.client_id,
                "redirect_uri": self.redirect_uri,
                "response_type": "code",
                "scope": SCOPES,
                "state": state,
                "prompt": "none",
            }
        )
        response = web.HTTPFound(f"{self.config.discord_authorize}?{query}")
        _cookie(response, self.config, STATE, sign(self.config, f"{state}|{target}"))
        raise response

    @property
    def redirect_uri(self) -> str:
        return f"{self.config.url}/auth/discord"

    async def callback(self, request: web.Request) -> web.StreamResponse:
        kept = unsign(self.config, request.cookies.get(STATE))
        state, _, target = (kept or "").partition("|")
        code = request.query.get("code")
        given = request.query.get("state", "")
        if not kept or not code or not given.isascii() or not hmac.compare_digest(state, given):
            raise web.HTTPBadRequest(
                text="That sign-in link is out of date or was not started here: sign in again."
            )
        try:
            signed = await self.identify(code, redirect_uri=self.redirect_uri)
        except (CodeRefusedError, DiscordFailedError):
            raise web.HTTPBadGateway(
                text="Discord did not confirm who you are; try signing in again."
            ) from None
        response = web.HTTPFound(safe_next(target))
        _cookie(response, self.config, SESSION, sign(self.config, signed.session))
        response.del_cookie(STATE, path="/")
        raise response

    async def logout(self, request: web.Request) -> web.StreamResponse:
        token = self.token(request)
        if token:
            await self.pages.sign_out(token)
        response = web.HTTPSeeOther(safe_next(request.query.get("next")))
        response.del_cookie(SESSION, path="/")
        if request.path.startswith(("/a/", "/.proxy/a/")):
            # Inside the Activity, the cookie kept for Discord's frame goes too.
            response.headers.add(
                hdrs.SET_COOKIE,
                f"{SESSION}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=None; Partitioned",
            )
        raise response

    async def identify(self, code: str, *, redirect_uri: str | None) -> SignedIn:
        """The person whose OAuth2 `code` this is, signed in: the code exchanged for an
        access token (with the `redirect_uri` the code was issued for; the Activity's
        codes have none), then who they are and which servers they are in, as Discord
        says. CodeRefusedError or DiscordFailedError, and no session, else."""
        api = self.config.discord_api
        form = {
            "client_id": self.config.client_id,
            "client_secret": self.config.client_secret,
            "grant_type": "authorization_code",
            "code": code,
        }
        if redirect_uri is not None:
            form["redirect_uri"] = redirect_uri
        timeout = aiohttp.ClientTimeout(total=10)
        try:
            async with aiohttp.ClientSession(timeout=timeout) as http:
                async with http.post(f"{api}/oauth2/token", data=form) as answer:
                    if answer.status == 400:
                        # invalid_grant: the code itself (the application's own
                        # credentials are refused with 401).
                        log.info("Discord refused a sign-in code: %s", await answer.text())
                        raise CodeRefusedError
                    answer.raise_for_status()
                    access = str((await answer.json())["access_token"])
                headers = {"Authorization": f"Bearer {access}"}
                async with http.get(f"{api}/users/@me", headers=headers) as answer:
                    answer.raise_for_status()
                    user = await answer.json()
                async with http.get(f"{api}/users/@me/guilds", headers=headers) as answer:
                    answer.raise_for_status()
                    guilds = [int(g["id"]) for g in await answer.json()]
            user_id, name = int(str(user["id"])), _name(user)
        except (aiohttp.ClientError, TimeoutError, KeyError, ValueError, TypeError, AttributeError):
            log.exception("signing in with Discord failed")
            raise DiscordFailedError from None
        session = await self.pages.sign_in(user_id, name, guilds)
        return SignedIn(user_id, name, access, session)


def _name(user: dict[str, object]) -> str:
    name = user.get("global_name") or user.get("username") or "?"
    return str(name)[:100]
