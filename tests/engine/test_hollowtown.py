"""Hollowtown (RULES.md section 5): one scenario per ruling, perft against a naive model,
notation and invariants over random games."""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import registry
from engine.ai import greedy_policy
from engine.core import IllegalMoveError, InvalidMoveError, NotationError
from engine.hollowtown import (
    EMPTY,
    HOUSE,
    HollowtownMove,
    HollowtownState,
)
from engine.rng import Rng

GAME = registry.get("hollowtown")
NAMES = ("mushroom", "beehive", "meadow")
CELLS = ("A1", "B1", "C1", "A2", "B2", "C2", "A3", "B3", "C3")


def position(
    board: str,
    market: str,
    supply: tuple[int, int] = (3, 3),
    turn: str = "hollow",
    bank: int | None = None,
    round_: int = 1,
    lastbuy: int = 0,
    extra: str = "",
    rng: str = "5:0",
) -> HollowtownState:
    """A position from notation; the Bank gets whatever the 15 buttons leave over."""
    if bank is None:
        piles = sum(
            int("".join(ch for ch in cell if ch.isdigit()) or 0)
            for cell in board.replace("/", ",").split(",")
        )
        prices = sum(int(row.split("/")[0]) for row in market.split(","))
        bank = 15 - piles - prices - sum(supply)
    text = (
        f"{board} market={market} bank={bank} supply={supply[0]}/{supply[1]} turn={turn} "
        f"round={round_} lastbuy={lastbuy} rng={rng} {extra}"
    )
    state = GAME.from_text(text.strip())
    assert isinstance(state, HollowtownState)
    return state


def legal(state: HollowtownState) -> set[str]:
    return {str(m) for m in state.legal_moves(state.seat_to_act)}


def act(state: HollowtownState, text: str) -> HollowtownState:
    seat = state.seat_to_act
    return state.play(seat, state.parse_move(seat, text))


def refused(state: HollowtownState, text: str) -> str:
    with pytest.raises(IllegalMoveError) as info:
        state.parse_move(state.seat_to_act, text)
    return str(info.value)


# --- set-up (5(a) Setup, rulings 1, 2, 4, 5)
def test_setup_by_dice_over_many_seeds() -> None:
    house_pairs = set()
    removed = set()
    price_values = set()
    bank_values = set()
    for seed in range(4000):
        s = GAME.new_state(seed, 2, None)
        assert s.cells.count(HOUSE) == 1 and s.cells.count(HOUSE + 1) == 1
        assert s.cells.count(EMPTY) == 7
        assert s.places == (s.cells.index(HOUSE), s.cells.index(HOUSE + 1))
        assert sum(s.stock) == 7 and min(s.stock) >= 1  # ruling 4
        assert s.supplies == (3, 3)
        assert s.bank == 15 - 6 - sum(s.prices)  # ruling 5
        assert s.piles == (0,) * 9
        assert s.to_act == frozenset({0}) and s.round == 1
        house_pairs.add(s.places)
        removed.add(s.stock)
        price_values.update(s.prices)
        bank_values.add(s.bank)
    # Ruling 2: every ordered pair of distinct cells, never the same cell twice.
    assert len(house_pairs) == 72
    assert removed == {(1, 3, 3), (3, 1, 3), (3, 3, 1), (2, 2, 3), (2, 3, 2), (3, 2, 2)}
    assert price_values == {1, 2, 3}
    # All prices 3 (1 in 27) leaves the Bank empty; all 1 leaves 6.
    assert bank_values == set(range(7))


def test_setup_is_seeded_and_variant_kept() -> None:
    assert GAME.new_state(11, 2, None) == GAME.new_state(11, 2, None)
    assert GAME.new_state(11, 2, "dice-harvest").variant == "dice-harvest"
    with pytest.raises(ValueError, match="variant"):
        GAME.new_state(1, 2, "dice")
    with pytest.raises(ValueError, match="2 players"):
        GAME.new_state(1, 3, None)


def test_game_metadata() -> None:
    assert GAME.seat_names == ("Hollow", "Dooky")
    assert GAME.draw_seats
    assert GAME.variant_names() == ("dice-harvest",)


# --- ruling 1: letter die = column, number die = row
def test_r1_cells_read_column_letter_then_row_number() -> None:
    s = position("-,-,-/-,Hh,-/-,-,Dd", "1/3,1/2,1/2")
    # Hollow on B2 (column B, row 2): up is B1, left is A2.
    assert act(s, "buy mushroom B1").cells[1] == 0
    assert act(s, "buy mushroom A2").cells[3] == 0
    assert act(s, "buy mushroom b3").cells[7] == 0


# --- ruling 3: Market row order breaks Harvest ties
def test_r3_row_order_beats_board_order_in_harvest() -> None:
    # Beehive on B1 comes before the Mushroom on C1 in reading order, but the Mushroom row
    # is harvested first at equal price; a Bank of 3 pays it in full, the Beehive gets 1.
    s = position("Hh,Be,Mu/-,-,-/-,-,Dd", "2/2,2/2,1/1", supply=(4, 3), turn="dooky", bank=3)
    after = act(s, "inc meadow")
    assert after.piles[2] == 2 and after.piles[1] == 1 and after.bank == 0


def test_r3_reading_order_within_a_type() -> None:
    s = position("Hh,Me,-/-,-,-/Me,-,Dd", "2/2,2/2,1/1", supply=(5, 4), turn="dooky", bank=1)
    after = act(s, "inc mushroom")
    assert after.piles[1] == 1 and after.piles[6] == 0


# --- ruling 4: the town fills exactly
def test_r4_vacant_cells_equal_tiles_on_market() -> None:
    for seed in range(60):
        s = GAME.new_state(seed, 2, None)
        rng = random.Random(seed)
        while not s.is_over:
            assert s.cells.count(EMPTY) == sum(s.stock)
            s = s.play(s.seat_to_act, rng.choice(s.legal_moves(s.seat_to_act)))
        if s.phase == 3:
            assert EMPTY not in s.cells


