"""Everest: one named scenario per ruling of RULES.md section 3, plan counts against a
naive generator, the hidden-plan contract, replays and random playouts."""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import astuple
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import registry
from engine.core import IllegalMoveError, InvalidMoveError, NotationError
from engine.everest import (
    Aside,
    EverestState,
    Flee,
    Flight,
    Heal,
    Healed,
    Pick,
    Plan,
    RolledOff,
    Stay,
    Threw,
    describe_events,
)
from engine.rng import Rng

GAME = registry.get("everest")
#: The peak tile (RULES 3(b)21).
PEAK_SQUARES = ("d3", "e3", "d4", "e4")

# The mountain as printed in RULES 3(b)1 (row 6 first), typed in independently.
MAP = """
1 1 1 1 1 1 1 1
1 2 3 3 3 3 2 1
- 2 4 5 5 4 2 -
- 2 4 5 5 4 2 -
1 2 3 3 3 3 2 1
1 1 1 1 1 1 1 1
"""
STEPS = [
    "b1|b2",
    "g1|g2",
    "a2|b2",
    "b2|c2",
    "c2|c3",
    "f2|g2",
    "f2|f3",
    "g2|h2",
    "c3|d3",
    "e3|f3",
    "c4|d4",
    "c4|c5",
    "e4|f4",
    "f4|f5",
    "a5|b5",
    "b5|c5",
    "b5|b6",
    "f5|g5",
    "g5|h5",
    "g5|g6",
]
CLIFFS = [
    "c1|c2",
    "d1|d2",
    "e1|e2",
    "f1|f2",
    "d2|d3",
    "e2|e3",
    "b3|c3",
    "f3|g3",
    "b4|c4",
    "d4|d5",
    "e4|e5",
    "f4|g4",
    "c5|c6",
    "d5|d6",
    "e5|e6",
    "f5|f6",
]


def position(
    pos: str,
    plans: str | None = None,
    *,
    aside: str | None = None,
    dmg: str | None = None,
    peak: str | None = None,
    round_: int = 2,
    cap: int = 30,
    seed: int = 1,
) -> EverestState:
    """A position while the yeti plan; `peak` by default names the yeti alone on the
    peak tile, as the round's start sets it."""
    n = len(pos.split(","))
    if peak is None:
        on_peak = [str(y) for y, square in enumerate(pos.split(",")) if square in PEAK_SQUARES]
        peak = on_peak[0] if len(on_peak) == 1 else "-"
    text = (
        f"everest n={n} cap={cap} round={round_} stage=plan step=1 pos={pos} "
        f"aside={aside or ','.join('-' * n)} dmg={dmg or ','.join('0' * n)} peak={peak} "
        f"plans={plans or ','.join('-' * n)} result=- rng={seed}:0"
    )
    state = GAME.from_text(text)
    assert isinstance(state, EverestState)
    return state


def play_all(state: EverestState, *plans: str) -> EverestState:
    """Every seat still to plan sends the next plan text, in seat order."""
    texts = iter(plans)
    for seat in sorted(state.to_act):
        state = state.play(seat, state.parse_move(seat, next(texts)))
    return state


@cache
def seed_for(dice: tuple[int, ...]) -> int:
    """A seed whose first die faces (0 null, 1 ace, 2-5) are `dice`."""
    for seed in itertools.count(1):
        rng = Rng(seed)
        for want in dice:
            value, rng = rng.below(6)
            if value != want:
                break
        else:
            return seed
    raise AssertionError


def events(state: EverestState, kind: str) -> list[tuple[int | None, ...]]:
    """The fields of each event of `kind`, in order (of a roll-off: the dice)."""
    return [
        e.dice if isinstance(e, RolledOff) else astuple(e) for e in state.events if e.kind == kind
    ]


def sq(name: str) -> int:
    return "abcdefgh".index(name[0]) + (int(name[1]) - 1) * 8


