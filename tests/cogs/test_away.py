"""/away and /back through a fake Discord that refuses what Discord refuses: both answer
privately, and a board posted while a player is away says so."""

from __future__ import annotations

from data.storage import Storage
from tests.cogs.fake_discord import FakeDiscord
from tests.cogs.test_gateway import Clock, Players, hilltop, start_hokito
from tests.cogs.test_gateway import fake as fake
from tests.cogs.test_gateway import nothing_logged_an_error as nothing_logged_an_error
from tests.cogs.test_gateway import players as players


async def test_away_and_back_answer_privately_and_the_board_says_who_is_away(
    fake: FakeDiscord, storage: Storage, players: Players
) -> None:
    alice, bob, _ = players
    async with hilltop(fake, storage, Clock()):
        await start_hokito(fake, alice, bob)
        away = await fake.slash(alice, "away", days=2)
        said = await away.shown()
        assert said.ephemeral and "Away until" in said.text and "5 away days left" in said.text
        board = await fake.slash(bob, "board")
        assert "alice is away until" in (await board.shown()).text
        back = await fake.slash(alice, "back")
        said = await back.shown()
        assert said.ephemeral and "given back" in said.text
        again = await fake.slash(alice, "back")
        assert "You are not away" in (await again.shown()).text
