"""A game's board as a reply: what the board needs from elsewhere (who follows the game,
how its end moved the ratings) is read here, by the flow, and the presenter formats it."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from engine.text import Text
from host.away.absences import Absences
from host.links import WebLinks
from host.model import Reply, User
from host.play.following import Following
from host.play.live import Loaded
from host.present.presenter import BoardFacts, Presenter
from host.present.words import Happened
from host.rating import Ratings

log = logging.getLogger(__name__)


class Boards:
    def __init__(
        self,
        presenter: Presenter,
        following: Following | None,
        ratings: Ratings | None,
        links: WebLinks | None = None,
        *,
        absences: Absences | None = None,
    ) -> None:
        self.presenter = presenter
        #: Who is away: a board says so where their deadline would be.
        self.absences = absences
        #: Links to the games' web pages (None: no pages served).
        self.links = links
        #: Who follows which game (None: nobody follows).
        self.following = following
        #: Rates each game between people as it finishes (None: no ratings kept).
        self.ratings = ratings

    async def board(
        self, loaded: Loaded, told: Sequence[Happened] = (), pings: tuple[User, ...] = ()
    ) -> Reply:
        """The game as it stands after `told` (see `Presenter.board`), with its followers
        when something happened and, once it is over, how it moved the ratings."""
        return await self.presenter.board(loaded, told, pings, await self.facts(loaded, told))

    async def facts(self, loaded: Loaded, told: Sequence[Happened] = ()) -> BoardFacts:
        record = loaded.record
        if record.kind == "daily":
            return BoardFacts()  # a daily run is played in private
        followers: tuple[User, ...] = ()
        followers_direct: tuple[User, ...] = ()
        moved = any(h.after is not None for h in told) or record.status != "active"
        if self.following is not None and moved:
            followers, followers_direct = await self.following.audience(loaded)
        page = await self.links.game(record) if self.links is not None else ""
        away = await self.away(loaded)
        return BoardFacts(followers, followers_direct, await self._rating_line(loaded), page, away)

    async def away(self, loaded: Loaded) -> dict[int, float]:
        """The people a live game waits for who are away, with when they are back."""
        record = loaded.record
        if self.absences is None or record.status != "active":
            return {}
        waiting = [
            record.seats[s].user.id for s in loaded.state.to_act if not record.seats[s].user.is_bot
        ]
        return {u: a.until for u, a in (await self.absences.of(waiting)).items()}

    async def pinged(self, people: tuple[User, ...]) -> tuple[User, ...]:
        """Those of `people` a board pings (see `Following.pinged`)."""
        return await self.following.pinged(people) if self.following is not None else people

    async def _rating_line(self, loaded: Loaded) -> Text | None:
        """How a finished game moved its players' ratings, however it ended (a move, a
        resignation, a computer's move, a deadline, an agreed draw)."""
        if loaded.record.status != "finished" or self.ratings is None:
            return None
        try:
            return await self.ratings.line_for(loaded.record)
        except Exception:
            # The game's end is committed: its board must not be lost to the ratings,
            # which the next sweep brings up to date.
            log.exception("game %s: rating it failed", loaded.id)
            return None
