"""The real bot against a fake Discord on loopback: it logs in, syncs its commands, receives
interactions over the gateway websocket and answers them over HTTP, as in production."""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import NamedTuple

import aiohttp
import discord
import pytest

from cogs import respond as respond_module
from cogs.client import HilltopBot
from data.repository import UserRecord
from data.results import Ending
from data.storage import Storage
from engine import registry
from host.face import Reply, User
from tests.cogs.fake_discord import (
    EPHEMERAL,
    MANAGE_GUILD,
    WAIT,
    CallbackType,
    FakeDiscord,
    FakeUser,
    Message,
    running,
    serving,
)
from tests.houses import bot_houses
from tests.waiting import until

#: How the bot, playing White at the default level, is named in replies.
WHITE_COMPUTER = "hilltop (White, normal computer)"

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
COMMANDS = {
    "play",
    "move",
    "moves",
    "board",
    "resign",
    "rules",
    "games",
    "accept",
    "decline",
    "daily",
    "leaderboard",
    "stats",
    "notify",
    "admin",
    "tournament",
    "away",
    "back",
    "mydata",
    "privacy",
}


#: An answer that updates the pressed message: at once, or, when the answer takes a while
#: (a bot's first board starts its drawing process), deferred and then edited.
IN_PLACE = (CallbackType.UPDATE_MESSAGE, CallbackType.DEFERRED_UPDATE)


class Players(NamedTuple):
    alice: FakeUser
    bob: FakeUser
    carol: FakeUser


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with serving() as server:
        yield server
    refused = [(c.method, c.path, reason) for c, reason in server.rejections]
    assert refused == [], "Discord would have refused these requests"


