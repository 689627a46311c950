"""Where a bot process's time goes, for the saturation run's diagnosis.

`install(path)` (called by `bench.bot_process` and `bench.minimal_bot` when the
environment has HILLTOP_BENCH_TRACE=<path>) wraps, in this process only, the steps of an
interaction's way through the bot and appends one line per event to `path`:

    <interaction id> <label> <times...> t<task> [detail]   a step of one interaction
    - <label> <start> <end> [detail]                        the process as a whole

Times are `time.perf_counter()`, which on Linux is the system's monotonic clock: the same
in the bench process, the bot and its workers, so that they line up with the fake's
`Exchange.sent_at`. The task tells the command's own steps from those of background work
it set off, which inherits its interaction. Interaction steps: parsed (discord.py read
INTERACTION_CREATE); respond and service (start, end); write, gamelock, turn and ratings
(the database writer's lock, the game's lock, its turn of telling, the lock of rating
finished games: asked, got, let go, and who asked); sql (a call into a database
connection's thread, queued to back, writer or reader); paint (the render pool: queued,
a worker began, ended, the loop had the result); http (a REST request). Process events:
gc (a collection, its generation and, after a full one, the objects left), lag (the loop
woke later than asked), slow (one callback of the loop ran long, and what it ran).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import gc
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from data.fair import FairGate

T = TypeVar("T")

#: The interaction whose work is running (tasks inherit it from the one that parsed it).
current: contextvars.ContextVar[str] = contextvars.ContextVar("interaction", default="-")
#: A loop callback running longer than this is noted; so is a loop waking this late.
SLOW = 0.020
LAG_EVERY = 0.005

_lines: list[str] = []


def note(label: str, *times: float, detail: str = "") -> None:
    """A step of the current interaction, in the task it ran in (background tasks the
    interaction started inherit its id: the task tells them apart)."""
    stamps = " ".join(f"{t:.6f}" for t in times)
    task = f"t{id(asyncio.current_task())}" if _in_loop() else "t0"
    _lines.append(f"{current.get()} {label} {stamps} {task} {detail}".rstrip())


def _in_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def note_process(label: str, start: float, end: float, detail: str = "") -> None:
    _lines.append(f"- {label} {start:.6f} {end:.6f} {detail}".rstrip())


def _flush_every(path: str, every: float) -> None:
    with open(path, "a", encoding="utf-8") as out:
        while True:
            time.sleep(every)
            lines = _lines[:]
            del _lines[: len(lines)]
            if lines:
                out.write("\n".join(lines) + "\n")
                out.flush()


def timed(fn: Callable[..., T], *args: Any) -> tuple[float, float, T]:
    """Run in a render worker: the drawing with when it began and ended."""
    start = time.perf_counter()
    result = fn(*args)
    return start, time.perf_counter(), result


def install(path: str, *, product: bool = True) -> None:
    """Trace this process into `path`; `product` wraps the real bot's own steps too."""
    threading.Thread(target=_flush_every, args=(path, 0.5), daemon=True).start()
    _trace_gc()
    _trace_loop()
    _trace_discord()
    if product:
        _trace_product()


def _replace(owner: object, name: str, value: object) -> None:
    """Put `value` in place of `owner.name`, in this process only."""
    setattr(owner, name, value)


def _trace_gc() -> None:
    began = [0.0]

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            ended = time.perf_counter()
            # After a full collection: how many objects it had to go through.
            held = f" {len(gc.get_objects())}" if info["generation"] == 2 else ""
            note_process("gc", began[0], ended, f"{info['generation']}{held}")

    gc.callbacks.append(callback)


def _trace_loop() -> None:
    """Every loop callback timed (one noted when it runs long), and a watcher of the
    loop's wake-ups started with the first task."""
    run = asyncio.events.Handle._run

    def timed_run(handle: asyncio.events.Handle) -> None:
        start = time.perf_counter()
        run(handle)
        end = time.perf_counter()
        if end - start > SLOW:
            note_process("slow", start, end, _what(handle))

    _replace(asyncio.events.Handle, "_run", timed_run)
    started = [False]
    create_task = asyncio.BaseEventLoop.create_task

    def watching_create_task(loop: asyncio.BaseEventLoop, *args: Any, **kwargs: Any) -> Any:
        if not started[0]:
            started[0] = True
            create_task(loop, _watch_lag())
        return create_task(loop, *args, **kwargs)

    _replace(asyncio.BaseEventLoop, "create_task", watching_create_task)


def _what(handle: asyncio.events.Handle) -> str:
    """What a loop callback ran: a task's coroutine by name, else the callback."""
    callback = getattr(handle, "_callback", None)
    task = getattr(callback, "__self__", None)
    coro = task.get_coro() if isinstance(task, asyncio.Task) else None
    name = getattr(coro, "__qualname__", None) or repr(callback)
    return name[:160].replace(" ", "_").replace("\n", "_")


async def _watch_lag() -> None:
    while True:
        asked = time.perf_counter() + LAG_EVERY
        await asyncio.sleep(LAG_EVERY)
        woke = time.perf_counter()
        if woke - asked > SLOW:
            note_process("lag", asked, woke)


