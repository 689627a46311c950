"""Adding a game (docs/adding-a-game.md), checked end to end with the toy game Pebbles
(tests/toygame.py): registered for these tests only, it keeps the engine contract and is
played through the service, the console and the real bot against a fake Discord, with no
line of the host or the Discord layer written for it."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from cogs.client import HilltopBot
from console.front import Console, console_front
from data.storage import Storage
from engine import ai, registry
from engine.core import IllegalMoveError, InvalidMoveError, NotationError
from engine.text import speaking
from host import catalog, i18n
from host.model import Reply, ServiceError
from host.service import GameService
from host.setup import GameSetup
from render.core import DEFAULT_THEME, RenderContext, encode_png
from tests.cogs.fake_discord import CallbackType, FakeDiscord, running, serving
from tests.engine import test_contract as contract
from tests.host.conftest import ALICE, BOB, BOT, HERE, make_service
from tests.houses import bot_houses, house_of
from tests.toygame import (
    GAME,
    HEIGHT,
    LISTING,
    PEBBLE,
    RADIUS,
    TRAY,
    WIDTH,
    PebblesState,
    Take,
    pebble_center,
    pebbles_registered,
    render,
)

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ROOT / "host" / "locale"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Seed 0 gives a pile of 11: not a multiple of four, so the first seat can force a win.
SEED = 0
PILE = 11


@pytest.fixture
def pebbles() -> Iterator[catalog.Listing]:
    """Pebbles is a hosted game during the test, and no longer after it."""
    with pebbles_registered() as listing:
        yield listing


@pytest.fixture
async def service(storage: Storage) -> AsyncIterator[GameService]:
    svc = make_service(storage, images=True)
    yield svc
    svc.close()


def state(text: str) -> PebblesState:
    position = GAME.from_text(text)
    assert isinstance(position, PebblesState)
    return position


async def stored(service: GameService) -> tuple[int, str]:
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None
    return record.ply, record.snapshot


def last_take(pile: int) -> int:
    """A simple line of play: one pebble at a time until the rest can be taken at once."""
    return pile if pile <= 3 else 1


# --- registering ------------------------------------------------------------------------
def test_registering_adds_the_game_everywhere_and_unregistering_removes_it(
    service: GameService,
) -> None:
    assert ("pebbles", "Pebbles") not in service.game_choices()
    with pebbles_registered() as listing:
        assert catalog.listing("pebbles") is listing is LISTING
        assert registry.get("pebbles") is GAME
        assert ("pebbles", "Pebbles") in service.game_choices()
    assert ("pebbles", "Pebbles") not in service.game_choices()
    assert GAME not in registry.all_games()
    with pytest.raises(KeyError):
        catalog.listing("pebbles")


# --- its parts, as tests/host/test_catalog.py checks every hosted game ------------------
def test_pebbles_has_every_part_a_hosted_game_has(pebbles: catalog.Listing) -> None:
    assert pebbles.parts() == {
        "engine": "tests/toygame.py",
        "renderer": "tests/toygame.py",
        "rules page": "tests/toygame_rules.md",
        "Polish rules page": "tests/pl/toygame_rules.md",
        "Polish messages": "host/locale/pl/LC_MESSAGES/hilltop.po",
    }
    assert catalog.missing_parts(pebbles) == []
    i18n.install()
    english = pebbles.rules_pages()
    with speaking("pl"):
        polish = pebbles.rules_pages()
        assert str(GAME.blurb) == "Bierz 1, 2 albo 3 kamyki; wygrywa ten, kto weźmie ostatni."
    assert len(polish) == len(english) == 3 and polish != english
    assert polish[1].startswith("**Polecenia**") and polish[2].startswith("**Zasady domowe**")


def test_a_message_of_pebbles_without_its_polish_is_named(
    pebbles: catalog.Listing, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = LOCALES / "pl" / "LC_MESSAGES" / "hilltop.po"
    messages = tmp_path / "pl" / "LC_MESSAGES" / "hilltop.po"
    messages.parent.mkdir(parents=True)
    untranslated = 'msgid "How many pebbles do you take?"\nmsgstr ""\n'
    text = written.read_text(encoding="utf-8")
    text = text.replace(
        'msgid "How many pebbles do you take?"\nmsgstr "Ile kamyków bierzesz?"\n', untranslated
    )
    messages.write_text(text, encoding="utf-8")
    assert untranslated in messages.read_text(encoding="utf-8")
    monkeypatch.setattr(i18n, "locale_dir", lambda: tmp_path)

    [missing] = catalog.missing_parts(pebbles)
    source = (ROOT / "tests" / "toygame.py").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(source, 1) if '"How many pebbles do you take?"' in text)
    where = f"tests/toygame.py:{line}"
    assert missing == (
        f"Pebbles (pebbles): no Polish translation of 'How many pebbles do you take?' ({where}): "
        f"run make messages, then translate in {messages} (make compiles it)"
    )


def test_the_recipe_lists_the_files_a_game_is_made_of() -> None:
    """The recipe's table of files is the listing's parts, the catalogue line and the
    messages template: what `make test` needs of a new game, and nothing more."""
    recipe = (ROOT / "docs" / "adding-a-game.md").read_text(encoding="utf-8")
    table = recipe.split("\n\n| file |", 1)[1].split("\n\n", 1)[0]
    files = re.findall(r"^\| `([^`]+)` \|", table, re.MULTILINE)
    hokito = catalog.listing("hokito")
    parts = {path.replace("hokito", "<id>") for path in hokito.parts().values()}
    assert sorted(files) == sorted(parts | {"host/catalog.py", "host/locale/hilltop.pot"})
    assert len(files) == len(set(files))


# --- the engine contract, as tests/engine/test_contract.py checks every hosted game ----
CONTRACT: list[Callable[..., None]] = [
    *(partial(contract.test_random_playouts_keep_the_contract, seed=s) for s in (1, 2, 3)),
    contract.test_moves_round_trip_through_their_text,
    contract.test_move_texts_write_out_every_legal_move_in_order,
    contract.test_replay_from_seed_and_log_is_exact,
    contract.test_views_never_show_the_seed,
    contract.test_bad_input_raises_move_errors_and_changes_nothing,
    contract.test_builder_reaches_every_legal_move,
    contract.test_computer_player_makes_legal_moves,
]


@pytest.mark.parametrize("check", CONTRACT, ids=lambda c: getattr(c, "func", c).__name__)
def test_pebbles_keeps_the_engine_contract(
    pebbles: catalog.Listing, check: Callable[..., None]
) -> None:
    check(GAME)


def test_the_seed_gives_the_pile() -> None:
    assert GAME.new_state(SEED, 2, None) == PebblesState(PILE, 0)
    piles = {GAME.new_state(seed, 2, None).pile for seed in range(200)}
    assert piles == set(range(9, 16))


def test_notation_round_trips_and_explains_refusals() -> None:
    assert state("pebbles 11 to=0") == PebblesState(11, 0)
    assert state(" Pebbles 0 to=1 ").to_text() == "pebbles 0 to=1"
    for text, reason in [
        ("stones 3", "expected `pebbles <pile> to=<seat>`"),
        ("pebbles 61 to=0", "at most 60 pebbles, not 61"),
        ("pebbles 3 to=2", "the seat to move is 0 or 1, not 2"),
    ]:
        with pytest.raises(NotationError, match=reason):
            GAME.from_text(text)


def test_move_errors_name_the_input_and_the_rule() -> None:
    start = state("pebbles 2 to=0")
    assert start.parse_move(0, "TAKE 2") == start.parse_move(0, "2") == Take(2)
    with pytest.raises(InvalidMoveError, match=r"^banana: not a move; write take 1"):
        start.parse_move(0, "banana")
    with pytest.raises(IllegalMoveError, match=r"^take 4: a turn takes 1, 2 or 3 pebbles, not 4"):
        start.parse_move(0, "take 4")
    with pytest.raises(IllegalMoveError, match=r"^take 3: only 2 pebbles are left\.$"):
        start.parse_move(0, "take 3")
    with pytest.raises(IllegalMoveError, match=r"^take 2: only 1 pebble is left\.$"):
        state("pebbles 1 to=0").parse_move(0, "take 2")
    with pytest.raises(IllegalMoveError, match="It is First's turn"):
        start.play(1, Take(1))
    end = start.play(0, Take(2))
    assert end.to_act == frozenset() and start == state("pebbles 2 to=0")
    outcome = end.outcome()
    assert outcome is not None and outcome.winners == {0}
    assert str(outcome.reason) == "First took the last pebble."


def test_the_computer_leaves_a_multiple_of_four(pebbles: catalog.Listing) -> None:
    for pile in (5, 6, 7, 9, 10, 11, 13, 14, 15):
        move = ai.choose_move(state(f"pebbles {pile} to=1"), 1, "normal")
        assert isinstance(move, Take) and (pile - move.count) % 4 == 0, pile


# --- drawing ------------------------------------------------------------------------------
def colour_at(image: Image.Image, xy: tuple[int, int]) -> tuple[int, ...]:
    palette = image.getpalette()
    value = image.getpixel(xy)
    assert palette is not None and isinstance(value, int | float)
    index = int(value)
    return tuple(palette[3 * index : 3 * index + 3])


def test_the_board_draws_the_pile_and_rings_what_the_last_move_took() -> None:
    before = state("pebbles 9 to=0")
    move = before.parse_move(0, "take 3")
    after = before.play(0, move)
    image = render(after, RenderContext(names=("ann", "bo"), last_move=move, previous=before))
    assert image.mode == "P" and image.size == (WIDTH, HEIGHT)
    for index in range(6):
        assert colour_at(image, pebble_center(index)) == PEBBLE
    for index in (6, 7, 8):
        x, y = pebble_center(index)
        assert colour_at(image, (x, y)) == TRAY  # a ring: hollow
        assert colour_at(image, (x + RADIUS - 1, y)) == DEFAULT_THEME.path
    assert colour_at(image, pebble_center(9)) == TRAY
    # Without the last move nothing is ringed; the same inputs give the same bytes.
    plain = render(after, RenderContext())
    x, y = pebble_center(6)
    assert colour_at(plain, (x + RADIUS - 1, y)) == TRAY
    png = LISTING.renderer.board_png(after, RenderContext(last_move=move))
    assert png.startswith(PNG_SIGNATURE)
    assert png == encode_png(render(after, RenderContext(last_move=Take(3))))


# --- through the service --------------------------------------------------------------
async def test_a_whole_game_through_the_service(
    pebbles: catalog.Listing, service: GameService
) -> None:
    [challenge] = await service.start(
        HERE, ALICE, GameSetup("pebbles", seed=SEED, seat="first"), [BOB]
    )
    assert "alice challenges bob to Pebbles" in challenge.text
    [board] = await service.accept(HERE, BOB)
    assert "alice (First) to move." in board.text
    assert [c.label for c in board.picks] == [
        f"Take {n} (leaves {PILE - n} pebbles)" for n in (1, 2, 3)
    ]
    assert board.pick_placeholder == "How many pebbles do you take?"
    assert board.fields == ()  # has_scores = False: no points shown
    assert board.image is not None and board.image.startswith(PNG_SIGNATURE)

    start = (0, f"pebbles {PILE} to=0")
    assert await stored(service) == start
    with pytest.raises(ServiceError, match=r"not your turn: waiting for alice \(First\)"):
        await service.move(HERE, BOB, "take 1")
    with pytest.raises(ServiceError, match="take 4: a turn takes 1, 2 or 3 pebbles, not 4"):
        await service.move(HERE, ALICE, "take 4")
    with pytest.raises(ServiceError, match="banana: not a move"):
        await service.move(HERE, ALICE, "banana")
    assert await stored(service) == start

    pick = next(c for c in board.picks if c.label.startswith("Take 3"))
    [after] = await service.press(HERE, ALICE, pick.payload)  # one button, one move
    assert "alice played take 3." in after.text and "bob (Second) to move." in after.text
    assert [u.name for u in after.mentions] == ["bob"]
    assert await stored(service) == (1, f"pebbles {PILE - 3} to=1")
    with pytest.raises(ServiceError, match="out of date"):
        await service.press(HERE, ALICE, pick.payload)

    pile, players, seat = PILE - 3, (ALICE, BOB), 1
    final: Reply | None = None
    while pile:
        take = last_take(pile)
        [final] = await service.move(HERE, players[seat], f"take {take}")
        pile, seat = pile - take, 1 - seat
    winner = players[1 - seat]
    side = ("First", "Second")[1 - seat]
    assert final is not None and final.tone == "over" and final.picks == ()
    assert f"Game over. {side} took the last pebble. {winner.name} ({side}) wins." in final.text
    record = await service.repository.get_game(1)
    assert record is not None and record.status == "finished"
    assert record.result is not None and record.result.winners == (1 - seat,)
    with pytest.raises(ServiceError):
        await service.move(HERE, players[seat], "take 1")


async def test_a_game_rebuilt_from_its_log_draws_the_same_board(
    pebbles: catalog.Listing, storage: Storage, service: GameService
) -> None:
    await service.start(HERE, ALICE, GameSetup("pebbles", seed=SEED, seat="first"), [BOB])
    await service.accept(HERE, BOB)
    [live] = await service.move(HERE, ALICE, "2")  # typed short; logged in full
    [entry] = await service.repository.moves(1)
    assert entry.text == "take 2"

    fresh = make_service(storage, images=True)  # another process: nothing in memory
    try:
        loaded = await fresh.loaded(1)
        assert loaded.state == PebblesState(PILE - 2, 1)
        assert loaded.last_move == Take(2)  # what parse_move returns, for the renderer
        [again] = await fresh.board(HERE)
        assert again.image is not None and again.image == live.image
        assert [c.label for c in again.picks] == [c.label for c in live.picks]
    finally:
        fresh.close()


async def test_the_computer_answers_and_wins_from_a_winning_pile(
    pebbles: catalog.Listing, service: GameService
) -> None:
    [board] = await service.start(
        HERE, ALICE, GameSetup("pebbles", seed=SEED, seat="second"), [BOT]
    )
    # The computer sits first and moves at once: from 11 it leaves 8.
    assert "hilltop (First, normal computer) played take 3." in board.text
    assert "alice (Second) to move." in board.text
    assert await stored(service) == (1, "pebbles 8 to=1")
    replies: list[Reply] = []
    while await service.repository.live_game_in_channel(HERE.channel_id) is not None:
        replies = await service.move(HERE, ALICE, "take 1")
        assert "alice played take 1." in replies[0].text
        assert "hilltop (First, normal computer) played take 3." in replies[0].text
    assert "First took the last pebble. hilltop (First, normal computer) wins." in replies[-1].text


# --- through the console ----------------------------------------------------------------
async def test_the_console_plays_pebbles(
    pebbles: catalog.Listing, storage: Storage, tmp_path: Path
) -> None:
    house = house_of(storage, front=console_front())
    out = io.StringIO()
    console = Console(house, tmp_path / "out", out)

    async def run(line: str) -> str:
        start = len(out.getvalue())
        await console.run_line(line)
        return out.getvalue()[start:]

    try:
        rules = await run("alice /rules game:pebbles")
        assert "Pebbles: rules" in rules and "Take the last pebble to win." in rules
        assert LISTING.rules_pages()[0] in rules
        played = await run(f"alice /play game:pebbles opponent:bob seed:{SEED} seat:first")
        assert "alice challenges bob to Pebbles." in played
        accepted = await run("bob /accept")
        assert "alice (First) to move." in accepted
        assert f"[1] Take 1 (leaves {PILE - 1} pebbles)" in accepted
        pressed = await run("alice /press Take 2")
        assert "alice played take 2." in pressed and "bob (Second) to move." in pressed
        assert (await run("alice /move take 1")).startswith("! It is not your turn")
        refused = await run("bob /move take 5")
        assert refused.startswith("! take 5: a turn takes 1, 2 or 3 pebbles, not 5.")
        moves = await run("bob /moves")
        assert "take 1 · take 2 · take 3" in moves
        pile, names, seat = PILE - 2, ("alice", "bob"), 1
        last = ""
        while pile:
            take = last_take(pile)
            last = await run(f"{names[seat]} /move take {take}")
            pile, seat = pile - take, 1 - seat
        side = ("First", "Second")[1 - seat]
        assert f"{names[1 - seat]} ({side}) wins." in last
    finally:
        house.close()


# --- through the real bot and a fake Discord ----------------------------------------------
@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with serving() as server:
        yield server
    refused = [(c.method, c.path, reason) for c, reason in server.rejections]
    assert refused == [], "Discord would have refused these requests"


@pytest.fixture
async def bot(
    pebbles: catalog.Listing,
    fake: FakeDiscord,
    storage: Storage,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> AsyncIterator[HilltopBot]:
    # Boards drawn in worker processes would meet a catalogue without Pebbles: a game
    # registered at run time exists only in this process, so boards are drawn here.
    monkeypatch.setenv("HILLTOP_RENDER", "thread")
    caplog.set_level(logging.WARNING)
    client = HilltopBot(bot_houses(storage), dev_guild_id=fake.guild_id)
    async with running(client, fake):
        yield client
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == []


async def test_pebbles_is_offered_and_played_to_a_win_on_discord(
    fake: FakeDiscord, bot: HilltopBot, storage: Storage
) -> None:
    alice, bob = fake.user("alice"), fake.user("bob")
    offered = await fake.autocomplete(alice, "play", "game", game="peb")
    assert offered.choices == [{"name": "Pebbles", "value": "pebbles"}]
    every = await fake.autocomplete(alice, "play", "game", game="")
    assert {"name": "Pebbles", "value": "pebbles"} in every.choices
    assert len(every.choices) == len(catalog.all_listings())
    rules = await fake.slash(bob, "rules", game="pebbles")
    assert rules.ephemeral and "Take the last pebble to win." in rules.message.text

    played = await fake.slash(alice, "play", game="pebbles", opponent=bob, seed=SEED, seat="first")
    accepted = await fake.click(bob, played.message, label="Accept")
    [board] = await accepted.followups(1)
    assert "alice (First) to move" in board.text and board.pinged == (alice.id,)
    assert board.upload("board.png").data.startswith(PNG_SIGNATURE)
    assert f"Take 1 (leaves {PILE - 1} pebbles)" in board.labels()

    clicked = await fake.click(alice, board, prefix="Take 3")
    assert clicked.callback_type == CallbackType.MESSAGE and not clicked.ephemeral
    assert "alice played take 3." in clicked.message.text
    assert clicked.message.pinged == (bob.id,)

    waiting = await fake.autocomplete(alice, "move", "text", text="")
    assert waiting.choices == []
    pile, users, seat, ply = PILE - 3, (alice, bob), 1, 1
    last: Any = None
    while pile:
        take = last_take(pile)
        typed = await fake.autocomplete(users[seat], "move", "text", text="take")
        names = [c["name"] for c in typed.choices]
        assert names == [f"take {n}" for n in range(1, min(3, pile) + 1)]
        value = typed.choices[take - 1]["value"]
        assert value == f"take {take} @{ply}"  # offered for this turn only
        last = await fake.slash(users[seat], "move", text=value)
        assert not last.ephemeral
        pile, seat, ply = pile - take, 1 - seat, ply + 1
    side = ("First", "Second")[1 - seat]
    winner = users[1 - seat]
    assert f"{side} took the last pebble. {winner.name} ({side}) wins." in last.message.text
    record = await storage.games.get_game(1)
    assert record is not None and record.status == "finished"
    assert record.result is not None and record.result.winners == (1 - seat,)
