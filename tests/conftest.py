"""Test-wide settings."""

from __future__ import annotations

from hypothesis import settings

# Every hosted game, registered for the engine's index too (tests iterate over them).
import host.catalog  # noqa: F401

# Machines here are shared and noisy: Hypothesis checks properties, not speed.
settings.register_profile("hilltop", deadline=None, print_blob=True)
settings.load_profile("hilltop")
