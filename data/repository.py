"""The storage interface the host talks to, and the records it returns.

`GameRepository` is what a backend implements: SQLite (`data.sqlite.games`) for one
bot process, PostgreSQL (`data.postgresql.games`) for several on one database. Records
are plain frozen values; the engine's notation is stored as text, so this layer knows
nothing about any game's rules.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from data.results import GameResult

Status = Literal["challenge", "active", "finished", "aborted", "declined"]
LIVE_STATUSES: tuple[Status, ...] = ("challenge", "active")

#: The largest id either database holds (a signed 64-bit integer in both).
MAX_ID = 2**63 - 1


def is_stored_id(value: int) -> bool:
    """Whether `value` can be a stored row's id: one that cannot is no game, and is
    never sent to a database, which would refuse it as out of range."""
    return 0 < value <= MAX_ID


class StorageError(Exception):
    """Base of the errors a repository raises."""


class DatabaseUnavailableError(StorageError):
    """The database cannot be reached now (down, restarting, out of connections):
    nothing of the command was written, and it may be tried again later."""


class DatabaseUnusableError(StorageError):
    """The database named cannot be opened: it is not a Hilltop database, cannot be
    created, cannot be reached, or stayed locked too long. Whatever the opening had
    opened is closed again; the message says, on one line, which database and what is
    wrong (never a password)."""


class ShardsHeldError(StorageError):
    """Another bot process holds a shard this one was given, or shares the servers out
    among a different number of shards: the message says which process."""


class ShardHold(Protocol):
    """The shards of a bot process, held against every other process for its life."""

    async def release(self) -> None: ...


#: What a process's shard hold calls when its hold was lost (its connection to the
#: database ended) and another process took the shards before this one could take them
#: again: with who holds them now. From then on this process must not handle them.
ShardsLost = Callable[[str], None]


def this_process() -> str:
    """How a shard's holder is named to a process refused it: its host, process id and
    start time (kept within PostgreSQL's 63 characters of an application name)."""
    started = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime())
    return f"pid {os.getpid()} on {socket.gethostname()[:24]} since {started}"


def shards_named(shards: Shards | None) -> str:
    if shards is None:
        return "every shard (HILLTOP_SHARDS unset)"
    ids = ",".join(map(str, shards.ids))
    return f"shard{'s' if len(shards.ids) > 1 else ''} {ids} of {shards.count}"


#: What a change feed calls: with a game's id after a committed change to that game, or
#: with None when changes may have been missed (every game may have changed).
ChangeListener = Callable[[int | None], None]


class ChangeFeed(Protocol):
    """Committed changes to games, announced to every process on the database: what a
    page showing games live waits for.

    A change is one a viewer of the game sees: a new game, a move, its status or result,
    its seats (taken, accepted or handed over), its options, its clock running out.
    Bookkeeping alone (a reminder sent, the board's message remembered, a game through
    the rating) is not announced, and neither is anything rolled back. Several changes
    to a game may be announced once."""

    def subscribe(self, listener: ChangeListener) -> Callable[[], None]:
        """Call `listener(game_id)` in the event loop after each committed change to a
        game, and `listener(None)` when changes may have been missed: every game may
        have changed. A feed listening on a connection of its own (PostgreSQL) says so
        each time it starts listening: soon after its first subscription (a change
        committed before then is not announced), and when its lost connection is back.
        A feed of one process's own writes (SQLite) misses nothing. A listener must not
        block; one that raises is logged, and the others still hear. Returns the
        function that unsubscribes (calling it again does nothing)."""
        ...

    def when_forgotten(self, hook: Callable[[int | None], None]) -> None:
        """Call `hook(game_id)` for each game whose people a forgetting renamed, in any
        process, while the feed listens: a process drops its copies of the game (and the
        names in them), as none of its ordinary changes tells it. `hook(None)` when
        such news may have been missed (the feed listens again): every game may have
        been renamed. A feed of one process's own writes (SQLite) never calls it: the
        forgetting process drops its own copies."""
        ...

    async def close(self) -> None:
        """Stop listening: no listener is called again."""
        ...


