"""Finished games: /history lists a server's, /game shows one's record, whose download
/play record: loads again; another server's games stay unseen, and a game in progress
shows only what every player may see."""

from __future__ import annotations

import asyncio
import io

import pytest
from PIL import Image, ImageSequence

from data.storage import Storage
from engine.everest import Stage
from host.history.finished import PAGE_SIZE, Frame
from host.history.records import read_record
from host.model import Channel, Reply, ServiceError, User
from host.payloads import Action, Payload
from host.present.painting import NORMAL, Speed
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOB, BOT, CAROL, HERE, make_service

ELSEWHERE = Channel(channel_id=800, guild_id=8, name="another-server")


async def play_moves(service: GameService, where: Channel, players: list[User], n: int) -> None:
    for i in range(n):
        user = players[i % len(players)]
        [move, *_] = await service.suggest_moves(where, user, "")
        await service.move(where, user, move.value)


async def finished_duel(service: GameService, where: Channel = HERE, moves: int = 4) -> int:
    [challenge] = await service.start(
        where, ALICE, GameSetup("hokito", seed=5, seat="first"), [BOB]
    )
    await service.accept(where, BOB)
    await play_moves(service, where, [ALICE, BOB], moves)
    await service.resign(where, BOB, confirmed=True)
    return challenge.game_id or 0


async def test_history_lists_this_servers_games_newest_first(service: GameService) -> None:
    first = await finished_duel(service)
    second = await finished_duel(service)
    await finished_duel(service, ELSEWHERE)
    [mine] = await service.finished(HERE, ALICE)
    assert mine.title == "Finished games of alice" and mine.ephemeral
    lines = mine.text.splitlines()
    assert lines[0].startswith(f"`#{second}`") and lines[1].startswith(f"`#{first}`")
    assert "**Hokito** · alice vs bob: alice beat bob · bob resigned" in lines[0]
    [carols] = await service.finished(HERE, CAROL)
    assert "No finished games here yet." in carols.text
    with pytest.raises(ServiceError, match="There is no game 'chess'"):
        await service.finished(HERE, ALICE, "chess")


async def test_history_pages_with_buttons(service: GameService) -> None:
    for _ in range(PAGE_SIZE + 1):
        await finished_duel(service, moves=0)
    [first] = await service.finished(HERE, BOB)
    assert first.footer == "Page 1" and first.text.count("`#") == PAGE_SIZE
    back, forward = first.actions
    assert back.disabled and forward.payload.action == Action.HISTORY
    [second] = await service.press(HERE, CAROL, forward.payload)
    assert second.edit and second.title == "Finished games of bob"
    assert second.text.count("`#") == 1 and second.footer == "Page 2"
    back, forward = second.actions
    assert forward.disabled and not back.disabled
    [again] = await service.press(HERE, CAROL, back.payload)
    assert again.text == first.text and again.footer == "Page 1"
    assert again.actions[0].disabled and not again.actions[1].disabled


def listed(reply: Reply) -> list[int]:
    return [int(line[2 : line.index("`", 2)]) for line in reply.text.splitlines() if "`#" in line]


async def test_history_pages_follow_on_from_where_the_last_one_ended(
    service: GameService,
) -> None:
    """Pages are cut where the one before ended: every game is listed once, newest
    first, forwards and back, even when a game ends while someone is reading."""
    ended = [await finished_duel(service, moves=0) for _ in range(2 * PAGE_SIZE + 3)]
    pages = [await service.finished(HERE, ALICE)]
    while not pages[-1][0].actions[1].disabled:
        pages.append(await service.press(HERE, ALICE, pages[-1][0].actions[1].payload))
    assert [len(listed(p[0])) for p in pages] == [PAGE_SIZE, PAGE_SIZE, 3]
    assert [i for p in pages for i in listed(p[0])] == ended[::-1]
    newest = await finished_duel(service, moves=0)  # ends while the last page is open
    [back] = await service.press(HERE, ALICE, pages[-1][0].actions[0].payload)
    assert listed(back) == listed(pages[1][0])
    [front] = await service.press(HERE, ALICE, back.actions[0].payload)
    assert listed(front) == listed(pages[0][0])
    assert not front.actions[0].disabled  # the game that ended since is newer still
    [newer] = await service.press(HERE, ALICE, front.actions[0].payload)
    assert listed(newer) == [newest]


