"""Computer players think in the background: a reply never waits long for them, what they
play later is posted, and their thinking never locks the people of the game out."""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from typing import Any

from data.db import Database
from data.games import SqliteGameRepository
from engine import ai
from engine.core import GameState
from host.model import Channel, Reply
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import ALICE, BOT, HERE

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


def background_service(db: Database, computers: Any, wait: float) -> tuple[GameService, Posts]:
    service = GameService(
        SqliteGameRepository(db),
        bot_user=BOT,
        render_images=False,
        computers=computers,
        computer_wait=wait,
    )
    posts = Posts()
    service.post = posts
    return service, posts


async def test_a_slow_computer_answer_is_posted_and_pings_the_player(db: Database) -> None:
    computers = HeldComputers()
    service, posts = background_service(db, computers, wait=0.05)
    await service.start(HERE, ALICE, GameSetup("hokito", seed=3, seat="first"), [BOT])
    [first, *_] = await service.suggest_moves(HERE, ALICE, "")
    [reply] = await asyncio.wait_for(service.move(HERE, ALICE, first.value), 5)
    assert "alice played" in reply.text and f"{WHITE_COMPUTER} is thinking…" in reply.text
    assert reply.mentions == ()
    assert posts.replies == []
    computers.answer.set()
    await asyncio.wait_for(posts.arrived.wait(), 5)
    [(place, post)] = posts.replies
    assert place.channel_id == HERE.channel_id
    assert f"{WHITE_COMPUTER} played" in post.text and "alice (Black) to move" in post.text
    assert [u.name for u in post.mentions] == ["alice"]
    assert post.title.endswith("ply 2")


async def test_a_quick_computer_answer_joins_the_reply_and_nothing_is_posted(
    db: Database,
) -> None:
    computers = HeldComputers()
    computers.answer.set()
    service, posts = background_service(db, computers, wait=5)
    await service.start(HERE, ALICE, GameSetup("hokito", seed=3, seat="first"), [BOT])
    [first, *_] = await service.suggest_moves(HERE, ALICE, "")
    [reply] = await service.move(HERE, ALICE, first.value)
    assert "hilltop (White, normal computer) played" in reply.text and reply.title.endswith("ply 2")
    await asyncio.sleep(0.05)
    assert posts.replies == []


async def test_people_plan_and_look_while_computers_think(db: Database) -> None:
    computers = HeldComputers()
    service, posts = background_service(db, computers, wait=0.05)
    [started] = await service.start(HERE, ALICE, GameSetup("everest", computers=3, seed=11))
    assert "are thinking…" in started.text
    # The three computer yeti are deciding; the board and alice's plan do not wait.
    [board] = await asyncio.wait_for(service.board(HERE), 1)
    assert "alice" in board.text
    [plan, *_] = await service.suggest_moves(HERE, ALICE, "")
    [mine] = await asyncio.wait_for(service.move(HERE, ALICE, plan.value), 1)
    assert "alice has made their choice" in mine.text
    computers.answer.set()
    await asyncio.wait_for(posts.arrived.wait(), 10)
    # The last plan came from a computer: the round was played out in the background
    # and its board posted, asking alice for her next plan.
    text = "\n".join(p.text for _, p in posts.replies)
    assert "has made their choice" in text
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.ply >= 4
