"""The Discord layer through discord.py itself: commands, components, errors, restarts."""

from __future__ import annotations

import asyncio
from typing import Any
from unittest.mock import AsyncMock, create_autospec

import discord
import pytest
from PIL import Image, ImageSequence

from cogs import respond as respond_module
from cogs.admin import AdminCog
from cogs.client import HilltopBot
from cogs.games import GamesCog, move_autocomplete, variant_autocomplete
from cogs.views import PayloadButton, PayloadSelect, build_view
from data.storage import Storage
from host import catalog
from host.model import Channel, Choice, Reply, User
from host.payloads import Action, Payload
from tests.cogs.conftest import (
    ALICE,
    BOB,
    BOT_ID,
    CAROL,
    CHANNEL,
    GUILD,
    OTHER_BOT,
    buttons,
    embed_text,
    interaction,
    make_bot,
    member,
)


# load_extension imports each extension afresh, so compare cogs by name, not by class.
def games_cog(bot: HilltopBot) -> GamesCog:
    cog = bot.get_cog("GamesCog")
    assert cog is not None and type(cog).__name__ == GamesCog.__name__
    return cog  # type: ignore[return-value]


def admin_cog(bot: HilltopBot) -> AdminCog:
    cog = bot.get_cog("AdminCog")
    assert cog is not None and type(cog).__name__ == AdminCog.__name__
    return cog  # type: ignore[return-value]


async def start_game(bot: HilltopBot) -> dict[str, Any]:
    cog = games_cog(bot)
    inter, sent = interaction(bot, ALICE)
    await cog.play.callback(cog, inter, game="hokito", opponent=BOB, seed=1, seat="first")
    accept = next(b for b in buttons(sent.last()) if b.item.label == "Accept")
    inter, sent = interaction(bot, BOB, component=True)
    await accept.callback(inter)
    return sent.last()


async def each_moves_once(bot: HilltopBot) -> None:
    """alice, then bob, play a move each: a game nobody played is aborted, never rated."""
    cog = games_cog(bot)
    for player in (ALICE, BOB):
        here, user = Channel(CHANNEL, GUILD), User(player.id, player.name)
        [move, *_] = await bot.service.suggest_moves(here, user, "")
        inter, _ = interaction(bot, player)
        await cog.move.callback(cog, inter, text=move.value)


async def resign(bot: HilltopBot, member: Any) -> Any:
    """`/resign`, then Yes on the private question it asks; the board that ends it."""
    cog = games_cog(bot)
    inter, sent = interaction(bot, member)
    await cog.resign.callback(cog, inter)
    [sure] = buttons(sent.last())
    return (await click(bot, member, sure)).last()


async def click(bot: HilltopBot, user: Any, item: Any, **where: Any) -> Any:
    """Dispatch a click the way discord.py does for a dynamic item: by its custom_id."""
    inter, sent = interaction(bot, user, component=True, **where)
    custom_id = item.item.custom_id
    for cls in (PayloadButton, PayloadSelect):
        match = cls.__discord_ui_compiled_template__.fullmatch(custom_id)
        if match:
            dispatched = await cls.from_custom_id(inter, item.item, match)
            if isinstance(dispatched, PayloadSelect):
                dispatched.item._values = [item.item.options[0].value]  # type: ignore[attr-defined]
            await dispatched.callback(inter)
            return sent
    raise AssertionError(f"no dynamic item matches {custom_id!r}")


def all_command_names(bot: HilltopBot) -> list[str]:
    names: list[str] = []
    for command in bot.tree.get_commands():
        if isinstance(command, discord.app_commands.Group):
            names += [c.qualified_name for c in command.commands]
        else:
            names.append(command.qualified_name)
    return names


async def test_every_extension_loads_and_no_two_commands_share_a_name(
    bot: HilltopBot,
) -> None:
    names = all_command_names(bot)
    assert len(names) == len(set(names))
    assert set(names) >= {
        "play",
        "accept",
        "decline",
        "move",
        "moves",
        "board",
        "resign",
        "rules",
        "games here",
        "games mine",
        "notify",
        "admin start",
        "admin end",
        "admin settings",
    }


