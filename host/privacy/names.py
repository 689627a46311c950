"""The name a former player is shown by. Their users row keeps no name (a forgotten person
leaves none), and the words for them are chosen as they are read, in the reader's
language."""

from __future__ import annotations

from engine.text import t


def shown_name(name: str) -> str:
    """`name`, or "a former player" in the reader's language for the seat of someone
    forgotten (stored without a name; no one else may have an empty name)."""
    return name if name else str(t("a former player"))
