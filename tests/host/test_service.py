"""Whole games through the service, on a real database of each backend, without Discord."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from data.repository import DatabaseUnavailableError
from data.results import Ending
from data.storage import Storage, open_storage
from engine import ai, registry
from engine.core import GameState, Option
from host import catalog
from host.model import Channel, Reply, ServiceError
from host.payloads import Action
from host.play.ai_turns import PooledComputers
from host.present.presenter import pick_choices
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import (
    A1,
    A2,
    ADMIN,
    ALICE,
    BOB,
    BOT,
    CAROL,
    EMPTY_RANK,
    ENDGAME,
    HERE,
    ROLL_OFF,
    THREAD,
    each_moves_once,
    make_service,
)

#: How the bot, playing White at the default level, is named in replies.
WHITE_COMPUTER = "hilltop (White, normal computer)"


async def started(service: GameService, seed: int = 1) -> Reply:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=seed, seat="first"), [BOB])
    [reply] = await service.accept(HERE, BOB)
    return reply


async def stored_snapshot(service: GameService) -> tuple[int, str]:
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None
    return record.ply, record.snapshot


async def test_challenge_accept_and_move(service: GameService) -> None:
    [challenge] = await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    assert [u.name for u in challenge.mentions] == ["bob"]
    assert [a.label for a in challenge.actions] == ["Accept", "Decline"]
    [board] = await service.accept(HERE, BOB)
    assert "alice (Black) to move" in board.text
    assert [u.name for u in board.mentions] == ["alice"]
    [after] = await service.move(HERE, ALICE, "a1-b1")
    assert "alice played a1-b1." in after.text
    assert "bob (White) to move" in after.text
    assert after.title.endswith("move 1")
    ply, snapshot = await stored_snapshot(service)
    assert ply == 1 and snapshot.endswith(" w")  # White to move in the stored position


async def test_seat_second_puts_challenger_on_white(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="second"), [BOB])
    [board] = await service.accept(HERE, BOB)
    assert "bob (Black) to move" in board.text


async def test_only_the_challenged_player_may_accept(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1), [BOB])
    with pytest.raises(ServiceError, match="This challenge is for bob, not for you"):
        await service.accept(HERE, CAROL)
    with pytest.raises(ServiceError, match="not started"):
        await service.move(HERE, ALICE, "a1-b1")


async def test_decline_closes_the_challenge(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1), [BOB])
    [reply] = await service.decline(HERE, BOB)
    assert "bob declined" in reply.text
    assert await service.repository.live_game_in_channel(HERE.channel_id) is None


async def test_wrong_turn_stranger_and_illegal_moves_change_nothing(
    service: GameService,
) -> None:
    await started(service)
    before = await stored_snapshot(service)
    with pytest.raises(ServiceError, match=r"not your turn: waiting for alice \(Black\)"):
        await service.move(HERE, BOB, "a4-b4")
    with pytest.raises(ServiceError, match="You are not playing in this game"):
        await service.move(HERE, CAROL, "a1-b1")
    with pytest.raises(ServiceError, match="banana"):
        await service.move(HERE, ALICE, "banana")
    with pytest.raises(ServiceError, match="a4"):
        await service.move(HERE, ALICE, "a4-b4")  # White's pawn
    assert await stored_snapshot(service) == before


async def test_buttons_two_step_pick_and_double_click(service: GameService) -> None:
    board = await started(service)
    origin = next(c for c in board.picks if c.label.startswith("b2"))
    [panel] = await service.press(HERE, ALICE, origin.payload)
    assert panel.ephemeral and "So far: **b2**" in panel.text
    destination = panel.picks[0]
    replies = await service.press(HERE, ALICE, destination.payload)
    assert replies[0].edit and replies[0].text.startswith("Done: b2-")
    assert "bob (White) to move" in replies[1].text
    # The same click again, and a click on the old board: refused, nothing applied twice.
    with pytest.raises(ServiceError, match="out of date"):
        await service.press(HERE, ALICE, destination.payload)
    with pytest.raises(ServiceError, match="out of date"):
        await service.press(HERE, ALICE, origin.payload)
    assert (await stored_snapshot(service))[0] == 1


async def test_concurrent_double_click_applies_once(service: GameService) -> None:
    board = await started(service)
    [panel] = await service.press(HERE, ALICE, board.picks[0].payload)
    payload = panel.picks[0].payload
    results = await asyncio.gather(
        *(service.press(HERE, ALICE, payload) for _ in range(5)), return_exceptions=True
    )
    assert sum(not isinstance(r, Exception) for r in results) == 1
    assert all(isinstance(r, ServiceError) for r in results if isinstance(r, Exception))
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and len(await service.repository.moves(record.id)) == 1


async def test_wrong_player_cannot_use_the_board_buttons(service: GameService) -> None:
    board = await started(service)
    with pytest.raises(ServiceError, match="not your turn"):
        await service.press(HERE, BOB, board.picks[0].payload)
    with pytest.raises(ServiceError, match="not playing"):
        await service.press(HERE, CAROL, board.picks[0].payload)


async def test_restart_continues_the_game_and_old_buttons_work(storage_target: str) -> None:
    storage = await open_storage(storage_target)
    first = make_service(storage)
    board = await started(first)
    await storage.close()
    reopened = await open_storage(storage_target)
    try:
        second = make_service(reopened)
        [panel] = await second.press(HERE, ALICE, board.picks[0].payload)
        replies = await second.press(HERE, ALICE, panel.picks[0].payload)
        assert "bob (White) to move" in replies[-1].text
        [again] = await second.move(HERE, BOB, (await second.suggest_moves(HERE, BOB, ""))[0].value)
        assert again.title.endswith("move 2")
    finally:
        await reopened.close()


async def test_computer_opponent_answers_at_once(service: GameService) -> None:
    [board] = await service.start(HERE, ALICE, GameSetup("hokito", seed=3, seat="first"), [BOT])
    assert "alice (Black) to move" in board.text
    [after] = await service.move(
        HERE, ALICE, (await service.suggest_moves(HERE, ALICE, ""))[0].value
    )
    assert "hilltop (White, normal computer) played" in after.text
    assert "alice (Black) to move" in after.text
    assert after.title.endswith("move 2")


async def test_computer_moves_first_when_it_holds_black(service: GameService) -> None:
    [board] = await service.start(HERE, ALICE, GameSetup("hokito", seed=3, seat="second"), [BOT])
    assert "hilltop (Black, normal computer) played" in board.text
    assert board.title.endswith("move 1")


async def test_game_over_from_a_position(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", position=ENDGAME, seat="first"), [BOB])
    await service.accept(HERE, BOB)
    assert [s.label for s in await service.suggest_moves(HERE, ALICE, "")] == [
        "a1-a2: by a1>a2, onto W1×18"
    ]
    [over] = await service.move(HERE, ALICE, "a1-a2")
    assert "Game over." in over.text
    assert "alice (Black) wins" in over.text
    assert over.text.count("wins") == 1  # the winner is named once, with who is who
    assert "alice (Black) 36" in over.text and "bob (White) 0" in over.text
    assert over.tone == "over" and not over.picks
    # The end is told to the player who did not make the last move, not to its mover.
    assert over.mentions == (BOB,)
    assert await service.repository.live_game_in_channel(HERE.channel_id) is None


async def test_bad_position_is_explained(service: GameService) -> None:
    with pytest.raises(ServiceError, match="position:"):
        await service.start(HERE, ALICE, GameSetup("hokito", position="nonsense"), [BOB])


async def test_resign_ends_with_the_other_player_winning(service: GameService) -> None:
    await started(service)
    await each_moves_once(service, HERE, ALICE, BOB)
    [reply] = await service.resign(HERE, BOB, confirmed=True)
    assert "bob (White) resigned" in reply.text and "alice (Black) wins" in reply.text
    record = await service.repository.get_game(1)
    assert record is not None and record.status == "finished"
    assert record.result is not None and record.result.winners == (0,)
    assert record.result.ending is Ending.RESIGNED and record.result.by == (1,)


async def test_one_game_per_channel_and_threads_are_channels(service: GameService) -> None:
    await started(service)
    with pytest.raises(ServiceError, match="new thread"):
        await service.start(HERE, CAROL, GameSetup("hokito"), [BOT])
    [board] = await service.start(THREAD, CAROL, GameSetup("hokito", seed=2, seat="first"), [BOT])
    assert "carol (Black) to move" in board.text


async def test_admin_start_and_end(service: GameService) -> None:
    with pytest.raises(ServiceError, match="Only server admins"):
        await service.admin_start(HERE, ALICE, GameSetup("hokito"), [ALICE, BOB])
    [board] = await service.admin_start(HERE, ADMIN, GameSetup("hokito", seed=5), [BOB, ALICE])
    assert "bob (Black) to move" in board.text
    with pytest.raises(ServiceError, match="Only server admins"):
        await service.admin_end(HERE, ALICE)
    [ended] = await service.admin_end(HERE, ADMIN)
    assert "Ended by root" in ended.text
    record = await service.repository.get_game(1)
    assert record is not None and record.status == "aborted"


async def test_games_lists_my_turn_first(service: GameService) -> None:
    await started(service)
    await service.start(THREAD, CAROL, GameSetup("hokito", seed=9, seat="first"), [BOB])
    [listing] = await service.list_games(HERE, ALICE)
    mine, others = listing.text.split("**Other games**")
    assert "<#500>" in mine and "<#501>" in others
    # A challenge waits on the one challenged: it is theirs to answer.
    [his] = await service.list_games(HERE, BOB)
    bobs, rest = his.text.split("**Other games**")
    assert "<#501>" in bobs and "(challenge)" in bobs and "<#500>" in rest


async def test_moves_lists_canonical_moves_privately(service: GameService) -> None:
    await started(service)
    [reply] = await service.legal_moves(HERE, ALICE)
    state = registry.get("hokito").new_state(1, 2, None)
    listed = []
    for line in reply.text.splitlines():  # one line per pawn: **b2** b2-b1 · b2-c2 ...
        head, moves = line.split(" ", 1)
        assert all(move.startswith(f"{head.strip('*')}-") for move in moves.split(" · "))
        listed += moves.split(" · ")
    assert sorted(listed) == sorted(str(m) for m in state.legal_moves(0))
    assert reply.ephemeral
    [filtered] = await service.legal_moves(HERE, ALICE, "b2")
    [line] = filtered.text.splitlines()
    assert line.startswith("**b2** ") and line.count("b2-") == len(line.split(" · "))
    with pytest.raises(ServiceError, match="not your turn"):
        await service.legal_moves(HERE, BOB)


async def test_suggestions_are_filtered_and_empty_off_turn(service: GameService) -> None:
    await started(service)
    suggestions = [s.label.split(": ")[0] for s in await service.suggest_moves(HERE, ALICE, "b2")]
    starting = [s for s in suggestions if s.startswith("b2-")]
    assert starting and suggestions[: len(starting)] == starting  # prefix matches first
    assert all("b2" in s for s in suggestions)
    assert len(await service.suggest_moves(HERE, ALICE, "")) == 25
    assert await service.suggest_moves(HERE, BOB, "") == []
    assert await service.suggest_moves(HERE, CAROL, "") == []


async def test_unknown_game_and_bad_options(service: GameService) -> None:
    with pytest.raises(ServiceError, match="There is no game 'chess'"):
        await service.start(HERE, ALICE, GameSetup("chess"), [BOB])
    with pytest.raises(ServiceError, match="needs an opponent"):
        await service.start(HERE, ALICE, GameSetup("hokito"))
    with pytest.raises(ServiceError, match="no variant"):
        await service.start(HERE, ALICE, GameSetup("hokito", variant="huge"), [BOB])
    with pytest.raises(ServiceError, match="seat:"):
        await service.start(HERE, ALICE, GameSetup("hokito", seat="middle"), [BOB])
    with pytest.raises(ServiceError, match="yourself"):
        await service.start(HERE, ALICE, GameSetup("hokito"), [ALICE])


@pytest.mark.parametrize("game", [g.id for g in registry.all_games()])
async def test_every_game_ships_its_rules_in_pages(service: GameService, game: str) -> None:
    [first] = await service.rules(game)
    assert first.ephemeral and first.title.endswith("rules · The game")
    assert [a.label for a in first.actions] == ["The game", "How to move", "House rulings"]
    assert [a.disabled for a in first.actions] == [True, False, False]
    pages = [first.text]
    for action in first.actions[1:]:
        [page] = await service.press(HERE, BOB, action.payload)  # anyone may read them
        assert page.edit and page.ephemeral
        pages.append(page.text)
    assert pages[1].startswith("**Commands**") and pages[2].startswith("**House rules**")
    assert all(0 < len(text) <= 4000 for text in pages)
    assert "\n\n".join(pages) == catalog.listing(game).rules()


async def test_board_images_are_pngs(storage: Storage) -> None:
    service = GameService(storage.games, bot_user=BOT)
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1), [BOB])
    [board] = await service.accept(HERE, BOB)
    assert board.image is not None and board.image[:8] == b"\x89PNG\r\n\x1a\n"


async def test_cached_record_matches_the_database_after_moves(service: GameService) -> None:
    await started(service)
    await service.move(HERE, ALICE, "a1-b1")
    record = await service.repository.get_game(1)
    assert record is not None and service.live.cached(1).record == record
    await service.resign(HERE, BOB, confirmed=True)
    assert service.live.cached(1) is None  # finished games are not kept in memory


async def test_moves_too_many_to_list_are_explained_and_long_lists_fit(
    service: GameService,
) -> None:
    await service.start(HERE, ALICE, GameSetup("everest", seed=1), [BOB])
    await service.accept(HERE, BOB)
    [guide] = await service.legal_moves(HERE, ALICE)
    assert guide.title == "Your legal moves (14656)"
    assert "A plan is 3 of your coins (0 A 2 3 4 5)" in guide.text and "`4E 2N sAE`" in guide.text
    [reply] = await service.legal_moves(HERE, ALICE, "4")  # still thousands of plans
    assert len(reply.text) <= 4096
    total = int(reply.title.split("(")[1].rstrip(")"))
    *lines, more = reply.text.splitlines()
    shown = sum(len(line.split(" · ")) for line in lines)
    assert (
        more
        == f"… and {total - shown} more. Narrow the list with /moves <start>, or use the buttons."
    )


#: Mole Hill, gardener (seat 1) to act: the mole on b7, walled into columns a-b.
WALLED = "1g a1,a2,a3,a4,a5,a6,a7,b7 b1e,b2e,b3e,b4e,b5e,b6e,b7e e1,a4,i4,e7/b2,h2,b6,h6 -"


async def walled_rods(service: GameService) -> Reply:
    setup = GameSetup("molehill", position=WALLED, seat="first")
    await service.start(HERE, ALICE, setup, [BOB])
    [board] = await service.accept(HERE, BOB)
    assert "bob (Gardener) to move." in board.text
    return board


async def test_a_rod_beside_the_mole_takes_two_clicks_and_is_previewed(
    storage: Storage,
) -> None:
    service = make_service(storage, images=True)
    board = await walled_rods(service)
    # The free sides of the mole's square come first on the board, then the columns.
    labels = [c.label for c in board.picks]
    assert labels[:2] == ["↓ south of b7", "← west of b7"]
    assert labels[2:4] == ["a1 … a7", "b1 … b6"] and len(labels) == 2 + 9
    [panel] = await service.press(HERE, BOB, board.picks[1].payload)  # click 1
    assert panel.ephemeral and not panel.edit and panel.image is not None
    assert "Rod west of b7: the mole can still reach 6 squares, as now." in panel.text
    assert [a.label for a in panel.actions] == ["Place this rod", "Back"]
    assert (await stored_snapshot(service))[0] == 0  # nothing placed before Confirm
    replies = await service.press(HERE, BOB, panel.actions[0].payload)  # click 2
    assert replies[0].edit and replies[0].text == "Done: rod a7e."
    assert "bob played rod a7e." in replies[1].text
    ply, snapshot = await stored_snapshot(service)
    assert ply == 1 and "a7e" in snapshot.split()[2]


async def test_a_rod_anywhere_takes_four_clicks_and_back_returns_to_the_sides(
    service: GameService,
) -> None:
    board = await walled_rods(service)
    [closing] = await service.press(HERE, BOB, board.picks[0].payload)
    assert "Rod south of b7 closes the mole in: it cannot move, so round 1 ends." in closing.text
    # Back, from the preview, to the first choices: the rod was not placed.
    [top] = await service.press(HERE, BOB, closing.actions[1].payload)
    assert top.edit and [c.label for c in top.picks][:2] == ["↓ south of b7", "← west of b7"]
    column = next(c for c in board.picks if c.label == "b1 … b6")
    [squares] = await service.press(HERE, BOB, column.payload)  # click 1
    assert [c.label for c in squares.picks] == ["b1", "b2", "b3", "b4", "b5", "b6"]
    [sides] = await service.press(HERE, BOB, squares.picks[2].payload)  # click 2: b3
    assert [c.label for c in sides.picks] == ["↑ north", "↓ south", "← west"]
    [preview] = await service.press(HERE, BOB, sides.picks[0].payload)  # click 3
    assert preview.edit and "the mole can still reach 3 squares (6 now)" in preview.text
    assert [a.label for a in preview.actions] == ["Place this rod", "Back"]
    assert (await stored_snapshot(service))[0] == 0
    replies = await service.press(HERE, BOB, preview.actions[0].payload)  # click 4
    assert replies[0].text == "Done: rod b3n."
    assert (await stored_snapshot(service))[0] == 1


async def test_typed_rods_are_played_at_once_as_before(service: GameService) -> None:
    await walled_rods(service)
    [after] = await service.move(HERE, BOB, "b7 w")
    assert "bob played rod a7e." in after.text


def test_pinned_choices_keep_their_buttons_when_the_rest_are_grouped() -> None:
    squares = [Option(f"{c}{r}", f"{c}{r}") for c in "abcdefghi" for r in range(1, 8)]
    options = [Option("e4n", "↑ north of e4", pinned=True), *squares]
    top = pick_choices(9, 4, (), options, None, Action.PICK)
    assert [c.label for c in top[:2]] == ["↑ north of e4", "a1 … a7"] and len(top) == 10
    assert top[0].payload.encode() == "pick:9:4:e4n"
    inside = pick_choices(9, 4, (), options, "e", Action.STEP)
    assert [c.label for c in inside] == [f"e{r}" for r in range(1, 8)]


def test_a_group_button_says_what_its_choices_are_when_the_game_names_them() -> None:
    options = [
        Option(f"{k}{d}", f"{word} {d}", group_label=f"{word} …")
        for k, word in (("0", "roar"), ("4", "move 4"), ("s", "snowball"))
        for d in "NESW"
    ] * 3  # more than a message holds
    assert [g.label for g in pick_choices(9, 4, (), options, None, Action.STEP)] == [
        "roar …",
        "move 4 …",
        "snowball …",
    ]


def test_many_choices_with_one_first_letter_are_not_grouped_into_one_group() -> None:
    options = [Option(f"pick {n}", f"{n}: somebody moves") for n in range(1, 121)]
    picks = pick_choices(9, 4, (), options, None, Action.PICK)
    assert [c.label for c in picks] == [f"{n}: somebody moves" for n in range(1, 26)]
    assert picks[0].payload.encode() == "pick:9:4:pick 1"


def test_many_choices_are_grouped_by_first_letter() -> None:
    options = [Option(f"{c}{r}", f"{c}{r}") for c in "abcdefghi" for r in range(1, 8)]
    groups = pick_choices(9, 4, (), options, None, Action.PICK)
    assert [g.label for g in groups] == [f"{c}1 … {c}7" for c in "abcdefghi"]
    assert groups[4].payload.encode() == "group+:9:4:e|"
    inside = pick_choices(9, 4, ("rod",), options, "e", Action.STEP)
    assert [c.payload.encode() for c in inside] == [f"step:9:4:rod e{r}" for r in range(1, 8)]
    few = pick_choices(9, 4, (), options[:3], None, Action.STEP)
    assert [c.payload.encode() for c in few] == ["step:9:4:a1", "step:9:4:a2", "step:9:4:a3"]


async def test_a_finished_position_cannot_start_a_game(service: GameService) -> None:
    one_stack = "/".join([EMPTY_RANK] * 5 + [A1 + A2 + ",.,.,.,.,."]) + " b"  # White on top
    with pytest.raises(ServiceError, match="already over"):
        await service.start(HERE, ALICE, GameSetup("hokito", position=one_stack), [BOB])


@pytest.mark.parametrize(
    ("field", "why"),
    [
        ("pos=off,h5 dmg=0,0 peak=-", "pos: while planning every yeti stands on the mountain"),
        ("pos=a2,h5 dmg=0,2 peak=-", "dmg: while planning no yeti has taken damage yet"),
        ("pos=d3,e3 dmg=0,0 peak=0", "peak=0: while planning it names the yeti that stands alone"),
    ],
)
async def test_an_everest_position_the_rules_never_reach_is_refused(
    service: GameService, field: str, why: str
) -> None:
    position = (
        f"everest n=2 cap=30 round=3 stage=plan step=1 {field.split()[0]} aside=-,- "
        f"{' '.join(field.split()[1:])} plans=-,- result=- rng=1:0"
    )
    with pytest.raises(ServiceError, match=re.escape(why)):
        await service.start(HERE, ALICE, GameSetup("everest", position=position), [BOB])
    assert await service.repository.live_game_in_channel(HERE.channel_id) is None


async def test_simultaneous_accepts_start_the_game_once(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("everest", seed=2), [BOB, CAROL])
    results = await asyncio.gather(
        service.accept(HERE, BOB), service.accept(HERE, CAROL), return_exceptions=True
    )
    assert not any(isinstance(r, Exception) for r in results)
    record = await service.repository.get_game(1)
    assert record is not None and record.status == "active"
    started = [r for r in results if isinstance(r, list) and "The game begins" in r[0].text]
    assert len(started) == 1


async def test_accept_racing_a_withdrawal_never_starts_a_closed_game(
    service: GameService,
) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=2), [BOB])
    results = await asyncio.gather(
        service.accept(HERE, BOB), service.decline(HERE, ALICE), return_exceptions=True
    )
    record = await service.repository.get_game(1)
    assert record is not None
    won = [r for r in results if not isinstance(r, Exception)]
    assert len(won) == 1
    if record.status == "active":
        assert "The game begins" in won[0][0].text
    else:
        assert record.status == "declined" and "withdrew" in won[0][0].text


async def test_a_computer_turn_cut_short_is_played_when_the_game_is_next_used(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = make_service(storage)
    await service.start(HERE, ALICE, GameSetup("hokito", seed=3, seat="first"), [BOT])

    def broken(*args: object) -> object:
        raise RuntimeError("the computer crashed")

    monkeypatch.setattr("engine.ai.choose_move", broken)
    [after] = await service.move(
        HERE, ALICE, (await service.suggest_moves(HERE, ALICE, ""))[0].value
    )
    assert "could not move yet" in after.text and f"{WHITE_COMPUTER} to move" in after.text
    monkeypatch.undo()
    restarted = make_service(storage)  # as after a restart
    [board] = await restarted.board(HERE)
    assert f"{WHITE_COMPUTER} played" in board.text and "alice (Black) to move" in board.text


async def test_players_planning_at_once_do_not_block_each_other(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("everest", seed=5), [BOB, CAROL])
    await service.accept(HERE, BOB)
    [board] = await service.accept(HERE, CAROL)
    panel_button = next(a for a in board.actions if a.label == "Make my move")
    results = await asyncio.gather(
        service.move(HERE, ALICE, "4E 2N sAE"), service.move(HERE, BOB, "5W sAS 0N")
    )
    assert all("has made their choice" in r[0].text for r in results)
    # carol's button was drawn before both plans: still good for her decision.
    [panel] = await service.press(HERE, CAROL, panel_button.payload)
    assert panel.ephemeral and panel.picks
    with pytest.raises(ServiceError, match="out of date"):
        await service.press(HERE, ALICE, panel_button.payload)  # alice has planned


async def test_pings_go_to_whoever_is_newly_asked_to_act(service: GameService) -> None:
    [solo] = await service.start(HERE, ALICE, GameSetup("hillbert", seed=4))
    assert solo.mentions == () or [u.name for u in solo.mentions] == ["alice"]
    [moved] = await service.move(
        HERE, ALICE, (await service.suggest_moves(HERE, ALICE, ""))[0].value
    )
    assert moved.mentions == ()  # nobody to tell: alice is playing alone
    [again] = await service.board(HERE)
    assert again.mentions == ()  # re-posting the board pings nobody
    await service.start(THREAD, ALICE, GameSetup("everest", seed=5), [BOB, CAROL])
    await service.accept(THREAD, BOB)
    [start] = await service.accept(THREAD, CAROL)
    assert {u.name for u in start.mentions} == {"alice", "bob", "carol"}
    [planned] = await service.move(THREAD, ALICE, "4E 2N sAE")
    assert planned.mentions == ()  # bob and carol were already asked


async def test_resigning_a_game_of_three_hands_the_seat_to_the_computer(
    service: GameService,
) -> None:
    await service.start(HERE, ALICE, GameSetup("everest", seed=5), [BOB, CAROL])
    await service.accept(HERE, BOB)
    await service.accept(HERE, CAROL)
    [reply] = await service.resign(HERE, BOB, confirmed=True)
    assert "bob resigned; a computer player takes over Blue." in reply.text
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.status == "active"
    assert record.seats[1].user.is_bot and 1 not in record.seats_of(BOB.id)
    with pytest.raises(ServiceError, match="not playing"):
        await service.move(HERE, BOB, "4E 2N sAE")


async def test_an_outage_as_the_last_person_resigns_never_leaves_a_game_of_computers(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = make_service(storage)
    await service.start(HERE, ALICE, GameSetup("everest", seed=5), [BOB, CAROL])
    await service.accept(HERE, BOB)
    await service.accept(HERE, CAROL)
    await service.resign(HERE, CAROL, confirmed=True)
    await service.resign(HERE, ALICE, confirmed=True)

    async def outage(*args: object, **kwargs: object) -> None:
        raise DatabaseUnavailableError("the database went away")

    # The database goes away as the game is closed: nothing that was to change with the
    # close may be stored without it.
    monkeypatch.setattr(storage.games, "close_game", outage)
    with pytest.raises(DatabaseUnavailableError):
        await service.resign(HERE, BOB, confirmed=True)
    monkeypatch.undo()
    record = await storage.games.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.status == "active"
    assert record.seats_of(BOB.id) == (1,)
    # Once the database is back, bob resigns again and the game ends.
    [end] = await make_service(storage).resign(HERE, BOB, confirmed=True)
    assert "bob resigned, and nobody is left to play." in end.text
    assert await storage.games.live_game_in_channel(HERE.channel_id) is None


async def test_unanswered_challenges_expire_after_a_day(storage: Storage) -> None:
    clock = [1_000_000.0]
    service = GameService(storage.games, bot_user=BOT, clock=lambda: clock[0], render_images=False)
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1), [BOB])
    assert await service.expire_due() == []
    clock[0] += 24 * 3600 + 1
    [(place, [closed])] = await service.expire_due()
    assert place.channel_id == HERE.channel_id and "expired" in closed.text
    assert await service.repository.live_game_in_channel(HERE.channel_id) is None


async def test_a_running_deadline_is_shown(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("everest", seed=3, deadline_minutes=30), [BOB])
    [board] = await service.accept(HERE, BOB)
    assert "the default choice is played <t:" in board.text


async def test_practice_games_of_a_solo_game_offer_a_hint(service: GameService) -> None:
    [board] = await service.start(HERE, ALICE, GameSetup("hillbert", seed=4))
    hint = next(a for a in board.actions if a.label == "Hint")
    [reply] = await service.press(HERE, ALICE, hint.payload)
    assert reply.ephemeral and reply.text.startswith("Hint: the bot would play ")
    suggested = reply.text.removeprefix("Hint: the bot would play ").rstrip(".")
    assert suggested in [
        s.label.split(": ")[0] for s in await service.suggest_moves(HERE, ALICE, suggested)
    ]
    [duel] = await service.start(THREAD, ALICE, GameSetup("hokito", seed=4, seat="first"), [BOT])
    assert all(a.label != "Hint" for a in duel.actions)


async def test_a_second_hint_while_the_first_is_worked_out_is_refused_and_opponents_go_on(
    storage: Storage,
) -> None:
    hint_started, release_hints = threading.Event(), threading.Event()

    def search(state: GameState[Any], seat: int, level: str) -> Hashable:
        if state.game_id == "hillbert":  # hints are held until the test lets them go
            hint_started.set()
            release_hints.wait()
        return ai.choose_move(state, seat, level)

    computers = PooledComputers(workers=1, pool=ThreadPoolExecutor, search=search)
    service = GameService(storage.games, bot_user=BOT, render_images=False, computers=computers)
    try:
        [board] = await service.start(HERE, ALICE, GameSetup("hillbert", seed=4))
        hint = next(a for a in board.actions if a.label == "Hint")
        first = asyncio.ensure_future(service.press(HERE, ALICE, hint.payload))
        await asyncio.to_thread(hint_started.wait)
        with pytest.raises(ServiceError, match="Your last hint is still being worked out"):
            await service.press(HERE, ALICE, hint.payload)
        # A computer opponent elsewhere answers while the hint is held.
        setup = GameSetup("hokito", seed=1, seat="first")
        await service.start(THREAD, BOB, setup, [BOT])
        [answered] = await asyncio.wait_for(service.move(THREAD, BOB, "a1-b1"), 60)
        assert "hilltop (White, normal computer) played" in answered.text
        assert not first.done()
        release_hints.set()
        [reply] = await first
        assert reply.text.startswith("Hint: the bot would play ")
        # Once answered, the next hint is worked out again.
        [again] = await service.press(HERE, ALICE, hint.payload)
        assert again.text.startswith("Hint: the bot would play ")
    finally:
        release_hints.set()
        service.close()


async def test_a_roll_off_is_chosen_in_private_from_the_winners_panel(storage: Storage) -> None:
    service = make_service(storage, images=True)
    setup = GameSetup("everest", position=ROLL_OFF)
    await service.admin_start(HERE, ADMIN, setup, [ALICE, BOB])
    [board] = await service.board(HERE)
    # The board is told a round at a time: one picture, the outcomes are bob's to see.
    assert board.gallery == () and "bob (Blue) to move" in board.text
    [panel] = await service.press(HERE, BOB, board.picks[0].payload)
    assert panel.ephemeral and panel.image is not None
    assert panel.image[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Outcome 1 of 2" in panel.text


async def test_a_bystander_pressing_resign_is_refused_at_once(service: GameService) -> None:
    board = await started(service)
    resign = next(a for a in board.actions if a.label == "Resign")
    with pytest.raises(ServiceError, match=r"not playing in this game \(alice, bob are\)"):
        await service.press(HERE, CAROL, resign.payload)
    [confirm] = await service.press(HERE, ALICE, resign.payload)
    assert confirm.title == "Resign?"


async def test_a_deadline_is_refused_in_a_solo_game_that_waits(service: GameService) -> None:
    with pytest.raises(ServiceError, match="Hillbert is played alone and waits for you"):
        await service.start(HERE, ALICE, GameSetup("hillbert", deadline_minutes=60))
    assert await service.repository.live_game_in_channel(HERE.channel_id) is None
    [board] = await service.start(HERE, ALICE, GameSetup("everest", deadline_minutes=60), [BOT])
    assert "<t:" in board.text


async def test_no_challenge_in_a_direct_message(service: GameService) -> None:
    direct = Channel(channel_id=900, guild_id=None)
    with pytest.raises(ServiceError, match="Nobody else can see this direct message"):
        await service.start(direct, ALICE, GameSetup("hokito"), [BOB])
    assert await service.repository.live_game_in_channel(900) is None
    [board] = await service.start(direct, ALICE, GameSetup("hokito", seat="first"), [BOT])
    assert "alice (Black) to move" in board.text


async def test_a_position_that_cannot_be_shown_starts_no_game(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = make_service(storage, images=True)
    position = registry.get("hokito").new_state(1, 2, None).to_text()

    def broken(*args: object) -> bytes:
        raise IndexError("an event names a seat that does not exist")

    monkeypatch.setattr("host.present.painting.draw_board", broken)
    with pytest.raises(ServiceError, match="cannot be played or shown"):
        await service.admin_start(HERE, ADMIN, GameSetup("hokito", position=position), [ALICE, BOB])
    assert await service.repository.live_game_in_channel(HERE.channel_id) is None
    monkeypatch.undo()
    [board] = await service.admin_start(
        HERE, ADMIN, GameSetup("hokito", position=position), [ALICE, BOB]
    )
    assert board.image is not None
