"""Telling games' channels what they were not told: changes committed by another process
(a web page served apart from the bot), or before a restart. The change feed wakes this
process for a game that changed (`tell`); its sweep finds any it missed (`sweep`). Each
goes through the announcer, which tells a game once, in order."""

from __future__ import annotations

import logging

from data.repository import TimeKeeping
from host.announce.announcer import Announcer, Poster

log = logging.getLogger(__name__)

#: Games told per sweep at most; the rest wait for the next.
SWEEP_BATCH = 100


class Telling:
    def __init__(self, announcer: Announcer, shards: TimeKeeping | None) -> None:
        self.announcer = announcer
        self.repository = announcer.live.repository
        #: The servers whose channels this process tells (None: all).
        self.shards = shards

    async def tell(self, game_id: int, post: Poster) -> bool:
        """Tell the game's channel what it has not been told, with `post`, if this process
        owns its server; whether anything was posted."""
        return await self.announcer.tell_stored(game_id, post)

    async def sweep(self, post: Poster) -> int:
        """Tell every game of this process's servers with untold changes; how many posts
        were made."""
        told = 0
        for game_id in await self.repository.untold_games(self.shards, SWEEP_BATCH):
            try:
                told += await self.tell(game_id, post)
            except Exception:
                log.exception("game %s: telling its channel of its changes failed", game_id)
        return told
