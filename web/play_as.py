"""Playing on the console's own pages: to the computer that runs the console, `/login`
lists the console's players and signs the visitor in as the one they choose, with the
same session a sign-in with Discord makes. Whoever sits at the console types as any
player already; anyone else (another computer, or any visitor of the bot's pages) gets
the sign-in with Discord, or nothing."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from aiohttp import web

from host.face import ServiceError, Visitor, t
from web.auth import SignIn, safe_next, session_cookie
from web.paths import root_of
from web.tournaments import TournamentSite

#: The addresses of this computer itself.
LOOPBACK = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})
#: The cookie of the "Play as" page, whose form sends its check back.
NONCE = "hilltop_play_as"


def loopback(remote: str | None) -> bool:
    """Whether a request came from this computer itself (`request.remote`)."""
    return remote in LOOPBACK


class PlayAs:
    def __init__(self, site: TournamentSite, sign_in: SignIn) -> None:
        """The "Play as" page of `site`, else `sign_in`'s (with Discord)."""
        self.site = site
        self.config = site.config
        self.sign_in = sign_in

    def offered(self, request: web.Request) -> bool:
        """Whether `request` may sign in as a console player: the console's pages, asked
        from the computer that runs it."""
        return self.config.console and not root_of(request) and loopback(request.remote)

    async def login(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """`GET /login?next=`: the "Play as" page where offered, else Discord's sign-in."""
        if not self.offered(request):
            return await self.sign_in.login(request)
        return await self.page(request, visitor, safe_next(request.query.get("next")))

    async def choose(self, request: web.Request, visitor: Visitor) -> web.StreamResponse:
        """`POST /login` with `name`, `check` and `next`: signed in as that player."""
        if not self.offered(request):
            raise web.HTTPNotFound(text=str(t("There is no such page.")))
        form = await request.post()
        target = safe_next(_field(form.get("next")))
        given = _field(form.get("check"))
        check = self.check_of(request.cookies.get(NONCE))
        if not check or not given.isascii() or not hmac.compare_digest(check, given):
            message = str(t("This page was out of date: choose again."))
            return await self.page(request, visitor, target, message, 403)
        try:
            token = await self.site.pages.sign_in_locally(_field(form.get("name")))
        except ServiceError as exc:
            return await self.page(request, visitor, target, str(exc.text), 400)
        if previous := self.sign_in.token(request):
            await self.site.pages.sign_out(previous)  # another player's, chosen before
        response = web.HTTPSeeOther(target)
        session_cookie(response, self.config, token)
        response.del_cookie(NONCE, path="/")
        raise response

    async def page(
        self,
        request: web.Request,
        visitor: Visitor,
        target: str,
        message: str = "",
        status: int = 200,
    ) -> web.StreamResponse:
        nonce = secrets.token_urlsafe(16)
        players = await self.site.pages.local_players()
        response = self.site.render(
            request,
            visitor,
            "play_as.html",
            status,
            players=players,
            target=target,
            play_check=self.check_of(nonce),
            message=message,
        )
        response.set_cookie(NONCE, nonce, httponly=True, samesite="Strict", path="/")
        response.headers["Cache-Control"] = "no-store"
        return response

    def check_of(self, nonce: str | None) -> str:
        """What the page's form sends back: its cookie's nonce, signed (a page of another
        site cannot know it)."""
        if not nonce or not nonce.isascii():
            return ""
        mac = hmac.new(self.config.cookie_key, f"play as|{nonce}".encode(), hashlib.sha256)
        return mac.hexdigest()[:32]


def _field(value: object) -> str:
    return value if isinstance(value, str) else ""
