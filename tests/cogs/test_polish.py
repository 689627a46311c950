"""A game played from a Polish Discord client: replies, buttons, the board's words and
the slash commands themselves are Polish; an English player at the same table reads
English; the move notation is the same in both."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from cogs.client import HilltopBot
from cogs.command_texts import CommandTranslator
from tests.cogs.conftest import ALICE, BOB, buttons, embed_text, interaction
from tests.cogs.test_commands import click, each_moves_once, games_cog

POLISH = discord.Locale.polish


async def test_a_game_played_from_a_polish_client(bot: HilltopBot) -> None:
    cog = games_cog(bot)
    inter, sent = interaction(bot, ALICE, locale=POLISH)
    await cog.play.callback(cog, inter, game="hokito", opponent=BOB, seed=1, seat="first")
    challenge = sent.last()
    assert "alice wyzywa bob do gry w Hokito." in embed_text(challenge)
    assert [b.item.label for b in buttons(challenge)] == ["Przyjmij", "Odrzuć"]
    accept = buttons(challenge)[0]
    inter, sent = interaction(bot, BOB, component=True, locale=POLISH)
    await accept.callback(inter)
    board = sent.last()
    text = embed_text(board)
    assert "Partia się zaczyna: alice (Czarne), bob (Białe)." in text
    assert "Ruch: alice (Czarne)." in text
    labels = [b.item.label for b in buttons(board)]
    assert "Poddaj się" in labels and "Dozwolone ruchy" in labels
    # The pieces' buttons name squares and pawns in the game's notation, as in English.
    assert sum(label[:2] in ("a1", "b1", "c1") for label in labels) == 3
    polish_picture = board["file"].fp.read()

    # The same board asked for from an English client: English words, other picture.
    inter, sent = interaction(bot, BOB)
    await cog.board.callback(cog, inter)
    english = sent.last()
    assert "alice (Black) to move." in embed_text(english)
    assert english["file"].fp.read() != polish_picture

    # A wrong move is refused in Polish, naming the move as it was typed.
    inter, sent = interaction(bot, BOB, locale=POLISH)
    await cog.move.callback(cog, inter, text="b2-b1")
    refusal = sent.last()
    assert refusal["ephemeral"] and "To nie twój ruch" in embed_text(refusal)
    await each_moves_once(bot)
    inter, sent = interaction(bot, BOB, locale=POLISH)
    await cog.resign.callback(cog, inter)
    [sure] = buttons(sent.last())
    assert sure.item.label == "Tak, poddaję się"
    over = embed_text((await click(bot, BOB, sure, locale=POLISH)).last())
    assert "Koniec gry." in over and "bob (Białe) poddaje się." in over
    assert "Zmiany rankingu: alice 1658 (+158), bob 1342 (−158)." in over


async def test_the_slash_commands_speak_polish() -> None:
    translator = CommandTranslator()

    async def say(words: str, where: app_commands.TranslationContextLocation) -> Any:
        context = app_commands.TranslationContext(location=where, data=None)
        return await translator.translate(app_commands.locale_str(words), POLISH, context)

    names = app_commands.TranslationContextLocation
    assert await say("play", names.command_name) == "graj"
    assert await say("game", names.command_name) == "partia"
    assert await say("game", names.parameter_name) == "gra"
    assert await say("today", names.choice_name) == "dziś"
    english = app_commands.TranslationContext(location=names.command_name, data=None)
    assert (
        await translator.translate(
            app_commands.locale_str("play"), discord.Locale.american_english, english
        )
        is None
    )
