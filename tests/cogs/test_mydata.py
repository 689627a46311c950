"""/mydata through a fake Discord that refuses what Discord refuses: the copy is a file
for its person alone; forgetting asks first, privately, and once confirmed the other
player's board no longer names them."""

from __future__ import annotations

import json

from data.storage import Storage
from tests.cogs.fake_discord import FakeDiscord
from tests.cogs.test_gateway import Clock, Players, hilltop, start_hokito
from tests.cogs.test_gateway import fake as fake
from tests.cogs.test_gateway import nothing_logged_an_error as nothing_logged_an_error
from tests.cogs.test_gateway import players as players


async def test_mydata_exports_privately_and_forgets_once_confirmed(
    fake: FakeDiscord, storage: Storage, players: Players
) -> None:
    alice, bob, _ = players
    async with hilltop(fake, storage, Clock()):
        await start_hokito(fake, alice, bob)
        exported = await fake.slash(alice, "mydata export")
        said = await exported.shown()
        assert said.ephemeral
        [name] = said.attachments
        copy = json.loads(said.upload(name).data)
        assert copy["name"] == alice.name and len(copy["tables"]["games"]) == 1
        asked = await fake.slash(alice, "mydata forget")
        question = await asked.shown()
        assert question.ephemeral and "cannot be undone" in question.text
        assert await storage.privacy.user(alice.id) is not None
        done = await fake.click(alice, question, label="Forget me")
        assert "is forgotten" in (await done.shown()).text
        assert await storage.privacy.user(alice.id) is None
        board = await fake.slash(bob, "board")
        shown = (await board.shown()).text
        assert alice.name not in shown
        again = await fake.slash(alice, "mydata forget")
        assert "Nothing is stored" in (await again.shown()).text
