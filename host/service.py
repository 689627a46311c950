"""The game service: every command of the bot, without Discord.

One game at a time per channel. A move is handled under the game's lock: load the record,
check the seat, parse and play with the engine, append the move and the new snapshot in
one transaction, and only then update the cache. The database is the truth; memory holds
only a cache keyed by ply, so several processes can share one database and a restart
loses nothing.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import islice
from typing import Any

from data.repository import (
    ChannelBusyError,
    GameRecord,
    GameRepository,
    NewGame,
    StalePlyError,
    Status,
    UserRecord,
)
from engine import ai, registry
from engine.core import Game, GameState, MoveError, NotationError, Option, Outcome
from engine.rng import Rng
from engine.text import Text, t, tn
from host.ai_turns import ComputerPlayers, ThreadedComputers
from host.model import (
    OFFERED_AT,
    Choice,
    Place,
    Reply,
    ServiceError,
    Suggestion,
    User,
    offered_move,
)
from host.model import ChannelBusyError as ChannelTaken
from host.painting import BoardImages, Painter, ThreadPainter
from host.rules import rules_text
from render.core import RenderContext

log = logging.getLogger(__name__)

BOT_NAME = "hilltop"
#: Discord allows 25 options in a select menu and 25 buttons on a message.
MAX_PICKS = 25
SEAT_CHOICES = ("first", "second", "random")
#: A Discord embed holds 4,096 characters; long move lists are cut below that.
MAX_LIST_CHARS = 3800
MAX_DEADLINE_MINUTES = 7 * 24 * 60
#: An unanswered challenge frees its channel after this long.
CHALLENGE_SECONDS = 24 * 3600
#: Live games kept replayed in memory; the least recently used beyond this are dropped
#: (and replayed from the database when next used).
CACHE_GAMES = 5000


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

    def keyed_moves(self, seat: int) -> tuple[tuple[str, str], ...]:
        """(search key, text) of every legal move of `seat`, in the engine's order."""
        keyed = self.move_keys.get(seat)
        if keyed is None:
            keyed = self.move_keys[seat] = _keyed(tuple(self.state.move_texts(seat)))
        return keyed


