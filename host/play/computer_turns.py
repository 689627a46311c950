"""The computer players' turns.

When computer seats must act, they think in the background (`host.play.ai_turns` runs the
search in a worker) with the game's lock released: the people of the game can look at
it, and plan at the same time in games of secret decisions, while they think. A reply
waits for them at most `wait` seconds; what they play later is posted to the game's
channel when played. Without a `post` (the console, the tests), replies wait until the
computers have played, so a transcript reads in order.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from engine.core import MoveError
from engine.text import t, tn
from host.model import Channel, Reply, User
from host.play import rounds
from host.play.ai_turns import ComputerPlayers
from host.play.live import LiveGames, Loaded
from host.play.moves import Moves
from host.present.boards import Boards
from host.present.presenter import Presenter
from host.present.words import Happened

log = logging.getLogger(__name__)

#: Posts replies in a game's channel outside any command (set by the front-end).
Post = Callable[[Channel, list[Reply]], Awaitable[None]]


@dataclass(eq=False)
class _Thinking:
    """Computer players of one game at work in the background."""

    task: asyncio.Task[tuple[Loaded, list[Happened]]]
    #: The game when they started: what the last reply showed.
    shown: Loaded
    #: Replies waiting for these moves: while any waits, it shows them, not a post.
    waiting: int = 0
    #: The people's seats these moves asked to act (again, for a new decision).
    asked: set[int] = field(default_factory=set)


class ComputerTurns:
    def __init__(
        self,
        live: LiveGames,
        moves: Moves,
        presenter: Presenter,
        boards: Boards,
        computers: ComputerPlayers,
        bot_user: User,
        wait: float | None,
        post: Post | None = None,
    ) -> None:
        self.live = live
        self.moves = moves
        self.presenter = presenter
        self.boards = boards
        self.computers = computers
        self.bot_user = bot_user
        #: How long a reply waits for the computers' moves that follow it; None (or no
        #: `post`): replies wait until the computers have played.
        self.wait = wait
        #: Posts the moves answered after the reply they follow (None: replies wait).
        self.post = post
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

    async def answer(self, loaded: Loaded) -> tuple[Loaded, list[Happened]]:
        """Let the computer seats now to act play. Their moves join the reply being made
        if they are made within `wait`; else the reply says they are thinking.

        The computers stop when a person is newly asked to act, so that what they set off
        is told at once; those still to act then go on in the background (their moves
        are posted when played), or, where replies wait for them, in this reply."""
        told: list[Happened] = []
        while self.to_act(loaded):
            thinking = self._start(loaded)
            wait = self.wait if self.post is not None else None
            thinking.waiting += 1
            try:
                await asyncio.wait({thinking.task}, timeout=wait)
            finally:
                thinking.waiting -= 1
            if not thinking.task.done() or thinking.task.cancelled():
                return loaded, [*told, self._thinking_line(loaded)]
            final, lines = thinking.task.result()
            told += lines
            progressed = final.record.ply > loaded.record.ply
            if final.record.ply >= loaded.record.ply:
                loaded = final
            if not progressed:
                break  # they could not move: the next command tries again
            if self.post is not None:
                self._go_on(loaded)
                break
        return loaded, told

    def _thinking_line(self, loaded: Loaded) -> Happened:
        seats = self.to_act(loaded)
        names = ", ".join(self.presenter.seat_label(loaded, s) for s in seats)
        return Happened(
            tn("{names} is thinking…", "{names} are thinking…", n=len(seats), names=names)
        )

    def _go_on(self, loaded: Loaded, since: Loaded | None = None) -> None:
        """Computers still to act after their turns stopped for a person go on in the
        background (not after a turn that could not move: the next command retries)."""
        if since is not None and loaded.record.ply <= since.record.ply:
            return
        if self.post is not None and self.to_act(loaded):
            self._start(loaded)

    async def catch_up(self, loaded: Loaded) -> tuple[Loaded, list[Happened]]:
        """Computer turns left pending (by a restart, or a failure in the middle of their
        turn) are played before a person's command is judged where replies wait for
        them; elsewhere they are started, and posted when played."""
        if self.post is None or self.wait is None:
            return await self.answer(loaded)
        if self.to_act(loaded):
            self._start(loaded)
        return loaded, []

    def _start(self, loaded: Loaded) -> _Thinking:
        """The computers thinking in this game: the ones already at it, or new ones."""
        thinking = self._thinking.get(loaded.id)
        if thinking is not None and not thinking.task.done():
            return thinking
        asked: set[int] = set()
        task = asyncio.create_task(self._play(loaded.id, asked))
        thinking = self._thinking[loaded.id] = _Thinking(task, loaded, asked=asked)
        if self.post is not None:
            self._in_background(self._post_when_played(thinking))
        return thinking

    def _in_background(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _play(self, game_id: int, asked: set[int]) -> tuple[Loaded, list[Happened]]:
        """Every computer seat to act plays, until a person is asked to act (their seats
        are added to `asked`). The game's lock is held to read and to commit, never while
        a computer thinks."""
        told: list[Happened] = []
        try:
            for _ in range(1000):
                loaded = await self.live.locked_load(game_id)
                computers = self.to_act(loaded)
                if not computers:
                    break
                seat, state, ply = computers[0], loaded.state, loaded.record.ply
                move = await self.computers.choose(state, seat, loaded.options.level)
                async with self.live.lock(game_id):
                    before = await self.live.load(game_id)
                    if not self._still_to_choose(before, seat, ply, loaded.deciding_together):
                        continue  # the game moved on while it thought: think again
                    try:
                        after = before.state.play(seat, move)
                    except MoveError:
                        continue
                    played = await self.moves.commit(before, seat, self.bot_user, move, after)
                told.append(self.presenter.moved(before, played, seat, move))
                newly = self._people_asked(before, played)
                if newly:
                    asked |= newly
                    break  # told at once; the computers still to act start again after
        except Exception:
            log.exception("game %s: a computer turn failed", game_id)
            told.append(Happened(t("The computer player could not move yet; it will try again.")))
        return await self.live.locked_load(game_id), told

    @staticmethod
    def _people_asked(before: Loaded, after: Loaded) -> set[int]:
        """The people's seats that must act in `after` and did not have to in `before`."""
        people = {s.seat for s in after.record.seats if not s.user.is_bot}
        return set(after.state.to_act - before.state.to_act) & people

    def _still_to_choose(self, loaded: Loaded, seat: int, ply: int, together: bool) -> bool:
        """Whether a decision `seat` thought about at `ply` is still its to make: nothing
        happened since, or (seats deciding together) only the other seats' decisions."""
        if loaded.record.status != "active":
            return False
        if together:
            return loaded.only_others_moved({seat}, ply)
        return loaded.record.ply == ply and seat in loaded.state.to_act

    async def _post_when_played(self, thinking: _Thinking) -> None:
        """Post what the computers played, unless a reply waiting for them shows it."""
        try:
            final, told = await thinking.task
        except asyncio.CancelledError:
            return
        if thinking.waiting or self.post is None or final.record.channel_id is None:
            return  # the reply that waits tells these moves, and has the rest go on
        # Those these moves asked to act, and any others who must act now and did not
        # when the computers started.
        before = thinking.shown.state.to_act - thinking.asked
        pings = self.presenter.pings(final, before, set())
        quiet = all(h.secret for h in told) or rounds.nothing_to_post(final, told, pings)
        if not pings and final.record.is_live and quiet:
            # Only secret choices made (or, in a game told a round at a time, choices
            # inside a round), and nobody newly asked to act: nothing to tell yet.
            self._go_on(final, thinking.shown)
            return
        try:
            reply = await self.boards.board(final, told, pings)
            channel = Channel(final.record.channel_id, final.record.guild_id)
            await self.post(channel, [reply])
        except Exception:
            log.exception("game %s: posting the computer's moves failed", final.id)
        self._go_on(final, thinking.shown)
