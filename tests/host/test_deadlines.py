"""Deadlines: a decision not made in time gets the game's documented default."""

from __future__ import annotations

import pytest

from data.db import Database
from data.games import SqliteGameRepository
from host.model import ServiceError
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOB, BOT, HERE


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_a_missing_secret_plan_is_dazed_when_the_deadline_passes(db: Database) -> None:
    clock = Clock()
    service = GameService(SqliteGameRepository(db), bot_user=BOT, clock=clock, render_images=False)
    await service.start(HERE, ALICE, GameSetup("everest", seed=3, deadline_minutes=10), [BOB])
    await service.accept(HERE, BOB)
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.deadline_at == clock.now + 600
    [after] = await service.move(HERE, ALICE, "4E 2N sAE")
    assert "alice has made their choice." in after.text
    assert "4E" not in after.text  # the plan stays secret
    clock.now += 300
    assert await service.expire_due() == []  # not yet
    clock.now += 301
    [(place, [board])] = await service.expire_due()
    assert place.channel_id == HERE.channel_id
    # The last plan reveals them all, so the default may be named.
    assert "bob (Blue) ran out of time: dazed." in board.text
    moves = await service.repository.moves(record.id)
    assert [(m.seat, m.text) for m in moves] == [(0, "4E 2N sAE"), (1, "dazed")]
    assert await service.expire_due() == []


async def test_deadline_option_is_checked(service: GameService) -> None:
    with pytest.raises(ServiceError, match="deadline:"):
        await service.start(HERE, ALICE, GameSetup("everest", deadline_minutes=0), [BOB])


async def test_games_without_defaults_have_no_deadline(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1), [BOB])
    await service.accept(HERE, BOB)
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.deadline_at is None


async def test_defaults_for_several_seats_keep_plans_secret(db: Database) -> None:
    clock = Clock()
    service = GameService(SqliteGameRepository(db), bot_user=BOT, clock=clock, render_images=False)
    await service.start(HERE, ALICE, GameSetup("everest", seed=4, deadline_minutes=1), [BOB])
    await service.accept(HERE, BOB)
    clock.now += 61
    [(_, [board])] = await service.expire_due()
    assert "alice (Red) ran out of time: the default choice." in board.text
    assert "bob (Blue) ran out of time: dazed." in board.text
