"""The Hillbert picture's panel: a key to the obstacles' letters, and no jump offered
once the run is over (wherever the panel stands)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PIL import Image

from render import core, hillbert
from render.hillbert import render
from tests.render.test_hillbert import BOARD_X, BOARD_Y, BOULDER, CELL, LOG, STONE, scenes


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every word the pictures drawn in the test write, in order."""
    said: list[str] = []
    label = core.BoardDraw.label

    def recording(draw: core.BoardDraw, xy: tuple[float, float], text: str, *rest: object) -> None:
        said.append(text)
        label(draw, xy, text, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(core.BoardDraw, "label", recording)
    hillbert._layout.cache_clear()  # the shared background is drawn afresh, its words told
    yield said
    hillbert._layout.cache_clear()


def off_board_colours(image: Image.Image) -> set[tuple[int, int, int]]:
    """The colours of the picture outside the board of 7 x 7 cells (no scrolled rows)."""
    rgb = image.convert("RGB")
    board = (BOARD_X, BOARD_Y, BOARD_X + 7 * CELL, BOARD_Y + 7 * CELL)
    outside: set[tuple[int, int, int]] = set()
    for y in range(rgb.height):
        for x in range(rgb.width):
            if not (board[0] <= x < board[2] and board[1] <= y < board[3]):
                outside.add(rgb.getpixel((x, y)))  # type: ignore[arg-type]
    return outside


def test_the_panel_keys_each_obstacle_letter(written: list[str]) -> None:
    image = render(*scenes()["start"])
    assert {STONE, LOG, BOULDER} <= off_board_colours(image)
    for words in ("Obstacles", "small, 1×1", "medium, 1×2", "big, 2×2"):
        assert words in written, written


def test_a_run_that_is_over_mentions_no_jump(written: list[str]) -> None:
    render(*scenes()["start"])
    assert "Jump" in written and ("next turn" in written or "ready" in written)
    written.clear()
    render(*scenes()["over"])
    assert "starved" in written, written
    assert not {"Jump", "next turn", "ready"} & set(written), written
