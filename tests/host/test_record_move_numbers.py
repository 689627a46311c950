"""A game started from a record counts its moves on from the record's: its first board
says it continues after the record's move N, and its titles say move N, then N + 1."""

from __future__ import annotations

from host.model import Reply, User
from host.payloads import Payload
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOB, CAROL, HERE

PEOPLE = {user.id: user for user in (ALICE, BOB, CAROL)}


async def a_record_of_four_moves(service: GameService) -> str:
    """The downloaded record of a finished game of Hokito whose players made four moves."""
    await service.start(HERE, ALICE, GameSetup("hokito", seed=5, seat="first"), [BOB])
    [board] = await service.accept(HERE, BOB)
    for i in range(4):
        user = (ALICE, BOB)[i % 2]
        [move, *_] = await service.suggest_moves(HERE, user, "")
        await service.move(HERE, user, move.value)
    await service.resign(HERE, BOB, confirmed=True)
    [shown] = await service.game_record(HERE, board.game_id or 0)
    [download] = await service.press(HERE, CAROL, shown.actions[0].payload)
    assert download.file is not None
    return download.file[1].decode()


async def to_move(service: GameService) -> User:
    loaded = await service.live.in_channel(HERE)
    seat = min(loaded.state.to_act)
    return PEOPLE[loaded.record.seats[seat].user.id]


def follow_button(board: Reply) -> Payload:
    return next(a for a in board.actions if a.label == "Follow").payload


async def test_a_game_from_a_record_counts_the_records_moves_in_its_titles(
    service: GameService,
) -> None:
    record = await a_record_of_four_moves(service)
    await service.start(HERE, CAROL, GameSetup("hokito", record=record, ply=2), [ALICE])
    [board] = await service.accept(HERE, ALICE)
    assert board.text.startswith("The game continues from the record, after its move 2: ")
    assert board.title == "Hokito · move 2"
    await service.press(HERE, BOB, follow_button(board))
    [again] = await service.board(HERE)
    assert again.title == "Hokito · move 2"
    mover = await to_move(service)
    [move, *_] = await service.suggest_moves(HERE, mover, "")
    [moved] = await service.move(HERE, mover, move.value)
    assert moved.title == "Hokito · move 3"
    # The follower's news counts the same way.
    [(_, [news])] = await service.follow_messages(board.game_id or 0, [BOB])
    assert "), after move 3:" in news.text, news.text


async def test_a_game_from_the_records_start_counts_from_zero(service: GameService) -> None:
    record = await a_record_of_four_moves(service)
    await service.start(HERE, CAROL, GameSetup("hokito", record=record, ply=0), [ALICE])
    [board] = await service.accept(HERE, ALICE)
    assert board.title == "Hokito · move 0"
    await service.resign(HERE, ALICE, confirmed=True)
    # A game from the usual start counts its own moves only.
    await service.start(HERE, CAROL, GameSetup("hokito", seed=3), [ALICE])
    [fresh] = await service.accept(HERE, ALICE)
    assert fresh.title == "Hokito · move 0"


async def test_lists_and_step_through_count_the_records_moves_too(service: GameService) -> None:
    record = await a_record_of_four_moves(service)
    await service.start(HERE, CAROL, GameSetup("hokito", record=record, ply=2), [ALICE])
    [board] = await service.accept(HERE, ALICE)
    [mine] = await service.my_games(CAROL)
    assert "· move 2" in mine.text, mine.text
    [stepped] = await service.history.step(HERE, board.game_id or 0, 0, True, CAROL)
    assert stepped.title.endswith("· move 2 of 2"), stepped.title
