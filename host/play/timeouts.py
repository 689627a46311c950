"""What happens as time runs, committed: a decision past its deadline gets the game's
documented default (`GameState.timeout_move`) or, in a game without one, its clock stops
and the others may claim the win; a challenge nobody answered within a day is closed; a
reminder due is taken, once. Each is done under the game's lock and guarded by the stored
ply, so nothing is handled twice, by two processes or across a restart. The announcer's
clock (`host.announce.clock`) finds what is due and tells it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from data.repository import StalePlyError
from data.results import Ending, GameResult
from engine.text import t
from host.model import ServiceError
from host.play.changes import Change, Kind, Step
from host.play.commit import Commits
from host.play.deadlines import next_reminder
from host.play.live import Loaded, user_of
from host.play.moves import running_timer

#: An unanswered challenge frees its channel after this long.
CHALLENGE_SECONDS = 24 * 3600
#: Nothing was due after all (moved on, or handled by another process).
NOT_DUE = t("Nothing is due in this game.")


@dataclass(frozen=True, slots=True)
class PlayDefaults:
    """Every person's decision past its deadline at `now` gets its default; a decision
    without one stops its clock instead, and the win is offered (`Kind.EXPIRED`).
    ServiceError `NOT_DUE` if nothing is due."""

    now: float
    fresh: bool = True

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        record = before.record
        if record.status != "active" or not record.deadline_at or record.deadline_at > self.now:
            raise ServiceError(NOT_DUE)
        if not any(
            before.state.timeout_move(s) is not None
            for s in before.state.to_act
            if not record.seats[s].user.is_bot
        ):
            return await _stop_the_clock(commits, before, self.now)
        loaded = before
        steps: list[Step] = []
        for seat in sorted(before.state.to_act):
            if record.seats[seat].user.is_bot or loaded.record.status != "active":
                continue
            move = loaded.state.timeout_move(seat)
            if move is None or seat not in loaded.state.to_act:
                continue
            user = user_of(record.seats[seat].user)
            after = await commits.moves.commit(
                loaded, seat, user, move, loaded.state.play(seat, move), default=True
            )
            steps.append(Step(loaded, seat, move, after, default=True))
            loaded = after
        if not steps:
            raise ServiceError(NOT_DUE)
        return Change(Kind.MOVED, loaded, tuple(steps), asked_before=before.state.to_act)


async def _stop_the_clock(commits: Commits, loaded: Loaded, now: float) -> Change:
    """A decision without a default ran out: its clock stops, and the people waiting on
    it may claim the win (or go on waiting)."""
    record = loaded.record
    if not await commits.live.repository.mark_expired(record.id, record.ply, now):
        raise ServiceError(NOT_DUE)
    assert record.deadline_at is not None
    stored = replace(record, expired_at=record.deadline_at, deadline_at=None, remind_at=None)
    after = commits.live.remember(replace(loaded, record=stored))
    return Change(Kind.EXPIRED, after, asked_before=loaded.state.to_act)


@dataclass(frozen=True, slots=True)
class CloseChallenge:
    """A challenge nobody answered in time is closed (ServiceError `NOT_DUE` if it was
    answered meanwhile)."""

    now: float
    fresh: bool = True

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        result = GameResult(Ending.EXPIRED)
        commits.live.forget(before.id)
        try:
            record = await commits.live.repository.close_game(
                before.id, 0, result.status, result, self.now, only_from=("challenge",)
            )
        except StalePlyError:
            raise ServiceError(NOT_DUE) from None
        return Change(Kind.CHALLENGE_CLOSED, replace(before, record=record))


async def take_reminder(commits: Commits, game_id: int, now: float) -> Loaded | None:
    """The game whose people are to be reminded now, once per reminder (by its stored
    time): None if none is due, another process sent it, or it is too late for one (the
    deadline says it)."""
    async with commits.live.lock(game_id):
        loaded = await commits.live.load(game_id, fresh=True)
        record = loaded.record
        due = record.remind_at
        if record.status != "active" or due is None or due > now:
            return None
        timer = running_timer(record)
        following = (
            next_reminder(timer.started_at, timer.deadline_at, now, loaded.options.remind_before)
            if timer is not None
            else None
        )
        if not await commits.live.repository.set_reminder(game_id, record.ply, due, following):
            return None  # sent by another process, or the game moved on
        loaded = commits.live.remember(replace(loaded, record=replace(record, remind_at=following)))
    if timer is None or timer.deadline_at <= now:
        return None  # too late for a reminder (the bot was down): the deadline says it
    return loaded


@dataclass(frozen=True, slots=True)
class PauseForAway:
    """The clock of a decision pending for a player who is away stops, keeping the time
    it had when they went away (`since`), or all of it if the decision came later.
    ServiceError `NOT_DUE` if no clock runs."""

    since: float
    fresh: bool = True

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        record = before.record
        timer = running_timer(record)
        if record.status != "active" or timer is None:
            raise ServiceError(NOT_DUE)
        left = timer.deadline_at - max(timer.started_at, self.since)
        if not await commits.live.repository.pause_clock(record.id, record.ply, left):
            raise ServiceError(NOT_DUE)
        stopped = replace(record, deadline_at=None, remind_at=None)
        return Change(Kind.SEEN, commits.live.remember(replace(before, record=stopped)))


@dataclass(frozen=True, slots=True)
class ResumeFromAway:
    """A clock stopped for away time runs again from `now` with the `left` seconds it
    had. ServiceError `NOT_DUE` if it is not stopped (or the game moved on)."""

    now: float
    left: float
    fresh: bool = True

    async def commit(self, commits: Commits, before: Loaded) -> Change:
        record = before.record
        deadline = self.now + self.left
        remind = next_reminder(self.now, deadline, self.now, before.options.remind_before)
        repository = commits.live.repository
        if not await repository.resume_clock(record.id, record.ply, deadline, self.now, remind):
            raise ServiceError(NOT_DUE)
        running = replace(record, deadline_at=deadline, deadline_from=self.now, remind_at=remind)
        return Change(Kind.SEEN, commits.live.remember(replace(before, record=running)))
