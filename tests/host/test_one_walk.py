"""Every change of a game takes one walk: committed, then announced. Moves made on a page
and by a command are told in the channel once and in order; a crash between a commit
and its post tells the move after the restart; every ending runs the finish hooks once."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from data.storage import Storage
from host.face import (
    FrontEnd,
    GameService,
    House,
    Payload,
    Reply,
    ServerChange,
    ServiceError,
    Visitor,
    Where,
    t,
)
from host.payloads import Action
from host.play.live import Loaded
from host.setup import GameSetup
from tests.host.conftest import ADMIN, ALICE, BOB, CAROL, HERE
from tests.houses import BOT, house_of
from tests.waiting import until

ALICE_SIGNED_IN = Visitor(ALICE.id, ALICE.name, frozenset({HERE.guild_id or 0}))


class Posts:
    """What a process posted in the channels, outside any command."""

    def __init__(self) -> None:
        self.made: list[tuple[Where, list[Reply]]] = []

    async def __call__(self, where: Where, replies: list[Reply]) -> None:
        self.made.append((where, replies))

    @property
    def texts(self) -> list[str]:
        return [reply.text for _, replies in self.made for reply in replies]


@pytest.fixture
async def house(storage: Storage) -> AsyncIterator[House]:
    built = house_of(storage)
    try:
        await built.service.server_settings(HERE, ADMIN, ServerChange(web="public", name="Hill"))
        yield built
    finally:
        built.close()


async def hokito(house: House, *, told: bool = True) -> int:
    [challenge] = await house.service.start(
        HERE, ALICE, GameSetup("hokito", seed=5, seat="first", deadline_minutes=60), [BOB]
    )
    started = await house.service.accept(HERE, BOB)
    if told:
        house.service.delivered(started)
    assert challenge.game_id is not None
    return challenge.game_id


async def test_a_command_after_an_untold_page_move_tells_both_once_in_order(
    house: House, storage: Storage
) -> None:
    game = await hokito(house)
    # Alice moves on the page; nobody has told the channel yet (no process posts here).
    await house.pages.play_move(game, ALICE_SIGNED_IN, 0, ("b2", "b1"))
    answer = (await house.service.loaded(game)).state.move_texts(1)[0]
    [board] = await house.service.move(HERE, BOB, answer)
    text = board.text
    assert text.count("alice played b2-b1") == 1 and text.count(f"bob played {answer}") == 1
    assert text.index("alice played b2-b1") < text.index(f"bob played {answer}")
    assert board.told_to == 2
    posts = Posts()
    # Told in that reply: neither the change feed's telling nor the sweep tells it again.
    assert await house.service.tell_untold(posts, game) == 0
    assert await house.service.tell_untold(posts) == 0
    assert posts.made == []
    house.service.delivered([board])
    await house.service.announcer.cleared()
    assert await storage.games.untold(game) is None


async def test_a_crash_between_the_commit_and_the_post_tells_the_move_after_restart(
    storage: Storage,
) -> None:
    first = house_of(storage)
    try:
        game = await hokito(first)
        # The reply is made, but the process ends before it is posted.
        await first.service.move(HERE, ALICE, "b2-b1")
    finally:
        first.close()
    restarted = house_of(storage)
    try:
        posts = Posts()
        assert await restarted.service.tell_untold(posts) == 1
        [(_, [board])] = posts.made
        assert "alice played b2-b1" in board.text
        assert [u.id for u in board.mentions] == [BOB.id]
        assert await restarted.service.tell_untold(posts) == 0
        await restarted.service.announcer.cleared()
        assert await storage.games.untold(game) is None
    finally:
        restarted.close()


async def test_a_move_posted_before_a_restart_is_not_told_again(storage: Storage) -> None:
    first = house_of(storage)
    try:
        await hokito(first)
        first.service.delivered(await first.service.move(HERE, ALICE, "b2-b1"))
        await first.service.announcer.cleared()
    finally:
        first.close()
    restarted = house_of(storage)
    try:
        posts = Posts()
        assert await restarted.service.tell_untold(posts) == 0
        assert posts.made == []
    finally:
        restarted.close()


async def test_moves_on_the_page_and_by_command_are_each_told_once_in_ply_order(
    house: House,
) -> None:
    game = await hokito(house)
    posts = Posts()
    told: list[str] = []
    # Alternately on the page (told by the sweep) and by command (told in its reply).
    for ply in range(6):
        user = ALICE if ply % 2 == 0 else BOB
        if ply % 3 == 0:
            visitor = Visitor(user.id, user.name, frozenset({HERE.guild_id or 0}))
            tokens = await built_move(house, game, visitor, ply)
            await house.pages.play_move(game, visitor, ply, tokens)
            before = len(posts.made)
            await house.service.tell_untold(posts)
            told += posts.texts[before:]
        else:
            move = (await house.service.loaded(game)).state.move_texts(ply % 2)[0]
            replies = await house.service.move(HERE, user, move)
            house.service.delivered(replies)
            told += [r.text for r in replies]
    moves = [line for text in told for line in text.splitlines() if " played " in line]
    assert [line.split(" played ")[0] for line in moves] == ["alice", "bob"] * 3, moves


async def built_move(house: House, game: int, visitor: Visitor, ply: int) -> tuple[str, ...]:
    """A move built on the page as a player clicks it: the first choice at each step."""
    tokens: tuple[str, ...] = ()
    while True:
        panel = await house.pages.panel(game, visitor, ply, tokens)
        if panel.confirm is not None and not panel.choices:
            return tokens
        tokens = panel.choices[0].step
        if panel.plays_at_once or (await house.pages.panel(game, visitor, ply, tokens)).confirm:
            return tokens


class Clock:
    """A clock the test moves on."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class Posting:
    """The service as a front-end uses it: every reply is posted, and said to be."""

    def __init__(self, service: GameService) -> None:
        self.service = service

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        method = getattr(self.service, name)

        async def posted(*args: Any, **kwargs: Any) -> Any:
            answer = await method(*args, **kwargs)
            for item in answer if isinstance(answer, list) else []:
                self.service.delivered(item[1] if isinstance(item, tuple) else [item])
            return answer

        return posted


