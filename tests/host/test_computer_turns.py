"""Computer players think in the background: a reply never waits long for them, what they
play later is posted, and their thinking never locks the people of the game out."""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from typing import Any

import pytest

from data.storage import Storage
from engine import ai
from engine.core import GameState
from host.model import Channel, Reply, ServiceError
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOB, BOT, HERE
from tests.waiting import PATIENCE, until

#: How the bot, playing White at the default level, is named in replies.
WHITE_COMPUTER = "hilltop (White, normal computer)"


class HeldComputers:
    """Computer players that think until the test lets them answer."""

    def __init__(self) -> None:
        self.thinking = 0
        self.answer = asyncio.Event()

    async def choose(self, state: GameState[Any], seat: int, level: str) -> Hashable:
        self.thinking += 1
        await self.answer.wait()
        return ai.choose_move(state, seat, "random")

    def close(self) -> None:
        return None


class Posts:
    def __init__(self) -> None:
        self.replies: list[tuple[Channel, Reply]] = []
        self.arrived = asyncio.Event()

    async def __call__(self, place: Channel, replies: list[Reply]) -> None:
        self.replies += [(place, r) for r in replies]
        self.arrived.set()


def background_service(storage: Storage, computers: Any, wait: float) -> tuple[GameService, Posts]:
    posts = Posts()
    service = GameService(
        storage.games,
        bot_user=BOT,
        render_images=False,
        computers=computers,
        computer_wait=wait,
        post=posts,
    )
    return service, posts


async def test_a_slow_computer_answer_is_posted_and_pings_the_player(storage: Storage) -> None:
    computers = HeldComputers()
    service, posts = background_service(storage, computers, wait=0.05)
    await service.start(HERE, ALICE, GameSetup("hokito", seed=3, seat="first"), [BOT])
    [first, *_] = await service.suggest_moves(HERE, ALICE, "")
    # The computer answers only when let: a reply that waited for it would never come.
    [reply] = await asyncio.wait_for(service.move(HERE, ALICE, first.value), PATIENCE)
    assert "alice played" in reply.text and f"{WHITE_COMPUTER} is thinking…" in reply.text
    assert reply.mentions == ()
    assert posts.replies == []
    computers.answer.set()
    await asyncio.wait_for(posts.arrived.wait(), PATIENCE)
    [(place, post)] = posts.replies
    assert place.channel_id == HERE.channel_id
    assert f"{WHITE_COMPUTER} played" in post.text and "alice (Black) to move" in post.text
    assert [u.name for u in post.mentions] == ["alice"]
    assert post.title.endswith("move 2")


async def test_a_quick_computer_answer_joins_the_reply_and_nothing_is_posted(
    storage: Storage,
) -> None:
    computers = HeldComputers()
    computers.answer.set()
    # It answers at once: a reply waiting this long for it only waits for the machine.
    service, posts = background_service(storage, computers, wait=PATIENCE)
    await service.start(HERE, ALICE, GameSetup("hokito", seed=3, seat="first"), [BOT])
    [first, *_] = await service.suggest_moves(HERE, ALICE, "")
    [reply] = await service.move(HERE, ALICE, first.value)
    assert "hilltop (White, normal computer) played" in reply.text
    assert reply.title.endswith("move 2")
    # Whatever the computers set going in the background has ended, and posted nothing.
    background = service.computers._background
    await until(lambda: not background, "the background work to end", seen=lambda: background)
    assert posts.replies == []


async def test_people_plan_and_look_while_computers_think(storage: Storage) -> None:
    computers = HeldComputers()
    service, posts = background_service(storage, computers, wait=0.05)
    [started] = await service.start(HERE, ALICE, GameSetup("everest", computers=3, seed=11))
    assert "are thinking…" in started.text
    # The three computer yeti are deciding, until let; the board and alice's plan do not
    # wait for them (or they would never come).
    [board] = await asyncio.wait_for(service.board(HERE), PATIENCE)
    assert "alice" in board.text
    [plan, *_] = await service.suggest_moves(HERE, ALICE, "")
    [mine] = await asyncio.wait_for(service.move(HERE, ALICE, plan.value), PATIENCE)
    assert mine.ephemeral and "alice has made their choice" in mine.text
    computers.answer.set()
    await asyncio.wait_for(posts.arrived.wait(), PATIENCE)
    # The last plan came from a computer: the round was played out in the background
    # and posted, every plan revealed, asking alice for her next plan.
    text = "\n".join(p.text for _, p in posts.replies)
    plans = text.split("Round 1. Plans: ")[1].splitlines()[0]
    assert plans.startswith("alice (Red): ")
    assert all(f"hilltop {n} (" in plans for n in (1, 2, 3))
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.ply >= 4


class CountedComputers:
    """Computer players that answer only as many times as the test allows."""

    def __init__(self) -> None:
        self.allowed = asyncio.Semaphore(0)

    def allow(self, answers: int) -> None:
        for _ in range(answers):
            self.allowed.release()

    async def choose(self, state: GameState[Any], seat: int, level: str) -> Hashable:
        await self.allowed.acquire()
        return ai.choose_move(state, seat, "random")

    def close(self) -> None:
        return None


async def test_a_round_a_computer_sets_off_is_posted_before_the_computers_go_on(
    storage: Storage,
) -> None:
    computers = CountedComputers()
    service, posts = background_service(storage, computers, wait=0.05)
    setup = GameSetup("everest", computers=2, seed=11, seat="first")
    await service.start(HERE, ALICE, setup, [BOB])
    await service.accept(HERE, BOB)
    for person in (ALICE, BOB):
        [plan, *_] = await service.suggest_moves(HERE, person, "")
        [mine] = await service.move(HERE, person, plan.value)
        assert "are thinking…" in mine.text
    # The two computers plan; the second plan sets the round off. The round is told at
    # once, though the computers have more to decide that they are not yet allowed to.
    computers.allow(2)
    await asyncio.wait_for(posts.arrived.wait(), PATIENCE)
    [(_, post)] = posts.replies
    assert "Plans revealed." in post.text and "Round 1 · step" not in post.text
    assert {u.name for u in post.mentions} == {"alice", "bob"}
    loaded = await service.live.in_channel(HERE)
    computer_seats = {2, 3}
    assert loaded.state.to_act & computer_seats  # they still have a decision to make...
    # ... and make it without anybody's command: they were started again after the post.
    posts.arrived.clear()
    computers.allow(1000)

    async def decided() -> bool:
        nonlocal loaded
        loaded = await service.live.in_channel(HERE)
        return not loaded.state.to_act & computer_seats

    await until(decided, "the computers' decision", seen=lambda: loaded.state.to_act)


@pytest.mark.parametrize("level", ["insane", "random", "greedy"])
async def test_an_unknown_level_is_refused_offering_the_documented_ones(
    service: GameService, level: str
) -> None:
    with pytest.raises(ServiceError) as refused:
        await service.start(HERE, ALICE, GameSetup("everest", computers=1, level=level))
    assert str(refused.value.text) == f"Unknown level {level!r}; levels: easy, normal, hard."
