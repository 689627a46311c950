"""The one way a game changes: `Commits.apply`.

Every change of a game (a move from any front-end or a computer, a default move on a
deadline, an accepted offer, a takeback, a start, a resignation, an admin's end) is an
`Act`. `apply` takes the game's lock once, reads the game (from memory when it is there),
lets the act judge and commit it with one ply-guarded write, and returns the `Change`.
If the act was judged on a memory that another process has made stale, it is judged
again on the stored game, so nothing is refused by stale memory or applied twice.
Nothing here draws or formats: the announcer (`host.announce`) tells the change.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Protocol

from data.repository import GameRecord, HandOver, NewGame, StalePlyError
from data.results import GameResult
from engine.text import t
from host.model import ServiceError, User
from host.play.changes import Change
from host.play.live import LiveGames, Loaded
from host.play.moves import Moves

#: Stores a new game with what must be written in the same transaction (an event's table
#: linked to it); returns it as stored.
Store = Callable[[NewGame, float], Awaitable[GameRecord]]


class Act(Protocol):
    """One kind of change, judged and committed on the game as read under its lock."""

    #: Whether the game must be read as stored (not from memory) before judging: acts
    #: that answer a post made earlier (a claim, an offer's answer, an admin's end).
    @property
    def fresh(self) -> bool: ...

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        """Judge the act on `before` (ServiceError, changing nothing, if it may not be
        done) and commit it with one ply-guarded write."""
        ...


class Commits:
    """The game's lock, the read, the judging and the write of every change."""

    def __init__(
        self, live: LiveGames, moves: Moves, bot_user: User, clock: Callable[[], float]
    ) -> None:
        self.live = live
        self.moves = moves
        self.bot_user = bot_user
        self.clock = clock

    async def apply(self, game_id: int, act: Act) -> Change:
        """Judge and commit `act` on game `game_id`, under the game's lock."""
        async with self.live.lock(game_id):
            before = await self.live.load(game_id, fresh=act.fresh)
            try:
                return await act.commit(self, before)
            except ServiceError:
                # Judged on this process's memory of the game: if another process has
                # changed it meanwhile, judge again on the stored game.
                if act.fresh or not await self.live.changed_elsewhere(before):
                    raise
                before = await self.live.load(game_id)
                return await act.commit(self, before)

    async def create(
        self, new: NewGame, loaded: Callable[..., Loaded], store: Store | None = None
    ) -> Loaded:
        """Store a new game (LiveGameExistsError if its channel has one) and, when it is
        live, keep it in memory: `loaded(record)` is the game as it starts. `store` writes
        it instead of the usual write (with what must be written with it)."""
        record = await (store or self.live.repository.create_game)(new, self.clock())
        async with self.live.lock(record.id):
            return self.live.remember(loaded(record))

    async def close(
        self, loaded: Loaded, result: GameResult, hand_over: HandOver | None = None
    ) -> Loaded:
        """End a game not over by its rules (resigned, ended by an admin, claimed, drawn
        by agreement) at the ply it was read at: the game after. `hand_over`: seats that
        change hands as it ends. Call under the game's lock."""
        try:
            record = await self.live.repository.close_game(
                loaded.id,
                loaded.record.ply,
                result.status,
                result,
                self.clock(),
                hand_over=hand_over,
                untold=loaded.record.channel_id is not None,
            )
        except StalePlyError:
            raise ServiceError(t("The game moved on; try again.")) from None
        return self.live.remember(replace(loaded, record=record))
