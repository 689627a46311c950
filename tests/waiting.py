"""Waiting in a test for what will surely happen: looked at again and again until it has,
against a deadline that only a hang reaches however busy the machine is, and failing then
with what was seen, rather than sleeping a while and hoping it came meanwhile."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable

#: Seconds to wait for what surely comes: only a hang takes this long.
PATIENCE = 60.0


async def until(
    ready: Callable[[], bool | Awaitable[bool]],
    what: str,
    *,
    seen: Callable[[], object] | None = None,
    within: float = PATIENCE,
) -> None:
    """Return once `ready()` (which may be awaitable) is true; fail, naming `what` was
    waited for and what `seen()` says there is, if it is not within `within` seconds."""
    deadline = time.monotonic() + within
    while True:
        answer = ready()
        if inspect.isawaitable(answer):
            answer = await answer
        if answer:
            return
        if time.monotonic() > deadline:
            there = f"; there is {seen()!r}" if seen is not None else ""
            raise AssertionError(f"waited {within:g} s in vain for {what}{there}")
        await asyncio.sleep(0.01)
