"""Signing in on the web: a person who signed in with Discord gets a random token (kept in
their browser's cookie); the database keeps only the token's hash, with who they are and
which servers they are in, so that every process serving pages knows them."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Collection

from data.web import WebSessionRepository
from host.pages.views import Visitor

#: How long a sign-in lasts.
SESSION_SECONDS = 7 * 24 * 3600
#: Expired sessions removed at each sign-in, at most.
PRUNE = 100


def hashed(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Sessions:
    def __init__(self, repository: WebSessionRepository, clock: Callable[[], float]) -> None:
        self.repository = repository
        self.clock = clock

    async def sign_in(self, user_id: int, name: str, guild_ids: Collection[int]) -> str:
        """A new session for the person; its token, for the cookie."""
        now = self.clock()
        await self.repository.prune_sessions(now, PRUNE)
        token = secrets.token_urlsafe(32)
        await self.repository.create_session(
            hashed(token), user_id, name, guild_ids, now, now + SESSION_SECONDS
        )
        return token

    async def visitor(self, token: str | None, language: str) -> Visitor:
        """Who holds `token` (nobody, if no session has it or it has expired)."""
        if token:
            found = await self.repository.session(hashed(token), self.clock())
            if found is not None:
                return Visitor(found.user_id, found.user_name, found.guild_ids, language)
        return Visitor(language=language)

    async def sign_out(self, token: str) -> None:
        await self.repository.end_session(hashed(token))