class LiveGameExistsError(StorageError):
    """The channel already has a live game (one per channel)."""


class StalePlyError(StorageError):
    """The game has moved on since the caller loaded it: nothing was written."""


@dataclass(frozen=True, slots=True)
class UserRecord:
    id: int
    name: str
    is_bot: bool = False


@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    user: UserRecord
    accepted: bool
    #: The person who held the seat before a computer took it over (they resigned).
    left: UserRecord | None = None


@dataclass(frozen=True, slots=True)
class MoveRecord:
    ply: int
    seat: int
    user_id: int
    text: str
    created_at: float


@dataclass(frozen=True, slots=True)
class Shards:
    """The Discord shards one bot process handles: `ids` of `count` in all. Discord
    sends a server's events to shard `(guild_id >> 22) % count`, and direct messages to
    shard 0, so a game belongs to the process holding its server's shard."""

    ids: tuple[int, ...]
    count: int

    def owns(self, guild_id: int | None) -> bool:
        return shard_of(guild_id, self.count) in self.ids


@dataclass(frozen=True, slots=True)
class OneServer:
    """The games of one server alone: the console keeps time for the games of its own
    server, never for those of Discord servers on the same database."""

    guild_id: int

    def owns(self, guild_id: int | None) -> bool:
        return guild_id == self.guild_id


#: The games one process keeps time for: those of its shards' servers, or of one server.
TimeKeeping = Shards | OneServer


def shard_of(guild_id: int | None, count: int) -> int:
    """The shard that receives a server's events (direct messages: shard 0)."""
    return 0 if guild_id is None else (guild_id >> 22) % count


#: Changes of stored settings: a value by its path, of one key ("threads",) or of a key
#: inside an object-valued key ("deadlines", "hokito"). Keys are plain words.
SettingsChanges = Mapping[tuple[str, ...], Any]


def settings_paths(changes: SettingsChanges) -> None:
    """Refuse paths the backends cannot set by key (ValueError)."""
    for path in changes:
        if not 1 <= len(path) <= 2 or not all(k.replace("-", "_").isidentifier() for k in path):
            raise ValueError(f"settings path {path!r}: one or two plain keys")


@dataclass(frozen=True, slots=True)
class Timer:
    """The clock of the decision pending in a game: when its time began and runs out, and
    the first reminder due (None: none)."""

    started_at: float
    deadline_at: float
    remind_at: float | None = None


@dataclass(frozen=True, slots=True)
class HandOver:
    """Seats that change hands as a game closes: `user` (a computer, for the last person
    who resigned) takes `seats`, and the game's options become `options`."""

    seats: tuple[int, ...]
    user: UserRecord
    options: dict[str, Any]


@dataclass(frozen=True, slots=True)
class NewGame:
    game: str
    guild_id: int | None
    channel_id: int | None
    status: Status
    seed: int
    variant: str | None
    rules_version: int
    start_position: str | None
    snapshot: str
    created_by: UserRecord
    seats: tuple[tuple[UserRecord, bool], ...]  # (player, already accepted) by seat
    options: dict[str, Any] = field(default_factory=dict)
    kind: Literal["channel", "daily"] = "channel"
    timer: Timer | None = None


