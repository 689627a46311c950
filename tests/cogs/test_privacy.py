"""/privacy through a fake Discord that refuses what Discord refuses: the whole notice
arrives in one embed, for its reader alone, nothing of it cut to fit."""

from __future__ import annotations

from data.storage import Storage
from host.face import privacy_notice, speaking
from tests.cogs.fake_discord import FakeDiscord
from tests.cogs.test_gateway import Clock, Players, hilltop
from tests.cogs.test_gateway import fake as fake
from tests.cogs.test_gateway import nothing_logged_an_error as nothing_logged_an_error
from tests.cogs.test_gateway import players as players


async def test_privacy_shows_the_whole_notice_to_its_reader_alone(
    fake: FakeDiscord, storage: Storage, players: Players
) -> None:
    alice, _, _ = players
    async with hilltop(fake, storage, Clock()):
        answered = await fake.slash(alice, "privacy")
        said = await answered.shown()
    assert said.ephemeral
    [embed] = said.embeds
    with speaking("en"):
        notice = privacy_notice()
    assert embed["title"] == "What Hilltop keeps" == notice.title
    assert embed["description"] == notice.text
    shown = [(field["name"], field["value"]) for field in embed["fields"]]
    assert shown == list(notice.fields)
    assert len(shown) == 11
    assert any("/mydata forget" in value for _, value in shown)
