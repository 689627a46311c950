"""The games Hilltop hosts: the one list.

Each entry puts together what a game is made of (`Listing.parts`): its rules
(`engine/<id>.py`, whose `Game` declares the facts the host relies on and the computer
player's search model), how it is drawn (`render/<id>.py`, its `RENDERER`), its rules page
for players (`host/rules/<id>.md`, and `host/rules/<language>/<id>.md` in each other
language the bot speaks) and its messages, translated in each language's catalogue
(`host/locale/<language>/LC_MESSAGES/hilltop.po`). `missing_parts` says what a listing
lacks and which file to write. Nothing else in the host or the Discord layer names a
game. See docs/adding-a-game.md.
"""

from __future__ import annotations

import configparser
import sys
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po
from babel.util import pathmatch

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
from engine import registry
from engine.core import Game, GameState
from engine.text import ENGLISH, current_language, t
from host import i18n
from render.core import Renderer

#: The lines that begin a new page of a rules page (in each language's words).
PAGE_BREAKS = (t("**Commands**"), t("**House rules**"))

#: The folder of the rules pages the bot ships: `<id>.md` in English, and
#: `<language>/<id>.md` in each other language.
RULES = resources.files("host") / "rules"

#: The calls whose texts are messages, as `make messages` reads them: `t(text)` and
#: `tn(singular, plural)`.
KEYWORDS: dict[str, Any] = {"t": None, "tn": (1, 2)}

#: The source tree: the place of the files `missing_parts` names.
ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class Listing:
    """One hosted game."""

    game: Game[Any]
    renderer: Renderer[Any]
    #: The file name of the rules page for players, in Markdown, at most one Discord
    #: embed long: `<rules_folder>/<rules_page>` in English, and
    #: `<rules_folder>/<language>/<rules_page>` in each other language.
    rules_page: str
    rules_folder: Traversable = RULES

    @property
    def id(self) -> str:
        return self.game.id

    def page(self, language: str = ENGLISH) -> Traversable:
        """The file of the rules page in `language` (one that may be missing)."""
        if language == ENGLISH:
            return self.rules_folder / self.rules_page
        return self.rules_folder / language / self.rules_page

    def rules(self) -> str:
        """The rules page in the current language, when there is one, else in English."""
        page = self.page(current_language())
        if not page.is_file():
            page = self.page()
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

    def parts(self) -> dict[str, str]:
        """Every file the game is made of, by what it holds, as paths in the source tree:
        the engine module (its `Game`), the renderer's module, the rules page, and in
        each other language the bot speaks the rules page and the catalogue holding the
        translations of the game's messages."""
        parts = {
            "engine": _where(_module_file(self.game.__class__)),
            "renderer": _where(_module_file(self.renderer.board)),
            "rules page": _where(self.page()),
        }
        for language in _translated_languages():
            name = _language_name(language)
            parts[f"{name} rules page"] = _where(self.page(language))
            parts[f"{name} messages"] = _where(_messages_file(language))
        return parts


def missing_parts(listing: Listing) -> list[str]:
    """What `listing` lacks of the parts a hosted game is made of (`Listing.parts`), each
    said as the part and what to write, like "Pebbles (pebbles): no Polish rules page:
    write host/rules/pl/pebbles.md". Empty when the game is whole."""
    game = listing.game
    named = f"{game.name} ({game.id})"
    parts = listing.parts()
    missing: list[str] = []
    engine_module = sys.modules.get(game.__class__.__module__)
    registered = any(known is game for known in registry.all_games())
    if getattr(engine_module, "GAME", None) is not game or not registered:
        missing.append(
            f"{named}: its Game is not in the engine's index: end {parts['engine']} with "
            f"GAME = registry.register({game.__class__.__name__}())"
        )
    render_module = sys.modules.get(getattr(listing.renderer.board, "__module__", ""))
    if getattr(render_module, "RENDERER", None) is not listing.renderer:
        missing.append(
            f"{named}: its renderer is not its module's RENDERER: end {parts['renderer']} "
            "with RENDERER = Renderer(render)"
        )
    if not callable(getattr(render_module, "palette", None)):
        missing.append(
            f"{named}: no palette(theme) with the colours of its pictures: "
            f"write it in {parts['renderer']}"
        )
    if not listing.page().is_file():
        missing.append(f"{named}: no rules page: write {parts['rules page']}")
    sources = sorted(
        source for source in {parts["engine"], parts["renderer"]} if (ROOT / source).is_file()
    )
    unread = [source for source in sources if not _extracted(source)]
    for source in unread:
        missing.append(f"{named}: make messages does not read {source}: add it to babel.cfg")
    for language in _translated_languages():
        name = _language_name(language)
        if not listing.page(language).is_file():
            missing.append(f"{named}: no {name} rules page: write {parts[f'{name} rules page']}")
        catalogue = _catalogue(str(_messages_file(language)))
        untranslated = [
            f"{message!r} ({where})"
            for source in sources
            for where, message in _messages(str(ROOT / source))
            if not _is_translated(catalogue, message)
        ]
        if untranslated:
            missing.append(
                f"{named}: no {name} translation of {', '.join(untranslated)}: run make "
                f"messages, then translate in {parts[f'{name} messages']} (make compiles it)"
            )
    return missing


