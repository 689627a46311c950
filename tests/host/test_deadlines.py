"""Deadlines: a decision not made in time gets the game's documented default."""

from __future__ import annotations

import asyncio

import pytest

from data.results import Ending
from data.storage import Storage
from host.model import Direct, ServiceError
from host.rating import to_rate
from host.service import GameService
from host.settings import ServerChange
from host.setup import GameSetup
from tests.host.conftest import ADMIN, ALICE, BOB, BOT, HERE


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_a_missing_secret_plan_is_dazed_when_the_deadline_passes(storage: Storage) -> None:
    clock = Clock()
    service = GameService(storage.games, bot_user=BOT, clock=clock, render_images=False)
    await service.start(HERE, ALICE, GameSetup("everest", seed=3, deadline_minutes=10), [BOB])
    await service.accept(HERE, BOB)
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.deadline_at == clock.now + 600
    [after] = await service.move(HERE, ALICE, "4E 2N sAE")
    assert "alice has made their choice." in after.text
    assert "4E" not in after.text  # the plan stays secret
    clock.now += 300
    [(_, [reminder])] = await service.expire_due()  # half-way: a reminder, no default yet
    assert reminder.text.startswith("Reminder: bob, your move in Everest")
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


async def test_every_game_but_a_solo_one_has_a_deadline(storage: Storage) -> None:
    clock = Clock()
    service = GameService(storage.games, bot_user=BOT, clock=clock, render_images=False)
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1), [BOB])
    [board] = await service.accept(HERE, BOB)
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.deadline_at == clock.now + 3 * 24 * 3600
    assert f"<t:{int(clock.now) + 3 * 24 * 3600}:R>" in board.text
    await service.resign(HERE, ALICE, confirmed=True)
    [solo] = await service.start(HERE, ALICE, GameSetup("hillbert", seed=1))
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.deadline_at is None and "<t:" not in solo.text


async def test_defaults_for_several_seats_keep_plans_secret(storage: Storage) -> None:
    clock = Clock()
    service = GameService(storage.games, bot_user=BOT, clock=clock, render_images=False)
    await service.start(HERE, ALICE, GameSetup("everest", seed=4, deadline_minutes=1), [BOB])
    await service.accept(HERE, BOB)
    clock.now += 61
    [(_, [board])] = await service.expire_due()
    assert "alice (Red) ran out of time: the default choice." in board.text
    assert "bob (Blue) ran out of time: dazed." in board.text


HOUR = 3600
DAY = 24 * HOUR


def clocked(storage: Storage, clock: Clock) -> GameService:
    return GameService(storage.games, bot_user=BOT, clock=clock, render_images=False)


