"""A server's archive and tables on the web: finished games (by player and game, in pages),
the daily leaderboard, each game's ratings, a player's profile, and the closed daily hills
with their winning and par runs. The tables read as their posts do on Discord."""

from __future__ import annotations

from collections import OrderedDict

from engine.text import current_language
from host import catalog
from host.daily.service import PERIODS, DailyService
from host.history.finished import finished_page
from host.model import Reply, ServiceError, User
from host.pages.access import Access, not_found, where
from host.pages.games import history_row, visitor_user
from host.pages.views import Card, DailyDay, HistoryView, ServerInfo, Visitor
from host.play.live import game_of
from host.privacy.names import shown_name
from host.ratings.pages import RatingPages

#: Nobody in particular: a reader who has not signed in has no row of their own.
NOBODY = User(0, "")
#: Closed days' replays kept in memory (a day's runs never change once it is closed).
DAYS_KEPT = 32


class Tables:
    def __init__(self, access: Access, daily: DailyService, ratings: RatingPages) -> None:
        self.access = access
        self.daily = daily
        self.ratings = ratings
        self._runs: OrderedDict[tuple[int, str, str, str], tuple[str, str, bytes]] = OrderedDict()

    async def history(
        self,
        guild_id: int,
        visitor: Visitor,
        player: int | None = None,
        game: str | None = None,
        cursor: str | None = None,
    ) -> HistoryView:
        """Finished games of the server, newest first, a page at a time; `cursor` is where
        the page beside ended ("<id": the games older than it, ">id": newer)."""
        server = await self.access.server(guild_id, visitor)
        if game is not None:
            try:
                game_of(game)
            except ServiceError:
                game = None
        older_than = newer_than = None
        if cursor is not None and cursor[:1] in "<>" and cursor[1:].isdigit():
            mark = int(cursor[1:])
            older_than, newer_than = (mark, None) if cursor[0] == "<" else (None, mark)
        records, more_newer, more_older = await finished_page(
            self.access.live.repository, guild_id, player, game, (older_than, newer_than)
        )
        rows = tuple(history_row(r) for r in records)
        named = None
        if player is not None:
            name = next((n for r in rows for uid, n in r.players if uid == player), None)
            if name is None:
                name = (await self.ratings.repository.names([player])).get(player)
            named = (player, str(player) if name is None else shown_name(name))
        games = tuple((listing.id, listing.game.name) for listing in catalog.all_listings())
        return HistoryView(
            server=server,
            rows=rows,
            player=named,
            game=game,
            newer=f">{rows[0].id}" if rows and more_newer else None,
            older=f"<{rows[-1].id}" if rows and more_older else None,
            games=games,
        )

    async def leaderboard(self, guild_id: int, visitor: Visitor, period: str) -> Card:
        server = await self.access.server(guild_id, visitor)
        if period not in PERIODS:
            raise not_found()
        reply = (await self.daily.leaderboard(where(server), self._reader(visitor), period))[0]
        return card_of(server, reply)

    async def ratings_table(self, guild_id: int, visitor: Visitor, game: str) -> Card:
        server = await self.access.server(guild_id, visitor)
        if game not in {g for g, _ in self.ratings.game_choices()}:
            raise not_found()
        reply = (await self.ratings.table(where(server), self._reader(visitor), game))[0]
        return card_of(server, reply)

    async def profile(self, guild_id: int, visitor: Visitor, user_id: int) -> Card:
        """A player's profile as `/profile` shows it, for a player seen in this server
        (anyone else is not to be found here)."""
        server = await self.access.server(guild_id, visitor)
        played = await self.access.live.repository.finished_games(guild_id, user_id, None, 1)
        seat = next((s for r in played for s in r.seats if s.user.id == user_id), None)
        if not played or (seat is not None and seat.user.is_bot):
            raise not_found()
        # A player whose newest game they resigned no longer holds its seat: their name
        # is read from the players' table.
        name = (
            shown_name(seat.user.name)
            if seat
            else (await self.ratings.repository.names([user_id])).get(user_id)
        )
        if name is None:
            raise not_found()
        name = shown_name(name)
        who = User(user_id, name)
        reader = self._reader(visitor)
        reply = (await self.ratings.profile(where(server), reader, who, None))[0]
        return card_of(server, reply)

    def closed_days(self) -> list[str]:
        return [day.isoformat() for day in self.daily.replays.closed_days()]

    async def daily_day(self, guild_id: int, visitor: Visitor, day: str) -> DailyDay:
        """A closed hill's par run and this server's winning run (never an open day's)."""
        await self.access.server(guild_id, visitor)
        runs = []
        for run in ("winner", "par"):
            found = await self._run(guild_id, day, run)
            if found is not None:
                runs.append((run, found[0], found[1]))
        return DailyDay(day, tuple(runs))

    async def daily_run(self, guild_id: int, visitor: Visitor, day: str, run: str) -> bytes:
        """The animated picture of a closed hill's run (`winner` or `par`)."""
        await self.access.server(guild_id, visitor)
        found = await self._run(guild_id, day, run)
        if found is None:
            raise not_found()
        return found[2]

    async def _run(self, guild_id: int, day: str, run: str) -> tuple[str, str, bytes] | None:
        """A run's title, text and picture; None if the server has no such run that day.
        PageNotFoundError for a day that is open, not come, or not a day."""
        key = (guild_id, day, run, current_language())
        kept = self._runs.get(key)
        if kept is not None:
            return kept
        if day not in self.closed_days():
            raise not_found()
        place = where(ServerInfo(guild_id, "", "public"))
        try:
            reply = (await self.daily.replays.replay(place, NOBODY, day, run, "server"))[0]
        except ServiceError:
            return None  # nobody of this server finished a run that day
        if reply.image is None:
            return None
        found = (reply.title, reply.text, reply.image)
        self._runs[key] = found
        while len(self._runs) > DAYS_KEPT:
            self._runs.popitem(last=False)
        return found

    def drop_runs(self) -> None:
        """A forgetting renamed someone: a run kept may show their name, or be theirs on
        a server's board they are no longer on."""
        self._runs.clear()

    @staticmethod
    def _reader(visitor: Visitor) -> User:
        return visitor_user(visitor) or NOBODY


def card_of(server: ServerInfo, reply: Reply) -> Card:
    """A post as a page: its words, with the names it quotes kept as written."""
    return Card(server, reply.title, reply.text, reply.fields, reply.footer, reply.names)
