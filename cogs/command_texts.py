"""The slash commands in the players' languages: discord.py's `Translator`, reading the
`commands` catalogue, and the extraction of every word the commands show (names,
descriptions, option names and descriptions, choices) into that catalogue's template.

`python -m cogs.command_texts --width 100` (run by `make messages`) writes the template
and brings each language's `commands.po` up to date with it, both that many characters
wide; a template whose only change would be its date is kept as it was.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import discord
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po
from discord import app_commands
from discord.ext import commands

from cogs.extensions import EXTENSIONS
from host.face import COMMANDS, catalogue, language_of, locale_dir

#: The catalogue's context of a command's or a group's name, and of an option's name: the
#: same English word may need two Polish ones (`/game` is a record, `game:` a kind).
COMMAND_NAME = "command"
OPTION_NAME = "option"
_NAME_CONTEXTS = {
    app_commands.TranslationContextLocation.command_name: COMMAND_NAME,
    app_commands.TranslationContextLocation.group_name: COMMAND_NAME,
    app_commands.TranslationContextLocation.parameter_name: OPTION_NAME,
}


class CommandTranslator(app_commands.Translator):
    """Gives Discord each command's words in every language the bot speaks; a word the
    catalogue lacks stays English."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        language = language_of(locale.value)
        found = catalogue(language, COMMANDS)
        if found is None:
            return None
        kind = _NAME_CONTEXTS.get(context.location)
        if kind is None:
            words = found.gettext(string.message)
        else:
            words = found.pgettext(kind, string.message)
        return words if words != string.message else None


def command_words(
    tree: app_commands.CommandTree[Any],
) -> Iterator[tuple[str, str | None, str]]:
    """Every word the commands show: the words, their context (names have one), and what
    it is (for the translator's note)."""
    for command in tree.get_commands():
        yield from _words(command, "")


def _words(
    command: app_commands.Command[Any, ..., Any] | app_commands.Group | app_commands.ContextMenu,
    parent: str,
) -> Iterator[tuple[str, str | None, str]]:
    if isinstance(command, app_commands.ContextMenu):
        return
    path = f"{parent} {command.name}" if parent else f"/{command.name}"
    yield command.name, COMMAND_NAME, f"command name: {path}"
    yield command.description, None, f"description of {path}"
    if isinstance(command, app_commands.Group):
        for child in command.commands:
            yield from _words(child, path)
        return
    for parameter in command.parameters:
        where = f"{path} {parameter.display_name}:"
        yield parameter.display_name, OPTION_NAME, f"option name: {where}"
        yield parameter.description, None, f"description of {where}"
        for choice in parameter.choices:
            yield choice.name, None, f"choice of {where}"


async def _loaded_tree() -> app_commands.CommandTree[Any]:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    for extension in EXTENSIONS:
        await bot.load_extension(extension)
    return bot.tree


def extract() -> Catalog:
    """The template: one message per distinct word, noting where each is used."""
    tree = asyncio.run(_loaded_tree())
    template = Catalog(project="Hilltop", domain=COMMANDS)
    for words, context, note in command_words(tree):
        known = template.get(words, context=context)
        if known is None:
            template.add(words, auto_comments=[note], context=context)
        elif note not in known.auto_comments:
            known.auto_comments.append(note)
    return template


def only_the_date_differs(old: bytes, new: bytes) -> bool:
    """Whether two templates are the same but for when they were made."""

    def undated(template: bytes) -> list[bytes]:
        return [
            line for line in template.splitlines() if not line.startswith(b'"POT-Creation-Date: ')
        ]

    return undated(old) == undated(new)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Extract the slash commands' words.")
    parser.add_argument("--width", type=int, default=76, help="line width of the files")
    width = parser.parse_args(argv).width
    target = Path(str(locale_dir() / f"{COMMANDS}.pot"))
    written = io.BytesIO()
    write_po(written, extract(), sort_output=True, omit_header=False, width=width)
    if not (target.is_file() and only_the_date_differs(target.read_bytes(), written.getvalue())):
        target.write_bytes(written.getvalue())
    subprocess.run(
        [
            sys.executable,
            "-m",
            "babel.messages.frontend",
            "update",
            "--input-file",
            str(target),
            "--output-dir",
            str(locale_dir()),
            "--domain",
            COMMANDS,
            "--no-fuzzy-matching",
            "--ignore-obsolete",
            "--width",
            str(width),
        ],
        check=True,
    )


if __name__ == "__main__":
    main()