async def test_a_history_button_from_before_pages_were_cut_shows_the_newest(
    service: GameService,
) -> None:
    for _ in range(PAGE_SIZE + 1):
        await finished_duel(service, moves=0)
    [first] = await service.finished(HERE, ALICE)
    [old] = await service.press(HERE, ALICE, Payload(Action.HISTORY, ALICE.id, 1, ()))
    assert old.text == first.text and old.footer == "Page 1"
    with pytest.raises(ServiceError, match="That page is gone"):
        await service.press(HERE, ALICE, Payload(Action.HISTORY, 0, 1, ("<nonsense",)))


async def test_a_games_record_downloads_and_loads_again_from_any_ply(
    service: GameService,
) -> None:
    game_id = await finished_duel(service, moves=4)
    [shown] = await service.game_record(HERE, game_id)
    assert '[Game "hokito"]' in shown.text and '[Seat1 "alice"]' in shown.text
    assert "1. Black: " in shown.text and "4. White: " in shown.text
    assert '[Result "1-0"]' in shown.text
    assert '[Termination "bob (White) resigned."]' in shown.text
    [download] = await service.press(HERE, CAROL, shown.actions[0].payload)
    assert download.file is not None
    name, data = download.file
    assert name == f"hilltop-game-{game_id}.txt"
    record = data.decode()
    parsed = read_record(record)
    assert len(parsed.moves) == 4
    # Loaded again after two of its moves: the same position as the game had then.
    [again] = await service.start(HERE, CAROL, GameSetup("hokito", record=record, ply=2), [ALICE])
    await service.accept(HERE, ALICE)
    loaded = await service.live.in_channel(HERE)
    original = await service.live.load(game_id)
    assert loaded.state.to_text() != original.state.to_text()
    assert loaded.record.start_position is not None
    assert "carol challenges alice" in again.text


async def test_a_game_loaded_from_a_record_says_where_in_it_it_goes_on(
    service: GameService,
) -> None:
    game_id = await finished_duel(service, moves=4)
    [shown] = await service.game_record(HERE, game_id)
    [download] = await service.press(HERE, CAROL, shown.actions[0].payload)
    assert download.file is not None
    record = download.file[1].decode()
    for ply, told in (
        (2, "The game continues from the record, after its move 2: "),
        (None, "The game continues from the record, after its move 4: "),
        (0, "The game begins from the start of the record: "),
    ):
        await service.start(HERE, CAROL, GameSetup("hokito", record=record, ply=ply), [ALICE])
        [board] = await service.accept(HERE, ALICE)
        assert board.text.startswith(told), board.text
        await service.resign(HERE, ALICE, confirmed=True)
    # A game from the usual start still simply begins.
    await service.start(HERE, CAROL, GameSetup("hokito", seed=3), [ALICE])
    [board] = await service.accept(HERE, ALICE)
    assert board.text.startswith("The game begins: ")


async def test_a_bad_record_is_refused_with_where_it_is_wrong(service: GameService) -> None:
    game_id = await finished_duel(service, moves=2)
    [download] = await service.press(
        HERE, ALICE, (await service.game_record(HERE, game_id))[0].actions[0].payload
    )
    assert download.file is not None
    record = download.file[1].decode()
    broken = record.replace("2. White: ", "2. White: z9-z9 ")
    with pytest.raises(ServiceError, match="record move 2"):
        await service.start(HERE, ALICE, GameSetup("hokito", record=broken), [BOB])
    with pytest.raises(ServiceError, match="it is a game of Hokito, not of Mole Hill"):
        await service.start(HERE, ALICE, GameSetup("molehill", record=record), [BOB])
    with pytest.raises(ServiceError, match="ply: the record has 2 moves"):
        await service.start(HERE, ALICE, GameSetup("hokito", record=record, ply=3), [BOB])
    assert await service.repository.live_game_in_channel(HERE.channel_id) is None