# --- ruling 6: Buy
def test_r6_buy_pays_the_bank_and_leaves_the_price_in_the_row() -> None:
    s = position("Hh,-,-/-,-,-/-,-,Dd", "2/3,1/2,3/2", supply=(3, 3))
    after = act(s, "buy mushroom B1")
    assert after.prices == (2, 1, 3)
    assert after.stock == (2, 2, 2)
    assert after.supplies == (1, 3)
    assert after.bank == s.bank + 2
    assert after.places == s.places  # the character does not move
    assert after.cells[1] == 0 and after.last_buy == 1


def test_r6_buy_only_next_to_your_character_and_only_if_affordable() -> None:
    s = position("Hh,-,-/-,-,-/-,-,Dd", "2/3,1/2,3/2", supply=(2, 3))
    assert {m for m in legal(s) if m.startswith("buy")} == {
        "buy mushroom B1",
        "buy mushroom A2",
        "buy beehive B1",
        "buy beehive A2",
    }
    assert "not next to Hollow" in refused(s, "buy mushroom B2")
    assert "costs 3 buttons and you have 2" in refused(s, "buy meadow B1")


def test_r6_free_tile_with_zero_price() -> None:
    s = position("Hh,-,-/-,-,-/-,-,Dd", "0/3,1/2,3/2", supply=(0, 3))
    after = act(s, "buy mu A2")
    assert after.supplies == (0, 3) and after.cells[3] == 0


def test_r6_buy_refused_on_occupied_or_exhausted() -> None:
    s = position("Hh,Be,-/-,-,-/-,-,Dd", "1/3,1/0,1/3", supply=(3, 3))
    assert "not vacant" in refused(s, "buy mushroom B1")
    assert "no beehive tiles are left" in refused(s, "buy beehive A2")


# --- ruling 7: moving onto houses
def test_r7_move_onto_any_house_but_not_empty_or_the_other_character() -> None:
    s = position("Hh,D,-/Mu,-,-/-,-,Bed", "1/2,1/2,1/1")
    assert {m for m in legal(s) if m.startswith("move")} == {"move B1", "move A2"}
    own = position("H,Dh,-/Mu,-,-/-,-,Bed", "1/2,1/2,1/1")
    assert "move A1" in legal(own)
    assert "empty" in refused(position("Hh,-,-/-,-,-/-,Dd,-", "1/3,1/2,1/2"), "move B1")
    blocked = position("Hh,Dd,-/-,-,-/-,-,-", "1/3,1/2,1/2")
    assert "Dooky stands on B1" in refused(blocked, "move right")
    assert "top edge" in refused(blocked, "move up")


# --- ruling 8: collect on entering only
def test_r8_moving_collects_every_button_on_the_tile() -> None:
    s = position("Hh,Mu4,-/-,-,-/-,-,Dd", "1/2,1/2,1/2", supply=(3, 3))
    after = act(s, "move B1")
    assert after.supplies == (7, 3) and after.piles[1] == 0 and after.places[0] == 1


def test_r8_staying_collects_nothing_and_occupied_tiles_do_not_grow() -> None:
    s = position("Hh,-,-/-,-,-/D,-,Mud", "1/2,1/2,1/2", supply=(3, 3), turn="dooky")
    after = act(s, "inc mushroom")
    assert after.piles[8] == 0 and after.supplies[1] == 2


# --- ruling 9: Market actions from your own house, never the opponent's
def test_r9_own_house_allows_any_type() -> None:
    s = position("Hh,-,-/-,-,-/-,-,Dd", "1/3,1/2,1/2")
    assert {"inc mushroom", "inc beehive", "inc meadow"} <= legal(s)
    assert {"dec mushroom", "dec beehive", "dec meadow"} <= legal(s)


def test_r9_opponent_house_allows_no_market_action() -> None:
    s = position("H,Dh,-/-,-,-/-,-,Mud", "1/2,1/2,1/2")
    assert not {m for m in legal(s) if m.startswith(("inc", "dec"))}
    assert "own house" in refused(s, "inc mushroom")


def test_r9_tile_allows_only_its_type() -> None:
    s = position("H,Beh,-/-,-,-/-,-,Dd", "1/3,1/1,1/2")
    assert {m for m in legal(s) if m.startswith(("inc", "dec"))} == {
        "inc beehive",
        "dec beehive",
    }
    after = act(s, "inc be")
    assert after.prices == (1, 2, 1) and after.supplies == (2, 3)
    after = act(s, "dec 🐝")
    assert after.prices == (1, 0, 1) and after.supplies == (2, 3) and after.bank == s.bank + 2


# --- ruling 10: no price changes on an exhausted type
def test_r10_exhausted_row_is_frozen() -> None:
    s = position("Hh,Be,Be/Be,-,-/-,-,Dd", "1/3,2/0,1/1")
    assert "inc beehive" not in legal(s) and "dec beehive" not in legal(s)
    assert "price no longer changes" in refused(s, "dec beehive")


# --- ruling 11: Decrease needs a button in the row and one in the supply
def test_r11_decrease_needs_row_and_supply() -> None:
    s = position("Hh,-,-/-,-,-/-,-,Dd", "0/3,1/2,1/2", supply=(1, 3))
    assert "dec mushroom" not in legal(s) and "inc mushroom" in legal(s)
    assert "nothing to take" in refused(s, "dec mushroom")
    broke = position("Hh,-,-/-,-,-/-,-,Dd", "1/3,1/2,1/2", supply=(0, 3))
    assert not {m for m in legal(broke) if m.startswith(("inc", "dec"))}
    assert "you have none" in refused(broke, "dec beehive")


