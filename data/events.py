"""Events' storage: tournaments, their entrants, and the tables of each round, with the
records they are read as. Both backends share one implementation (`EventRepository`):
their SQL is the same but for placeholders, and each lends its transactions (`Tx`).

What only one process may do is guarded here, as a move is: a round starts with a write
that succeeds only while the round before it is the event's and every table of it is
decided, so two processes (or a process restarted half-way) start it once; a table's game
is stored with the table's link to it in one transaction, so it is started once.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from data.queries import Params, SharedStatements
from data.repository import GameRecord, NewGame, TimeKeeping, UserRecord

Format = Literal["swiss", "round-robin", "double-round-robin", "cup"]
FORMATS: tuple[Format, ...] = ("swiss", "round-robin", "double-round-robin", "cup")
EventState = Literal["open", "running", "finished", "ended"]
#: in: paired; left: left of their own accord; removed: by an admin; absent: lost a game
#: without moving in it (paired again only if they join again).
EntrantState = Literal["in", "left", "removed", "absent"]
#: Events a server lists on one page at most.
PAGE = 25


@dataclass(frozen=True, slots=True)
class NewEvent:
    guild_id: int
    channel_id: int
    game: str
    format: Format
    name: str | None
    table_size: int
    rounds: int | None
    deadline_minutes: int | None
    seed: int
    created_by: UserRecord
    #: Away time stops its games' clocks.
    away: bool = True


@dataclass(frozen=True, slots=True)
class EventRecord:
    id: int
    guild_id: int
    #: Where it was made: its rounds are posted there.
    channel_id: int
    game: str
    format: Format
    #: The name an admin gave it (None: none, and readers name it by its game and format).
    name: str | None
    #: Players at a table (1: a cup, each playing alone).
    table_size: int
    #: Rounds planned (None until it starts, where none were given).
    rounds: int | None
    #: A decision's time in its games, in minutes (a cup: its whole window).
    deadline_minutes: int | None
    seed: int
    state: EventState
    #: The round under way (0: not started).
    round: int
    created_by: int
    created_at: float
    started_at: float | None
    #: When the round under way started.
    round_at: float | None
    #: When a cup's window closes.
    closes_at: float | None
    finished_at: float | None
    #: Away time stops its games' clocks.
    away: bool = True

    @property
    def is_live(self) -> bool:
        return self.state in ("open", "running")


@dataclass(frozen=True, slots=True)
class EntrantRecord:
    user: UserRecord
    #: 1 for the first to enter.
    entry: int
    state: EntrantState
    joined_at: float


@dataclass(frozen=True, slots=True)
class SeatResult:
    user_id: int
    #: 1 best, shared by a tie; None until the table is decided.
    place: int | None
    #: A cup's score and turns, as its game ended.
    score: int | None = None
    turns: int | None = None


@dataclass(frozen=True, slots=True)
class TableRecord:
    round: int
    #: 1 for the best-placed table of the round.
    board: int
    #: Who sits where, seat 0 first.
    seats: tuple[SeatResult, ...]
    bye: bool
    game_id: int | None
    thread_id: int | None
    #: Decided without being played (a no-show, a leaver's game).
    forfeit: bool
    decided_at: float | None

    @property
    def user_ids(self) -> tuple[int, ...]:
        return tuple(s.user_id for s in self.seats)


@dataclass(frozen=True, slots=True)
class NewTable:
    """A table of a round as pairing makes it: a game to start, a bye, or a game decided
    before it starts (against someone gone: `places` given)."""

    board: int
    user_ids: tuple[int, ...]
    bye: bool = False
    places: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class WholeEvent:
    """An event with everything its standings are made of, read together."""

    event: EventRecord
    entrants: tuple[EntrantRecord, ...]
    tables: tuple[TableRecord, ...]

    def table(self, round_: int, board: int) -> TableRecord | None:
        return next((t for t in self.tables if t.round == round_ and t.board == board), None)

    def round_tables(self, round_: int) -> list[TableRecord]:
        return [t for t in self.tables if t.round == round_]


@dataclass(frozen=True, slots=True)
class EventGame:
    """The event table a game is played at."""

    event_id: int
    round: int
    board: int
    name: str | None
    format: Format
    #: The game the event plays.
    game: str


class Tx(Protocol):
    """One backend's write transaction, as the shared statements use it."""

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Any]: ...

    async def insert_game(self, new: NewGame, now: float) -> int: ...

    async def load_game(self, game_id: int) -> GameRecord: ...

    async def upsert_user(self, user: UserRecord) -> None: ...