async def hokito_duel(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    await service.accept(HERE, BOB)


async def test_the_player_to_act_is_reminded_half_way_and_an_hour_before(storage: Storage) -> None:
    clock = Clock()
    service = clocked(storage, clock)
    await hokito_duel(service)  # alice to move, three days to do it
    start = clock.now
    clock.now = start + 1.5 * DAY - 1
    assert await service.expire_due() == []
    clock.now = start + 1.5 * DAY
    [(where, [reminder])] = await service.expire_due()
    assert where.channel_id == HERE.channel_id and [u.name for u in reminder.mentions] == ["alice"]
    assert "Reminder: alice, your move in Hokito (alice vs bob) runs out" in reminder.text
    assert f"<t:{int(start + 3 * DAY)}:R>" in reminder.text
    assert await service.expire_due() == []  # once
    clock.now = start + 3 * DAY - HOUR
    [(_, [last])] = await service.expire_due()
    assert [u.name for u in last.mentions] == ["alice"]
    assert await service.expire_due() == []
    # A move starts bob's clock, with reminders of its own.
    [first, *_] = await service.suggest_moves(HERE, ALICE, "")
    await service.move(HERE, ALICE, first.value)
    clock.now += 1.5 * DAY
    [(_, [his])] = await service.expire_due()
    assert [u.name for u in his.mentions] == ["bob"]


async def test_reminders_can_be_turned_off_per_player(storage: Storage) -> None:
    clock = Clock()
    service = clocked(storage, clock)
    [shown] = await service.notify(ALICE, reminders=False)
    assert "Reminders before your time runs out: off." in shown.text and shown.ephemeral
    await hokito_duel(service)
    clock.now += 2 * DAY
    assert await service.expire_due() == []
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.remind_at is not None  # bob would still be reminded


async def test_time_out_in_a_duel_offers_the_win_and_the_game_goes_on(storage: Storage) -> None:
    clock = Clock()
    service = clocked(storage, clock)
    await hokito_duel(service)
    clock.now += 3 * DAY + 1
    posts = await service.expire_due()
    [(where, [board])] = [p for p in posts if "ran out of time" in p[1][0].text]
    assert where.channel_id == HERE.channel_id and [u.name for u in board.mentions] == ["bob"]
    assert "alice (Black) ran out of time" in board.text
    assert "bob may claim the win with the button, or wait" in board.text
    claim = next(a for a in board.actions if a.label == "Claim the win")
    assert await service.expire_due() == []  # handled once
    # alice may not claim, and pressing as her changes nothing.
    with pytest.raises(ServiceError, match="Only bob may claim this win"):
        await service.press(HERE, ALICE, claim.payload)
    [end] = await service.press(HERE, BOB, claim.payload)
    assert "alice (Black) ran out of time, and bob (White) claimed the win." in end.text
    # alice never moved: the game is aborted, and nobody's rating moves.
    assert "Game aborted" in end.text and "Ratings" not in end.text
    record = await service.repository.get_game(claim.payload.game_id)
    assert record is not None and record.status == "aborted" and record.result is not None
    assert record.result.ending is Ending.CLAIMED and record.result.by == (1,)
    assert record.result is not None and record.result.winners == (1,)


async def test_a_late_move_takes_the_offer_back(storage: Storage) -> None:
    clock = Clock()
    service = clocked(storage, clock)
    await hokito_duel(service)
    clock.now += 3 * DAY + 1
    [(_, [board])] = await service.expire_due()
    claim = next(a for a in board.actions if a.label == "Claim the win")
    [first, *_] = await service.suggest_moves(HERE, ALICE, "")
    [moved] = await service.move(HERE, ALICE, first.value)
    assert "Claim the win" not in [a.label for a in moved.actions]
    with pytest.raises(ServiceError, match="no win to claim"):
        await service.press(HERE, BOB, claim.payload)
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.status == "active" and record.expired_at is None
    assert record.deadline_at == clock.now + 3 * DAY


async def test_two_claims_at_once_record_one_result(storage: Storage) -> None:
    clock = Clock()
    service = clocked(storage, clock)
    other = clocked(storage, clock)  # a second process on the same database
    await hokito_duel(service)
    clock.now += 3 * DAY + 1
    [(_, [board])] = await service.expire_due()
    claim = next(a for a in board.actions if a.label == "Claim the win")
    results = await asyncio.gather(
        service.press(HERE, BOB, claim.payload),
        other.press(HERE, BOB, claim.payload),
        return_exceptions=True,
    )
    assert sum(isinstance(r, list) for r in results) == 1, results
    assert sum(isinstance(r, ServiceError) for r in results) == 1, results


async def test_a_deadline_passed_while_the_bot_was_down_is_handled_once(storage: Storage) -> None:
    clock = Clock()
    await hokito_duel(clocked(storage, clock))
    clock.now += 5 * DAY  # the bot was down through the reminders and the end
    restarted = clocked(storage, clock)
    posts = await restarted.expire_due()
    assert [("ran out of time" in replies[0].text) for _, replies in posts].count(True) == 1
    assert await clocked(storage, clock).expire_due() == []
    assert await restarted.expire_due() == []


async def test_admins_set_deadlines_per_game_and_the_bounds_of_play(storage: Storage) -> None:
    clock = Clock()
    service = clocked(storage, clock)
    with pytest.raises(ServiceError, match="Only admins"):
        await service.server_settings(HERE, ALICE, ServerChange(game="hokito", deadline_hours=12))
    with pytest.raises(
        ServiceError,
        match=r"deadline_hours: 31 days is out of range; choose from "
        r"1 hour to 30 days",
    ):
        await service.server_settings(
            HERE, ADMIN, ServerChange(game="hokito", deadline_hours=31 * 24)
        )
    with pytest.raises(ServiceError, match="Unknown game 'chess'"):
        await service.server_settings(HERE, ADMIN, ServerChange(game="chess", deadline_hours=12))
    change = ServerChange(game="hokito", deadline_hours=12, min_minutes=30, max_hours=48)
    [shown] = await service.server_settings(HERE, ADMIN, change)
    assert "Hokito: 12 hours per decision." in shown.text
    assert "/play deadline: may choose from 30 minutes to 2 days." in shown.text
    assert "Everest: 12 hours per decision (the game's own)." in shown.text
    await hokito_duel(service)
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.deadline_at == clock.now + 12 * HOUR
    await service.resign(HERE, ALICE, confirmed=True)
    with pytest.raises(ServiceError, match="this server allows 30 minutes to 2 days"):
        await service.start(HERE, ALICE, GameSetup("hokito", deadline_minutes=10), [BOB])
    assert await service.repository.live_game_in_channel(HERE.channel_id) is None
    await service.start(HERE, ALICE, GameSetup("hokito", deadline_minutes=45), [BOB])
    await service.accept(HERE, BOB)
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.deadline_at == clock.now + 45 * 60
    # Read back by another process: the settings are in the database.
    [again] = await clocked(storage, clock).server_settings(HERE, ADMIN)
    assert "Hokito: 12 hours per decision." in again.text and "Nothing changed" in again.text


async def test_a_game_against_the_computer_waits_for_its_person(storage: Storage) -> None:
    clock = Clock()
    service = clocked(storage, clock)
    [board] = await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOT])
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.deadline_at is None and "<t:" not in board.text
    clock.now += 30 * DAY
    assert await service.expire_due() == []


