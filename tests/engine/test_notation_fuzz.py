"""Bad position notation never makes a broken game, and bad move text never breaks one.

Real positions from seeded random playouts are mutated (a field's value replaced, a number
turned negative, huge or into other scripts' digits, fields dropped, doubled or swapped,
random characters). `Game.from_text` must then either refuse the text with NotationError
or return a state that works everywhere a front-end uses one, drawing included.
"""

from __future__ import annotations

import random
import re
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import registry
from engine.core import Game, GameState, IllegalMoveError, InvalidMoveError, NotationError
from engine.rng import Rng
from render.core import RenderContext
from tests.render.support import options_png, render_png, step_pngs

GAMES = registry.all_games()
IDS = [g.id for g in GAMES]
NAMES = ("Ann", "Bob", "Cyd", "Dee")
FUZZ = settings(
    max_examples=250,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

#: Digits that `str.isdigit` accepts and that are not ASCII: superscripts, circled,
#: Arabic-Indic, Devanagari, Bengali, full-width.
FOREIGN_DIGITS = "²³¹⁰⁴①٣٠۴४০５"
#: Characters a mutation may insert: the notations' own alphabet, blanks and oddities.
CHARS = "0123456789-+=/,:.?abdeghmnoswxABDEHMNSW " + FOREIGN_DIGITS + "\t\n🍄é"
#: The pieces between separators of a notation.
_PIECE = re.compile(r"[^\s=/,:.+]+")
_NUMBER = re.compile(r"[0-9]+")
MAX_PLIES = 400
#: Playouts go on, seed after seed, until the pool holds this many positions.
POOL_SIZE = 300
MAX_SEEDS = 40


@cache
def positions(game_id: str) -> tuple[str, ...]:
    """Positions from seeded random playouts, every seat count and variant."""
    game = registry.get(game_id)
    texts: dict[str, None] = {}
    setups = [
        (players, variant)
        for players in sorted({game.min_players, game.max_players})
        for variant in (None, *game.variant_names())
    ]
    for seed in range(11, 11 + MAX_SEEDS):
        if len(texts) >= POOL_SIZE:
            break
        for players, variant in setups:
            state = game.new_state(seed, players, variant)
            rng = Rng(seed)
            for _ in range(MAX_PLIES):
                texts.setdefault(state.to_text(), None)
                if not state.to_act:
                    break
                seat, rng = rng.choice(sorted(state.to_act))
                move, rng = rng.choice(state.legal_moves(seat))
                state = state.play(seat, move)
    return tuple(texts)


@cache
def kinds_of_positions(game_id: str) -> tuple[tuple[str, ...], ...]:
    """The pool grouped by what is asked (how many seats act, and the kind of move), so
    that rare moments of a game (an Everest roll-off, the end) are drawn as often as
    the common ones."""
    game = registry.get(game_id)
    groups: dict[tuple[int, str], list[str]] = {}
    for text in positions(game_id):
        state = game.from_text(text)
        acting = sorted(state.to_act)
        moves = state.legal_moves(acting[0]) if acting else ()
        kind = type(moves[0]).__name__ if len(moves) else ""
        groups.setdefault((len(acting), kind), []).append(text)
    return tuple(tuple(group) for group in groups.values())


def real_position(game: Game[Any], rnd: random.Random) -> str:
    return rnd.choice(rnd.choice(kinds_of_positions(game.id)))


def odd_number(rnd: random.Random, digits: str) -> str:
    """A number no position holds: negative, huge, or written with other digits."""
    kind = rnd.randrange(7)
    if kind == 0:
        return str(-rnd.randrange(1, 100))
    if kind == 1:
        return str(rnd.choice((10**6, 2**63, 2**64, 10**30)) + rnd.randrange(3))
    if kind == 2:
        return "9" * rnd.choice((5000, 20))
    if kind == 3:
        return "".join(rnd.choice(FOREIGN_DIGITS) if rnd.random() < 0.5 else d for d in digits)
    if kind == 4:
        return digits + rnd.choice(FOREIGN_DIGITS)
    if kind == 5:
        return str(rnd.randrange(0, 8))
    return str(rnd.randrange(8, 40))


def scribble(text: str, rnd: random.Random, cut: int) -> str:
    """`text` with a few random characters written over `cut` of its own, or inserted."""
    at = rnd.randrange(len(text) + 1)
    return (
        text[:at]
        + "".join(rnd.choice(CHARS) for _ in range(rnd.randrange(1, 4)))
        + (text[at + cut :])
    )


def _key(field: str) -> str:
    return field.partition("=")[0] if "=" in field else ""


def _donor_field(fields: list[str], i: int, donor: list[str]) -> str:
    """The donor's field matching `fields[i]`: the same key, else the same place."""
    same = [f for f in donor if _key(f) and _key(f) == _key(fields[i])]
    return same[0] if same else donor[min(i, len(donor) - 1)]


def mutate(text: str, rnd: random.Random, pool: tuple[str, ...]) -> str:
    """One random change to `text`; `pool` holds other positions of the same game."""
    kind = rnd.randrange(6)
    if kind == 0 and (numbers := list(_NUMBER.finditer(text))):
        match = rnd.choice(numbers)
        return text[: match.start()] + odd_number(rnd, match.group()) + text[match.end() :]
    if kind == 1 and (pieces := list(_PIECE.finditer(text))):
        match = rnd.choice(pieces)
        donor_pieces = list(_PIECE.finditer(rnd.choice(pool)))
        new = rnd.choice(donor_pieces).group() if donor_pieces and rnd.random() < 0.7 else ""
        return text[: match.start()] + new + text[match.end() :]
    fields = text.split(" ")
    donor = rnd.choice(pool).split(" ")
    i, j = rnd.randrange(len(fields)), rnd.randrange(len(fields))
    if kind == 2:
        action = rnd.randrange(3)
        if action == 0:
            del fields[i]
        elif action == 1:
            fields.insert(j, fields[i])
        else:
            fields[i], fields[j] = fields[j], fields[i]
        return " ".join(fields)
    if kind == 3:
        # Another position's field (the optional ones of a key=value notation included).
        if rnd.random() < 0.5:
            fields[i] = _donor_field(fields, i, donor)
        else:
            fields.insert(j, rnd.choice(donor))
        return " ".join(fields)
    if kind == 4:
        # One entry of a comma-separated list from the same list in another position.
        key = _key(fields[i])
        prefix = f"{key}=" if key else ""
        entries = fields[i].removeprefix(prefix).split(",")
        others = _donor_field(fields, i, donor).partition("=")[2] if key else donor[0]
        entries[rnd.randrange(len(entries))] = rnd.choice(others.split(","))
        fields[i] = prefix + ",".join(entries)
        return " ".join(fields)
    return scribble(text, rnd, cut=rnd.randrange(3))


def mutated(game: Game[Any], rnd: random.Random) -> str:
    pool = positions(game.id)
    text = real_position(game, rnd)
    for _ in range(rnd.randrange(1, 4)):
        text = mutate(text, rnd, pool)
    return text


def assert_round_trips(game: Game[Any], state: GameState[Any]) -> None:
    text = state.to_text()
    again = game.from_text(text)
    assert again == state, text
    assert again.to_text() == text


def assert_usable(game: Game[Any], state: GameState[Any]) -> None:
    """Everything a front-end or a computer player does with a position works."""
    assert_round_trips(game, state)
    seats = range(state.num_seats)
    assert game.min_players <= state.num_seats <= game.max_players
    names = NAMES[: state.num_seats]
    to_act = state.to_act
    assert to_act <= set(seats)
    outcome = state.outcome()
    assert (outcome is None) == bool(to_act)
    if outcome is not None:
        assert len(outcome.scores) == state.num_seats and outcome.winners <= set(seats)
        assert str(outcome.reason)
    assert len(state.scores()) == state.num_seats
    assert all(str(line) for line in state.report(None, names))
    for viewer in (*seats, None):
        assert_round_trips(game, state.view(viewer))
    for seat in seats:
        moves = state.legal_moves(seat)
        assert bool(len(moves)) == (seat in to_act), (seat, state.to_text())
        options = state.move_options(seat)
        str(options.prompt)
        if options.options:
            state.move_options(seat, (options.options[0].token,))
        if seat in to_act:
            for move in (moves[0], moves[len(moves) - 1]):
                assert state.parse_move(seat, state.move_text(move)) == move
                assert_round_trips(game, state.play(seat, move))
            timeout = state.timeout_move(seat)
            if timeout is not None:
                state.play(seat, timeout)
            state.evaluate(seat)
    public = state.view(None)
    ctx = RenderContext(names=names)
    assert render_png(public, ctx).startswith(b"\x89PNG")
    step_pngs(public, ctx)
    for seat in to_act:
        options_png(state.view(seat), seat, (), RenderContext(names=names, viewer=seat))


def check_text(game: Game[Any], text: str) -> None:
    try:
        state = game.from_text(text)
    except NotationError as exc:
        assert str(exc)
        return
    assert_usable(game, state)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_real_positions_are_usable(game: Game[Any]) -> None:
    for text in positions(game.id)[::25]:
        check_text(game, text)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@FUZZ
@given(rnd=st.randoms(use_true_random=False))
def test_mutated_positions_are_refused_or_usable(game: Game[Any], rnd: random.Random) -> None:
    check_text(game, mutated(game, rnd))


#: Words of every game's moves, for move text made up from scratch.
MOVE_WORDS = (
    "pick", "flee", "aside", "heal", "stay", "dazed", "4E", "sAN", "s", "N",
    "place", "move", "rod", "e4", "e4n", "e4-e5",
    "buy", "inc", "dec", "steal", "beg", "bank", "mushroom", "up", "B2",
    "c2-e4", "a1>a3",
    "d", "D1", "rrr", "L2",
)  # fmt: skip


def move_text(state: GameState[Any], rnd: random.Random) -> str:
    """A legal move's text of a seat to act, or words of moves, then mangled: a number
    made odd, a foreign digit after a letter, random characters."""
    acting = sorted(state.to_act)
    texts = state.move_texts(acting[0]) if acting else ()
    if texts and rnd.random() < 0.7:
        text = texts[rnd.randrange(len(texts))]
    else:
        text = " ".join(rnd.choice(MOVE_WORDS) for _ in range(rnd.randrange(4)))
    for _ in range(rnd.randrange(3)):
        kind = rnd.randrange(3)
        if kind == 0 and (numbers := list(_NUMBER.finditer(text))):
            match = rnd.choice(numbers)
            text = text[: match.start()] + odd_number(rnd, match.group()) + text[match.end() :]
        elif kind == 1 and (letters := [m.end() for m in re.finditer(r"[a-zA-Z]", text)]):
            at = rnd.choice(letters)
            text = text[:at] + rnd.choice(FOREIGN_DIGITS) + text[at:]
        else:
            text = scribble(text, rnd, cut=0)
    return text


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@FUZZ
@given(rnd=st.randoms(use_true_random=False))
def test_move_text_is_a_move_or_a_move_error(game: Game[Any], rnd: random.Random) -> None:
    before = real_position(game, rnd)
    state = game.from_text(before)
    seat = rnd.randrange(-1, state.num_seats + 1)
    text = move_text(state, rnd)
    try:
        move = state.parse_move(seat, text)
    except (InvalidMoveError, IllegalMoveError) as exc:
        assert str(exc)
    else:
        assert_round_trips(game, state.play(seat, move))
    assert state.to_text() == before
    assert game.from_text(before) == state
