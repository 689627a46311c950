"""What one committed change of a game did, as a value: what the announcer tells from.

Every change of a game (a move from any front-end or a computer, a default move on a
deadline, an accepted offer, a takeback, a start, a resignation, an admin's end) is
committed by `host.play.commit` and returns a `Change`. It holds facts only: the game
after it, the moves it made, who acted, who was asked to act before it; the words and
the board are made from it above, by the announcer.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from enum import StrEnum

from data.results import GameResult
from engine.text import Text
from host.model import User
from host.play.live import Loaded


class Kind(StrEnum):
    """What kind of change a game went through."""

    #: Moves were made (by a person, a computer, or a deadline's default).
    MOVED = "moved"
    #: A challenge was made, or accepted by one of those it asks and not yet by all.
    CHALLENGED = "challenged"
    #: A challenge was declined, withdrawn, or left unanswered until it closed.
    CHALLENGE_CLOSED = "challenge closed"
    #: A game began (stored live, or its last challenged player accepted).
    STARTED = "started"
    #: A resigner's seats were handed to a computer, and the game goes on.
    HANDED_OVER = "handed over"
    #: A game ended other than by a move (resigned, agreed, claimed, ended by an admin).
    CLOSED = "closed"
    #: A move was taken back, with the other player's leave.
    TAKEN_BACK = "taken back"
    #: A decision without a default ran out of time: its clock stopped, the win is offered.
    EXPIRED = "expired"
    #: Nothing was changed here: the game as stored, to tell what is still untold in it
    #: (changes committed by another process, or before a restart).
    SEEN = "seen"


@dataclass(frozen=True, slots=True)
class Step:
    """One move a change made: the game before and after it, the seat that made it, and
    the move."""

    before: Loaded
    seat: int
    move: Hashable
    after: Loaded
    #: The person who made it, as the game names them (None: the seat's own holder).
    by: str | None = None
    #: Played for the seat by its deadline's default.
    default: bool = False


@dataclass(frozen=True, slots=True)
class Change:
    """One committed change of a game, and what it did."""

    kind: Kind
    #: The game after the change.
    after: Loaded
    #: The moves it made, in order (none for a change that made no move).
    steps: tuple[Step, ...] = ()
    #: The person who made it (None: a computer, a deadline, nobody in particular).
    actor: User | None = None
    #: The seats that acted: they are not pinged about their own change.
    acted: frozenset[int] = frozenset()
    #: The seats asked to act before the change: those asked after it, and not before,
    #: are newly asked (and pinged).
    asked_before: frozenset[int] = frozenset()
    #: The seats taken back or handed over, for a change that names them.
    seats: tuple[int, ...] = ()
    #: The move taken back, in the notation of the game before it.
    taken: str | None = None
    #: What the person who made the change adds to it (a rematch's offer, what a record
    #: read into the start says), told above it.
    note: Text | None = None

    @property
    def game_id(self) -> int:
        return self.after.id

    @property
    def first_ply(self) -> int:
        """The ply the game was at before this change."""
        return self.steps[0].before.record.ply if self.steps else self.after.record.ply

    @property
    def result(self) -> GameResult | None:
        """How the game ended, if this change (or an earlier one) ended it."""
        return None if self.after.record.is_live else self.after.record.result

    @property
    def ended(self) -> bool:
        return not self.after.record.is_live


def seen(loaded: Loaded) -> Change:
    """The game as stored, changed by nobody here."""
    return Change(Kind.SEEN, loaded, asked_before=loaded.state.to_act)
