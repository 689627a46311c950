"""After a game a rematch; during one, draw offers and takebacks between two people. Only
the one an offer is for may answer it, an offer lapses with the next move, and a
takeback is an undo entry in the log, never a deleted move."""

from __future__ import annotations

import asyncio

import pytest

from data.storage import Storage
from host.model import Reply, ServiceError, User
from host.payloads import Action, Payload
from host.service import GameService
from host.settings import ServerChange
from host.setup import GameSetup
from tests.host.conftest import ADMIN, ALICE, BOB, BOT, CAROL, HERE, make_service


def action(reply: Reply, label: str) -> Payload:
    return next(a for a in reply.actions if a.label == label).payload


async def duel(service: GameService) -> Reply:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    [board] = await service.accept(HERE, BOB)
    return board


async def first_move(service: GameService, user: User = ALICE) -> str:
    [move, *_] = await service.suggest_moves(HERE, user, "")
    await service.move(HERE, user, move.value)
    return move.value.split(" @")[0]


async def test_a_rematch_swaps_the_seats_and_waits_for_the_other(service: GameService) -> None:
    await duel(service)
    [end] = await service.resign(HERE, BOB, confirmed=True)
    rematch = next(a for a in end.actions if a.label == "Rematch")
    with pytest.raises(ServiceError, match="not playing in this game"):
        await service.press(HERE, CAROL, rematch.payload)
    [done, offer] = await service.press(HERE, BOB, rematch.payload)
    assert done.edit and done.only_controls and done.actions == ()
    assert "bob asks for a rematch" in offer.text and [u.name for u in offer.mentions] == ["alice"]
    with pytest.raises(ServiceError, match="already has a game"):
        await service.press(HERE, ALICE, rematch.payload)  # one rematch at a time
    [board] = await service.accept(HERE, ALICE)
    assert "The game begins: bob (Black), alice (White)." in board.text


async def test_a_rematch_against_the_computer_starts_at_once(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOT])
    [end] = await service.resign(HERE, ALICE, confirmed=True)
    [_, board] = await service.press(HERE, ALICE, action(end, "Rematch"))
    assert board.text.startswith("The game begins: hilltop (Black, normal computer), alice")


async def test_a_declined_rematch_closes_and_nothing_starts(service: GameService) -> None:
    await duel(service)
    [end] = await service.resign(HERE, ALICE, confirmed=True)
    await service.press(HERE, ALICE, action(end, "Rematch"))
    [closed] = await service.decline(HERE, BOB)
    assert "bob declined the challenge." in closed.text and closed.actions == ()
    assert await service.repository.live_game_in_channel(HERE.channel_id) is None


async def test_a_draw_is_offered_and_accepted_only_by_the_other(service: GameService) -> None:
    await duel(service)
    await first_move(service, ALICE)
    await first_move(service, BOB)
    [offer] = await service.draw(HERE, ALICE)
    assert "alice offers a draw. bob: accept or decline." in offer.text
    assert [u.name for u in offer.mentions] == ["bob"]
    accept = action(offer, "Accept")
    for wrong in (ALICE, CAROL):
        with pytest.raises(ServiceError, match="This offer is for bob to answer"):
            await service.press(HERE, wrong, accept)
    [answered, end] = await service.press(HERE, BOB, accept)
    assert answered.edit and answered.actions == () and "bob accepted the draw." in answered.text
    assert "alice (Black) and bob (White) agreed a draw." in end.text
    assert "It is a draw." in end.text
    # A draw between newcomers leaves their ratings where they were.
    assert "Ratings: alice 1500 (±0), bob 1500 (±0)." in end.text
    record = await service.repository.get_game(1)
    assert record is not None and record.status == "finished"
    assert record.result is not None and record.result.winners == ()


async def test_a_draw_offer_lapses_with_the_next_move(service: GameService) -> None:
    await duel(service)
    [offer] = await service.draw(HERE, BOB)
    await first_move(service)
    with pytest.raises(ServiceError, match="This offer lapsed"):
        await service.press(HERE, ALICE, action(offer, "Accept"))
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.status == "active"


async def test_a_declined_draw_changes_nothing(service: GameService) -> None:
    await duel(service)
    [offer] = await service.draw(HERE, ALICE)
    [answered] = await service.press(HERE, BOB, action(offer, "Decline"))
    assert "bob declined the draw; the game goes on." in answered.text
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.status == "active" and record.ply == 0


