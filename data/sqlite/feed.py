"""The change feed of an SQLite database: its one process's own committed writes.

SQLite serves one bot process, whose writes all go through its one writer connection.
That connection alone carries triggers of its own (TEMP triggers, outside the file's
schema, so that no other connection to the file needs the function they call): each
change a viewer sees notes its game's id as the statement runs, and the writer tells
the feed's listeners once the statement or transaction has committed, or forgets the
ids if it rolled back. The PostgreSQL database's triggers (migration 0011) announce the
same changes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

from data.feed import Listeners
from data.repository import ChangeListener

#: The function the triggers call with a changed game's id.
NOTE_FUNCTION = "hilltop_game_changed"

#: A new game; a change of what a viewer sees in a game (not a reminder, the board's
#: message or the rating's mark); a seat taken by someone else, or accepted.
TRIGGERS = f"""
CREATE TEMP TRIGGER games_announce_new AFTER INSERT ON main.games
BEGIN SELECT {NOTE_FUNCTION}(NEW.id); END;

CREATE TEMP TRIGGER games_announce_change AFTER UPDATE OF ply, status, snapshot, options,
    result, updated_at, finished_at, deadline_at, deadline_from, expired_at ON main.games
WHEN NEW.ply IS NOT OLD.ply OR NEW.status IS NOT OLD.status
    OR NEW.snapshot IS NOT OLD.snapshot OR NEW.options IS NOT OLD.options
    OR NEW.result IS NOT OLD.result OR NEW.updated_at IS NOT OLD.updated_at
    OR NEW.finished_at IS NOT OLD.finished_at OR NEW.deadline_at IS NOT OLD.deadline_at
    OR NEW.deadline_from IS NOT OLD.deadline_from OR NEW.expired_at IS NOT OLD.expired_at
BEGIN SELECT {NOTE_FUNCTION}(NEW.id); END;

CREATE TEMP TRIGGER seats_announce_change AFTER UPDATE OF user_id, is_bot, accepted
    ON main.seats
WHEN NEW.user_id IS NOT OLD.user_id OR NEW.is_bot IS NOT OLD.is_bot
    OR NEW.accepted IS NOT OLD.accepted
BEGIN SELECT {NOTE_FUNCTION}(NEW.game_id); END;
"""


class SqliteChangeFeed:
    """The games changed by this process's committed writes, told to its listeners."""

    def __init__(self) -> None:
        self._listeners = Listeners()
        #: Games changed by the statement or transaction running now in the writer's
        #: thread, in order, once each; only that thread touches it.
        self._noted: dict[int, None] = {}

    def subscribe(self, listener: ChangeListener) -> Callable[[], None]:
        return self._listeners.add(listener)

    def when_forgotten(self, hook: Callable[[int | None], None]) -> None:
        """One process: the forgetting process drops its own copies of the games."""

    async def close(self) -> None:
        self._listeners.clear()

    def note(self, game_id: int) -> None:
        """A trigger's call, in the writer's thread, as its statement runs."""
        self._noted[game_id] = None

    def take(self) -> list[int]:
        """The games noted since last taken, in the writer's thread, as the statement or
        transaction that changed them ends (committed, or undone: then dropped)."""
        changed, self._noted = list(self._noted), {}
        return changed

    def committed(self, changed: list[int]) -> None:
        """The games `changed` by what was committed: tell the listeners, each in its own
        turn of the event loop, after the writer's caller has its answer."""
        if changed and self._listeners:
            _tell_soon(self._listeners, changed)


def _tell_soon(listeners: Listeners, changed: Iterable[int]) -> None:
    loop = asyncio.get_running_loop()
    for game_id in changed:
        loop.call_soon(listeners.tell, game_id)
