"""Benchmarks that print figures (`make bench`), not tests with time limits; the tests only
check that `python -m bench --quick` runs and prints every figure."""
