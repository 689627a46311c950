"""How a game ended, as facts: the value every ending builds and the database keeps.

A result holds no words. Who won (seats), the final scores, how it ended (one of a
closed set of endings) and who did it are stored; each reader is given the sentence in
their own language when it is shown (the host writes it). A game that ended by its
rules names the game's own reason code; the words for it come from the final position.

Stored as a JSON object:

    {"ending": "resigned", "winners": [1], "scores": [38, 34], "by": [0],
     "code": "", "aborted": false, "actor": null}

`by` lists the seats that resigned, claimed the win or ran out of time; `actor` is the
person outside the seats who ended it (an admin) or answered a challenge, as
`{"id": …, "name": …}` (a name is a fact about a person, not a word of a language).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal


class Ending(StrEnum):
    """How a game ended: the closed set every reader knows how to tell."""

    #: By the game's own rules (its reason code says which rule).
    RULES = "rules"
    #: A player resigned (`by`); in a larger game, the last person left did.
    RESIGNED = "resigned"
    #: The two players agreed a draw.
    AGREED_DRAW = "agreed_draw"
    #: A player's time ran out and another claimed the win (`by`: the claimant).
    CLAIMED = "claimed"
    #: The last move was a default played for a player whose time ran out (`by`).
    TIMED_OUT = "timed_out"
    #: An admin of the server ended it (`actor`).
    ADMIN = "admin"
    #: A daily hill closed before its run was over; the run is scored as it stood.
    HILL_CLOSED = "hill_closed"
    #: A challenge that never became a game: declined, withdrawn, or left unanswered.
    DECLINED = "declined"
    WITHDRAWN = "withdrawn"
    EXPIRED = "expired"


#: Endings in which the game was not played to the end of its rules.
OFF_THE_BOARD = frozenset(
    {Ending.RESIGNED, Ending.AGREED_DRAW, Ending.CLAIMED, Ending.TIMED_OUT, Ending.ADMIN}
)


@dataclass(frozen=True, slots=True)
class Actor:
    """A person who ended a game from outside its seats."""

    id: int
    name: str


@dataclass(frozen=True, slots=True)
class GameResult:
    ending: Ending
    #: The winning seats; empty for a draw, a solo game or a game nobody won.
    winners: tuple[int, ...] = ()
    #: The final score of each seat, by seat (empty where the game keeps none).
    scores: tuple[int, ...] = ()
    #: The seats that resigned, claimed or ran out of time.
    by: tuple[int, ...] = ()
    #: The game's own code for the rule that ended it (with `Ending.RULES`).
    code: str = ""
    #: Ended before every person in it had made a move: recorded, never rated.
    aborted: bool = False
    actor: Actor | None = field(default=None)

    @property
    def is_draw(self) -> bool:
        return self.ending in (Ending.RULES, Ending.AGREED_DRAW) and not self.winners

    @property
    def status(self) -> Literal["finished", "aborted", "declined"]:
        """The status of a game that ended so: aborted (never rated) when it was aborted,
        ended by an admin or its hill closed; declined for a challenge; else finished."""
        if self.ending in (Ending.DECLINED, Ending.WITHDRAWN, Ending.EXPIRED):
            return "declined"
        if self.aborted or self.ending in (Ending.ADMIN, Ending.HILL_CLOSED):
            return "aborted"
        return "finished"

    def stored(self) -> dict[str, Any]:
        return {
            "ending": self.ending.value,
            "winners": list(self.winners),
            "scores": list(self.scores),
            "by": list(self.by),
            "code": self.code,
            "aborted": self.aborted,
            "actor": None if self.actor is None else {"id": self.actor.id, "name": self.actor.name},
        }

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> GameResult:
        """The result a stored object holds. Every stored row has this shape (the schema's
        migrations convert older ones); a field that is missing takes its default."""
        try:
            ending = Ending(stored.get("ending", Ending.RULES))
        except ValueError:
            ending = Ending.RULES
        actor = stored.get("actor")
        return cls(
            ending=ending,
            winners=_ints(stored.get("winners")),
            scores=_ints(stored.get("scores")),
            by=_ints(stored.get("by")),
            code=str(stored.get("code") or ""),
            aborted=bool(stored.get("aborted", False)),
            actor=Actor(int(actor["id"]), str(actor.get("name", "")))
            if isinstance(actor, dict) and isinstance(actor.get("id"), int)
            else None,
        )


def _ints(values: Any) -> tuple[int, ...]:
    if not isinstance(values, list):
        return ()
    return tuple(v for v in values if isinstance(v, int) and not isinstance(v, bool))


def dump_result(result: GameResult | None) -> str | None:
    """A result as the database keeps it (keys sorted; None stays NULL)."""
    return None if result is None else json.dumps(result.stored(), sort_keys=True)


def load_result(stored: str | None) -> GameResult | None:
    """The result a stored column holds (None: the game has none)."""
    if not stored:
        return None
    value = json.loads(stored)
    return GameResult.from_stored(value) if isinstance(value, dict) else None
