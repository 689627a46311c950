"""Where the pages are: the prefixes they are served under, and the ids in their paths."""

from __future__ import annotations

from aiohttp import web

from host.face import PageNotFoundError, t

#: The largest id a game or a server can have (a signed 64-bit integer).
MAX_ID = 2**63 - 1
#: Where the pages are served inside Discord's Activity: Discord's proxy takes every
#: request of the Activity under `/.proxy/` and passes it on without that prefix, so the
#: pages answer under `/a` and make their links under `/.proxy/a`; they answer under
#: `/.proxy/a` as well, for a browser that reaches them without the proxy.
IN_ACTIVITY = "/.proxy/a"
ROOTS = ("", "/a", IN_ACTIVITY)


def root_of(request: web.Request) -> str:
    """The prefix of the links of a page: inside the Activity, Discord's proxy's."""
    path = request.path
    for root in ROOTS[1:]:
        if path == root or path.startswith(root + "/"):
            return IN_ACTIVITY
    return ""


def here_of(request: web.Request) -> str:
    """The page's own path, without the prefix it was asked for under."""
    path = request.path
    for root in sorted(ROOTS[1:], key=len, reverse=True):
        if path == root or path.startswith(root + "/"):
            return path[len(root) :] or "/"
    return path


def page_id(request: web.Request, name: str) -> int:
    """The id named `name` in the page's path; one that no game or server could have is a
    page that does not exist."""
    text = request.match_info[name]
    if not text.isascii() or not text.isdigit() or int(text) > MAX_ID:
        raise PageNotFoundError(t("There is no such page."))
    return int(text)
