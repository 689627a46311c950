"""The computer players' turns.

When computer seats must act, they think in the background (`host.play.ai_turns` runs the
search in a worker) with the game's lock released: the people of the game can look at
it, and plan at the same time in games of secret decisions, while they think. Each move
they choose is committed as any change is (`Commits.apply`). A reply waits for them at
most `wait` seconds; what they play later is told when played (`played`). Without it (the
console, the tests), replies wait until the computers have played, so a transcript reads
in order.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from host.model import ServiceError
from host.play.ai_turns import ComputerPlayers
from host.play.changes import Change
from host.play.commit import Commits
from host.play.live import Loaded
from host.play.playing import ComputerMove

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Answered:
    """What the computers did in answer to a change: the game after their moves, the
    changes they committed, and whether they are still thinking (their later moves are
    told when played) or failed to move (the next command tries again)."""

    after: Loaded
    changes: tuple[Change, ...] = ()
    thinking: bool = False
    failed: bool = False


#: Tells what the computers played in the background, after the reply they followed: the
#: game when they started, what they did, and the people's seats their moves asked to act.
Played = Callable[[Loaded, Answered, set[int]], Awaitable[None]]


@dataclass(eq=False)
class _Thinking:
    """Computer players of one game at work in the background."""

    task: asyncio.Task[Answered]
    #: The game when they started: what the last reply showed.
    shown: Loaded
    #: Replies waiting for these moves: while any waits, it shows them, not a post.
    waiting: int = 0
    #: The people's seats these moves asked to act (again, for a new decision).
    asked: set[int] = field(default_factory=set)


class ComputerTurns:
    def __init__(
        self,
        commits: Commits,
        computers: ComputerPlayers,
        wait: float | None,
        played: Played | None = None,
    ) -> None:
        self.commits = commits
        self.live = commits.live
        self.computers = computers
        #: How long a reply waits for the computers' moves that follow it; None (or no
        #: `played`): replies wait until the computers have played.
        self.wait = wait
        #: Tells the moves answered after the reply they follow (None: replies wait).
        self.played = played
        self._thinking: dict[int, _Thinking] = {}
        self._background: set[asyncio.Task[None]] = set()

    def close(self) -> None:
        """Stop what thinks and what waits on it. A computer turn cut short is played
        when its game is next used."""
        for thinking in self._thinking.values():
            thinking.task.cancel()
        for task in self._background:
            task.cancel()
        self.computers.close()

    def to_act(self, loaded: Loaded) -> list[int]:
        """The computer seats that must act now."""
        if loaded.record.status != "active":
            return []
        return sorted(
            s.seat for s in loaded.record.seats if s.user.is_bot and s.seat in loaded.state.to_act
        )

    async def answer(self, loaded: Loaded) -> Answered:
        """Let the computer seats now to act play. Their moves join the reply being made
        if they are made within `wait`; else the reply says they are thinking.

        The computers stop when a person is newly asked to act, so that what they set off
        is told at once; those still to act then go on in the background (their moves
        are told when played), or, where replies wait for them, in this reply."""
        changes: list[Change] = []
        failed = False
        while self.to_act(loaded):
            thinking = self._start(loaded)
            wait = self.wait if self.played is not None else None
            thinking.waiting += 1
            try:
                await asyncio.wait({thinking.task}, timeout=wait)
            finally:
                thinking.waiting -= 1
            if not thinking.task.done() or thinking.task.cancelled():
                return Answered(loaded, tuple(changes), thinking=True, failed=failed)
            done = thinking.task.result()
            changes += done.changes
            failed |= done.failed
            progressed = done.after.record.ply > loaded.record.ply
            if done.after.record.ply >= loaded.record.ply:
                loaded = done.after
            if not progressed:
                break  # they could not move: the next command tries again
            if self.played is not None:
                self._go_on(loaded)
                break
        return Answered(loaded, tuple(changes), failed=failed)

    def _go_on(self, loaded: Loaded, since: Loaded | None = None) -> None:
        """Computers still to act after their turns stopped for a person go on in the
        background (not after a turn that could not move: the next command retries)."""
        if since is not None and loaded.record.ply <= since.record.ply:
            return
        if self.played is not None and self.to_act(loaded):
            self._start(loaded)

    async def catch_up(self, loaded: Loaded) -> Answered:
        """Computer turns left pending (by a restart, or a failure in the middle of their
        turn) are played before a person's command is judged where replies wait for
        them; elsewhere they are started, and told when played."""
        if self.played is None or self.wait is None:
            return await self.answer(loaded)
        if self.to_act(loaded):
            self._start(loaded)
        return Answered(loaded)

    def _start(self, loaded: Loaded) -> _Thinking:
        """The computers thinking in this game: the ones already at it, or new ones."""
        thinking = self._thinking.get(loaded.id)
        if thinking is not None and not thinking.task.done():
            return thinking
        asked: set[int] = set()
        task = asyncio.create_task(self._play(loaded.id, asked))
        thinking = self._thinking[loaded.id] = _Thinking(task, loaded, asked=asked)
        if self.played is not None:
            self._in_background(self._tell_when_played(thinking))
        return thinking

    def _in_background(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _play(self, game_id: int, asked: set[int]) -> Answered:
        """Every computer seat to act plays, until a person is asked to act (their seats
        are added to `asked`). The game's lock is held to read and to commit, never while
        a computer thinks."""
        changes: list[Change] = []
        failed = False
        try:
            for _ in range(1000):
                loaded = await self.live.locked_load(game_id)
                computers = self.to_act(loaded)
                if not computers:
                    break
                seat, state, ply = computers[0], loaded.state, loaded.record.ply
                move = await self.computers.choose(state, seat, loaded.options.level)
                act = ComputerMove(seat, move, ply, loaded.deciding_together)
                try:
                    change = await self.commits.apply(game_id, act)
                except ServiceError:
                    continue  # the game moved on while it thought: think again
                changes.append(change)
                newly = _people_asked(change.steps[0].before, change.after)
                if newly:
                    asked |= newly
                    break  # told at once; the computers still to act start again after
        except Exception:
            log.exception("game %s: a computer turn failed", game_id)
            failed = True
        return Answered(await self.live.locked_load(game_id), tuple(changes), failed=failed)

    async def _tell_when_played(self, thinking: _Thinking) -> None:
        """Tell what the computers played, unless a reply waiting for them tells it."""
        try:
            done = await thinking.task
        except asyncio.CancelledError:
            return
        if thinking.waiting or self.played is None:
            return  # the reply that waits tells these moves, and has the rest go on
        try:
            await self.played(thinking.shown, done, thinking.asked)
        except Exception:
            log.exception("game %s: telling the computer's moves failed", done.after.id)
        self._go_on(done.after, thinking.shown)


def _people_asked(before: Loaded, after: Loaded) -> set[int]:
    """The people's seats that must act in `after` and did not have to in `before`."""
    people = {s.seat for s in after.record.seats if not s.user.is_bot}
    return set(after.state.to_act - before.state.to_act) & people
