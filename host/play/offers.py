"""Offers between the two players of a duel, accepted: a draw agreed, a move taken back.

An offer's buttons name the game, the ply it was made at and the seat that made it, so
an offer lapses by itself when a move is made, survives a restart, and can be answered
only by the one it is for. A takeback is logged as an undo entry: the history is never
rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass

from data.repository import StalePlyError
from data.results import Ending
from engine.text import t
from host.model import ServiceError, StaleControlsError, User
from host.play.changes import Change, Kind
from host.play.commit import Commits
from host.play.deadlines import first_deadline
from host.play.live import UNDO, Loaded
from host.play.results import ended

LAPSED = t("This offer lapsed: a move was made since, or the game ended.")


def answering(before: Loaded, ply: int, offering: int, user: User) -> None:
    """Nothing, if `user` may answer the offer `offering` (a seat) made at `ply`; else why
    not."""
    record = before.record
    if record.status != "active" or record.ply != ply:
        raise StaleControlsError(LAPSED)
    if not 0 <= offering < len(record.seats) or len(record.seats) != 2:
        raise ServiceError(t("That button is not one of mine."))
    other = record.seats[1 - offering].user
    if other.id != user.id:
        raise ServiceError(t("This offer is for {name} to answer, not you.", name=other.name))


@dataclass(frozen=True, slots=True)
class AcceptDraw:
    """`user` accepts the draw `offering` offered at `ply`."""

    user: User
    offering: int
    ply: int
    fresh: bool = True

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        answering(before, self.ply, self.offering, self.user)
        after = await commits.close(before, ended(before, Ending.AGREED_DRAW))
        return Change(Kind.CLOSED, after, actor=self.user, acted=frozenset({1 - self.offering}))


@dataclass(frozen=True, slots=True)
class TakeBack:
    """`user` lets `offering` take back their last move, asked at `ply`: an undo entry in
    the log, the position before that move as the new snapshot."""

    user: User
    offering: int
    ply: int
    fresh: bool = True

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        answering(before, self.ply, self.offering, self.user)
        previous = before.previous
        if previous is None or before.last_move is None:
            raise StaleControlsError(LAPSED)
        record = before.record
        now = commits.clock()
        timer = first_deadline(before.game, previous, before.players, before.options, now)
        try:
            await commits.live.repository.append_move(
                record.id,
                record.ply,
                self.offering,
                record.seats[self.offering].user.id,
                UNDO,
                previous.to_text(),
                now,
                None,
                timer,
                untold=record.channel_id is not None,
            )
        except StalePlyError:
            raise StaleControlsError(LAPSED) from None
        commits.live.forget(record.id)
        after = await commits.live.load(record.id)
        return Change(
            Kind.TAKEN_BACK,
            after,
            actor=self.user,
            seats=(self.offering,),
            taken=previous.move_text(before.last_move),
        )