# --- ruling 12: the Thief takes one non-empty exhausted row per action
def test_r12_thief_one_row_per_action() -> None:
    s = position("Mu,Be,-/Mu,-,Dh/Mu,Me,Hd", "2/0,3/1,0/1", supply=(3, 3))
    assert {m for m in legal(s) if m.startswith("steal")} == {"steal mushroom"}
    after = act(s, "steal mu")
    assert after.supplies == (5, 3) and after.prices == (0, 3, 0)
    assert "still on the Market" in refused(s, "steal beehive")
    assert "holds no buttons" in refused(after.play(1, after.legal_moves(1)[0]), "steal mushroom")


def test_r12_thief_must_stand_on_the_opponents_house() -> None:
    s = position("Mu,Be,-/Mu,-,D/Muh,Me,Hd", "2/0,3/1,0/1")
    assert "Dooky's house" in refused(s, "steal mushroom")


# --- ruling 13: the Beggar
def test_r13_empty_supply_may_beg_from_bank_or_any_row() -> None:
    s = position("Hh,-,-/-,-,-/-,-,Dd", "0/3,2/2,1/2", supply=(0, 3))
    begs = {m for m in legal(s) if m.startswith("beg")}
    assert begs == {"beg bank", "beg beehive", "beg meadow"}
    assert "buy mushroom B1" in legal(s)  # begging is optional
    after = act(s, "beg 🌾")
    assert after.supplies == (1, 3) and after.prices == (0, 2, 0)
    after = act(s, "beg bank")
    assert after.supplies == (1, 3) and after.bank == s.bank - 1


def test_r13_beg_refused_while_holding_buttons_with_other_actions() -> None:
    s = position("Hh,-,-/-,-,-/-,-,Dd", "0/3,2/2,1/2", supply=(1, 3))
    assert not {m for m in legal(s) if m.startswith("beg")}
    assert "still has 1 button" in refused(s, "beg bank")


def test_r13_stuck_player_takes_from_the_bank() -> None:
    # Hollow stands on an exhausted Beehive tile: the only step is onto Dooky, the two
    # vacant cells cost more than Hollow has, and Beehive prices no longer change.
    s = position("Dd,Be,Be/Beh,-,-/-,H,-", "2/3,1/0,3/1", supply=(1, 3))
    assert legal(s) == {"beg bank"}
    assert "from the Bank" in refused(s, "beg mushroom")
    no_bank = position("Dd,Be,Be/Beh,-,-/-,H,-", "2/3,1/0,3/1", supply=(1, 8), bank=0)
    assert legal(no_bank) == {"beg mushroom", "beg beehive", "beg meadow"}
    after = act(no_bank, "beg beehive")
    assert after.prices == (2, 0, 3) and after.supplies == (2, 8)


# --- ruling 14: partial Harvest
def test_r14_bank_runs_out_partway() -> None:
    # Order: Meadow A2, Meadow C2 (price 1), Mushroom C1, Beehive B1 (price 2).
    s = position("Hh,Be,Mu/Me,-,Med/-,-,D", "2/1,2/1,1/1", supply=(3, 2), turn="dooky", bank=5)
    after = act(s, "move down")
    assert (after.piles[3], after.piles[5], after.piles[2], after.piles[1]) == (1, 1, 2, 1)
    assert after.bank == 0 and after.round == 2 and after.to_act == frozenset({0})


def test_r14_first_short_tile_gets_the_rest_and_harvest_stops() -> None:
    # Dooky raises the Mushroom to 4, level with the Beehive. Bank 2: Meadow A2 gets 1,
    # Mushroom C1 (first of the two rows) gets the last 1; the Beehive gets nothing.
    s = position("Hh,Be,Mu/Me,-,-/-,-,Dd", "3/2,4/1,1/1", supply=(2, 3), turn="dooky", bank=2)
    after = act(s, "inc mushroom")
    assert (after.piles[3], after.piles[2], after.piles[1]) == (1, 1, 0)


# --- ruling 15: who grows
def test_r15_harvest_eligibility() -> None:
    # A1 Mushroom under Hollow, B1 exhausted Beehive, C1 Meadow at price 0: none grows;
    # only the free Mushroom on A2 does. Houses never hold buttons.
    s = position("Muh,Be,Me/Mu,-,-/H,-,Dd", "2/1,1/0,0/2", supply=(3, 3), turn="dooky")
    after = act(s, "inc mushroom")
    assert after.piles == (0, 0, 0, 3, 0, 0, 0, 0, 0)


# --- ruling 16: the dice-harvest variant
def test_r16_dice_breaks_ties_but_lowest_production_first() -> None:
    # Dooky begs from the Bank, leaving 3: the Meadow on A2 (price 1) is paid first, then
    # 2 buttons go to whichever of Beehive B1 and Mushroom C1 the shuffle puts first.
    firsts = set()
    for seed in range(40):
        s = position(
            "Hh,Be,Mu/Me,-,-/-,-,Dd",
            "2/2,2/1,1/1",
            supply=(6, 0),
            turn="dooky",
            extra="variant=dice-harvest",
            rng=f"{seed}:0",
        )
        after = act(s, "beg bank")
        assert after.piles[3] == 1
        firsts.add((after.piles[1], after.piles[2]))
        assert after.rng.counter > s.rng.counter  # a fresh shuffle was drawn
    assert firsts == {(2, 0), (0, 2)}


def test_r16_standard_harvest_draws_no_dice() -> None:
    s = position("Hh,Be,Mu/Me,-,-/-,-,Dd", "2/2,2/1,1/1", supply=(6, 0), turn="dooky")
    after = act(s, "beg bank")
    assert after.rng == s.rng
    assert (after.piles[3], after.piles[1], after.piles[2]) == (1, 0, 2)


