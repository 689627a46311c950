"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def percentiles(samples_ms: list[float]) -> tuple[float, float, float]:
    """p50, p95 and p99 of `samples_ms`."""
    ordered = sorted(samples_ms)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive")
    return statistics.median(ordered), cuts[94], cuts[98]


def time_calls(fn: Callable[[], object], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def row(name: str, value: str, target: str = "") -> str:
    return f"| {name} | {value} | {target} |"
