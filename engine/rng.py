"""A small deterministic generator whose whole state is two integers.

Games keep an `Rng` inside their state, so replaying a seed and a move log reproduces
every die and shuffle exactly, on any Python version (the mixing is plain 64-bit integer
arithmetic, SplitMix64). The generator is an immutable value: drawing returns the value
and the next generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1


def mix64(value: int) -> int:
    """SplitMix64's finaliser: a bijection on 64-bit integers with good avalanche."""
    z = (value + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def hash64(seed: int, *keys: int) -> int:
    """A pure 64-bit function of a seed and integer keys (for "row r of seed s" lookups)."""
    h = mix64(seed & _MASK)
    for key in keys:
        h = mix64(h ^ (key & _MASK))
    return h


def seed_from_text(text: str) -> int:
    """A 63-bit seed from any text (dates, secrets), stable across processes and versions."""
    h = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & _MASK
    return mix64(h) >> 1


@dataclass(frozen=True, slots=True)
class Rng:
    """Draw number `counter` of the stream named by `seed`."""

    seed: int
    counter: int = 0

    def next64(self) -> tuple[int, Rng]:
        return hash64(self.seed, self.counter), Rng(self.seed, self.counter + 1)

    def below(self, n: int) -> tuple[int, Rng]:
        """A uniform integer in [0, n), without modulo bias."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        limit = (1 << 64) - ((1 << 64) % n)
        rng = self
        while True:
            value, rng = rng.next64()
            if value < limit:
                return value % n, rng

    def die(self, sides: int = 6) -> tuple[int, Rng]:
        value, rng = self.below(sides)
        return value + 1, rng

    def shuffled(self, items: Sequence[T]) -> tuple[tuple[T, ...], Rng]:
        """A uniformly shuffled copy (Fisher-Yates)."""
        out = list(items)
        rng = self
        for i in range(len(out) - 1, 0, -1):
            j, rng = rng.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return tuple(out), rng

    def choice(self, items: Sequence[T]) -> tuple[T, Rng]:
        index, rng = self.below(len(items))
        return items[index], rng
