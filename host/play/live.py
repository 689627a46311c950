"""Live games in memory: the cache in front of the database, and a lock per game.

The database is the truth. Memory holds live games replayed from their seed and move
log (a bounded cache, and which channel plays which game), so that a move, its
autocomplete and a button's check read nothing when the game is in memory. A game's
moves are committed only through this cache or against the stored ply, so an entry is
current unless another process moved the game; the ply-guarded commit then refuses, the
entry is dropped and the game is read afresh.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from data.repository import GameRecord, GameRepository, UserRecord
from engine.core import Game, GameState
from engine.text import t
from host import catalog
from host.model import Channel, ServiceError, User, echoed
from host.setup import GameOptions

log = logging.getLogger(__name__)

#: The game a user plays away from every channel (their daily run), for a command of a
#: channel that has no game of its own; None where they have none.
OwnGame = Callable[[User], Awaitable[int | None]]

#: The log entry of a takeback: the move before it no longer stands.
UNDO = "undo"
#: The mover recorded for an undo entry (no seat moved).
UNDONE = -1

#: The refusal of a command that needs the channel's game, where there is none.
NO_GAME = t("No game is being played in this channel. Start one with /play.")

#: Live games kept replayed in memory; the least recently used beyond this are dropped
#: (and replayed from the database when next used).
CACHE_GAMES = 5000


@dataclass(frozen=True, slots=True)
class Played:
    """One move of a round being told (`Loaded.story`): who made it, and the game
    before and after it."""

    seat: int
    move: Hashable
    before: GameState[Any]
    after: GameState[Any]

    @property
    def closes_round(self) -> bool:
        """Whether this move ended its round (or the game)."""
        return self.after.is_over or self.after.round_number != self.before.round_number


@dataclass(frozen=True)
class Loaded:
    """A game as the service works on it: the stored record and the replayed states."""

    record: GameRecord
    game: Game[Any]
    state: GameState[Any]
    previous: GameState[Any] | None
    last_move: Hashable | None
    #: The seat that made each move so far, in order (move `ply` is `movers[ply - 1]`).
    movers: tuple[int, ...] = ()
    #: Per seat, its legal moves written out with their search keys (lower case, no
    #: spaces), made on first use: autocomplete asks for them before every move.
    move_keys: dict[int, tuple[tuple[str, str], ...]] = field(
        default_factory=dict, compare=False, repr=False
    )
    #: In a game told a round at a time (`Game.told_in_rounds`), the moves of the round
    #: of the last move, in order: the whole round once that move ended it.
    story: tuple[Played, ...] = field(default=(), compare=False, repr=False)

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def options(self) -> GameOptions:
        return GameOptions.from_stored(self.record.options)

    @property
    def players(self) -> list[User]:
        """Who sits in each seat, by seat."""
        return [user_of(s.user) for s in self.record.seats]

    @property
    def deciding_together(self) -> bool:
        """Several seats must decide now, in secret (the game says it decides so)."""
        return self.game.secret_decisions and len(self.state.to_act) > 1

    def told(self, seat: int, move: Hashable, after: GameState[Any]) -> tuple[Played, ...]:
        """The story after `seat` plays `move` here, reaching `after`."""
        if not self.game.told_in_rounds:
            return ()
        played = Played(seat, move, self.state, after)
        same_round = self.story and self.story[0].before.round_number == self.state.round_number
        return (*self.story, played) if same_round else (played,)

    def keyed_moves(self, seat: int) -> tuple[tuple[str, str], ...]:
        """(search key, text) of every legal move of `seat`, in the engine's order."""
        keyed = self.move_keys.get(seat)
        if keyed is None:
            keyed = self.move_keys[seat] = _keyed(tuple(self.state.move_texts(seat)))
        return keyed

    def only_others_moved(self, seats: set[int], ply: int) -> bool:
        """Whether the game is at `ply`, or every move since was made by other seats than
        `seats` and one of them still has a decision to make (players deciding together
        do not spoil each other's half-made decisions)."""
        if ply == self.record.ply:
            return True
        if ply > self.record.ply or not seats & self.state.to_act:
            return False
        since = set(self.movers[ply:])
        # A takeback since changes the position under everyone's feet.
        return UNDONE not in since and not seats & since


