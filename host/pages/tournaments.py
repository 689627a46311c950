"""A server's tournaments on the web: the list on its front page, each tournament's page
(standings, a round robin's crosstable, every round's tables and their games), and the
change feed told as tournaments, so that an open page follows its games."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import replace

from data.events import EventRecord, EventRepository, TableRecord, WholeEvent
from data.repository import ChangeFeed, GameRecord
from engine.text import t, tn
from host.events import rounds, words
from host.events.standings import CupRow, Row, crosstable, placement_points
from host.i18n import number
from host.pages.access import Access, not_found
from host.pages.following import FeedFollower
from host.pages.views import (
    CupLine,
    RoundLines,
    ServerInfo,
    StandingLine,
    TableLine,
    TournamentLine,
    TournamentView,
    Visitor,
)
from host.play.live import game_of
from host.privacy.names import shown_name

#: Games whose tournament (or whose having none) is remembered, so that a change of one is
#: told as its tournament's without a read.
GAMES_KNOWN = 4096
#: The formats whose every pair meets: their pages have a crosstable.
ROUND_ROBINS = ("round-robin", "double-round-robin")


class TournamentPages:
    def __init__(self, access: Access, repository: EventRepository, changes: ChangeFeed) -> None:
        self.access = access
        self.repository = repository
        self.changes = changes
        #: Per game: the tournament it is played for (None: none).
        self._event_of: OrderedDict[int, int | None] = OrderedDict()

    async def listing(self, server: ServerInfo) -> tuple[TournamentLine, ...]:
        """The server's latest tournaments, newest first (one page of them)."""
        return tuple(_line(e) for e in await self.repository.of_guild(server.guild_id))

    async def tournament(self, guild_id: int, event_id: int, visitor: Visitor) -> TournamentView:
        """A tournament of a server whose pages `visitor` may see; one of another server,
        or none, is a page that does not exist."""
        server = await self.access.server(guild_id, visitor)
        whole = await self.repository.whole(event_id)
        if whole is None or whole.event.guild_id != guild_id:
            raise not_found()
        whole, games = await self._as_played(whole)
        event = whole.event
        cup = event.format == "cup"
        rows = [] if cup else rounds.table_standings(whole)
        cross: list[list[str]] = []
        if event.format in ROUND_ROBINS and len(rows) > 1:
            cross = crosstable(rounds.entrants_of(whole), *rounds.results_of(whole))
        names = {e.user.id: shown_name(e.user.name) for e in whole.entrants}
        return TournamentView(
            server=server,
            line=_line(event),
            entrants=tuple(shown_name(e.user.name) for e in whole.entrants),
            standings=tuple(_standing(r) for r in rows),
            cup=tuple(_cup_line(r) for r in rounds.cup_table(whole)) if cup else (),
            crosstable=tuple(tuple(row) for row in cross),
            rounds=tuple(
                RoundLines(
                    n,
                    tuple(
                        _table_line(table, names, games.get(table.game_id or 0), cup)
                        for table in whole.round_tables(n)
                    ),
                )
                for n in range(event.round, 0, -1)
            ),
        )

    async def _as_played(self, whole: WholeEvent) -> tuple[WholeEvent, dict[int, GameRecord]]:
        """The event as its games stand, and the games of its tables not yet decided. A
        page hears of a game's end before the end's result is recorded at its table: a
        game that has ended counts here as it will be recorded."""
        games: dict[int, GameRecord] = {}
        tables: list[TableRecord] = []
        out: set[int] = set()
        for table in whole.tables:
            record = None
            if table.decided_at is None and table.game_id is not None:
                record = await self.access.live.repository.get_game(table.game_id)
            if record is not None:
                games[record.id] = record
                if not record.is_live and record.result is not None:
                    decided = rounds.decided(await self.access.loaded(record), table)
                    table = replace(
                        table,
                        seats=decided.results,
                        forfeit=decided.forfeit,
                        decided_at=record.finished_at or record.updated_at,
                    )
                    out.update(decided.absent)
            tables.append(table)
        entrants = tuple(
            replace(e, state="absent") if e.user.id in out and e.state == "in" else e
            for e in whole.entrants
        )
        return WholeEvent(whole.event, entrants, tuple(tables)), games

    def subscribe(self, listener: Callable[[int | None], None]) -> Callable[[], None]:
        """`listener(event_id)` after each committed change of one of the tournament's
        games, in any process (a new round's games included); `listener(None)` when
        changes may have been missed. Returns the unsubscriber."""
        follower = FeedFollower(self._known_events, self._events_of, listener)
        unsubscribe = self.changes.subscribe(follower.heard)

        def undo() -> None:
            unsubscribe()
            follower.stop()

        return undo

    def _known_events(self, game_id: int) -> tuple[int, ...] | None:
        """The game's tournament as the feed's follower wants it: none if not known."""
        known, event_id = self.known(game_id)
        return None if not known else (() if event_id is None else (event_id,))

    async def _events_of(self, game_ids: list[int]) -> list[int]:
        found = await self.look_up(game_ids)
        return [event_id for event_id in found.values() if event_id is not None]

    def known(self, game_id: int) -> tuple[bool, int | None]:
        """Whether the game's tournament is remembered, and which it is (None: none)."""
        if game_id not in self._event_of:
            return False, None
        self._event_of.move_to_end(game_id)
        return True, self._event_of[game_id]

    async def look_up(self, game_ids: Iterable[int]) -> dict[int, int | None]:
        """The tournament each game is played for (None: none), read and remembered. A
        game's table is stored with the game, so a game read as nobody's stays so."""
        wanted = list(game_ids)
        found = await self.repository.of_games(wanted)
        events = {g: (found[g].event_id if g in found else None) for g in wanted}
        for game_id, event_id in events.items():
            self._event_of[game_id] = event_id
            self._event_of.move_to_end(game_id)
        while len(self._event_of) > GAMES_KNOWN:
            self._event_of.popitem(last=False)
        return events


