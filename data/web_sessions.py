"""`WebSessionRepository` for both backends: their statements differ only in their
placeholders."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Generic

from data.queries import Params
from data.shared import D
from data.web import WebSession

#: A SHA-256 in hex, as `data.web.token_hash` writes it.
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


class WebSessions(Generic[D]):
    def __init__(self, db: D) -> None:
        self.db = db

    async def create_session(
        self,
        token_hash: str,
        user_id: int,
        user_name: str,
        guild_ids: Collection[int],
        now: float,
        expires_at: float,
    ) -> None:
        if not _SHA256_HEX.fullmatch(token_hash):
            raise ValueError("a session is kept by its token's SHA-256 in hex, not the token")
        p = Params(self.db.mark)
        values = ", ".join(
            [
                p(token_hash),
                p(user_id),
                p(user_name),
                p(json.dumps(sorted(set(guild_ids)))),
                p(now),
                p(expires_at),
            ]
        )
        await self.db.write(
            "INSERT INTO web_sessions (token_hash, user_id, user_name, guild_ids, created_at,"
            f" expires_at) VALUES ({values}) ON CONFLICT (token_hash) DO UPDATE SET"
            " user_id = excluded.user_id, user_name = excluded.user_name,"
            " guild_ids = excluded.guild_ids, created_at = excluded.created_at,"
            " expires_at = excluded.expires_at",
            p.values,
        )

    async def session(self, token_hash: str, now: float) -> WebSession | None:
        p = Params(self.db.mark)
        rows = await self.db.fetch(
            "SELECT user_id, user_name, guild_ids, expires_at FROM web_sessions"
            f" WHERE token_hash = {p(token_hash)} AND expires_at > {p(now)}",
            p.values,
        )
        if not rows:
            return None
        user_id, user_name, guild_ids, expires_at = rows[0]
        return WebSession(
            int(user_id), str(user_name), frozenset(json.loads(guild_ids)), float(expires_at)
        )

    async def end_session(self, token_hash: str) -> None:
        mark = self.db.mark
        await self.db.write(f"DELETE FROM web_sessions WHERE token_hash = {mark(1)}", (token_hash,))

    async def prune_sessions(self, now: float, limit: int) -> int:
        p = Params(self.db.mark)
        # The oldest expired first, read from the index on expires_at.
        rows = await self.db.write(
            "DELETE FROM web_sessions WHERE token_hash IN (SELECT token_hash FROM web_sessions"
            f" WHERE expires_at <= {p(now)} ORDER BY expires_at LIMIT {p(limit)})"
            " RETURNING 1",
            p.values,
        )
        return len(rows)
