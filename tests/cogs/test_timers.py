"""The timer's sweep posts everything that came due, even when one post (or the rating of
finished games) fails."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from cogs.timers import TimersCog
from host.model import Channel, Reply


class SweepBot:
    """What the timer needs of the bot: one channel refuses the bot's posts."""

    def __init__(self) -> None:
        self.posted: list[int] = []
        self.settled = 0
        self.told = 0
        self.service = self

    async def save_board_links(self) -> None:
        return None

    async def expire_due(self) -> list[tuple[Channel, list[Reply]]]:
        return [(Channel(channel), [Reply(text=f"due in {channel}")]) for channel in (1, 2, 3)]

    async def settle_ratings(self) -> None:
        self.settled += 1
        raise TimeoutError("database is locked")

    async def tell_untold(self, post: Any, game_id: int | None = None) -> int:
        self.told += 1
        return 0

    async def post(self, where: Channel, replies: list[Reply]) -> None:
        if where.channel_id == 1:
            raise PermissionError("Missing Access")
        self.posted.append(where.channel_id)


async def test_a_channel_that_refuses_a_post_costs_the_others_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bot: Any = SweepBot()
    with caplog.at_level(logging.ERROR):
        await TimersCog(bot).tick()
    assert bot.posted == [2, 3]
    assert bot.settled == 1
    assert bot.told == 1, "the sweep tells the moves made on the web"
    assert [r.getMessage() for r in caplog.records] == [
        "posting in Channel(channel_id=1, guild_id=None, name='') after the sweep failed",
        "rating the finished games failed; the next sweep tries again",
    ]
