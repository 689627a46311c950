"""/daily through the Discord adapter: what the player sees, and what is stored."""

from __future__ import annotations

from typing import Any

from cogs.client import HilltopBot
from host.daily_calendar import utc_day
from tests.cogs.conftest import ALICE, embed_text, interaction


def daily_cog(bot: HilltopBot) -> Any:
    cog = bot.get_cog("DailyCog")
    assert cog is not None
    return cog


async def test_a_refused_first_move_answers_privately_and_starts_no_run(
    bot: HilltopBot,
) -> None:
    cog = daily_cog(bot)
    inter, sent = interaction(bot, ALICE)
    await cog.daily.callback(cog, inter, move="nonsense")
    assert sent.last()["ephemeral"] is True
    assert "has not started" in embed_text(sent.last())
    today = utc_day(bot.daily.clock()).isoformat()
    assert await bot.daily.daily.run_for(ALICE.id, today) is None
    inter, sent = interaction(bot, ALICE)
    await cog.daily.callback(cog, inter, move="d")
    assert sent.last()["ephemeral"] is True and "ply 1" in embed_text(sent.last())
    assert await bot.daily.daily.run_for(ALICE.id, today) is not None
