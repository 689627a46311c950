"""The change feed of a PostgreSQL database: the changes every process commits.

The database's triggers (migration 0011) announce each committed change to a game on
the channel `hilltop_games`. A process that subscribes listens on one connection of its
own, outside the pool, opened on the first subscription (a process that never
subscribes opens none). When that connection is lost (the server restarted, the network
failed), the feed connects again, waiting a little longer after each failure, and tells
every listener that changes may have been missed.

A forgetting (`data.privacy`) also announces, on the same channel, each game whose people
it renamed (`FORGOTTEN`): its listeners hear the game changed, and the hooks of
`when_forgotten` drop what their process keeps of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import asyncpg

from data.feed import Listeners
from data.postgresql.db import CONNECT_TIMEOUT
from data.repository import ChangeListener, this_process

log = logging.getLogger(__name__)

#: The channel the triggers announce on.
CHANNEL = "hilltop_games"
#: The start of a notice on the channel that a forgetting renamed a game's people (the
#: game's id follows), told to the hooks of `when_forgotten`.
FORGOTTEN = "forgotten "
#: The application name of the listening connection (in pg_stat_activity).
APPLICATION = "hilltop changes"
#: Seconds to wait before connecting again after a loss: doubled after each failure,
#: up to the last.
FIRST_RETRY = 0.1
LAST_RETRY = 5.0
#: Seconds between checks that an idle listening connection still answers (a network
#: that drops a connection silently gives no other sign).
CHECK_EVERY = 30.0


class PgChangeFeed:
    """Listens on the database's channel of changes for as long as it has been
    subscribed to and is not closed."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._listeners = Listeners()
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        #: Told each game a forgetting renamed (`when_forgotten`).
        self._forgotten: list[Callable[[int | None], None]] = []

    def subscribe(self, listener: ChangeListener) -> Callable[[], None]:
        if self._closed:
            raise RuntimeError("the change feed is closed")
        unsubscribe = self._listeners.add(listener)
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._listen(), name="hilltop change feed"
            )
        return unsubscribe

    def when_forgotten(self, hook: Callable[[int | None], None]) -> None:
        self._forgotten.append(hook)

    async def close(self) -> None:
        self._closed = True
        self._listeners.clear()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _listen(self) -> None:
        """Keep one connection listening until the feed is closed."""
        loop = asyncio.get_running_loop()
        retry = FIRST_RETRY
        failures = 0
        while True:
            try:
                conn = await self._connect()
            except Exception as exc:  # whatever the cause, try again later
                failures += 1
                level = logging.WARNING if failures == 1 else logging.DEBUG
                log.log(level, "the change feed cannot listen (%s); trying again", exc)
                await asyncio.sleep(retry)
                retry = min(retry * 2, LAST_RETRY)
                continue
            if failures:
                log.info("the change feed listens again")
            failures = 0
            since = loop.time()
            try:
                # Whatever changed while nobody listened.
                self._tell_forgotten(None)
                self._listeners.tell(None)
                await _until_lost(conn)
            finally:
                conn.terminate()
            log.warning("the change feed lost its connection to the database")
            if loop.time() - since >= LAST_RETRY:
                retry = FIRST_RETRY  # it held: a new outage starts from the first wait
            await asyncio.sleep(retry)
            retry = min(retry * 2, LAST_RETRY)

    async def _connect(self) -> asyncpg.Connection:
        conn = await asyncpg.connect(
            self._url,
            timeout=CONNECT_TIMEOUT,
            server_settings={"application_name": f"{APPLICATION} {this_process()}"[:63]},
        )
        try:
            await conn.add_listener(CHANNEL, self._notified)
        except BaseException:
            conn.terminate()
            raise
        return conn

    def _notified(self, _conn: object, _pid: int, _channel: str, payload: object) -> None:
        text = str(payload)
        forgotten = text.startswith(FORGOTTEN)
        try:
            game_id = int(text.removeprefix(FORGOTTEN))
        except ValueError:
            log.warning("the change feed ignored %r: not a game's id", payload)
            return
        if forgotten:
            self._tell_forgotten(game_id)
        self._listeners.tell(game_id)

    def _tell_forgotten(self, game_id: int | None) -> None:
        for hook in list(self._forgotten):
            try:
                hook(game_id)
            except Exception:
                log.exception("dropping game %s after a forgetting failed", game_id)


async def _until_lost(conn: asyncpg.Connection) -> None:
    """Return once `conn` is closed or stops answering."""
    lost = asyncio.Event()
    conn.add_termination_listener(lambda _conn: lost.set())
    while not conn.is_closed():
        try:
            await asyncio.wait_for(lost.wait(), CHECK_EVERY)
        except TimeoutError:
            try:
                await conn.execute("SELECT 1", timeout=CONNECT_TIMEOUT)
            except Exception:
                return
        else:
            return