# --- ruling 17: the end
def test_r17_dooky_places_the_last_tile_game_ends_without_harvest() -> None:
    s = position("Hh,Mu,Be/Me,Mu2,Be/Me,-,Dd", "1/1,2/0,0/0", supply=(4, 3), turn="dooky")
    after = act(s, "buy mushroom B3")
    assert after.is_over and after.phase == 3
    assert after.piles == s.piles and after.bank == s.bank + 1
    out = after.outcome()
    assert out is not None and out.scores == (4, 2) and out.winners == frozenset({0})
    assert out.winners == {0} and str(out.reason).endswith(".")  # Hollow


def test_r17_hollow_places_the_last_tile_dooky_acts_once_more() -> None:
    s = position("Hh,-,Be/Me,Mu,Be/Me,Mu5,Dd", "1/1,2/0,0/0", supply=(3, 4), turn="hollow")
    last = act(s, "buy mushroom B1")
    assert last.to_act == frozenset({1}) and last.outcome() is None
    # No Buy, Increase or Decrease is left: only Moves (and nothing to steal here).
    assert legal(last) == {"move C2", "move B3"}
    after = act(last, "move B3")
    assert after.is_over and after.piles[7] == 0 and after.bank == last.bank
    out = after.outcome()
    assert out is not None and out.scores == (2, 9) and out.winners == frozenset({1})


def test_r17_a_tie_is_a_draw() -> None:
    s = position("Hh,Mu,Be/Me,Mu,Be/Me,-,Dd", "1/1,2/0,0/0", supply=(2, 3), turn="dooky")
    out = act(s, "buy mushroom B3").outcome()
    assert out is not None and out.is_draw and out.winners == frozenset()
    assert out.scores == (2, 2) and str(out.reason) == "Every tile is in Hollowtown."


# --- ruling 18: deadlocks
def structural_deadlock(filled: list[bool], hollow: int, dooky: int) -> bool:
    """Ruling 18(a) as written: neither character has a legal Move and neither is next
    to a vacant cell."""

    def stuck(me: int, other: int) -> bool:
        around = [c for c in range(9) if near(me, c)]
        can_move = any(filled[c] and c != other for c in around)
        by_vacant = any(not filled[c] for c in around)
        return not can_move and not by_vacant

    return stuck(hollow, dooky) and stuck(dooky, hollow)


def test_r18a_structural_deadlock_can_never_occur() -> None:
    """Every town there can be: any set of filled cells (houses and tiles alike), both
    characters on distinct filled cells. 18(a) never holds."""
    checked = 0
    for mask in range(1 << 9):
        filled = [bool(mask >> c & 1) for c in range(9)]
        spots = [c for c in range(9) if filled[c]]
        for hollow, dooky in itertools.permutations(spots, 2):
            assert not structural_deadlock(filled, hollow, dooky)
            checked += 1
    assert checked == sum(bin(m).count("1") * (bin(m).count("1") - 1) for m in range(512))


def test_r18b_ten_rounds_without_a_buy_end_after_the_harvest() -> None:
    s = position("Hh,Mu,-/-,-,-/-,-,Dd", "1/2,1/2,1/2", supply=(3, 3), turn="dooky", round_=10)
    after = act(s, "inc mushroom")
    assert after.is_over and after.phase == 4
    assert after.piles[1] == 2  # that round's Harvest still happens
    out = after.outcome()
    assert out is not None and "10 rounds passed without a Buy" in str(out.reason)
    assert out.scores == (3, 2) and out.winners == frozenset({0})


def test_r18b_a_buy_restarts_the_count() -> None:
    s = position("Hh,Mu,-/-,-,-/-,-,Dd", "1/2,1/2,1/2", turn="hollow", round_=10)
    s = act(s, "buy meadow A2")
    s = act(s, "inc mushroom")
    assert not s.is_over and s.round == 11 and s.last_buy == 10
    nine = position("Hh,Mu,-/-,-,-/-,-,Dd", "1/2,1/2,1/2", turn="dooky", round_=10, lastbuy=1)
    assert not act(nine, "inc mushroom").is_over


# --- ruling 19 and 20 are covered by the invariants below and by these
def test_r20_hollow_acts_first_every_round() -> None:
    s = GAME.new_state(3, 2, None)
    rng = random.Random(3)
    for _ in range(30):
        if s.is_over:
            break
        if s.phase != 2:
            assert s.seat_to_act == (0 if s.phase == 0 else 1)
        before = s.round
        s = s.play(s.seat_to_act, rng.choice(s.legal_moves(s.seat_to_act)))
        if s.round != before:
            assert s.seat_to_act == 0


def test_wrong_turn_and_finished_game() -> None:
    s = position("Hh,-,-/-,-,-/-,-,Dd", "1/3,1/2,1/2")
    with pytest.raises(IllegalMoveError, match="Hollow's turn"):
        s.parse_move(1, "inc mushroom")
    assert s.legal_moves(1) == ()
    over = position("Hh,Mu,Be/Me,Mu,Be/Me,-,Dd", "1/1,2/0,0/0", turn="dooky")
    over = act(over, "buy mushroom B3")
    with pytest.raises(IllegalMoveError, match="game is over"):
        over.parse_move(0, "move B1")


# --- move notation (5(c))
def test_canonical_move_text() -> None:
    assert str(HollowtownMove("buy", 0, 4)) == "buy mushroom B2"
    assert str(HollowtownMove("move", -1, 4)) == "move B2"
    assert str(HollowtownMove("inc", 1)) == "inc beehive"
    assert str(HollowtownMove("dec", 2)) == "dec meadow"
    assert str(HollowtownMove("steal", 0)) == "steal mushroom"
    assert str(HollowtownMove("beg")) == "beg bank"
    assert str(HollowtownMove("beg", 2)) == "beg meadow"


@pytest.mark.parametrize(
    "text",
    ["buy mushroom A2", "buy mu a2", "BUY Mushroom A2", "buy 🍄 A2", "buy 🍄A2", "buy  mu   A2"],
)
def test_buy_spellings(text: str) -> None:
    s = position("Hh,-,-/-,-,-/-,-,Dd", "1/3,1/2,1/2")
    assert s.parse_move(0, text) == HollowtownMove("buy", 0, 3)


