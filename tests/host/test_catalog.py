"""The one list of games: each entry holds together a game's rules, its pictures and its
rules page, and generic code reads each game's declared facts, never guesses them."""

from __future__ import annotations

import pytest

from engine import registry
from host import catalog
from host.setup import GameOptions, GameSetup
from render.core import RenderContext


def test_the_catalogue_lists_each_hosted_game_once() -> None:
    ids = [listing.id for listing in catalog.GAMES]
    assert sorted(ids) == ["everest", "hillbert", "hokito", "hollowtown", "molehill"]
    assert [listing.id for listing in catalog.all_listings()] == sorted(ids)
    assert {g.id for g in registry.all_games()} == set(ids)


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


def test_only_everest_decides_in_secret_and_has_no_points() -> None:
    secret = {listing.id for listing in catalog.GAMES if listing.game.secret_decisions}
    pointless = {listing.id for listing in catalog.GAMES if not listing.game.has_scores}
    assert secret == pointless == {"everest"}


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
