"""The listeners of a change feed (`ChangeFeed`), as both backends' feeds keep them."""

from __future__ import annotations

import logging
from collections.abc import Callable

from data.repository import ChangeListener

log = logging.getLogger(__name__)


class Listeners:
    """Listeners in the order they subscribed; each one is told every change, whatever
    the others do."""

    def __init__(self) -> None:
        self._listeners: dict[object, ChangeListener] = {}

    def __bool__(self) -> bool:
        return bool(self._listeners)

    def add(self, listener: ChangeListener) -> Callable[[], None]:
        """Add `listener` (the same function twice is told twice); returns the function
        that removes it again."""
        key = object()
        self._listeners[key] = listener

        def unsubscribe() -> None:
            self._listeners.pop(key, None)

        return unsubscribe

    def clear(self) -> None:
        self._listeners.clear()

    def tell(self, game_id: int | None) -> None:
        """Tell every listener of a change (None: of changes that may have been missed).
        One that raises is logged; one removed meanwhile, by another, is not told."""
        for key, listener in list(self._listeners.items()):
            if key not in self._listeners:
                continue
            try:
                listener(game_id)
            except Exception:
                log.exception("a listener of the change feed failed on game %s", game_id)
