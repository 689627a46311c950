"""Languages: the gettext catalogues the bot speaks, and Babel's numbers and dates.

The messages live in `host/locale/<language>/LC_MESSAGES/`: `hilltop.po` for everything a
player reads (extracted from the code's `t()` and `tn()` calls) and `commands.po` for the
slash commands' names, descriptions and choices. The `.po` files are written by people;
the `.mo` files the bot reads are compiled from them when the bot is built (`make`, the
Docker image). English is the language of the code and needs no catalogue; a Discord
locale without a catalogue gets English.
"""

from __future__ import annotations

import gettext
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

from babel.dates import format_date as babel_date
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

from engine import text
from engine.text import ENGLISH

log = logging.getLogger(__name__)

#: The domain of what players read, and of the slash commands' own words.
MESSAGES = "hilltop"
COMMANDS = "commands"


def locale_dir() -> Traversable:
    return resources.files("host") / "locale"


def shipped_languages() -> tuple[str, ...]:
    """The languages with a catalogue in the source (compiled or not)."""
    found = [
        entry.name
        for entry in locale_dir().iterdir()
        if entry.is_dir() and (entry / "LC_MESSAGES" / f"{MESSAGES}.po").is_file()
    ]
    return tuple(sorted(found))


@cache
def catalogue(language: str, domain: str) -> gettext.GNUTranslations | None:
    """A compiled catalogue (None: English, or not compiled; the latter is logged)."""
    if language == ENGLISH:
        return None
    compiled = locale_dir() / language / "LC_MESSAGES" / f"{domain}.mo"
    if not compiled.is_file():
        log.error("%s is not compiled (run make): %s speaks English", compiled, language)
        return None
    with compiled.open("rb") as stream:
        return gettext.GNUTranslations(stream)


@cache
def install() -> tuple[str, ...]:
    """Make every shipped language speakable in this process (idempotent): the languages
    in which text can be put."""
    for language in shipped_languages():
        found = catalogue(language, MESSAGES)
        if found is not None:
            text.install(language, found)
    return text.languages()


def language_of(locale: str | None) -> str:
    """The language to speak to a Discord locale ("pl", "en-US", "pt-BR"…): its own when
    the bot speaks it, else English."""
    if not locale:
        return ENGLISH
    language = locale.replace("_", "-").split("-")[0].lower()
    return language if language in text.languages() else ENGLISH


def number(value: int | float, language: str | None = None, *, decimals: int = 0) -> str:
    """A number as the language writes it, with `decimals` places: 1,511.5 in English,
    1511,5 in Polish."""
    pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
    return format_decimal(value, format=pattern, locale=language or text.current_language())


def day(moment: float, language: str | None = None) -> str:
    """A date as the language writes it: "Nov 24, 2026", "24 lis 2026"."""
    when = datetime.fromtimestamp(moment, UTC).date()
    return babel_date(when, format="medium", locale=language or text.current_language())


@dataclass(frozen=True)
class CommandNames:
    """A language's names of the slash commands, their options and their choices, each
    mapped to the English (for the console, where players type them)."""

    commands: dict[str, str] = field(default_factory=dict)
    options: dict[str, str] = field(default_factory=dict)
    choices: dict[str, str] = field(default_factory=dict)

    def english(self, words: str, table: dict[str, str]) -> str:
        return table.get(words.lower(), words)

    def native(self, words: str, table: dict[str, str]) -> str:
        """The language's name of English `words` (themselves if it has none)."""
        return next((mine for mine, english in table.items() if english == words), words)


@cache
def command_names(language: str) -> CommandNames:
    """The names the slash commands have in `language`, read from its `commands.po`."""
    if language == ENGLISH:
        return CommandNames()
    source = locale_dir() / language / "LC_MESSAGES" / f"{COMMANDS}.po"
    if not source.is_file():
        return CommandNames()
    with source.open("rb") as stream:
        written = read_po(stream, locale=language)
    names = CommandNames()
    for entry in written:
        if not entry.id or not isinstance(entry.string, str) or not entry.string:
            continue
        english, mine = str(entry.id), entry.string.lower()
        if entry.context == "command":
            names.commands[mine] = english
        elif entry.context == "option":
            names.options[mine] = english
        elif any(note.startswith("choice of") for note in entry.auto_comments):
            names.choices[mine] = english
    return names