async def test_another_servers_game_is_not_shown(service: GameService) -> None:
    theirs = await finished_duel(service, ELSEWHERE)
    with pytest.raises(ServiceError, match=f"There is no game {theirs} here"):
        await service.game_record(HERE, theirs)
    with pytest.raises(ServiceError, match="There is no game 999 here"):
        await service.game_record(HERE, 999)


async def test_a_live_games_record_hides_the_plans_not_revealed(storage: Storage) -> None:
    service = make_service(storage)
    [challenge] = await service.start(HERE, ALICE, GameSetup("everest", seed=1), [BOB])
    await service.accept(HERE, BOB)
    game_id = challenge.game_id or 0
    [plan, *_] = await service.suggest_moves(HERE, ALICE, "")
    await service.move(HERE, ALICE, plan.value)
    loaded = await service.live.in_channel(HERE)
    assert loaded.state.stage == Stage.PLAN and loaded.record.ply == 1
    [shown] = await service.game_record(HERE, game_id)
    secret = plan.value.split(" @")[0]
    assert secret not in shown.text
    assert "(decisions not revealed yet are left out)" in shown.text
    assert '[Seed "-"]' in shown.text  # the dice to come stay unknown too


def gif_frames(data: bytes) -> list[int]:
    """The duration of each frame of a GIF, in milliseconds."""
    with Image.open(io.BytesIO(data)) as gif:
        return [frame.info["duration"] for frame in ImageSequence.Iterator(gif)]


async def test_a_replay_draws_every_move_and_dwells_on_the_end(storage: Storage) -> None:
    service = make_service(storage, images=True)
    game_id = await finished_duel(service, moves=4)
    [replay] = await service.replay(HERE, game_id)
    assert not replay.ephemeral and replay.image_name == "replay.gif"
    assert replay.image is not None and replay.image.startswith(b"GIF89a")
    durations = gif_frames(replay.image)
    assert len(durations) == 5  # the start and four moves
    # The game ended off the board: its last frame says how.
    _, frames = await service.history._frames(HERE, game_id)
    *before, last = [ctx.caption for _, ctx, _ in frames]
    assert before == ["", "", "", ""]
    assert last == "Game over: alice beat bob · bob resigned"
    assert durations[-1] == 4000 and durations[1] == 700
    [step] = replay.actions
    [opened] = await service.press(HERE, CAROL, step.payload)
    assert opened.ephemeral and not opened.edit and "move 0 of 4" in opened.title
    assert [a.disabled for a in opened.actions] == [True, True, False, False]
    [last] = await service.press(HERE, CAROL, opened.actions[3].payload)
    assert last.edit and "move 4 of 4" in last.title
    assert last.image is not None and last.image != opened.image
    with pytest.raises(ServiceError, match="There is no game"):
        await service.replay(ELSEWHERE, game_id)


async def test_a_replay_may_be_asked_for_fast(storage: Storage) -> None:
    service = make_service(storage, images=True)
    game_id = await finished_duel(service, moves=4)
    [fast] = await service.replay(HERE, game_id, "fast")
    assert fast.image is not None and gif_frames(fast.image) == [300, 300, 300, 300, 2500]
    with pytest.raises(ServiceError, match="speed: choose normal or fast"):
        await service.replay(HERE, game_id, "slow")


