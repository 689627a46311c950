"""The list of moves beside a game's board: a row per move number with a column per
player, a row per round for games told a round at a time, takebacks told in a row of their
own, and each move showing the position it reached."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from data.storage import Storage
from host.face import FrontEnd, House
from host.pages.movelist import move_table
from host.pages.views import MoveLine, MoveTable, Visitor
from tests.host.conftest import ALICE, BOB, BOT, HERE
from tests.host.test_web_pages import hokito, move, open_pages
from tests.houses import house_of

PLAYERS = ("alice (Black)", "bob (White)")


def cells(table: MoveTable) -> list[tuple[int, list[list[str]]]]:
    """Each row's number and each column's notations (a taken back move as `-x-`)."""
    return [
        (
            row.number,
            [
                [e.notation if e.frame is not None else f"-{e.notation}-" for e in c]
                for c in row.cells
            ],
        )
        for row in table.rows
        if not row.note
    ]


def test_two_players_share_a_row_per_move_number() -> None:
    lines = [
        MoveLine(1, "alice played a1.", seat=0, notation="a1", frame=1),
        MoveLine(2, "bob played b1.", seat=1, notation="b1", frame=2),
        MoveLine(3, "alice played a2.", seat=0, notation="a2", frame=3),
    ]
    table = move_table(lines, PLAYERS, by_round=False)
    assert cells(table) == [(1, [["a1"], ["b1"]]), (2, [["a2"], []])]
    assert [[e.frame for c in r.cells for e in c] for r in table.rows] == [[1, 2], [3]]
    assert table.columns == PLAYERS
    assert (table.newest, table.frame) == (3, 3)


def test_a_second_move_in_a_row_by_the_same_player_starts_a_new_row() -> None:
    # The second player moves first; then the first moves twice running.
    lines = [
        MoveLine(1, "bob played b1.", seat=1, notation="b1", frame=1),
        MoveLine(2, "alice played a1.", seat=0, notation="a1", frame=2),
        MoveLine(3, "alice played a2.", seat=0, notation="a2", frame=3),
    ]
    assert cells(move_table(lines, PLAYERS, by_round=False)) == [
        (1, [[], ["b1"]]),
        (2, [["a1"], []]),
        (3, [["a2"], []]),
    ]


def test_a_move_taken_back_is_struck_out_without_a_position_and_the_takeback_is_a_row() -> None:
    lines = [
        MoveLine(1, "alice played a1.", seat=0, notation="a1", frame=1),
        MoveLine(2, "bob played b1.", seat=1, notation="b1", frame=2),
        MoveLine(3, "bob took back a move.", undo=True, seat=1, frame=1),
        MoveLine(4, "bob played b2.", seat=1, notation="b2", frame=2),
    ]
    table = move_table(lines, PLAYERS, by_round=False)
    assert cells(table) == [(1, [["a1"], ["-b1-"]]), (2, [[], ["b2"]])]
    [takeback] = [row for row in table.rows if row.note]
    assert (takeback.note, takeback.ply) == ("bob took back a move.", 3)
    assert table.rows.index(takeback) == 1
    # The newest move is the one that reached the position on the board.
    assert (table.newest, table.frame) == (4, 2)


def test_a_round_is_one_row_with_each_players_plan_and_choices() -> None:
    lines = [
        # Round 1: alice plans first and waits for bob; a roll-off, then bob heals.
        MoveLine(
            1,
            "alice has made their choice.",
            seat=0,
            notation="4E 2N sAE",
            round=1,
            frame=1,
            waits=True,
        ),
        MoveLine(2, "bob has made their choice.", seat=1, notation="0W AN 2N", round=1, frame=2),
        MoveLine(3, "alice played pick 2.", seat=0, notation="pick 2", round=1, frame=3),
        MoveLine(4, "bob played heal.", seat=1, notation="heal", round=1, frame=4),
        # Round 2: bob plans first.
        MoveLine(
            5, "bob has made their choice.", seat=1, notation="3S", round=2, frame=5, waits=True
        ),
        MoveLine(6, "alice has made their choice.", seat=0, notation="5W", round=2, frame=6),
    ]
    table = move_table(lines, PLAYERS, by_round=True)
    assert cells(table) == [
        (1, [["4E 2N sAE", "pick 2"], ["0W AN 2N", "heal"]]),
        (2, [["5W"], ["3S"]]),
    ]
    # A plan made while the other still planned shows the position once both are in.
    frames = {e.notation: e.frame for r in table.rows for c in r.cells for e in c}
    assert frames == {"4E 2N sAE": 2, "0W AN 2N": 2, "pick 2": 3, "heal": 4, "3S": 6, "5W": 6}
    words = {e.notation: e.words for r in table.rows for c in r.cells for e in c}
    assert words["4E 2N sAE"] == "alice has made their choice."


@pytest.fixture
async def house(storage: Storage) -> AsyncIterator[House]:
    built = house_of(storage, front=FrontEnd(BOT))
    yield built
    built.close()


async def test_the_game_page_lists_the_moves_in_their_notation(house: House) -> None:
    await open_pages(house, HERE)
    game_id = await hokito(house)
    stored = [await move(house, HERE, who) for who in (ALICE, BOB, ALICE)]
    view = await house.pages.game(game_id, Visitor())
    assert cells(view.table) == [(1, [[stored[0]], [stored[1]]]), (2, [[stored[2]], []])]
    assert view.table.columns == ("alice (Black)", "bob (White)")
    assert view.to_move == "bob to move"
    assert view.moves[0].text.startswith(f"alice (Black) played {stored[0]}")
