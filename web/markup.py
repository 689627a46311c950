"""The light markup of the service's texts (Discord's: **bold**, `code`, <t:…:R> times,
[links](…)) as HTML, everything else escaped."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime

from markupsafe import Markup, escape

_TIME = re.compile(r"&lt;t:(\d{1,12})(?::([tTdDfFR]))?&gt;")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CODE = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)\s]+)\)")
_MENTION = re.compile(r"&lt;@!?(\d{1,20})&gt;")


def when(seconds: float) -> str:
    """An instant as the page first shows it (UTC; the page's script writes it in the
    reader's own time)."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


def time_tag(seconds: float, relative: bool = True) -> Markup:
    iso = datetime.fromtimestamp(seconds, UTC).isoformat()
    kind = "relative" if relative else "absolute"
    return Markup('<time datetime="{}" data-kind="{}">{}</time>').format(iso, kind, when(seconds))


def _time(match: re.Match[str]) -> str:
    try:
        return str(time_tag(int(match.group(1)), match.group(2) in (None, "R")))
    except (ValueError, OverflowError, OSError):
        # Past what a date can hold (after the year 9999): left as it was written.
        return match.group(0)


_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


def whole_dates(text: str) -> str:
    """Dates (2026-11-26) kept on one line: their hyphens do not break."""
    return _DATE.sub("\\1\u2011\\2\u2011\\3", text)


def rich(text: str, plain: Iterable[str] = ()) -> Markup:
    """`text` as HTML: escaped, then its markup made into tags; one paragraph per line.
    Where the text says one of `plain` (the players' names, which are theirs, not the
    service's), that is shown as written: no markup of a name is made into a tag."""
    html = whole_dates(str(escape(text))).replace("\0", "")
    kept: dict[str, str] = {}
    for n, name in enumerate(sorted({p for p in plain if p}, key=len, reverse=True)):
        shown = whole_dates(str(escape(name))).replace("\0", "")
        if shown and shown in html:
            mark = f"\0{n}\0"
            kept[mark] = shown
            html = html.replace(shown, mark)
    html = _TIME.sub(_time, html)
    html = _CODE.sub(r"<code>\1</code>", html)
    html = _BOLD.sub(r"<strong>\1</strong>", html)
    html = _LINK.sub(r'<a href="\2">\1</a>', html)
    html = _MENTION.sub("@…", html)
    for mark, shown in kept.items():
        html = html.replace(mark, shown)
    return Markup("<br>".join(html.split("\n")))
