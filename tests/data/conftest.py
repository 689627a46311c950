"""The console front-end on each backend's fresh database, as the season is played."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from data.storage import Storage
from host.console import Console
from host.console_input import bot_user
from host.daily import DailyService
from host.service import GameService


@asynccontextmanager
async def make_console(storage: Storage, out: Path) -> AsyncIterator[Console]:
    """The console front-end on `storage`, as `make run` builds it; its output is kept."""
    service = GameService(
        storage.games, bot_user=bot_user(), render_images=False, ratings=storage.ratings
    )
    daily = DailyService(service, storage.daily, secret="plans")
    try:
        yield Console(service, daily, storage.console, out, io.StringIO())
    finally:
        daily.close()
        service.close()


@pytest.fixture
async def console(storage: Storage, tmp_path: Path) -> AsyncIterator[Console]:
    async with make_console(storage, tmp_path / "out") as made:
        yield made
