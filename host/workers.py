"""Worker processes for work too heavy for the event loop: drawing boards, computer
players, the daily par search.

Every pool is spawned, not forked (a fork of this threaded process could inherit a held
lock), and every worker leaves as soon as the bot process is gone, however it ended:
a worker blocked on its task pipe would otherwise live on, holding the bot's output.
Background work (a computer's search, par) runs at a lower priority, so that on a small
machine it takes only the time the bot's replies leave over.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import wait

#: Added to a background worker's nice value: the scheduler favours the bot's replies.
BACKGROUND_NICENESS = 10


def worker_pool(
    workers: int,
    *,
    background: bool = False,
    warm: Callable[[], None] | None = None,
) -> ProcessPoolExecutor:
    """A pool of `workers` spawned processes that exit with this one. `warm` runs once in
    each worker as it starts (imports, caches)."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(background, warm),
    )


def _start_worker(background: bool, warm: Callable[[], None] | None) -> None:
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(
            target=_exit_with, args=(parent.sentinel,), name="exit-with-parent", daemon=True
        ).start()
    if background:
        os.nice(BACKGROUND_NICENESS)
    if warm is not None:
        warm()


def _exit_with(sentinel: int) -> None:
    """Wait for the parent process to end, then end this one at once."""
    wait([sentinel])
    os._exit(0)
