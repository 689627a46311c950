"""Replies follow each game's declared facts (points only where a game has them, hints only
where a game offers them), tell every move since a player last looked in words and
pictures, and say who is who."""

from __future__ import annotations

import re
from types import SimpleNamespace

from data.storage import Storage
from engine.everest import EverestGame
from engine.text import t
from host.model import Reply
from host.payloads import Action, Payload
from host.present.presenter import in_order
from host.present.words import Happened
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import (
    ADMIN,
    ALICE,
    BOB,
    BOT,
    HERE,
    ROLL_OFF,
    each_moves_once,
    make_service,
)

STEP_CAPTION = re.compile(r"Round (\d+) · step (\d+)")


def labels(reply: Reply) -> list[str]:
    return [choice.label for choice in (*reply.picks, *reply.actions)]


async def test_a_game_without_points_shows_none_even_at_its_end(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("everest", seed=1, seat="first"), [BOB])
    [board] = await service.accept(HERE, BOB)
    assert board.fields == ()
    for player in (ALICE, BOB):  # both plan: a game nobody played is aborted
        [plan, *_] = await service.suggest_moves(HERE, player, "")
        await service.move(HERE, player, plan.value)
    [end] = await service.resign(HERE, ALICE, confirmed=True)
    assert "point" not in end.text and "Scores" not in end.text
    assert "Game over. alice (Red) resigned. bob (Blue) wins.\nRatings: " in end.text


async def test_a_game_with_points_shows_each_seats(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    [board] = await service.accept(HERE, BOB)
    assert [name for name, _ in board.fields] == ["alice (Black)", "bob (White)"]
    assert all(value.endswith("points") for _, value in board.fields)
    await each_moves_once(service, HERE, ALICE, BOB)
    [end] = await service.resign(HERE, BOB, confirmed=True)
    assert "Scores: alice (Black)" in end.text and "alice (Black) wins." in end.text


async def test_only_a_game_that_offers_hints_has_the_button(service: GameService) -> None:
    [practice] = await service.start(HERE, ALICE, GameSetup("hillbert", seed=4))
    assert "Hint" in labels(practice)
    assert practice.fields == (("alice", "0 points"),)
    await service.resign(HERE, ALICE, confirmed=True)
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1), [BOB])
    [duel] = await service.accept(HERE, BOB)
    assert "Hint" not in labels(duel)


async def test_a_move_is_told_with_what_it_did_where_the_game_says(service: GameService) -> None:
    hill = "...H.../...o.../......./......./......./......./......."
    position = f"{hill} score=0 turns=0 hungry=0 facing=0 jumped=0 seed=9"
    await service.start(HERE, ALICE, GameSetup("hillbert", position=position))
    [moved] = await service.move(HERE, ALICE, "d")
    assert moved.text.startswith(
        "alice played d: Hillbert ate 1 piece of food and grew to Medium; +1 point; "
        "he starves after 4 more turns without food.\n"
    )
    # A game whose notation says it all keeps the plain line.
    await service.resign(HERE, ALICE, confirmed=True)
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])
    await service.accept(HERE, BOB)
    [played] = await service.move(HERE, ALICE, "a1-b1")
    assert played.text.startswith("alice played a1-b1.\n")


async def test_a_computers_quick_answer_and_your_own_move_are_both_drawn(storage: Storage) -> None:
    service = make_service(storage, images=True)
    await service.start(HERE, ALICE, GameSetup("hokito", seed=3, seat="first"), [BOT])
    [first, *_] = await service.suggest_moves(HERE, ALICE, "")
    [reply] = await service.move(HERE, ALICE, first.value)
    own = f"alice played {first.label.split(': ')[0]}."
    assert reply.text.startswith(own) and "hilltop (White, normal computer) played" in reply.text
    # Your move in a picture of its own, captioned; the computer's on the board itself.
    assert [caption for caption, _ in reply.gallery] == [own]
    assert reply.gallery[0][1].startswith(b"\x89PNG") and reply.image is not None
    assert reply.gallery[0][1] != reply.image


