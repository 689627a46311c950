"""/tournament against a fake Discord that refuses what Discord refuses: the announcement
and its Join button, the start that makes a thread for each game and posts the round,
the round that follows by itself, the final standings, the exports, and the refusals
(an admin's command from a player, a start where the bot may not make threads)."""

from __future__ import annotations

import pytest

from data.storage import Storage
from tests.cogs.fake_discord import MANAGE_GUILD, FakeDiscord, Message
from tests.cogs.test_gateway import Clock, Players, hilltop
from tests.cogs.test_gateway import fake as fake
from tests.cogs.test_gateway import nothing_logged_an_error as nothing_logged_an_error
from tests.cogs.test_gateway import players as players


async def posted_in(fake: FakeDiscord, channel_id: int, text: str) -> Message:
    await fake.wait_until(
        lambda: any(text in m.text for m in fake.channel_messages(channel_id)),
        within=30,
        what=f"a post saying {text!r}",
    )
    return next(m for m in fake.channel_messages(channel_id) if text in m.text)


async def test_a_tournament_from_its_announcement_to_its_final_standings(
    fake: FakeDiscord, storage: Storage, players: Players
) -> None:
    alice, bob, carol = players
    admin = fake.user("root", permissions=MANAGE_GUILD)
    async with hilltop(fake, storage, Clock()):
        made = await fake.slash(
            admin, "tournament create", game="hokito", format="swiss", rounds=1, name="Club"
        )
        announcement = await made.shown()
        assert "Club: entries open" in announcement.text
        joined = await fake.click(alice, announcement, label="Join")
        assert "alice joined." in (await joined.shown()).text
        await fake.slash(bob, "tournament join")
        refused = await fake.slash(carol, "tournament start")
        assert refused.ephemeral and "Only server admins" in (await refused.shown()).text
        started = await fake.slash(admin, "tournament start")
        assert "Club has started" in (await started.shown()).text
        round_post = await posted_in(fake, fake.channel_id, "Club: round 1 of 1")
        assert set(round_post.pinged) == {alice.id, bob.id}
        [thread] = fake.threads_of(fake.channel_id)
        assert f"<#{thread}>" in round_post.text
        assert fake.channels[thread]["name"].startswith("Club · R1 · ")
        [board] = fake.channel_messages(thread)
        assert "The game begins" in board.text
        # The first to move resigns at once: a forfeit, and the one round is over.
        first = alice if "alice (Black) to move" in board.text else bob
        asked = await fake.slash(first, "resign", channel_id=thread)
        await fake.click(first, await asked.shown(), label="Yes, resign")
        counted = await posted_in(fake, thread, "This game counts for Club, round 1")
        assert "lost without moving" in counted.text
        final = await posted_in(fake, fake.channel_id, "Club: final standings")
        assert "BH-C1" in final.text
        standings = await fake.slash(carol, "tournament standings", id=1)
        assert "Club: standings" in (await standings.shown()).text
        pairings = await fake.slash(carol, "tournament pairings", round=1, id=1)
        assert "Board 1:" in (await pairings.shown()).text
        exported = await fake.slash(admin, "tournament export", file="trf", id=1)
        assert (await exported.shown()).attachments == ["tournament-1.trf"]
        exported = await fake.slash(admin, "tournament export", id=1)
        assert (await exported.shown()).attachments == ["tournament-1.csv"]
    assert fake.threads_of(fake.channel_id) == [thread]


@pytest.mark.parametrize("permission", ["Create Public Threads", "Send Messages in Threads"])
async def test_a_start_where_threads_cannot_be_made_names_the_permission(
    fake: FakeDiscord, storage: Storage, players: Players, permission: str
) -> None:
    alice, bob, _ = players
    admin = fake.user("root", permissions=MANAGE_GUILD)
    fake.deny_bot(fake.channel_id, permission)
    async with hilltop(fake, storage, Clock()):
        await fake.slash(admin, "tournament create", game="hokito", format="round-robin")
        await fake.slash(alice, "tournament join")
        await fake.slash(bob, "tournament join")
        refused = await fake.slash(admin, "tournament start")
        said = await refused.shown()
        assert said.ephemeral and f"I lack the {permission} permission" in said.text
        listed = await fake.slash(alice, "tournament list")
        assert "open for entries" in (await listed.shown()).text
    assert fake.threads_of(fake.channel_id) == []
