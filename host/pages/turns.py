"""A signed-in player's own page (`/me`): every game waiting for them in the servers whose
pages they may see, the soonest to run out first; and the change feed told as players, so
that their open page follows each game they play, a new one included."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping

from babel.lists import format_list

from data.repository import ChangeFeed
from engine.text import current_language, t
from host.away.absences import Absences
from host.pages.access import Access
from host.pages.following import FeedFollower
from host.pages.views import (
    PageNotFoundError,
    ServerInfo,
    SignInNeededError,
    TurnLine,
    TurnsView,
    Visitor,
)
from host.play.live import game_of
from host.present.waiting import Turn, acting_ids, deadline_words, soonest_first, turn_of
from host.present.words import move_number
from host.privacy.names import shown_name

#: The most live games of a player read for their page: a bounded page of their seats.
MOST_GAMES = 100
#: The most of a reader's servers looked at for the links of an empty page.
MOST_SERVERS = 20
#: Games whose players are remembered, so that a change of one is told as theirs without
#: a read.
GAMES_KNOWN = 4096


class TurnPages:
    def __init__(
        self, access: Access, changes: ChangeFeed, absences: Absences | None = None
    ) -> None:
        self.access = access
        self.changes = changes
        #: Who is away: the list says so where the deadline would be.
        self.absences = absences
        #: Per game: the users seated at it.
        self._players_of: OrderedDict[int, tuple[int, ...]] = OrderedDict()

    async def turns(self, visitor: Visitor) -> TurnsView:
        """The games waiting for `visitor`, each of a server whose pages they may see."""
        if visitor.user_id is None:
            raise SignInNeededError(t("Sign in with Discord to see the games waiting for you."))
        user_id = visitor.user_id
        records = await self.access.live.repository.live_games_of_user(user_id, MOST_GAMES)
        servers: dict[int, ServerInfo | None] = {}
        for guild_id in dict.fromkeys(r.guild_id for r in records if r.guild_id is not None):
            servers[guild_id] = await self._seen(guild_id, visitor)
        turns = [
            turn_of(record, user_id)
            for record in records
            if record.guild_id is not None and servers.get(record.guild_id) is not None
        ]
        waiting = sorted((turn for turn in turns if turn.waiting), key=soonest_first)
        gone = await self.absences.of(acting_ids(waiting)) if self.absences else {}
        away = {u: a.until for u, a in gone.items()}
        lines = tuple(_line(turn, servers, user_id, away) for turn in waiting)
        if lines:
            return TurnsView(lines, ())
        for guild_id in sorted(visitor.guild_ids)[:MOST_SERVERS]:
            if guild_id not in servers:
                servers[guild_id] = await self._seen(guild_id, visitor)
        shown = sorted((s for s in servers.values() if s is not None), key=lambda s: s.name)
        return TurnsView((), tuple(shown))

    async def _seen(self, guild_id: int, visitor: Visitor) -> ServerInfo | None:
        """The server, if `visitor` may see its pages."""
        try:
            return await self.access.server(guild_id, visitor)
        except (PageNotFoundError, SignInNeededError):
            return None

    def subscribe(self, listener: Callable[[int | None], None]) -> Callable[[], None]:
        """`listener(user_id)` for each player of a game after each committed change of
        it, in any process (a new game included); `listener(None)` when changes may have
        been missed. Returns the unsubscriber."""
        follower = FeedFollower(self.known, self.look_up, listener)
        unsubscribe = self.changes.subscribe(follower.heard)

        def undo() -> None:
            unsubscribe()
            follower.stop()

        return undo

    def known(self, game_id: int) -> tuple[int, ...] | None:
        """The players of the game, if remembered."""
        players = self._players_of.get(game_id)
        if players is not None:
            self._players_of.move_to_end(game_id)
        return players

    async def look_up(self, game_ids: Iterable[int]) -> list[int]:
        """The players of the games, read and remembered (a game's seats stay its own)."""
        found: list[int] = []
        for game_id in game_ids:
            record = await self.access.live.repository.get_game(game_id)
            players = tuple(s.user.id for s in record.seats) if record is not None else ()
            self._players_of[game_id] = players
            self._players_of.move_to_end(game_id)
            found.extend(players)
        while len(self._players_of) > GAMES_KNOWN:
            self._players_of.popitem(last=False)
        return found


def _line(
    turn: Turn,
    servers: dict[int, ServerInfo | None],
    user_id: int,
    away: Mapping[int, float] | None = None,
) -> TurnLine:
    record = turn.record
    server = servers[record.guild_id or 0]
    assert server is not None
    game = game_of(record.game)
    others = list(
        dict.fromkeys(shown_name(s.user.name) for s in record.seats if s.user.id != user_id)
    )
    opponents = format_list(others, locale=current_language().replace("-", "_")) if others else ""
    when = int(turn.since)
    if record.status == "challenge":
        since = t("Challenged you <t:{when}:R>", when=when)
    else:
        since = t("Your turn since <t:{when}:R>", when=when)
    return TurnLine(
        id=record.id,
        game_name=game.name,
        server=server,
        opponents=opponents,
        ply=record.ply,
        status=record.status,
        since=turn.since,
        since_words=str(since),
        deadline_at=turn.deadline,
        deadline_words=deadline_words(turn, away),
        board_alt=str(
            t(
                "The board of game {id}: {game} after move {n}",
                id=record.id,
                game=game.name,
                n=move_number(record),
            )
        ),
        names=tuple(shown_name(s.user.name) for s in record.seats),
    )
