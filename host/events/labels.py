"""Tournaments named where their games and players are shown elsewhere: a finished
game's line in /history, and the tournaments a player entered in /profile."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from data.events import EventGame, EventRepository
from engine.text import t
from host.events.words import event_name, format_words, state_words
from host.play.live import game_of

#: The label of each game played in a tournament, by game id (games of none left out).
GameLabels = Callable[[Iterable[int]], Awaitable[dict[int, str]]]
#: The tournaments a player entered (in one server, or anywhere), newest first, as lines.
Entered = Callable[[int, int | None], Awaitable[list[str]]]
#: Tournaments a profile names at most.
PROFILE_MOST = 5


def game_labels(repository: EventRepository) -> GameLabels:
    async def labels(game_ids: Iterable[int]) -> dict[int, str]:
        found = await repository.of_games(list(game_ids))
        return {game_id: label(event) for game_id, event in found.items()}

    return labels


def label(event: EventGame) -> str:
    """`Club Cup, round 2` (a tournament without a name: its game, format and number)."""
    name = event.name or str(
        t(
            "{game} {format} #{id}",
            game=game_of(event.game).name,
            format=format_words(event.format),
            id=event.event_id,
        )
    )
    return str(t("{name}, round {round}", name=name, round=event.round))


def entered(repository: EventRepository) -> Entered:
    async def lines(user_id: int, guild_id: int | None) -> list[str]:
        events = [
            e
            for e in await repository.entered(user_id)
            if guild_id is None or e.guild_id == guild_id
        ]
        return [f"{event_name(e)} · {state_words(e)}" for e in events[:PROFILE_MOST]]

    return lines