async def test_admin_group_is_hidden_from_non_admins_by_default(bot: HilltopBot) -> None:
    group = bot.tree.get_command("admin")
    assert isinstance(group, discord.app_commands.Group)
    assert group.default_permissions == discord.Permissions(manage_guild=True)
    assert group.guild_only


async def test_challenge_accept_posts_board_with_ping(bot: HilltopBot) -> None:
    board = await start_game(bot)
    assert board["content"] == "<@1>"  # alice is pinged: she moves first
    assert "alice (Black) to move" in embed_text(board)
    assert board["file"].filename == "board.png"
    assert board["embed"].image.url == "attachment://board.png"
    labels = [b.item.label for b in buttons(board)]
    assert "Resign" in labels and any(label.startswith("a1") for label in labels)


async def test_only_the_challenged_player_can_accept(bot: HilltopBot) -> None:
    cog = games_cog(bot)
    inter, sent = interaction(bot, ALICE)
    await cog.play.callback(cog, inter, game="hokito", opponent=BOB, seed=1)
    accept = next(b for b in buttons(sent.last()) if b.item.label == "Accept")
    sent = await click(bot, CAROL, accept)
    assert sent.methods() == ["send_message"]
    assert sent.last()["ephemeral"] is True
    assert "This challenge is for bob" in sent.last()["embed"].description


async def test_move_command_and_errors_are_ephemeral(bot: HilltopBot) -> None:
    await start_game(bot)
    cog = games_cog(bot)
    for user, text, expected in [
        (BOB, "a4-b4", "not your turn"),
        (CAROL, "a1-b1", "not playing"),
        (ALICE, "nonsense", "nonsense"),
    ]:
        inter, sent = interaction(bot, user)
        await cog.move.callback(cog, inter, text=text)
        assert sent.methods() == ["send_message"]
        assert sent.last()["ephemeral"] is True
        assert expected in sent.last()["embed"].description
    inter, sent = interaction(bot, ALICE)
    await cog.move.callback(cog, inter, text="a1-b1")
    assert sent.last()["ephemeral"] is False
    assert "alice played a1-b1" in embed_text(sent.last())
    assert sent.last()["content"] == "<@2>"


async def test_move_autocomplete_offers_only_the_callers_legal_moves(bot: HilltopBot) -> None:
    await start_game(bot)
    inter, _ = interaction(bot, ALICE)
    choices = await move_autocomplete(inter, "b2")
    assert choices and len(choices) <= 25
    assert all(isinstance(c, discord.app_commands.Choice) and "b2" in c.value for c in choices)
    inter, _ = interaction(bot, BOB)
    assert await move_autocomplete(inter, "") == []


async def test_variant_autocomplete_follows_the_chosen_game(bot: HilltopBot) -> None:
    inter, _ = interaction(bot, ALICE, namespace={"game": "hokito"})
    choices = await variant_autocomplete(inter, "")
    assert [c.value for c in choices] == ["scatter"]


async def test_two_step_pick_with_buttons_and_a_double_click(bot: HilltopBot) -> None:
    board = await start_game(bot)
    origin = next(b for b in buttons(board) if b.item.label.startswith("b2"))
    sent = await click(bot, ALICE, origin)
    panel = sent.last()
    assert sent.methods() == ["send_message"] and panel["ephemeral"] is True
    destination = buttons(panel)[0]
    sent = await click(bot, ALICE, destination)
    assert sent.methods() == ["edit_message", "followup"]
    assert "bob (White) to move" in embed_text(sent.last())
    again = await click(bot, ALICE, destination)
    assert again.last()["ephemeral"] is True
    assert "out of date" in again.last()["embed"].description