async def test_everest_against_computers_posts_each_round_once_with_every_plan(
    storage: Storage,
) -> None:
    """A whole seeded game: the channel gets the start, then one post per round, which
    reveals every plan and tells every step in words under one picture; what alice
    decides inside a round is answered to her alone."""
    service = make_service(storage, images=True)
    # Easy computers: what is told of a round is the same whatever their strength, and
    # they decide in a fraction of the time.
    setup = GameSetup("everest", computers=3, seed=11, level="easy")
    [start] = await service.start(HERE, ALICE, setup)
    posts, private = [start], []
    for _ in range(300):
        suggestions = await service.suggest_moves(HERE, ALICE, "")
        if not suggestions:
            break
        [reply] = await service.move(HERE, ALICE, suggestions[0].value)
        (private if reply.ephemeral else posts).append(reply)
    record = await service.repository.get_game(1)
    assert record is not None and record.status == "finished"
    rounds = EverestGame().from_text(record.snapshot).round
    assert rounds >= 3 and private
    assert len(posts) == 1 + rounds
    for number, post in enumerate(posts[1:], start=1):
        plans = post.text.split(f"Round {number}. Plans: ")[1].splitlines()[0]
        named = ["alice (Red)", *(f"hilltop {n} (" for n in (1, 2, 3))]
        assert all(name in plans for name in named), post.text
        assert "Step 1:" in post.text
        assert post.image is not None and post.gallery == ()
    assert "Game over." in posts[-1].text
    # A choice asked inside a round comes with the round so far, privately.
    asked = [r for r in private if r.picks]
    assert asked and all("Plans: " in r.text and "Step 1:" in r.text for r in asked)


async def test_several_computers_have_distinct_names_with_their_level(
    service: GameService,
) -> None:
    setup = GameSetup("everest", computers=3, seed=11, seat="first", level="hard")
    [board] = await service.start(HERE, ALICE, setup)
    assert board.text.startswith(
        "The game begins: alice (Red), hilltop 1 (Blue, hard computer), "
        "hilltop 2 (Green, hard computer), hilltop 3 (Purple, hard computer)."
    )
    assert [name for name, _ in board.fields] == []  # Everest has no points
    suggestions = await service.suggest_moves(HERE, ALICE, "")
    [reply] = await service.move(HERE, ALICE, suggestions[0].value)
    movers = {word for line in reply.text.splitlines() for word in line.split()[:2]}
    assert {"1", "2", "3"} <= {w for w in movers if w.isdigit()}, reply.text


async def test_mole_hill_labels_follow_the_role_of_the_round(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("molehill", seed=1, seat="first"), [BOB])
    [first] = await service.accept(HERE, BOB)
    assert "alice (Mole) to move." in first.text
    assert [name for name, _ in first.fields] == ["alice (Mole)", "bob (Gardener)"]
    await service.resign(HERE, ALICE, confirmed=True)
    round_two = "2m - - e1,a4,i4,e7/b2,h2,b6,h6 5"
    setup = GameSetup("molehill", position=round_two)
    [second] = await service.admin_start(HERE, ADMIN, setup, [ALICE, BOB])
    assert "bob (Mole) to move." in second.text
    assert [name for name, _ in second.fields] == ["alice (Gardener)", "bob (Mole)"]


async def test_the_end_of_mole_hills_first_round_is_told_and_its_last_lawn_drawn(
    storage: Storage,
) -> None:
    service = make_service(storage, images=True)
    cornered = "1g b2,a1 a1n e1,a4,i4,e7/b2,h2,b6,h6 -"  # one more rod and alice is stuck
    await service.admin_start(HERE, ADMIN, GameSetup("molehill", position=cornered), [ALICE, BOB])
    [reply] = await service.move(HERE, BOB, "rod a1e")
    assert (
        "Round 1 is over: alice scored 1 point as the mole. The roles swap: bob is the mole "
        "now, alice the gardener." in reply.text
    )
    assert "bob (Mole) to move." in reply.text
    [(caption, lawn)] = reply.gallery
    # Round 1's trail, then round 2's lawn.
    assert caption == "Round 1: the last lawn" and lawn != reply.image


