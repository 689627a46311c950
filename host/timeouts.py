"""What happens when time runs out: a decision past its deadline gets the game's
documented default (`GameState.timeout_move`), and a challenge nobody answered within a
day is closed. The front-end's timer calls `expire_due`; so does the console before each
line. Each is done under the game's lock and against the stored ply, so a deadline
handled by one process (or before a restart) is never handled twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from data.repository import StalePlyError
from engine.text import t
from host.computer_turns import ComputerTurns
from host.live import LiveGames, user_of
from host.model import Channel, Reply
from host.moves import Moves
from host.presenter import Happened, Presenter

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
        clock: Callable[[], float],
    ) -> None:
        self.live = live
        self.moves = moves
        self.computers = computers
        self.presenter = presenter
        self.clock = clock

    async def expire_due(self) -> list[tuple[Channel, list[Reply]]]:
        """Play the default for every decision whose deadline has passed, and close the
        challenges nobody answered. Returns the replies to post, with where."""
        posts: list[tuple[Channel, list[Reply]]] = []
        now = self.clock()
        for game_id in await self.live.repository.due_games(now):
            try:
                post = await self._play_defaults(game_id, now)
            except Exception:
                # One broken game must not hold up every other deadline.
                log.exception("game %s: playing the default after its deadline failed", game_id)
                continue
            if post is not None:
                posts.append(post)
        for game_id in await self.live.repository.stale_challenges(now - CHALLENGE_SECONDS):
            closed = await self._close_challenge(game_id, now)
            if closed is not None:
                posts.append(closed)
        return posts

    async def _play_defaults(self, game_id: int, now: float) -> tuple[Channel, list[Reply]] | None:
        async with self.live.lock(game_id):
            loaded = await self.live.load(game_id)
            record = loaded.record
            if record.status != "active" or not record.deadline_at or record.deadline_at > now:
                return None
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
                    loaded, seat, user, move, loaded.state.play(seat, move)
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
        board = await self.presenter.board(loaded, told + answered, pings)
        return Channel(record.channel_id, record.guild_id), [board]

    async def _close_challenge(
        self, game_id: int, now: float
    ) -> tuple[Channel, list[Reply]] | None:
        reason = t("The challenge expired: nobody answered within a day.")
        async with self.live.lock(game_id):
            self.live.forget(game_id)
            try:
                record = await self.live.repository.close_game(
                    game_id, 0, "declined", {"reason": str(reason)}, now, only_from=("challenge",)
                )
            except StalePlyError:
                return None
        if record.channel_id is None:
            return None
        return Channel(record.channel_id, record.guild_id), [
            self.presenter.challenge_closed(game_id, reason)
        ]
