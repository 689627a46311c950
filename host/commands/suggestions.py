"""Autocomplete of a move: the caller's legal moves matching what they typed."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

from engine.text import Text
from host.model import OFFERED_AT, Suggestion, User
from host.play.live import Loaded, search_key
from host.present.presenter import MAX_PICKS

#: The longest name of an autocomplete choice that Discord accepts.
MAX_CHOICE_NAME = 100


def suggestions(loaded: Loaded, user: User, typed: str) -> list[Suggestion]:
    """The moves that match `typed`, those starting with it first, each in the order the
    game offers them (`move_order`: Everest's likeliest plans first), with what each does."""
    if loaded.record.status != "active":
        return []
    seats = [s for s in loaded.record.seats_of(user.id) if s in loaded.state.to_act]
    if not seats:
        return []
    seat = seats[0]
    key = search_key(typed)
    keyed = loaded.keyed_moves(seat)
    order = loaded.state.move_order(seat)
    indices: Sequence[int] = range(len(keyed)) if order is None else order
    picked = list(islice((i for i in indices if keyed[i][0].startswith(key)), MAX_PICKS))
    if len(picked) < MAX_PICKS:
        inside = (i for i in indices if key in keyed[i][0] and not keyed[i][0].startswith(key))
        picked += islice(inside, MAX_PICKS - len(picked))
    at = f"{OFFERED_AT}{loaded.record.ply}"
    moves = loaded.state.legal_moves(seat)
    suggestions = []
    for index in picked:
        text = keyed[index][1]
        description = loaded.state.move_description(seat, moves[index])
        suggestions.append(Suggestion(_choice_name(text, description), text + at))
    return suggestions


def _choice_name(text: str, description: Text | None) -> str:
    """`move: what it does`, the description cut short (never the move) to fit a choice."""
    if description is None:
        return text
    name = f"{text}: {description}"
    if len(name) <= MAX_CHOICE_NAME:
        return name
    return name[: MAX_CHOICE_NAME - 1].rstrip() + "…"
