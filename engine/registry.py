"""Games by id, as the engine knows them: each game module registers its `Game` when it
is imported. The list of games Hilltop hosts is `host.catalog`; this index lets engine
code (the computer player, in a worker process too) find the `Game` of a state it is
given, whose module is imported with it."""

from __future__ import annotations

from typing import Any

from engine.core import Game

_GAMES: dict[str, Game[Any]] = {}


def register(game: Game[Any]) -> Game[Any]:
    if game.id in _GAMES and type(_GAMES[game.id]) is not type(game):
        raise ValueError(f"two games registered as {game.id!r}")
    _GAMES[game.id] = game
    return game


def get(game_id: str) -> Game[Any]:
    try:
        return _GAMES[game_id]
    except KeyError:
        known = ", ".join(sorted(_GAMES))
        raise KeyError(f"no game {game_id!r}; games: {known}") from None


def all_games() -> tuple[Game[Any], ...]:
    """The games registered so far, by id (importing `host.catalog` registers every
    hosted game)."""
    return tuple(_GAMES[game_id] for game_id in sorted(_GAMES))