Ending = Callable[[Any, int, Clock], Awaitable[None]]


async def by_the_rules(service: Any, game: int, clock: Clock) -> None:
    # Hillbert alone in the channel, once the duel there is given up.
    await service.resign(HERE, BOB, confirmed=True)
    await service.start(HERE, ALICE, GameSetup("hillbert", seed=4))
    for _ in range(500):
        loaded = await service.loaded(game + 1)
        if not loaded.record.is_live:
            return
        await service.move(HERE, ALICE, loaded.state.move_texts(0)[0])
    raise AssertionError("the hill was never descended")


async def resigned(service: Any, game: int, clock: Clock) -> None:
    await service.move(HERE, ALICE, "b2-b1")
    await service.resign(HERE, BOB, confirmed=True)


async def ended_by_an_admin(service: Any, game: int, clock: Clock) -> None:
    await service.move(HERE, ALICE, "b2-b1")
    await service.admin_end(HERE, ADMIN)


async def aborted(service: Any, game: int, clock: Clock) -> None:
    await service.admin_end(HERE, ADMIN)


async def agreed(service: Any, game: int, clock: Clock) -> None:
    await service.move(HERE, ALICE, "b2-b1")
    [offer] = await service.draw(HERE, ALICE)
    await service.press(HERE, BOB, offer.actions[0].payload)


async def claimed(service: Any, game: int, clock: Clock) -> None:
    await service.move(HERE, ALICE, "b2-b1")
    # Bob lets his time run out; Hokito has no default move, so alice may claim the win.
    clock.now += 2 * 24 * 3600
    await service.expire_due()
    await service.press(HERE, ALICE, Payload(Action.CLAIM, game, 1))


ENDINGS: dict[str, Ending] = {
    "by the rules": by_the_rules,
    "resigned": resigned,
    "ended by an admin": ended_by_an_admin,
    "aborted": aborted,
    "agreed": agreed,
    "claimed": claimed,
}