async def test_mole_hills_end_gives_each_player_the_points_of_their_round_as_the_mole(
    service: GameService,
) -> None:
    # Round 2: bob, the mole, has one more rod to face before he is stuck; alice scored 16
    # as the mole of round 1 and is the gardener now.
    cornered = "2g b2,a1 a1n e1,a4,i4,e7/b2,h2,b6,h6 16"
    await service.admin_start(HERE, ADMIN, GameSetup("molehill", position=cornered), [ALICE, BOB])
    [end] = await service.move(HERE, ALICE, "rod a1e")
    assert (
        "Game over. alice wins, 16 to 1: alice scored 16 as the mole in round 1, bob scored 1 "
        "as the mole in round 2." in end.text
    )
    assert "Gardener" not in end.text and "Mole)" not in end.text
    assert end.fields == (("alice (First mole)", "16 points"), ("bob (First gardener)", "1 point"))
    level = cornered.replace(" 16", " 1")
    await service.admin_start(HERE, ADMIN, GameSetup("molehill", position=level), [ALICE, BOB])
    [draw] = await service.move(HERE, ALICE, "rod a1e")
    assert (
        "Game over. It is a draw, 1 to 1: alice scored 1 as the mole in round 1, bob scored 1 "
        "as the mole in round 2." in draw.text
    )


async def test_a_hillbert_turn_with_nothing_left_to_choose_still_asks_to_confirm(
    service: GameService,
) -> None:
    [board] = await service.start(HERE, ALICE, GameSetup("hillbert", seed=4))
    payload = Payload(Action.STEP, board.picks[0].payload.game_id, 0, ("d", "l", "l", "l"))
    [panel] = await service.press(HERE, ALICE, payload)
    assert panel.ephemeral and [a.label for a in panel.actions] == ["Confirm", "Back"]
    assert "Hillbert ends on" in panel.text  # the preview, before anything is played
    assert (await service.live.in_channel(HERE)).record.ply == 0
    [done, played] = await service.press(HERE, ALICE, panel.actions[0].payload)
    assert done.text == "Done: d lll." and played.title.endswith("move 1")


def test_a_reply_tells_moves_in_the_order_they_were_made() -> None:
    """Computers playing in the background may have moved before the person whose reply
    gathers their moves: the reply tells every move once, by ply."""

    def moved(ply: int) -> Happened:
        after = SimpleNamespace(record=SimpleNamespace(ply=ply))
        return Happened(t("ply {n}", n=ply), after)  # type: ignore[arg-type]

    begins, thinking = Happened(t("begins")), Happened(t("thinking"))
    told = [begins, moved(18), moved(5), moved(8), moved(5), thinking]
    assert [str(h.line) for h in in_order(told)] == [
        "begins",
        "ply 5",
        "ply 8",
        "ply 18",
        "thinking",
    ]
    assert in_order([begins, thinking]) == [begins, thinking]


async def test_a_computer_taking_over_a_seat_gets_the_next_number(service: GameService) -> None:
    setup = GameSetup("everest", computers=2, seed=11, seat="first")
    await service.start(HERE, ALICE, setup, [BOB])
    [board] = await service.accept(HERE, BOB)
    assert "hilltop 1 (Green, normal computer), hilltop 2 (Purple, normal computer)" in (board.text)
    [reply] = await service.resign(HERE, ALICE, confirmed=True)
    loaded = await service.live.in_channel(HERE)
    assert service.presenter.names(loaded) == ["hilltop 3", "bob", "hilltop 1", "hilltop 2"]
    assert "alice resigned; a computer player takes over Red." in reply.text
    # The numbers hold when the game is read back from the database.
    service.live.forget(loaded.id)
    again = await service.live.load(loaded.id)
    assert service.presenter.names(again) == ["hilltop 3", "bob", "hilltop 1", "hilltop 2"]