async def test_direct_messages_go_only_to_who_has_something_to_do(storage: Storage) -> None:
    clock = Clock()
    service = clocked(storage, clock)
    await service.notify(BOB, dm=True)
    [challenge] = await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    game_id = challenge.game_id or 0
    [(where, [dm])] = await service.turn_messages(game_id, [BOB])
    assert where == Direct(BOB) and "alice challenges you to Hokito in <#500>" in dm.text
    await service.accept(HERE, BOB)  # alice to move: bob has nothing to do
    assert await service.turn_messages(game_id, [BOB]) == []
    clock.now += 3 * DAY + 1
    await service.expire_due()  # bob is offered the win, which is no turn of his
    assert await service.turn_messages(game_id, [BOB]) == []


def final_round(cap: int) -> str:
    """An Everest of two whose round `cap` is its last (a draw if nobody holds the peak)."""
    return (
        f"everest n=2 cap={cap} round=1 stage=plan step=1 pos=a2,h5 aside=-,- dmg=0,0 peak=-"
        " plans=-,- result=- rng=3:0 ev=round.1"
    )


async def everest_to_its_last_round(storage: Storage, cap: int) -> tuple[GameService, Clock]:
    """alice and bob in the Everest of `final_round(cap)`, alice's first plan made."""
    clock = Clock()
    service = clocked(storage, clock)
    setup = GameSetup("everest", position=final_round(cap), deadline_minutes=10)
    await service.start(HERE, ALICE, setup, [BOB])
    await service.accept(HERE, BOB)
    await service.move(HERE, ALICE, "4E 2N sAE")
    return service, clock


async def test_a_default_that_ends_a_game_its_person_never_played_aborts_it(
    storage: Storage,
) -> None:
    service, clock = await everest_to_its_last_round(storage, 1)
    clock.now += 601
    [(_, [board])] = await service.expire_due()
    assert "bob (Blue) ran out of time" in board.text
    assert "Game aborted" in board.text and "Ratings" not in board.text
    record = await service.repository.get_game(1)
    assert record is not None and record.status == "aborted" and record.result is not None
    assert record.result.ending is Ending.TIMED_OUT and record.result.by == (1,)
    assert to_rate(record).places == {}
    [history] = await service.finished(HERE)
    assert "aborted" in history.text


async def test_a_default_that_ends_a_game_both_played_is_rated(storage: Storage) -> None:
    service, clock = await everest_to_its_last_round(storage, 2)
    await service.move(HERE, BOB, "4W 2N sAW")
    # Round 1 played by both; round 2 played by nobody: its defaults end the game.
    for _ in range(20):
        if await service.repository.live_game_in_channel(HERE.channel_id) is None:
            break
        clock.now += 601
        await service.expire_due()
    record = await service.repository.get_game(1)
    assert record is not None and record.status == "finished" and record.result is not None
    assert record.result.ending is Ending.TIMED_OUT and not record.result.aborted
    assert set(to_rate(record).places) == {ALICE.id, BOB.id}
