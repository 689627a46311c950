"""Test-wide settings."""

from __future__ import annotations

from hypothesis import settings

# Machines here are shared and noisy: Hypothesis checks properties, not speed.
settings.register_profile("hilltop", deadline=None, print_blob=True)
settings.load_profile("hilltop")
