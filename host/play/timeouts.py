"""What happens as time runs: the player to act is reminded (half-way, and shortly
before the end); a decision past its deadline gets the game's documented default
(`GameState.timeout_move`) or, in a game without one, the others are offered the win;
a challenge nobody answered within a day is closed. The front-end's timer calls
`expire_due`; so does the console before each line. Each is done under the game's lock
and guarded by the stored ply, so nothing is handled twice, by two processes or across a
restart.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from data.repository import StalePlyError, TimeKeeping
from data.results import Ending, GameResult
from engine.text import speaking, t
from host.model import Channel, Direct, Reply, User, Where
from host.play.computer_turns import ComputerTurns
from host.play.deadlines import next_reminder
from host.play.live import LiveGames, Loaded, user_of
from host.play.moves import Moves, running_timer
from host.play.results import how_it_ended
from host.present.boards import Boards
from host.present.presenter import Presenter
from host.present.words import Happened
from host.settings import SettingsStore

log = logging.getLogger(__name__)

#: An unanswered challenge frees its channel after this long.
CHALLENGE_SECONDS = 24 * 3600


class Timeouts:
    def __init__(
        self,
        live: LiveGames,
        moves: Moves,
        computers: ComputerTurns,
        presenter: Presenter,
        boards: Boards,
        settings: SettingsStore,
        clock: Callable[[], float],
        shards: TimeKeeping | None = None,
    ) -> None:
        self.live = live
        self.moves = moves
        self.computers = computers
        self.presenter = presenter
        self.boards = boards
        self.settings = settings
        self.clock = clock
        #: The games this process keeps time for: its shards' servers', or the console's
        #: own server's (None: all).
        self.shards = shards

    async def expire_due(self) -> list[tuple[Where, list[Reply]]]:
        """Send the reminders due, play the default for every decision whose deadline has
        passed (or offer the win), and close the challenges nobody answered. Returns the
        replies to post, with where."""
        posts: list[tuple[Where, list[Reply]]] = []
        now = self.clock()
        # Nobody asked for these posts: they are in the language of the game's server.
        for game_id in await self.live.repository.reminders_due(now, self.shards):
            try:
                with speaking(await self._language(game_id)):
                    posts += await self._remind(game_id, now)
            except Exception:
                log.exception("game %s: a reminder failed", game_id)
        for game_id in await self.live.repository.due_games(now, self.shards):
            try:
                with speaking(await self._language(game_id)):
                    post = await self._play_defaults(game_id, now)
            except Exception:
                # One broken game must not hold up every other deadline.
                log.exception("game %s: playing the default after its deadline failed", game_id)
                continue
            if post is not None:
                posts.append(post)
        for game_id in await self.live.repository.stale_challenges(
            now - CHALLENGE_SECONDS, self.shards
        ):
            try:
                with speaking(await self._language(game_id)):
                    closed = await self._close_challenge(game_id, now)
            except Exception:
                log.exception("game %s: closing an unanswered challenge failed", game_id)
                continue
            if closed is not None:
                posts.append(closed)
        return posts

    async def _language(self, game_id: int) -> str:
        """The language of the server a game is played in."""
        record = await self.live.repository.get_game(game_id)
        guild = record.guild_id if record is not None else None
        return (await self.settings.server(guild)).language

    async def _remind(self, game_id: int, now: float) -> list[tuple[Where, list[Reply]]]:
        """Remind the people to act in one game, once per reminder (by its stored time)."""
        async with self.live.lock(game_id):
            loaded = await self.live.load(game_id, fresh=True)
            record = loaded.record
            due = record.remind_at
            if record.status != "active" or due is None or due > now:
                return []
            timer = running_timer(record)
            following = (
                next_reminder(
                    timer.started_at, timer.deadline_at, now, loaded.options.remind_before
                )
                if timer is not None
                else None
            )
            if not await self.live.repository.set_reminder(game_id, record.ply, due, following):
                return []  # sent by another process, or the game moved on
            self.live.remember(replace(loaded, record=replace(record, remind_at=following)))
        if timer is None or timer.deadline_at <= now:
            return []  # too late for a reminder (the bot was down): the deadline says it
        people = [
            user_of(record.seats[s].user)
            for s in sorted(loaded.state.to_act)
            if not record.seats[s].user.is_bot
        ]
        posts: list[tuple[Where, list[Reply]]] = []
        in_channel: list[User] = []
        for person in people:
            settings = await self.settings.player(person.id)
            if not settings.reminders:
                continue
            if settings.direct:
                fallback = (
                    Channel(record.channel_id, record.guild_id) if record.channel_id else None
                )
                reminder = self.presenter.reminder(loaded, [person])
                posts.append((Direct(person, fallback), [reminder]))
            else:
                in_channel.append(person)
        if in_channel and record.channel_id is not None:
            where = Channel(record.channel_id, record.guild_id)
            posts.append((where, [self.presenter.reminder(loaded, in_channel)]))
        return posts

    async def _play_defaults(self, game_id: int, now: float) -> tuple[Channel, list[Reply]] | None:
        async with self.live.lock(game_id):
            loaded = await self.live.load(game_id, fresh=True)
            record = loaded.record
            if record.status != "active" or not record.deadline_at or record.deadline_at > now:
                return None
            if not any(
                loaded.state.timeout_move(s) is not None
                for s in loaded.state.to_act
                if not record.seats[s].user.is_bot
            ):
                return await self._offer_the_win(loaded, now)
            before = loaded.state.to_act
            told: list[Happened] = []
            late: set[int] = set()
            for seat in sorted(loaded.state.to_act):
                if record.seats[seat].user.is_bot or loaded.record.status != "active":
                    continue
                move = loaded.state.timeout_move(seat)
                if move is None or seat not in loaded.state.to_act:
                    continue
                was = loaded
                user = user_of(record.seats[seat].user)
                loaded = await self.moves.commit(
                    loaded, seat, user, move, loaded.state.play(seat, move), default=True
                )
                late.add(seat)
                default = (
                    str(t("the default choice"))
                    if was.deciding_together
                    else was.state.move_text(move)
                )
                line = t(
                    "{name} ran out of time: {move}.",
                    name=self.presenter.seat_label(loaded, seat),
                    move=default,
                )
                told.append(Happened(line, loaded, secret=was.deciding_together))
        if not told or record.channel_id is None:
            return None
        loaded, answered = await self.computers.answer(loaded)
        pings = self.presenter.pings(loaded, before - late, set())
        board = await self.boards.board(loaded, told + answered, pings)
        return Channel(record.channel_id, record.guild_id), [board]

    async def _offer_the_win(
        self, loaded: Loaded, now: float
    ) -> tuple[Channel, list[Reply]] | None:
        """A decision without a default ran out: its clock stops, and the people waiting
        on it may claim the win (or go on waiting). Call under the game's lock."""
        record = loaded.record
        if not await self.live.repository.mark_expired(record.id, record.ply, now):
            return None
        assert record.deadline_at is not None
        stored = replace(record, expired_at=record.deadline_at, deadline_at=None, remind_at=None)
        loaded = self.live.remember(replace(loaded, record=stored))
        waiting = self.presenter.claimants(loaded)
        if record.channel_id is None or not waiting:
            return None  # the clock is stopped; nobody to offer the win to
        board = await self.boards.board(loaded, (), tuple(user_of(u.user) for u in waiting))
        return Channel(record.channel_id, record.guild_id), [board]

    async def _close_challenge(
        self, game_id: int, now: float
    ) -> tuple[Channel, list[Reply]] | None:
        result = GameResult(Ending.EXPIRED)
        async with self.live.lock(game_id):
            self.live.forget(game_id)
            try:
                record = await self.live.repository.close_game(
                    game_id, 0, result.status, result, now, only_from=("challenge",)
                )
            except StalePlyError:
                return None
        if record.channel_id is None:
            return None
        return Channel(record.channel_id, record.guild_id), [
            self.presenter.challenge_closed(game_id, how_it_ended(result, (), None))
        ]