def test_type_spellings_and_directions() -> None:
    s = position("-,-,-/-,Hh,-/-,-,Dd", "1/3,1/2,1/2")
    for word, ty in [
        ("beehive", 1),
        ("be", 1),
        ("🐝", 1),
        ("meadow", 2),
        ("me", 2),
        ("🌾", 2),
        ("🌾\ufe0f", 2),
    ]:
        assert s.parse_move(0, f"inc {word}") == HollowtownMove("inc", ty)
    for cell in (1, 3, 5, 7):
        m = HollowtownMove("buy", 0, cell)
        assert s.parse_move(0, f"buy mushroom {CELLS[cell].lower()}") == m
    s = position("Hh,Mu,-/Be,-,-/-,-,Dd", "1/2,1/1,1/2")
    assert s.parse_move(0, "move right") == HollowtownMove("move", -1, 1)
    assert s.parse_move(0, "move down") == HollowtownMove("move", -1, 3)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "Empty move"),
        ("jump B2", "not an action"),
        ("buy m B2", "single letters are not landscape types"),
        ("buy b B2", "'B' could be a column"),
        ("inc b", "single letters"),
        ("buy mushroom", "say where the tile goes"),
        ("buy B2 mushroom", "write the type, then a cell"),
        ("buy fungus B2", "'fungus' is not a landscape type"),
        ("buy mushroom D4", "'D4' is not a cell"),
        ("move", "move B2 or move up"),
        ("move north", "or a direction: up, down, left, right"),
        ("inc", "name one landscape type"),
        ("beg", "beg bank"),
        ("beg cup", "not the bank or a landscape type"),
    ],
)
def test_bad_syntax_is_explained(text: str, fragment: str) -> None:
    s = position("Hh,-,-/-,-,-/-,-,Dd", "1/3,1/2,1/2")
    with pytest.raises(InvalidMoveError) as info:
        s.parse_move(0, text)
    assert fragment in str(info.value)


def test_illegal_errors_name_the_input() -> None:
    s = position("Hh,-,-/-,-,-/-,-,Dd", "1/3,1/2,1/2")
    assert refused(s, "buy mu C3").startswith("buy mu C3:")
    with pytest.raises(IllegalMoveError) as info:
        s.play(0, HollowtownMove("move", -1, 1))
    assert str(info.value) == "move B1: B1 is empty; you may only step onto a tile or a house."


def test_every_well_formed_move_is_legal_or_explained() -> None:
    """Over random positions: each of the 49 possible moves either is in legal_moves or
    gets a specific reason (never the generic fallback)."""
    universe = (
        [f"buy {n} {c}" for n in NAMES for c in CELLS]
        + [f"move {c}" for c in CELLS]
        + [f"{v} {n}" for v in ("inc", "dec", "steal", "beg") for n in NAMES]
        + ["beg bank"]
    )
    for seed in range(30):
        s = GAME.new_state(seed, 2, None)
        rng = random.Random(seed)
        while not s.is_over:
            seat = s.seat_to_act
            ok = legal(s)
            for text in universe:
                if text in ok:
                    assert str(s.parse_move(seat, text)) == text
                else:
                    reason = refused(s, text)
                    assert reason.startswith(text + ":") and "not allowed now" not in reason
            s = s.play(seat, rng.choice(s.legal_moves(seat)))


# --- position notation
def test_notation_example_from_the_docstring() -> None:
    text = (
        "Hh,-,-/Mu2,-,Be/-,Dd,Me market=2/1,1/1,0/2 bank=5 supply=3/2 turn=hollow "
        "round=3 lastbuy=2 rng=0:0"
    )
    s = GAME.from_text(text)
    assert s.to_text() == text
    assert s.cells[3] == 0 and s.piles[3] == 2 and s.places == (0, 7)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("Hh,-,-/-,-,-", "3 rows"),
        ("Hh,-/-,-,-/-,-,Dd market=1/3,1/2,1/2", "row 1 needs 3 cells"),
        ("Hh,X,-/-,-,-/-,-,Dd market=1/3,1/2,1/2", "cell B1 is 'X'"),
        ("Hh,-,-/-,-,-/-,-,D market=1/3,1/2,1/2", "Dooky is not on the board"),
        ("Hh,-,-/-,-,-/-,Dd,D", "exactly one house of Dooky"),
        ("Hh,-d,-/-,-,-/-,-,D", "empty cell B1"),
        ("H2h,-,-/-,-,-/-,-,Dd", "only tiles hold buttons"),
        ("Hh,Mu2d,-/-,-,-/-,-,D", "never lie under a character"),
        (
            "Hh,-,-/-,-,-/-,-,Dd market=1/3,1/2,1/2 bank=3 supply=3/3 turn=hollow round=1 "
            "lastbuy=0",
            "missing rng=",
        ),
        (
            "Hh,-,-/-,-,-/-,-,Dd market=1/3,1/2,1/2 bank=3 supply=3/3 turn=hollow round=1 "
            "lastbuy=0 rng=1:0 colour=red",
            "'colour=red' is not a known key",
        ),
        (
            "Hh,-,-/-,-,-/-,-,Dd market=1/3,1/2,1/2 bank=3 bank=3 supply=3/3 turn=hollow "
            "round=1 lastbuy=0 rng=1:0",
            "bank= is given twice",
        ),
        (
            "Hh,-,-/-,-,-/-,-,Dd market=1/3,1/2,1/2 bank=7 supply=3/3 turn=hollow round=1 "
            "lastbuy=0 rng=1:0",
            "add up to 16",
        ),
        (
            "Hh,-,-/-,-,-/-,-,Dd market=1/3,1/2,1/3 bank=3 supply=3/3 turn=hollow round=1 "
            "lastbuy=0 rng=1:0",
            "7 tiles in play",
        ),
        (
            "Hh,Mu,-/-,-,-/-,-,Dd market=1/3,1/2,1/1 bank=3 supply=3/3 turn=hollow round=1 "
            "lastbuy=0 rng=1:0",
            "only 3 mushroom",
        ),
        (
            "Hh,-,-/-,-,-/-,-,Dd market=1/3,1/2,1/2 bank=3 supply=3/3 turn=bob round=1 "
            "lastbuy=0 rng=1:0",
            "turn= is one of",
        ),
        (
            "Hh,-,-/-,-,-/-,-,Dd market=1/3,1/2,1/2 bank=6 supply=3/3 turn=over round=1 "
            "lastbuy=0 rng=1:0",
            "empty Market",
        ),
        (
            "Hh,-,-/-,-,-/-,-,Dd market=1/3,1/2,1/2 bank=6 supply=3/3 turn=hollow round=12 "
            "lastbuy=1 rng=1:0",
            "more than 10 rounds",
        ),
        (
            "Hh,-,-/-,-,-/-,-,Dd market=1/3,1/2,1/2 bank=3 supply=x/3 turn=hollow round=1 "
            "lastbuy=0 rng=1:0",
            "whole number",
        ),
        (
            "Hh,-,-/-,-,-/-,-,Dd market=1/3,1/2,1/2 bank=3 supply=3/3 turn=hollow round=1 "
            "lastbuy=0 rng=1:0 variant=fast",
            "only variant is dice-harvest",
        ),
    ],
)
def test_bad_notation_is_explained(text: str, fragment: str) -> None:
    with pytest.raises(NotationError) as info:
        GAME.from_text(text)
    assert fragment in str(info.value)


