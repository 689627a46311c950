"""How a game is set up: what a front-end asks for, and what is stored with the game.

`GameSetup` is built once by each front-end (a Discord command, a console line) from the
options a person gave; the service checks it and starts the game. `GameOptions` is the
part kept with the game for its whole life (the computer's level, the time per
decision), stored as a small JSON object and read back typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Self

from engine import ai

#: The computer levels players choose from; the engine has more, for measurement.
LEVELS = ("easy", "normal", "hard")
MAX_DEADLINE_MINUTES = 30 * 24 * 60
#: The last reminder before a decision runs out comes this long before it (by default).
REMIND_BEFORE_SECONDS = 3600
#: Computer seats one game may add (Everest: one person and three computer yeti).
MAX_COMPUTERS = 3
#: A seed fits a Discord integer option (and a JavaScript number).
MAX_SEED = 2**53 - 1


class SeatChoice(StrEnum):
    """Where the person who starts a game of two sits."""

    FIRST = "first"
    SECOND = "second"
    #: Lots drawn from the seed.
    RANDOM = "random"


@dataclass(frozen=True, slots=True)
class GameSetup:
    """A game as a person asked for it, before it is checked. None: the default."""

    game: str
    #: Computer players seated after the people.
    computers: int = 0
    #: The seed of the random set-up (dice, hills, lots for seats); random when None.
    seed: int | None = None
    #: Where the challenger sits; None: the game's way (`Game.draw_seats`).
    seat: str | None = None
    variant: str | None = None
    #: A starting position in the game's notation, instead of the usual start.
    position: str | None = None
    #: A game's record (`host.history.records`) to start from, after `ply` of its moves (all if
    #: None), instead of the usual start. Once the record is read, `position` holds where
    #: it stood then and `ply` how many of its moves led there.
    record: str | None = None
    ply: int | None = None
    #: How strongly the computer players play (one of `LEVELS`).
    level: str | None = None
    #: Minutes each decision may take before its default is played.
    deadline_minutes: int | None = None
    #: A player's away time stops their clock in this game (a tournament may say no).
    away: bool = True


@dataclass(frozen=True, slots=True)
class GameOptions:
    """What a game keeps of its set-up for its whole life."""

    level: str = ai.DEFAULT_LEVEL
    #: Seconds per decision, when the game's own default was overridden.
    deadline_seconds: int | None = None
    #: Seats a computer took over from a player who resigned, in that order.
    taken_over: tuple[int, ...] = ()
    #: The last reminder comes this long before a decision runs out (0: only half-way).
    remind_before: int = REMIND_BEFORE_SECONDS
    #: The deadline was chosen for this game (`/play deadline:`), not the server's.
    deadline_chosen: bool = False
    #: The people who resigned and left their seats to a computer (user ids, in order):
    #: the rating counts them behind everyone still playing.
    resigned: tuple[int, ...] = ()
    #: The game started from another game's record, after this many of its moves
    #: (`/play record: ply:`); None: from the usual start or a position.
    from_record: int | None = None
    #: A player's away time stops their clock here.
    away: bool = True

    @classmethod
    def of(cls, setup: GameSetup) -> Self:
        seconds = setup.deadline_minutes * 60 if setup.deadline_minutes is not None else None
        from_record = setup.ply if setup.position is not None else None
        return cls(
            setup.level or ai.DEFAULT_LEVEL, seconds, from_record=from_record, away=setup.away
        )

    def stored(self) -> dict[str, Any]:
        """The JSON object kept in the database (the keys are the stored format)."""
        stored: dict[str, Any] = {"level": self.level}
        if self.deadline_seconds is not None:
            stored["deadline"] = self.deadline_seconds
        if self.taken_over:
            stored["taken_over"] = list(self.taken_over)
        if self.remind_before != REMIND_BEFORE_SECONDS:
            stored["remind_before"] = self.remind_before
        if self.deadline_chosen:
            stored["deadline_chosen"] = True
        if self.resigned:
            stored["resigned"] = list(self.resigned)
        if self.from_record is not None:
            stored["from_record"] = self.from_record
        if not self.away:
            stored["away"] = False
        return stored

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> Self:
        level = stored.get("level")
        deadline = stored.get("deadline")
        taken = stored.get("taken_over")
        remind = stored.get("remind_before")
        resigned = stored.get("resigned")
        from_record = stored.get("from_record")
        return cls(
            level if isinstance(level, str) else ai.DEFAULT_LEVEL,
            deadline if isinstance(deadline, int) and deadline > 0 else None,
            tuple(s for s in taken if isinstance(s, int)) if isinstance(taken, list) else (),
            remind if isinstance(remind, int) and remind >= 0 else REMIND_BEFORE_SECONDS,
            stored.get("deadline_chosen") is True,
            tuple(u for u in resigned if isinstance(u, int)) if isinstance(resigned, list) else (),
            from_record if isinstance(from_record, int) and from_record >= 0 else None,
            stored.get("away") is not False,
        )
