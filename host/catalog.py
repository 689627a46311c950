"""The games Hilltop hosts: the one list.

Each entry puts together what a game is made of: its rules (`engine/<id>.py`, whose `Game`
declares the facts the host relies on and the computer player's search model), how it is
drawn (`render/<id>.py`, its `RENDERER`) and its rules page for players
(`host/rules/<id>.md`, shipped with the bot). Adding a game is those three files and an
entry here (its two modules imported, one `Listing`); nothing else in the host or the
Discord layer names a game. See docs/adding-a-game.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

import engine.everest
import engine.hillbert
import engine.hokito
import engine.hollowtown
import engine.molehill
import render.everest
import render.hillbert
import render.hokito
import render.hollowtown
import render.molehill
from engine.core import Game, GameState
from engine.text import ENGLISH, current_language, t
from render.core import Renderer

#: The lines that begin a new page of a rules page (in each language's words).
PAGE_BREAKS = (t("**Commands**"), t("**House rules**"))


@dataclass(frozen=True, slots=True)
class Listing:
    """One hosted game."""

    game: Game[Any]
    renderer: Renderer[Any]
    #: The rules page for players, in Markdown, at most one Discord embed long: a file
    #: in `host/rules/` (see `shipped`).
    rules_page: Traversable

    @property
    def id(self) -> str:
        return self.game.id

    def rules(self) -> str:
        """The rules page in the current language (`host/rules/<language>/`, when there is
        one), else in English."""
        page = self.rules_page
        language = current_language()
        if language != ENGLISH:
            translated = resources.files("host") / "rules" / language / page.name
            if translated.is_file():
                page = translated
        return page.read_text(encoding="utf-8").strip()

    def rules_pages(self) -> list[str]:
        """The rules page in the parts a player reads one at a time: the game, how to
        write moves (from its `**Commands**` line), the house rulings (from its `**House
        rules**` line)."""
        pages: list[str] = []
        page: list[str] = []
        breaks = tuple(str(heading) for heading in PAGE_BREAKS)
        for line in self.rules().splitlines():
            if line.startswith(breaks) and page:
                pages.append("\n".join(page).strip())
                page = []
            page.append(line)
        pages.append("\n".join(page).strip())
        return pages


def shipped(page: str) -> Traversable:
    """A rules page that ships with the bot, in `host/rules/`."""
    return resources.files("host") / "rules" / page


GAMES: tuple[Listing, ...] = (
    Listing(engine.everest.GAME, render.everest.RENDERER, shipped("everest.md")),
    Listing(engine.hillbert.GAME, render.hillbert.RENDERER, shipped("hillbert.md")),
    Listing(engine.hokito.GAME, render.hokito.RENDERER, shipped("hokito.md")),
    Listing(engine.hollowtown.GAME, render.hollowtown.RENDERER, shipped("hollowtown.md")),
    Listing(engine.molehill.GAME, render.molehill.RENDERER, shipped("molehill.md")),
)

_BY_ID: dict[str, Listing] = {}


def register(listing: Listing) -> Listing:
    """Add a game to the catalogue (the games above are in it from the start; tests add
    games of their own)."""
    known = _BY_ID.get(listing.id)
    if known is not None and known != listing:
        raise ValueError(f"two games listed as {listing.id!r}")
    _BY_ID[listing.id] = listing
    return listing


def unregister(game_id: str) -> None:
    _BY_ID.pop(game_id, None)


for _listing in GAMES:
    register(_listing)


def listing(game_id: str) -> Listing:
    """The game listed as `game_id`; KeyError if there is none."""
    return _BY_ID[game_id]


def listing_of(state: GameState[Any]) -> Listing:
    return _BY_ID[state.game_id]


def all_listings() -> tuple[Listing, ...]:
    """Every game, in the order of their ids (menus list them so)."""
    return tuple(_BY_ID[game_id] for game_id in sorted(_BY_ID))
