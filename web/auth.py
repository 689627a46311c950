"""Signing in with Discord (OAuth2, scopes `identify` and `guilds`), for the servers that
show their pages to their members only. The cookie holds a random token, signed; the
database keeps who it is (`host.pages.sessions`)."""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from urllib.parse import urlencode

import aiohttp
from aiohttp import web

from host.face import WebPages
from web.config import WebConfig

log = logging.getLogger(__name__)

SESSION = "hilltop_session"
STATE = "hilltop_state"
SCOPES = "identify guilds"


def sign(config: WebConfig, value: str) -> str:
    mac = hmac.new(config.cookie_key, value.encode(), hashlib.sha256).hexdigest()[:32]
    return f"{value}.{mac}"


def unsign(config: WebConfig, signed: str | None) -> str | None:
    """The value of a signed cookie, or None if it was not signed here."""
    if not signed or "." not in signed:
        return None
    value, _, mac = signed.rpartition(".")
    if hmac.compare_digest(sign(config, value), f"{value}.{mac}"):
        return value
    return None


def safe_next(path: str | None) -> str:
    """Where to go after signing in: a path of this site only."""
    if not path or not path.startswith("/") or path.startswith("//") or "\\" in path:
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
        max_age=7 * 24 * 3600,
    )


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
                "redirect_uri": f"{self.config.url}/auth/discord",
                "response_type": "code",
                "scope": SCOPES,
                "state": state,
                "prompt": "none",
            }
        )
        response = web.HTTPFound(f"{self.config.discord_authorize}?{query}")
        _cookie(response, self.config, STATE, sign(self.config, f"{state}|{target}"))
        raise response

    async def callback(self, request: web.Request) -> web.StreamResponse:
        kept = unsign(self.config, request.cookies.get(STATE))
        state, _, target = (kept or "").partition("|")
        code = request.query.get("code")
        if not kept or not code or not hmac.compare_digest(state, request.query.get("state", "")):
            raise web.HTTPBadRequest(
                text="That sign-in link is out of date or was not started here: sign in again."
            )
        try:
            user, guilds = await self._identify(code)
        except (aiohttp.ClientError, KeyError, ValueError, TypeError):
            log.exception("signing in with Discord failed")
            raise web.HTTPBadGateway(
                text="Discord did not confirm who you are; try signing in again."
            ) from None
        token = await self.pages.sessions.sign_in(int(str(user["id"])), _name(user), guilds)
        response = web.HTTPFound(safe_next(target))
        _cookie(response, self.config, SESSION, sign(self.config, token))
        response.del_cookie(STATE, path="/")
        raise response

    async def logout(self, request: web.Request) -> web.StreamResponse:
        token = self.token(request)
        if token:
            await self.pages.sessions.sign_out(token)
        response = web.HTTPSeeOther(safe_next(request.query.get("next")))
        response.del_cookie(SESSION, path="/")
        raise response

    async def _identify(self, code: str) -> tuple[dict[str, object], list[int]]:
        api = self.config.discord_api
        form = {
            "client_id": self.config.client_id,
            "client_secret": self.config.client_secret,
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": f"{self.config.url}/auth/discord",
        }
        timeout = aiohttp.ClientTimeout(total=10)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            async with http.post(f"{api}/oauth2/token", data=form) as answer:
                answer.raise_for_status()
                access = (await answer.json())["access_token"]
            headers = {"Authorization": f"Bearer {access}"}
            async with http.get(f"{api}/users/@me", headers=headers) as answer:
                answer.raise_for_status()
                user = await answer.json()
            async with http.get(f"{api}/users/@me/guilds", headers=headers) as answer:
                answer.raise_for_status()
                guilds = [int(g["id"]) for g in await answer.json()]
        return user, guilds


def _name(user: dict[str, object]) -> str:
    name = user.get("global_name") or user.get("username") or "?"
    return str(name)[:100]
