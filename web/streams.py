"""Server-Sent Events of live pages (a game's, a tournament's): each open stream is woken
through a `Hub` when what its page shows may have changed, and sends the page's changing
part, laid out once per language however many streams watch the same page."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from host.face import PageNotFoundError, SignInNeededError
from web.hub import CLOSING, Hub

#: A comment sent down an idle event stream, so that proxies keep it open.
KEEPALIVE = 25.0
#: How long one write may wait for a reader who stopped reading before the stream is closed.
WRITE_TIMEOUT = 30.0
#: How many streams one visitor (their session, or their address) may have open at once...
PER_VISITOR = 8
#: ...and all visitors together; those above are refused (503), told to come back later.
IN_ALL = 2000
#: The seconds a refused stream is told to wait (`Retry-After`).
RETRY_AFTER = 30


class Gate:
    """Counts the open streams, each visitor's and all together, against the caps above."""

    def __init__(self) -> None:
        self._open: Counter[str] = Counter()
        self._total = 0

    @contextmanager
    def opening(self, visitor: str) -> Iterator[bool]:
        """Whether `visitor` may open one more stream; if so, it is counted until the block
        ends."""
        if self._total >= IN_ALL or self._open[visitor] >= PER_VISITOR:
            yield False
            return
        self._open[visitor] += 1
        self._total += 1
        try:
            yield True
        finally:
            self._total -= 1
            self._open[visitor] -= 1
            if not self._open[visitor]:
                del self._open[visitor]


@dataclass(frozen=True, slots=True)
class Laid:
    """A page's changing part, as its streams send it."""

    #: The server whose page it is: each stream checks that its reader may still see it.
    server: int
    #: What the page shows, named: a stream sends the part only when its key changed.
    key: str
    #: The event, written once and sent as it is down every stream of the page.
    body: bytes


def sse(kind: str, key: str, data: dict[str, Any]) -> bytes:
    """One event of a stream: its kind, its id (`key`) and its data as JSON."""
    body = json.dumps(data, separators=(",", ":"))
    return f"id: {key}\nevent: {kind}\ndata: {body}\n\n".encode()


async def follow(
    request: web.Request,
    hub: Hub,
    watched: int,
    first: Callable[[], Awaitable[Laid]],
    layout: Callable[[int, str], Awaitable[Laid]],
    chosen: str,
    allowed: Callable[[int], Awaitable[object]],
) -> web.StreamResponse:
    """The stream of the page `watched` by `hub`: `first()` reads it as it is (refusing
    a reader who may not see it before any stream opens), `layout(watched, chosen)` again
    after each change, shared by the streams that chose the same (language and prefix);
    `allowed(server)` refuses a reader who may no longer see it."""
    # Listening before the page is read: a change committed from then on wakes the
    # stream, however soon after the read it comes.
    queue = hub.join(watched)
    try:
        shown = await first()
    except BaseException:
        hub.leave(watched, queue)
        raise
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",
        }
    )
    try:
        await response.prepare(request)
        # What the page shows (its first connection) or last heard (a reconnection): a
        # change made in between is sent at once.
        seen = request.headers.get("Last-Event-ID") or request.query.get("since", "")
        key = shown.key
        if seen and seen != key:
            await send(request, response, shown.body)
        await send(request, response, b": open\n\n")
        while True:
            try:
                generation = await asyncio.wait_for(queue.get(), KEEPALIVE)
            except TimeoutError:
                await send(request, response, b": still here\n\n")
                continue
            if generation == CLOSING:
                break
            while not queue.empty():  # several changes at once: the latest is enough
                if queue.get_nowait() == CLOSING:
                    return response
            laid: Laid = await hub.layout(watched, chosen, layout)
            await allowed(laid.server)
            if laid.key != key:
                key = laid.key
                await send(request, response, laid.body)
    except (ConnectionResetError, PageNotFoundError, SignInNeededError):
        pass
    finally:
        hub.leave(watched, queue)
    return response


async def send(request: web.Request, response: web.StreamResponse, data: bytes) -> None:
    """Writes `data` down the stream; a reader who has not taken it within `WRITE_TIMEOUT`
    (their socket is full: they stopped reading) loses the connection."""
    try:
        await asyncio.wait_for(response.write(data), WRITE_TIMEOUT)
    except TimeoutError:
        if request.transport is not None:
            request.transport.abort()
        raise ConnectionResetError("the reader stopped reading") from None
