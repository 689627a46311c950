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
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from PIL import Image

from data.fair import FairGate
from engine.core import GameState
from engine.text import current_language, speaking
from host.catalog import listing_of
from host.i18n import install as install_languages
from host.workers import worker_pool
from render.core import PanelPicture, RenderContext

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


@dataclass(frozen=True, slots=True)
class Speed:
    """How long a replay shows each kind of frame, in milliseconds, and the longest the
    whole replay may run (see `timing`)."""

    ply_ms: int
    #: A moment to dwell on: a move that set something off, each step of it.
    key_ms: int
    #: The last position, which says how the game ended.
    last_ms: int
    limit_ms: int


#: The speeds a player may choose for a replay (`/replay speed:`), the first by default.
SPEEDS = {
    "normal": Speed(ply_ms=700, key_ms=1600, last_ms=4000, limit_ms=55_000),
    "fast": Speed(ply_ms=300, key_ms=700, last_ms=2500, limit_ms=25_000),
}
NORMAL = SPEEDS["normal"]
#: The shortest time a frame is shown: GIF viewers show a shorter delay as a long one,
#: and a move shown for less could not be followed.
SHORTEST_MS = 60


def timing(keys: Sequence[bool], speed: Speed) -> list[int]:
    """How long each of a replay's pictures is shown (`keys`: which are moments to dwell
    on; the last is the end), 0 for a picture left out, so that the whole runs within
    `speed.limit_ms`. A longer game's pictures are shown more briefly, by one factor, the
    end excepted, but none for less than `SHORTEST_MS`; where even that is too long,
    ordinary moves are left out, evenly spread, then moments to dwell on. The first and
    the last picture always stay."""
    count = len(keys)
    wanted = [
        speed.last_ms if i == count - 1 else speed.key_ms if keys[i] else speed.ply_ms
        for i in range(count)
    ]
    room = speed.limit_ms - wanted[-1]
    kept = list(range(count - 1))
    places = room // SHORTEST_MS
    if len(kept) > places:
        dwell = [i for i in kept[1:] if keys[i]]
        ordinary = [i for i in kept[1:] if not keys[i]]
        left = places - 1
        kept = sorted([0, *_spread(dwell, left), *_spread(ordinary, left - len(dwell))])

    def length(scale: float) -> int:
        # GIF delays are whole hundredths of a second.
        return sum(max(SHORTEST_MS, int(wanted[i] * scale) // 10 * 10) for i in kept)

    low, high = 0.0, 1.0
    if length(high) > room:
        for _ in range(40):
            middle = (low + high) / 2
            low, high = (middle, high) if length(middle) <= room else (low, middle)
        high = low
    shown = [0] * count
    for i in kept:
        shown[i] = max(SHORTEST_MS, int(wanted[i] * high) // 10 * 10)
    shown[-1] = wanted[-1]
    return shown


def _spread(items: list[int], most: int) -> list[int]:
    """At most `most` of `items`, evenly spread over them (each from the middle of its
    share, so that none crowds the first or the last picture)."""
    if most >= len(items):
        return items
    return [items[(2 * j + 1) * len(items) // (2 * most)] for j in range(max(0, most))]


def draw_replay(
    frames: list[tuple[GameState[Any], RenderContext, bool]], speed: Speed = NORMAL
) -> bytes:
    """An animated GIF of a game: one frame per position (and, for a move that set steps
    off, each step), with its last move drawn; `key` frames (and the last) stay longer,
    and the whole runs within the speed's limit (`timing`). Frames of another size are
    centred on the largest."""
    drawn: list[tuple[Image.Image, bool]] = []
    for state, ctx, key in frames:
        renderer = listing_of(state).renderer
        if renderer.steps is not None and ctx.previous is not None:
            drawn += [(step.picture, True) for step in renderer.steps(state, ctx)]
        drawn.append((renderer.board(state, ctx), key))
    times = timing([key for _, key in drawn], speed)
    pictures = [(picture, ms) for (picture, _), ms in zip(drawn, times, strict=True) if ms]
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


def draw_panel(
    state: GameState[Any],
    seat: int,
    prefix: tuple[str, ...],
    tokens: tuple[str, ...],
    ctx: RenderContext,
) -> PanelPicture:
    return listing_of(state).renderer.panel(state, seat, prefix, tokens, ctx)


#: Boards handed to each drawing worker ahead of time: what one server's burst can have
#: queued in front of another server's next board.
QUEUED_PER_WORKER = 4


class Painter:
    """Runs the drawing functions above in an executor. Long drawings (a whole game's
    replay, seconds for a long Everest game) run in an executor of their own, made on
    first use, so that no move's board waits behind them."""

    def __init__(
        self, executor: Executor, long_work: Callable[[], Executor], workers: int = 1
    ) -> None:
        self._executor = executor
        self._make_long_work = long_work
        self._long_work: Executor | None = None
        #: The workers' places, which servers take by turns: a burst of one server's boards
        #: waits its turn behind each other server's next board, not the other way round.
        #: A few boards queued for each worker, so that none waits for the event loop to
        #: hand it its next (the loop is busiest just when the workers are).
        self._gate = FairGate(QUEUED_PER_WORKER * workers)

    async def board(
        self, state: GameState[Any], ctx: RenderContext, chooser: int | None, steps: bool = True
    ) -> BoardImages:
        return await self._run(draw_board, state, ctx, chooser, steps)

    async def replay(
        self, frames: list[tuple[GameState[Any], RenderContext, bool]], speed: Speed = NORMAL
    ) -> bytes:
        if self._long_work is None:
            self._long_work = self._make_long_work()
        loop = asyncio.get_running_loop()
        job = (current_language(), draw_replay, frames, speed)
        return await loop.run_in_executor(self._long_work, in_language, *job)

    async def options(
        self, state: GameState[Any], seat: int, prefix: tuple[str, ...], ctx: RenderContext
    ) -> bytes | None:
        return await self._run(draw_options, state, seat, prefix, ctx)

    async def panel(
        self,
        state: GameState[Any],
        seat: int,
        prefix: tuple[str, ...],
        tokens: tuple[str, ...],
        ctx: RenderContext,
    ) -> PanelPicture:
        """The picture `seat` builds its move on, and where each offered token is on it."""
        return await self._run(draw_panel, state, seat, prefix, tokens, ctx)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        # The words in a picture are in the language of whoever asked for it: the
        # executor's thread or process does not share this task's context.
        job = (current_language(), fn, *args)
        async with self._gate:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, in_language, *job)

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
        super().__init__(pool, lambda: worker_pool(1, background=True, warm=warm_up), workers)
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
