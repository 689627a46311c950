"""The schema's numbered migrations, for every backend, in one place.

Each step of the schema is a number and a name, written once per backend beside each
other: `0004_one_statement_moves.sqlite.sql` and `0004_one_statement_moves.postgresql.sql`
make the same change in each database's own SQL. Both backends have every step, numbered
1..n without gaps, so a schema version means the same tables in either database.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Literal

Backend = Literal["sqlite", "postgresql"]
BACKENDS: tuple[Backend, ...] = ("sqlite", "postgresql")
_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.(sqlite|postgresql)\.sql$")


def migrations(backend: Backend) -> list[tuple[int, str, str]]:
    """(version, file name, SQL) of every migration of `backend`, in order."""
    found = []
    for entry in resources.files(__name__).iterdir():
        match = _NAME.match(entry.name)
        if match and match.group(3) == backend:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(
            f"{backend} migrations must be numbered 1..n without gaps, found {versions}"
        )
    return found


def steps(backend: Backend) -> list[tuple[int, str]]:
    """(version, name) of each step of `backend`, to check that the backends agree."""
    return [
        (version, _NAME.match(name).group(2))  # type: ignore[union-attr]
        for version, name, _ in migrations(backend)
    ]