def _trace_discord() -> None:
    import discord

    parse = discord.state.ConnectionState.parse_interaction_create

    def parsed(state: Any, data: Any) -> None:
        current.set(str(data["id"]))
        note("parsed", time.perf_counter())
        parse(state, data)

    _replace(discord.state.ConnectionState, "parse_interaction_create", parsed)
    request = discord.http.HTTPClient.request

    @functools.wraps(request)
    async def timed_request(client: Any, route: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await request(client, route, **kwargs)
        finally:
            path = route.path.split("/")[1] if route.path.startswith("/") else route.path
            note("http", start, time.perf_counter(), detail=f"{route.method}:{path}")

    _replace(discord.http.HTTPClient, "request", timed_request)
    adapter = discord.webhook.async_.AsyncWebhookAdapter
    hook = adapter.request

    @functools.wraps(hook)
    async def timed_hook(self: Any, route: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await hook(self, route, *args, **kwargs)
        finally:
            what = "callback" if "/callback" in route.path else "webhook"
            note("http", start, time.perf_counter(), detail=f"{route.method}:{what}")

    _replace(adapter, "request", timed_hook)


def _trace_product() -> None:
    import cogs.respond
    from data.sqlite import db
    from engine.text import current_language
    from host.present import painting
    from host.service import GameService

    # The cogs are loaded as new modules (discord.py's extensions), each taking `respond`
    # from `cogs.respond` as it loads: that one is wrapped.
    respond = cogs.respond.respond

    async def timed_respond(*args: Any, **kwargs: Any) -> None:
        start = time.perf_counter()
        try:
            await respond(*args, **kwargs)
        finally:
            note("respond", start, time.perf_counter())

    _replace(cogs.respond, "respond", timed_respond)
    # A move's service call, and a game's start's (/play, a challenge).
    for name in ("move", "start"):
        _replace(GameService, name, _timed_service(getattr(GameService, name)))

    async def timed_paint(painter: painting.Painter, fn: Callable[..., T], *args: Any) -> T:
        job = (current_language(), timed, fn, *args)
        loop = asyncio.get_running_loop()
        asked = time.perf_counter()
        start, end, result = await loop.run_in_executor(
            painter._executor, painting.in_language, *job
        )
        note("paint", asked, start, end, time.perf_counter(), detail=fn.__name__)
        return result  # type: ignore[no-any-return]

    _replace(painting.Painter, "_run", timed_paint)
    opened = db.Database.__init__

    roles: dict[int, str] = {}

    def traced_init(database: db.Database, *args: Any, **kwargs: Any) -> None:
        opened(database, *args, **kwargs)
        database._write_lock = TracedGate(db.WRITES_IN_FLIGHT)
        roles[id(database._writer)] = "writer"
        roles[id(database._reader)] = "reader"

    _replace(db.Database, "__init__", traced_init)
    _trace_statements(roles)
    _trace_game_locks()


def _timed_service(call: Callable[..., Any]) -> Callable[..., Any]:
    async def timed(service: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await call(service, *args, **kwargs)
        finally:
            note("service", start, time.perf_counter())

    return timed


def _trace_statements(roles: dict[int, str]) -> None:
    """Every call into a database connection's thread: queued until its result is back."""
    import aiosqlite

    execute = aiosqlite.Connection._execute

    async def timed_execute(conn: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await execute(conn, fn, *args, **kwargs)  # type: ignore[no-untyped-call]
        finally:
            note("sql", start, time.perf_counter(), detail=roles.get(id(conn), "other"))

    _replace(aiosqlite.Connection, "_execute", timed_execute)


def _trace_game_locks() -> None:
    """The locks of each game (`LiveGames.lock`), of its telling (`Announcer.turn`) and of
    the rating of finished games (`Ratings.settle`)."""
    import types

    from host import rating
    from host.announce import announcer
    from host.play import live

    for module, label in ((live, "gamelock"), (announcer, "turn"), (rating, "ratings")):

        class Named(TracedLock):
            name = label

        module.asyncio = types.SimpleNamespace(  # type: ignore[attr-defined]
            **{**vars(asyncio), "Lock": Named}
        )


def _caller() -> str:
    """The first functions outside the database layer on the way to a write."""
    frame = sys._getframe(2)
    names: list[str] = []
    while frame is not None and len(names) < 3:
        file = frame.f_code.co_filename
        if "/data/" not in file and "contextlib" not in file and "asyncio" not in file:
            names.append(frame.f_code.co_name)
        frame = frame.f_back  # type: ignore[assignment]
    return "<".join(names) or "?"


class TracedLock(asyncio.Lock):
    """A lock noting how long each holder waited for it and held it (by default the
    database writer's)."""

    name = "write"

    async def acquire(self) -> Literal[True]:
        who = _caller()
        asked = time.perf_counter()
        got = await super().acquire()
        self._since = time.perf_counter()
        self._asked = asked
        self._who = who
        return got

    def release(self) -> None:
        note(self.name, self._asked, self._since, time.perf_counter(), detail=self._who)
        super().release()


class TracedGate(FairGate):
    """The database writer's gate, noting how long each holder waited for it and held
    it; it lets them in as the bot's own does (by turns among the servers, several
    single statements at once, a transaction alone)."""

    def __init__(self, room: int) -> None:
        super().__init__(room)
        self._noted: dict[asyncio.Task[Any] | None, tuple[str, float, float]] = {}

    async def acquire(self, *, whole: bool = False) -> None:
        who = _caller()
        asked = time.perf_counter()
        await super().acquire(whole=whole)
        self._noted[asyncio.current_task()] = (who, asked, time.perf_counter())

    def release(self) -> None:
        who, asked, since = self._noted.pop(asyncio.current_task(), ("?", 0.0, 0.0))
        note("write", asked, since, time.perf_counter(), detail=who)
        super().release()