START = (
    "Hh,Mu2,-/-,-,-/-,-,Dd market=1/2,1/2,1/2 bank=4 supply=3/3 turn=hollow round=1 "
    "lastbuy=0 rng=1:0"
)


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        ("supply=3/3", "supply=3/3²", "supply= needs a whole number from 0 to 15"),
        ("supply=3/3", "supply=3/٣", "supply= needs a whole number from 0 to 15"),
        ("bank=4", "bank=⁴", "bank= needs a whole number from 0 to 15"),
        ("market=1/2", "market=1/２", "market= needs a whole number from 0 to 3"),
        ("round=1", "round=¹", "round= needs a whole number from 0 to 999"),
        ("lastbuy=0", "lastbuy=٠", "lastbuy= needs a whole number"),
        ("rng=1:0", "rng=1²:0", "rng= needs a whole number"),
        ("rng=1:0", "rng=1:" + "9" * 5000, "rng= needs a whole number"),
        ("Mu2", "Mu٢", "cell B1 is 'Mu٢'"),
        ("Mu2", "Mu" + "9" * 5000, "cell B1 holds more than the 15 buttons"),
    ],
)
def test_notation_numbers_are_ascii_digits_only(old: str, new: str, fragment: str) -> None:
    assert GAME.from_text(START).to_text() == START
    with pytest.raises(NotationError, match=re.escape(fragment)):
        GAME.from_text(START.replace(old, new, 1))


def test_a_stalled_game_stalled_exactly_ten_rounds_after_the_last_buy() -> None:
    stalled = START.replace("turn=hollow round=1", "turn=stalled round=10")
    assert GAME.from_text(stalled).outcome() is not None
    with pytest.raises(NotationError, match="turn=stalled comes exactly 10 rounds"):
        GAME.from_text(stalled.replace("round=10", "round=9"))


def test_view_hides_the_dice() -> None:
    s = GAME.new_state(99, 2, "dice-harvest")
    for seat in (0, 1, None):
        v = s.view(seat)
        assert v.rng == Rng(0, 0) and "rng=0:0" in v.to_text()
        assert v.cells == s.cells and v.supplies == s.supplies and v.variant == s.variant
    assert "rng=99:" in s.to_text()


# --- the step-by-step builder
def test_builder_offers_action_then_type_then_cell() -> None:
    s = position("Hh,Mu2,-/-,-,-/-,-,Dd", "2/2,1/2,1/2", supply=(1, 3))
    first = s.move_options(0)
    assert [o.token for o in first.options] == ["buy", "move", "inc", "dec"]
    assert first.options[0].label == "🛒 Buy"
    buy = s.move_options(0, ("buy",))
    assert [o.token for o in buy.options] == ["beehive", "meadow"]
    assert buy.options[0].label == "🐝 Beehive: 1 button"
    where = s.move_options(0, ("buy", "beehive"))
    assert [o.token for o in where.options] == ["A2"]
    done = s.move_options(0, ("buy", "beehive", "A2"))
    assert done.complete == HollowtownMove("buy", 1, 3) and not done.options
    step = s.move_options(0, ("move",))
    assert [(o.token, o.label) for o in step.options] == [("B1", "➡️ B1 +2")]
    inc = s.move_options(0, ("inc",))
    assert inc.options[0].label == "🍄 Mushroom: price 2 → 3"
    assert "Raise" in str(inc.prompt)
    for move in s.legal_moves(0):
        assert s.parse_move(0, " ".join(s.move_tokens(move))) == move


# --- perft against a naive model
@dataclass
class Naive:
    cells: list[int]
    piles: list[int]
    places: list[int]
    prices: list[int]
    stock: list[int]
    bank: int
    supplies: list[int]
    phase: int
    round: int
    last_buy: int


def to_naive(s: HollowtownState) -> Naive:
    return Naive(
        list(s.cells),
        list(s.piles),
        list(s.places),
        list(s.prices),
        list(s.stock),
        s.bank,
        list(s.supplies),
        s.phase,
        s.round,
        s.last_buy,
    )