@lru_cache(maxsize=256)
def _keyed(texts: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Move texts with their search keys; shared by every position with the same moves
    (Everest's plans are the same table round after round)."""
    return tuple((_search_key(text), text) for text in texts)


def _search_key(text: str) -> str:
    return "".join(text.lower().split())


@dataclass(eq=False)
class _ComputerTurns:
    """Computer players of one game at work in the background."""

    task: asyncio.Task[tuple[Loaded, list[Text]]]
    #: The game when they started: what the last reply showed.
    shown: Loaded
    #: Replies waiting for these moves: while any waits, it shows them, not a post.
    waiting: int = 0
    #: The lines that tell only that a secret choice was made.
    secret: list[Text] = field(default_factory=list)


def _only_others_moved(loaded: Loaded, seats: set[int], ply: int) -> bool:
    """Whether the game is at `ply`, or every move since was made by other seats than
    `seats` and one of them still has a decision to make."""
    if ply == loaded.record.ply:
        return True
    if ply > loaded.record.ply or not seats & loaded.state.to_act:
        return False
    return not seats & set(loaded.movers[ply:])


def _state_of(game: Game[Any], record: GameRecord) -> GameState[Any]:
    if record.start_position:
        return game.from_text(record.start_position)
    return game.new_state(record.seed, len(record.seats), record.variant)


class GameService:
    def __init__(
        self,
        games: GameRepository,
        *,
        bot_user: User,
        clock: Callable[[], float] = time.time,
        render_images: bool = True,
        computers: ComputerPlayers | None = None,
        painter: Painter | None = None,
        computer_wait: float | None = None,
    ) -> None:
        self.games = games
        self.bot_user = bot_user
        self.clock = clock
        self.render_images = render_images
        self.computers: ComputerPlayers = computers or ThreadedComputers()
        self.painter: Painter = painter or ThreadPainter()
        registry.all_games()
        self._locks: dict[int, asyncio.Lock] = {}
        #: Live games by id, most recently used last. A game's moves are committed only
        #: through this process's cache or against the stored ply, so an entry is current
        #: unless another process moved; then the ply-guarded commit refuses, the entry
        #: is dropped and the game is read afresh.
        self._cache: OrderedDict[int, Loaded] = OrderedDict()
        #: The live game of each channel whose game is cached.
        self._channels: dict[int, int] = {}
        #: Called after a move finishes a game; their replies follow the final board.
        self.finish_hooks: list[Callable[[Loaded], Awaitable[list[Reply]]]] = []
        #: How long a reply waits for the computer players' moves that follow it; what
        #: they play later is posted with `post`. None (or no `post`): replies wait until
        #: the computers have played (the console and the tests, one reader at a time).
        self.computer_wait = computer_wait
        #: Posts replies in a game's channel outside any command (set by the front-end).
        self.post: Callable[[Place, list[Reply]], Awaitable[None]] | None = None
        self._thinking: dict[int, _ComputerTurns] = {}
        self._background: set[asyncio.Task[None]] = set()

    def close(self) -> None:
        """Stop the computer players' and the painter's workers, and what waits on them.
        A computer turn cut short is played when its game is next used."""
        for turns in self._thinking.values():
            turns.task.cancel()
        for task in self._background:
            task.cancel()
        self.computers.close()
        self.painter.close()

    # === starting games ===================================================================
    async def play(
        self,
        place: Place,
        user: User,
        game_id: str,
        opponents: Sequence[User] = (),
        *,
        computers: int = 0,
        seed: int | None = None,
        seat: str | None = None,
        variant: str | None = None,
        position: str | None = None,
        level: str | None = None,
        deadline_minutes: int | None = None,
    ) -> list[Reply]:
        """`/play`: challenge people (or the bot) to a game in this channel."""
        game = self._game(game_id)
        people = [user, *opponents]
        if len({p.id for p in people}) != len(people):
            raise ServiceError(t("You cannot challenge yourself, or the same player twice."))
        computer_seats = computers + sum(1 for p in opponents if p.is_bot)
        if game.max_players == 1 and opponents:
            raise ServiceError(t("{game} is played alone; leave out opponent.", game=game.name))
        if game.min_players > 1 and len(people) + computers < game.min_players:
            raise ServiceError(
                t(
                    "{game} needs an opponent: add opponent:@someone, or opponent:@{bot} to "
                    "play against the bot.",
                    game=game.name,
                    bot=self.bot_user.name,
                )
            )
        if computer_seats and game.max_players == 1:
            raise ServiceError(t("{game} has no computer seats.", game=game.name))
        if place.guild_id is None and any(not p.is_bot for p in opponents):
            raise ServiceError(
                t(
                    "Nobody else can see this direct message, so a challenge here could never "
                    "be answered. Challenge them from a server channel, or play me here with "
                    "opponent:@{bot}.",
                    bot=self.bot_user.name,
                )
            )
        players: list[User] = [p if not p.is_bot else self.bot_user for p in people]
        players += [self.bot_user] * computers
        return await self._start(
            place,
            user,
            game,
            players,
            seed=seed,
            seat=seat,
            variant=variant,
            position=position,
            level=level,
            deadline_minutes=deadline_minutes,
            challenge=True,
        )

    async def admin_start(
        self,
        place: Place,
        user: User,
        game_id: str,
        players: Sequence[User],
        *,
        computers: int = 0,
        seed: int | None = None,
        variant: str | None = None,
        position: str | None = None,
        level: str | None = None,
        deadline_minutes: int | None = None,
    ) -> list[Reply]:
        """`/admin start`: a match with no challenge step, seats in the order given."""
        self._require_admin(user)
        game = self._game(game_id)
        seated = [p if not p.is_bot else self.bot_user for p in players]
        seated += [self.bot_user] * computers
        humans = [p.id for p in seated if not p.is_bot]
        if len(set(humans)) != len(humans):
            raise ServiceError(t("Each player may take only one seat."))
        return await self._start(
            place,
            user,
            game,
            seated,
            seed=seed,
            seat="first",
            variant=variant,
            position=position,
            level=level,
            deadline_minutes=deadline_minutes,
            challenge=False,
        )

    async def _start(
        self,
        place: Place,
        user: User,
        game: Game[Any],
        players: list[User],
        *,
        seed: int | None,
        seat: str | None,
        variant: str | None,
        position: str | None,
        level: str | None,
        deadline_minutes: int | None,
        challenge: bool,
    ) -> list[Reply]:
        try:
            game.check_setup(len(players), variant)
        except ValueError as exc:
            raise ServiceError(str(exc)) from None
        if level is not None and level not in ai.LEVELS:
            raise ServiceError(
                t(
                    "Unknown level {level!r}; levels: {known}.",
                    level=level,
                    known=", ".join(ai.LEVELS),
                )
            )
        if deadline_minutes is not None and game.decision_seconds is None:
            raise ServiceError(
                t(
                    "deadline: {game} has no move deadlines; leave deadline out.",
                    game=game.name,
                )
            )
        if deadline_minutes is not None and not 1 <= deadline_minutes <= MAX_DEADLINE_MINUTES:
            raise ServiceError(
                t("deadline: give minutes from 1 to {most} (a week).", most=MAX_DEADLINE_MINUTES)
            )
        if seed is None:
            seed = secrets.randbits(48)  # fits a Discord integer option
        players = self._seat_players(game, players, seat, seed)
        if position:
            try:
                state = game.from_text(position)
            except NotationError as exc:
                raise ServiceError(
                    t(
                        "position: {reason} (see /rules game:{id} for the notation).",
                        reason=str(exc),
                        id=game.id,
                    )
                ) from None
            if state.num_seats != len(players):
                raise ServiceError(
                    t("position: that position is for {n} players.", n=state.num_seats)
                )
            if not state.to_act:
                raise ServiceError(t("position: that game is already over."))
            await self._check_showable(game, state, players)
        else:
            state = game.new_state(seed, len(players), variant)
        # Everyone who started it, and every computer, has already agreed to play.
        accepted = [not challenge or p.id == user.id or p.is_bot for p in players]
        options: dict[str, Any] = {"level": level or ai.DEFAULT_LEVEL}
        if deadline_minutes is not None:
            options["deadline"] = deadline_minutes * 60
        now = self.clock()
        deadline_at = (
            self._first_deadline(game, state, players, options, now) if all(accepted) else None
        )
        new = NewGame(
            game=game.id,
            guild_id=place.guild_id,
            channel_id=place.channel_id,
            status="active" if all(accepted) else "challenge",
            seed=seed,
            variant=variant,
            rules_version=game.rules_version,
            start_position=state.to_text() if position else None,
            snapshot=state.to_text(),
            created_by=_user_record(user),
            seats=tuple((_user_record(p), ok) for p, ok in zip(players, accepted, strict=True)),
            options=options,
            deadline_at=deadline_at,
        )
        try:
            record = await self.games.create_game(new, now)
        except ChannelBusyError:
            raise ChannelTaken(
                t(
                    "This channel already has a game. Finish it first (/board shows it), or "
                    "start yours in a new thread: a thread counts as its own channel."
                )
            ) from None
        log.info("game %s created: %s in channel %s", record.id, game.id, place.channel_id)
        if record.status == "challenge":
            return [self._challenge_reply(record, game)]
        async with self._lock(record.id):
            loaded = self._remember(Loaded(record, game, state, None, None))
        loaded, bot_lines = await self._await_computers(loaded)
        pings = self._pings(loaded, frozenset(), set())
        return [await self._board_reply(loaded, self._started_line(loaded), bot_lines, pings)]

    async def _check_showable(
        self, game: Game[Any], state: GameState[Any], players: Sequence[User]
    ) -> None:
        """A game is never started from a position that cannot be played or shown: its
        board, its report and every acting seat's moves are made once before it exists."""
        names = [p.name for p in players]
        try:
            view = state.view(None)
            view.report(None, names)
            state.scores()
            for seat in state.to_act:
                state.legal_moves(seat)
                state.view(seat)
            if self.render_images:
                ctx = RenderContext(names=tuple(names))
                acting = sorted(state.to_act)
                await self.painter.board(view, ctx, acting[0] if len(acting) == 1 else None)
        except Exception:
            log.warning("a %s position that cannot be shown was refused", game.id, exc_info=True)
            raise ServiceError(
                t(
                    "position: its fields do not fit together, so it cannot be played or "
                    "shown. Check it against the notation in /rules game:{id}.",
                    id=game.id,
                )
            ) from None

    def _seat_players(
        self, game: Game[Any], players: list[User], seat: str | None, seed: int
    ) -> list[User]:
        """Put the challenger first or second (`seat:`), or draw lots from the seed."""
        if seat is not None and seat not in SEAT_CHOICES:
            raise ServiceError(
                t("seat: {seat!r} is not a choice; use first, second or random.", seat=seat)
            )
        if len(players) < 2:
            return players
        if seat is None:
            seat = "random" if game.draw_seats else "first"
        if seat == "random":
            swap, _ = Rng(seed, 1 << 40).below(2)
            seat = "second" if swap else "first"
        if seat == "second":
            players = [players[1], players[0], *players[2:]]
        return players

    async def accept(self, place: Place, user: User) -> list[Reply]:
        record = (await self._live_game(place)).record
        if record.status != "challenge":
            raise ServiceError(t("The game in this channel has already started."))
        seats = [s for s in record.seats if s.user.id == user.id and not s.accepted]
        if not seats:
            raise ServiceError(self._not_challenged(record, user))
        async with self._lock(record.id):
            game = self._game(record.game)
            now = self.clock()
            # Used only if this acceptance is the last one, decided in the transaction.
            deadline_at = self._first_deadline(
                game,
                _state_of(game, record),
                [_user(s.user) for s in record.seats],
                record.options,
                now,
            )
            try:
                record = await self.games.accept_seat(record.id, seats[0].seat, now, deadline_at)
            except StalePlyError:
                raise ServiceError(t("That challenge was already answered.")) from None
            if record.status == "challenge":
                return [self._challenge_reply(record, game, t("{name} accepted.", name=user.name))]
            state = _state_of(game, record)
            loaded = self._remember(Loaded(record, game, state, None, None))
        loaded, bot_lines = await self._await_computers(loaded)
        pings = self._pings(loaded, frozenset(), set())
        return [await self._board_reply(loaded, self._started_line(loaded), bot_lines, pings)]

    async def decline(self, place: Place, user: User) -> list[Reply]:
        record = (await self._live_game(place)).record
        if record.status != "challenge":
            raise ServiceError(t("The game has started; to give up, use /resign."))
        if not record.seats_of(user.id):
            raise ServiceError(self._not_challenged(record, user))
        withdrawn = user.id == record.created_by
        reason = (
            t("{name} withdrew the challenge.", name=user.name)
            if withdrawn
            else t("{name} declined the challenge.", name=user.name)
        )
        try:
            async with self._lock(record.id):
                self._forget(record.id)
                await self.games.close_game(
                    record.id,
                    record.ply,
                    "declined",
                    {"reason": str(reason)},
                    self.clock(),
                    only_from=("challenge",),
                )
        except StalePlyError:
            raise ServiceError(t("That challenge was already answered.")) from None
        return [Reply(title=str(t("Challenge closed")), text=str(reason), tone="over", edit=True)]

    # === moves ============================================================================
    async def move(self, place: Place, user: User, text: str) -> list[Reply]:
        """`/move text:<move>`."""
        record = (await self._active_game(place)).record
        return await self._play_text(record.id, None, user, text)

    async def _play_text(self, game_id: int, ply: int | None, user: User, text: str) -> list[Reply]:
        """Play `text` for `user`. With `ply` (a button), the game must still be where the
        button was drawn; a typed move is checked against the position as it is."""
        async with self._lock(game_id):
            loaded = await self._load(game_id)
        loaded, caught_up = await self._catch_up(loaded)
        async with self._lock(game_id):
            loaded = await self._load(game_id)
            try:
                seat, move, after = self._checked_move(loaded, ply, user, text)
                committed = await self._commit(loaded, seat, user, move, after)
            except ServiceError:
                # Judged on this process's memory of the game: if another process has
                # moved it on meanwhile, judge again on the stored game.
                if not await self._changed_elsewhere(loaded):
                    raise
                loaded = await self._load(game_id)
                seat, move, after = self._checked_move(loaded, ply, user, text)
                committed = await self._commit(loaded, seat, user, move, after)
            state, before = loaded.state, loaded.state.to_act
            secret = len(state.to_act) > 1
            loaded = committed
            line = (
                t("{name} has made their choice.", name=user.name)
                if secret
                else t("{name} played {move}.", name=user.name, move=state.move_text(move))
            )
        loaded, bot_lines = await self._await_computers(loaded)
        pings = self._pings(loaded, before, {seat})
        replies = [await self._board_reply(loaded, line, caught_up + bot_lines, pings)]
        if loaded.record.status == "finished":
            for hook in self.finish_hooks:
                replies += await hook(loaded)
        return replies

    def _checked_move(
        self, loaded: Loaded, ply: int | None, user: User, text: str
    ) -> tuple[int, Hashable, GameState[Any]]:
        """(seat, move, state after it) if `user` may play `text` now, else ServiceError.
        With `ply` (a button), the game must still be where the button was drawn. A move
        picked from the suggestions names the ply it was offered at: it is refused if the
        user has moved since (the same move sent twice)."""
        if ply is not None:
            self._check_current(loaded, ply)
        elif loaded.record.status != "active":
            raise ServiceError(t("This game is over; nothing more can be played on it."))
        text, offered = offered_move(text)
        if offered is not None and not self._still_offered(loaded, offered, user):
            raise ServiceError(
                t(
                    "{move} was offered for an earlier turn: you have played since, or the "
                    "game moved on. Nothing was changed; see the latest board.",
                    move=text,
                )
            )
        seat = self._acting_seat(loaded, user)
        try:
            move = loaded.state.parse_move(seat, text)
            return seat, move, loaded.state.play(seat, move)
        except MoveError as exc:
            raise ServiceError(self._move_error(loaded, exc)) from None

    async def _changed_elsewhere(self, loaded: Loaded) -> bool:
        """Whether the stored game is no longer the one in memory (another process moved
        or ended it); if so it is dropped from memory, to be read afresh."""
        stored = await self.games.get_game(loaded.record.id)
        if stored is not None and (stored.ply, stored.status) == (
            loaded.record.ply,
            loaded.record.status,
        ):
            return False
        self._forget(loaded.record.id)
        return True

    async def play_in(self, game_id: int, user: User, text: str) -> list[Reply]:
        """A move in a game found by id (games not bound to a channel, like daily runs)."""
        return await self._play_text(game_id, None, user, text)

    async def board_of(self, game_id: int, headline: Text | None = None) -> Reply:
        async with self._lock(game_id):
            loaded = await self._load(game_id)
        loaded, caught_up = await self._catch_up(loaded)
        return await self._board_reply(loaded, headline, caught_up)

    async def loaded(self, game_id: int) -> Loaded:
        async with self._lock(game_id):
            return await self._load(game_id)

    async def _commit(
        self,
        loaded: Loaded,
        seat: int,
        user: User,
        move: Hashable,
        after: GameState[Any],
    ) -> Loaded:
        """Append the move and the new snapshot in one transaction, then cache."""
        record = loaded.record
        outcome = after.outcome()
        result = _result(outcome) if outcome else None
        now = self.clock()
        snapshot = after.to_text()
        deadline_at = self._next_deadline(loaded, after, now) if not outcome else None
        try:
            await self.games.append_move(
                record.id,
                record.ply,
                seat,
                user.id,
                loaded.state.move_text(move),
                snapshot,
                now,
                result,
                deadline_at,
            )
        except StalePlyError:
            self._forget(record.id)
            raise ServiceError(
                t(
                    "The game moved on while you were choosing; nothing was changed. "
                    "Look at the latest board and try again."
                )
            ) from None
        stored = replace(
            record,
            ply=record.ply + 1,
            snapshot=snapshot,
            updated_at=now,
            status="finished" if result else record.status,
            result=result if result else record.result,
            finished_at=now if result else record.finished_at,
            deadline_at=deadline_at,
        )
        movers = (*loaded.movers, seat)
        return self._remember(Loaded(stored, loaded.game, after, loaded.state, move, movers))

    def _next_deadline(self, loaded: Loaded, after: GameState[Any], now: float) -> float | None:
        """When the decision now pending must be made. Several seats deciding together
        share one deadline: it does not restart when one of them has acted."""
        players = [_user(s.user) for s in loaded.record.seats]
        deadline = self._first_deadline(loaded.game, after, players, loaded.record.options, now)
        continuing = after.to_act < loaded.state.to_act
        if deadline is not None and loaded.record.deadline_at is not None and continuing:
            return loaded.record.deadline_at
        return deadline

    def _first_deadline(
        self,
        game: Game[Any],
        state: GameState[Any],
        players: Sequence[User],
        options: dict[str, Any],
        now: float,
    ) -> float | None:
        """A new deadline for the decision pending in `state`, if a person must make
        one that has a default."""
        seconds = options.get("deadline") or game.decision_seconds
        waiting = [s for s in state.to_act if not players[s].is_bot]
        if not seconds or not any(state.timeout_move(s) is not None for s in waiting):
            return None
        return now + float(seconds)

    async def expire_due(self) -> list[tuple[Place, list[Reply]]]:
        """Play the documented default for every decision whose deadline has passed.
        Returns the board replies to post, with where to post them."""
        posts: list[tuple[Place, list[Reply]]] = []
        now = self.clock()
        for game_id in await self.games.due_games(now):
            try:
                post = await self._expire_game(game_id, now)
            except Exception:
                # One broken game must not hold up every other deadline.
                log.exception("game %s: playing the default after its deadline failed", game_id)
                continue
            if post is not None:
                posts.append(post)
        for game_id in await self.games.stale_challenges(now - CHALLENGE_SECONDS):
            reason = t("The challenge expired: nobody answered within a day.")
            async with self._lock(game_id):
                self._forget(game_id)
                try:
                    record = await self.games.close_game(
                        game_id,
                        0,
                        "declined",
                        {"reason": str(reason)},
                        now,
                        only_from=("challenge",),
                    )
                except StalePlyError:
                    continue
            if record.channel_id is not None:
                closed = Reply(title=str(t("Challenge closed")), text=str(reason), tone="over")
                posts.append((Place(record.channel_id, record.guild_id), [closed]))
        return posts

    async def _expire_game(self, game_id: int, now: float) -> tuple[Place, list[Reply]] | None:
        async with self._lock(game_id):
            loaded = await self._load(game_id)
            record = loaded.record
            if record.status != "active" or not record.deadline_at or record.deadline_at > now:
                return None
            before = loaded.state.to_act
            lines: list[Text] = []
            late: set[int] = set()
            for seat in sorted(loaded.state.to_act):
                if record.seats[seat].user.is_bot or loaded.record.status != "active":
                    continue
                move = loaded.state.timeout_move(seat)
                if move is None or seat not in loaded.state.to_act:
                    continue
                state = loaded.state
                user = _user(record.seats[seat].user)
                loaded = await self._commit(loaded, seat, user, move, state.play(seat, move))
                late.add(seat)
                lines.append(
                    t(
                        "{name} ran out of time: {move}.",
                        name=self._seat_label(loaded, seat),
                        move=_timeout_text(state, move),
                    )
                )
        if not lines or record.channel_id is None:
            return None
        loaded, bot_lines = await self._await_computers(loaded)
        pings = self._pings(loaded, before - late, set())
        board = await self._board_reply(loaded, None, lines + bot_lines, pings)
        return Place(record.channel_id, record.guild_id), [board]

    # === computer players ===============================================================
    def _computers_to_act(self, loaded: Loaded) -> list[int]:
        if loaded.record.status != "active":
            return []
        return sorted(
            s.seat for s in loaded.record.seats if s.user.is_bot and s.seat in loaded.state.to_act
        )

    async def _await_computers(self, loaded: Loaded) -> tuple[Loaded, list[Text]]:
        """Let the computer seats now to act play. Their moves join the reply being made
        if they are made within `computer_wait`; else the reply says they are thinking,
        and what they play is posted when it is played."""
        if not self._computers_to_act(loaded):
            return loaded, []
        turns = self._computer_turns(loaded)
        wait = self.computer_wait if self.post is not None else None
        turns.waiting += 1
        try:
            await asyncio.wait({turns.task}, timeout=wait)
        finally:
            turns.waiting -= 1
        if turns.task.done() and not turns.task.cancelled():
            final, lines = turns.task.result()
            return (final if final.record.ply >= loaded.record.ply else loaded), lines
        seats = self._computers_to_act(loaded)
        names = ", ".join(self._seat_label(loaded, s) for s in seats)
        return loaded, [
            tn("{names} is thinking…", "{names} are thinking…", n=len(seats), names=names)
        ]

    async def _catch_up(self, loaded: Loaded) -> tuple[Loaded, list[Text]]:
        """Computer turns left pending (by a restart, or a failure in the middle of their
        turn) are played before a person's command is judged where replies wait for
        them; elsewhere they are started, and posted when played."""
        if self.post is None or self.computer_wait is None:
            return await self._await_computers(loaded)
        if self._computers_to_act(loaded):
            self._computer_turns(loaded)
        return loaded, []

    def _computer_turns(self, loaded: Loaded) -> _ComputerTurns:
        """The computers thinking in this game: the ones already at it, or new ones."""
        game_id = loaded.record.id
        turns = self._thinking.get(game_id)
        if turns is not None and not turns.task.done():
            return turns
        secret: list[Text] = []
        task = asyncio.create_task(self._play_computers(game_id, secret))
        turns = self._thinking[game_id] = _ComputerTurns(task, loaded, secret=secret)
        if self.post is not None:
            self._run_in_background(self._post_computer_moves(turns))
        return turns

    def _run_in_background(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _play_computers(self, game_id: int, secret: list[Text]) -> tuple[Loaded, list[Text]]:
        """Every computer seat to act plays, until a person must act. The game's lock is
        held to read and to commit, never while a computer thinks: the people of the game
        can look at it, and plan at the same time in games of secret plans. The lines that
        only tell of a secret choice are also added to `secret`."""
        lines: list[Text] = []
        try:
            for _ in range(1000):
                async with self._lock(game_id):
                    loaded = await self._load(game_id)
                computers = self._computers_to_act(loaded)
                if not computers:
                    break
                seat, state, ply = computers[0], loaded.state, loaded.record.ply
                level = str(loaded.record.options.get("level", ai.DEFAULT_LEVEL))
                move = await self.computers.choose(state, seat, level)
                async with self._lock(game_id):
                    loaded = await self._load(game_id)
                    if not self._still_to_choose(loaded, seat, ply, len(state.to_act) > 1):
                        continue  # the game moved on while it thought: think again
                    now = loaded.state
                    try:
                        after = now.play(seat, move)
                    except MoveError:
                        continue
                    loaded = await self._commit(loaded, seat, self.bot_user, move, after)
                name = self._seat_label(loaded, seat)
                if len(now.to_act) > 1:
                    secret.append(t("{name} has made their choice.", name=name))
                    lines.append(secret[-1])
                else:
                    lines.append(t("{name} played {move}.", name=name, move=now.move_text(move)))
        except Exception:
            log.exception("game %s: a computer turn failed", game_id)
            lines.append(t("The computer player could not move yet; it will try again."))
        async with self._lock(game_id):
            return await self._load(game_id), lines

    def _still_to_choose(self, loaded: Loaded, seat: int, ply: int, together: bool) -> bool:
        """Whether a decision `seat` thought about at `ply` is still its to make: nothing
        happened since, or (seats deciding together) only the other seats' decisions."""
        if loaded.record.status != "active":
            return False
        if together:
            return _only_others_moved(loaded, {seat}, ply)
        return loaded.record.ply == ply and seat in loaded.state.to_act

    async def _post_computer_moves(self, turns: _ComputerTurns) -> None:
        """Post what the computers played, unless a reply waiting for them shows it."""
        try:
            final, lines = await turns.task
        except asyncio.CancelledError:
            return
        if turns.waiting or self.post is None or final.record.channel_id is None:
            return
        pings = self._pings(final, turns.shown.state.to_act, set())
        if not pings and final.record.is_live and all(line in turns.secret for line in lines):
            return  # only secret choices made, and nobody newly asked to act: nothing to tell
        try:
            reply = await self._board_reply(final, None, lines, pings)
            await self.post(Place(final.record.channel_id, final.record.guild_id), [reply])
        except Exception:
            log.exception("game %s: posting the computer's moves failed", final.record.id)

    async def resign(self, place: Place, user: User) -> list[Reply]:
        record = (await self._active_game(place)).record
        return await self._resign(record.id, user)

    async def _resign(self, game_id: int, user: User) -> list[Reply]:
        async with self._lock(game_id):
            loaded = await self._load(game_id)
            if loaded.record.status != "active":
                raise ServiceError(t("This game is over; nothing more can be played on it."))
            seats = loaded.record.seats_of(user.id)
            if not seats:
                raise ServiceError(self._not_a_player(loaded, user))
            if len(loaded.record.seats) <= 2:
                return await self._close(loaded, "finished", self._resigned(loaded, seats), user)
            loaded = await self._hand_over(loaded, seats)
        line = t(
            "{name} resigned; a computer player takes over {seat}.",
            name=user.name,
            seat=", ".join(loaded.game.seat_names[s] for s in seats),
        )
        before = loaded.state.to_act
        loaded, bot_lines = await self._await_computers(loaded)
        pings = self._pings(loaded, before, set(seats))
        return [await self._board_reply(loaded, line, bot_lines, pings)]

    def _resigned(self, loaded: Loaded, seats: tuple[int, ...]) -> dict[str, Any]:
        """The result of a game of two that `seats` gave up."""
        name = loaded.record.seats[seats[0]].user.name
        others = [s.seat for s in loaded.record.seats if s.seat not in seats]
        return {
            "scores": list(loaded.state.scores()),
            "winners": others if len(others) == 1 else [],
            "reason": str(t("{name} resigned.", name=name)),
            "resigned": list(seats),
        }

    async def _hand_over(self, loaded: Loaded, seats: tuple[int, ...]) -> Loaded:
        """In a game of three or more, a computer takes over the resigner's seats and the
        game goes on; the resigner can no longer win. Call under the game's lock."""
        record = loaded.record
        for seat in seats:
            record = await self.games.replace_seat(record.id, seat, _user_record(self.bot_user))
        return self._remember(replace(loaded, record=record))

    async def admin_end(self, place: Place, user: User) -> list[Reply]:
        self._require_admin(user)
        record = (await self._live_game(place)).record
        async with self._lock(record.id):
            loaded = await self._load(record.id, fresh=True)
            reason = t("Ended by {name}, an admin.", name=user.name)
            result = {
                "scores": list(loaded.state.scores()),
                "winners": [],
                "reason": str(reason),
                "aborted": True,
            }
            return await self._close(loaded, "aborted", result, user)

    async def _close(
        self, loaded: Loaded, status: Status, result: dict[str, Any], user: User
    ) -> list[Reply]:
        """End a game that is not over by its rules (resigned, ended by an admin): its
        final board, pinging the other players. Call under the game's lock."""
        try:
            record = await self.games.close_game(
                loaded.record.id, loaded.record.ply, status, result, self.clock()
            )
        except StalePlyError:
            raise ServiceError(t("The game moved on; try again.")) from None
        loaded = self._remember(replace(loaded, record=record))
        return [await self._board_reply(loaded, None, [], self._everyone(loaded, user))]

    # === looking at games =================================================================
    async def board(self, place: Place) -> list[Reply]:
        record = (await self._live_game(place)).record
        async with self._lock(record.id):
            # Asked for the latest board: make sure no other process has moved since.
            loaded = await self._load(record.id, fresh=True)
        loaded, caught_up = await self._catch_up(loaded)
        if loaded.record.status == "challenge":
            return [self._challenge_reply(loaded.record, loaded.game)]
        return [await self._board_reply(loaded, None, caught_up)]

    async def legal_moves(self, place: Place, user: User, start: str | None = None) -> list[Reply]:
        """`/moves [from]`: the caller's legal moves, one per line, privately."""
        loaded = await self._active_game(place)
        seat = self._acting_seat(loaded, user)
        moves = self._move_texts(loaded, seat, start)
        if start and not moves:
            text = str(t("No legal move starts with {start}.", start=start.strip()))
        else:
            text = "\n".join(moves)
        return [self._moves_reply(moves, text)]

    def _moves_reply(self, moves: list[str], text: str) -> Reply:
        """The list, cut to what one message holds, saying how many were left out."""
        if len(text) > MAX_LIST_CHARS:
            kept = text[:MAX_LIST_CHARS].rsplit("\n", 1)[0]
            left = len(moves) - kept.count("\n") - 1
            text = (
                kept
                + "\n"
                + str(
                    t(
                        "… and {n} more. Narrow the list with /moves <start>, or use the buttons.",
                        n=left,
                    )
                )
            )
        title = str(t("Your legal moves ({n})", n=len(moves)))
        return Reply(title=title, text=text, ephemeral=True)

    def _move_texts(self, loaded: Loaded, seat: int, start: str | None) -> list[str]:
        """The seat's legal moves, or those starting with `start` (a square, a piece or
        the first letters of the notation)."""
        keyed = loaded.keyed_moves(seat)
        if not start:
            return [text for _, text in keyed]
        key = _search_key(start)
        first = start.strip().lower()
        state = loaded.state
        return [
            text
            for (k, text), move in zip(keyed, state.legal_moves(seat), strict=True)
            if k.startswith(key) or [x.lower() for x in state.move_tokens(move)[:1]] == [first]
        ]

    async def suggest_moves(self, place: Place, user: User, typed: str) -> list[Suggestion]:
        """Autocomplete for `/move`: the caller's legal moves matching what they typed,
        those starting with it first; empty for anyone who is not to act. Served from
        memory: Discord wants the choices within 3 s and a player types fast."""
        try:
            loaded = await self._active_game(place)
        except ServiceError:
            return []
        return self._suggest(loaded, user, typed)

    async def suggest_in(self, game_id: int, user: User, typed: str) -> list[Suggestion]:
        loaded = self._cache.get(game_id)
        if loaded is None:
            try:
                async with self._lock(game_id):
                    loaded = await self._load(game_id)
            except ServiceError:
                return []
        return self._suggest(loaded, user, typed)

    def _suggest(self, loaded: Loaded, user: User, typed: str) -> list[Suggestion]:
        if loaded.record.status != "active":
            return []
        seats = [s for s in loaded.record.seats_of(user.id) if s in loaded.state.to_act]
        if not seats:
            return []
        key = _search_key(typed)
        keyed = loaded.keyed_moves(seats[0])
        starts = list(islice((text for k, text in keyed if k.startswith(key)), MAX_PICKS))
        if len(starts) < MAX_PICKS:
            inside = (text for k, text in keyed if key in k and not k.startswith(key))
            starts += islice(inside, MAX_PICKS - len(starts))
        at = f"{OFFERED_AT}{loaded.record.ply}"
        return [Suggestion(text, text + at) for text in starts]

    async def list_games(self, place: Place, user: User) -> list[Reply]:
        records = await self.games.live_games(place.guild_id)
        if place.guild_id is None:
            records = [r for r in records if r.seats_of(user.id)]
        mine: list[str] = []
        others: list[str] = []
        for record in records:
            game = self._game(record.game)
            names = " vs ".join(s.user.name for s in record.seats)
            where = f"<#{record.channel_id}>"
            if record.status == "challenge":
                others.append(
                    str(
                        t(
                            "{where} · {game}: {names} (challenge)",
                            where=where,
                            game=game.name,
                            names=names,
                        )
                    )
                )
                continue
            loaded = await self._load(record.id)
            acting = {s.user.id for s in record.seats if s.seat in loaded.state.to_act}
            line = str(
                t(
                    "{where} · {game}: {names} · ply {ply}",
                    where=where,
                    game=game.name,
                    names=names,
                    ply=record.ply,
                )
            )
            (mine if user.id in acting else others).append(line)
        if not records:
            text = str(t("No games are being played here. Start one with /play."))
        else:
            parts = []
            if mine:
                parts.append(str(t("**Your turn**")) + "\n" + "\n".join(mine))
            if others:
                parts.append(str(t("**Other games**")) + "\n" + "\n".join(others))
            text = "\n\n".join(parts)
        return [Reply(title=str(t("Active games")), text=text, ephemeral=True)]

    def rules(self, game_id: str) -> list[Reply]:
        game = self._game(game_id)
        return [
            Reply(
                title=str(t("{game}: rules", game=game.name)),
                text=rules_text(game.id),
                ephemeral=True,
            )
        ]

    def game_choices(self) -> list[tuple[str, str]]:
        """(id, name) of every game, for menus and autocomplete."""
        return [(g.id, g.name) for g in registry.all_games()]

    def variant_choices(self, game_id: str) -> list[tuple[str, str]]:
        try:
            game = registry.get(game_id)
        except KeyError:
            return [
                (v.name, f"{g.name}: {v.name}") for g in registry.all_games() for v in g.variants
            ]
        return [(v.name, v.description) for v in game.variants]

    # === buttons ==========================================================================
    async def press(self, place: Place, user: User, payload: str) -> list[Reply]:
        """A component was used. Payloads are `action:game:ply:argument`."""
        try:
            action, game_part, ply_part, arg = payload.split(":", 3)
            game_id, ply = int(game_part), int(ply_part)
        except ValueError:
            raise ServiceError(t("That button is not one of mine.")) from None
        if action in ("accept", "decline"):
            record = await self._record(game_id)
            if record.channel_id != place.channel_id or not record.is_live:
                raise ServiceError(t("That challenge is no longer open."))
            return await (self.accept if action == "accept" else self.decline)(place, user)
        if action == "resign":
            loaded = await self._check_press(game_id, ply, user)
            if not loaded.record.seats_of(user.id):
                raise ServiceError(self._not_a_player(loaded, user))
            return [
                Reply(
                    title=str(t("Resign?")),
                    text=str(t("Do you really want to resign this game? This cannot be undone.")),
                    ephemeral=True,
                    actions=(Choice(f"resign!:{game_id}:{ply}:", str(t("Yes, resign")), "danger"),),
                )
            ]
        if action == "resign!":
            return await self._resign(game_id, user)
        if action == "hint":
            loaded = await self._check_press(game_id, ply, user)
            seat = self._acting_seat(loaded, user)
            if loaded.record.kind == "daily":
                raise ServiceError(t("No hints in the daily challenge: it is your own run."))
            move = await self.computers.choose(loaded.state, seat, "hard")
            text = t("Hint: the bot would play {move}.", move=loaded.state.move_text(move))
            return [Reply(text=str(text), ephemeral=True)]
        if action == "moves":
            loaded = await self._check_press(game_id, ply, user)
            seat = self._acting_seat(loaded, user)
            moves = self._move_texts(loaded, seat, None)
            return [self._moves_reply(moves, "\n".join(moves))]
        if action in ("pick", "step", "open"):
            loaded = await self._check_press(game_id, ply, user)
            seat = self._acting_seat(loaded, user)
            prefix = tuple(arg.split())
            options = loaded.state.move_options(seat, prefix)
            if not options.options and options.complete is None:
                raise ServiceError(t("That choice is no longer available."))
            if not options.options and options.complete is not None and prefix:
                return await self._play_from_builder(loaded, user, prefix, action == "step")
            return [await self._builder_reply(loaded, seat, prefix, edit=action == "step")]
        if action in ("group", "group+"):
            # "group+" comes from the public board and opens a private panel.
            loaded = await self._check_press(game_id, ply, user)
            seat = self._acting_seat(loaded, user)
            group, _, chosen = arg.partition("|")
            edit = action == "group"
            return [await self._builder_reply(loaded, seat, tuple(chosen.split()), edit, group)]
        if action == "play":
            loaded = await self._check_press(game_id, ply, user)
            return await self._play_from_builder(loaded, user, tuple(arg.split()), True)
        raise ServiceError(t("That button is not one of mine."))

    async def _play_from_builder(
        self, loaded: Loaded, user: User, tokens: tuple[str, ...], from_panel: bool
    ) -> list[Reply]:
        record = loaded.record
        text = " ".join(tokens)
        replies = await self._play_text(record.id, record.ply, user, text)
        if not from_panel:
            return replies
        seat = self._acting_seat(loaded, user)
        move = loaded.state.move_text(loaded.state.parse_move(seat, text))
        done = Reply(text=str(t("Done: {move}.", move=move)), ephemeral=True, edit=True)
        return [done, *replies]

    async def _check_press(self, game_id: int, ply: int, user: User) -> Loaded:
        async with self._lock(game_id):
            loaded = await self._load(game_id)
        loaded, _ = await self._catch_up(loaded)
        if not loaded.record.is_live:
            raise ServiceError(t("This game is over; nothing more can be played on it."))
        if not self._still_offered(loaded, ply, user):
            raise ServiceError(
                t(
                    "This board is out of date: the game has moved on (ply {now}). Use the "
                    "latest board, or /board to post it again.",
                    now=loaded.record.ply,
                )
            )
        return loaded

    def _still_offered(self, loaded: Loaded, ply: int, user: User) -> bool:
        """Whether what was offered to `user` at `ply` (a board's buttons, a suggested
        move) still stands: the game is at `ply`, or every move since was another seat's
        and the user still has a decision to make (players planning at once do not spoil
        each other's half-built plans). A repeat of one's own move never stands."""
        return _only_others_moved(loaded, set(loaded.record.seats_of(user.id)), ply)

    async def _builder_reply(
        self,
        loaded: Loaded,
        seat: int,
        prefix: tuple[str, ...],
        edit: bool,
        group: str | None = None,
    ) -> Reply:
        record = loaded.record
        options = loaded.state.move_options(seat, prefix)
        base = f"{record.id}:{record.ply}"
        picks = _pick_choices(base, prefix, options.options, group)
        actions: list[Choice] = []
        if options.complete is not None:
            actions.append(Choice(f"play:{base}:{' '.join(prefix)}", str(t("Confirm")), "success"))
        if group is not None:
            actions.append(Choice(f"step:{base}:{' '.join(prefix)}", str(t("Back"))))
        elif prefix:
            actions.append(Choice(f"step:{base}:{' '.join(prefix[:-1])}", str(t("Back"))))
        chosen = " ".join(prefix)
        lines = [str(options.prompt)]
        if chosen:
            lines.insert(0, str(t("So far: **{chosen}**", chosen=chosen)))
        if options.preview is not None:
            lines.append(str(options.preview))
        picture = None
        if self.render_images:
            view = loaded.state.view(seat)
            ctx = self._render_context(loaded, seat)
            picture = await self.painter.options(view, seat, prefix, ctx)
        return Reply(
            title=str(t("Your move")),
            text="\n".join(lines),
            image=picture,
            ephemeral=True,
            picks=picks,
            pick_placeholder=str(options.prompt),
            actions=tuple(actions),
            edit=edit,
        )

    # === replies ==========================================================================
    def _challenge_reply(
        self, record: GameRecord, game: Game[Any], extra: Text | None = None
    ) -> Reply:
        challenger = next(s.user for s in record.seats if s.user.id == record.created_by)
        pending = [s.user for s in record.seats if not s.accepted]
        lines = [
            str(
                t(
                    "{name} challenges {others} to {game}.",
                    name=challenger.name,
                    others=", ".join(u.name for u in pending),
                    game=game.name,
                )
            )
        ]
        if extra is not None:
            lines.insert(0, str(extra))
        lines.append(str(t("Accept or decline with the buttons (or /accept, /decline).")))
        base = f"{record.id}:0:"
        return Reply(
            title=str(t("{game}: a challenge", game=game.name)),
            text="\n".join(lines),
            actions=(
                Choice(f"accept:{base}", str(t("Accept")), "success"),
                Choice(f"decline:{base}", str(t("Decline")), "danger"),
            ),
            mentions=tuple(_user(u) for u in pending),
            tone="turn",
        )

    def _started_line(self, loaded: Loaded) -> Text:
        seats = ", ".join(self._seat_label(loaded, s.seat) for s in loaded.record.seats)
        return t("The game begins: {seats}.", seats=seats)

    def _seat_label(self, loaded: Loaded, seat: int) -> str:
        user = loaded.record.seats[seat].user
        names = loaded.game.seat_names
        role = names[seat] if seat < len(names) else str(seat + 1)
        if len(loaded.record.seats) == 1:
            return user.name
        return f"{user.name} ({role})"

    async def _board_reply(
        self,
        loaded: Loaded,
        headline: Text | None,
        bot_lines: list[Text],
        pings: tuple[User, ...] = (),
    ) -> Reply:
        record, state, game = loaded.record, loaded.state, loaded.game
        #: A daily run is played in private so that nobody else sees the hill.
        private = record.kind == "daily"
        lines = [str(x) for x in ([headline] if headline else []) + bot_lines]
        mentions: tuple[User, ...] = ()
        picks: tuple[Choice, ...] = ()
        actions: list[Choice] = []
        base = f"{record.id}:{record.ply}"
        tone = "turn"
        players = [s.user.name for s in record.seats]
        previous = loaded.previous.view(None) if loaded.previous is not None else None
        lines += [str(x) for x in state.view(None).report(previous, players)]
        if record.status != "active":
            tone = "over"
            lines.append(self._result_line(loaded))
            mentions = () if private else pings
        else:
            acting = sorted(state.to_act)
            humans = [s for s in acting if not record.seats[s].user.is_bot]
            names = ", ".join(self._seat_label(loaded, s) for s in acting)
            if len(acting) == 1:
                lines.append(str(t("{names} to move.", names=names)))
            else:
                lines.append(str(t("Waiting for: {names}.", names=names)))
            mentions = () if private else pings
            if record.deadline_at is not None and humans:
                lines.append(
                    str(
                        t(
                            "Without a decision, the default choice is played <t:{when}:R>.",
                            when=int(record.deadline_at),
                        )
                    )
                )
            if len(humans) == 1 and len(acting) == 1:
                options = state.move_options(humans[0], ())
                if options.options:
                    picks = _pick_choices(base, (), options.options, None, action="pick")
                else:
                    actions.append(Choice(f"open:{base}:", str(t("Make my move")), "primary"))
            elif humans:
                actions.append(Choice(f"open:{base}:", str(t("Make my move")), "primary"))
            actions.append(Choice(f"moves:{base}:", str(t("Legal moves"))))
            if game.max_players == 1 and not private:
                # Practice only: a hint in the scored daily run would defeat it.
                actions.append(Choice(f"hint:{base}:", str(t("Hint"))))
            if not private:
                actions.append(Choice(f"resign:{base}:", str(t("Resign")), "danger"))
        scores = state.scores()
        fields = tuple(
            (self._seat_label(loaded, s.seat), _points(scores[s.seat])) for s in record.seats
        )
        images = await self._images(loaded) if self.render_images else None
        gallery: tuple[tuple[str, bytes], ...] = ()
        if images is not None:
            gallery = tuple(
                (str(t("Step {n}", n=i)), png) for i, png in enumerate(images.steps, start=1)
            )
            if images.choices is not None:
                gallery += ((str(t("The choices")), images.choices),)
        return Reply(
            title=str(t("{game} · ply {ply}", game=game.name, ply=record.ply)),
            text="\n".join(lines),
            image=images.board if images is not None else None,
            gallery=gallery,
            ephemeral=private,
            picks=picks,
            pick_placeholder=str(state.option_prompt(())) if picks else "",
            actions=tuple(actions),
            mentions=mentions,
            tone=tone,
            fields=fields,
            footer=self._footer(record),
        )

    def _result_line(self, loaded: Loaded) -> str:
        result = loaded.record.result or {}
        reason = result.get("reason", "")
        if loaded.record.status == "aborted":
            return str(t("Game over: {reason}", reason=reason))
        scores = result.get("scores", list(loaded.state.scores()))
        winners = result.get("winners", [])
        score_text = ", ".join(
            f"{self._seat_label(loaded, i)} {score}" for i, score in enumerate(scores)
        )
        if len(loaded.record.seats) == 1:
            return str(t("Game over. {reason}", reason=reason))
        if len(winners) == 1:
            verdict = str(t("{name} wins.", name=self._seat_label(loaded, winners[0])))
        else:
            verdict = str(t("It is a draw."))
        return str(
            t(
                "Game over. {reason} Scores: {scores}. {verdict}",
                reason=reason,
                scores=score_text,
                verdict=verdict,
            )
        )

    def _render_context(self, loaded: Loaded, viewer: int | None = None) -> RenderContext:
        return RenderContext(
            names=tuple(s.user.name for s in loaded.record.seats),
            last_move=loaded.last_move,
            previous=loaded.previous.view(viewer) if loaded.previous is not None else None,
            viewer=viewer,
        )

    async def _images(self, loaded: Loaded) -> BoardImages:
        """The board, one picture per step of what the last move set off, and a picture
        of the choices when one player must choose among drawn outcomes (a roll-off's
        outcomes are public: everyone saw the dice)."""
        acting = sorted(loaded.state.to_act) if loaded.record.status == "active" else []
        chooser = acting[0] if len(acting) == 1 else None
        return await self.painter.board(
            loaded.state.view(None), self._render_context(loaded), chooser
        )

    def _footer(self, record: GameRecord) -> str:
        """The seed would let anyone foresee dice and hills: shown once a game is over
        (never for a daily run, whose hill others may still be playing)."""
        if record.is_live or record.kind == "daily":
            return str(t("Game {id}", id=record.id))
        return str(t("Game {id} · seed {seed}", id=record.id, seed=record.seed))

    def _pings(self, loaded: Loaded, before: frozenset[int], actors: set[int]) -> tuple[User, ...]:
        """Who to notify after a move: people newly asked to act (not the one who just
        acted), or everybody else once the game is over."""
        record = loaded.record
        if record.status != "active":
            targets = {s.seat for s in record.seats} - actors
        else:
            targets = set(loaded.state.to_act - before) - actors
        return tuple(_user(s.user) for s in record.seats if s.seat in targets and not s.user.is_bot)

    def _everyone(self, loaded: Loaded, user: User) -> tuple[User, ...]:
        return tuple(
            _user(s.user) for s in loaded.record.seats if not s.user.is_bot and s.user.id != user.id
        )

    # === loading and checks ===============================================================
    def _lock(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    def _remember(self, loaded: Loaded) -> Loaded:
        """Keep `loaded` as the game's current state in memory (while the game is live)."""
        record = loaded.record
        if not record.is_live:
            self._forget(record.id)
            return loaded
        self._cache[record.id] = loaded
        self._cache.move_to_end(record.id)
        if record.kind == "channel" and record.channel_id is not None:
            self._channels[record.channel_id] = record.id
        while len(self._cache) > CACHE_GAMES:
            _, dropped = self._cache.popitem(last=False)
            self._unbind(dropped.record)
        return loaded

    def _forget(self, game_id: int) -> None:
        """Drop a game from memory: it ended, or another process changed it."""
        dropped = self._cache.pop(game_id, None)
        if dropped is not None:
            self._unbind(dropped.record)

    def _unbind(self, record: GameRecord) -> None:
        if record.channel_id is not None and self._channels.get(record.channel_id) == record.id:
            del self._channels[record.channel_id]

    async def _load(self, game_id: int, *, fresh: bool = False) -> Loaded:
        """The game from memory, or replayed from the start and its move log (so that the
        last move can be drawn) in one read. With `fresh`, a cached game is first checked
        against the stored ply, for answers that must show the latest state."""
        cached = self._cache.get(game_id)
        if cached is not None:
            if not fresh:
                self._cache.move_to_end(game_id)
                return cached
            record = await self._record(game_id)
            if record.ply == cached.record.ply:
                if record == cached.record:
                    return cached
                return self._remember(replace(cached, record=record))
        found = await self.games.game_with_moves(game_id)
        if found is None:
            raise ServiceError(t("That game does not exist."))
        record, moves = found
        game = self._game(record.game)
        state = _state_of(game, record)
        previous: GameState[Any] | None = None
        last_move: Hashable | None = None
        for entry in moves[: record.ply]:
            move = state.parse_move(entry.seat, entry.text)
            previous, last_move = state, move
            state = state.play(entry.seat, move)
        if state.to_text() != record.snapshot:
            log.warning(
                "game %s: the replayed log differs from the snapshot; using the replay", game_id
            )
        movers = tuple(entry.seat for entry in moves[: record.ply])
        return self._remember(Loaded(record, game, state, previous, last_move, movers))

    async def _record(self, game_id: int) -> GameRecord:
        record = await self.games.get_game(game_id)
        if record is None:
            raise ServiceError(t("That game does not exist."))
        return record

    async def _live_game(self, place: Place) -> Loaded:
        """The channel's challenge or game in progress: from memory when it is known,
        else from the database."""
        game_id = self._channels.get(place.channel_id)
        cached = self._cache.get(game_id) if game_id is not None else None
        if cached is not None:
            # No waiting for the game's lock: a move being made there changes nothing
            # that a look at the game needs, and the commit checks the ply anyway.
            return cached
        if game_id is None:
            record = await self.games.live_game_in_channel(place.channel_id)
            if record is None:
                raise ServiceError(
                    t("No game is being played in this channel. Start one with /play.")
                )
            game_id = record.id
        async with self._lock(game_id):
            loaded = await self._load(game_id)
        if not loaded.record.is_live:
            raise ServiceError(t("No game is being played in this channel. Start one with /play."))
        return loaded

    async def _active_game(self, place: Place) -> Loaded:
        loaded = await self._live_game(place)
        if loaded.record.status == "challenge":
            raise ServiceError(
                t("The game has not started: the challenge is waiting for an answer.")
            )
        return loaded

    def _check_current(self, loaded: Loaded, ply: int) -> None:
        if loaded.record.status != "active":
            raise ServiceError(t("This game is over; nothing more can be played on it."))
        if loaded.record.ply != ply:
            raise ServiceError(
                t(
                    "The game moved on while you were choosing; nothing was changed. "
                    "Look at the latest board and try again."
                )
            )

    def _acting_seat(self, loaded: Loaded, user: User) -> int:
        seats = loaded.record.seats_of(user.id)
        if not seats:
            raise ServiceError(self._not_a_player(loaded, user))
        acting = [s for s in seats if s in loaded.state.to_act]
        if not acting:
            waiting = ", ".join(self._seat_label(loaded, s) for s in sorted(loaded.state.to_act))
            raise ServiceError(t("It is not your turn: waiting for {names}.", names=waiting))
        return acting[0]

    def _not_a_player(self, loaded: Loaded, user: User) -> Text:
        players = [s.user.name for s in loaded.record.seats]
        return tn(
            "You are not playing in this game ({players} is). Watch, or start your own "
            "game in another channel or thread.",
            "You are not playing in this game ({players} are). Watch, or start your own "
            "game in another channel or thread.",
            n=len(players),
            players=", ".join(players),
        )

    def _not_challenged(self, record: GameRecord, user: User) -> Text:
        pending = ", ".join(s.user.name for s in record.seats if not s.accepted)
        if any(s.user.id == user.id and s.accepted for s in record.seats):
            return t("You have already accepted; waiting for {names}.", names=pending)
        return t("This challenge is for {names}, not for you.", names=pending)

    def _move_error(self, loaded: Loaded, exc: MoveError) -> Text:
        return t(
            "{reason}\nSee /moves for your legal moves, or use the buttons on the board.",
            reason=str(exc.text),
        )

    def _require_admin(self, user: User) -> None:
        if not user.is_admin:
            raise ServiceError(t("Only server admins (Manage Server permission) can do that."))

    def _game(self, game_id: str) -> Game[Any]:
        try:
            return registry.get(game_id)
        except KeyError:
            known = ", ".join(g.id for g in registry.all_games())
            raise ServiceError(
                t("There is no game {id!r}. Games: {known}.", id=game_id, known=known)
            ) from None


def _user_record(user: User) -> UserRecord:
    return UserRecord(user.id, user.name, user.is_bot)


def _pick_choices(
    base: str,
    prefix: tuple[str, ...],
    options: Sequence[Option],
    group: str | None,
    action: str = "step",
) -> tuple[Choice, ...]:
    """Buttons for the next part of a move. More than a message holds are grouped by
    their first letter (Mole Hill's 62 squares: a column first, then the square)."""
    if group is not None:
        options = [o for o in options if o.token[:1] == group]
    chosen = " ".join(prefix)
    if len(options) <= MAX_PICKS:
        return tuple(
            Choice(f"{action}:{base}:{' '.join((*prefix, o.token))}", o.label) for o in options
        )
    groups: dict[str, list[Option]] = {}
    for option in options:
        groups.setdefault(option.token[:1], []).append(option)
    return tuple(
        Choice(
            f"{'group' if action == 'step' else 'group+'}:{base}:{letter}|{chosen}",
            members[0].token if len(members) == 1 else f"{members[0].token} … {members[-1].token}",
        )
        for letter, members in groups.items()
    )[:MAX_PICKS]


def _timeout_text(state: GameState[Any], move: Hashable) -> str:
    """A default move as shown publicly: a secret plan stays secret."""
    return str(t("the default choice")) if len(state.to_act) > 1 else state.move_text(move)


def _points(n: int) -> str:
    return str(t("1 point")) if n == 1 else str(t("{n} points", n=n))


def _user(record: UserRecord) -> User:
    return User(record.id, record.name, record.is_bot)


def _result(outcome: Outcome) -> dict[str, Any]:
    return {
        "scores": list(outcome.scores),
        "winners": sorted(outcome.winners),
        "reason": str(outcome.reason),
    }
