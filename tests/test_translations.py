"""Every language is whole: each message the code can show, each slash command's words and
each rules page has its translation; placeholders match; plural forms are all there; and
what the bot reads (the compiled catalogues) is what the translators wrote."""

from __future__ import annotations

import ast
import asyncio
import io
import re
from pathlib import Path
from typing import Any

import discord
import pytest
from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.util import pathmatch
from discord.ext import commands

from cogs.command_texts import COMMAND_NAME, OPTION_NAME, command_words, only_the_date_differs
from cogs.extensions import EXTENSIONS
from engine.text import speaking, t, tn
from host import catalog, i18n

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ROOT / "host" / "locale"
LANGUAGES = [p.name for p in sorted(LOCALES.iterdir()) if p.is_dir()]
PLACEHOLDER = re.compile(r"(?<!\{)\{([^{}]*)\}(?!\})")


def catalogue(language: str, domain: str) -> Catalog:
    with open(LOCALES / language / "LC_MESSAGES" / f"{domain}.po", "rb") as po:
        return read_po(po, locale=language)


def placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER.findall(text.replace("{{", "").replace("}}", "")))


def extracted_files() -> list[Path]:
    """The source files `make messages` reads, by babel.cfg: the four layers, and the toy
    game of the tests, which is translated like a real game."""
    with open(ROOT / "babel.cfg", encoding="utf-8") as mapping:
        method_map, _ = parse_mapping_cfg(mapping)
    return sorted(
        path
        for path in ROOT.rglob("*.py")
        if ".venv" not in path.parts
        and any(pathmatch(pattern, path.relative_to(ROOT).as_posix()) for pattern, _ in method_map)
    )


def code_messages() -> dict[str | tuple[str, str], str]:
    """Every message of the code, extracted as `make messages` does: by Babel, from the
    t() and tn() calls of the files babel.cfg names."""
    found: dict[str | tuple[str, str], str] = {}
    for path in extracted_files():
        for line, message, _, _ in extract_from_file("python", str(path), catalog.KEYWORDS):
            found[message] = f"{path.relative_to(ROOT)}:{line}"
    return found


def test_the_toy_game_of_the_tests_is_read_for_messages() -> None:
    assert ROOT / "tests" / "toygame.py" in extracted_files()
    assert "How many pebbles do you take?" in code_messages()


def test_no_message_hides_inside_an_f_string() -> None:
    """Babel does not read the expressions of an f-string on every Python the project
    supports: a t() there never reaches the catalogue, and stays English."""
    hidden = []
    for path in extracted_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.JoinedStr):
                continue
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Call)
                    and isinstance(inner.func, ast.Name)
                    and inner.func.id in ("t", "tn")
                ):
                    hidden.append(f"{path.relative_to(ROOT)}:{inner.lineno}")
    assert hidden == []


def test_polish_is_a_language_of_the_bot() -> None:
    assert "pl" in LANGUAGES
    assert set(LANGUAGES) <= set(i18n.install())


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_has_a_translation_with_the_same_placeholders(language: str) -> None:
    translated = catalogue(language, i18n.MESSAGES)
    missing, different, fuzzy = [], [], []
    for message, where in code_messages().items():
        entry = translated.get(message)
        if (
            entry is None
            or not entry.string
            or (isinstance(entry.string, tuple) and not all(entry.string))
        ):
            missing.append(f"{where}: {message!r}")
            continue
        if entry.fuzzy:
            fuzzy.append(where)
        english = message if isinstance(message, str) else message[1]
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        for string in strings:
            if placeholders(string) != placeholders(english):
                different.append(f"{where}: {english!r} -> {string!r}")
    assert missing == [], f"{len(missing)} messages have no {language} translation: " + (
        "; ".join(missing)
    )
    assert different == [], "placeholders differ"
    assert fuzzy == [], "fuzzy translations are not used"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_plural_has_every_form_of_the_language(language: str) -> None:
    forms = Locale.parse(language).plural_form
    translated = catalogue(language, i18n.MESSAGES)
    assert translated.num_plurals == len(forms.tags)
    plurals = [m for m in translated if isinstance(m.id, tuple)]
    assert plurals, "the code has counted messages"
    for entry in plurals:
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        assert len(strings) == translated.num_plurals and all(strings), entry.id


