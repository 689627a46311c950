"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import asyncio
import math
import os
import signal
import statistics
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any


def percentiles(samples_ms: list[float]) -> tuple[float, float, float]:
    """p50, p95 and p99 of `samples_ms`."""
    ordered = sorted(samples_ms)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive")
    return statistics.median(ordered), cuts[94], cuts[98]


def quantile(samples: Sequence[float], q: float) -> float:
    """The `q` quantile (0-1) of `samples` by linear interpolation; NaN when empty."""
    if not samples:
        return math.nan
    ordered = sorted(samples)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def ms(seconds: float) -> str:
    """Seconds as milliseconds for a table cell; "n/a" for no data."""
    if math.isnan(seconds):
        return "n/a"
    return f"{seconds * 1000:,.0f} ms" if seconds >= 0.1 else f"{seconds * 1000:.1f} ms"


def time_calls(fn: Callable[[], object], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def cores() -> str:
    """The cores this process may run on, for the conditions of a figure."""
    return f"{len(os.sched_getaffinity(0))} cores"


def row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def run_table(
    header: Sequence[str], measuring: Callable[[Callable[[str], None]], Coroutine[Any, Any, None]]
) -> None:
    """Print a benchmark's table as it is measured: its header, then each row as
    `measuring(emit)` finds it (a plain SIGTERM would skip the exit handlers that stop
    the bot's process: it ends the run as an exit does)."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    for line in header:
        print(line, flush=True)

    def emit(line: str) -> None:
        print(line, flush=True)

    asyncio.run(measuring(emit))