def squares(state: EverestState) -> list[str]:
    return ["off" if p < 0 else "abcdefgh"[p % 8] + str(p // 8 + 1) for p in state.pos]


# --- 3(b)1-3: the mountain, home bases, notches -------------------------------------------


def test_map_heights_steps_and_cliffs_match_the_rules() -> None:
    from engine.everest import HEIGHTS, NEXT, OFF

    rows = [line.split() for line in MAP.strip().splitlines()]
    for r, row in enumerate(reversed(rows)):
        for c, cell in enumerate(row):
            assert HEIGHTS[r * 8 + c] == (0 if cell == "-" else int(cell))
    steps, cliffs = set(), set()
    for a in range(48):
        for d in (0, 1):  # north and east pairs once each
            b = NEXT[a][d] if HEIGHTS[a] else OFF
            if b == OFF:
                continue
            name = "|".join(sorted(("abcdefgh"[x % 8] + str(x // 8 + 1)) for x in (a, b)))
            gap = abs(HEIGHTS[a] - HEIGHTS[b])
            if gap == 1:
                steps.add(name)
            elif gap == 2:
                cliffs.add(name)
            assert gap <= 2
    assert steps == {"|".join(sorted(p.split("|"))) for p in STEPS}
    assert cliffs == {"|".join(sorted(p.split("|"))) for p in CLIFFS}
    assert len(steps) == 20 and len(cliffs) == 16
    assert sum(1 for h in HEIGHTS if h) == 44


@pytest.mark.parametrize(
    ("players", "homes"),
    [(2, ["a2", "h5"]), (3, ["a2", "h5", "h2"]), (4, ["a2", "h5", "h2", "a5"])],
)
def test_home_bases_by_number_of_players(players: int, homes: list[str]) -> None:
    state = GAME.new_state(5, players, None)
    assert squares(state) == homes
    assert state.to_act == frozenset(range(players))
    assert state.round == 1 and state.cap == 30


def test_no_cap_variant_and_bad_setups() -> None:
    assert GAME.new_state(5, 2, "no-cap").cap == 0
    with pytest.raises(ValueError):
        GAME.new_state(5, 5, None)
    with pytest.raises(ValueError):
        GAME.new_state(5, 2, "big")
    assert GAME.draw_seats is False


def test_notch_squares_are_off_the_board() -> None:
    state = position("b3,h6", "-,dazed")
    after = play_all(state, "AW s2E s0E")
    assert events(after, "off")[0] == (0, sq("b3"), 3)
    assert squares(after)[0] == "a2"  # returned home at the end of the round


# --- 3(b)4, 33 and 3(c): plans ------------------------------------------------------------


def test_plan_notation_and_distinct_coins() -> None:
    state = position("a2,h5")
    assert str(state.parse_move(0, "4e 2n sae")) == "4E 2N sAE"
    assert str(state.parse_move(0, "1E s0N 5w")) == "AE s0N 5W"
    assert str(state.parse_move(0, "4 E 2 N s E")) == "4E 2N s0E"
    with pytest.raises(IllegalMoveError, match="only one 2 coin"):
        state.parse_move(0, "4E 2N 2E")
    with pytest.raises(IllegalMoveError, match="exactly 3"):
        state.parse_move(0, "4E 2N")
    with pytest.raises(InvalidMoveError):
        state.parse_move(0, "4X 2N 3E")
    with pytest.raises(InvalidMoveError):
        state.parse_move(0, "")


def test_plan_size_follows_the_coins_left() -> None:
    state = position("a2,h5", aside="5432,-")
    assert str(state.parse_move(0, "0N sAE")) == "0N sAE"
    with pytest.raises(IllegalMoveError, match="set aside"):
        state.parse_move(0, "5N AE")
    with pytest.raises(IllegalMoveError, match="exactly 2"):
        state.parse_move(0, "AE")


def naive_plans(available: str) -> set[str]:
    """Plans of min(3, coins) different coins; a snowball is listed with the lowest coins
    the plan's moves and roar leave free, in slot order."""
    need = min(3, len(available))
    tokens = [f"{s}{c}{d}" for c in "0A2345" for s in ("", "s") for d in "NESW"]
    out = set()
    for combo in itertools.product(tokens, repeat=need):
        coins = [tok.lstrip("s")[0] for tok in combo]
        if len(set(coins)) != need or not all(c in available for c in coins):
            continue
        values = {tok[0] for tok in combo if not tok.startswith("s")}
        free = [c for c in "0A2345" if c in available and c not in values]
        thrown = [tok[1] for tok in combo if tok.startswith("s")]
        if thrown == free[: len(thrown)]:
            out.add(" ".join(combo))
    return out


@pytest.mark.parametrize(
    ("aside", "available", "count"),
    [("-", "0A2345", 14656), ("5", "0A234", 8704), ("543", "0A2", 2176), ("5432", "0A", 112)],
)
def test_plan_count_matches_a_naive_generator(aside: str, available: str, count: int) -> None:
    state = position("a2,h5", aside=f"{aside},-")
    moves = state.legal_moves(0)
    texts = [str(m) for m in moves]
    assert len(texts) == len(set(texts)) == count
    assert set(texts) == naive_plans(available)
    assert all(m in moves for m in moves[:: max(1, len(moves) // 50)])
    assert Plan((16, 17, 24)) not in moves  # the 2 coin twice


def test_any_snowball_coin_is_accepted() -> None:
    state = position("a2,h5")
    plan = state.parse_move(0, "s5E 4N 0W")
    assert plan not in state.legal_moves(0)  # listed as sAE 4N 0W, which acts the same
    assert state.play(0, plan).plans[0] == plan.actions
    assert str(state.parse_move(0, "s E 4 N 0 W")) == "sAE 4N 0W"


def test_plan_builder_offers_kind_and_direction_in_one_token() -> None:
    state = position("a2,h5", aside="543,-")
    first = state.move_options(0)
    kinds = ["0", "A", "2", "s"]
    assert [o.token for o in first.options] == [k + d for k in kinds for d in "NESW"]
    assert [o.label for o in first.options[:5]] == [
        "roar north", "roar east", "roar south", "roar west", "move 1 north",
    ]  # fmt: skip
    assert [o.label for o in first.options[-2:]] == ["snowball south", "snowball west"]
    assert {o.group_label for o in first.options} == {
        "roar …", "move 1 (ace) …", "move 2 …", "snowball …",
    }  # fmt: skip
    second = state.move_options(0, ("0N",))
    assert [o.token for o in second.options] == [k + d for k in ("A", "2", "s") for d in "NESW"]
    third = state.move_options(0, ("0N", "sE"))
    assert [o.token for o in third.options] == [k + d for k in ("A", "2", "s") for d in "NESW"]
    done = state.move_options(0, ("0N", "sE", "2S"))
    assert done.options == () and str(done.complete) == "0N sAE 2S"
    assert str(done.confirm) == "Send this plan"  # asked before it is sent, with its preview
    assert state.parse_move(0, " ".join(done.prefix)) == done.complete
    with pytest.raises(InvalidMoveError):
        state.move_options(0, ("0N", "0E"))  # the null coin twice
    with pytest.raises(InvalidMoveError):
        state.move_options(0, ("5N",))  # set aside
    with pytest.raises(InvalidMoveError):
        state.move_options(0, ("4",))


def test_a_full_purse_groups_the_first_action_by_kind() -> None:
    state = position("a2,h5")
    assert len(state.move_options(0).options) == 28  # 6 coins and a snowball, 4 ways each
    assert len(state.move_options(0, ("4E",)).options) == 24
    assert len(state.move_options(0, ("4E", "sW")).options) == 24  # a snowball names no coin
    assert len(state.move_options(0, ("4E", "2N")).options) == 20


def test_the_older_two_word_builder_prefix_still_builds() -> None:
    state = position("a2,h5", aside="543,-")
    done = state.move_options(0, ("0", "N", "s", "E", "2", "S"))
    assert str(done.complete) == "0N sAE 2S"


@pytest.mark.parametrize(
    ("typed", "plan"),
    [
        ("4E sN 0W", "4E sAN 0W"),
        ("sE 4E 0W", "sAE 4E 0W"),
        ("ss 4E 0W", "sAS 4E 0W"),  # ss: a snowball south
        ("SW 4e 0w", "sAW 4E 0W"),
        ("sN sE sS", "s0N sAE s2S"),  # builder snowballs take the lowest free coins
        ("s E 4 N 0 W", "sAE 4N 0W"),  # the older two-word form
        ("s s 4E 0W", "sAS 4E 0W"),
        ("sAE 4N 0W", "sAE 4N 0W"),  # a snowball naming its coin
        ("sAS s0N 5E", "sAS s0N 5E"),
        ("sS s0N 5E", "sAS s0N 5E"),
    ],
)
def test_builder_snowballs_are_read_in_typed_plans(typed: str, plan: str) -> None:
    state = position("a2,h5")
    assert str(state.parse_move(0, typed)) == plan


@pytest.mark.parametrize("typed", ["sx 4E 0W", "s 4E 0W", "sn4 4E 0W", "sNE 4E 0W"])
def test_malformed_builder_snowballs_are_refused(typed: str) -> None:
    with pytest.raises(InvalidMoveError):
        position("a2,h5").parse_move(0, typed)


def test_plan_tokens_name_kind_and_direction_together() -> None:
    state = position("a2,h5")
    plan = state.parse_move(0, "4E s0N AW")
    assert state.move_tokens(plan) == ("4E", "sN", "AW")
    # The log keeps the notation, which names the snowball's coin.
    assert state.move_text(plan) == "4E s0N AW"


def test_the_builder_preview_says_where_the_yeti_ends() -> None:
    state = position("a2,h5")
    one = state.move_options(0, ("4E",))
    assert str(one.preview) == (
        "move 4 east: if nobody gets in the way, your yeti ends on c2, height 3 "
        "(a step up costs 2)."
    )
    done = state.move_options(0, ("4E", "2N", "sW"))
    assert str(done.preview) == (
        "move 4 east, then move 2 north, then snowball west: if nobody gets in the way, "
        "your yeti ends on c3, height 4 (a step up costs 2)."
    )
    assert state.move_options(0).preview is None
    off = state.move_options(0, ("AW", "2N", "sW"))
    assert "ends off the board" in str(off.preview)
    fall = position("c2,h5").move_options(0, ("AS",))  # c2 (3) to c1 (1): a cliff
    assert "ends on c1, height 1, with 1 more damage" in str(fall.preview)


def test_plan_preview_follows_each_action_on_copies() -> None:
    state = position("a2,c2")
    preview = state.plan_preview(0, state.parse_move(0, "2E sAE 0N").actions)
    assert [[str(e) for e in step] for step in preview.steps] == [
        ["move.0.a2.b2.E"],
        ["snow.0.b2.c2.E.0", "hit.1.c2.E", "push.1.c2.d2.E"],
        ["roar.0.b2.N"],
    ]
    # The hit pushes Blue east onto d2 (height 3 to 3: no fall).
    assert [p % 8 + 8 * (p // 8) for p in preview.pos] == [sq("b2"), sq("d2")]
    assert preview.damage == (0, 1)
    assert state.pos == (sq("a2"), sq("c2")) and state.damage == (0, 0)  # unchanged
    gone = state.plan_preview(0, state.parse_move(0, "AW 2N 3E").actions)
    assert [len(step) for step in gone.steps] == [1, 0, 0]  # off the board: nothing more


# --- 3(a) movement, 3(b)7-9, 11, 29 -------------------------------------------------------


def test_push_up_a_step_with_enough_points() -> None:
    # a2->b2 is a step (2) and b2->c2 pushes up a step (+2): 4 points.
    after = play_all(position("a2,b2", "-,dazed"), "4E sAW s0W")
    assert squares(after) == ["b2", "c2"]
    assert (1, sq("b2"), sq("c2"), 1) in events(after, "push")


def test_push_up_a_step_with_too_few_points_stops() -> None:
    after = play_all(position("a2,b2", "-,dazed"), "3E sAW s0W")
    assert squares(after) == ["a2", "b2"]
    assert events(after, "move")[0] == (0, sq("a2"), sq("a2"), 1)


def test_level_push_costs_one_more_and_leftover_is_lost() -> None:
    # a1->b1 pushing to c1: 2 points; one left cannot push again (c1->d1 needs 2).
    after = play_all(position("a1,b1", "-,dazed"), "3E sAW s0W")
    assert squares(after) == ["b1", "c1"]


def test_no_chain_pushes() -> None:
    after = play_all(position("a1,b1,c1", "-,dazed,dazed"), "5E sAW s0W")
    assert squares(after) == ["a1", "b1", "c1"]


def test_step_up_with_one_point_left_stops() -> None:
    after = play_all(position("a2,h6", "-,dazed"), "AE sAW s0W".replace("sAW", "s2W"))
    assert squares(after)[0] == "a2"


def test_cliff_blocks_from_below() -> None:
    after = play_all(position("c1,h6", "-,dazed"), "5N s2W s0W")
    assert squares(after)[0] == "c1"


def test_cliff_fall_costs_one_point_and_a_damage_and_continues() -> None:
    # d3 (5) -> d2 (3) -> d1 (1): two falls, two damage, both points spent.
    after = play_all(position("d3,h6", "-,dazed"), "2S s0N sAN")
    assert squares(after)[0] == "d1"
    assert events(after, "fall") == [(0, sq("d2")), (0, sq("d1"))]
    assert after.stage == "end" and after.damage[0] == 2


def test_fall_with_the_free_push() -> None:
    # One point: falls onto d2 and pushes Blue down the d2|d1 cliff for free.
    after = play_all(position("d3,d2", "-,dazed"), "AS s0N s2N")
    assert squares(after) == ["d2", "d1"]
    assert after.damage == (1, 1)
    assert sorted(events(after, "fall")) == [(0, sq("d2")), (1, sq("d1"))]


def test_fall_without_the_free_push_does_not_fall() -> None:
    # d1 is occupied, so Blue cannot be pushed: Red stays on the cliff top unhurt.
    after = play_all(position("d3,d2,d1", "-,dazed,dazed"), "5S s0N s2N")
    assert squares(after) == ["d3", "d2", "d1"]
    assert after.damage == (0, 0, 0)


def test_free_push_off_the_edge_after_a_fall() -> None:
    after = play_all(position("d5,d6", "-,dazed"), "AN s0S s2S")
    assert squares(after)[0] == "d6"
    assert events(after, "off")[0][0] == 1


def test_pushing_off_the_edge_costs_one_more() -> None:
    blocked = play_all(position("b1,a1", "-,dazed"), "AW s0N s2N")
    assert squares(blocked) == ["b1", "a1"]
    pushed = play_all(position("b1,a1", "-,dazed"), "2W s0N s3N")
    assert events(pushed, "off") == [(1, sq("a1"), 3)]
    assert squares(pushed)[0] == "a1"


def test_moving_off_the_edge_cancels_the_rest_of_the_round() -> None:
    after = play_all(position("a1,h6", "-,dazed"), "AW 2E 3E")
    assert events(after, "off") == [(0, sq("a1"), 3)]
    assert [e for e in events(after, "move") if e[0] == 0] == []
    assert squares(after)[0] == "a2"  # home at the end of the round, no coin back


def test_pushed_off_the_edge_loses_that_steps_own_action() -> None:
    # Red pushes Blue off a1 in step 1 while Blue plans 5E: a conflict; in the order
    # Red-first Blue loses its move.
    state = position("b1,a1", "-,5E+s0N+sAN", seed=seed_for((5, 2)))
    after = play_all(state, "3W s0N sAN")
    assert after.stage == "pick" and after.picker == 0
    labels = [str(o.label) for o in after.pick_options()]
    red_first = next(i for i, lab in enumerate(labels, 1) if "Blue off" in lab)
    done = after.play(0, Pick(red_first))
    assert events(done, "off")[0][0] == 1
    assert all(e[0] != 1 for e in events(done, "move"))


# --- snowballs: 3(a), 3(b)12, 28 ----------------------------------------------------------


def test_snowball_splats_on_an_upward_step() -> None:
    after = play_all(position("a2,h6", "-,dazed"), "sAE s0S s2S")
    assert events(after, "snow")[0] == (0, sq("a2"), sq("a2"), 1, 1)
    assert after.damage == (0, 0)


def test_a_splat_is_told_where_the_ball_meets_the_slope() -> None:
    # Thrown east from a2, the ball never leaves a2: it bursts against the rise to b2.
    after = play_all(position("a2,h6", "-,dazed"), "sAE s0S s2S")
    lines = [str(line) for line in describe_events(after.events, ("Ann", "Bob"))]
    assert "Ann throws a snowball east from a2: it splats against the slope up to b2." in lines


def test_snowball_hits_a_yeti_on_top_of_the_step() -> None:
    # Blue on b2 is hit; the push east would go up to c2, so Blue stays.
    after = play_all(position("a2,b2", "-,dazed"), "sAE s0W s2W")
    assert events(after, "hit") == [(1, sq("b2"), 1)]
    assert squares(after)[1] == "b2" and after.damage[1] == 1


def test_snowball_flies_downhill_and_pushes_off_the_edge() -> None:
    after = play_all(position("d3,d1", "-,dazed"), "sAS s0N s2N")
    assert events(after, "snow")[0] == (0, sq("d3"), sq("d1"), 2, 0)
    assert events(after, "off")[0] == (1, sq("d1"), 2)
    assert after.damage[1] == 1


def test_snowball_push_down_a_cliff_is_a_second_damage() -> None:
    # Blue on d2 hit from the north, pushed down the d2|d1 cliff.
    after = play_all(position("d3,d2", "-,dazed"), "sAS s0N s2N")
    assert squares(after)[1] == "d1" and after.damage[1] == 2


def test_snowball_stops_at_the_first_yeti() -> None:
    after = play_all(position("a1,c1,e1", "-,dazed,dazed"), "sAE s0N s2N")
    assert events(after, "hit") == [(1, sq("c1"), 1)]
    assert squares(after) == ["a1", "d1", "e1"]


def test_two_balls_from_two_directions_damage_without_push() -> None:
    state = position("a1,c1,e1", "-,dazed,-")
    after = play_all(state, "sAE s0N s2N", "sAW s0N s2N")
    assert after.damage[1] == 2 and squares(after)[1] == "c1"


def test_push_square_must_be_empty_before_the_volley() -> None:
    # Red hits Blue on c1 (push east to d1); Purple's ball from d3 knocks Green off d1
    # in the same volley. d1 was taken before the volley, so Blue stays.
    state = position("a1,c1,d1,d3", "-,dazed,dazed,-")
    after = play_all(state, "sAE s0N s2N", "sAS s0N s2N")
    assert squares(after)[:2] == ["a1", "c1"]
    assert events(after, "off")[0] == (2, sq("d1"), 2)
    assert after.damage[:3] == (0, 1, 1)


def test_two_yeti_knocked_into_one_square_both_stay() -> None:
    state = position("a1,c1,e1,g1", "-,dazed,dazed,-")
    after = play_all(state, "sAE s0N s2N", "sAW s0N s2N")
    assert squares(after) == ["a1", "c1", "e1", "g1"]
    assert after.damage == (0, 1, 1, 0)


# --- roars: 3(a), 3(b)13-16, 25-27 --------------------------------------------------------


def test_roar_makes_the_pointed_yeti_run() -> None:
    # Blue (pointed at, no check die) rolls 3 and runs east from Red: d2 e2 f2.
    state = position("c2,d2", "-,dazed", seed=seed_for((3,)))
    after = play_all(state, "0E sAW s2W")
    assert events(after, "roll") == [(1, 3)]
    assert events(after, "flee") == [(1, 1, 3)]  # seat 1 runs east with 3 points
    assert squares(after)[1] == "g2"  # e2, f2 level, then down the f2|g2 step
    assert events(after, "check") == []


def test_roar_null_shivers() -> None:
    state = position("c2,d2", "-,dazed", seed=seed_for((0,)))
    after = play_all(state, "0E sAW s2W")
    assert events(after, "shiver") == [(1,)]
    assert squares(after) == ["c2", "d2"]


def test_roar_check_die_for_the_other_neighbours() -> None:
    # Green (c1) neighbours Red's roar: a check die; null means it is affected and
    # runs south from Red, off the board.
    state = position("c2,d2,c1", "-,dazed,dazed", seed=seed_for((0, 0, 2)))
    after = play_all(state, "0E sAW s2W")
    assert events(after, "check") == [(2, 0)]
    assert events(after, "roll") == [(1, 0), (2, 2)]
    assert events(after, "off")[0][0] == 2
    calm = play_all(position("c2,d2,c1", "-,dazed,dazed", seed=seed_for((4, 0))), "0E sAW s2W")
    assert events(calm, "check") == [(2, 4)]
    assert events(calm, "roll") == [(1, 0)]


def test_roar_at_an_empty_square_still_checks_neighbours() -> None:
    state = position("c2,d2", "-,dazed", seed=seed_for((5,)))
    after = play_all(state, "0N sAW s2W")
    assert events(after, "check") == [(1, 5)]


def test_roar_chain_with_an_ace() -> None:
    # Blue rolls an ace and roars back; Red must roll: 2 runs west (away from Blue).
    state = position("c2,d2", "-,dazed", seed=seed_for((1, 2)))
    after = play_all(state, "0E s2N s3N")
    assert events(after, "back") == [(1, sq("d2"), 3, 0)]
    assert events(after, "roll") == [(1, 1), (0, 2)]
    assert squares(after) == ["a2", "d2"]


def test_roar_back_ace_counts_as_null() -> None:
    state = position("c2,d2", "-,dazed", seed=seed_for((1, 1)))
    after = play_all(state, "0E s2N s3N")
    assert events(after, "shiver") == [(0,)]
    assert squares(after) == ["c2", "d2"]


def test_two_roars_let_the_owner_choose_and_chains_reach_others() -> None:
    # Red and Green both roar at Blue; Blue's ace may answer either (flee E = Green).
    # Red neighbours Blue's roar-back: check null, Red rolls an ace and roars back at
    # Blue (RULES 3(b)26); Green's ace is null toward Blue; Blue is affected again (27).
    dice = (1, 0, 1, 1, 0)
    state = position("c2,d2,e2", "-,dazed,-", seed=seed_for(dice))
    waiting = play_all(state, "0E s2N s3N", "0W s2N s3N")
    assert waiting.stage == "flee" and waiting.to_act == frozenset({1})
    assert set(waiting.legal_moves(1)) == {Flee(1), Flee(3)}
    assert waiting.timeout_move(1) == Flee(1)
    after = waiting.play(1, waiting.parse_move(1, "flee E"))
    assert events(after, "back") == [(1, sq("d2"), 1, 2), (0, sq("c2"), 1, 1)]
    assert events(after, "check") == [(0, 0)]
    assert events(after, "roll") == [(0, 1), (2, 1), (1, 0)]
    assert events(after, "shiver") == [(2,), (1,)]


def test_two_roars_and_a_run_choice() -> None:
    state = position("c2,d2,e2", "-,dazed,-", seed=seed_for((3,)))
    waiting = play_all(state, "0E s2N s3N", "0W s2N s3N")
    after = waiting.play(1, Flee(3))  # run from Red (west of Blue): east
    assert events(after, "flee") == [(1, 1, 3)]
    # d2 -> e2 pushes Green to f2 (2 points); 1 left cannot push again.
    assert squares(after) == ["c2", "e2", "f2"]


def test_pointed_roar_excludes_the_check_die() -> None:
    # Blue is pointed at by Red and neighbours Green's roar: no check die (3(b)25).
    state = position("c2,d2,d1", "-,dazed,-", seed=seed_for((0, 0)))
    after = play_all(state, "0E s2N s3N", "0W s2W s3W")
    assert [c for c in events(after, "check") if c[0] == 1] == []
    assert events(after, "roll")[0] == (1, 0)


def test_roars_come_first_then_the_runner_does_its_own_move() -> None:
    # Blue runs 2 east (d2 e2 f2), then its own planned 2N from f2: f3 is up a step.
    state = position("c2,d2", "-,2N+s0S+sAS", seed=seed_for((2,)))
    after = play_all(state, "0E s2W s3W")
    kinds = [e.kind for e in after.events]
    assert kinds.index("flee") < kinds.index("move")
    assert squares(after)[1] == "f3"


def test_runaway_conflict_is_settled_by_roll_off() -> None:
    # Red roars Blue east along row 1 to d1; Green roars Purple down the d2|d1 cliff.
    # Blue first: Purple falls onto d1 with a free push (Blue off), then leaves too.
    # Purple first: Purple falls and leaves; Blue ends on d1.
    dice = (2, 2, 5, 0, 0, 0)
    state = position("a1,b1,d3,d2", "-,dazed,-,dazed", seed=seed_for(dice))
    after = play_all(state, "0E s2N s3N", "0S s2N s3N")
    assert events(after, "roll") == [(1, 2), (3, 2)]
    assert after.stage == "pick" and after.conflict == "run" and after.picker == 0
    options = after.pick_options()
    assert [squares(o.preview) for o in options] == [
        ["a1", "d1", "d3", "off"],
        ["a1", "off", "d3", "off"],
    ]
    assert [o.preview.damage for o in options] == [(0, 0, 0, 1), (0, 0, 0, 1)]
    done = after.play(0, Pick(2))
    assert [e[0] for e in events(done, "off")] == [1, 3]


# --- conflicts and roll-offs: 3(a), 3(b)5, 17, 32 -----------------------------------------


def test_conflict_detected_and_outcomes_listed_in_seat_order() -> None:
    state = position("a1,e1", seed=seed_for((3, 5)))
    after = play_all(state, "2E s0N sAN", "2W s0N sAN")
    assert after.stage == "pick" and after.picker == 1
    assert events(after, "dice") == [(3, 5)]
    options = after.pick_options()
    assert [squares(o.preview) for o in options] == [["b1", "c1"], ["c1", "d1"]]
    assert [str(o.label) for o in options] == [
        "1: Red to b1; Blue to c1",
        "2: Red to c1; Blue to d1",
    ]
    assert after.legal_moves(1) == (Pick(1), Pick(2))
    assert after.timeout_move(1) == Pick(1)
    with pytest.raises(IllegalMoveError):
        after.parse_move(0, "pick 1")
    with pytest.raises(IllegalMoveError):
        after.parse_move(1, "pick 3")
    done = after.play(1, Pick(2))
    assert squares(done) == ["c1", "d1"]
    assert events(done, "pick") == [(1, 2)]


def test_outcome_labels_say_in_words_what_happens_to_each_yeti() -> None:
    state = position("a1,b1", seed=seed_for((5, 0)))
    after = play_all(state, "sAE s0N s2N", "2N s0S s3S")
    assert [str(o.label) for o in after.pick_options()] == [
        "1: Blue to c1 (+1 damage)",
        "2: Blue to b2",
    ]
    state = position("b1,a1", "-,5E+s0N+sAN", seed=seed_for((5, 2)))
    after = play_all(state, "3W s0N sAN")
    assert [str(o.label) for o in after.pick_options()][1] == (
        "2: Red off the board; Blue off the board"
    )


def test_outcome_labels_name_a_yeti_that_stays_and_fit_a_button() -> None:
    from engine.everest import MAX_LABEL, OFF, _outcome_label

    label = _outcome_label(3, (sq("a1"), sq("b1")), (0, 0), (sq("a1"), sq("c1")), (1, 0), (0, 1))
    assert str(label) == "3: Red stays (+1 damage); Blue to c1"
    before = (sq("a1"), sq("b1"), sq("c1"), sq("d1"))
    after = (OFF, OFF, OFF, sq("d2"))
    crowded = _outcome_label(12, before, (0,) * 4, after, (2, 2, 2, 2), range(4))
    assert len(str(crowded)) <= MAX_LABEL == 80
    assert str(crowded) == "12: Red off +2, Blue off +2, Green off +2, Purple d2 +2"
    three = _outcome_label(2, before[:3], (0,) * 3, (OFF,) * 3, (1, 1, 1), range(3))
    assert str(three) == "2: Red off (+1 damage); Blue off (+1 damage); Green off (+1 damage)"


def test_a_roll_off_outcome_is_shown_with_its_neighbours_before_it_is_picked() -> None:
    state = position("a1,e1", seed=seed_for((3, 5)))
    after = play_all(state, "2E s0N sAN", "2W s0N sAN")
    first = after.move_options(1)
    assert [(o.token, o.label) for o in first.options] == [
        ("pick 1", "1: Red to b1; Blue to c1"),
        ("pick 2", "2: Red to c1; Blue to d1"),
    ]
    shown = after.move_options(1, ("pick", "1"))
    assert shown.complete == Pick(1) and shown.options == ()
    assert [(o.token, o.label) for o in shown.browse] == [("pick 2", "outcome 2 ▶")]
    assert str(shown.confirm) == "Pick this" and str(shown.preview) == "1: Red to b1; Blue to c1"
    assert str(shown.prompt) == "Outcome 1 of 2."
    last = after.move_options(1, ("pick", "2"))
    assert [(o.token, o.label) for o in last.browse] == [("pick 1", "◀ outcome 1")]
    assert after.move_options(1, ("pick", "2")).complete == after.parse_move(1, "pick 2")


def test_roll_off_ties_roll_again() -> None:
    state = position("a1,e1", seed=seed_for((4, 4, 2, 5)))
    after = play_all(state, "2E s0N sAN", "2W s0N sAN")
    assert events(after, "dice") == [(4, 4), (2, 5)]
    assert after.picker == 1


def test_roll_off_includes_a_seat_off_the_board() -> None:
    # Green walks off the edge in step 1; Red and Blue meet on c1 in step 2.
    state = position("a1,e1,h1", seed=seed_for((1, 0, 5)))
    after = play_all(state, "s0N 2E sAN", "s0N 2W sAN", "AE s0N s2N")
    assert squares(after)[2] == "off" and after.step == 1
    assert events(after, "dice") == [(1, 0, 5)] and after.picker == 2


def test_crossing_paths_do_not_conflict() -> None:
    # Red crosses b2 (a2 -> c2) while Blue goes b1 -> b4: same board in either order.
    after = play_all(position("a2,b1"), "4E s0W sAW", "4N s0E sAE")
    assert after.stage != "pick" and events(after, "dice") == []
    assert squares(after)[:2] == ["c2", "b4"]


def test_crossing_paths_conflict_when_one_ends_on_the_crossing() -> None:
    after = play_all(position("a2,b1", seed=seed_for((5, 0))), "2E s0W sAW", "4N s0E sAE")
    assert after.stage == "pick" and after.picker == 0
    assert [squares(o.preview) for o in after.pick_options()] == [["b2", "b4"], ["b3", "b2"]]


def test_volley_against_a_mover_conflicts() -> None:
    # Red throws east along row 1 while Blue walks out of the path.
    state = position("a1,c1", seed=seed_for((5, 0)))
    after = play_all(state, "sAE s0N s2N", "AN s0N s2N")
    # c1 -> c2 is a cliff: Blue cannot leave, so no conflict after all.
    assert events(after, "dice") == []
    assert squares(after)[1] == "d1" and after.damage[1] == 1
    # From b1, Blue climbs to b2 out of the path, or is hit first and pushed to c1.
    state = position("a1,b1", seed=seed_for((5, 0)))
    after = play_all(state, "sAE s0N s2N", "2N s0S s3S")
    assert after.stage == "pick"
    assert [(squares(o.preview)[1], o.preview.damage[1]) for o in after.pick_options()] == [
        ("c1", 1),  # c1 comes before b2 in reading order
        ("b2", 0),
    ]


# --- end of the round: 3(a) damage, 3(b)18-21, 30 -----------------------------------------


def test_damage_sets_coins_aside_then_healing_returns_them() -> None:
    after = play_all(position("a2,b2", "-,dazed"), "sAE s0W s2W")
    assert after.stage == "end" and after.to_act == frozenset({1})
    assert set(after.legal_moves(1)) == {Heal(), Stay()}
    assert after.timeout_move(1) == Stay()
    stayed = after.play(1, Stay())
    assert stayed.legal_moves(1)[0] == Aside(0b100000)
    assert len(stayed.legal_moves(1)) == 6
    assert stayed.parse_move(1, "aside") == Aside(0b100000)
    nxt = stayed.play(1, stayed.parse_move(1, "aside 2"))
    assert nxt.stage == "plan" and nxt.aside == (0, 0b000100)
    with pytest.raises(IllegalMoveError, match="set aside"):
        nxt.parse_move(1, "2N s0S sAS")
    # Next round, no damage: healing is still offered because coins are set aside.
    later = play_all(nxt, "s0W sAW s3W", "s0S sAS s3S")
    assert later.stage == "end" and later.to_act == frozenset({1})
    healed = later.play(1, Heal())
    assert healed.aside == (0, 0) and squares(healed)[1] == "h5"


def test_aside_needs_exactly_the_damage() -> None:
    after = play_all(position("a2,b2", "-,dazed"), "sAE s0W s2W").play(1, Stay())
    with pytest.raises(IllegalMoveError, match="exactly 1"):
        after.parse_move(1, "aside 5 4")


def test_no_healing_offer_without_damage_or_coins_aside() -> None:
    after = play_all(position("a1,h6"), "s0W sAW s2W", "s0N sAN s2N")
    assert after.stage == "plan" and after.round == 3


def test_losing_the_last_coin_forces_home_and_heal() -> None:
    state = position("a2,b2", "-,dazed", aside="-,5432A")
    after = play_all(state, "sAE s0W s2W")
    assert after.stage == "plan"
    assert after.aside == (0, 0) and squares(after)[1] == "h5"
    assert events(after, "heal") == [(1,)]


def test_off_the_edge_with_damage_chooses_coins_and_never_heals() -> None:
    # Red falls d3->d2 (1 damage) then d1 (2) and leaves the board.
    after = play_all(position("d3,h6", "-,dazed"), "3S s0N sAN")
    assert after.stage == "end" and after.endq[0] == 2  # asked for coins, not healing
    assert len(after.legal_moves(0)) == 15  # choose 2 of 6
    done = after.play(0, after.parse_move(0, "aside"))
    assert done.aside[0] == 0b110000 and squares(done)[0] == "a2"
    assert events(done, "heal") == []


def test_off_the_edge_with_no_coins_is_dazed_next_round_then_heals() -> None:
    # Red (only the null coin left) is knocked off the edge by Blue's snowball.
    state = position("a1,b1", aside="5432A,-")
    after = play_all(state, "s0N", "sAW s0N s2N")
    assert after.stage == "plan" and after.aside[0] == 0b111111
    assert squares(after)[0] == "a2" and events(after, "heal") == []
    assert after.to_act == frozenset({1}) and after.plans[0] == ()
    later = play_all(after, "s0N sAN s2N")
    assert later.aside[0] == 0 and events(later, "heal") == [(0,)]


def test_bumping_an_occupant_off_a_home_base_in_reading_order() -> None:
    # Red leaves the board from a1; Blue stands on Red's home a2: a1 and b2 are both
    # one square away, a1 comes first in reading order.
    after = play_all(position("a1,a2", "-,dazed"), "AW 2N 3N")
    assert squares(after) == ["a2", "a1"]
    assert events(after, "bump") == [(1, sq("a2"), sq("a1"))]
    assert after.damage == (0, 0)
    crowded = play_all(position("a6,a2,a1", "-,dazed,dazed"), "AN 2E 3E")
    assert squares(crowded) == ["a2", "b2", "a1"]


def test_bump_goes_to_the_next_square_when_the_nearest_is_taken() -> None:
    state = position("h6,a2,a1", "dazed,dazed,-")
    # Green walks off a1 westwards, and back home at h2 (not a2): no bump. Red heals home.
    after = play_all(state, "AW 2N 3N")
    assert squares(after)[2] == "h2"
    state = position("b6,a2,a1", "-,dazed,dazed", aside="5,-,-")
    after = play_all(state, "s0N sAN s2N").play(0, Heal())
    assert events(after, "bump") == [(1, sq("a2"), sq("b2"))]
    assert squares(after) == ["a2", "b2", "a1"]


# --- winning and the cap: 3(a), 3(b)21, 23 -------------------------------------------------


def test_win_by_starting_and_ending_the_round_alone_on_the_peak() -> None:
    state = position("d4,h6", "-,dazed", peak="0")
    after = play_all(state, "s0N sAN s2N")
    assert after.stage == "over" and after.to_act == frozenset()
    result = after.outcome()
    assert result is not None and result.winners == frozenset({0})
    assert after.scores() == (1, 0)
    assert events(after, "win") == [(0,)]


def test_moving_on_the_peak_keeps_the_claim() -> None:
    after = play_all(position("d4,h6", "-,dazed", peak="0"), "AE s0N s2N")
    assert squares(after)[0] == "e4" and after.winner == 0


def test_no_win_when_shared_or_not_started_alone() -> None:
    shared = play_all(position("d4,e3", "-,dazed", peak="-"), "s0N sAN s2N")
    assert shared.outcome() is None
    arrived = play_all(position("c3,h6", "-,dazed"), "2E s0S sAS")
    assert squares(arrived)[0] == "d3" and arrived.outcome() is None and arrived.peak == 0


def test_healing_leaves_the_peak() -> None:
    state = position("d4,h6", "-,dazed", peak="0", aside="5,-")
    after = play_all(state, "s0N sAN s2N").play(0, Heal())
    assert after.outcome() is None and squares(after)[0] == "a2"


def test_round_cap_is_a_draw() -> None:
    after = play_all(position("a1,h6", round_=30), "s0N sAN s2N", "s0N sAN s2N")
    assert after.stage == "over" and after.winner is None
    result = after.outcome()
    assert result is not None and result.is_draw
    free = play_all(position("a1,h6", round_=30, cap=0), "s0N sAN s2N", "s0N sAN s2N")
    assert free.stage == "plan" and free.round == 31


# --- secret plans, views, timeouts: 3(b)24, 33 --------------------------------------------


def test_plans_are_secret_until_the_reveal() -> None:
    state = GAME.new_state(11, 3, None)
    one = state.play(0, state.parse_move(0, "5E 4N s3W"))
    assert one.to_act == frozenset({1, 2})
    for viewer in (1, 2, None):
        text = one.view(viewer).to_text()
        assert "5E" not in text and "plans=?,-,-" in text
        assert GAME.from_text(text) == one.view(viewer)
    assert "5E+4N+s3W" in one.view(0).to_text()
    assert "rng=0:0" in one.view(0).to_text()
    with pytest.raises(IllegalMoveError):
        one.parse_move(0, "5E 4N s3W")


def test_missing_plan_is_all_dazed() -> None:
    state = GAME.new_state(11, 2, None)
    assert state.timeout_move(0) == Plan(())
    after = state.play(0, state.timeout_move(0) or Plan(()))
    after = after.play(1, after.parse_move(1, "s0N sAN s2N"))
    assert after.round == 2 and squares(after) == ["a2", "h5"]
    assert str(Plan(())) == "dazed" and state.parse_move(0, "dazed") == Plan(())


# --- notation ------------------------------------------------------------------------------


def test_notation_errors() -> None:
    good = position("a2,h5").to_text()
    for bad in (
        "",
        "chess",
        good.replace("pos=a2,h5", "pos=a3,h5"),
        good.replace("pos=a2,h5", "pos=a2,a2"),
        good.replace("n=2", "n=5"),
        good.replace("stage=plan", "stage=nap"),
        good + " foo=1",
        good.replace(" rng=1:0", ""),
        good.replace("plans=-,-", "plans=4E+4N,-"),
    ):
        with pytest.raises(NotationError):
            GAME.from_text(bad)


def test_a_yeti_alone_on_the_peak_while_planning_is_named_by_peak() -> None:
    # Red stands alone on d3 as the round starts: peak=0 names it, and nobody else.
    state = GAME.from_text(position("d3,h5", peak="0").to_text())
    assert state.peak == 0 and state.damage == (0, 0)
    with pytest.raises(NotationError, match=r"peak=1: .* yeti 1 does not"):
        position("d3,h5", peak="1")
    # Nor does peak=- leave its claim out, which would deny it the win at the round's end.
    with pytest.raises(NotationError, match=r"peak=-: .* yeti 0 does, so peak=0"):
        position("d3,h5", peak="-")
    # Two yeti on the peak tile: neither is alone, so nobody has claimed it.
    assert position("d3,e4", peak="-").peak is None


# The round-10 end of a 2-player game whose heal event names seat 4.
SEAT_4_HEALS = (
    "everest n=2 cap=30 round=10 stage=plan step=1 pos=a2,h5 aside=2,- dmg=0,0 peak=- "
    "plans=-,- result=- rng=121391:0 ev=aside.0.2,heal.4,home.0.off.a2,home.1.g1.h5,round.10"
)
# Bob, roared at from both sides, chooses whom to run from (RULES 3(b)15).
FLEE = (
    "everest n=3 cap=30 round=2 stage=flee step=1 pos=b5,c5,d5 aside=-,-,- dmg=0,0,0 peak=- "
    "plans=0E+2N+3S,2S+3E+4W,0W+2E+3S choice=-,3EW,- result=- rng=0:1 "
    "ev=reveal,step.1,roar.0.b5.E,roar.2.d5.W,roll.1.3"
)
# Red took one damage and chooses between healing and staying.
END = (
    "everest n=2 cap=30 round=30 stage=end step=3 pos=c2,e2 aside=-,5 dmg=1,0 peak=- "
    "plans=2E+0N+3S,dazed end=h,- result=- rng=0:0 ev=step.3,fall.0.c2"
)


def test_an_event_naming_a_missing_seat_is_refused() -> None:
    with pytest.raises(NotationError, match=r"heal\.4: '4' is not a seat; with 2 players"):
        GAME.from_text(SEAT_4_HEALS)
    assert GAME.from_text(SEAT_4_HEALS.replace("heal.4", "heal.1")).events[1] == Healed(1)


@pytest.mark.parametrize(
    ("good", "old", "new", "fragment"),
    [
        (FLEE, "ev=reveal", "ev=dice.5.3,reveal", "one die per player (3)"),
        (FLEE, "roll.1.3", "roll.1.6", "from 0 to 5"),
        (FLEE, "roar.0.b5.E", "snow.0.b5.c5.E.3", "from 0 to 2"),
        (FLEE, "roar.0.b5.E", "roar.0.b5.X", "is not a direction"),
        (FLEE, "roar.0.b5.E", "roar.0.h4.E", "is not a square"),
        (FLEE, "roar.0.b5.E", "roar.0.off.E", "is not a square"),
        (FLEE, "pos=b5,c5,d5", "pos=b5,c5,h3", "is neither off nor a square"),
        (FLEE, "roar.0.b5.E", "yell.0", "is not an event"),
        (FLEE, "choice=-,3EW,-", "choice=-,3EW,-,-", "needs 3 comma-separated entries"),
        (FLEE, "choice=-,3EW,-", "choice=-,-,-", "stage=flee goes exactly with"),
        (FLEE, "choice=-,3EW,-", "choice=-,3NEW,-", "points at a yeti"),
        (FLEE, "choice=-,3EW,-", "choice=-,3EW,- roars=1W3", "not a seat"),
        (FLEE, "choice=-,3EW,-", "choice=-,3EW,- pick=act:1", "stage=pick goes exactly"),
        (END, "stage=end", "stage=pick", "stage=pick goes exactly"),
        (FLEE, "plans=0E+2N+3S", "plans=?", "once the plans are revealed"),
        (FLEE, "result=-", "result=w1", "exactly when it has a result"),
        (FLEE, "rng=0:1", "rng=0:" + "9" * 30, "rng counter"),
        (FLEE, "rng=0:1", "rng=18446744073709551616:1", "rng seed"),
        (FLEE, "dmg=0,0,0", "dmg=0,-1,0", "dmg: '-1' is not a whole number from 0 to 99"),
        (FLEE, "round=2", "round=31", "round: '31' is not a whole number from 1 to 30"),
        (END, "end=h,-", "end=-,-", "some yeti still chooses"),
        (END, "end=h,-", "end=h,a", "a sets coins aside"),
        (END, "pos=c2,e2", "pos=off,e2", "h (heal or stay)"),
        (END, "end=h,-", "end=h,- chosen=-,5", "chosen: only coins"),
        (END, "stage=end step=3", "stage=end step=2", "step: while planning it is 1"),
        (END, "stage=end", "stage=over", "end and chosen are only used"),
        (END, "result=-", "result=draw", "exactly when it has a result"),
        (SEAT_4_HEALS, "plans=-,-", "plans=dazed,dazed", "some yeti has yet to plan"),
        (SEAT_4_HEALS, "step=1", "step=2", "while planning it is 1"),
        (SEAT_4_HEALS, "peak=-", "peak=2", "not a seat"),
        (SEAT_4_HEALS, "pos=a2,h5", "pos=off,h5", "pos: while planning every yeti stands"),
        (SEAT_4_HEALS, "dmg=0,0", "dmg=0,1", "dmg: while planning no yeti has taken damage"),
        (SEAT_4_HEALS, "peak=-", "peak=0", "peak=0: while planning it names the yeti"),
        (
            SEAT_4_HEALS,
            "pos=a2,h5 aside=2,- dmg=0,0 peak=-",
            "pos=d3,e4 aside=2,- dmg=0,0 peak=1",
            "yeti 1 does not",
        ),
        # A yeti alone on the peak tile as the round starts has claimed it (RULES 3(b)21).
        (SEAT_4_HEALS, "pos=a2,h5", "pos=d3,h5", "peak=-: while planning it names the yeti"),
        (SEAT_4_HEALS, "pos=a2,h5", "pos=a2,e4", "yeti 1 does, so peak=1"),
    ],
)
def test_inconsistent_positions_are_refused_naming_the_field(
    good: str, old: str, new: str, fragment: str
) -> None:
    text = good.replace("heal.4", "heal.1")
    assert GAME.from_text(text).to_text()
    assert old in text
    with pytest.raises(NotationError, match=re.escape(fragment)):
        GAME.from_text(text.replace(old, new))


def test_a_draw_needs_the_last_round_of_a_cap() -> None:
    over = END.replace("stage=end", "stage=over").replace(" end=h,-", "")
    with pytest.raises(NotationError, match="exactly when it has a result"):
        GAME.from_text(over)
    assert GAME.from_text(over.replace("result=-", "result=draw")).outcome() is not None
    for old, new in (("round=30", "round=29"), ("cap=30 round=30", "cap=0 round=30")):
        with pytest.raises(NotationError, match="a draw only comes"):
            GAME.from_text(over.replace("result=-", "result=draw").replace(old, new))


@pytest.mark.parametrize(
    "field", ["n=²", "round=٣", "dmg=0,¹", "step=１", "rng=1²:0", "peak=٠", "ev=round.٣"]
)
def test_notation_numbers_are_ascii_digits_only(field: str) -> None:
    key = field.partition("=")[0]
    text = re.sub(rf"\b{key}=\S*", field, SEAT_4_HEALS.replace("heal.4", "heal.1"))
    with pytest.raises(NotationError):
        GAME.from_text(text)


def test_a_pick_number_in_other_digits_is_not_a_move() -> None:
    state = GAME.from_text(
        "everest n=2 cap=30 round=2 stage=pick step=1 pos=a1,e1 aside=-,- dmg=0,0 peak=- "
        "plans=2E+s0N+sAN,2W+s0N+sAN pick=act:1 result=- rng=0:0 ev=reveal,step.1,dice.3.5"
    )
    assert state.parse_move(1, "pick 2") == Pick(2)
    for text in ("pick ²", "pick ٢", "pick 2²"):
        with pytest.raises(InvalidMoveError, match="outcome number"):
            state.parse_move(1, text)
    with pytest.raises(IllegalMoveError, match="at most 120 outcomes"):
        state.parse_move(1, "pick " + "9" * 5000)


def test_events_round_trip_and_describe() -> None:
    event = Threw(0, sq("a2"), sq("d2"), 1, Flight.HIT)
    assert str(event) == "snow.0.a2.d2.E.0"
    state = play_all(position("a1,e1", seed=seed_for((3, 5))), "2E s0N sAN", "2W s0N sAN")
    assert GAME.from_text(state.to_text()) == state
    lines = [str(x) for x in describe_events(state.events, ("Ann", "Bob"))]
    assert "Conflict! Roll-off: Ann 3, Bob 5." in lines
    assert "Ann moves a1→c1." not in lines  # nothing moved yet: Bob must pick


# --- random playouts: the contract, replays, invariants ------------------------------------


def random_game(seed: int, players: int, *, check: bool = True) -> list[tuple[int, str]]:
    rnd = random.Random(seed)
    state = GAME.new_state(seed, players, None)
    log: list[tuple[int, str]] = []
    while state.to_act:
        for seat in sorted(state.to_act):
            if check and state.stage == "plan":
                own = [p for s, p in enumerate(state.plans) if s != seat and p]
                text = state.view(seat).to_text()
                for plan in own:
                    secret = "+".join(str(Plan((a,))) for a in plan)
                    assert f",{secret}," not in f",{text.split('plans=')[1].split()[0]},"
        seat = rnd.choice(sorted(state.to_act))
        moves = state.legal_moves(seat)
        assert len(moves) > 0
        move = moves[rnd.randrange(len(moves))]
        text = state.move_text(move)
        assert state.parse_move(seat, text) == move
        before = state
        state = state.play(seat, move)
        log.append((seat, text))
        if check:
            assert GAME.from_text(state.to_text()) == state
            on_board = [p for p in state.pos if p >= 0]
            assert len(on_board) == len(set(on_board))
            if state.stage == "plan":
                assert all(p >= 0 for p in state.pos)
            assert state != before
        assert len(log) < 5000
    return log


@pytest.mark.parametrize("seed", range(12))
def test_random_games_end_and_keep_the_contract(seed: int) -> None:
    log = random_game(seed, 2 + seed % 3)
    state = GAME.new_state(seed, 2 + seed % 3, None)
    for seat, text in log:
        state = state.play(seat, state.parse_move(seat, text))
    assert state.outcome() is not None and not state.to_act


def test_replay_from_seed_and_log_gives_the_same_states() -> None:
    log = random_game(99, 4, check=False)
    first = GAME.new_state(99, 4, None)
    second = GAME.new_state(99, 4, None)
    for seat, text in log:
        first = first.play(seat, first.parse_move(seat, text))
        second = second.play(seat, second.parse_move(seat, text))
        assert first == second and first.to_text() == second.to_text()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 4), st.integers(0, 400))
def test_notation_round_trips_along_random_playouts(seed: int, players: int, plies: int) -> None:
    rnd = random.Random(seed)
    state = GAME.new_state(seed, players, "no-cap" if seed % 2 else None)
    for _ in range(plies):
        if not state.to_act:
            break
        seat = rnd.choice(sorted(state.to_act))
        moves = state.legal_moves(seat)
        state = state.play(seat, moves[rnd.randrange(len(moves))])
        for viewer in (None, *range(players)):
            view = state.view(viewer)
            assert GAME.from_text(view.to_text()) == view
        assert GAME.from_text(state.to_text()) == state
        assert all(0 <= m < 64 for m in state.aside)
        assert len(state.events) >= 0


def test_plans_are_offered_best_climb_first_and_say_where_the_yeti_ends() -> None:
    from engine.everest import ALL_COINS, SQUARE_BY_NAME, _climbs, plan_ranking

    state = GAME.new_state(11, 2, None)
    assert isinstance(state, EverestState)
    assert state.pos[0] == SQUARE_BY_NAME["a2"]
    plans = state.legal_moves(0)
    order = state.move_order(0)
    assert order is not None and sorted(order) == list(range(len(plans)))
    first = [str(plans[i]) for i in order[:2]]
    # From a2 (height 1): 4 east climbs to c2, then 2 north to c3 and 3 east over d3 to
    # the peak square e3; or 3 north to c4 and 2 east to d4. Both reach the peak.
    assert first == ["4E 2N 3E", "4E 3N 2E"]
    assert str(plans[0]) == "0N AN 2N"  # the engine's own order starts with roars
    said = [str(state.move_description(0, plans[i])) for i in order[:2]]
    assert said == [
        "ends on the peak, e3 (a step up costs 2)",
        "ends on the peak, d4 (a step up costs 2)",
    ]
    # The order is the computer player's: climbs valued as `_climbs` values them.
    values = dict((climb, value) for value, climb in _climbs(state.pos[0], ALL_COINS))
    ranked = []
    for i in order[:400]:
        actions = plans[i].actions
        climb = tuple((a >> 3, a & 3) for a in actions if not a & 4 and a >> 3)
        ranked.append(values[climb])
    assert ranked == sorted(ranked, reverse=True)
    assert ranked[0] == max(values.values()) == 6.0  # height 5, +1 for the peak
    assert plan_ranking(state.pos[0], ALL_COINS) is plan_ranking(state.pos[0], ALL_COINS)


def test_a_flight_and_the_end_of_round_choices_are_described() -> None:
    flee = GAME.from_text(FLEE)
    said = {str(m): str(flee.move_description(1, m)) for m in flee.legal_moves(1)}
    assert said == {"flee E": "run from Green (west)", "flee W": "run from Red (east)"}
    end = GAME.from_text(END)
    said = {str(m): str(end.move_description(0, m)) for m in end.legal_moves(0)}
    assert said == {
        "heal": "go home and get every coin back",
        "stay": "stay where you are, without the coins set aside",
    }
