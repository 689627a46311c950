"""Starting games: checking a set-up, seating the players, challenges and their answers.

`/play` makes a challenge that the others accept or decline (a game against the bot
alone starts at once); `/admin start` seats everyone with no challenge step. The game is
stored before anyone moves, with its seed (or starting position), so that its log
replays exactly.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from data.repository import GameRecord, LiveGameExistsError, NewGame, StalePlyError
from data.results import Actor, Ending, GameResult
from engine.core import Game, GameState, NotationError
from engine.rng import Rng
from engine.text import Text, t
from host.model import Channel, ChannelBusyError, ServiceError, User
from host.play import seats
from host.play.changes import Change, Kind
from host.play.commit import Commits, Store
from host.play.deadlines import first_deadline
from host.play.live import LiveGames, Loaded, game_of, record_of, start_state, user_of
from host.settings import SettingError, SettingsStore
from host.setup import LEVELS, GameOptions, GameSetup, SeatChoice

#: Draws a position once, with the players' names, raising if it cannot be shown.
ShowCheck = Callable[[GameState[Any], Sequence[str]], Awaitable[None]]
#: A set-up that gives a record, read into the position it starts from, with what the
#: reading has to tell (the same set-up, and None, without a record).
RecordReading = Callable[[Game[Any], GameSetup], tuple[GameSetup, Text | None]]

log = logging.getLogger(__name__)


class Starting:
    def __init__(
        self,
        commits: Commits,
        settings: SettingsStore,
        show_check: ShowCheck,
        read_record: RecordReading,
        clock: Callable[[], float],
    ) -> None:
        self.commits = commits
        self.live: LiveGames = commits.live
        self.settings = settings
        #: Whether a position given to start from can be drawn (the presenter's).
        self.show_check = show_check
        #: Reads a record given to start from (the history's).
        self.read_record = read_record
        self.bot_user = commits.bot_user
        self.clock = clock

    async def challenge(
        self, channel: Channel, user: User, opponents: Sequence[User], setup: GameSetup
    ) -> Change:
        """`/play`: challenge people (or the bot) to a game in this channel."""
        game, players, setup, note = self._challenged(channel, user, opponents, setup)
        return await self._start(channel, user, game, players, setup, challenge=True, note=note)

    async def check_challenge(
        self, channel: Channel, user: User, opponents: Sequence[User], setup: GameSetup
    ) -> Game[Any]:
        """Refuse what `challenge` would refuse, storing nothing: a front-end that makes a
        place for the game first (a thread of its own) makes it only for a game that can
        start. `channel` stands for that place (its server's settings apply)."""
        game, players, setup, _ = self._challenged(channel, user, opponents, setup)
        await self._prepared(channel, game, players, setup)
        return game

    def _challenged(
        self, channel: Channel, user: User, opponents: Sequence[User], setup: GameSetup
    ) -> tuple[Game[Any], list[User], GameSetup, Text | None]:
        """The game, its players, its set-up (a record read into its position) and what
        a record's reading has to tell."""
        game = game_of(setup.game)
        setup, note = self.read_record(game, setup)
        people = [user, *opponents]
        if len({p.id for p in people}) != len(people):
            raise ServiceError(t("You cannot challenge yourself, or the same player twice."))
        if game.solo and opponents:
            raise ServiceError(t("{game} is played alone; leave out opponent.", game=game.name))
        if game.solo and setup.computers:
            raise ServiceError(t("{game} has no computer seats.", game=game.name))
        if not game.solo and len(people) + setup.computers < game.min_players:
            raise ServiceError(
                t(
                    "{game} needs an opponent: add opponent:@someone, or opponent:@{bot} to "
                    "play against the bot.",
                    game=game.name,
                    bot=self.bot_user.name,
                )
            )
        if channel.guild_id is None and any(not p.is_bot for p in opponents):
            raise ServiceError(
                t(
                    "Nobody else can see this direct message, so a challenge here could never "
                    "be answered. Challenge them from a server channel, or play me here with "
                    "opponent:@{bot}.",
                    bot=self.bot_user.name,
                )
            )
        players = [p if not p.is_bot else self.bot_user for p in people]
        players += [self.bot_user] * setup.computers
        return game, players, setup, note

    async def admin_start(
        self, channel: Channel, user: User, players: Sequence[User], setup: GameSetup
    ) -> Change:
        """`/admin start`: a match with no challenge step, seats in the order given."""
        if not user.is_admin:
            raise ServiceError(t("Only server admins (Manage Server permission) can do that."))
        game = game_of(setup.game)
        seated = [p if not p.is_bot else self.bot_user for p in players]
        seated += [self.bot_user] * setup.computers
        humans = [p.id for p in seated if not p.is_bot]
        if len(set(humans)) != len(humans):
            raise ServiceError(t("Each player may take only one seat."))
        in_order = replace(setup, seat=SeatChoice.FIRST)
        return await self._start(channel, user, game, seated, in_order, challenge=False)

    async def seated_start(
        self,
        channel: Channel,
        user: User,
        players: Sequence[User],
        setup: GameSetup,
        store: Store,
    ) -> Change:
        """A game whose players were seated for them (an event's table), begun at once in
        the order given, and stored by `store` with what goes with it."""
        game = game_of(setup.game)
        in_order = replace(setup, seat=SeatChoice.FIRST)
        return await self._start(
            channel, user, game, list(players), in_order, challenge=False, store=store
        )

    async def rematch(self, channel: Channel, user: User, finished: Loaded) -> Change:
        """The same game again, with the same players, each moved one seat on (in a game
        of two, the seats swapped); the others must accept, computers at once."""
        record = finished.record
        if record.is_live:
            raise ServiceError(t("This game is still being played; a rematch comes after it."))
        if record.kind != "channel":
            raise ServiceError(t("The daily run is one a day; play again tomorrow."))
        if not record.seats_of(user.id):
            raise ServiceError(seats.not_a_player(finished))
        if record.channel_id != channel.channel_id:
            raise ServiceError(t("A rematch is played where the game was."))
        players = [user_of(s.user) for s in record.seats]
        players = [*players[1:], *players[:1]]
        options = finished.options
        # A deadline chosen for the game is kept; else the server's, as it is now.
        chosen = options.deadline_seconds if options.deadline_chosen else None
        minutes = -(-chosen // 60) if chosen else None
        setup = GameSetup(
            record.game,
            variant=record.variant,
            level=options.level,
            deadline_minutes=minutes,
            seat=SeatChoice.FIRST,  # the seats in the order above
        )
        offer = t("{name} asks for a rematch, the seats moved on.", name=user.name)
        return await self._start(
            channel, user, finished.game, players, setup, challenge=True, offer=offer
        )

    async def _start(
        self,
        channel: Channel,
        user: User,
        game: Game[Any],
        players: list[User],
        setup: GameSetup,
        *,
        challenge: bool,
        offer: Text | None = None,
        note: Text | None = None,
        store: Store | None = None,
    ) -> Change:
        """Store the game: a challenge (`offer` above it), or a game that begins at once.
        `note` is told either way; `store` stores it, where not the usual way."""
        seed, players, state, options = await self._prepared(channel, game, players, setup)
        # Everyone who started it, and every computer, has already agreed to play.
        accepted = [not challenge or p.id == user.id or p.is_bot for p in players]
        now = self.clock()
        timer = first_deadline(game, state, players, options, now) if all(accepted) else None
        new = NewGame(
            game=game.id,
            guild_id=channel.guild_id,
            channel_id=channel.channel_id,
            status="active" if all(accepted) else "challenge",
            seed=seed,
            variant=setup.variant,
            rules_version=game.rules_version,
            start_position=state.to_text() if setup.position else None,
            snapshot=state.to_text(),
            created_by=record_of(user),
            seats=tuple((record_of(p), ok) for p, ok in zip(players, accepted, strict=True)),
            options=options.stored(),
            timer=timer,
        )

        def starting(record: GameRecord) -> Loaded:
            return Loaded(record, game, state, None, None)

        try:
            loaded = await self.commits.create(new, starting, store)
        except LiveGameExistsError:
            raise ChannelBusyError(
                t(
                    "This channel already has a game. Finish it first (/board shows it), or "
                    "start yours in a new thread: a thread counts as its own channel."
                )
            ) from None
        record = loaded.record
        log.info("game %s created: %s in channel %s", record.id, game.id, channel.channel_id)
        if record.status == "challenge":
            # A rematch (the offer) is never read from a record (the note).
            extra = offer if offer is not None else note
            return Change(Kind.CHALLENGED, loaded, actor=user, note=extra)
        return Change(Kind.STARTED, loaded, actor=user, note=note)

    async def _prepared(
        self, channel: Channel, game: Game[Any], players: list[User], setup: GameSetup
    ) -> tuple[int, list[User], GameState[Any], GameOptions]:
        """The checked set-up: its seed, the players in their seats, the first position
        and the options kept with the game."""
        self._check(game, players, setup)
        seed = setup.seed if setup.seed is not None else secrets.randbits(48)
        players = self._seated(game, players, setup.seat, seed)
        if setup.position:
            state = await self._from_position(game, setup.position, players)
        else:
            state = game.new_state(seed, len(players), setup.variant)
        server = await self.settings.server(channel.guild_id)
        try:
            seconds = server.deadline_for(game.id, setup.deadline_minutes)
        except SettingError as exc:
            raise ServiceError(exc.text) from None
        options = replace(
            GameOptions.of(setup),
            deadline_seconds=seconds,
            remind_before=server.remind_before,
            deadline_chosen=setup.deadline_minutes is not None,
        )
        return seed, players, state, options

    def _check(self, game: Game[Any], players: list[User], setup: GameSetup) -> None:
        try:
            game.check_setup(len(players), setup.variant)
        except ValueError as exc:
            raise ServiceError(str(exc)) from None
        if setup.level is not None and setup.level not in LEVELS:
            raise ServiceError(
                t(
                    "Unknown level {level!r}; levels: {known}.",
                    level=setup.level,
                    known=", ".join(LEVELS),
                )
            )
        if setup.deadline_minutes is not None and game.solo:
            raise ServiceError(
                t(
                    "deadline: {game} is played alone and waits for you as long as you like; "
                    "leave deadline out.",
                    game=game.name,
                )
            )

    def _seated(
        self, game: Game[Any], players: list[User], seat: str | None, seed: int
    ) -> list[User]:
        """Put the challenger first or second (`seat:`), or draw lots from the seed."""
        choice = _seat_choice(seat, game)
        if len(players) < 2:
            return players
        if choice == SeatChoice.RANDOM:
            swap, _ = Rng(seed, 1 << 40).below(2)
            choice = SeatChoice.SECOND if swap else SeatChoice.FIRST
        if choice == SeatChoice.SECOND:
            players = [players[1], players[0], *players[2:]]
        return players

    async def _from_position(
        self, game: Game[Any], position: str, players: list[User]
    ) -> GameState[Any]:
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
            raise ServiceError(t("position: that position is for {n} players.", n=state.num_seats))
        if not state.to_act:
            raise ServiceError(t("position: that game is already over."))
        await self._check_showable(game, state, players)
        return state

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
            await self.show_check(state, names)
        except Exception:
            log.warning("a %s position that cannot be shown was refused", game.id, exc_info=True)
            raise ServiceError(
                t(
                    "position: its fields do not fit together, so it cannot be played or "
                    "shown. Check it against the notation in /rules game:{id}.",
                    id=game.id,
                )
            ) from None

    # --- answers to a challenge -----------------------------------------------------------
    async def accept(self, channel: Channel, user: User) -> Change:
        record = (await self.live.in_channel(channel)).record
        if record.status != "challenge":
            raise ServiceError(t("The game in this channel has already started."))
        return await self.commits.apply(record.id, Accept(user))

    async def decline(self, channel: Channel, user: User) -> Change:
        record = (await self.live.in_channel(channel)).record
        if record.status != "challenge":
            raise ServiceError(t("The game has started; to give up, use /resign."))
        return await self.commits.apply(record.id, Decline(user))


@dataclass(frozen=True, slots=True)
class Accept:
    """`user` accepts the challenge; the game begins with the last acceptance."""

    user: User
    fresh: bool = True

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        record = before.record
        if record.status != "challenge":
            raise ServiceError(t("That challenge was already answered."))
        mine = [s for s in record.seats if s.user.id == self.user.id and not s.accepted]
        if not mine:
            raise ServiceError(seats.not_challenged(record, self.user))
        game = before.game
        now = commits.clock()
        # Used only if this acceptance is the last one, decided in the transaction.
        timer = first_deadline(
            game,
            start_state(game, record),
            [user_of(s.user) for s in record.seats],
            GameOptions.from_stored(record.options),
            now,
        )
        try:
            record = await commits.live.repository.accept_seat(record.id, mine[0].seat, now, timer)
        except StalePlyError:
            raise ServiceError(t("That challenge was already answered.")) from None
        if record.status == "challenge":
            accepted = t("{name} accepted.", name=self.user.name)
            return Change(
                Kind.CHALLENGED, replace(before, record=record), actor=self.user, note=accepted
            )
        loaded = commits.live.remember(Loaded(record, game, start_state(game, record), None, None))
        return Change(Kind.STARTED, loaded, actor=self.user)


@dataclass(frozen=True, slots=True)
class Decline:
    """`user` declines the challenge (or, having made it, withdraws it)."""

    user: User
    fresh: bool = True

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        record = before.record
        if record.status != "challenge":
            raise ServiceError(t("That challenge was already answered."))
        if not record.seats_of(self.user.id):
            raise ServiceError(seats.not_challenged(record, self.user))
        ending = Ending.WITHDRAWN if self.user.id == record.created_by else Ending.DECLINED
        result = GameResult(ending, actor=Actor(self.user.id, self.user.name))
        commits.live.forget(record.id)
        try:
            closed = await commits.live.repository.close_game(
                record.id,
                record.ply,
                result.status,
                result,
                commits.clock(),
                only_from=("challenge",),
            )
        except StalePlyError:
            raise ServiceError(t("That challenge was already answered.")) from None
        return Change(Kind.CHALLENGE_CLOSED, replace(before, record=closed), actor=self.user)


def _seat_choice(seat: str | None, game: Game[Any]) -> SeatChoice:
    if seat is None:
        return SeatChoice.RANDOM if game.draw_seats else SeatChoice.FIRST
    try:
        return SeatChoice(seat)
    except ValueError:
        raise ServiceError(
            t("seat: {seat!r} is not a choice; use first, second or random.", seat=seat)
        ) from None