async def test_no_draw_or_takeback_with_the_computer_or_in_everest(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOT])
    with pytest.raises(ServiceError, match="The computer plays on"):
        await service.draw(HERE, ALICE)
    await service.resign(HERE, ALICE, confirmed=True)
    await service.start(HERE, ALICE, GameSetup("everest", seed=1), [BOB])
    await service.accept(HERE, BOB)
    with pytest.raises(ServiceError, match="Everest has no takebacks"):
        await service.takeback(HERE, ALICE)


async def test_a_takeback_undoes_your_last_move_as_an_entry_of_the_log(storage: Storage) -> None:
    service = make_service(storage)
    await duel(service)
    with pytest.raises(ServiceError, match="the last move here is not yours"):
        await service.takeback(HERE, ALICE)  # nothing played yet
    played = await first_move(service)
    with pytest.raises(ServiceError, match="the last move here is not yours"):
        await service.takeback(HERE, BOB)
    [ask] = await service.takeback(HERE, ALICE)
    assert f"alice asks to take back {played}." in ask.text
    [allowed, board] = await service.press(HERE, BOB, action(ask, "Accept"))
    assert "bob allowed the takeback." in allowed.text
    assert f"alice's move {played} was taken back." in board.text
    assert "alice (Black) to move." in board.text
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.ply == 2
    log = await service.repository.moves(record.id)
    assert [m.text for m in log] == [played, "undo"]  # nothing deleted
    # The position is the start again, as a fresh process replays it.
    fresh = make_service(storage)
    loaded = await fresh.live.in_channel(HERE)
    start = await service.live.in_channel(HERE)
    assert loaded.state.to_text() == start.state.to_text() == record.snapshot
    # The undo is not a move of hers: she cannot take back again.
    with pytest.raises(ServiceError, match="the last move here is not yours"):
        await service.takeback(HERE, ALICE)
    again = await first_move(service)
    assert again == played  # and she may play on


async def test_two_answers_at_once_to_one_takeback_undo_once(storage: Storage) -> None:
    service, other = make_service(storage), make_service(storage)
    await duel(service)
    await first_move(service)
    [ask] = await service.takeback(HERE, ALICE)
    accept = action(ask, "Accept")
    results = await asyncio.gather(
        service.press(HERE, BOB, accept),
        other.press(HERE, BOB, accept),
        return_exceptions=True,
    )
    assert sum(isinstance(r, list) for r in results) == 1, results
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None
    assert [m.text for m in await service.repository.moves(record.id)][1:] == ["undo"]
    assert accept.action == Action.TAKEBACK_ACCEPT


async def test_an_offer_made_before_a_restart_is_answered_after_it(storage: Storage) -> None:
    before = make_service(storage)
    await duel(before)
    [offer] = await before.draw(HERE, ALICE)
    before.close()
    after = make_service(storage)  # a new process: the offer lives in its buttons
    [_, end] = await after.press(HERE, BOB, action(offer, "Accept"))
    assert "alice (Black) and bob (White) agreed a draw." in end.text


async def test_boards_from_before_a_takeback_are_stale(service: GameService) -> None:
    await duel(service)
    await first_move(service)
    [bobs, *_] = await service.suggest_moves(HERE, BOB, "")  # offered at ply 1
    [ask] = await service.takeback(HERE, ALICE)
    await service.press(HERE, BOB, action(ask, "Accept"))
    await first_move(service)  # alice plays again: bob to move at ply 3
    with pytest.raises(ServiceError, match="moved on"):
        await service.move(HERE, BOB, bobs.value)
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.ply == 3


async def test_a_rematch_keeps_the_servers_long_deadline_without_tripping_its_bounds(
    storage: Storage,
) -> None:
    service = make_service(storage)
    long = ServerChange(game="hokito", deadline_hours=240)  # longer than /play may choose
    await service.server_settings(HERE, ADMIN, long)
    await duel(service)
    [end] = await service.resign(HERE, BOB, confirmed=True)
    [_, offer] = await service.press(HERE, BOB, action(end, "Rematch"))
    assert "bob asks for a rematch" in offer.text
    [board] = await service.accept(HERE, ALICE)
    assert "The game begins: bob (Black), alice (White)." in board.text
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.deadline_from is not None
    assert record.deadline_at == record.deadline_from + 240 * 3600
