"""Drawing boards away from the event loop.

A board is drawn from values that are cheap to send (a state as a seat sees it, the
render context), so it can be drawn in another thread or another process. Two painters:

- `ProcessPainter`: warm worker processes. Drawing holds no lock of the bot's, so the
  event loop, the database threads and discord.py never wait for the interpreter lock
  while a board is drawn.
- `ThreadPainter`: one thread of this process. Nothing to start; used by the console and
  the tests, where one person plays at a time.

Rendering is a pure function of its inputs, so both give the same bytes.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from PIL import Image

from engine.core import GameState
from engine.text import current_language, speaking
from host.catalog import listing_of
from host.i18n import install as install_languages
from host.workers import worker_pool
from render.core import RenderContext

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class BoardImages:
    """The pictures of one board reply."""

    board: bytes
    #: Each step of what the last move set off (Everest's rounds): caption, picture.
    steps: tuple[tuple[str, bytes], ...] = ()
    #: The outcomes a player must choose among, when there are such (a roll-off).
    choices: bytes | None = None


def draw_board(
    state: GameState[Any], ctx: RenderContext, chooser: int | None, steps: bool = True
) -> BoardImages:
    """The board, its steps (unless `steps` is False), and the choices of `chooser` (the
    one seat to act) if the game draws them."""
    renderer = listing_of(state).renderer
    choices = renderer.options_png(state, chooser, (), ctx) if chooser is not None else None
    drawn = tuple(renderer.step_pngs(state, ctx)) if steps else ()
    return BoardImages(renderer.board_png(state, ctx), drawn, choices)


#: How long a replay shows each kind of frame, in milliseconds.
PLY_MS = 700
KEY_MS = 1600
LAST_MS = 4000


def draw_replay(
    frames: list[tuple[GameState[Any], RenderContext, bool]],
) -> bytes:
    """An animated GIF of a game: one frame per position (and, for a move that set steps
    off, each step), with its last move drawn; `key` frames (and the last) stay longer.
    Frames of another size are centred on the largest."""
    pictures: list[tuple[Image.Image, int]] = []
    for number, (state, ctx, key) in enumerate(frames):
        renderer = listing_of(state).renderer
        if renderer.steps is not None and ctx.previous is not None:
            pictures += [(step.picture, KEY_MS) for step in renderer.steps(state, ctx)]
        last = number == len(frames) - 1
        pictures.append(
            (renderer.board(state, ctx), LAST_MS if last else KEY_MS if key else PLY_MS)
        )
    width = max(p.width for p, _ in pictures)
    height = max(p.height for p, _ in pictures)
    images = []
    for picture, _ in pictures:
        if picture.size != (width, height):
            canvas = Image.new("RGB", (width, height), picture.convert("RGB").getpixel((0, 0)))
            canvas.paste(picture.convert("RGB"), ((width - picture.width) // 2, 0))
            picture = canvas.quantize(colors=256, method=Image.Quantize.MEDIANCUT)
        images.append(picture)
    out = io.BytesIO()
    images[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=[ms for _, ms in pictures],
        loop=0,
        optimize=False,
    )
    return out.getvalue()


def draw_options(
    state: GameState[Any], seat: int, prefix: tuple[str, ...], ctx: RenderContext
) -> bytes | None:
    return listing_of(state).renderer.options_png(state, seat, prefix, ctx)


class Painter:
    """Runs the drawing functions above in an executor. Long drawings (a whole game's
    replay, seconds for a long Everest game) run in an executor of their own, made on
    first use, so that no move's board waits behind them."""

    def __init__(self, executor: Executor, long_work: Callable[[], Executor]) -> None:
        self._executor = executor
        self._make_long_work = long_work
        self._long_work: Executor | None = None

    async def board(
        self, state: GameState[Any], ctx: RenderContext, chooser: int | None, steps: bool = True
    ) -> BoardImages:
        return await self._run(draw_board, state, ctx, chooser, steps)

    async def replay(self, frames: list[tuple[GameState[Any], RenderContext, bool]]) -> bytes:
        if self._long_work is None:
            self._long_work = self._make_long_work()
        loop = asyncio.get_running_loop()
        job = (current_language(), draw_replay, frames)
        return await loop.run_in_executor(self._long_work, in_language, *job)

    async def options(
        self, state: GameState[Any], seat: int, prefix: tuple[str, ...], ctx: RenderContext
    ) -> bytes | None:
        return await self._run(draw_options, state, seat, prefix, ctx)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        # The words in a picture are in the language of whoever asked for it: the
        # executor's thread or process does not share this task's context.
        job = (current_language(), fn, *args)
        return await asyncio.get_running_loop().run_in_executor(self._executor, in_language, *job)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
        if self._long_work is not None:
            self._long_work.shutdown(wait=False, cancel_futures=True)


class ThreadPainter(Painter):
    def __init__(self) -> None:
        # Every renderer was imported with the catalogue, in the importing thread: a module
        # compiled in a worker thread while the main thread compiles too trips a CPython
        # 3.11 bug (a shared AST recursion counter).
        super().__init__(
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="render"),
            lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix="render-long"),
        )


class ProcessPainter(Painter):
    def __init__(self, workers: int = 1) -> None:
        pool = worker_pool(workers, warm=warm_up)
        # Replays are drawn in a worker of their own, at background priority: the boards
        # of moves go first.
        super().__init__(pool, lambda: worker_pool(1, background=True, warm=warm_up))
        # Start the workers now, not on the first move: spawning takes a second.
        for _ in range(workers):
            pool.submit(warm_up)


def in_language(language: str, fn: Callable[..., T], *args: Any) -> T:
    """Run a drawing function with its words in `language` (in a worker process, the
    languages are installed on first use)."""
    install_languages()
    with speaking(language):
        return fn(*args)


def warm_up() -> None:
    """The first task of each worker: reading this function in the worker imports this
    module, and with it the catalogue, every renderer and the languages, before the first
    board."""
    install_languages()