def _module_file(thing: Any) -> Path:
    module = sys.modules.get(getattr(thing, "__module__", ""))
    return Path(getattr(module, "__file__", None) or "?")


def _where(path: Path | Traversable) -> str:
    """A path as the source tree names it (`host/rules/pl/hokito.md`)."""
    place = Path(str(path)).resolve()
    return place.relative_to(ROOT).as_posix() if place.is_relative_to(ROOT) else str(place)


def _translated_languages() -> list[str]:
    return [language for language in i18n.shipped_languages() if language != ENGLISH]


def _language_name(language: str) -> str:
    return str(Locale.parse(language).english_name)


def _messages_file(language: str) -> Traversable:
    return i18n.locale_dir() / language / "LC_MESSAGES" / f"{i18n.MESSAGES}.po"


@cache
def _catalogue(path: str) -> Catalog:
    with open(path, "rb") as written:
        return read_po(written)


@cache
def _messages(path: str) -> list[tuple[str, str | tuple[str, ...]]]:
    """The messages of a source file, each with where it is (`engine/hokito.py:120`)."""
    return [
        (f"{_where(Path(path))}:{line}", message)
        for line, message, _, _ in extract_from_file("python", path, KEYWORDS)
    ]


def _extracted(source: str) -> bool:
    """Whether `make messages` reads `source` (a path in the source tree), by babel.cfg
    (True where there is no babel.cfg: an installed bot)."""
    mapping = ROOT / "babel.cfg"
    if not mapping.is_file():
        return True
    config = configparser.RawConfigParser()
    config.read(mapping, encoding="utf-8")
    patterns = [section.split(":", 1)[1].strip() for section in config.sections() if ":" in section]
    return any(pathmatch(pattern, source) for pattern in patterns)


def _is_translated(catalogue: Catalog, message: str | tuple[str, ...]) -> bool:
    entry = catalogue.get(message)
    if entry is None or entry.fuzzy:
        return False
    strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
    return all(strings)


GAMES: tuple[Listing, ...] = (
    Listing(engine.everest.GAME, render.everest.RENDERER, "everest.md"),
    Listing(engine.hillbert.GAME, render.hillbert.RENDERER, "hillbert.md"),
    Listing(engine.hokito.GAME, render.hokito.RENDERER, "hokito.md"),
    Listing(engine.hollowtown.GAME, render.hollowtown.RENDERER, "hollowtown.md"),
    Listing(engine.molehill.GAME, render.molehill.RENDERER, "molehill.md"),
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
    """The game listed as `game_id`, in any letter case and with spaces around it
    (`HOKITO` is hokito); KeyError if there is none."""
    found = _BY_ID.get(game_id)
    return found if found is not None else _BY_ID[game_id.strip().lower()]


def listing_of(state: GameState[Any]) -> Listing:
    return _BY_ID[state.game_id]


def all_listings() -> tuple[Listing, ...]:
    """Every game, in the order of their ids (menus list them so)."""
    return tuple(_BY_ID[game_id] for game_id in sorted(_BY_ID))
