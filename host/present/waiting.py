"""A player's games as their own lists show them (`/games mine`, the `/me` page): the
games waiting for the player first, the soonest to run out first, and the words for when
each runs out, written once so that every list says it alike."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from data.repository import GameRecord
from engine.text import t
from host import i18n
from host.play.live import game_of
from host.play.timeouts import CHALLENGE_SECONDS


@dataclass(frozen=True, slots=True)
class Turn:
    """One of a player's live games, as it stands for them."""

    record: GameRecord
    #: The game waits for the player: their decision in a game in play, or their answer
    #: to a challenge.
    waiting: bool
    #: When the pending decision runs out (a challenge: when it lapses); None: never.
    deadline: float | None
    #: Since when the game has waited: the pending decision's timer started then (a
    #: challenge: when it was made).
    since: float
    #: The people whose decision is pending, by id, with their names.
    acting: tuple[tuple[int, str], ...] = ()


def turn_of(record: GameRecord, user_id: int) -> Turn:
    """Where the player stands in the game, from its stored position: no game is loaded,
    locked or replayed to list it."""
    if record.status == "challenge":
        pending = any(s.user.id == user_id and not s.accepted for s in record.seats)
        return Turn(record, pending, record.created_at + CHALLENGE_SECONDS, record.created_at)
    to_act = game_of(record.game).from_text(record.snapshot).to_act
    waiting = any(s.user.id == user_id for s in record.seats if s.seat in to_act)
    since = record.deadline_from if record.deadline_from is not None else record.updated_at
    acting = tuple(
        (s.user.id, s.user.name) for s in record.seats if s.seat in to_act and not s.user.is_bot
    )
    return Turn(record, waiting, record.deadline_at, since, acting)


def soonest_first(turn: Turn) -> tuple[bool, bool, float, float]:
    """The order of a player's lists: the games waiting for them first, each part by its
    deadline, the soonest first and those without one last; then the longest waiting."""
    never = turn.deadline is None
    return (not turn.waiting, never, turn.deadline or 0.0, turn.since)


def deadline_words(turn: Turn, away: Mapping[int, float] | None = None) -> str:
    """When the game's pending decision runs out, as a date and as a time from now ("":
    it does not), with Discord's time markup, which every front-end shows in the reader's
    own time zone and language; where those who must decide are away (`away`: by user id,
    when they are back), that they are, and until when."""
    gone = [(name, (away or {})[uid]) for uid, name in turn.acting if uid in (away or {})]
    if gone and turn.record.status == "active":
        return " · ".join(
            str(t("{name} is away until {day}", name=name, day=i18n.day(until)))
            for name, until in gone
        )
    if turn.deadline is None:
        return ""
    when = int(turn.deadline)
    if turn.record.status == "challenge":
        return str(t("open until <t:{when}:f> (<t:{when}:R>)", when=when))
    return str(t("due <t:{when}:f> (<t:{when}:R>)", when=when))


def acting_ids(turns: Iterable[Turn]) -> set[int]:
    """Everyone whose decision these games wait for: whose away time the lists ask."""
    return {uid for turn in turns for uid, _name in turn.acting}