def near(a: int, b: int) -> bool:
    return abs(a % 3 - b % 3) + abs(a // 3 - b // 3) == 1


def naive_moves(n: Naive) -> list[str]:
    if n.phase > 2:
        return []
    seat = 0 if n.phase == 0 else 1
    me, other, money = n.places[seat], n.places[1 - seat], n.supplies[seat]
    out = []
    for ty in range(3):
        for c in range(9):
            if near(me, c) and n.cells[c] == EMPTY and n.stock[ty] and money >= n.prices[ty]:
                out.append(f"buy {NAMES[ty]} {CELLS[c]}")
    out += [
        f"move {CELLS[c]}" for c in range(9) if near(me, c) and n.cells[c] != EMPTY and c != other
    ]
    for ty in range(3):
        may = n.stock[ty] > 0 and n.cells[me] in (ty, HOUSE + seat) and money > 0
        if may:
            out.append(f"inc {NAMES[ty]}")
        if may and n.prices[ty] > 0:
            out.append(f"dec {NAMES[ty]}")
    for ty in range(3):
        if n.cells[me] == HOUSE + 1 - seat and n.stock[ty] == 0 and n.prices[ty] > 0:
            out.append(f"steal {NAMES[ty]}")
    rows = [f"beg {NAMES[ty]}" for ty in range(3) if n.prices[ty] > 0]
    if money == 0:
        out += (["beg bank"] if n.bank else []) + rows
    elif not out:
        out += ["beg bank"] if n.bank else rows
    return out


def naive_play(n: Naive, text: str) -> Naive:
    n = Naive(
        list(n.cells),
        list(n.piles),
        list(n.places),
        list(n.prices),
        list(n.stock),
        n.bank,
        list(n.supplies),
        n.phase,
        n.round,
        n.last_buy,
    )
    seat = 0 if n.phase == 0 else 1
    words = text.split()
    ty = NAMES.index(words[1]) if words[1] in NAMES else -1
    if words[0] == "buy":
        c = CELLS.index(words[2])
        n.supplies[seat] -= n.prices[ty]
        n.bank += n.prices[ty]
        n.stock[ty] -= 1
        n.cells[c] = ty
        n.last_buy = n.round
        if sum(n.stock) == 0:
            n.phase = 2 if n.phase == 0 else 3
            return n
    elif words[0] == "move":
        c = CELLS.index(words[1])
        n.places[seat] = c
        n.supplies[seat] += n.piles[c]
        n.piles[c] = 0
    elif words[0] == "inc":
        n.supplies[seat] -= 1
        n.prices[ty] += 1
    elif words[0] == "dec":
        n.supplies[seat] -= 1
        n.prices[ty] -= 1
        n.bank += 2
    elif words[0] == "steal":
        n.supplies[seat] += n.prices[ty]
        n.prices[ty] = 0
    elif ty >= 0:
        n.supplies[seat] += 1
        n.prices[ty] -= 1
    else:
        n.supplies[seat] += 1
        n.bank -= 1
    if n.phase == 2:
        n.phase = 3
    elif n.phase == 0:
        n.phase = 1
    else:
        todo = [
            (n.prices[n.cells[c]], n.cells[c], c)
            for c in range(9)
            if n.cells[c] < 3 and n.stock[n.cells[c]] and n.prices[n.cells[c]] and c not in n.places
        ]
        for price, _, c in sorted(todo):
            pay = min(price, n.bank)
            n.piles[c] += pay
            n.bank -= pay
        if n.round - n.last_buy >= 10:
            n.phase = 4
        else:
            n.phase, n.round = 0, n.round + 1
    return n


def perft_engine(s: HollowtownState, depth: int) -> int:
    if depth == 0:
        return 1
    seat = s.seat_to_act
    return sum(perft_engine(s.play(seat, m), depth - 1) for m in s.legal_moves(seat))


def perft_naive(n: Naive, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft_naive(naive_play(n, m), depth - 1) for m in naive_moves(n))


PERFT_POSITIONS = [
    GAME.new_state(1, 2, None).to_text(),
    GAME.new_state(2024, 2, None).to_text(),
    "Hh,Mu,Be/Me,-,Med/-,-,D market=2/1,2/1,1/1 bank=5 supply=3/2 turn=dooky round=4 "
    "lastbuy=2 rng=0:0",
    "Hh,-,Be/Me,Mu,Be/Me,Mu5,Dd market=1/1,2/0,0/0 bank=0 supply=3/4 turn=hollow round=7 "
    "lastbuy=6 rng=0:0",
    "Mu,Be,-/Mu,-,Dh/Mu,Me,Hd market=2/0,3/1,0/1 bank=4 supply=3/3 turn=hollow round=9 "
    "lastbuy=8 rng=0:0",
    "Dd,Be,Be/Beh,-,-/-,H,- market=2/3,1/0,3/1 bank=0 supply=0/9 turn=hollow round=5 "
    "lastbuy=3 rng=0:0",
]


@pytest.mark.parametrize("text", PERFT_POSITIONS)
def test_perft_matches_naive_model(text: str) -> None:
    s = GAME.from_text(text)
    assert isinstance(s, HollowtownState)
    for depth in (1, 2, 3):
        assert perft_engine(s, depth) == perft_naive(to_naive(s), depth), depth


def test_perft_fixed_counts() -> None:
    # Hollow on A1 (own house), B1 vacant, only Mushrooms left on the Market. Replies,
    # counted by hand: after the last Buy Dooky has 2 Moves; after move A2 or inc, 2
    # Moves + inc + dec; after dec (price 0), 2 Moves + inc. 2 + 4 + 4 + 3 = 13.
    s = GAME.from_text(PERFT_POSITIONS[3])
    assert isinstance(s, HollowtownState)
    assert sorted(legal(s)) == ["buy mushroom B1", "dec mushroom", "inc mushroom", "move A2"]
    assert [perft_engine(s, d) for d in (1, 2)] == [4, 13]


def test_naive_model_agrees_state_by_state() -> None:
    for seed in range(40):
        s = GAME.new_state(seed, 2, None)
        rng = random.Random(seed)
        while not s.is_over:
            move = rng.choice(s.legal_moves(s.seat_to_act))
            expected = naive_play(to_naive(s), str(move))
            s = s.play(s.seat_to_act, move)
            assert to_naive(s) == expected


# --- invariants over random games (Hypothesis)
def check_invariants(s: HollowtownState) -> None:
    # Ruling 19: every button is somewhere.
    assert s.bank + sum(s.prices) + sum(s.supplies) + sum(s.piles) == 15
    assert min(s.bank, *s.prices, *s.supplies, *s.piles) >= 0
    assert s.cells.count(EMPTY) == sum(s.stock)
    assert all(s.piles[c] == 0 for c in range(9) if s.cells[c] >= HOUSE)
    assert s.piles[s.places[0]] == 0 and s.piles[s.places[1]] == 0
    assert s.places[0] != s.places[1] and EMPTY not in (s.cells[p] for p in s.places)
    filled = [cell != EMPTY for cell in s.cells]
    assert not structural_deadlock(filled, *s.places)
    assert GAME.from_text(s.to_text()) == s
    assert GAME.from_text(s.view(0).to_text()) == s.view(1)
    assert s.scores() == s.supplies
    if not s.is_over:
        assert s.legal_moves(s.seat_to_act)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    dice=st.booleans(),
    picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=120),
)
def test_random_games_keep_the_invariants(seed: int, dice: bool, picks: list[int]) -> None:
    s = GAME.new_state(seed, 2, "dice-harvest" if dice else None)
    assert isinstance(s, HollowtownState)
    check_invariants(s)
    for pick in picks:
        if s.is_over:
            assert s.outcome() is not None
            break
        seat = s.seat_to_act
        moves = s.legal_moves(seat)
        move = moves[pick % len(moves)]
        assert s.parse_move(seat, str(move)) == move
        s = s.play(seat, move)
        check_invariants(s)


