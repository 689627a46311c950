"""The board's "Open the board" button: on a deployment with an Activity, for a game whose
server opened its pages, a press answers by launching the Activity (its custom_id names
the game) and posts nothing; elsewhere there is no button, and a press is refused."""

from __future__ import annotations

import io
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot import activity_on, house_settings
from cogs.client import HilltopBot
from cogs.respond import send_replies
from cogs.views import BUTTON_PREFIX
from console.front import Console, console_front
from console.lines import console_channel
from data.storage import Storage
from host.face import HouseSettings, build_house
from host.model import Channel, Reply, ServiceError, User
from host.payloads import Action, Payload
from tests.cogs.conftest import ALICE, interaction
from tests.cogs.fake_discord import (
    EPHEMERAL,
    MANAGE_GUILD,
    CallbackType,
    FakeDiscord,
    FakeUser,
    Message,
    running,
    serving,
)
from tests.cogs.test_gateway import Clock, game_id, start_hokito
from tests.houses import bot_houses

WEB_URL = "https://hilltop.example"
OPEN = "Open the board"


@pytest.fixture
def activity(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The deployment's Activity, as `bot.py` reads it from the environment."""
    monkeypatch.setenv("HILLTOP_ACTIVITY", "on")
    monkeypatch.setenv("DISCORD_CLIENT_ID", "1250000000000000001")
    monkeypatch.setenv("HILLTOP_WEB_URL", WEB_URL)
    yield


@pytest.fixture
def no_activity(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Pages served, but no Activity."""
    monkeypatch.delenv("HILLTOP_ACTIVITY", raising=False)
    monkeypatch.setenv("HILLTOP_WEB_URL", WEB_URL)
    yield


@asynccontextmanager
async def hilltop(fake: FakeDiscord, storage: Storage) -> AsyncIterator[HilltopBot]:
    bot = HilltopBot(bot_houses(storage, clock=Clock()), dev_guild_id=fake.guild_id)
    async with running(bot, fake) as client:
        yield client


async def open_pages(fake: FakeDiscord, web: str = "public") -> None:
    admin = fake.user("root", permissions=MANAGE_GUILD)
    await fake.slash(admin, "admin settings", web=web)


async def a_board(fake: FakeDiscord) -> tuple[Message, FakeUser, FakeUser]:
    alice, bob = fake.user("alice"), fake.user("bob")
    return await start_hokito(fake, alice, bob), alice, bob


async def test_the_button_launches_the_activity_on_the_game_and_posts_nothing(
    activity: None, sqlite_storage: Storage
) -> None:
    async with serving(activities=True) as fake, hilltop(fake, sqlite_storage):
        await open_pages(fake)
        board, alice, _ = await a_board(fake)
        game = await game_id(sqlite_storage, fake)
        assert board.embeds[0]["url"] == f"{WEB_URL}/g/{game}"
        button = board.find(label=OPEN)
        # The Activity is given the custom_id: the game is read from it.
        assert button["custom_id"] == f"{BUTTON_PREFIX}launch:{game}:0:"
        pressed_payload = Payload.parse(button["custom_id"].removeprefix(BUTTON_PREFIX))
        assert (pressed_payload.action, pressed_payload.game_id) == (Action.LAUNCH, game)
        messages = dict(fake.messages)
        pressed = await fake.click(alice, board, label=OPEN)
        assert pressed.callback_type == CallbackType.LAUNCH_ACTIVITY
        assert fake.launches == [pressed]
        assert pressed.original_id is None and pressed.followup_ids == []
        assert pressed.calls == []
        assert fake.messages == messages  # nothing posted, nothing edited
        # A watcher opens it too: the board is there for anyone in the server.
        watched = await fake.click(fake.user("carol"), board, label=OPEN)
        assert watched.callback_type == CallbackType.LAUNCH_ACTIVITY
    assert fake.rejections == []


async def test_no_button_without_an_activity_and_a_press_is_refused(
    no_activity: None, sqlite_storage: Storage
) -> None:
    async with serving(activities=True) as fake, hilltop(fake, sqlite_storage) as bot:
        await open_pages(fake)
        board, alice, _ = await a_board(fake)
        game = await game_id(sqlite_storage, fake)
        assert board.embeds[0]["url"] == f"{WEB_URL}/g/{game}"  # the pages are open
        assert OPEN not in board.labels() and "Resign" in board.labels()
        # A button from when there was an Activity.
        here = Channel(fake.channel_id, fake.guild_id, "general")
        with pytest.raises(ServiceError, match="cannot be opened inside Discord"):
            await bot.service.press(
                here, User(alice.id, alice.name), Payload(Action.LAUNCH, game, 0)
            )
    assert fake.rejections == []


async def test_no_button_while_the_servers_pages_are_off(
    activity: None, sqlite_storage: Storage
) -> None:
    async with serving(activities=True) as fake, hilltop(fake, sqlite_storage):
        board, _, _ = await a_board(fake)
        assert "url" not in board.embeds[0]
        assert OPEN not in board.labels() and "Resign" in board.labels()
    assert fake.rejections == []


async def test_a_press_after_the_pages_closed_is_refused_privately(
    activity: None, sqlite_storage: Storage
) -> None:
    async with serving(activities=True) as fake, hilltop(fake, sqlite_storage):
        await open_pages(fake)
        board, alice, _ = await a_board(fake)
        await open_pages(fake, "off")
        refused = await fake.click(alice, board, label=OPEN)
        assert refused.callback_type == CallbackType.MESSAGE and refused.ephemeral
        assert "This server's games are not on the web" in refused.message.text
        assert fake.launches == []
    assert fake.rejections == []


async def test_only_a_game_of_this_server_is_opened(
    activity: None, sqlite_storage: Storage
) -> None:
    async with serving(activities=True) as fake, hilltop(fake, sqlite_storage) as bot:
        await open_pages(fake)
        _, alice, _ = await a_board(fake)
        game = await game_id(sqlite_storage, fake)
        person = User(alice.id, alice.name)
        elsewhere = Channel(fake.channel_id + 1, fake.guild_id + 1, "elsewhere")
        with pytest.raises(ServiceError, match=f"There is no game {game} here"):
            await bot.service.press(elsewhere, person, Payload(Action.LAUNCH, game, 0))
        direct = Channel(fake.channel_id + 2, None, "")
        with pytest.raises(ServiceError, match=f"There is no game {game} here"):
            await bot.service.press(direct, person, Payload(Action.LAUNCH, game, 0))
        here = Channel(fake.channel_id, fake.guild_id, "general")
        with pytest.raises(ServiceError, match="That game does not exist"):
            await bot.service.press(here, person, Payload(Action.LAUNCH, game + 1000, 0))
        [launch] = await bot.service.press(here, person, Payload(Action.LAUNCH, game, 0))
        assert launch.launch and launch.ephemeral and launch.url == f"{WEB_URL}/g/{game}"


async def test_an_application_without_activities_refuses_the_launch_and_gets_the_link(
    activity: None, sqlite_storage: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with serving() as fake, hilltop(fake, sqlite_storage):
        await open_pages(fake)
        board, alice, _ = await a_board(fake)
        game = await game_id(sqlite_storage, fake)
        button = board.find(label=OPEN)
        press = {"custom_id": button["custom_id"], "component_type": 2}
        pressed = await fake.dispatch(fake._component(alice, board, press))
        await pressed.shown()
        # Discord refused the launch; the press is answered with the page's link instead.
        [(call, reason)] = fake.rejections
        assert call.path.startswith("/interactions/") and call.json["type"] == 12
        assert reason.startswith("Invalid Form Body: type: Invalid interaction response type")
        assert fake.launches == []
        assert pressed.callback_type == CallbackType.MESSAGE
        assert pressed.data["flags"] & EPHEMERAL
        assert pressed.message.embeds[0]["url"] == f"{WEB_URL}/g/{game}"
    assert any("the Activity was not launched" in r.getMessage() for r in caplog.records)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_launch_after_the_press_was_answered_sends_the_link(
    bot: HilltopBot,
) -> None:
    inter, sent = interaction(bot, ALICE, component=True)
    await inter.response.defer()
    page = f"{WEB_URL}/g/12"
    await send_replies(inter, [Reply(title="Game 12", url=page, ephemeral=True, launch=True)])
    assert sent.methods() == ["defer", "followup"]
    assert sent.last()["ephemeral"] and sent.last()["embed"].url == page
    inter.response.launch_activity.assert_not_awaited()


async def test_a_launch_answers_the_press_itself(bot: HilltopBot) -> None:
    inter, sent = interaction(bot, ALICE, component=True)
    reply = Reply(title="Game 12", url=f"{WEB_URL}/g/12", ephemeral=True, launch=True)
    await send_replies(inter, [reply])
    inter.response.launch_activity.assert_awaited_once_with()
    assert sent.methods() == []


async def test_the_console_shows_the_pages_link_for_a_launch(
    tmp_path: Path, sqlite_storage: Storage
) -> None:
    settings = HouseSettings(render_images=False, web_url=WEB_URL, activity=True)
    house = build_house(sqlite_storage, settings, console_front())
    out = io.StringIO()
    console = Console(house, tmp_path / "out", out)
    try:
        for line in (
            "root /admin settings web:public",
            "alice /play game:hokito opponent:bob seed:1 seat:first",
            "bob /accept",
        ):
            await console.run_line(line)
        assert OPEN in out.getvalue()
        out.seek(0)
        out.truncate()
        await console.run_line(f"alice /press {OPEN}")
    finally:
        house.close()
    record = await sqlite_storage.games.live_game_in_channel(console_channel("general").channel_id)
    assert record is not None
    said = out.getvalue()
    assert "(only alice sees this)" in said
    assert f"page: {WEB_URL}/g/{record.id}" in said


def test_the_activity_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HILLTOP_ACTIVITY", raising=False)
    monkeypatch.delenv("DISCORD_CLIENT_ID", raising=False)
    assert activity_on() is False
    assert house_settings(for_discord=True).activity is False
    monkeypatch.setenv("HILLTOP_ACTIVITY", "on")
    with pytest.raises(SystemExit, match="HILLTOP_ACTIVITY=on needs DISCORD_CLIENT_ID"):
        activity_on()
    monkeypatch.setenv("DISCORD_CLIENT_ID", "1250000000000000001")
    assert house_settings(for_discord=True).activity is True
    assert house_settings().activity is True
    monkeypatch.setenv("HILLTOP_ACTIVITY", "yes")
    with pytest.raises(SystemExit, match="HILLTOP_ACTIVITY must be on or off, got 'yes'"):
        activity_on()
    monkeypatch.setenv("HILLTOP_ACTIVITY", "off")
    assert activity_on() is False
