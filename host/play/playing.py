"""Moves, resignations and the other ways a game goes on or ends, as acts committed by
`Commits.apply`: each returns the `Change` it made, for the announcer to tell."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace

from data.repository import HandOver
from data.results import Ending
from engine.core import MoveError
from engine.text import Text, t
from host.model import ServiceError, StaleControlsError, User
from host.play import seats
from host.play.changes import Change, Kind, Step
from host.play.commit import Commits
from host.play.live import Loaded, record_of
from host.play.moves import GAME_OVER, MOVED_ON
from host.play.results import ended


@dataclass(frozen=True, slots=True)
class Move:
    """`user` plays `text`. With `ply` (a button), the game must still be where the button
    was drawn; a typed move is checked against the position as it is. With `offered_at`
    (a page drawn at that ply), the move must still be the user's to make as it was
    offered then, else it is refused with `stale`."""

    user: User
    text: str
    ply: int | None = None
    offered_at: int | None = None
    stale: Text | None = None
    #: The mover as the game names them (None: the seat's label).
    name: str | None = None
    fresh: bool = False

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        if self.offered_at is not None and not commits.moves.still_offered(
            before, self.offered_at, self.user
        ):
            raise StaleControlsError(self.stale or MOVED_ON)
        seat, move, state = commits.moves.judge(before, self.ply, self.user, self.text)
        after = await commits.moves.commit(before, seat, self.user, move, state)
        step = Step(before, seat, move, after, by=self.name or self.user.name)
        return Change(
            Kind.MOVED,
            after,
            (step,),
            actor=self.user,
            acted=frozenset({seat}),
            asked_before=before.state.to_act,
        )


@dataclass(frozen=True, slots=True)
class Resign:
    """In a game of two the other player wins; in a larger game a computer takes the
    resigner's seats and the game goes on, unless no person is left to play it: then it
    ends there, won by nobody."""

    user: User
    fresh: bool = False

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        if before.record.status != "active":
            raise ServiceError(GAME_OVER)
        mine = before.record.seats_of(self.user.id)
        if not mine:
            raise ServiceError(seats.not_a_player(before))
        acted = frozenset(mine)
        if len(before.record.seats) <= 2:
            others = [s.seat for s in before.record.seats if s.seat not in mine]
            winners = others if len(others) == 1 else []
            resigned = ended(before, Ending.RESIGNED, winners=winners, by=mine)
            after = await commits.close(before, resigned)
            return Change(Kind.CLOSED, after, actor=self.user, acted=acted)
        hand_over = _hand_over_to_computer(before, mine, commits.bot_user)
        if all(s.user.is_bot for s in before.record.seats if s.seat not in mine):
            # The seats change hands as the game ends, in one transaction: never a live
            # game of computers alone. The resigner is named as the person, not as the
            # computer now in the seat.
            last = ended(before, Ending.RESIGNED, by=mine, actor=self.user)
            after = await commits.close(before, last, hand_over)
            return Change(Kind.CLOSED, after, actor=self.user, acted=acted)
        record = await commits.live.repository.replace_seats(
            before.id, hand_over.seats, hand_over.user, hand_over.options
        )
        after = commits.live.remember(replace(before, record=record))
        return Change(
            Kind.HANDED_OVER,
            after,
            actor=self.user,
            acted=acted,
            asked_before=before.state.to_act,
            seats=mine,
        )


def _hand_over_to_computer(loaded: Loaded, mine: tuple[int, ...], bot_user: User) -> HandOver:
    """A computer takes over the resigner's seats; the resigner can no longer win."""
    people = [loaded.record.seats[s].user.id for s in mine[:1]]
    options = replace(
        loaded.options,
        taken_over=(*loaded.options.taken_over, *mine),
        resigned=(*loaded.options.resigned, *people),
    )
    return HandOver(mine, record_of(bot_user), options.stored())


@dataclass(frozen=True, slots=True)
class EndByAdmin:
    """An admin ends the game, won by nobody."""

    user: User
    fresh: bool = True

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        if not before.record.is_live:
            raise ServiceError(GAME_OVER)
        # An admin who plays in the game ended it: the end pings the others, not them.
        mine = frozenset(before.record.seats_of(self.user.id)[:1])
        after = await commits.close(before, ended(before, Ending.ADMIN, actor=self.user))
        return Change(Kind.CLOSED, after, actor=self.user, acted=mine)


@dataclass(frozen=True, slots=True)
class Claim:
    """The win claimed by a player whose opponent's time ran out (a game of two), on the
    board drawn at `ply`. Two claims at once record one result: the close is guarded by
    the ply."""

    user: User
    ply: int
    fresh: bool = True

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        record = before.record
        if record.status != "active":
            raise StaleControlsError(GAME_OVER)
        if record.expired_at is None or record.ply != self.ply:
            raise StaleControlsError(
                t("The move came after all: there is no win to claim. The game goes on.")
            )
        claimants = seats.claimants(before)
        mine = [s for s in claimants if s.user.id == self.user.id]
        if not mine:
            names = ", ".join(s.user.name for s in claimants) or str(t("nobody"))
            raise ServiceError(
                t("Only {names} may claim this win; it is not yours to claim.", names=names)
            )
        seat = mine[0].seat
        claimed = ended(before, Ending.CLAIMED, winners=(seat,), by=(seat,))
        after = await commits.close(before, claimed)
        return Change(Kind.CLOSED, after, actor=self.user, acted=frozenset({seat}))


@dataclass(frozen=True, slots=True)
class ComputerMove:
    """The computer in `seat` plays `move`, chosen at `ply`: refused (ServiceError
    `MOVED_ON`) when the game moved on meanwhile so that the decision is no longer its
    to make; seats deciding `together` (in secret) may have made theirs meanwhile."""

    seat: int
    move: Hashable
    ply: int
    together: bool
    fresh: bool = False

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        if not _still_to_choose(before, self.seat, self.ply, self.together):
            raise ServiceError(MOVED_ON)
        try:
            state = before.state.play(self.seat, self.move)
        except MoveError:
            raise ServiceError(MOVED_ON) from None
        after = await commits.moves.commit(before, self.seat, commits.bot_user, self.move, state)
        return Change(
            Kind.MOVED,
            after,
            (Step(before, self.seat, self.move, after),),
            acted=frozenset({self.seat}),
            asked_before=before.state.to_act,
        )


def _still_to_choose(loaded: Loaded, seat: int, ply: int, together: bool) -> bool:
    """Whether a decision `seat` thought about at `ply` is still its to make: nothing
    happened since, or (seats deciding together) only the other seats' decisions."""
    if loaded.record.status != "active":
        return False
    if together:
        return loaded.only_others_moved({seat}, ply)
    return loaded.record.ply == ply and seat in loaded.state.to_act