class Db(Protocol):
    def mark(self, n: int) -> str: ...

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Any]: ...


_EVENT_COLUMNS = (
    "id, guild_id, channel_id, game, format, name, table_size, rounds, deadline_minutes,"
    " seed, state, round, created_by, created_at, started_at, round_at, closes_at, finished_at,"
    " away"
)


class _Abandoned(Exception):
    """A guarded write found its condition gone: the transaction is rolled back."""


class EventRepository(SharedStatements[Db, Tx]):
    """Events on either backend."""

    @abstractmethod
    def _of_shards(self, shards: TimeKeeping | None, p: Params, column: str = "guild_id") -> str:
        """The condition for rows whose server (`column`) is one of `shards`'."""

    # --- reads ------------------------------------------------------------------------
    async def get(self, event_id: int) -> EventRecord | None:
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE id = {p(event_id)}", p.values
        )
        return _event(rows[0]) if rows else None

    async def whole(self, event_id: int) -> WholeEvent | None:
        """The event, its entrants in entry order, and every table of every round."""
        event = await self.get(event_id)
        if event is None:
            return None
        p = self._params()
        entrants = await self.db.fetch(
            "SELECT u.id, u.name, u.is_bot, e.entry, e.state, e.joined_at"
            " FROM event_entrants e JOIN users u ON u.id = e.user_id"
            f" WHERE e.event_id = {p(event_id)} ORDER BY e.entry",
            p.values,
        )
        return WholeEvent(
            event,
            tuple(
                EntrantRecord(
                    UserRecord(int(row[0]), str(row[1]), bool(row[2])),
                    int(row[3]),
                    row[4],
                    float(row[5]),
                )
                for row in entrants
            ),
            tuple(await self._tables(event_id)),
        )

    async def table(self, event_id: int, round_: int, board: int) -> TableRecord | None:
        """One table, with its seats."""
        found = await self._tables(event_id, round_, board)
        return found[0] if found else None

    async def undecided(self, event_id: int, round_: int) -> int:
        """How many tables of a round are still being played."""
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT COUNT(*) FROM event_tables WHERE event_id = {p(event_id)}"
            f" AND round = {p(round_)} AND decided_at IS NULL",
            p.values,
        )
        return int(rows[0][0])

    async def _tables(
        self, event_id: int, round_: int | None = None, board: int | None = None
    ) -> list[TableRecord]:
        """The event's tables in order: every one, or one."""
        p = self._params()
        where = f"event_id = {p(event_id)}"
        if round_ is not None and board is not None:
            where += f" AND round = {p(round_)} AND board = {p(board)}"
        tables = await self.db.fetch(
            "SELECT round, board, bye, game_id, thread_id, forfeit, decided_at"
            f" FROM event_tables WHERE {where} ORDER BY round, board",
            p.values,
        )
        q = self._params()
        where = f"event_id = {q(event_id)}"
        if round_ is not None and board is not None:
            where += f" AND round = {q(round_)} AND board = {q(board)}"
        seats = await self.db.fetch(
            "SELECT round, board, seat, user_id, place, score, turns FROM event_seats"
            f" WHERE {where} ORDER BY round, board, seat",
            q.values,
        )
        by_table: dict[tuple[int, int], list[SeatResult]] = {}
        for row in seats:
            by_table.setdefault((int(row[0]), int(row[1])), []).append(
                SeatResult(int(row[3]), _int(row[4]), _int(row[5]), _int(row[6]))
            )
        return [
            TableRecord(
                int(row[0]),
                int(row[1]),
                tuple(by_table.get((int(row[0]), int(row[1])), ())),
                bool(row[2]),
                _int(row[3]),
                _int(row[4]),
                bool(row[5]),
                None if row[6] is None else float(row[6]),
            )
            for row in tables
        ]

    async def live_in_channel(self, channel_id: int) -> list[EventRecord]:
        """The events made in a channel that are open or running, newest first."""
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE channel_id = {p(channel_id)}"
            f" AND state IN ('open', 'running') ORDER BY id DESC LIMIT {PAGE}",
            p.values,
        )
        return [_event(row) for row in rows]

    async def of_guild(self, guild_id: int, *, before: int | None = None) -> list[EventRecord]:
        """A server's events, newest first, one page (those older than event `before`)."""
        p = self._params()
        server = f"guild_id = {p(guild_id)}"
        older = f" AND id < {p(before)}" if before is not None else ""
        rows = await self.db.fetch(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE {server}{older}"
            f" ORDER BY id DESC LIMIT {PAGE}",
            p.values,
        )
        return [_event(row) for row in rows]

    async def running(self, shards: TimeKeeping | None = None, limit: int = 200) -> list[int]:
        """Running events of these shards' servers, oldest first."""
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT id FROM events WHERE state = 'running'{self._of_shards(shards, p)}"
            f" ORDER BY id LIMIT {p(limit)}",
            p.values,
        )
        return [int(row[0]) for row in rows]

    async def expired_games(self, shards: TimeKeeping | None = None, limit: int = 100) -> list[int]:
        """Games of event tables being played whose clock stopped (nobody claimed the win):
        a round must not wait for them."""
        p = self._params()
        rows = await self.db.fetch(
            "SELECT t.game_id FROM event_tables t JOIN games g ON g.id = t.game_id"
            " WHERE t.decided_at IS NULL AND t.game_id IS NOT NULL AND g.status = 'active'"
            f" AND g.expired_at IS NOT NULL{self._of_shards(shards, p, 'g.guild_id')}"
            f" ORDER BY t.game_id LIMIT {p(limit)}",
            p.values,
        )
        return [int(row[0]) for row in rows]

    async def due(
        self, now: float, stale: float, shards: TimeKeeping | None = None, limit: int = 100
    ) -> list[int]:
        """Running events with something to do: the round under way complete (its next
        not made: a crash or a restart came between), a table of it without its game and
        nobody starting it since `stale`, or a cup's window closed at `now`."""
        p = self._params()
        open_tables = (
            "SELECT 1 FROM event_tables t WHERE t.event_id = e.id AND t.round = e.round"
            " AND t.decided_at IS NULL"
        )
        rows = await self.db.fetch(
            f"SELECT e.id FROM events e WHERE e.state = 'running'"
            f"{self._of_shards(shards, p, 'e.guild_id')} AND ("
            f"(e.closes_at IS NOT NULL AND e.closes_at <= {p(now)})"
            f" OR NOT EXISTS ({open_tables})"
            f" OR EXISTS ({open_tables} AND t.game_id IS NULL AND t.bye = 0"
            f" AND (t.starting_at IS NULL OR t.starting_at < {p(stale)})))"
            f" ORDER BY e.id LIMIT {p(limit)}",
            p.values,
        )
        return [int(row[0]) for row in rows]

    async def of_games(self, game_ids: Sequence[int]) -> dict[int, EventGame]:
        """The event table each of these games is played at (games of none are left out)."""
        wanted = sorted(set(game_ids))
        if not wanted:
            return {}
        p = self._params()
        marks = ", ".join(p(g) for g in wanted)
        rows = await self.db.fetch(
            "SELECT t.game_id, t.event_id, t.round, t.board, e.name, e.format, e.game"
            " FROM event_tables t JOIN events e ON e.id = t.event_id"
            f" WHERE t.game_id IN ({marks})",
            p.values,
        )
        return {
            int(row[0]): EventGame(
                int(row[1]), int(row[2]), int(row[3]), row[4], row[5], str(row[6])
            )
            for row in rows
        }

    async def entered(self, user_id: int, limit: int = PAGE) -> list[EventRecord]:
        """The latest events `user_id` entered, newest first."""
        p = self._params()
        rows = await self.db.fetch(
            f"SELECT {', '.join('v.' + c.strip() for c in _EVENT_COLUMNS.split(','))}"
            " FROM event_entrants e JOIN events v ON v.id = e.event_id"
            f" WHERE e.user_id = {p(user_id)} ORDER BY e.event_id DESC LIMIT {p(limit)}",
            p.values,
        )
        return [_event(row) for row in rows]

    # --- writes -----------------------------------------------------------------------
    async def create(self, new: NewEvent, now: float) -> EventRecord:
        async with self._transaction() as tx:
            await tx.upsert_user(new.created_by)
            p = self._params()
            rows = await tx.rows(
                "INSERT INTO events (guild_id, channel_id, game, format, name, table_size,"
                " rounds, deadline_minutes, seed, created_by, created_at, away) VALUES ("
                + ", ".join(
                    p(v)
                    for v in (
                        new.guild_id,
                        new.channel_id,
                        new.game,
                        new.format,
                        new.name,
                        new.table_size,
                        new.rounds,
                        new.deadline_minutes,
                        new.seed,
                        new.created_by.id,
                        now,
                        int(new.away),
                    )
                )
                + f") RETURNING {_EVENT_COLUMNS}",
                p.values,
            )
            return _event(rows[0])

    async def join(self, event_id: int, user: UserRecord, now: float) -> bool:
        """Enter `user`: into an open event, or back into a running one they were taken
        out of for not moving. False, with nothing written, if they are in already, the
        event has started (and they were not absent) or is over."""
        async with self._transaction() as tx:
            await tx.upsert_user(user)
            p = self._params()
            back = await tx.rows(
                "UPDATE event_entrants SET state = 'in'"
                f" WHERE event_id = {p(event_id)} AND user_id = {p(user.id)}"
                " AND state = 'absent' AND EXISTS (SELECT 1 FROM events"
                f" WHERE id = {p(event_id)} AND state = 'running') RETURNING user_id",
                p.values,
            )
            if back:
                return True
            q = self._params()
            rows = await tx.rows(
                "INSERT INTO event_entrants (event_id, user_id, entry, joined_at)"
                f" SELECT {q(event_id)}, {q(user.id)},"
                " COALESCE((SELECT MAX(entry) FROM event_entrants"
                f" WHERE event_id = {q(event_id)}), 0) + 1, {q(now)}"
                f" WHERE EXISTS (SELECT 1 FROM events WHERE id = {q(event_id)}"
                " AND state = 'open') AND NOT EXISTS (SELECT 1 FROM event_entrants"
                f" WHERE event_id = {q(event_id)} AND user_id = {q(user.id)})"
                " RETURNING user_id",
                q.values,
            )
            return bool(rows)

    async def leave(self, event_id: int, user_id: int, state: EntrantState) -> bool:
        """Take `user_id` out (left, removed or absent) of an open or running event: out
        of an open one they are struck off (they played nothing); False if they were not
        in it, or it is over."""
        async with self._transaction() as tx:
            p = self._params()
            live = await tx.rows(
                f"SELECT state FROM events WHERE id = {p(event_id)}"
                " AND state IN ('open', 'running')",
                p.values,
            )
            if not live:
                return False
            q = self._params()
            if live[0][0] == "open":
                rows = await tx.rows(
                    f"DELETE FROM event_entrants WHERE event_id = {q(event_id)}"
                    f" AND user_id = {q(user_id)} RETURNING user_id",
                    q.values,
                )
            else:
                rows = await tx.rows(
                    f"UPDATE event_entrants SET state = {q(state)} WHERE event_id = {q(event_id)}"
                    f" AND user_id = {q(user_id)} AND state IN ('in', 'absent')"
                    " RETURNING user_id",
                    q.values,
                )
            return bool(rows)

    async def start_round(
        self,
        event_id: int,
        round_: int,
        tables: Sequence[NewTable],
        now: float,
        *,
        rounds: int | None = None,
        closes_at: float | None = None,
    ) -> bool:
        """Make round `round_` with its tables, once: the first round of an open event
        (`rounds` and a cup's `closes_at` set with it), or the next of a running one
        whose every table is decided. False, with nothing written, if another process
        (or an earlier try) made it, or the event is not in that state."""
        try:
            async with self._transaction() as tx:
                p = self._params()
                if round_ == 1:
                    claimed = await tx.rows(
                        f"UPDATE events SET state = 'running', round = 1, started_at = {p(now)},"
                        f" round_at = {p(now)}, rounds = COALESCE({p(rounds)}, rounds),"
                        f" closes_at = {p(closes_at)} WHERE id = {p(event_id)}"
                        " AND state = 'open' AND round = 0 RETURNING id",
                        p.values,
                    )
                else:
                    claimed = await tx.rows(
                        f"UPDATE events SET round = {p(round_)}, round_at = {p(now)}"
                        f" WHERE id = {p(event_id)} AND state = 'running'"
                        f" AND round = {p(round_ - 1)} AND NOT EXISTS (SELECT 1 FROM"
                        " event_tables WHERE event_id = events.id"
                        " AND round = events.round AND decided_at IS NULL) RETURNING id",
                        p.values,
                    )
                if not claimed:
                    raise _Abandoned
                for table in tables:
                    await self._insert_table(tx, event_id, round_, table, now)
        except _Abandoned:
            return False
        return True

    async def _insert_table(
        self, tx: Tx, event_id: int, round_: int, table: NewTable, now: float
    ) -> None:
        decided = table.bye or table.places is not None
        p = self._params()
        await tx.rows(
            "INSERT INTO event_tables (event_id, round, board, bye, forfeit, decided_at)"
            f" VALUES ({p(event_id)}, {p(round_)}, {p(table.board)}, {p(int(table.bye))},"
            f" {p(int(table.places is not None))}, {p(now if decided else None)})",
            p.values,
        )
        places = (1,) if table.bye else table.places
        for seat, user_id in enumerate(table.user_ids):
            q = self._params()
            place = places[seat] if places is not None else None
            await tx.rows(
                "INSERT INTO event_seats (event_id, round, board, seat, user_id, place)"
                f" VALUES ({q(event_id)}, {q(round_)}, {q(table.board)}, {q(seat)},"
                f" {q(user_id)}, {q(place)})",
                q.values,
            )

    async def claim_table(
        self, event_id: int, round_: int, board: int, now: float, lease: float
    ) -> bool:
        """Take the starting of a table's game: False if its game exists or another
        process began starting it less than `lease` seconds ago."""
        p = self._params()
        async with self._transaction() as tx:
            rows = await tx.rows(
                f"UPDATE event_tables SET starting_at = {p(now)} WHERE event_id = {p(event_id)}"
                f" AND round = {p(round_)} AND board = {p(board)} AND game_id IS NULL"
                " AND decided_at IS NULL AND (starting_at IS NULL"
                f" OR starting_at < {p(now - lease)}) RETURNING board",
                p.values,
            )
        return bool(rows)

    async def set_thread(self, event_id: int, round_: int, board: int, thread_id: int) -> None:
        p = self._params()
        async with self._transaction() as tx:
            await tx.rows(
                f"UPDATE event_tables SET thread_id = {p(thread_id)} WHERE event_id ="
                f" {p(event_id)} AND round = {p(round_)} AND board = {p(board)}",
                p.values,
            )

    async def start_table(
        self, event_id: int, round_: int, board: int, new: NewGame, now: float
    ) -> GameRecord | None:
        """Store a table's game and link the table to it, together; None, with nothing
        written, if the table has its game already or was decided."""
        try:
            async with self._transaction() as tx:
                game_id = await tx.insert_game(new, now)
                p = self._params()
                linked = await tx.rows(
                    f"UPDATE event_tables SET game_id = {p(game_id)} WHERE event_id ="
                    f" {p(event_id)} AND round = {p(round_)} AND board = {p(board)}"
                    " AND game_id IS NULL AND decided_at IS NULL RETURNING board",
                    p.values,
                )
                if not linked:
                    raise _Abandoned
                return await tx.load_game(game_id)
        except _Abandoned:
            return None

    async def decide_table(
        self,
        event_id: int,
        round_: int,
        board: int,
        results: Sequence[SeatResult],
        now: float,
        *,
        forfeit: bool,
        absent: Sequence[int] = (),
    ) -> bool:
        """Record where each seat finished, once; those in `absent` (who lost without
        moving) are taken out of later rounds in the same write. False if the table was
        decided already."""
        try:
            async with self._transaction() as tx:
                p = self._params()
                decided = await tx.rows(
                    f"UPDATE event_tables SET decided_at = {p(now)}, forfeit = {p(int(forfeit))}"
                    f" WHERE event_id = {p(event_id)} AND round = {p(round_)}"
                    f" AND board = {p(board)} AND decided_at IS NULL RETURNING board",
                    p.values,
                )
                if not decided:
                    raise _Abandoned
                for seat, result in enumerate(results):
                    q = self._params()
                    await tx.rows(
                        f"UPDATE event_seats SET place = {q(result.place)},"
                        f" score = {q(result.score)}, turns = {q(result.turns)}"
                        f" WHERE event_id = {q(event_id)} AND round = {q(round_)}"
                        f" AND board = {q(board)} AND seat = {q(seat)}",
                        q.values,
                    )
                for user_id in absent:
                    q = self._params()
                    await tx.rows(
                        "UPDATE event_entrants SET state = 'absent'"
                        f" WHERE event_id = {q(event_id)} AND user_id = {q(user_id)}"
                        " AND state = 'in'",
                        q.values,
                    )
        except _Abandoned:
            return False
        return True

    async def finish(self, event_id: int, state: EventState, now: float) -> bool:
        """End a live event (finished by its last round, or ended by an admin), once."""
        p = self._params()
        async with self._transaction() as tx:
            rows = await tx.rows(
                f"UPDATE events SET state = {p(state)}, finished_at = {p(now)}"
                f" WHERE id = {p(event_id)} AND state IN ('open', 'running') RETURNING id",
                p.values,
            )
        return bool(rows)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _event(row: Sequence[Any]) -> EventRecord:
    return EventRecord(
        id=int(row[0]),
        guild_id=int(row[1]),
        channel_id=int(row[2]),
        game=str(row[3]),
        format=row[4],
        name=row[5],
        table_size=int(row[6]),
        rounds=_int(row[7]),
        deadline_minutes=_int(row[8]),
        seed=int(row[9]),
        state=row[10],
        round=int(row[11]),
        created_by=int(row[12]),
        created_at=float(row[13]),
        started_at=None if row[14] is None else float(row[14]),
        round_at=None if row[15] is None else float(row[15]),
        closes_at=None if row[16] is None else float(row[16]),
        finished_at=None if row[17] is None else float(row[17]),
        away=bool(row[18]),
    )
