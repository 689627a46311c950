"""When a pending decision runs out.

A person's decision has a deadline when their game gives decisions a time (the game's
`decision_seconds`, or the minutes chosen at set-up) and the decision has a documented
default (`GameState.timeout_move`). Computers have no deadlines. What happens when one
passes is in `host.timeouts`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core import Game, GameState
from host.model import User
from host.setup import GameOptions


def first_deadline(
    game: Game[Any],
    state: GameState[Any],
    players: Sequence[User],
    options: GameOptions,
    now: float,
) -> float | None:
    """A new deadline for the decision pending in `state`, if a person must make one
    that has a default."""
    seconds = options.deadline_seconds or game.decision_seconds
    waiting = [s for s in state.to_act if not players[s].is_bot]
    if not seconds or not any(state.timeout_move(s) is not None for s in waiting):
        return None
    return now + float(seconds)


def next_deadline(
    game: Game[Any],
    before: GameState[Any],
    after: GameState[Any],
    players: Sequence[User],
    options: GameOptions,
    running: float | None,
    now: float,
) -> float | None:
    """The deadline after a move took `before` to `after`, with `running` the deadline
    that was running. Seats deciding together share one deadline: it does not restart
    when one of them has acted."""
    deadline = first_deadline(game, after, players, options, now)
    continuing = after.to_act < before.to_act
    if deadline is not None and running is not None and continuing:
        return running
    return deadline
