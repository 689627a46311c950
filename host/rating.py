"""Ratings: one per game, per server and global, for finished games between people.

The system is OpenSkill's Plackett-Luce model (the `openskill` package): a Bayesian
rating (μ, σ) that rates any number of players in one game, so Everest's free-for-all of
up to four is rated as one game, not as pairs. A rating is shown as 60·μ (a newcomer
shows 1500), with "?" while provisional (fewer than 5 rated games).

What is rated: a game that finished (not aborted) with at least two people, none of the
seats played by the computer from the start (a computer that took over from a player
who resigned stands in; that player is counted behind everyone still playing, and behind
those who resigned after them). Games
are rated in the order they finished, each once; the ratings can be recomputed from the
stored results at any time (`python bot.py --recompute-ratings`), so a change of system
or a corrected result never leaves them inconsistent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping

from openskill.models import PlackettLuce

from data.ratings import GLOBAL, Change, Outcome, RatingRepository, Skill, ToRate
from data.repository import GameRecord
from engine.text import Text, t
from host.setup import GameOptions

#: A rating is shown as this many points per unit of μ: a newcomer shows 1500.
SCALE = 60
#: Games rated at once before the next batch is read.
BATCH = 200
#: Games rated in one transaction: a finished game waits for its pass, which holds the
#: database's writer while it runs (a catching-up after a restart is cut into such).
PASS = 20


class OpenSkillRater:
    """OpenSkill's Plackett-Luce model with its published defaults (μ 25, σ 25/3)."""

    def __init__(self) -> None:
        self.model = PlackettLuce()

    @property
    def start(self) -> Skill:
        return (self.model.mu, self.model.sigma)

    def __call__(self, places: Mapping[int, int], before: Mapping[int, Skill]) -> dict[int, Skill]:
        users = list(places)
        teams = [[self.model.rating(mu=before[u][0], sigma=before[u][1])] for u in users]
        rated = self.model.rate(teams, ranks=[float(places[u]) for u in users])
        return {u: (team[0].mu, team[0].sigma) for u, team in zip(users, rated, strict=True)}


def shown(mu: float) -> int:
    """A rating as players see it."""
    return round(SCALE * mu)


def to_rate(record: GameRecord) -> ToRate:
    """What the rating counts of a finished game: its places and outcomes per person (none
    if the game is not rated), in its server's table and the global one."""
    scopes = (record.guild_id, GLOBAL) if record.guild_id else (GLOBAL,)
    finished = record.finished_at if record.finished_at is not None else record.updated_at
    places, outcomes = _places(record)
    return ToRate(record.id, record.game, finished, scopes, places, outcomes)


def _places(record: GameRecord) -> tuple[dict[int, int], dict[int, Outcome]]:
    result = record.result
    if record.status != "finished" or result is None or result.aborted or len(record.seats) < 2:
        return {}, {}
    options = GameOptions.from_stored(record.options)
    if any(s.user.is_bot and s.seat not in options.taken_over for s in record.seats):
        return {}, {}  # a game against the computer
    winners = set(result.winners)
    places: dict[int, int] = {}
    outcomes: dict[int, Outcome] = {}
    for seat in record.seats:
        if seat.user.is_bot:
            continue
        won = seat.seat in winners
        place = 1 if won or not winners else 2
        if place <= places.get(seat.user.id, place):
            places[seat.user.id] = place
            outcomes[seat.user.id] = "win" if won else "draw" if not winners else "loss"
    last = max(places.values(), default=1) + 1
    # The later a player resigned, the better their place.
    for behind, user in enumerate(reversed(options.resigned)):
        if user not in places:
            places[user] = last + behind
            outcomes[user] = "loss"
    if len(places) < 2:
        return {}, {}
    return places, outcomes


class Ratings:
    """Rates finished games as they come, and recomputes every rating on demand."""

    def __init__(
        self,
        repository: RatingRepository,
        clock: Callable[[], float] = time.time,
        rater: OpenSkillRater | None = None,
    ) -> None:
        self.repository = repository
        self.clock = clock
        self.rater = rater or OpenSkillRater()
        self._lock = asyncio.Lock()
        #: Passes of `settle` begun in this process.
        self._begun = 0

    async def settle(self) -> dict[int, list[Change]]:
        """Rate every finished game not rated yet, in the order they finished: what each
        rated game changed, by game id. Safe to call from anywhere at any time: a game
        another process rated first is left alone."""
        done: dict[int, list[Change]] = {}
        # A pass that begins after this call rates every game finished before it: callers
        # that wait while one runs are all served by the next, one pass for the lot.
        wanted = self._begun + 1
        async with self._lock:
            if self._begun >= wanted:
                return done
            self._begun += 1
            while True:
                batch = await self.repository.unrated_games(BATCH)
                for start in range(0, len(batch), PASS):
                    games = [to_rate(record) for record in batch[start : start + PASS]]
                    rated = await self.repository.rate_all(games, self.rater, self.clock())
                    done.update((game, changes) for game, changes in rated.items() if changes)
                if len(batch) < BATCH:
                    return done

    async def recompute(self) -> int:
        """Every rating again from the stored results, in one transaction: how many games
        were rated."""
        async with self._lock:
            records = await self.repository.finished_in_order()
            return await self.repository.recompute(
                (to_rate(r) for r in records), self.rater, self.clock()
            )

    async def line_for(self, record: GameRecord) -> Text | None:
        """After a game finished: how it moved its players' ratings in the table of its
        server (None: not rated, or not yet). Whichever process rated it, the stored
        changes say; rating it is the finish hook's (`settle`), never the reader's."""
        scope = record.guild_id or GLOBAL
        found = await self.repository.changes_of(record.id)
        changes = {c.user_id: c for c in found if c.scope == scope}
        parts = []
        for seat in record.seats:
            change = changes.pop(seat.user.id, None)
            if change is not None:
                parts.append(f"{seat.user.name} {shown(change.after[0])} ({moved(change)})")
        if not parts:
            return None
        return t("Ratings: {changes}.", changes=", ".join(parts))


def moved(change: Change) -> str:
    """How far a rating moved, signed: "+158", "−12", "±0"."""
    points = shown(change.after[0]) - shown(change.before[0])
    return f"+{points}" if points > 0 else f"−{-points}" if points < 0 else "±0"
