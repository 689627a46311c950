"""Game records read back: a finished game's record starts from its last position still
played, a byte-order mark is no text, and the console reads only a saved record file of
a record's size, where `record:` is an option."""

from __future__ import annotations

import io
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from console.front import Console, console_front
from console.lines import ConsoleInputError, parse_line, record_file
from data.storage import Storage
from engine import ai, registry
from host.history.records import MAX_RECORD_BYTES, read_record
from host.model import ServiceError
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOB, BOT, HERE, THREAD
from tests.houses import house_of


async def played_to_the_end(service: GameService) -> tuple[str, list[str]]:
    """A game of Hokito played until it is over (no resignation): its downloaded record,
    and each position it went through, from the first."""
    await service.start(HERE, ALICE, GameSetup("hokito", seed=5, seat="first"), [BOB])
    await service.accept(HERE, BOB)
    game_id = (await service.live.in_channel(HERE)).id
    positions = []
    while True:
        loaded = await service.live.load(game_id)
        positions.append(loaded.state.to_text())
        if not loaded.record.is_live:
            break
        seat = min(loaded.state.to_act)
        move = ai.choose_move(loaded.state, seat, "random")
        await service.move(HERE, [ALICE, BOB][seat], loaded.state.move_text(move))
    [shown] = await service.game_record(HERE, loaded.id)
    [download] = await service.press(HERE, ALICE, shown.actions[0].payload)
    assert download.file is not None
    return download.file[1].decode(), positions


async def test_a_finished_games_record_starts_where_it_was_last_still_played(
    service: GameService,
) -> None:
    record, positions = await played_to_the_end(service)
    moves = len(positions) - 1
    assert moves > 2 and not registry.get("hokito").from_text(positions[-1]).to_act
    note = (
        f"The record's game is over after its move {moves}, so this game starts at ply "
        f"{moves - 1}, the last position where it was still played (ply: starts from another)."
    )
    [challenge] = await service.start(THREAD, ALICE, GameSetup("hokito", record=record), [BOB])
    assert note in challenge.text
    await service.accept(THREAD, BOB)
    assert (await service.live.in_channel(THREAD)).state.to_text() == positions[-2]
    await service.resign(THREAD, BOB, confirmed=True)
    # A ply where the game is over says which plies can be played.
    with pytest.raises(ServiceError) as refused:
        await service.start(THREAD, ALICE, GameSetup("hokito", record=record, ply=moves), [BOB])
    assert str(refused.value) == (
        f"ply: the record's game is over after move {moves}; choose a ply where it is still "
        f"played, at most {moves - 1}."
    )
    [again] = await service.start(THREAD, ALICE, GameSetup("hokito", record=record, ply=1), [BOB])
    assert "over after" not in again.text
    await service.decline(THREAD, BOB)
    # Against the computer the game begins at once: its first board says where.
    [board] = await service.start(THREAD, ALICE, GameSetup("hokito", record=record), [BOT])
    assert note in board.text


def test_a_record_saved_with_a_byte_order_mark_reads_the_same() -> None:
    state = registry.get("hokito").new_state(5, 2, None)
    first = state.move_text(state.legal_moves(0)[0])
    record = f'[Game "hokito"]\n[Seed "5"]\n[Seat1 "a"]\n[Seat2 "b"]\n\n1. Black: {first}\n'
    marked = read_record("\ufeff" + record)
    assert marked == read_record(record) and marked.moves == ((0, first),)


@pytest.mark.parametrize(
    ("line", "option"),
    [
        ("root /admin start game:hokito player1:alice player2:bob record:saved.txt", "record"),
        ("root /admin start game:hokito record:saved.txt player1:alice player2:bob", "record"),
        ("bob /move text:c2-e4 ply:3", "ply"),
    ],
)
def test_an_option_of_another_command_is_refused_not_read_into_a_value(
    line: str, option: str
) -> None:
    with pytest.raises(ConsoleInputError, match=f"has no option '{option}'"):
        parse_line(line)


def test_a_record_file_larger_than_a_record_is_refused(tmp_path: Path) -> None:
    fits, too_large = tmp_path / "fits.txt", tmp_path / "large.txt"
    fits.write_bytes(b"x" * MAX_RECORD_BYTES)
    too_large.write_bytes(b"x" * (MAX_RECORD_BYTES + 1))
    assert record_file(str(fits)) == "x" * MAX_RECORD_BYTES
    with pytest.raises(ConsoleInputError, match=r"too large for a game record \(at most 256 KB\)"):
        record_file(str(too_large))


def test_a_device_a_pipe_or_a_folder_is_no_record_file(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)  # nobody writes to it: reading it would wait for ever
    for path in ("/dev/zero", str(pipe)):
        with pytest.raises(ConsoleInputError, match=f"record: '{path}' is not a file"):
            record_file(path)
    with pytest.raises(ConsoleInputError, match="record: cannot read"):
        record_file(str(tmp_path))


@pytest.fixture
async def console(storage: Storage, tmp_path: Path) -> AsyncIterator[tuple[Console, io.StringIO]]:
    house = house_of(storage, front=console_front())
    out = io.StringIO()
    try:
        yield Console(house, tmp_path / "out", out), out
    finally:
        house.close()


async def test_the_console_refuses_a_device_as_a_record_and_starts_nothing(
    console: tuple[Console, io.StringIO], storage: Storage
) -> None:
    cons, out = console
    await cons.run_line("alice /play game:hokito opponent:bob record:/dev/zero")
    assert out.getvalue() == "! record: '/dev/zero' is not a file; name a saved game record.\n"
    assert (await storage.database.fetch("SELECT COUNT(*) FROM games"))[0][0] == 0
