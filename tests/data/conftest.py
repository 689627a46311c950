"""The console front-end on each backend's fresh database, as the season is played."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from console.front import Console, console_front
from data.storage import Storage
from tests.houses import house_of


@asynccontextmanager
async def make_console(storage: Storage, out: Path) -> AsyncIterator[Console]:
    """The console front-end on `storage`, as `make run` builds it; its output is kept."""
    house = house_of(storage, front=console_front())
    try:
        yield Console(house, out, io.StringIO())
    finally:
        house.close()


@pytest.fixture
async def console(storage: Storage, tmp_path: Path) -> AsyncIterator[Console]:
    async with make_console(storage, tmp_path / "out") as made:
        yield made