def test_polish_plurals_follow_polish_grammar() -> None:
    i18n.install()
    with speaking("pl"):
        turns = [str(tn("{n} turn", "{n} turns", n=n)) for n in (1, 2, 5, 12, 22, 25)]
        assert str(t("Resign")) == "Poddaj się"
    assert turns == ["1 tura", "2 tury", "5 tur", "12 tur", "22 tury", "25 tur"]
    assert str(tn("{n} turn", "{n} turns", n=2)) == "2 turns"  # English outside


def _loaded_tree() -> Any:
    async def load() -> Any:
        bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
        for extension in EXTENSIONS:
            await bot.load_extension(extension)
        return bot.tree

    return asyncio.run(load())


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_command_word_is_translated_within_discords_limits(language: str) -> None:
    translated = catalogue(language, i18n.COMMANDS)
    names_by_command: dict[str, list[str]] = {}
    problems = []
    for words, context, note in command_words(_loaded_tree()):
        entry = translated.get(words, context=context)
        if entry is None or not entry.string:
            problems.append(f"untranslated {note}: {words!r}")
            continue
        string = str(entry.string)
        if context in (COMMAND_NAME, OPTION_NAME):
            if not re.fullmatch(r"[-_\w]{1,32}", string) or string != string.lower():
                problems.append(f"{note}: {string!r} is no name Discord takes")
            if context == OPTION_NAME:
                command = note.split(":", 1)[1].rsplit(" ", 1)[0]
                names_by_command.setdefault(command, []).append(string)
        elif not 1 <= len(string) <= 100:
            problems.append(f"{note}: {string!r} is longer than 100 characters")
    for command, names in names_by_command.items():
        if len(set(names)) != len(names):
            problems.append(f"{command}: two options share a name: {names}")
    assert problems == []


def test_a_template_whose_only_change_is_its_date_is_kept() -> None:
    """`make messages` rewrites a template only when a message changed, not every run."""
    template = (
        b'msgid ""\nmsgstr ""\n"POT-Creation-Date: 2026-01-01 09:00+0000\\n"\n\nmsgid "Resign"\n'
    )
    assert only_the_date_differs(template, template.replace(b"01-01 09:00", b"11-27 12:24"))
    assert not only_the_date_differs(template, template.replace(b"Resign", b"Resign now"))


def test_the_same_word_may_name_a_command_and_an_option_differently() -> None:
    translated = catalogue("pl", i18n.COMMANDS)
    command = translated.get("game", context=COMMAND_NAME)
    option = translated.get("game", context=OPTION_NAME)
    assert command is not None and option is not None
    assert (command.string, option.string) == ("partia", "gra")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", [i18n.MESSAGES, i18n.COMMANDS])
def test_the_compiled_catalogues_are_those_written(language: str, domain: str) -> None:
    compiled = LOCALES / language / "LC_MESSAGES" / f"{domain}.mo"
    assert compiled.is_file(), "compile the catalogues: make"
    expected = io.BytesIO()
    write_mo(expected, catalogue(language, domain))
    assert compiled.read_bytes() == expected.getvalue(), "out of date: run make"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_rules_page_is_translated_page_for_page(language: str) -> None:
    i18n.install()
    for listing in catalog.GAMES:
        english = listing.rules_pages()
        with speaking(language):
            translated = listing.rules_pages()
        assert translated != english, f"{listing.id}: no {language} rules page"
        assert len(translated) == len(english), listing.id
        for page in translated:
            assert len(page) <= 4000, listing.id
