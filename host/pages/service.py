"""The web's pages: every page a front-end can serve is a call here, and every call checks
who may see it (`host.pages.access`)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace

from babel.lists import format_list

from data.events import EventRepository
from data.repository import ChangeFeed
from data.web import WebSessionRepository
from engine.text import current_language
from host import catalog
from host.daily.service import DailyService
from host.pages.access import Access, Gone
from host.pages.games import GamePages
from host.pages.local import LocalPlayers
from host.pages.play import PlayPages
from host.pages.sessions import Sessions
from host.pages.tables import Tables
from host.pages.tournaments import TournamentPages
from host.pages.turns import TurnPages
from host.pages.views import (
    Card,
    DailyDay,
    GameView,
    HistoryView,
    MovePanel,
    PlayDone,
    ReplayView,
    ServerInfo,
    ServerView,
    TournamentView,
    TurnsView,
    Visitor,
)
from host.ratings.pages import RatingPages
from host.service import GameService


class WebPages:
    def __init__(
        self,
        service: GameService,
        daily: DailyService,
        ratings: RatingPages,
        changes: ChangeFeed,
        sessions: WebSessionRepository,
        events: EventRepository,
        always_open: dict[int, str] | None = None,
        *,
        gone: Gone | None = None,
    ) -> None:
        """Pages over the service's games and tournaments (`events`); `changes` announces
        each committed change of a game, to every process on the database; `always_open`
        names the servers whose pages anyone may see, whatever their settings (the
        console's own)."""
        self.access = Access(service.live, service.settings, always_open, gone=gone)
        self.games = GamePages(self.access, service.presenter, service.ratings, service.boards.away)
        self.tables = Tables(self.access, daily, ratings)
        #: Playing on the pages: the move builder, and moves made there.
        self.play = PlayPages(self.access, service.moves, service.move_away, service.presenter)
        self.changes = changes
        self.tournaments = TournamentPages(self.access, events, changes)
        #: A player's own page: the games waiting for them.
        self.turns = TurnPages(self.access, changes, service.absences)
        #: Who is signed in, by their cookie's token.
        self.sessions = Sessions(sessions, service.clock)
        #: The console's players, who sign in on its own pages by name.
        self.local = LocalPlayers(self.access, self.sessions)

    def subscribe(self, listener: Callable[[int | None], None]) -> Callable[[], None]:
        """`listener(game_id)` after each committed change of a game, in any process;
        `listener(None)` when changes may have been missed. Returns the unsubscriber."""
        return self.changes.subscribe(listener)

    def subscribe_tournaments(self, listener: Callable[[int | None], None]) -> Callable[[], None]:
        """`listener(event_id)` after each committed change of a tournament's game, in any
        process, a new round's games included; `listener(None)` when changes may have been
        missed. Returns the unsubscriber."""
        return self.tournaments.subscribe(listener)

    def subscribe_turns(self, listener: Callable[[int | None], None]) -> Callable[[], None]:
        """`listener(user_id)` for each player of a game after each committed change of
        it, in any process, a new game included; `listener(None)` when changes may have
        been missed. Returns the unsubscriber."""
        return self.turns.subscribe(listener)

    async def your_turn(self, visitor: Visitor) -> TurnsView:
        """The games waiting for the signed-in `visitor` (SignInNeededError: nobody)."""
        return await self.turns.turns(visitor)

    async def sign_in(self, user_id: int, name: str, guild_ids: Collection[int]) -> str:
        """A new session for someone Discord vouched for, in the servers `guild_ids`; its
        token, for their cookie."""
        return await self.sessions.sign_in(user_id, name, guild_ids)

    async def local_players(self) -> list[str]:
        """The names of the console's players, for its pages' "Play as" list."""
        return await self.local.names()

    async def sign_in_locally(self, name: str) -> str:
        """A new session as the console's player `name` (ServiceError: no such name can
        be typed in the console); its token, for the cookie."""
        return await self.local.sign_in(name)

    async def sign_out(self, token: str) -> None:
        """The session `token` ends (nothing, if it had ended already)."""
        await self.sessions.sign_out(token)

    async def visitor(self, token: str | None, language: str) -> Visitor:
        """Who holds the session `token`, reading in `language` (nobody in particular, if
        no session has it or it has expired)."""
        return await self.sessions.visitor(token, language)

    async def server_info(self, guild_id: int, visitor: Visitor) -> ServerInfo:
        return await self.access.server(guild_id, visitor)

    async def server(self, guild_id: int, visitor: Visitor) -> ServerView:
        view = await self.games.server(guild_id, visitor)
        return replace(view, tournaments=await self.tournaments.listing(view.server))

    async def tournament(self, guild_id: int, event_id: int, visitor: Visitor) -> TournamentView:
        return await self.tournaments.tournament(guild_id, event_id, visitor)

    async def game(self, game_id: int, visitor: Visitor) -> GameView:
        return await self.games.game(game_id, visitor)

    async def may_see(self, game_id: int, visitor: Visitor) -> None:
        """Nothing, if `visitor` may see the game's pages; else why not."""
        await self.access.game(game_id, visitor)

    async def offered(self, game_id: int, visitor: Visitor) -> MovePanel | None:
        """The first choices of the visitor's move in the game, if it waits for them."""
        return await self.play.offered(game_id, visitor)

    async def panel(
        self, game_id: int, visitor: Visitor, ply: int | None, prefix: tuple[str, ...]
    ) -> MovePanel:
        """The visitor's next choices after `prefix`, on a page drawn at `ply`."""
        return await self.play.panel(game_id, visitor, ply, prefix)

    async def panel_picture(
        self, game_id: int, visitor: Visitor, ply: int | None, prefix: tuple[str, ...]
    ) -> tuple[bytes, MovePanel]:
        """The picture the visitor builds their move on, and the panel it goes with."""
        return await self.play.picture(game_id, visitor, ply, prefix)

    async def play_move(
        self, game_id: int, visitor: Visitor, ply: int, tokens: tuple[str, ...]
    ) -> PlayDone:
        """The visitor's move, built of `tokens` on a page drawn at `ply`, played."""
        return await self.play.play(game_id, visitor, ply, tokens)

    async def channel_game(self, guild_id: int, channel_id: int, visitor: Visitor) -> int | None:
        """The game in play in a channel, as `visitor` may see it (None: none)."""
        return await self.play.channel_game(guild_id, channel_id, visitor)

    async def board(self, game_id: int, visitor: Visitor) -> tuple[int, bytes]:
        return await self.games.board(game_id, visitor)

    async def frame(self, game_id: int, number: int, visitor: Visitor) -> bytes:
        return await self.games.frame(game_id, number, visitor)

    async def replay(self, game_id: int, visitor: Visitor) -> ReplayView:
        return await self.games.replay(game_id, visitor)

    async def record_text(self, game_id: int, visitor: Visitor) -> str:
        return await self.games.record_text(game_id, visitor)

    async def history(
        self,
        guild_id: int,
        visitor: Visitor,
        player: int | None = None,
        game: str | None = None,
        cursor: str | None = None,
    ) -> HistoryView:
        return await self.tables.history(guild_id, visitor, player, game, cursor)

    async def leaderboard(self, guild_id: int, visitor: Visitor, period: str) -> Card:
        return await self.tables.leaderboard(guild_id, visitor, period)

    async def ratings(self, guild_id: int, visitor: Visitor, game: str) -> Card:
        return await self.tables.ratings_table(guild_id, visitor, game)

    def game_names(self) -> str:
        """The names of every game hosted, in the catalogue's order, as a list in the
        reader's language ("Everest, Hillbert, …, and Mole Hill")."""
        names = [listing.game.name for listing in catalog.all_listings()]
        return format_list(names, locale=current_language().replace("-", "_"))

    def rating_games(self) -> list[tuple[str, str]]:
        """(id, name) of every game that has ratings, for the tabs of the ratings tables."""
        return self.tables.ratings.game_choices()

    async def profile(self, guild_id: int, visitor: Visitor, user_id: int) -> Card:
        return await self.tables.profile(guild_id, visitor, user_id)

    def closed_days(self) -> list[str]:
        return self.tables.closed_days()

    async def daily_day(self, guild_id: int, visitor: Visitor, day: str) -> DailyDay:
        return await self.tables.daily_day(guild_id, visitor, day)

    async def daily_run(self, guild_id: int, visitor: Visitor, day: str, run: str) -> bytes:
        return await self.tables.daily_run(guild_id, visitor, day, run)
