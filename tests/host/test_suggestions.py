"""Autocomplete for /move: every game's choices say what each move does, in the reader's
language and within Discord's limits; Everest offers its likeliest plans first."""

from __future__ import annotations

import pytest

from engine.text import speaking
from host import i18n
from host.catalog import Listing, all_listings, listing
from host.model import Suggestion, User
from host.service import GameService
from host.setup import GameSetup
from tests.cogs.test_every_reply import ROLL_OFF
from tests.host.conftest import ALICE, BOB, HERE

#: Discord's limits: 25 choices, each named in at most 100 characters.
MAX_CHOICES = 25
MAX_NAME = 100

FLOWERS = "e1,a4,i4,e7/b2,h2,b6,h6"


def opening(hosted: Listing) -> tuple[str, GameSetup, User]:
    """`hosted`'s game from a seeded start, alice to act (seated first where there are
    others)."""
    game = hosted.game
    setup = GameSetup(game.id, seed=1) if game.solo else GameSetup(game.id, seed=1, seat="first")
    return game.id, setup, ALICE


#: (game, set-up, who is to act): every game of the catalogue from its start, then
#: positions whose moves the start does not offer.
GAMES = [
    *(opening(hosted) for hosted in all_listings()),
    # bob, the gardener, places a rod by the mole on d4.
    ("molehill", GameSetup("molehill", position=f"1g d4 - {FLOWERS} -", seat="first"), BOB),
    # A roll-off won by alice, who picks one of its outcomes.
    ("everest", GameSetup("everest", position=ROLL_OFF, seat="first"), ALICE),
]


async def offered(service: GameService, setup: GameSetup) -> None:
    solo = listing(setup.game).game.solo
    await service.start(HERE, ALICE, setup, [] if solo else [BOB])
    if not solo:
        await service.accept(HERE, BOB)


def described(suggestion: Suggestion) -> tuple[str, str]:
    move, _, description = suggestion.label.partition(": ")
    return move, description


@pytest.mark.parametrize(("game", "setup", "user"), GAMES, ids=[f"{g[0]}" for g in GAMES])
async def test_every_game_says_what_each_offered_move_does(
    service: GameService, game: str, setup: GameSetup, user: User
) -> None:
    await offered(service, setup)
    i18n.install()
    english = await service.suggest_moves(HERE, user, "")
    with speaking("pl"):
        polish = await service.suggest_moves(HERE, user, "")
    assert 0 < len(english) <= MAX_CHOICES and len(polish) == len(english)
    for mine, theirs in zip(english, polish, strict=True):
        move, description = described(mine)
        assert description, f"{game}: {mine.label!r} says nothing of what it does"
        assert mine.value.startswith(move)
        assert len(mine.label) <= MAX_NAME and len(mine.value) <= MAX_NAME
        assert len(theirs.label) <= MAX_NAME and not theirs.label.endswith("…")
        assert described(theirs)[0] == move and theirs.value == mine.value
    assert [described(s)[1] for s in polish] != [described(s)[1] for s in english]


async def test_concrete_descriptions_where_moves_are_offered(service: GameService) -> None:
    setup = GameSetup("molehill", position=f"1g d4 - {FLOWERS} -", seat="first")
    await offered(service, setup)
    said = {s.label for s in await service.suggest_moves(HERE, BOB, "rod d4n")}
    assert said == {"rod d4n: mole still reaches all 62 squares, 7 ways on next turn"}


async def test_everest_offers_the_best_climbs_first_and_filters_by_what_is_typed(
    service: GameService,
) -> None:
    await offered(service, GameSetup("everest", seed=11))
    first = await service.suggest_moves(HERE, ALICE, "")
    # Alice's yeti stands on a2 (height 1); two plans climb to the peak this round.
    assert [s.label for s in first[:2]] == [
        "4E 2N 3E: ends on the peak, e3 (a step up costs 2)",
        "4E 3N 2E: ends on the peak, d4 (a step up costs 2)",
    ]
    moves = [described(s)[0] for s in first]
    assert len(moves) == MAX_CHOICES and moves != sorted(moves)
    typed = await service.suggest_moves(HERE, ALICE, "5e")
    assert len(typed) == MAX_CHOICES
    assert all(described(s)[0].startswith("5E ") for s in typed)
    # 5 east stops on d2 (height 3); 1 west to c2, then 2 north climbs to c3.
    assert typed[0].label == "5E AW 2N: ends on c3, height 4 (a step up costs 2)"


async def test_each_pick_of_a_roll_off_names_the_outcome_it_leads_to(
    service: GameService,
) -> None:
    await offered(service, GameSetup("everest", position=ROLL_OFF, seat="first"))
    i18n.install()
    english = await service.suggest_moves(HERE, ALICE, "")
    with speaking("pl"):
        polish = await service.suggest_moves(HERE, ALICE, "")
    # Red (alice) moves west from h2 as Blue's snowball flies south from g5: moving
    # first, Red is hit on g2 and pushed down to g1, hurt; after the snowball, it stops
    # on g2 unhurt.
    assert [s.label for s in english] == ["pick 1: Red to g1 (+1 damage)", "pick 2: Red to g2"]
    assert [s.label for s in polish] == [
        "pick 1: Czerwony na g1 (obrażenia +1)",
        "pick 2: Czerwony na g2",
    ]
