"""The one list of games: each entry holds together a game's rules, its pictures and its
rules page, and generic code reads each game's declared facts, never guesses them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from engine import registry
from engine.text import ENGLISH
from host import catalog, i18n
from host.setup import GameOptions, GameSetup
from render.core import RenderContext, Renderer

ROOT = Path(__file__).resolve().parent.parent.parent
RULES = ROOT / "host" / "rules"
#: How an engine module registers its game, and a render module declares its renderer.
REGISTERS = re.compile(r"^GAME = registry\.register\(", re.MULTILINE)
DECLARES = re.compile(r"^RENDERER\b[^=]*= Renderer\(", re.MULTILINE)


def test_the_catalogue_lists_each_hosted_game_once() -> None:
    ids = sorted(listing.id for listing in catalog.GAMES)
    assert len(set(ids)) == len(ids) >= 5
    assert [listing.id for listing in catalog.all_listings()] == ids
    assert sorted(g.id for g in registry.all_games()) == ids


def test_every_game_in_the_tree_is_listed() -> None:
    """A game's modules and rules pages do nothing until its listing names them: the tree
    holds those of the listed games, and no others."""
    ids = sorted(listing.id for listing in catalog.GAMES)
    engines = [p.stem for p in (ROOT / "engine").glob("*.py") if REGISTERS.search(p.read_text())]
    renderers = [p.stem for p in (ROOT / "render").glob("*.py") if DECLARES.search(p.read_text())]
    assert sorted(engines) == sorted(renderers) == ids
    for language in [ENGLISH, *(lang for lang in i18n.shipped_languages() if lang != ENGLISH)]:
        folder = RULES if language == ENGLISH else RULES / language
        assert sorted(p.stem for p in folder.glob("*.md")) == ids, language


@pytest.mark.parametrize("listing", catalog.GAMES, ids=lambda entry: entry.id)
def test_each_game_has_every_part(listing: catalog.Listing) -> None:
    assert catalog.missing_parts(listing) == []


def test_a_listing_names_each_part_and_the_file_that_holds_it() -> None:
    assert catalog.listing("hokito").parts() == {
        "engine": "engine/hokito.py",
        "renderer": "render/hokito.py",
        "rules page": "host/rules/hokito.md",
        "Polish rules page": "host/rules/pl/hokito.md",
        "Polish messages": "host/locale/pl/LC_MESSAGES/hilltop.po",
    }


def test_a_missing_rules_page_is_named_with_the_file_to_write(tmp_path: Path) -> None:
    hokito = catalog.listing("hokito")
    elsewhere = catalog.Listing(hokito.game, hokito.renderer, "hokito.md", tmp_path)
    assert catalog.missing_parts(elsewhere) == [
        f"Hokito (hokito): no rules page: write {tmp_path}/hokito.md",
        f"Hokito (hokito): no Polish rules page: write {tmp_path}/pl/hokito.md",
    ]
    (tmp_path / "hokito.md").write_text("# Hokito\n", encoding="utf-8")
    assert catalog.missing_parts(elsewhere) == [
        f"Hokito (hokito): no Polish rules page: write {tmp_path}/pl/hokito.md"
    ]
    (tmp_path / "pl").mkdir()
    (tmp_path / "pl" / "hokito.md").write_text("# Hokito\n", encoding="utf-8")
    assert catalog.missing_parts(elsewhere) == []


def draw_nothing(state: Any, ctx: RenderContext) -> Image.Image:
    return Image.new("P", (1, 1))


def test_a_renderer_outside_its_module_is_named_with_what_to_write() -> None:
    hokito = catalog.listing("hokito")
    stray = catalog.Listing(hokito.game, Renderer(draw_nothing), hokito.rules_page)
    assert stray.parts()["renderer"] == "tests/host/test_catalog.py"
    assert catalog.missing_parts(stray) == [
        "Hokito (hokito): its renderer is not its module's RENDERER: end "
        "tests/host/test_catalog.py with RENDERER = Renderer(render)",
        "Hokito (hokito): no palette(theme) with the colours of its pictures: write it in "
        "tests/host/test_catalog.py",
        "Hokito (hokito): make messages does not read tests/host/test_catalog.py: "
        "add it to babel.cfg",
    ]


@pytest.mark.parametrize("listing", catalog.GAMES, ids=lambda entry: entry.id)
def test_each_entry_draws_its_game_and_has_its_rules_page(listing: catalog.Listing) -> None:
    game = listing.game
    state = game.new_state(1, game.min_players, None)
    png = listing.renderer.board_png(state, RenderContext(names=("a", "b", "c", "d")))
    assert png.startswith(b"\x89PNG")
    rules = listing.rules()
    assert game.name.split()[0].lower() in rules.lower()
    assert len(rules) <= 4096  # one Discord embed


@pytest.mark.parametrize("listing", catalog.GAMES, ids=lambda entry: entry.id)
def test_declared_facts_agree_with_the_game(listing: catalog.Listing) -> None:
    game = listing.game
    assert game.solo == (game.max_players == 1)
    assert not (game.secret_decisions and game.solo)
    if game.hints:
        assert game.solo  # hints are for practice, where nobody else is wronged


def test_everest_decides_in_secret_and_has_no_points_unlike_the_first_others() -> None:
    """Declared facts of the games they are known of (a new game declares its own)."""
    facts = {
        listing.id: (listing.game.secret_decisions, listing.game.has_scores)
        for listing in catalog.GAMES
    }
    assert facts["everest"] == (True, False)
    for game_id in ("hillbert", "hokito", "hollowtown", "molehill"):
        assert facts[game_id] == (False, True), game_id


def test_a_second_listing_under_a_taken_id_is_refused() -> None:
    everest = catalog.listing("everest")
    hokito = catalog.listing("hokito")
    with pytest.raises(ValueError, match="two games"):
        catalog.register(catalog.Listing(everest.game, hokito.renderer, hokito.rules_page))
    assert catalog.listing("everest") is everest


def test_options_are_stored_and_read_back_typed() -> None:
    options = GameOptions.of(GameSetup("everest", level="hard", deadline_minutes=30))
    assert options == GameOptions("hard", 1800)
    assert options.stored() == {"level": "hard", "deadline": 1800}
    assert GameOptions.from_stored(options.stored()) == options
    # Games stored before the deadline option existed, or with a broken value.
    assert GameOptions.from_stored({"level": "easy"}) == GameOptions("easy", None)
    assert GameOptions.from_stored({"deadline": "soon"}) == GameOptions()
