"""Games served from memory: what a move, a look or an autocomplete costs the database,
and several processes sharing one database, on each backend."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from data.repository import GameRecord, GameRepository, MoveRecord
from data.storage import Storage, open_storage
from host.model import ServiceError
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOB, BOT, HERE
from tests.waiting import PATIENCE


class CountingRepository:
    """A backend's game repository, counting the reads and moves it is asked for; all
    else is passed on to it unchanged."""

    def __init__(self, storage: Storage) -> None:
        self.inner: GameRepository = storage.games
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def get_game(self, game_id: int) -> GameRecord | None:
        self.calls["read"] += 1
        return await self.inner.get_game(game_id)

    async def game_with_moves(self, game_id: int) -> tuple[GameRecord, list[MoveRecord]] | None:
        self.calls["read"] += 1
        return await self.inner.game_with_moves(game_id)

    async def live_game_in_channel(self, channel_id: int) -> GameRecord | None:
        self.calls["read"] += 1
        return await self.inner.live_game_in_channel(channel_id)

    async def moves(self, game_id: int) -> list[MoveRecord]:
        self.calls["read"] += 1
        return await self.inner.moves(game_id)

    async def append_move(self, *args: Any, **kwargs: Any) -> Any:
        self.calls["move"] += 1
        return await self.inner.append_move(*args, **kwargs)


def counting_service(storage: Storage) -> tuple[GameService, CountingRepository]:
    repo = CountingRepository(storage)
    return GameService(repo, bot_user=BOT, render_images=False), repo


async def start_hokito(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    await service.accept(HERE, BOB)


async def test_a_move_with_its_autocomplete_reads_nothing_and_writes_once(storage: Storage) -> None:
    service, repo = counting_service(storage)
    await start_hokito(service)
    repo.calls.clear()
    for user in (ALICE, BOB, ALICE):
        [first, *_] = await service.suggest_moves(HERE, user, "")
        await service.move(HERE, user, first.value)
    assert repo.calls == Counter(move=3)


async def test_moves_and_a_buttons_ply_check_read_nothing(storage: Storage) -> None:
    service, repo = counting_service(storage)
    await start_hokito(service)
    [board] = await service.board(HERE)
    repo.calls.clear()
    [listing] = await service.legal_moves(HERE, ALICE)
    assert "a1-b1" in listing.text
    [panel] = await service.press(HERE, ALICE, board.picks[0].payload)
    assert panel.picks
    assert repo.calls == Counter()


async def test_a_restarted_service_reads_a_game_once(storage: Storage) -> None:
    first, _ = counting_service(storage)
    await start_hokito(first)
    first.delivered(await first.move(HERE, ALICE, "a1-b1"))
    await first.announcer.cleared()  # the channel was told of the move before the restart
    restarted, repo = counting_service(storage)
    suggestions = await restarted.suggest_moves(HERE, BOB, "")
    assert suggestions
    await restarted.move(HERE, BOB, suggestions[0].value)
    # The channel's game, then the game with its log: nothing more, however many moves.
    assert repo.calls == Counter(read=2, move=1)


async def test_autocomplete_does_not_wait_for_a_move_in_progress(storage: Storage) -> None:
    service, _ = counting_service(storage)
    await start_hokito(service)
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None
    # A move is being committed and drawn, and holds the lock until the block ends: an
    # autocomplete that waited for it would never come.
    async with service.live.lock(record.id):
        suggestions = await asyncio.wait_for(service.suggest_moves(HERE, ALICE, "a1"), PATIENCE)
    starting = [s.label.startswith("a1") for s in suggestions]
    assert starting[0] and starting == sorted(starting, reverse=True)  # a1… first
    assert all("a1" in s.label for s in suggestions)


async def test_two_processes_on_one_database_take_turns(storage_target: str) -> None:
    db_a, db_b = await open_storage(storage_target), await open_storage(storage_target)
    try:
        one, _ = counting_service(db_a)
        other, _ = counting_service(db_b)
        await start_hokito(one)
        await one.move(HERE, ALICE, "a1-b1")
        # The other process serves Bob's move; the first one still remembers Bob to move.
        [bob_move, *_] = [s.label.split(": ")[0] for s in await other.suggest_moves(HERE, BOB, "")]
        await other.move(HERE, BOB, bob_move)
        # Alice's next move reaches the first process: its memory is out of date, so the
        # move is judged again on the stored game and played, not refused.
        [alice_move, *_] = [
            s.label.split(": ")[0] for s in await other.suggest_moves(HERE, ALICE, "")
        ]
        [reply] = await one.move(HERE, ALICE, alice_move)
        assert reply.title.endswith("move 3")
        # Bob's old move sent again to the first process is refused: it is Bob's turn now,
        # but that move was already made and the board has changed.
        record = await one.repository.live_game_in_channel(HERE.channel_id)
        assert record is not None and record.ply == 3
        moves = [m.text for m in await one.repository.moves(record.id)]
        assert moves == ["a1-b1", bob_move, alice_move]
        with pytest.raises(ServiceError, match="not your turn"):
            await other.move(HERE, ALICE, alice_move)
        stored = await other.repository.live_game_in_channel(HERE.channel_id)
        assert stored is not None and stored.ply == 3
    finally:
        await db_a.close()
        await db_b.close()


async def test_games_that_ended_keep_no_lock_in_memory(storage: Storage) -> None:
    service = GameService(storage.games, bot_user=BOT, render_images=False)
    for seed in range(1, 21):
        await service.start(HERE, ALICE, GameSetup("hokito", seed=seed), [BOB])
        await service.accept(HERE, BOB)
        await service.resign(HERE, BOB, confirmed=True)
    # Each game's lock lived while it was used: a bot that ran for a year of games
    # holds none of those that ended.
    assert len(service.live._locks) == 0
    held = service.live.lock(99)
    async with held:
        assert service.live.lock(99) is held  # one lock per game while it is in use
        assert service.live.lock(99).locked()
