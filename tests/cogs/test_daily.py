"""/daily through the Discord adapter: what the player sees, and what is stored."""

from __future__ import annotations

from typing import Any

from cogs.client import HilltopBot
from cogs.daily import closed_day_autocomplete
from engine.hillbert import new_hill
from engine.hillbert_par import ParResult, greedy_move
from host.daily.calendar import utc_day
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
    assert sent.last()["ephemeral"] is True and "move 1" in embed_text(sent.last())
    assert await bot.daily.daily.run_for(ALICE.id, today) is not None


async def test_a_closed_days_par_run_replays_through_discord(bot: HilltopBot) -> None:
    async def short_par(seed: int) -> ParResult:
        state, moves = new_hill(seed), []
        for _ in range(4):
            move = greedy_move(state)
            moves.append(str(move))
            state = state.play(0, move)
        return ParResult(state.score, 4, tuple(moves))

    bot.daily.par.runner = short_par
    inter, _ = interaction(bot, ALICE)
    days = await closed_day_autocomplete(inter, "")
    yesterday = days[0].value
    assert yesterday < utc_day(bot.daily.clock()).isoformat() and len(days) == 7
    cog = daily_cog(bot)
    inter, sent = interaction(bot, ALICE)
    await cog.daily_replay.callback(cog, inter, day=yesterday, run="par")
    reply = sent.last()
    assert not reply.get("ephemeral") and f"{yesterday}: par" in embed_text(reply)
    attached = reply["file"]
    assert attached.filename == "par.gif" and attached.fp.read(6) == b"GIF89a"
    today = utc_day(bot.daily.clock()).isoformat()
    inter, sent = interaction(bot, ALICE)
    await cog.daily_replay.callback(cog, inter, day=today, run="winner")
    assert sent.last()["ephemeral"] and "still open" in embed_text(sent.last())
