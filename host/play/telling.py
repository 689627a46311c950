"""Telling a game's channel of the moves made away from it (on the web pages, in the
Activity), as a move made on Discord is told there.

A move made on a page is committed with a mark on the game (`untold_from`: the ply of the
first move its channel has not been told). The process that owns the channel's server sees
the mark (the change feed wakes it at once; its sweep finds any it missed, after a restart
say), lets the computers answer as they answer a move on Discord, posts the board with
every untold move in words, and only then clears the mark up to the ply it told: a
restart between the post and the clearing tells the moves again rather than never.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from data.repository import TimeKeeping
from host.model import Channel, Reply, Where
from host.play import rounds
from host.play.computer_turns import ComputerTurns
from host.play.live import LiveGames
from host.play.playing import FinishHook
from host.present.boards import Boards
from host.present.presenter import Presenter
from host.present.words import Happened

log = logging.getLogger(__name__)

#: Posts replies where a game is played (the front-end's own way of posting).
Poster = Callable[[Where, list[Reply]], Awaitable[None]]
#: Games told per sweep at most; the rest wait for the next.
SWEEP_BATCH = 100


class Telling:
    def __init__(
        self,
        live: LiveGames,
        computers: ComputerTurns,
        presenter: Presenter,
        boards: Boards,
        shards: TimeKeeping | None,
        finish_hooks: Sequence[FinishHook] = (),
    ) -> None:
        self.live = live
        self.computers = computers
        self.presenter = presenter
        self.boards = boards
        #: The servers whose channels this process tells (None: all).
        self.shards = shards
        self.finish_hooks = finish_hooks
        #: Games being told by this process now, and those changed again meanwhile.
        self._telling: set[int] = set()
        self._again: set[int] = set()

    async def tell(self, game_id: int, post: Poster) -> bool:
        """Tell the game's channel of its untold moves, if this process owns its server;
        whether anything was posted. A game already being told here is told again once
        that ends, so that a move made meanwhile is not left untold."""
        if game_id in self._telling:
            self._again.add(game_id)
            return False
        self._telling.add(game_id)
        posted = False
        try:
            while True:
                self._again.discard(game_id)
                posted |= await self._tell_once(game_id, post)
                if game_id not in self._again:
                    return posted
        finally:
            self._telling.discard(game_id)

    async def sweep(self, post: Poster) -> int:
        """Tell every game of this process's servers with untold moves (those the change
        feed did not wake it for); how many were posted."""
        told = 0
        for game_id in await self.live.repository.untold_games(self.shards, SWEEP_BATCH):
            try:
                told += await self.tell(game_id, post)
            except Exception:
                log.exception("game %s: telling its channel of its moves failed", game_id)
        return told

    async def _tell_once(self, game_id: int, post: Poster) -> bool:
        repository = self.live.repository
        cached = self.live.cached(game_id)
        shards = self.shards
        if cached is not None and shards is not None and not shards.owns(cached.record.guild_id):
            return False  # another process's server: no read for it
        since = await repository.untold(game_id, self.shards)
        if since is None:
            return False
        loaded = await self.live.locked_load(game_id, fresh=True)
        # The moves up to the game as loaded (one made since is told next time).
        steps = [
            step
            for step in await self.live.moves_since(game_id, since)
            if step[0].record.ply < loaded.record.ply
        ]
        told_to = loaded.record.ply
        told: list[Happened] = []
        for i, (before, seat, move) in enumerate(steps):
            after = loaded if i == len(steps) - 1 else steps[i + 1][0]
            name = loaded.record.seats[seat].user.name
            told.append(self.presenter.moved(before, after, seat, move, name))
        acted = {seat for _, seat, _ in steps}
        asked_before = steps[0][0].state.to_act if steps else loaded.state.to_act
        posted = False
        channel_id = loaded.record.channel_id
        if channel_id is not None:
            loaded, answered = await self.computers.answer(loaded)
            told_to = max([told_to, *(h.after.record.ply for h in answered if h.after)])
            pings = self.presenter.pings(loaded, asked_before, acted)
            everything = told + answered
            if not rounds.nothing_to_post(loaded, everything, pings):
                reply = await self.boards.board(loaded, everything, pings)
                replies = [] if reply.ephemeral else [reply]
                if loaded.record.status == "finished":
                    for hook in self.finish_hooks:
                        replies += await hook(loaded)
                if replies:
                    where = Channel(channel_id, loaded.record.guild_id)
                    await post(where, replies)
                    posted = True
        # Told up to the last move the post tells, the computers' answers included: a move
        # made on a page after it is told next time; one made on Discord was told there.
        await repository.mark_told(game_id, since, told_to)
        return posted
