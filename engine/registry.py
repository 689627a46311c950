"""Games by id. Adding a game is one module in engine/ plus its name here."""

from __future__ import annotations

import importlib
from typing import Any

from engine.core import Game

#: The modules that define games; each calls `register` once at import.
GAME_MODULES: tuple[str, ...] = ("everest", "hillbert", "hokito", "hollowtown", "molehill")

_GAMES: dict[str, Game[Any]] = {}
_loaded = False


def register(game: Game[Any]) -> Game[Any]:
    if game.id in _GAMES and type(_GAMES[game.id]) is not type(game):
        raise ValueError(f"two games registered as {game.id!r}")
    _GAMES[game.id] = game
    return game


def _load() -> None:
    global _loaded
    if not _loaded:
        for name in GAME_MODULES:
            importlib.import_module(f"engine.{name}")
        _loaded = True


def get(game_id: str) -> Game[Any]:
    _load()
    try:
        return _GAMES[game_id]
    except KeyError:
        known = ", ".join(sorted(_GAMES))
        raise KeyError(f"no game {game_id!r}; games: {known}") from None


def all_games() -> tuple[Game[Any], ...]:
    _load()
    return tuple(_GAMES[name] for name in sorted(_GAMES))