def test_random_games_end() -> None:
    for seed in range(200):
        s = GAME.new_state(seed, 2, "dice-harvest" if seed % 2 else None)
        rng = random.Random(seed)
        plies = 0
        while not s.is_over:
            s = s.play(s.seat_to_act, rng.choice(s.legal_moves(s.seat_to_act)))
            plies += 1
        # At most 10 rounds per Buy and 7 Buys, two actions a round plus Dooky's last.
        assert plies <= 2 * 10 * 8 + 1
        out = s.outcome()
        assert out is not None and out.scores == s.supplies


# --- the computer player's heuristic
def test_evaluate_finished_games_and_sign() -> None:
    won = act(
        position("Hh,Mu,Be/Me,Mu2,Be/Me,-,Dd", "1/1,2/0,0/0", supply=(4, 3), turn="dooky"),
        "buy mushroom B3",
    )
    assert won.evaluate(0) == 1002 and won.evaluate(1) == -1002
    s = position("Hh,Mu4,-/-,-,-/-,-,Dd", "1/2,1/2,1/2")
    assert s.evaluate(0) > 0 > s.evaluate(1)


@pytest.mark.parametrize("greedy_seat", [0, 1])
def test_greedy_play_beats_random_play(greedy_seat: int) -> None:
    wins = 0
    games = 40
    for seed in range(games):
        s = GAME.new_state(seed, 2, None)
        rng = random.Random(seed)
        while not s.is_over:
            seat = s.seat_to_act
            if seat == greedy_seat:
                move = greedy_policy(s, seat, Rng(seed, s.round))
            else:
                move = rng.choice(s.legal_moves(seat))
            s = s.play(seat, move)
        out = s.outcome()
        assert out is not None
        wins += greedy_seat in out.winners
    assert wins >= games * 0.75


def test_the_harvest_is_told_when_a_move_ends_the_round() -> None:
    state = GAME.new_state(5, 2, None)
    rng = Rng(3)
    told = []
    for _ in range(12):
        seat = min(state.to_act)
        move, rng = rng.choice(state.legal_moves(seat))
        previous, state = state, state.play(seat, move)
        report = [str(line) for line in state.report(previous, ("alice", "bob"))]
        assert bool(report) == (state.round > previous.round)
        told += report
    assert "Harvest: the Bank pays 2 on B2 (beehive)." in told
    assert "Harvest: nothing grows this round." in told


def test_an_action_is_described_by_its_price_and_what_it_brings() -> None:
    state = registry.get("hollowtown").from_text(
        "Hh,-,-/Mu2,-,Be/-,Dd,Me market=2/1,1/1,0/2 bank=5 supply=3/2 turn=hollow "
        "round=3 lastbuy=2 rng=0:0"
    )

    def said(text: str) -> str:
        return str(state.move_description(0, state.parse_move(0, text)))

    assert said("buy mushroom B1") == "costs 2 buttons; the last mushroom tile, it grows nothing"
    assert said("buy meadow B1") == "costs 0 buttons; the tile grows nothing at price 0"
    assert said("move A2") == "collects 2 buttons"
    assert said("inc mushroom") == "costs 1 button; mushroom price 2 → 3"
    assert said("dec beehive") == "costs 1 button; beehive price 1 → 0"
    assert state.move_description(1, state.parse_move(0, "move A2")) is None  # not Dooky's turn
    priced = registry.get("hollowtown").from_text(
        "Hh,-,-/Mu2,-,Be/-,Dd,Me market=1/1,1/1,1/2 bank=5 supply=3/2 turn=hollow "
        "round=3 lastbuy=2 rng=0:0"
    )
    assert str(priced.move_description(0, priced.parse_move(0, "buy meadow B1"))) == (
        "costs 1 button; the tile grows 1 a Harvest"
    )
