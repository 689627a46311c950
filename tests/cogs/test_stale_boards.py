"""Boards left behind lose their controls in the background: the newest first, at a
bounded rate, giving up the oldest when moves come faster than that."""

from __future__ import annotations

import asyncio

from cogs.stale_boards import Posted, StaleBoards


class Retired:
    def __init__(self, fail: set[int] | None = None) -> None:
        self.messages: list[int] = []
        self.times: list[float] = []
        self.fail = fail or set()

    async def __call__(self, where: Posted) -> None:
        if where.message_id in self.fail:
            raise RuntimeError("Unknown Message")
        self.messages.append(where.message_id)
        self.times.append(asyncio.get_running_loop().time())


async def test_each_new_message_retires_the_one_before_it_of_that_game() -> None:
    retired = Retired()
    boards = StaleBoards(retired, per_second=100)
    boards.posted(1, Posted(10, 100), has_controls=True)
    boards.posted(2, Posted(20, 200), has_controls=True)  # another game: nothing to retire
    boards.posted(1, Posted(10, 101), has_controls=True)
    await boards.drain()
    assert retired.messages == [100]
    assert boards.latest(1) == Posted(10, 101) and boards.latest(2) == Posted(20, 200)
    # A message without controls (the game's end) retires the last one and is not kept.
    boards.posted(1, Posted(10, 102), has_controls=False)
    await boards.drain()
    assert retired.messages == [100, 101] and boards.latest(1) is None
    boards.close()


async def test_a_message_edited_by_its_own_press_needs_no_edit() -> None:
    retired = Retired()
    boards = StaleBoards(retired, per_second=100)
    boards.posted(1, Posted(10, 100), has_controls=True)
    boards.edited(100)
    boards.posted(1, Posted(10, 101), has_controls=True)
    await boards.drain()
    assert retired.messages == [] and boards.latest(1) == Posted(10, 101)
    boards.close()


async def test_edits_are_spaced_newest_first_and_the_oldest_given_up() -> None:
    retired = Retired(fail={103})
    boards = StaleBoards(retired, per_second=20, max_pending=3)
    for game in range(5):
        boards.posted(game, Posted(10, 100 + game), has_controls=True)
    for game in range(5):
        boards.posted(game, Posted(10, 200 + game), has_controls=True)
    await boards.drain()
    # Five were left behind at once; three could wait, the newest is done first, and
    # one that fails (deleted meanwhile) is let be.
    assert boards.given_up == 2
    assert retired.messages == [104, 102]
    assert boards.retired == 2
    gaps = [b - a for a, b in zip(retired.times, retired.times[1:], strict=False)]
    assert all(gap >= 0.045 for gap in gaps), gaps
    boards.close()
