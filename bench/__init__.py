"""Benchmarks that print figures (`make bench`); not tests, never run in CI."""
