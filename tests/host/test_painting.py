"""A replay's timing: each kind of picture for its time at each speed, a long game within
the speed's limit, the longest left out evenly rather than flashed by."""

from __future__ import annotations

import io
from itertools import pairwise

from PIL import Image, ImageSequence

from engine import registry
from host import catalog  # noqa: F401  (registers the games)
from host.history.finished import animate, frames_of
from host.present.painting import SHORTEST_MS, SPEEDS, ThreadPainter, timing

NORMAL, FAST = SPEEDS["normal"], SPEEDS["fast"]


def durations(gif: bytes) -> list[int]:
    with Image.open(io.BytesIO(gif)) as picture:
        return [frame.info["duration"] for frame in ImageSequence.Iterator(picture)]


def test_a_short_game_shows_each_picture_for_the_time_of_its_kind() -> None:
    keys = [False, False, True, False, False]
    assert timing(keys, NORMAL) == [700, 700, 1600, 700, 4000]
    assert timing(keys, FAST) == [300, 300, 700, 300, 2500]


def test_a_longer_game_is_shown_faster_to_end_within_the_limit() -> None:
    # 199 moves and the end: 199 x 700 ms would be 139 s. The 51 s before the end's 4 s
    # give each move 256 ms, shown as 250 (GIF delays are hundredths of a second).
    assert timing([False] * 200, NORMAL) == [250] * 199 + [4000]
    # Fast: 22.5 s before the end's 2.5 s, 113 ms a move, shown as 110.
    assert timing([False] * 200, FAST) == [110] * 199 + [2500]


def test_moments_to_dwell_on_stay_longer_than_moves_when_squeezed() -> None:
    keys = [i % 10 == 5 for i in range(300)]
    shown = timing(keys, NORMAL)
    assert sum(shown) <= NORMAL.limit_ms and all(shown)
    moves = {ms for ms, key in zip(shown[:-1], keys, strict=False) if not key}
    moments = {ms for ms, key in zip(shown[:-1], keys, strict=False) if key}
    assert len(moves) == len(moments) == 1 and min(moments) > max(moves) >= SHORTEST_MS


def test_a_very_long_game_leaves_moves_out_evenly_but_keeps_its_moments() -> None:
    keys = [i % 100 == 50 for i in range(3000)]
    shown = timing(keys, FAST)
    kept = [i for i, ms in enumerate(shown) if ms]
    # 22.5 s before the end hold 375 pictures of 60 ms.
    assert len(kept) == 22_500 // SHORTEST_MS + 1
    assert sum(shown) == FAST.limit_ms
    assert kept[0] == 0 and kept[-1] == 2999
    assert all(shown[i] for i in range(3000) if keys[i])
    moves = [i for i in kept[1:-1] if not keys[i]]
    gaps = {b - a for a, b in pairwise(moves)}
    assert max(gaps) - min(gaps) <= 2  # evenly spread (a moment between adds one)


async def test_a_whole_mole_hill_game_replays_in_under_a_minute() -> None:
    game = registry.get("molehill")
    state = game.new_state(1, 2, None)
    moves = []
    while state.to_act:
        seat = min(state.to_act)
        move = state.legal_moves(seat)[0]
        moves.append((seat, state.move_text(move)))
        state = state.play(seat, move)
    assert len(moves) == 84  # at the old 0.7 s a move, over a minute
    frames = frames_of(game.new_state(1, 2, None), moves, ("ann", "bo"))
    painter = ThreadPainter()
    try:
        normal = durations(await animate(painter, frames, NORMAL))
    finally:
        painter.close()
    assert sum(normal) <= NORMAL.limit_ms < 60_000
    assert normal[-1] == NORMAL.last_ms and min(normal) >= SHORTEST_MS