def _line(event: EventRecord) -> TournamentLine:
    parts = [game_of(event.game).name, str(words.format_words(event.format))]
    if event.rounds and event.format != "cup":
        parts.append(str(tn("{n} round", "{n} rounds", n=event.rounds)))
    if event.table_size > 2:
        parts.append(str(t("tables of {n}", n=event.table_size)))
    return TournamentLine(
        id=event.id,
        name=words.event_name(event),
        what=" · ".join(parts),
        state=words.state_words(event),
        status=event.state,
    )


def _standing(row: Row) -> StandingLine:
    return StandingLine(
        rank=row.rank,
        name=row.name,
        points=words.points(row.points),
        buchholz_cut1=words.points(row.buchholz_cut1),
        sonneborn_berger=words.points(row.sonneborn_berger),
        direct="" if row.direct is None else words.points(row.direct),
        playing=row.playing,
    )


def _cup_line(row: CupRow) -> CupLine:
    finished = row.score is not None
    return CupLine(
        rank=row.rank,
        name=row.name,
        score=number(row.score) if row.score is not None else "",
        turns=number(row.turns) if finished and row.turns is not None else "",
    )


def _table_line(
    table: TableRecord, names: dict[int, str], game: GameRecord | None, cup: bool
) -> TableLine:
    players = tuple(names.get(s.user_id, "?") for s in table.seats)
    places = [s.place for s in table.seats]
    decided = table.decided_at is not None and None not in places
    result, note = "", ""
    if table.bye:
        note = str(t("bye, worth a win"))
    elif decided and cup:
        seat = table.seats[0]
        result = number(seat.score) if seat.score is not None else ""
        if seat.turns is not None:
            note = str(tn("{n} turn", "{n} turns", n=seat.turns))
    elif decided:
        shares = placement_points([p for p in places if p is not None])
        result = "–".join(words.points(share) for share in shares)
    elif game is not None and game.is_live:
        note = str(tn("in play, {n} move made", "in play, {n} moves made", n=game.ply))
    elif table.game_id is None:
        note = str(t("being set up"))
    if table.forfeit and not table.bye:
        note = str(t("not played"))
    return TableLine(
        board=table.board,
        players=players,
        result=result,
        note=note,
        game_id=table.game_id,
        live=game is not None and game.is_live,
    )