async def test_a_rod_beside_the_mole_is_seen_in_place_then_confirmed(bot: HilltopBot) -> None:
    cog = games_cog(bot)
    walled = "1g a1,a2,a3,a4,a5,a6,a7,b7 b1e,b2e,b3e,b4e,b5e,b6e,b7e e1,a4,i4,e7/b2,h2,b6,h6 -"
    inter, sent = interaction(bot, ALICE)
    await cog.play.callback(
        cog, inter, game="molehill", opponent=BOB, seat="first", position=walled
    )
    accept = next(b for b in buttons(sent.last()) if b.item.label == "Accept")
    inter, sent = interaction(bot, BOB, component=True)
    await accept.callback(inter)
    board = sent.last()
    west = next(b for b in buttons(board) if b.item.label == "← west of b7")
    sent = await click(bot, BOB, west)
    panel = sent.last()
    assert sent.methods() == ["send_message"] and panel["ephemeral"] is True
    assert "Rod west of b7: the mole can still reach 6 squares" in embed_text(panel)
    assert panel["embed"].image.url == f"attachment://{panel['file'].filename}"
    assert [b.item.label for b in buttons(panel)] == ["Place this rod", "Back"]
    sent = await click(bot, BOB, buttons(panel)[0])
    assert sent.methods() == ["edit_message", "followup"]
    assert "bob played rod a7e" in embed_text(sent.last())


async def test_buttons_work_after_a_restart(storage: Storage) -> None:
    first = await make_bot(storage)
    board = await start_game(first)
    await first.close()
    second = await make_bot(storage)  # a new process: new bot, new service, same database
    try:
        origin = next(b for b in buttons(board) if b.item.label.startswith("a1"))
        sent = await click(second, ALICE, origin)
        panel = sent.last()
        assert "So far: **a1**" in panel["embed"].description
        sent = await click(second, ALICE, buttons(panel)[0])
        assert "alice played a1-" in embed_text(sent.last())
    finally:
        await second.close()


async def test_bot_opponent_and_other_bots(bot: HilltopBot) -> None:
    cog = games_cog(bot)
    inter, sent = interaction(bot, ALICE)
    await cog.play.callback(cog, inter, game="hokito", opponent=OTHER_BOT)
    assert sent.last()["ephemeral"] is True and "cannot play" in sent.last()["embed"].description
    me = member(BOT_ID, "hilltop", bot=True)
    inter, sent = interaction(bot, ALICE)
    await cog.play.callback(cog, inter, game="hokito", opponent=me, seed=2, seat="second")
    assert "hilltop (Black, normal computer) played" in embed_text(sent.last())


async def test_admin_commands_check_manage_server(bot: HilltopBot) -> None:
    cog = admin_cog(bot)
    inter, sent = interaction(bot, ALICE, admin=False)
    await cog.start.callback(cog, inter, game="hokito", player1=ALICE, player2=BOB)
    assert sent.last()["ephemeral"] is True
    assert "Only server admins" in sent.last()["embed"].description
    inter, sent = interaction(bot, CAROL, admin=True)
    await cog.start.callback(cog, inter, game="hokito", player1=ALICE, player2=BOB, seed=4)
    assert sent.last()["content"] == "<@1>" and "alice (Black) to move" in embed_text(sent.last())
    inter, sent = interaction(bot, CAROL, admin=True)
    await cog.end.callback(cog, inter)
    assert "Ended by carol" in embed_text(sent.last())


async def test_busy_channel_offers_a_thread(bot: HilltopBot) -> None:
    await start_game(bot)
    cog = games_cog(bot)
    inter, sent = interaction(bot, CAROL)
    await cog.play.callback(cog, inter, game="hokito", opponent=ALICE)
    offer = sent.last()
    assert offer["ephemeral"] is True
    assert [c.label for c in offer["view"].children] == ["Start it in a new thread"]


