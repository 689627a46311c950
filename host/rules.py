"""Player-facing rules, shipped with the bot as Markdown (one file per game)."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def rules_text(game_id: str) -> str:
    """The rules and house rulings of a game, at most one Discord embed long."""
    entry = resources.files("host") / "rules" / f"{game_id}.md"
    return entry.read_text(encoding="utf-8").strip()
