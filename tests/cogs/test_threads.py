"""Games in threads of their own, against a fake Discord that makes threads as Discord
does: the bot says why a thread could not be made, by Discord's real cause."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest

from data.storage import Storage
from tests.cogs import discord_rules as rules
from tests.cogs.fake_discord import MANAGE_GUILD, FakeDiscord, FakeUser, serving
from tests.cogs.test_gateway import Clock, Players, hilltop
from tests.cogs.test_gateway import nothing_logged_an_error as nothing_logged_an_error


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with serving() as server:
        yield server
    assert server.rejections == [], "refusals beyond those each test expects"


@pytest.fixture
def players(fake: FakeDiscord) -> Players:
    return Players(fake.user("alice"), fake.user("bob"), fake.user("carol"))


async def threads_on(fake: FakeDiscord) -> None:
    admin = fake.user("root", permissions=MANAGE_GUILD)
    changed = await fake.slash(admin, "admin settings", threads=True)
    assert "New games start in a thread of their own." in (await changed.shown()).text


async def refused_play(fake: FakeDiscord, alice: FakeUser, bob: FakeUser, channel: int) -> str:
    played = await fake.slash(
        alice, "play", game="hokito", opponent=bob, seed=1, seat="first", channel_id=channel
    )
    reply = await played.shown()
    assert reply.ephemeral
    return reply.text


def refusals(fake: FakeDiscord) -> list[tuple[int, str]]:
    """Discord's refusals so far (then forgotten: these tests cause them on purpose)."""
    found = [(c.status, reason) for c, reason in fake.rejections]
    fake.rejections.clear()
    return found


async def test_a_thread_refused_for_a_permission_names_the_permission(
    fake: FakeDiscord, storage: Storage, players: Players
) -> None:
    alice, bob, _ = players
    hidden = fake.text_channel("hidden")
    fake.deny_bot(fake.channel_id, "Create Public Threads")
    fake.deny_bot(hidden, "View Channels")
    async with hilltop(fake, storage):
        await threads_on(fake)
        said = await refused_play(fake, alice, bob, fake.channel_id)
        assert "I lack the Create Public Threads permission in this channel" in said
        assert refusals(fake) == [(403, "Missing Permissions")]
        said = await refused_play(fake, alice, bob, hidden)
        assert "I lack the View Channels permission in this channel" in said
        assert refusals(fake) == [(403, "Missing Access")]
    assert fake.threads_of(fake.channel_id) == fake.threads_of(hidden) == []


async def test_a_thread_the_bot_could_not_post_in_is_not_made(
    fake: FakeDiscord, storage: Storage, players: Players
) -> None:
    alice, bob, _ = players
    fake.deny_bot(fake.channel_id, "Send Messages in Threads")
    async with hilltop(fake, storage):
        await threads_on(fake)
        said = await refused_play(fake, alice, bob, fake.channel_id)
        assert "I lack the Send Messages in Threads permission in this channel" in said
    assert fake.threads_of(fake.channel_id) == [] and refusals(fake) == []


async def test_a_thread_refused_for_another_cause_says_what_discord_said(
    fake: FakeDiscord, storage: Storage, players: Players
) -> None:
    alice, bob, _ = players
    news = fake.text_channel("news", kind=rules.ANNOUNCEMENT)
    async with hilltop(fake, storage):
        await threads_on(fake)
        said = await refused_play(fake, alice, bob, news)
        assert "Discord would not make one in this channel" in said
        assert "(Cannot execute action on this channel type)" in said
        assert "permission" not in said
        assert refusals(fake) == [(400, "Cannot execute action on this channel type")]


async def offer_in_busy(fake: FakeDiscord, players: Players, channel: int) -> str:
    """carol asks for a game where alice and bob play, presses "Start it in a new
    thread", and reads what the offer then says."""
    alice, bob, carol = players
    challenge = await fake.slash(
        alice, "play", game="hokito", opponent=bob, seed=1, seat="first", channel_id=channel
    )
    accepted = await fake.click(bob, await challenge.shown(), label="Accept")
    await accepted.followups(1, within=30)
    busy = await fake.slash(
        carol, "play", game="hokito", opponent=alice, seed=2, channel_id=channel
    )
    offer = await busy.shown()
    assert "already has a game" in offer.content
    pressed = await fake.click(carol, offer, label="Start it in a new thread")
    await fake.wait_until(
        lambda: not fake.message(offer.id).content.startswith("Starting"),
        within=30,
        what="the offer to say how it went",
    )
    assert pressed.callback is not None
    return fake.message(offer.id).content


async def test_the_new_thread_button_tells_a_missing_permission_from_another_cause(
    fake: FakeDiscord, storage: Storage, players: Players
) -> None:
    news = fake.text_channel("news", kind=rules.ANNOUNCEMENT)
    fake.deny_bot(fake.channel_id, "Create Public Threads")
    async with hilltop(fake, storage):
        said = await offer_in_busy(fake, players, fake.channel_id)
        assert "I lack the Create Public Threads permission in this channel" in said
        assert refusals(fake) == [(403, "Missing Permissions")]
        said = await offer_in_busy(fake, players, news)
        assert "Discord would not make a thread in this channel" in said
        assert "(Cannot execute action on this channel type)" in said
        assert refusals(fake) == [(400, "Cannot execute action on this channel type")]


DAY = 24 * 3600


async def test_a_reminder_into_a_locked_thread_is_a_warning_not_an_error(
    fake: FakeDiscord, storage: Storage, players: Players, caplog: pytest.LogCaptureFixture
) -> None:
    alice, bob, _ = players
    clock = Clock()
    async with hilltop(fake, storage, clock) as bot:
        await threads_on(fake)
        played = await fake.slash(alice, "play", game="hokito", opponent=bob, seed=1, seat="first")
        await played.shown()  # said in the channel once the game is in its thread
        [thread_id] = fake.threads_of(fake.channel_id)
        [challenge] = fake.channel_messages(thread_id)
        accepted = await fake.click(bob, challenge, label="Accept")
        await accepted.followups(1, within=30)  # the first board
        fake.archive(thread_id, locked=True)  # by a moderator
        clock.now += 1.5 * DAY
        await bot.get_cog("TimersCog").tick()  # type: ignore[union-attr]
    # alice's reminder could not be posted: Discord said why, and the bot noted it.
    assert refusals(fake) == [(400, "Thread is archived")]
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert f"cannot post in channel {thread_id}: Thread is archived" in warned