async def test_slow_work_is_deferred_then_answered(
    bot: HilltopBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(respond_module, "DEFER_AFTER", 0.01)
    inter, sent = interaction(bot, ALICE)

    async def slow() -> list[Reply]:
        await asyncio.sleep(0.05)
        return [Reply(title="done", text="after a while")]

    await respond_module.respond(inter, slow)
    assert sent.methods() == ["defer", "followup"]
    assert embed_text(sent.last()).startswith("done")


async def test_many_picks_become_a_select() -> None:
    picks = tuple(Choice(Payload(Action.PICK, 1, 0, (f"x{i}",)), f"x{i}") for i in range(24))
    resign = Choice(Payload(Action.RESIGN, 1, 0), "Resign")
    view = build_view(Reply(picks=picks, actions=(resign,)))
    assert view is not None
    [select] = [c for c in view.children if isinstance(c, PayloadSelect)]
    assert [o.value for o in select.item.options] == [f"pick:1:0:x{i}" for i in range(24)]
    assert [c.item.label for c in view.children if isinstance(c, PayloadButton)] == ["Resign"]


async def test_a_posted_buttons_custom_id_comes_back_as_its_typed_payload(
    bot: HilltopBot,
) -> None:
    template = PayloadButton.__discord_ui_compiled_template__
    match = template.fullmatch("ht:group+:9:4:e|rod")
    assert match is not None
    assert (match["action"], match["game"], match["ply"]) == ("group+", "9", "4")
    inter, _ = interaction(bot, ALICE, component=True)
    button = await PayloadButton.from_custom_id(inter, discord.ui.Button(), match)
    assert button.payload == Payload(Action.GROUP_OPEN, 9, 4, ("rod",), "e")
    assert button.item.custom_id == "ht:group+:9:4:e|rod"
    # Only our own actions are ours: anything else is left for other components.
    assert template.fullmatch("ht:teleport:9:4:") is None
    assert template.fullmatch("hts:pick:9:4") is None


def cog_named(bot: HilltopBot, name: str) -> Any:
    cog = bot.get_cog(name)
    assert cog is not None
    return cog


async def test_daily_is_private_and_leaderboard_public(bot: HilltopBot) -> None:
    cog = cog_named(bot, "DailyCog")
    inter, sent = interaction(bot, ALICE)
    await cog.daily.callback(cog, inter)
    board = sent.last()
    assert board["ephemeral"] is True and board["file"].filename == "board.png"
    assert board["content"] is None  # nobody is pinged for a private run
    inter, sent = interaction(bot, ALICE)
    await cog.daily.callback(cog, inter, move="nonsense")
    assert sent.last()["ephemeral"] is True and "nonsense" in sent.last()["embed"].description
    inter, sent = interaction(bot, BOB)
    await cog.leaderboard.callback(cog, inter, period="today", scope="server")
    assert sent.last()["ephemeral"] is False
    assert "Nobody has finished a run yet" in embed_text(sent.last())


async def test_help_names_every_game_and_how_to_begin(bot: HilltopBot) -> None:
    cog = games_cog(bot)
    inter, sent = interaction(bot, ALICE)
    await cog.help.callback(cog, inter)
    reply = sent.last()
    assert reply["ephemeral"] is True
    text = embed_text(reply)
    for listing in catalog.all_listings():
        assert f"`{listing.id}`" in text
    assert "(`everest`, 2-4 players)" in text and "(`hillbert`, 1 player)" in text
    for command in (
        "/play game:", "opponent:@hilltop", "/move", "/games mine", "/daily", "/rules", "/draw",
        "/takeback", "Rematch", "Follow", "/notify", "/ratings game:", "/profile", "/daily-replay",
    ):  # fmt: skip
        assert command in text, command


async def test_history_a_record_its_download_and_a_game_from_it(bot: HilltopBot) -> None:
    await start_game(bot)
    cog = games_cog(bot)
    inter, sent = interaction(bot, ALICE)
    await cog.move.callback(cog, inter, text="b2-b1")
    inter, sent = interaction(bot, BOB)
    await cog.resign.callback(cog, inter)
    # /resign asks first, privately, as the board's button does.
    ask = sent.last()
    assert ask["ephemeral"] and "really want to resign" in embed_text(ask)
    [sure] = buttons(ask)
    assert sure.item.label == "Yes, resign"
    await click(bot, BOB, sure)
    inter, sent = interaction(bot, ALICE)
    await cog.history.callback(cog, inter)
    listing = sent.last()
    assert listing["ephemeral"] and "Finished games of alice" in embed_text(listing)
    inter, sent = interaction(bot, CAROL)
    await cog.game_record.callback(cog, inter, id=1)
    record = sent.last()
    assert '[Game "hokito"]' in embed_text(record) and "1. Black: b2-b1" in embed_text(record)
    [download] = buttons(record)
    assert download.item.label == "Download log"
    got = await click(bot, CAROL, download)
    attached: discord.File = got.last()["file"]
    assert attached.filename == "hilltop-game-1.txt"
    text = attached.fp.read().decode()
    assert "1. Black: b2-b1" in text

    upload = create_autospec(discord.Attachment, instance=True)
    upload.size = len(text)
    upload.read = AsyncMock(return_value=text.encode())
    inter, sent = interaction(bot, CAROL)
    await cog.play.callback(cog, inter, game="hokito", opponent=ALICE, record=upload, ply=1)
    assert "carol challenges alice to Hokito" in embed_text(sent.last())
    # Loaded after its one move: where game 1 stood when bob resigned.
    new = await bot.service.repository.live_game_in_channel(CHANNEL)
    old = await bot.service.repository.get_game(1)
    assert new is not None and old is not None and new.start_position == old.snapshot


def ratings_cog(bot: HilltopBot) -> Any:
    cog = bot.get_cog("RatingsCog")
    assert cog is not None
    return cog


async def test_ratings_and_profiles_through_discord(bot: HilltopBot) -> None:
    await start_game(bot)
    await each_moves_once(bot)
    end = await resign(bot, BOB)
    assert "Ratings: alice 1658 (+158), bob 1342 (−158)." in embed_text(end)
    ratings = ratings_cog(bot)
    inter, sent = interaction(bot, CAROL)
    await ratings.ratings.callback(ratings, inter, game="hokito", scope="server")
    table = sent.last()
    assert not table.get("ephemeral") and "Hokito ratings: this server" in embed_text(table)
    assert "1. alice: 1658?" in embed_text(table)
    assert "You have no rated Hokito game here yet." in embed_text(table)
    inter, sent = interaction(bot, CAROL)
    await ratings.profile.callback(ratings, inter, user=BOB, opponent=ALICE)
    embed: discord.Embed = sent.last()["embed"]
    fields = {f.name: f.value for f in embed.fields}
    assert embed.title == "Profile: bob"
    assert "1 game: 0 wins, 0 draws, 1 loss" in str(fields["Hokito"])
    assert "Last: game #1, a loss." in str(fields["Against alice"])


async def test_ratings_and_profiles_refuse_bad_requests_privately(bot: HilltopBot) -> None:
    ratings = ratings_cog(bot)
    for call in (
        lambda inter: ratings.ratings.callback(ratings, inter, game="hillbert"),
        lambda inter: ratings.ratings.callback(ratings, inter, game="chess"),
        lambda inter: ratings.profile.callback(ratings, inter, user=OTHER_BOT),
        lambda inter: ratings.profile.callback(ratings, inter, user=BOB, opponent=BOB),
    ):
        inter, sent = interaction(bot, ALICE)
        await call(inter)
        assert sent.methods() == ["send_message"] and sent.last()["ephemeral"]
    inter, sent = interaction(bot, ALICE)
    await ratings.profile.callback(ratings, inter, user=OTHER_BOT)
    assert "otherbot is a bot and cannot play" in embed_text(sent.last())


async def test_replay_offers_a_normal_and_a_fast_speed(bot: HilltopBot) -> None:
    command = bot.tree.get_command("replay")
    assert isinstance(command, discord.app_commands.Command)
    [speed] = [p for p in command.parameters if p.name == "speed"]
    assert [c.value for c in speed.choices] == ["normal", "fast"] and not speed.required
    await start_game(bot)
    cog = games_cog(bot)
    inter, sent = interaction(bot, ALICE)
    await cog.move.callback(cog, inter, text="b2-b1")
    inter, sent = interaction(bot, BOB)
    await cog.resign.callback(cog, inter)
    inter, sent = interaction(bot, CAROL)
    await cog.replay.callback(cog, inter, id=1, speed="fast")
    attached: discord.File = sent.last()["file"]
    with Image.open(attached.fp) as gif:
        shown = [frame.info["duration"] for frame in ImageSequence.Iterator(gif)]
    assert shown == [300, 2500]
