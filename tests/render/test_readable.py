"""Every word and number a game's pictures show stands at least 12 px high on a 360 px
phone: a page shows a picture as wide as the screen less its margins, so a text of
`size` px in a picture `width` px wide is shown `size * SHOWN / width` px high."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PIL import Image, ImageFont

from engine import registry
from engine.core import GameState
from host.catalog import listing_of
from render.core import BoardDraw, RenderContext
from tests.render import (
    test_everest,
    test_hillbert,
    test_hokito,
    test_hollowtown,
    test_molehill,
    test_notation_limits,
    test_png,
)
from tests.render.support import GAME_IDS

#: The width a picture is shown at on a 360 px phone: the page's 0.5 rem (8 px) padding
#: and the picture's 1 px border on each side taken off (web/static/hilltop.css).
SHOWN = 360 - 2 * 8 - 2 * 1
SMALLEST = 12
RENDER_MODULES = ("core", "everest", "hillbert", "hokito", "hollowtown", "molehill")
#: Each test module's named positions: the start, the middle of a game, its end.
SCENES: dict[str, Callable[[], dict[str, tuple[Any, RenderContext]]]] = {
    "everest": test_everest.scenes,
    "hillbert": test_hillbert.scenes,
    "hokito": test_hokito.scenes,
    "hollowtown": test_hollowtown.scenes,
    "molehill": test_molehill.scenes,
}


def forget_drawn_layers() -> None:
    """Empty the renderers' caches, so that the text of a cached layer is drawn again."""
    for name in RENDER_MODULES:
        module = importlib.import_module(f"render.{name}")
        for value in vars(module).values():
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()


def pictures(
    state: GameState[Any], ctx: RenderContext
) -> Iterator[tuple[str, Callable[[], list[Image.Image]]]]:
    """Each picture a position gives, by kind, as a call that draws it."""
    renderer = listing_of(state).renderer
    yield "board", lambda: [renderer.board(state, ctx)]
    steps = renderer.steps
    if steps is not None:
        yield "steps", lambda: [step.picture for step in steps(state, ctx)]
    options = renderer.options
    if options is not None:
        for seat in sorted(state.to_act):
            drawn = options(state, seat, (), ctx)
            yield f"options of seat {seat}", lambda drawn=drawn: [] if drawn is None else [drawn]


def smallest_text(
    draw: Callable[[], list[Image.Image]], monkeypatch: pytest.MonkeyPatch
) -> list[tuple[float, str, int, int]]:
    """The text each picture `draw` gives writes: (its size as a phone shows it, the text,
    its font size, the picture's width), smallest first."""
    written: list[tuple[int, str]] = []
    label = BoardDraw.label

    def noting(
        self: BoardDraw,
        xy: tuple[float, float],
        text: str,
        fnt: ImageFont.FreeTypeFont,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        written.append((int(fnt.size), text))
        label(self, xy, text, fnt, *args, **kwargs)

    monkeypatch.setattr(BoardDraw, "label", noting)
    forget_drawn_layers()
    drawn = draw()
    monkeypatch.setattr(BoardDraw, "label", label)
    if not drawn:
        return []
    width = max(image.width for image in drawn)
    return sorted((size * SHOWN / width, text, size, width) for size, text in written)


def positions(game_id: str) -> list[tuple[GameState[Any], RenderContext]]:
    """The test's named positions of the game, those along seeded random games, and one
    at the edge of its notation (the largest numbers, the most seats; over for some)."""
    edge = registry.get(game_id).from_text(test_notation_limits.EDGES[game_id])
    names = test_notation_limits.NAMES[: edge.num_seats]
    return [
        *SCENES[game_id]().values(),
        *test_png.positions(game_id),
        (edge, RenderContext(names=names)),
    ]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_word_and_number_reads_at_12_px_on_a_phone(
    game_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    kinds = set()
    for state, ctx in positions(game_id):
        for kind, draw in pictures(state, ctx):
            texts = smallest_text(draw, monkeypatch)
            if not texts:
                continue
            kinds.add(kind.split(" of ")[0])
            shown, text, size, width = texts[0]
            assert shown >= SMALLEST, (kind, text, size, width)
    assert "board" in kinds


def test_the_positions_reach_the_end_of_every_game() -> None:
    for game_id in GAME_IDS:
        assert any(state.outcome() is not None for state, _ in positions(game_id)), game_id


def test_the_measure_sees_text_drawn_on_a_cached_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's coordinates are drawn once, on a shared layer: still counted."""
    state, ctx = test_hokito.scenes()["start"]
    listing_of(state).renderer.board(state, ctx)
    texts = smallest_text(lambda: [listing_of(state).renderer.board(state, ctx)], monkeypatch)
    assert {"a", "f", "1", "6"} <= {text for _, text, _, _ in texts}