class Clock:
    """The bot's time, moved on by the tests instead of sleeping."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@asynccontextmanager
async def hilltop(
    fake: FakeDiscord, storage: Storage, clock: Clock | None = None
) -> AsyncIterator[HilltopBot]:
    bot = HilltopBot(bot_houses(storage, clock=clock or Clock()), dev_guild_id=fake.guild_id)
    async with running(bot, fake) as client:
        yield client


@pytest.fixture
async def bot(fake: FakeDiscord, storage: Storage) -> AsyncIterator[HilltopBot]:
    async with hilltop(fake, storage) as client:
        yield client


@pytest.fixture
def players(fake: FakeDiscord) -> Players:
    return Players(fake.user("alice"), fake.user("bob"), fake.user("carol"))


@pytest.fixture(autouse=True)
def nothing_logged_an_error(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.WARNING)
    yield
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == []


async def start_hokito(fake: FakeDiscord, alice: FakeUser, bob: FakeUser) -> Message:
    """alice challenges bob (alice moves first, seed 1), bob accepts: the first board."""
    challenge = await fake.slash(alice, "play", game="hokito", opponent=bob, seed=1, seat="first")
    accepted = await fake.click(bob, challenge.message, label="Accept")
    [board] = await accepted.followups(1)
    return board


async def game_id(storage: Storage, fake: FakeDiscord) -> int:
    record = await storage.games.live_game_in_channel(fake.channel_id)
    assert record is not None
    return record.id


async def test_the_fake_answers_json_with_the_exact_content_type(fake: FakeDiscord) -> None:
    async with aiohttp.ClientSession() as session, session.get(f"{fake.api_url}/gateway") as got:
        assert got.headers["Content-Type"] == "application/json"
        assert await got.json() == {"url": fake.gateway_url}


async def test_login_syncs_every_command_to_the_dev_guild_once(
    fake: FakeDiscord, bot: HilltopBot
) -> None:
    [sync] = [c for c in fake.calls if c.method == "PUT"]
    assert sync.path == f"/applications/{fake.application_id}/guilds/{fake.guild_id}/commands"
    assert fake.global_commands is None
    names = [c["name"] for c in sync.body]
    assert len(names) == len(set(names))
    assert set(names) >= COMMANDS
    admin = next(c for c in sync.body if c["name"] == "admin")
    assert sorted(o["name"] for o in admin["options"] if o["type"] == 1) == [
        "end",
        "forget-server",
        "settings",
        "start",
    ]
    assert int(admin["default_member_permissions"]) == MANAGE_GUILD
    assert admin["contexts"] == [0]
    play = next(c for c in sync.body if c["name"] == "play")
    options = {o["name"]: o for o in play["options"]}
    assert options["game"]["required"] and options["game"]["autocomplete"]
    assert options["opponent"]["type"] == 6
    assert fake.session.intents == discord.Intents(guilds=True).value
    assert fake.heartbeats >= 1
    channel = bot.get_channel(fake.channel_id)
    assert isinstance(channel, discord.TextChannel) and channel.name == "general"


async def test_a_challenge_is_accepted_by_the_challenged_player_only(
    fake: FakeDiscord, bot: HilltopBot, players: Players
) -> None:
    alice, bob, carol = players
    played = await fake.slash(alice, "play", game="hokito", opponent=bob, seed=1, seat="first")
    assert played.callback_type == CallbackType.MESSAGE and not played.ephemeral
    challenge = played.message
    assert challenge.pinged == (bob.id,)
    accept = challenge.find(label="Accept")["custom_id"]

    stranger = await fake.click(carol, challenge, custom_id=accept)
    assert stranger.callback_type == CallbackType.MESSAGE
    assert stranger.data["flags"] & EPHEMERAL
    assert "This challenge is for bob" in stranger.message.text

    accepted = await fake.click(bob, challenge, custom_id=accept)
    # The challenge is answered in place, its buttons gone; the board is a post of its own.
    assert accepted.callback_type in IN_PLACE
    [board] = await accepted.followups(1)
    assert "bob accepted: the game begins." in accepted.message.text
    assert accepted.message.labels() == []
    assert not board.ephemeral
    assert board.content == alice.mention and board.pinged == (alice.id,)
    assert "alice (Black) to move" in board.text
    assert board.embeds[0]["image"]["url"] == "attachment://board.png"
    assert board.upload("board.png").data.startswith(PNG_SIGNATURE)
    assert "Resign" in board.labels()
    assert any(label.startswith("a1") for label in board.labels())
    assert accepted.seconds < 3


async def test_move_autocomplete_and_answers(
    fake: FakeDiscord, bot: HilltopBot, storage: Storage, players: Players
) -> None:
    alice, bob, _ = players
    await start_hokito(fake, alice, bob)
    start = registry.get("hokito").new_state(1, 2, None)
    legal = [start.move_text(m) for m in start.legal_moves(0)]

    typed = await fake.autocomplete(alice, "move", "text", text="b2")
    assert typed.callback_type == CallbackType.AUTOCOMPLETE_RESULT
    starting = [m for m in legal if m.startswith("b2")]
    ending = [m for m in legal if m.endswith("b2")]
    # Each choice reads as its move and what it does: "b2-b4: by b2>b3>b4, onto B3".
    assert [c["name"].split(": ")[0] for c in typed.choices] == starting + ending
    assert all(": by " in c["name"] and len(c["name"]) <= 100 for c in typed.choices)
    # The value sent back is the move, naming the turn it was offered for (ply 0 here).
    assert [c["value"] for c in typed.choices] == [m + " @0" for m in starting + ending]
    blank = await fake.autocomplete(alice, "move", "text", text="")
    assert [c["name"].split(": ")[0] for c in blank.choices] == legal[:25]
    waiting = await fake.autocomplete(bob, "move", "text", text="")
    assert waiting.choices == []

    illegal = "a1-f6"
    assert illegal not in legal
    refused = await fake.slash(alice, "move", text=illegal)
    assert refused.ephemeral and illegal in refused.message.text
    record = await storage.games.get_game(await game_id(storage, fake))
    assert record is not None and record.ply == 0

    moved = await fake.slash(alice, "move", text="b2-b1")
    board = moved.message
    assert not moved.ephemeral and "alice played b2-b1" in board.text
    assert board.pinged == (bob.id,) and "board.png" in board.attachments


async def test_a_board_from_before_a_restart_still_works_once(
    fake: FakeDiscord, storage: Storage, players: Players
) -> None:
    alice, bob, _ = players
    async with hilltop(fake, storage):
        board = await start_hokito(fake, alice, bob)
    assert fake.sessions[0].socket.closed

    async with hilltop(fake, storage):
        assert len(fake.sessions) == 2
        opened = await fake.click(alice, board, prefix="a1")
        panel = opened.message
        assert opened.callback_type == CallbackType.MESSAGE and panel.ephemeral
        assert "So far: **a1**" in panel.text
        destination = panel.components()[0]["custom_id"]

        played = await fake.click(alice, panel, custom_id=destination)
        assert played.callback_type in IN_PLACE
        [after] = await played.followups(1)
        assert "Done: a1-" in played.message.text and played.message.components() == []
        assert "alice played a1-" in after.text and after.pinged == (bob.id,)

        again = await fake.click(alice, panel, custom_id=destination)
        assert again.callback_type in IN_PLACE
        [note] = await again.followups(1)
        assert note.ephemeral and "out of date" in note.text
        # A press on the old board refuses privately, and greys out that board's
        # controls for everyone, answering with an edit of the pressed message.
        stale = await fake.click(alice, board, prefix="a1")
        assert stale.callback_type in IN_PLACE
        [note] = await stale.followups(1)
        assert note.ephemeral and "out of date" in note.text
        greyed = fake.message(board.id).components()
        assert greyed and all(c.get("disabled") for c in greyed)
        assert len(again.calls) == len(stale.calls) == 1  # the refusal, nothing else

    games = storage.games
    record = await games.get_game(await game_id(storage, fake))
    assert record is not None and record.ply == 1
    assert len(await games.moves(record.id)) == 1
    boards = [m for m in fake.channel_messages() if "board.png" in m.attachments]
    assert [m.id for m in boards] == [board.id, after.id]


async def test_two_clicks_at_once_play_one_move(
    fake: FakeDiscord, bot: HilltopBot, storage: Storage, players: Players
) -> None:
    alice, bob, _ = players
    board = await start_hokito(fake, alice, bob)
    panel = (await fake.click(alice, board, prefix="b2")).message
    destination = panel.components()[0]["custom_id"]
    clicks = await asyncio.gather(
        fake.click(alice, panel, custom_id=destination),
        fake.click(alice, panel, custom_id=destination),
    )
    # Both answer with an edit of the panel: one says "Done" and posts the board, the
    # other greys the panel out and refuses privately.
    assert [c.callback_type for c in clicks] == [CallbackType.UPDATE_MESSAGE] * 2
    followed = [(await c.followups(1))[0] for c in clicks]
    assert sorted(m.ephemeral for m in followed) == [False, True]
    refusal = next(m for m in followed if m.ephemeral)
    assert "moved on" in refusal.text or "out of date" in refusal.text
    record = await storage.games.get_game(await game_id(storage, fake))
    assert record is not None and record.ply == 1


async def test_a_busy_channel_offers_a_thread_where_the_game_starts(
    fake: FakeDiscord, bot: HilltopBot, players: Players
) -> None:
    alice, bob, carol = players
    await start_hokito(fake, alice, bob)
    busy = await fake.slash(carol, "play", game="hokito", opponent=alice, seed=2, seat="first")
    assert busy.ephemeral and "already has a game" in busy.message.content

    # Two quick clicks on the offer: one thread, one game.
    first, second = await asyncio.gather(
        fake.click(carol, busy.message, label="Start it in a new thread"),
        fake.click(carol, busy.message, label="Start it in a new thread"),
    )
    [moved] = [c for c in (first, second) if c.callback_type in IN_PLACE]
    [again] = [c for c in (first, second) if c is not moved]
    assert again.ephemeral and "already being started" in again.message.content
    assert moved.message.components() == []  # answered at once, the button gone
    offer = moved.message.id
    await fake.wait_until(
        lambda: fake.message(offer).content.startswith("Your game is in"),
        within=WAIT,
        what="the offer to point at the thread",
    )
    [thread] = [c for c in fake.calls if c.method == "POST" and c.path.endswith("/threads")]
    assert thread.path == f"/channels/{fake.channel_id}/threads"
    thread_id = next(i for i, c in fake.channels.items() if c["type"] == 11)
    assert fake.message(offer).content == f"Your game is in <#{thread_id}>."

    await fake.wait_until(
        lambda: bool(fake.channel_messages(thread_id)), within=WAIT, what="the challenge"
    )
    [challenge] = fake.channel_messages(thread_id)
    assert challenge.pinged == (alice.id,) and "carol challenges alice" in challenge.text
    accepted = await fake.click(alice, challenge, label="Accept")
    [board] = await accepted.followups(1)
    assert board.channel_id == thread_id
    assert "carol (Black) to move" in board.text


async def test_slow_work_is_deferred_and_a_refusal_stays_private(
    fake: FakeDiscord, bot: HilltopBot, players: Players, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, _ = players
    await start_hokito(fake, alice, bob)
    monkeypatch.setattr(respond_module, "DEFER_AFTER", 0.0)

    refused = await fake.slash(bob, "move", text="a1-b1")
    assert refused.callback_type == CallbackType.DEFERRED_MESSAGE and not refused.ephemeral
    [note] = await refused.followups(1)
    assert note.ephemeral and "not your turn" in note.text
    assert [(c.method, c.path.rsplit("/", 1)[-1]) for c in refused.calls] == [
        ("DELETE", "@original"),
        ("POST", refused.token),
    ]
    assert refused.original_id not in fake.messages

    moved = await fake.slash(alice, "move", text="b2-b1")
    assert moved.callback_type == CallbackType.DEFERRED_MESSAGE
    [board] = await moved.followups(1)
    # The board pings bob, so it is a new message: the "thinking…" one is removed.
    assert board.id != moved.original_id and moved.original_id not in fake.messages
    assert not board.ephemeral and bob.id in board.pinged
    assert "alice played b2-b1" in board.text and "board.png" in board.attachments


async def test_a_deferred_board_still_pings_the_player_to_move(
    fake: FakeDiscord, bot: HilltopBot, players: Players, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, _ = players
    await start_hokito(fake, alice, bob)
    monkeypatch.setattr(respond_module, "DEFER_AFTER", 0.0)
    moved = await fake.slash(alice, "move", text="b2-b1")
    messages = await moved.followups(1)
    assert bob.id in {user for m in messages for user in m.pinged}


@pytest.mark.parametrize("defer_after", [respond_module.DEFER_AFTER, 0.0])
async def test_a_computer_answer_that_takes_a_while_comes_as_its_own_post(
    fake: FakeDiscord,
    bot: HilltopBot,
    players: Players,
    monkeypatch: pytest.MonkeyPatch,
    defer_after: float,
) -> None:
    alice = players.alice
    # Each reply is read once it shows, whether the bot answered at once or after a
    # "thinking…" (as it does when the machine is busy): 0.0 always defers.
    monkeypatch.setattr(respond_module, "DEFER_AFTER", defer_after)
    bot.service.computers.wait = 0.0  # every computer answer takes "a while" here
    started = await fake.slash(
        alice, "play", game="hokito", opponent=fake.bot_user, seed=1, seat="first"
    )
    assert "alice (Black) to move" in (await started.shown()).text
    moved = await fake.slash(alice, "move", text="b2-b1")
    reply = await moved.shown()
    assert "alice played b2-b1" in reply.text
    assert "hilltop (White, normal computer) is thinking…" in reply.text
    assert reply.pinged == ()  # nothing for alice to do yet

    def answered() -> bool:
        return any(f"{WHITE_COMPUTER} played" in m.text for m in fake.channel_messages())

    await fake.wait_until(answered, within=30, what="the computer's move")
    [post] = [m for m in fake.channel_messages() if f"{WHITE_COMPUTER} played" in m.text]
    assert "alice (Black) to move" in post.text and "board.png" in post.attachments
    assert post.pinged == (alice.id,)
    assert any(c.method == "POST" and c.path.endswith("/messages") for c in fake.calls)


async def test_a_button_no_payload_reads_is_refused_in_words(
    fake: FakeDiscord, bot: HilltopBot, players: Players
) -> None:
    alice, bob, _ = players
    board = await start_hokito(fake, alice, bob)
    # A message as an older version of the bot would have left it: a button of ours
    # whose action this version does not know.
    old = copy.deepcopy(board.payload)
    old["components"][0]["components"][0]["custom_id"] = "ht:teleport:9:4:"
    data = {"custom_id": "ht:teleport:9:4:", "component_type": 2}
    pressed = await fake.interact(fake._component(alice, Message(old, {}, ()), data))
    assert pressed.callback_type == CallbackType.MESSAGE
    assert pressed.data["flags"] & EPHEMERAL
    assert "not one of mine" in pressed.message.text
    assert "/board" in pressed.message.text


async def test_a_button_naming_a_game_id_no_database_holds_is_refused_in_words(
    fake: FakeDiscord, bot: HilltopBot, players: Players
) -> None:
    alice, bob, carol = players
    board = await start_hokito(fake, alice, bob)
    made_up = f"ht:follow:{2**63}:0:"
    forged = copy.deepcopy(board.payload)
    forged["components"][0]["components"][0]["custom_id"] = made_up
    data = {"custom_id": made_up, "component_type": 2}
    pressed = await fake.interact(fake._component(carol, Message(forged, {}, ()), data))
    assert pressed.data["flags"] & EPHEMERAL
    assert pressed.message.text.strip() == "That game does not exist."


async def test_boards_left_behind_lose_their_buttons_after_the_reply(
    fake: FakeDiscord, bot: HilltopBot, players: Players
) -> None:
    alice, bob, _ = players
    played = await fake.slash(alice, "play", game="hokito", opponent=bob, seed=1, seat="first")
    challenge = played.message
    # Accepted by typing: the challenge's own buttons are taken off all the same.
    accepted = await fake.slash(bob, "accept")
    first = accepted.message
    await bot.stale_boards.drain()
    assert fake.message(challenge.id).components() == []
    assert "Accept" not in fake.message(challenge.id).labels()
    assert fake.message(first.id).components() != []

    moved = await fake.slash(alice, "move", text="b2-b1")
    await bot.stale_boards.drain()
    old = fake.message(first.id)
    assert old.components() == [] and "board.png" in old.attachments  # the picture stays
    latest = fake.message(moved.message.id)
    assert latest.components() != [] and "alice played b2-b1" in latest.text
    edits = [c for c in fake.calls if c.method == "PATCH" and "/channels/" in c.path]
    assert [c.path.rsplit("/", 1)[1] for c in edits] == [str(challenge.id), str(first.id)]
    # The new board was there before the old one's edit: it never waits for it.
    assert moved.replied_at is not None and moved.replied_at < edits[1].at
    assert bot.stale_boards.retired == 2


DAY = 24 * 3600


async def test_admins_see_and_change_the_servers_settings(
    fake: FakeDiscord, bot: HilltopBot, players: Players
) -> None:
    alice, _, _ = players
    admin = fake.user("root", permissions=MANAGE_GUILD)
    refused = await fake.slash(alice, "admin settings", game="hokito", deadline_hours=12)
    assert refused.ephemeral and "Only admins (Manage Server)" in refused.message.text
    crossed = await fake.slash(admin, "admin settings", min_minutes=600, max_hours=1)
    assert crossed.ephemeral
    assert "min_minutes (10 hours) must not be longer than max_hours (1 hour)" in (
        crossed.message.text
    )
    shown = await fake.slash(admin, "admin settings", game="hokito", deadline_hours=12)
    assert shown.ephemeral and "Hokito: 12 hours per decision." in shown.message.text
    assert "Saved." in shown.message.text


async def test_a_player_out_of_time_lets_the_other_claim_the_win(
    fake: FakeDiscord, storage: Storage, players: Players
) -> None:
    alice, bob, carol = players
    clock = Clock()
    async with hilltop(fake, storage, clock) as bot:
        board = await start_hokito(fake, alice, bob)
        assert f"<t:{int(clock.now + 3 * DAY)}:R>" in board.text
        clock.now += 3 * DAY + 1
        timers = bot.get_cog("TimersCog")
        await timers.tick()  # type: ignore[union-attr]
        offer = fake.channel_messages()[-1]
        assert offer.pinged == (bob.id,) and "bob may claim the win" in offer.text
        for stranger in (alice, carol):
            no = await fake.click(stranger, offer, label="Claim the win")
            assert no.ephemeral and "Only bob may claim this win" in no.message.text
        won = await fake.click(bob, offer, label="Claim the win")
        assert won.callback_type == CallbackType.MESSAGE and not won.ephemeral
        end = won.message
        assert "alice (Black) ran out of time, and bob (White) claimed the win." in end.text
        # alice never made a move: the game is aborted, not rated.
        assert "Game aborted" in end.text and "Ratings" not in end.text
    record = await storage.games.get_game(await finished_id(storage))
    assert record.status == "aborted" and record.result is not None
    assert record.result.ending is Ending.CLAIMED and record.result.aborted


async def finished_id(storage: Storage) -> int:
    rows = await storage.database.fetch(
        "SELECT id FROM games WHERE status IN ('finished', 'aborted') ORDER BY id DESC"
    )
    return int(rows[0][0])


async def test_closed_direct_messages_stop_and_the_player_is_told_once(
    fake: FakeDiscord, storage: Storage, players: Players
) -> None:
    alice, bob, _ = players
    clock = Clock()
    async with hilltop(fake, storage, clock) as bot:
        on = await fake.slash(alice, "notify", dm="on")
        assert on.ephemeral and "a direct message" in on.message.text
        fake.closed_dms.add(alice.id)
        await start_hokito(fake, alice, bob)  # her turn: a direct message is tried
        await fake.wait_until(
            lambda: bool(fake.rejections), within=WAIT, what="the direct message to be refused"
        )
        clock.now += 1.5 * DAY
        await bot.get_cog("TimersCog").tick()  # type: ignore[union-attr]
        # The reminder is a ping in the channel: no second direct message was tried.
        assert fake.channel_messages()[-1].pinged == (alice.id,)
        assert [reason for _, reason in fake.rejections] == ["Cannot send messages to this user"]
        fake.rejections.clear()
        told = await fake.slash(alice, "board")
        [notice] = await told.followups(1)
        assert notice.ephemeral and "I could not send you a direct message" in notice.text
        # The bot looks for what to tell once after each answer: the test waits until it
        # has looked after this one, and found nothing to tell again.
        notices = bot.notices
        found: list[list[Reply]] = []

        async def looked(user: User) -> list[Reply]:
            found.append(await notices(user))
            return found[-1]

        bot.notices = looked  # type: ignore[method-assign]
        again = await fake.slash(alice, "board")
        await until(lambda: bool(found), "the bot to look for what to tell alice")
        assert found == [[]] and await again.followups(0) == []
        shown = await fake.slash(alice, "notify")
        assert "closed to me" in shown.message.text


async def test_my_games_link_to_the_latest_board_and_survive_a_restart(
    fake: FakeDiscord, storage: Storage, players: Players
) -> None:
    alice, bob, _ = players
    async with hilltop(fake, storage) as bot:
        board = await start_hokito(fake, alice, bob)
        mine = await fake.slash(alice, "games mine")
        link = f"https://discord.com/channels/{fake.guild_id}/{fake.channel_id}/{board.id}"
        assert mine.ephemeral and f"[board]({link})" in mine.message.text
        assert "**Your turn**" in mine.message.text
        await bot.get_cog("TimersCog").tick()  # type: ignore[union-attr]  # links saved
    async with hilltop(fake, storage):
        again = await fake.slash(bob, "games mine")
        assert f"[board]({link})" in again.message.text
        assert "**Other games**" in again.message.text


async def test_a_player_who_asks_gets_turns_by_direct_message(
    fake: FakeDiscord, bot: HilltopBot, players: Players
) -> None:
    alice, bob, _ = players
    await fake.slash(alice, "notify", dm="on")
    board = await start_hokito(fake, alice, bob)  # alice moves first
    await fake.wait_until(
        lambda: bool(fake.direct_messages(alice)), within=WAIT, what="her turn by DM"
    )
    [dm] = fake.direct_messages(alice)
    assert f"Your turn in <#{fake.channel_id}> (Hokito: alice vs bob)." in dm.text
    assert f"/{fake.channel_id}/{board.id}" in dm.text
    assert fake.direct_messages(bob) == []  # bob did not ask for them


async def test_a_rematch_from_the_game_over_post_and_a_draw_by_buttons(
    fake: FakeDiscord, bot: HilltopBot, players: Players
) -> None:
    alice, bob, carol = players
    await start_hokito(fake, alice, bob)
    offer = (await fake.slash(alice, "draw")).message
    assert offer.pinged == (bob.id,) and offer.labels() == ["Accept", "Decline"]
    stranger = await fake.click(carol, offer, label="Accept")
    assert stranger.ephemeral and "This offer is for bob to answer" in stranger.message.text
    accepted = await fake.click(bob, offer, label="Accept")
    assert accepted.callback_type in IN_PLACE
    [end] = await accepted.followups(1)
    assert accepted.message.labels() == [] and "bob accepted the draw." in accepted.message.text
    # Agreed before anyone moved: aborted, and said so.
    assert "alice (Black) and bob (White) agreed a draw." in end.text and "aborted" in end.text
    assert end.labels() == ["Rematch"]

    pressed = await fake.click(bob, end, label="Rematch")
    # The game-over post keeps its text and picture; only its button goes.
    assert pressed.callback_type in IN_PLACE
    [challenge] = await pressed.followups(1)
    kept = fake.message(end.id)
    assert kept.labels() == [] and kept.text == end.text and kept.attachments == end.attachments
    assert "bob asks for a rematch" in challenge.text and challenge.pinged == (alice.id,)
    started = await fake.click(alice, challenge, label="Accept")
    [board] = await started.followups(1)
    assert "The game begins: bob (Black), alice (White)." in board.text


async def test_a_server_may_start_every_game_in_a_thread_of_its_own(
    fake: FakeDiscord, bot: HilltopBot, storage: Storage, players: Players
) -> None:
    alice, bob, _ = players
    admin = fake.user("root", permissions=MANAGE_GUILD)
    shown = await fake.slash(admin, "admin settings", threads=True)
    assert "New games start in a thread of their own." in shown.message.text
    played = await fake.slash(alice, "play", game="hokito", opponent=bob, seed=1, seat="first")
    thread_id = next(i for i, c in fake.channels.items() if c["type"] == 11)
    assert not played.ephemeral
    assert played.message.text.strip() == f"alice started a game in <#{thread_id}>."
    [challenge] = fake.channel_messages(thread_id)
    assert challenge.pinged == (bob.id,) and "alice challenges bob" in challenge.text
    # The channel itself stays free for other games.
    assert await storage.games.live_game_in_channel(fake.channel_id) is None
    accepted = await fake.click(bob, challenge, label="Accept")
    [board] = await accepted.followups(1)
    assert board.channel_id == thread_id and "alice (Black) to move" in board.text


async def test_with_threads_on_a_refused_play_makes_no_thread_and_a_thread_is_named_by_its_game(
    fake: FakeDiscord, bot: HilltopBot, players: Players
) -> None:
    alice, bob, _ = players
    admin = fake.user("root", permissions=MANAGE_GUILD)
    await fake.slash(admin, "admin settings", threads=True)
    refusals = [
        ({"game": "nosuchgame @everyone https://example.com"}, "There is no game"),
        ({"game": "hokito"}, "needs an opponent"),
        ({"game": "hokito", "opponent": bob, "position": "nonsense"}, "position:"),
        ({"game": "hokito", "opponent": alice}, "You cannot challenge yourself"),
    ]
    for options, why in refusals:
        refused = await fake.slash(alice, "play", **options)
        assert refused.ephemeral and why in refused.message.text
    assert not [c for c in fake.calls if c.path.endswith("/threads")]
    assert not [c for c in fake.channels.values() if c["type"] == 11]
    await fake.slash(alice, "play", game="hokito", opponent=bob, seed=1)
    [thread] = [c for c in fake.channels.values() if c["type"] == 11]
    assert thread["name"] == "Hokito: alice vs bob"


async def test_anyone_may_follow_a_board_and_is_pinged_at_the_next_move(
    fake: FakeDiscord, bot: HilltopBot, players: Players
) -> None:
    alice, bob, carol = players
    board = await start_hokito(fake, alice, bob)
    followed = await fake.click(carol, board, label="Follow")
    assert followed.ephemeral and followed.message.labels() == ["Unfollow"]
    moved = await fake.slash(alice, "move", text="b2-b1")
    assert moved.message.pinged == (bob.id,)
    [told] = await moved.followups(1)  # the follower, by a message of their own
    assert told.pinged == (carol.id,) and told.content.startswith("Following this game:")
    stopped = await fake.click(carol, followed.message, label="Unfollow")
    assert stopped.callback_type == CallbackType.UPDATE_MESSAGE
    assert "no longer follow" in stopped.message.text


async def test_a_reminder_that_cannot_be_sent_directly_is_a_ping_in_the_channel(
    fake: FakeDiscord, storage: Storage, players: Players
) -> None:
    alice, bob, _ = players
    clock = Clock()
    async with hilltop(fake, storage, clock) as bot:
        await fake.slash(alice, "notify", dm="on")
        await start_hokito(fake, alice, bob)
        await fake.wait_until(
            lambda: bool(fake.direct_messages(alice)), within=WAIT, what="her turn by DM"
        )
        fake.closed_dms.add(alice.id)  # she closes them afterwards
        before = len(fake.channel_messages())
        clock.now += 1.5 * DAY
        await bot.get_cog("TimersCog").tick()  # type: ignore[union-attr]
        [reminder] = fake.channel_messages()[before:]
        assert reminder.pinged == (alice.id,) and "Reminder: alice" in reminder.text
        assert [reason for _, reason in fake.rejections] == ["Cannot send messages to this user"]
        fake.rejections.clear()


async def test_a_game_with_hundreds_of_followers_posts_its_moves(
    fake: FakeDiscord, storage: Storage, bot: HilltopBot, players: Players
) -> None:
    alice, bob, _ = players
    await start_hokito(fake, alice, bob)
    game = await game_id(storage, fake)
    fans = [UserRecord(1_250_000_000_000_100_000 + n, f"fan{n}", False) for n in range(150)]
    for fan in fans:
        await storage.games.follow(game, fan, True)
    moved = await fake.slash(alice, "move", text="b2-b1")
    board = moved.message
    assert not moved.ephemeral and "alice played b2-b1" in board.text
    assert board.pinged == (bob.id,)  # the players' ping, as before
    # The followers are pinged by messages of their own, each within Discord's limits.
    pings = await moved.followups(2)
    pinged = [user for message in pings for user in message.pinged]
    assert sorted(pinged) == sorted(f.id for f in fans)
    assert all(len(message.content) <= 2000 for message in pings)
    # And the game goes on.
    legal = await fake.autocomplete(bob, "move", "text", text="")
    answered = await fake.slash(bob, "move", text=legal.choices[0]["value"])
    assert not answered.ephemeral and "bob played" in answered.message.text
    assert len(await answered.followups(2)) == 2
