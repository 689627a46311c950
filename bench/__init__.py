"""Benchmarks that print figures (`make bench`), not tests with time limits; the tests only
check that `python -m bench --smoke` runs and prints every figure."""

# Every hosted game, registered for the engine's index too (benchmarks iterate over them).
import host.catalog  # noqa: F401
