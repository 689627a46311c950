"""Sign-in sessions of the web pages, kept in the database: several processes serve the
pages, and any of them may serve a signed-in person's next one.

The cookie holds a random token; the database holds only its SHA-256 (`token_hash`), so
that a copy of the database signs nobody in. Both backends keep sessions with the same
statements (`data.web_sessions`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol


def token_hash(token: str) -> str:
    """How a session's token is kept: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class WebSession:
    """A signed-in person: who they are on Discord, and the servers they are in."""

    user_id: int
    user_name: str
    guild_ids: frozenset[int]
    expires_at: float


class WebSessionRepository(Protocol):
    async def create_session(
        self,
        token_hash: str,
        user_id: int,
        user_name: str,
        guild_ids: Collection[int],
        now: float,
        expires_at: float,
    ) -> None:
        """Keep a session until `expires_at` (one with the same hash is replaced).
        ValueError if `token_hash` is not a SHA-256 in hex (`token_hash()`)."""
        ...

    async def session(self, token_hash: str, now: float) -> WebSession | None:
        """The session, unless there is none or it has expired (at `now`)."""
        ...

    async def end_session(self, token_hash: str) -> None:
        """Sign out: the session is gone (nothing happens if there was none)."""
        ...

    async def prune_sessions(self, now: float, limit: int) -> int:
        """Remove at most `limit` sessions expired at `now`, those that expired first;
        returns how many were removed."""
        ...
