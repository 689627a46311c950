"""Real games to copy from: each game of the catalogue played to its end with random legal
moves, every position on the way written down, and the daily hills of a year.

A stored history is made of copies of these games (the same moves under other ids,
players and times), so every move log in it replays through its engine to its stored
position, as the product's own games do.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from types import SimpleNamespace
from typing import Any, cast

from data.results import dump_result
from engine.core import Game
from engine.hillbert import GAME as HILLBERT
from host import catalog
from host.daily.service import DailyService
from host.play.results import by_rules

#: How often each game comes up among the games of channels (the solo game is rare there:
#: it is mostly played as the daily hill).
GAME_WEIGHTS = {"hokito": 30, "hollowtown": 25, "molehill": 20, "everest": 15, "hillbert": 10}
#: Played games per game and number of seats.
PER_SEATING = 8
#: Of which this many use the game's first variant, if it has one.
WITH_VARIANT = 2
#: Random runs per daily hill.
RUNS_PER_HILL = 2
#: A random game longer than this is played again from another seed (without its cap on
#: rounds, an Everest game of random moves may go on for hours).
MAX_PLIES = 240
#: The deployment secret the daily hills of the stored history were made with.
DAILY_SECRET = "hilltop-data-scale-bench"


@dataclass(frozen=True, slots=True)
class PoolGame:
    """One game played to its end, with what a copy stopped at any ply needs."""

    index: int
    game: str
    seats: int
    variant: str | None
    seed: int
    rules_version: int
    #: (seat, canonical move text), in order.
    moves: tuple[tuple[int, str], ...]
    #: The position after each number of moves (0 .. len(moves)).
    snapshots: tuple[str, ...]
    #: The scores after each number of moves.
    scores: tuple[tuple[int, ...], ...]
    #: The result of the whole game, as stored.
    result: str
    #: Winning seats of the whole game (empty: a draw, or a solo game).
    winners: tuple[int, ...]
    #: The fewest moves after which every seat has made a move of its own (None: never).
    all_moved: int | None

    @property
    def ply(self) -> int:
        return len(self.moves)


@dataclass(frozen=True, slots=True)
class DailyGame:
    """One run of a daily hill, played to its end."""

    day: str
    seed: int
    moves: tuple[str, ...]
    snapshot: str
    result: str
    score: int
    turns: int
    #: The size after each turn, as a run's record keeps it.
    sizes: str


def _games() -> dict[str, Game[Any]]:
    return {listing.game.id: listing.game for listing in catalog.all_listings()}


def play(game: Game[Any], seed: int, seats: int, variant: str | None) -> PoolGame | None:
    """`game` from `seed` to its end with random legal moves (the random choices come from
    the seed too); None if it takes more than `MAX_PLIES` moves."""
    rng = random.Random(seed)
    state = game.new_state(seed, seats, variant)
    moves: list[tuple[int, str]] = []
    snapshots = [state.to_text()]
    scores = [tuple(state.scores())]
    moved: set[int] = set()
    all_moved = None
    while state.to_act:
        if len(moves) >= MAX_PLIES:
            return None
        seat = rng.choice(sorted(state.to_act))
        legal = state.legal_moves(seat)
        move = legal[rng.randrange(len(legal))]
        moves.append((seat, state.move_text(move)))
        state = state.play(seat, move)
        snapshots.append(state.to_text())
        scores.append(tuple(state.scores()))
        moved.add(seat)
        if all_moved is None and len(moved) == seats:
            all_moved = len(moves)
    outcome = state.outcome()
    assert outcome is not None
    result = by_rules(outcome)
    return PoolGame(
        index=-1,
        game=game.id,
        seats=seats,
        variant=variant,
        seed=seed,
        rules_version=game.rules_version,
        moves=tuple(moves),
        snapshots=tuple(snapshots),
        scores=tuple(scores),
        result=cast(str, dump_result(result)),
        winners=tuple(result.winners),
        all_moved=all_moved,
    )


@lru_cache(maxsize=1)
def channel_pool() -> tuple[PoolGame, ...]:
    """Every hosted game, for each number of seats it takes, `PER_SEATING` times."""
    games = _games()
    found: list[PoolGame] = []
    for game_id in sorted(GAME_WEIGHTS):
        game = games[game_id]
        for seats in range(game.min_players, game.max_players + 1):
            seed = 1000 * seats
            for n in range(PER_SEATING):
                variant = game.variants[0].name if game.variants and n < WITH_VARIANT else None
                played = None
                for attempt in range(100):
                    seed += 1
                    # A variant whose random games run long is given up for the usual rules.
                    played = play(game, seed, seats, variant if attempt < 3 else None)
                    if played is not None:
                        break
                assert played is not None, f"{game.id}: no random game ends"
                found.append(_numbered(played, len(found)))
    return tuple(found)


def _numbered(game: PoolGame, index: int) -> PoolGame:
    return PoolGame(
        index,
        game.game,
        game.seats,
        game.variant,
        game.seed,
        game.rules_version,
        game.moves,
        game.snapshots,
        game.scores,
        game.result,
        game.winners,
        game.all_moved,
    )


def by_game(pool: Sequence[PoolGame]) -> dict[str, list[PoolGame]]:
    grouped: dict[str, list[PoolGame]] = {}
    for game in pool:
        grouped.setdefault(game.game, []).append(game)
    return grouped


def daily_seed(day: date) -> int:
    """The seed of `day`'s hill, as the daily service derives it from its secret."""
    return DailyService.seed_for(cast(DailyService, SimpleNamespace(secret=DAILY_SECRET)), day)


@lru_cache(maxsize=4)
def daily_pool(last_day: date, days: int) -> tuple[tuple[DailyGame, ...], ...]:
    """`RUNS_PER_HILL` random runs of each daily hill of the `days` up to `last_day`, by
    day, oldest first."""
    found = []
    for back in range(days - 1, -1, -1):
        day = last_day - timedelta(days=back)
        seed = daily_seed(day)
        found.append(tuple(_run(day, seed, n) for n in range(RUNS_PER_HILL)))
    return tuple(found)


def _run(day: date, seed: int, n: int) -> DailyGame:
    rng = random.Random(seed * 7 + n)
    state: Any = HILLBERT.new_state(seed, 1, None)
    moves: list[str] = []
    sizes: list[str] = []
    while state.to_act:
        legal = state.legal_moves(0)
        move = legal[rng.randrange(len(legal))]
        moves.append(state.move_text(move))
        state = state.play(0, move)
        sizes.append(str(state.size))
    outcome = state.outcome()
    assert outcome is not None
    return DailyGame(
        day=day.isoformat(),
        seed=seed,
        moves=tuple(moves),
        snapshot=state.to_text(),
        result=cast(str, dump_result(by_rules(outcome))),
        score=int(state.score),
        turns=int(state.turns),
        sizes="".join(sizes),
    )
