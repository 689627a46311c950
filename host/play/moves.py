"""Judging a move and committing it.

A move is judged on the game in memory: may this user play it now, does the engine
accept it. It is committed with one ply-guarded write: the log grows by one where the
game still has the ply it was read at, with the new snapshot, result and deadline in the
same statement. Only then is the cache updated. Call both under the game's lock.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import Any

from data.repository import DatabaseUnavailableError, GameRecord, StalePlyError, Timer
from engine.core import GameState, MoveError
from engine.text import t
from host.model import ServiceError, User, echoed, offered_move
from host.play import seats
from host.play.deadlines import next_deadline
from host.play.live import LiveGames, Loaded
from host.play.results import by_rules, timed_out

#: The game moved between reading it and writing to it.
MOVED_ON = t(
    "The game moved on while you were choosing; nothing was changed. "
    "Look at the latest board and try again."
)
GAME_OVER = t("This game is over; nothing more can be played on it.")


class Moves:
    def __init__(self, live: LiveGames, clock: Callable[[], float]) -> None:
        self.live = live
        self.clock = clock

    def judge(
        self, loaded: Loaded, ply: int | None, user: User, text: str
    ) -> tuple[int, Hashable, GameState[Any]]:
        """(seat, move, state after it) if `user` may play `text` now, else ServiceError.
        With `ply` (a button), the game must still be where the button was drawn. A move
        picked from the suggestions names the ply it was offered at: it is refused if the
        user has moved since (the same move sent twice)."""
        if ply is not None:
            self.check_current(loaded, ply)
        elif loaded.record.status != "active":
            raise ServiceError(GAME_OVER)
        text, offered = offered_move(text)
        if offered is not None and not self.still_offered(loaded, offered, user):
            raise ServiceError(
                t(
                    "{move} was offered for an earlier turn: you have played since, or the "
                    "game moved on. Nothing was changed; see the latest board.",
                    move=echoed(text),
                )
            )
        seat = self.acting_seat(loaded, user)
        try:
            move = loaded.state.parse_move(seat, text)
            return seat, move, loaded.state.play(seat, move)
        except MoveError as exc:
            raise ServiceError(seats.move_error(exc, text)) from None

    async def commit(
        self,
        loaded: Loaded,
        seat: int,
        user: User,
        move: Hashable,
        after: GameState[Any],
        *,
        default: bool = False,
    ) -> Loaded:
        """Append the move and the new snapshot in one transaction, then cache. A
        `default` move was played for a seat out of time. The move is marked untold in a
        game played in a channel, until the channel is told of it."""
        record = loaded.record
        outcome = after.outcome()
        result = None
        if outcome is not None:
            result = timed_out(outcome, (seat,), loaded) if default else by_rules(outcome)
        now = self.clock()
        snapshot = after.to_text()
        timer = (
            next_deadline(
                loaded.game,
                loaded.state,
                after,
                loaded.players,
                loaded.options,
                running_timer(record),
                now,
            )
            if not outcome
            else None
        )
        try:
            await self.live.repository.append_move(
                record.id,
                record.ply,
                seat,
                user.id,
                loaded.state.move_text(move),
                snapshot,
                now,
                result,
                timer,
                untold=record.channel_id is not None,
            )
        except StalePlyError:
            self.live.forget(record.id)
            raise ServiceError(MOVED_ON) from None
        except DatabaseUnavailableError:
            # Whether the server took the move before the connection broke is unknown:
            # the game is read afresh from the database next time.
            self.live.forget(record.id)
            raise
        stored = replace(
            record,
            ply=record.ply + 1,
            snapshot=snapshot,
            updated_at=now,
            status=result.status if result else record.status,
            result=result if result else record.result,
            finished_at=now if result else record.finished_at,
            deadline_at=timer.deadline_at if timer else None,
            deadline_from=timer.started_at if timer else None,
            remind_at=timer.remind_at if timer else None,
            expired_at=None,
            untold_from=record.ply
            if record.untold_from is None and record.channel_id is not None
            else record.untold_from,
        )
        movers = (*loaded.movers, seat)
        story = loaded.told(seat, move, after)
        return self.live.remember(
            Loaded(stored, loaded.game, after, loaded.state, move, movers, story=story)
        )

    # --- whose move -----------------------------------------------------------------------
    def acting_seat(self, loaded: Loaded, user: User) -> int:
        mine = loaded.record.seats_of(user.id)
        if not mine:
            raise ServiceError(seats.not_a_player(loaded))
        acting = [s for s in mine if s in loaded.state.to_act]
        if not acting:
            raise ServiceError(seats.not_your_turn(loaded))
        return acting[0]

    def check_current(self, loaded: Loaded, ply: int) -> None:
        if loaded.record.status != "active":
            raise ServiceError(GAME_OVER)
        if loaded.record.ply != ply:
            raise ServiceError(MOVED_ON)

    def still_offered(self, loaded: Loaded, ply: int, user: User) -> bool:
        """Whether what was offered to `user` at `ply` (a board's buttons, a suggested
        move) still stands. A repeat of one's own move never stands."""
        return loaded.only_others_moved(set(loaded.record.seats_of(user.id)), ply)


def running_timer(record: GameRecord) -> Timer | None:
    """The clock running in a game as stored (None: none running)."""
    if record.deadline_at is None:
        return None
    started = record.deadline_from if record.deadline_from is not None else record.updated_at
    return Timer(started, record.deadline_at, record.remind_at)