async def test_an_everest_plan_takes_one_click_per_action_then_a_confirm(
    service: GameService,
) -> None:
    await service.start(HERE, ALICE, GameSetup("everest", seed=1, seat="first"), [BOB])
    [board] = await service.accept(HERE, BOB)
    make_move = next(a for a in board.actions if a.label == "Make my move")
    [panel] = await service.press(HERE, ALICE, make_move.payload)
    # Six coins and a snowball, four ways each: 28 choices, grouped by kind.
    assert [p.label for p in panel.picks] == [
        "roar …", "move 1 (ace) …", "move 2 …", "move 3 …", "move 4 …", "move 5 …",
        "snowball …",
    ]  # fmt: skip
    [group] = await service.press(HERE, ALICE, panel.picks[4].payload)
    assert [p.label for p in group.picks] == [
        "move 4 north", "move 4 east", "move 4 south", "move 4 west",
    ]  # fmt: skip
    clicks = 1  # in the panel that "Make my move" opened: the group
    labels = ["move 4 east", "snowball north", "roar west"]
    step = next(p for p in group.picks if p.label == labels[0])
    for label in labels[1:]:
        [step_panel] = await service.press(HERE, ALICE, step.payload)
        clicks += 1
        assert "your yeti ends on c2, height 3 (a step up costs 2)." in step_panel.text
        step = next(p for p in step_panel.picks if p.label == label)
    [last] = await service.press(HERE, ALICE, step.payload)
    clicks += 1
    assert (await service.live.in_channel(HERE)).record.ply == 0  # nothing sent yet
    assert "move 4 east, then snowball north, then roar west" in last.text
    assert [a.label for a in last.actions] == ["Send this plan", "Back"]
    [done, _] = await service.press(HERE, ALICE, last.actions[0].payload)
    clicks += 1
    assert done.text == "Done: 4E sAN 0W."  # the snowball takes the lowest free coin
    assert clicks == 5  # the group, an action each, and the confirm (was: 6, unpreviewed)
    stored = await service.repository.get_game(1)
    assert stored is not None and stored.ply == 1


async def test_a_roll_off_outcome_is_looked_at_then_picked(storage: Storage) -> None:
    service = make_service(storage, images=True)
    setup = GameSetup("everest", position=ROLL_OFF)
    await service.admin_start(HERE, ADMIN, setup, [ALICE, BOB])
    [board] = await service.board(HERE)
    assert [p.label for p in board.picks] == [
        "1: Red to b1; Blue to c1",
        "2: Red to c1; Blue to d1",
    ]
    [first] = await service.press(HERE, BOB, board.picks[0].payload)
    assert first.ephemeral and first.image is not None
    assert (await service.live.in_channel(HERE)).record.ply == 0  # looked at, not picked
    assert [p.label for p in first.picks] == ["outcome 2 ▶"]
    assert [a.label for a in first.actions] == ["Pick this", "Back"]
    assert "1: Red to b1; Blue to c1" in first.text
    # As Discord sends them back: the move's words split at spaces.
    [second] = await service.press(HERE, BOB, Payload.parse(first.picks[0].payload.encode()))
    assert second.edit and "2: Red to c1; Blue to d1" in second.text
    assert second.image is not None and second.image != first.image
    assert [p.label for p in second.picks] == ["◀ outcome 1"]
    [listed] = await service.press(HERE, BOB, Payload.parse(second.actions[1].payload.encode()))
    assert [p.label for p in listed.picks] == [p.label for p in board.picks]  # Back: the list
    [done, played] = await service.press(
        HERE, BOB, Payload.parse(second.actions[0].payload.encode())
    )
    assert done.text == "Done: pick 2."
    assert played.title == "Everest · round 3"
