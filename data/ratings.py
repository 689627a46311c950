"""Ratings storage: each player's rating per game and scope, what every rated game
changed, and which finished games have been through the rating: the interface both
backends implement (`data.sqlite.ratings`, `data.postgresql.ratings`), and its records.

The rating system itself lives in the host (`host.ratings.rating`); this layer stores its
numbers. A game is marked rated in the same transaction as its changes, and the
ratings it starts from are read inside that transaction, so two processes sharing the
database never rate a game twice nor from stale ratings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from data.repository import GameRecord

#: The scope of the global tables (a server's scope is its id).
GLOBAL = 0
#: Below this many rated games a rating is provisional: shown with "?".
PROVISIONAL_GAMES = 5

Outcome = Literal["win", "draw", "loss"]
#: A rating: (μ, σ).
Skill = tuple[float, float]


class Rater(Protocol):
    """The rating system: a newcomer's rating, and new ratings from the places of a game
    and the ratings before it (by user id)."""

    @property
    def start(self) -> Skill: ...

    def __call__(
        self, places: Mapping[int, int], before: Mapping[int, Skill]
    ) -> Mapping[int, Skill]: ...


@dataclass(frozen=True, slots=True)
class ToRate:
    """A finished game as the rating sees it: who took which place (1 is first) and how it
    went for them, by user id, in which scopes. No places: a game that is not rated
    (against the computer, aborted…)."""

    game_id: int
    game: str
    finished_at: float
    scopes: tuple[int, ...]
    places: Mapping[int, int]
    outcomes: Mapping[int, Outcome]


@dataclass(frozen=True, slots=True)
class Change:
    """What a rated game did to one player's rating in one scope."""

    scope: int
    user_id: int
    outcome: Outcome
    place: int
    before: Skill
    after: Skill
    others_mu: float
    others: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating in one game and scope, with their record and place in the table
    (by μ: the rating shown)."""

    place: int
    game: str
    user_id: int
    name: str
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    streak: int

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


@dataclass(frozen=True, slots=True)
class RatedResult:
    """One rated game of a player: for the best win and head-to-head records (there,
    `outcome` is the player's result against the one other player asked about)."""

    game_id: int
    game: str
    finished_at: float
    outcome: Outcome
    others_mu: float
    others: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Meeting:
    """A player's rated games against one other player in one game: how many they won,
    drew and lost against them (by their places), and the last of them."""

    game: str
    wins: int
    draws: int
    losses: int
    last_game_id: int
    last_finished_at: float
    last_outcome: Outcome

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


class RatingRepository(Protocol):
    async def unrated_games(self, limit: int) -> list[GameRecord]:
        """Finished games not through the rating yet, in the order they finished."""
        ...

    async def rate(self, game: ToRate, rater: Rater, now: float) -> list[Change] | None:
        """Rate one game from the ratings as they stand in the same transaction, and mark
        it rated (None: it already was, by another process; nothing is written)."""
        ...

    async def rate_all(
        self, games: Sequence[ToRate], rater: Rater, now: float
    ) -> dict[int, list[Change]]:
        """Rate `games` in their order, in one transaction, as `rate` rates each: what
        each one rated here changed, by game id (a game another process rated first is
        left out). One transaction for the lot: the writer is taken once, not per game."""
        ...

    async def finished_in_order(self) -> list[GameRecord]:
        """Every finished game, in the order they finished (for a recomputation)."""
        ...

    async def recompute(self, games: Iterable[ToRate], rater: Rater, now: float) -> int:
        """Forget every rating and rate `games` again in their order, in one transaction:
        readers see the old tables or the new ones, never a mix. How many were rated."""
        ...

    async def table(self, game: str, scope: int, limit: int) -> list[Standing]: ...

    async def standing(
        self, game: str, scope: int, user_id: int, *, placed: bool = True
    ) -> Standing | None:
        """A player's rating in one table, with their place in it (`placed`: else the
        place is 0, and no count of the ratings ahead is made)."""
        ...

    async def standings_of(self, user_id: int, scope: int) -> list[Standing]:
        """The player's rating in every game they have one in, in that scope."""
        ...

    async def best_win(self, user_id: int, scope: int, game: str) -> RatedResult | None:
        """The win over the strongest opposition (by their mean μ before the game)."""
        ...

    async def head_to_head(self, user_id: int, other_id: int, scope: int) -> list[Meeting]:
        """The player's record against `other_id` in each game they were both rated in,
        by game: won, drawn or lost against them by their places (in a game of three or
        four, finishing ahead of them is a win against them)."""
        ...

    async def changes_of(self, game_id: int) -> list[Change]:
        """What a rated game changed (empty: not rated, or not yet)."""
        ...

    async def names(self, user_ids: Iterable[int]) -> dict[int, str]:
        """The names the players were last seen with."""
        ...
