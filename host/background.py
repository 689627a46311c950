"""Background work a person asks for (a hint, say) is limited to one of a kind under way
per person: pressing a button thirty times queues one search, not thirty, and the next
person's request is not queued behind them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from engine.text import Text
from host.model import ServiceError


class OnePerUser:
    """Who has work of one kind under way."""

    def __init__(self, busy: Callable[[], Text]) -> None:
        #: What a person with work of this kind already under way is told.
        self._busy = busy
        self._under_way: set[int] = set()

    @contextmanager
    def slot(self, user_id: int) -> Iterator[None]:
        """Hold `user_id`'s one slot while the work runs; refused while it is held."""
        if user_id in self._under_way:
            raise ServiceError(self._busy())
        self._under_way.add(user_id)
        try:
            yield
        finally:
            self._under_way.discard(user_id)