@pytest.mark.parametrize("how", sorted(ENDINGS))
async def test_every_ending_runs_the_finish_hooks_once(storage: Storage, how: str) -> None:
    ended: list[int] = []

    async def hook(loaded: Loaded) -> list[Reply]:
        ended.append(loaded.id)
        return []

    clock = Clock()
    first = house_of(storage, clock=clock)
    try:
        first.service.finish_hooks.append(hook)
        game = await hokito(first)
        await ENDINGS[how](Posting(first.service), game, clock)
        await first.service.announcer.cleared()
        assert len(ended) == len(set(ended)) and ended, ended
        for finished in ended:
            record = await storage.games.get_game(finished)
            assert record is not None and not record.is_live
        # Neither the change feed's telling nor the sweep runs them again.
        posts = Posts()
        for finished in ended:
            await first.service.tell_untold(posts, finished)
        await first.service.tell_untold(posts)
        assert len(ended) == len(set(ended))
    finally:
        first.close()
    # Nor does a restart, whose sweep tells the ends nobody posted.
    again = house_of(storage, clock=clock)
    try:
        again.service.finish_hooks.append(hook)
        await again.service.tell_untold(Posts())
        assert len(ended) == len(set(ended)), ended
    finally:
        again.close()


async def test_a_game_of_three_ended_by_the_last_person_resigning_runs_the_hooks_once(
    storage: Storage,
) -> None:
    ended: list[int] = []

    async def hook(loaded: Loaded) -> list[Reply]:
        ended.append(loaded.id)
        return []

    house = house_of(storage)
    try:
        house.service.finish_hooks.append(hook)
        setup = GameSetup("everest", seed=3, seat="first", computers=2)
        await house.service.start(HERE, CAROL, setup)
        await house.service.resign(HERE, CAROL, confirmed=True)
        assert len(ended) == 1
    finally:
        house.close()


async def test_plans_sent_at_the_same_moment_from_a_page_and_discord_are_told_once_in_order(
    storage: Storage,
) -> None:
    timeline: list[str] = []

    async def post(where: Where, replies: list[Reply]) -> None:
        timeline.extend(r.text for r in replies if not r.ephemeral)

    house = house_of(storage, front=FrontEnd(BOT, post=post))
    try:
        await house.service.server_settings(HERE, ADMIN, ServerChange(web="public"))
        setup = GameSetup("everest", seed=5, seat="first")
        await house.service.start(HERE, ALICE, setup, [BOB])
        accepted = await house.service.accept(HERE, BOB)
        timeline.extend(r.text for r in accepted if not r.ephemeral)
        game = accepted[0].game_id
        assert game is not None
        stale = t("out of date")

        async def on_the_page(ply: int, move: str) -> None:
            await house.service.move_away(game, ply, ALICE, move, stale)

        async def on_discord(move: str) -> None:
            replies = await house.service.move(HERE, BOB, move)
            timeline.extend(r.text for r in replies if not r.ephemeral)
            house.service.delivered(replies)

        for _ in range(400):
            loaded = await house.service.loaded(game)
            if not loaded.record.is_live or loaded.state.round_number > 3:
                break
            acting, ply = loaded.state.to_act, loaded.record.ply
            sent = []
            if 0 in acting:
                sent.append(on_the_page(ply, loaded.state.move_texts(0)[0]))
            if 1 in acting:
                sent.append(on_discord(loaded.state.move_texts(1)[0]))
            # Both at once when both plan: whichever commits first, both are kept.
            for outcome in await asyncio.gather(*sent, return_exceptions=True):
                if isinstance(outcome, BaseException) and not isinstance(outcome, ServiceError):
                    raise outcome
            await until(lambda: not house.service._tasks, "the page's move told")
        else:
            raise AssertionError("the rounds never ended")
        rounds = [n for text in timeline for n in re.findall(r"Round (\d+)\. Plans: ", text)]
        assert rounds == ["1", "2", "3"], timeline
    finally:
        house.close()
