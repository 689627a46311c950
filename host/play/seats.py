"""Who is who in a game, and the refusals that name the players: what judging a change
needs to say why it is refused, and what every reply names the seats by."""

from __future__ import annotations

from dataclasses import replace

from data.repository import GameRecord, SeatRecord
from engine.core import MoveError
from engine.text import Text, t, tn
from host.model import ECHO_CHARS, User
from host.model import echoed as echoed  # told here too, beside `echoing`
from host.play.live import Loaded
from host.privacy.names import shown_name

#: The computer's levels as players read them.
LEVEL_WORDS = {"easy": t("easy"), "normal": t("normal"), "hard": t("hard")}


def names(loaded: Loaded) -> list[str]:
    """The players' names by seat. Computer players share the bot's name, so where there
    are several each gets a number ("hilltop 2"): those that sat down at the start in seat
    order, then those that took over from a player who resigned, so that no number
    changes hands during a game."""
    seats = loaded.record.seats
    later = [s for s in loaded.options.taken_over if seats[s].user.is_bot]
    computers = [s.seat for s in seats if s.user.is_bot and s.seat not in later] + later
    if len(computers) < 2:
        return [shown_name(s.user.name) for s in seats]
    return [
        f"{s.user.name} {computers.index(s.seat) + 1}" if s.user.is_bot else shown_name(s.user.name)
        for s in seats
    ]


def seat_label(loaded: Loaded, seat: int) -> str:
    """Who sits in `seat`, with the seat's role (and, for a computer, its level)."""
    name = names(loaded)[seat]
    if loaded.game.solo:
        return name
    roles = loaded.game.seat_names
    # A seat's name is looked up in the catalogue like any text ("Black": "Czarne").
    fixed = str(Text(roles[seat])) if seat < len(roles) else str(seat + 1)
    now = loaded.state.seat_role(seat)
    role = str(now) if now is not None else fixed
    if loaded.record.seats[seat].user.is_bot:
        level = LEVEL_WORDS.get(loaded.options.level, loaded.options.level)
        return str(t("{name} ({role}, {level} computer)", name=name, role=role, level=level))
    return f"{name} ({role})"


def claimants(loaded: Loaded) -> list[SeatRecord]:
    """The people who may claim the win when the decision pending ran out of time: those
    not to act (in a game of two)."""
    record = loaded.record
    if len(record.seats) != 2:
        return []
    return [s for s in record.seats if s.seat not in loaded.state.to_act and not s.user.is_bot]


def not_a_player(loaded: Loaded) -> Text:
    players = names(loaded)
    return tn(
        "You are not playing in this game ({players} is). Watch, or start your own "
        "game in another channel or thread.",
        "You are not playing in this game ({players} are). Watch, or start your own "
        "game in another channel or thread.",
        n=len(players),
        players=", ".join(players),
    )


def not_your_turn(loaded: Loaded) -> Text:
    waiting = ", ".join(seat_label(loaded, s) for s in sorted(loaded.state.to_act))
    return t("It is not your turn: waiting for {names}.", names=waiting)


def not_challenged(record: GameRecord, user: User) -> Text:
    pending = ", ".join(s.user.name for s in record.seats if not s.accepted)
    if any(s.user.id == user.id and s.accepted for s in record.seats):
        return t("You have already accepted; waiting for {names}.", names=pending)
    return t("This challenge is for {names}, not for you.", names=pending)


def move_error(exc: MoveError, sent: str = "") -> Text:
    return t(
        "{reason}\nSee /moves for your legal moves, or use the buttons on the board.",
        reason=str(echoing(exc.text, sent)),
    )


def echoing(text: Text, sent: str) -> Text:
    """A refusal of `sent` (what the player wrote) that repeats no more than ECHO_CHARS
    characters of it: each part of `text` taken from `sent` is cut (see `echoed`)."""
    words = " ".join(sent.split())

    def cut(value: object) -> object:
        if isinstance(value, Text):
            return echoing(value, sent)
        if isinstance(value, str) and len(value) > ECHO_CHARS and " ".join(value.split()) in words:
            return echoed(value)
        return value

    return replace(text, params={key: cut(value) for key, value in text.params.items()})