async def test_a_second_replay_while_the_first_is_drawn_is_refused_and_others_go_on(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = make_service(storage)
    game_id = await finished_duel(service, moves=2)
    painter = service.history.presenter.painter
    draw = painter.replay
    drawn: list[int] = []
    started, release = asyncio.Event(), asyncio.Event()

    async def held(frames: list[Frame], speed: Speed = NORMAL) -> bytes:
        """The first replay is held until the test lets it go; the others are drawn."""
        drawn.append(len(frames))
        if len(drawn) == 1:
            started.set()
            await release.wait()
        return await draw(frames, speed)

    monkeypatch.setattr(painter, "replay", held)
    first = asyncio.ensure_future(service.replay(HERE, game_id, viewer=ALICE))
    try:
        await started.wait()
        with pytest.raises(ServiceError, match="Your last replay is still being drawn: wait"):
            await service.replay(HERE, game_id, "fast", viewer=ALICE)
        assert len(drawn) == 1  # refused before anything was queued for drawing
        # Another person's replay is drawn meanwhile.
        [bobs] = await service.replay(HERE, game_id, viewer=BOB)
        assert bobs.image is not None and bobs.image.startswith(b"GIF89a")
        assert not first.done()
    finally:
        release.set()
    [alices] = await first
    assert alices.image is not None and alices.image.startswith(b"GIF89a")
    # Once drawn, the next replay is drawn again.
    [again] = await service.replay(HERE, game_id, viewer=ALICE)
    assert again.image is not None and len(drawn) == 3


async def test_a_live_games_replay_stops_before_plans_not_revealed(storage: Storage) -> None:
    service = make_service(storage, images=True)
    [challenge] = await service.start(HERE, ALICE, GameSetup("everest", seed=1), [BOB])
    await service.accept(HERE, BOB)
    [plan, *_] = await service.suggest_moves(HERE, ALICE, "")
    await service.move(HERE, ALICE, plan.value)
    [replay] = await service.replay(HERE, challenge.game_id or 0)
    assert replay.image is not None and len(gif_frames(replay.image)) == 1  # the start only


async def test_direct_message_games_belong_to_their_players(service: GameService) -> None:
    alices_dm = Channel(channel_id=900, guild_id=None, name="alice")
    mallorys_dm = Channel(channel_id=901, guild_id=None, name="carol")
    [started] = await service.start(
        alices_dm, ALICE, GameSetup("hokito", seed=5, seat="first"), [BOT]
    )
    game_id = started.game_id or 0
    await service.resign(alices_dm, ALICE, confirmed=True)
    # Another person, in their own direct messages, sees none of it.
    with pytest.raises(ServiceError, match="only your own games"):
        await service.finished(mallorys_dm, ALICE, viewer=CAROL)
    [own] = await service.finished(mallorys_dm, viewer=CAROL)
    assert f"#{game_id}" not in own.text and "No finished games here yet." in own.text
    for look in (service.game_record, service.replay):
        with pytest.raises(ServiceError, match=f"There is no game {game_id} here"):
            await look(mallorys_dm, game_id, viewer=CAROL)
        with pytest.raises(ServiceError, match=f"There is no game {game_id} here"):
            await look(mallorys_dm, game_id)
    # Its player reads it in any direct message.
    [mine] = await service.finished(mallorys_dm, viewer=ALICE)
    assert f"`#{game_id}`" in mine.text
    [record] = await service.game_record(mallorys_dm, game_id, viewer=ALICE)
    assert '[Seat1 "alice"]' in record.text


async def test_a_direct_message_game_in_play_is_hidden_from_others_too(
    service: GameService,
) -> None:
    alices_dm = Channel(channel_id=900, guild_id=None, name="alice")
    carols_dm = Channel(channel_id=901, guild_id=None, name="carol")
    [started] = await service.start(
        alices_dm, ALICE, GameSetup("hokito", seed=5, seat="first"), [BOT]
    )
    game_id = started.game_id or 0
    for look in (service.game_record, service.replay):
        with pytest.raises(ServiceError, match=f"There is no game {game_id} here"):
            await look(carols_dm, game_id, viewer=CAROL)
    [record] = await service.game_record(carols_dm, game_id, viewer=ALICE)
    assert '[Seat1 "alice"]' in record.text and '[Result "*"]' in record.text