@lru_cache(maxsize=256)
def _keyed(texts: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Move texts with their search keys; shared by every position with the same moves
    (Everest's plans are the same table round after round)."""
    return tuple((search_key(text), text) for text in texts)


def search_key(text: str) -> str:
    return "".join(text.lower().split())


def user_of(record: UserRecord) -> User:
    return User(record.id, record.name, record.is_bot)


def record_of(user: User) -> UserRecord:
    return UserRecord(user.id, user.name, user.is_bot)


def game_of(game_id: str) -> Game[Any]:
    """The hosted game `game_id`, or a refusal that lists the games."""
    try:
        return catalog.listing(game_id).game
    except KeyError:
        known = ", ".join(listing.id for listing in catalog.all_listings())
        raise ServiceError(
            t("There is no game {id!r}. Games: {known}.", id=echoed(game_id), known=known)
        ) from None


def replay(
    start: GameState[Any], entries: Sequence[tuple[int, str]]
) -> list[tuple[GameState[Any], Hashable | None]]:
    """The positions a move log reaches from `start`, each with the move that reached it
    (the first: None). An undo entry (a takeback) steps back one. MoveError (from the
    game) if an entry is not a legal move there."""
    reached: list[tuple[GameState[Any], Hashable | None]] = [(start, None)]
    for seat, text in entries:
        if text == UNDO:
            if len(reached) > 1:
                reached.pop()
            continue
        state = reached[-1][0]
        move = state.parse_move(seat, text)
        reached.append((state.play(seat, move), move))
    return reached


def _story(
    game: Game[Any],
    reached: list[tuple[GameState[Any], Hashable | None]],
    entries: Sequence[tuple[int, str]],
) -> tuple[Played, ...]:
    """The moves of the last move's round (`Loaded.story`), from a replayed log."""
    if not game.told_in_rounds or UNDO in (text for _, text in entries):
        return ()  # games told in rounds take nothing back
    seats = [seat for seat, _ in entries]
    story: list[Played] = []
    for i in range(len(reached) - 1, 0, -1):
        before, (after, move) = reached[i - 1][0], reached[i]
        if story and before.round_number != story[0].before.round_number:
            break
        story.insert(0, Played(seats[i - 1], move, before, after))
    return tuple(story)


def start_state(game: Game[Any], record: GameRecord) -> GameState[Any]:
    """The position a stored game started from."""
    if record.start_position:
        return game.from_text(record.start_position)
    return game.new_state(record.seed, len(record.seats), record.variant)


class LiveGames:
    """The games in memory, their locks, and reading them from the repository."""

    def __init__(self, games: GameRepository) -> None:
        self.repository = games
        #: Each game's lock while anyone holds it, waits for it or is about to: a lock
        #: nobody refers to goes with its last reference (a game a day ago keeps none).
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        #: Live games by id, most recently used last.
        self._cache: OrderedDict[int, Loaded] = OrderedDict()
        #: The live game of each channel whose game is cached.
        self._channels: dict[int, int] = {}
        #: Where `/move` and `/moves` in a channel without a game look next (the daily
        #: run, whose board is shown privately in any channel); None: nowhere.
        self.own_game: OwnGame | None = None

    def lock(self, game_id: int) -> asyncio.Lock:
        """One writer per game: held to read a game and commit to it, never for long."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    def cached(self, game_id: int) -> Loaded | None:
        """The game if it is in memory (no waiting, no reading)."""
        return self._cache.get(game_id)

    def remember(self, loaded: Loaded) -> Loaded:
        """Keep `loaded` as the game's current state in memory (while the game is live)."""
        record = loaded.record
        if not record.is_live:
            self.forget(record.id)
            return loaded
        self._cache[record.id] = loaded
        self._cache.move_to_end(record.id)
        if record.kind == "channel" and record.channel_id is not None:
            self._channels[record.channel_id] = record.id
        while len(self._cache) > CACHE_GAMES:
            _, dropped = self._cache.popitem(last=False)
            self._unbind(dropped.record)
        return loaded

    def forget(self, game_id: int) -> None:
        """Drop a game from memory: it ended, or another process changed it."""
        dropped = self._cache.pop(game_id, None)
        if dropped is not None:
            self._unbind(dropped.record)

    def forget_every(self) -> None:
        """Drop every game from memory: another process may have changed any of them in
        a way this one was not told of (news of it may have been missed)."""
        self._cache.clear()
        self._channels.clear()

    def _unbind(self, record: GameRecord) -> None:
        if record.channel_id is not None and self._channels.get(record.channel_id) == record.id:
            del self._channels[record.channel_id]

    async def load(self, game_id: int, *, fresh: bool = False) -> Loaded:
        """The game from memory, or replayed from the start and its move log (so that the
        last move can be drawn) in one read. With `fresh`, a cached game is first checked
        against the stored ply, for answers that must show the latest state. Call under
        the game's lock."""
        cached = self._cache.get(game_id)
        if cached is not None:
            if not fresh:
                self._cache.move_to_end(game_id)
                return cached
            record = await self.record(game_id)
            if record.ply == cached.record.ply:
                if record == cached.record:
                    return cached
                return self.remember(replace(cached, record=record))
        found = await self.repository.game_with_moves(game_id)
        if found is None:
            raise ServiceError(t("That game does not exist."))
        record, moves = found
        game = game_of(record.game)
        entries = [(entry.seat, entry.text) for entry in moves[: record.ply]]
        reached = replay(start_state(game, record), entries)
        state, last_move = reached[-1]
        previous = reached[-2][0] if len(reached) > 1 else None
        if state.to_text() != record.snapshot:
            log.warning(
                "game %s: the replayed log differs from the snapshot; using the replay", game_id
            )
        movers = tuple(
            UNDONE if entry.text == UNDO else entry.seat for entry in moves[: record.ply]
        )
        story = _story(game, reached, entries)
        return self.remember(Loaded(record, game, state, previous, last_move, movers, story=story))

    async def moves_since(self, game_id: int, since: int) -> list[tuple[Loaded, int, Hashable]]:
        """The game before each move from ply `since` on, with the seat that made it and
        the move, read afresh in one read (for telling moves made elsewhere). Empty when a
        takeback since makes the moves no longer a plain sequence."""
        found = await self.repository.game_with_moves(game_id)
        if found is None:
            raise ServiceError(t("That game does not exist."))
        record, moves = found
        entries = [(entry.seat, entry.text) for entry in moves[: record.ply]]
        if any(text == UNDO for _, text in entries[since:]):
            return []
        game = game_of(record.game)
        # The positions each entry of the log starts from (a takeback before `since`
        # steps back one), and the moves that stand.
        reached: list[tuple[GameState[Any], Hashable | None]] = [(start_state(game, record), None)]
        standing: list[tuple[int, str]] = []
        steps = []
        for ply, (seat, text) in enumerate(entries):
            if text == UNDO:
                if len(reached) > 1:
                    reached.pop()
                    standing.pop()
                continue
            state, last = reached[-1]
            move = state.parse_move(seat, text)
            if ply >= since:
                previous = reached[-2][0] if len(reached) > 1 else None
                # The game as it was before this move: still active, at this ply.
                at = replace(record, ply=ply, status="active", result=None, finished_at=None)
                story = _story(game, reached, standing)
                movers = tuple(s for s, _ in standing)
                before = Loaded(at, game, state, previous, last, movers, story=story)
                steps.append((before, seat, move))
            reached.append((state.play(seat, move), move))
            standing.append((seat, text))
        return steps

    async def locked_load(self, game_id: int, *, fresh: bool = False) -> Loaded:
        async with self.lock(game_id):
            return await self.load(game_id, fresh=fresh)

    async def record(self, game_id: int) -> GameRecord:
        record = await self.repository.get_game(game_id)
        if record is None:
            raise ServiceError(t("That game does not exist."))
        return record

    async def changed_elsewhere(self, loaded: Loaded) -> bool:
        """Whether the stored game is no longer the one in memory (another process moved
        or ended it); if so it is dropped from memory, to be read afresh."""
        stored = await self.repository.get_game(loaded.id)
        if stored is not None and (stored.ply, stored.status) == (
            loaded.record.ply,
            loaded.record.status,
        ):
            return False
        self.forget(loaded.id)
        return True

    async def in_channel(self, channel: Channel) -> Loaded:
        """The channel's challenge or game in progress: from memory when it is known,
        else from the database."""
        game_id = self._channels.get(channel.channel_id)
        cached = self._cache.get(game_id) if game_id is not None else None
        if cached is not None:
            # No waiting for the game's lock: a move being made there changes nothing
            # that a look at the game needs, and the commit checks the ply anyway.
            return cached
        if game_id is None:
            record = await self.repository.live_game_in_channel(channel.channel_id)
            if record is None:
                raise ServiceError(NO_GAME)
            game_id = record.id
        loaded = await self.locked_load(game_id)
        if not loaded.record.is_live:
            raise ServiceError(NO_GAME)
        return loaded

    async def started_for(self, channel: Channel, user: User) -> Loaded:
        """The channel's started game; in a channel with none, the game `user` plays
        away from channels (their daily run, whose board they see in any channel) if
        they have one."""
        try:
            return await self.started_in(channel)
        except ServiceError as refused:
            if refused.text is not NO_GAME or self.own_game is None:
                raise
            game_id = await self.own_game(user)
            if game_id is None:
                raise
        return await self.locked_load(game_id)

    async def started_in(self, channel: Channel) -> Loaded:
        """The channel's game, which must have started (not a challenge)."""
        loaded = await self.in_channel(channel)
        if loaded.record.status == "challenge":
            raise ServiceError(
                t("The game has not started: the challenge is waiting for an answer.")
            )
        return loaded