@dataclass(frozen=True, slots=True)
class GameRecord:
    id: int
    game: str
    kind: str
    guild_id: int | None
    channel_id: int | None
    status: Status
    seed: int
    variant: str | None
    rules_version: int
    start_position: str | None
    ply: int
    snapshot: str
    options: dict[str, Any]
    result: GameResult | None
    created_by: int
    created_at: float
    updated_at: float
    finished_at: float | None
    seats: tuple[SeatRecord, ...]
    #: When the pending decision's time runs out (None: no deadline running).
    deadline_at: float | None = None
    #: When that decision's time began.
    deadline_from: float | None = None
    #: When the next reminder is due (None: none).
    remind_at: float | None = None
    #: When a decision without a default ran out of time: the others may claim the win
    #: until it is made.
    expired_at: float | None = None
    #: The latest board's message in the game's channel (for links to it).
    board_message_id: int | None = None
    #: The ply of the first change its channel has not been told (None: all told), as
    #: read; the teller's own memory is newer once it has told the game.
    untold_from: int | None = None

    @property
    def is_live(self) -> bool:
        return self.status in LIVE_STATUSES

    def seats_of(self, user_id: int) -> tuple[int, ...]:
        return tuple(s.seat for s in self.seats if s.user.id == user_id)


class GameRepository(Protocol):
    async def create_game(self, new: NewGame, now: float) -> GameRecord:
        """Insert a game and its seats; LiveGameExistsError if the channel has a live game."""
        ...

    async def get_game(self, game_id: int) -> GameRecord | None: ...

    async def game_with_moves(self, game_id: int) -> tuple[GameRecord, list[MoveRecord]] | None:
        """The game and its whole move log, read together (one consistent snapshot)."""
        ...

    async def live_game_in_channel(self, channel_id: int) -> GameRecord | None: ...

    async def live_games(
        self, guild_id: int | None, limit: int, offset: int, excluding: Collection[int] = ()
    ) -> tuple[list[GameRecord], int]:
        """One page of the live games (challenges and games in play) of a server (None:
        of direct messages), oldest first, leaving out the games `excluding`; and how many
        there are in all, without those."""
        ...

    async def append_move(
        self,
        game_id: int,
        expected_ply: int,
        seat: int,
        user_id: int,
        text: str,
        snapshot: str,
        now: float,
        result: GameResult | None = None,
        timer: Timer | None = None,
        *,
        untold: bool = False,
    ) -> None:
        """Log the move that takes the game from `expected_ply` to `expected_ply + 1` and
        store the new snapshot, atomically (no lock is held between the ply check and the
        write, so several processes may share the database); with `result` the game
        finishes. `timer` is the next decision's clock (a run-out mark is cleared).
        StalePlyError if the game is not live at `expected_ply` (nothing is written).
        Nothing else changes, so the caller knows the new record without reading it. With
        `untold`, the game's channel is still to be told of the move (`untold`,
        `mark_told`)."""
        ...

    async def untold(
        self, game_id: int, shards: TimeKeeping | None = None
    ) -> tuple[int, int] | None:
        """What of `game_id` its channel has not been told: the ply of the first change
        untold, and the ply after the last (an end counts one ply past the game's last
        move). None: nothing to tell, or the game is not of `shards`."""
        ...

    async def mark_told(self, told: Mapping[int, int]) -> None:
        """The channels were told of each game up to its ply in `told` (its end too when
        that is one past its last move), in one statement: a game's mark is cleared,
        unless a change reached a ply past what was told (then the changes from there on
        are still to be told)."""
        ...

    async def untold_games(self, shards: TimeKeeping | None = None, limit: int = 100) -> list[int]:
        """Ids of games (of `shards`' servers, if given) with changes their channel has
        not been told, the oldest games first, at most `limit`."""
        ...

    async def moves(self, game_id: int) -> list[MoveRecord]: ...

    async def accept_seat(
        self, game_id: int, seat: int, now: float, timer: Timer | None = None
    ) -> GameRecord:
        """Mark the seat accepted; when no seat is left to accept, in the same transaction,
        the challenge becomes an active game (with `timer`). StalePlyError if the
        seat cannot accept now."""
        ...

    async def close_game(
        self,
        game_id: int,
        expected_ply: int,
        status: Status,
        result: GameResult | None,
        now: float,
        only_from: tuple[Status, ...] = LIVE_STATUSES,
        hand_over: HandOver | None = None,
        *,
        untold: bool = False,
    ) -> GameRecord:
        """Finish, abort or decline a game at `expected_ply` whose status is one of
        `only_from` (StalePlyError else, and nothing is written); with `hand_over`, its
        seats change hands in the same transaction. `result` is stored as given. With
        `untold`, the game's channel is still to be told of its end (`untold`,
        `mark_told`)."""
        ...

    async def replace_seats(
        self, game_id: int, seats: tuple[int, ...], user: UserRecord, options: dict[str, Any]
    ) -> GameRecord:
        """`user` takes `seats` (a computer, for a player who resigned), and the game's
        options become `options`, in one transaction."""
        ...

    async def due_games(self, now: float, shards: TimeKeeping | None = None) -> list[int]:
        """Ids of active games whose deadline has passed (of those `shards` keeps time
        for, if given)."""
        ...

    async def reminders_due(self, now: float, shards: TimeKeeping | None = None) -> list[int]:
        """Ids of active games whose next reminder is due (of those `shards` keeps time
        for, if given)."""
        ...

    async def set_reminder(
        self, game_id: int, ply: int, due: float, following: float | None
    ) -> bool:
        """Move the game's reminder from `due` to `following`, if the game is still at
        `ply` with that reminder due (False: another process sent it, or a move came)."""
        ...

    async def mark_expired(self, game_id: int, ply: int, now: float) -> bool:
        """The decision pending at `ply` ran out of time and has no default: stop its
        clock and mark it claimable (False if the game moved on or was marked)."""
        ...

    async def pause_clock(self, game_id: int, ply: int, left: float) -> bool:
        """Stop the clock of the decision pending at `ply` for away time, keeping the
        seconds it had left (False if the game moved on or has no clock running)."""
        ...

    async def resume_clock(
        self, game_id: int, ply: int, deadline: float, started: float, remind: float | None
    ) -> bool:
        """Start a clock stopped for away time again (False if the game moved on or its
        clock is not stopped)."""
        ...

    async def paused_of(self, user_id: int) -> list[tuple[int, int, float]]:
        """(game, ply, seconds left) of the live games of `user_id` whose clock is stopped
        for away time."""
        ...

    async def set_board_messages(self, boards: dict[int, int]) -> None:
        """Remember the latest board message of each game (game id: message id)."""
        ...

    async def live_games_of_user(self, user_id: int, limit: int | None = None) -> list[GameRecord]:
        """The user's live games (challenges and games in play), in every server and
        channel, oldest first (the first `limit` of them, if given); found among their own
        seats, however many games they have finished."""
        ...

    async def finished_games(
        self,
        guild_id: int | None,
        user_id: int | None,
        game: str | None,
        limit: int,
        *,
        older_than: int | None = None,
        newer_than: int | None = None,
    ) -> list[GameRecord]:
        """Games that ended (finished or aborted) in a server (or, with None, in direct
        messages), newest first: those of `user_id` if given, of `game` if given. The
        `limit` newest of them, or the `limit` just older than the game `older_than`, or
        just newer than the game `newer_than` (still listed newest first): a page is found
        from where the last one ended, without counting the games before it."""
        ...

    async def settings(self, scope: Literal["guild", "user"], key: int) -> dict[str, Any]:
        """A server's or a player's settings ({} if none were saved)."""
        ...

    async def change_settings(
        self, scope: Literal["guild", "user"], key: int, changes: SettingsChanges
    ) -> None:
        """Set the settings at the paths of `changes` and nothing else, in one statement:
        two processes changing different keys of the same settings at once both keep
        their change."""
        ...

    async def follow(self, game_id: int, user: UserRecord, on: bool) -> None:
        """Start or stop following a game."""
        ...

    async def followers(self, game_id: int) -> list[UserRecord]: ...

    async def stale_challenges(self, before: float, shards: TimeKeeping | None = None) -> list[int]:
        """Ids of challenges still unanswered that were made before `before` (of those
        `shards` keeps time for, if given)."""
        ...
