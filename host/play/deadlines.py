"""When a pending decision runs out, and when its player is reminded.

Every game with two people or more gives a person's decision a time: the minutes chosen
at set-up, else the server's default for that game, else the game's own
(`Game.decision_seconds`), else `DEFAULT_SECONDS`. A solo game, and one person against
computers, wait for their person unless minutes were chosen for the game (a solo game
refuses them). Computers have no deadlines. The
player to act is reminded when half the time is gone and again `remind_before` seconds
before the end. What happens when the time is out is in `host.play.timeouts`: the game's
documented default where it has one (`GameState.timeout_move`), else the others may
claim the win.

Pure functions of the game, its state and the time: the host stores the `Timer`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from data.repository import Timer
from engine.core import Game, GameState
from host.model import User
from host.setup import GameOptions

#: A decision's time in a game that sets none of its own: three days.
DEFAULT_SECONDS = 3 * 24 * 3600


def decision_seconds(game: Game[Any], options: GameOptions) -> int | None:
    """The time a person has for one decision in this game (None: no deadline)."""
    if game.solo:
        return None  # a practice game of one waits for its player
    return options.deadline_seconds or game.decision_seconds or DEFAULT_SECONDS


def reminders(timer_from: float, deadline: float, remind_before: int) -> tuple[float, ...]:
    """When the player is reminded: half-way, then `remind_before` seconds before the
    end if that comes later than half-way."""
    half = timer_from + (deadline - timer_from) / 2
    last = deadline - remind_before
    return (half, last) if last > half else (half,)


def next_reminder(
    timer_from: float, deadline: float, after: float, remind_before: int
) -> float | None:
    """The first reminder later than `after` (None: no reminder left)."""
    later = [at for at in reminders(timer_from, deadline, remind_before) if at > after]
    return min(later) if later else None


def can_claim(state: GameState[Any], players: Sequence[User]) -> bool:
    """Whether a person waits in a game of two, who may claim the win if time runs out."""
    return len(players) == 2 and any(
        not p.is_bot and seat not in state.to_act for seat, p in enumerate(players)
    )


def one_person(players: Sequence[User]) -> bool:
    """Whether nobody but one person (and computers) plays: nobody is there to be waited
    for or to claim the win, so unless a deadline was chosen for the game it waits for its
    person as a solo game does, however many computers it has (README: every game with
    another person in it has a time per decision)."""
    return sum(not p.is_bot for p in players) < 2


def first_deadline(
    game: Game[Any],
    state: GameState[Any],
    players: Sequence[User],
    options: GameOptions,
    now: float,
) -> Timer | None:
    """A new clock for the decision pending in `state`, if a person must make one and
    something can happen when it runs out: a default to play, or a person to claim the
    win (a game of one person against computers waits, as a solo game does, unless a
    deadline was chosen for it: then the game's defaults are played when it runs out)."""
    seconds = decision_seconds(game, options)
    waiting = [s for s in state.to_act if not players[s].is_bot]
    alone = one_person(players) and not options.deadline_chosen
    if not seconds or not waiting or alone:
        return None
    if not any(state.timeout_move(s) is not None for s in waiting) and not can_claim(
        state, players
    ):
        return None
    deadline = now + float(seconds)
    return Timer(now, deadline, next_reminder(now, deadline, now, options.remind_before))


def next_deadline(
    game: Game[Any],
    before: GameState[Any],
    after: GameState[Any],
    players: Sequence[User],
    options: GameOptions,
    running: Timer | None,
    now: float,
) -> Timer | None:
    """The clock after a move took `before` to `after`, with `running` the clock that
    was running. Seats deciding together share one clock: it does not restart when one
    of them has acted."""
    timer = first_deadline(game, after, players, options, now)
    continuing = after.to_act < before.to_act
    if timer is not None and running is not None and continuing:
        return running
    return timer
