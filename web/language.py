"""The language a page is written in: the one chosen on the site (a cookie), else the
browser's first that the bot speaks, else English."""

from __future__ import annotations

from aiohttp import web

from host.face import ENGLISH, language_of

COOKIE = "hilltop_lang"


def chosen(request: web.Request) -> str:
    asked = request.query.get("lang") or request.cookies.get(COOKIE)
    if asked:
        return language_of(asked)
    for part in request.headers.get("Accept-Language", "").split(","):
        tag = part.split(";")[0].strip()
        if tag and tag != "*" and language_of(tag) != ENGLISH:
            return language_of(tag)
        if tag.lower().startswith("en"):
            return ENGLISH
    return ENGLISH
