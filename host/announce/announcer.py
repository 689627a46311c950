"""The announcer: what people are told of each committed change of a game.

Every change, whoever made it (a command, a button, a web page, a computer, a deadline,
an offer, an admin), is committed by `host.play.commit` and told here, one way: the
computers answer (their moves committed the same way), the pings are worked out, the board
is drawn with every move since the channel was last told, the finish hooks run on any
ending, and the followers and the people who take direct messages hear of it.

Told exactly once, in order. A change of a game played in a channel is committed with a
mark on the game (`untold_from`: the first ply its channel has not been told). This process
tells the games of its own servers, one telling of a game at a time (`turn`); it keeps the
ply each game is told up to, and a telling starts from there, or from the stored mark,
whichever is later: a move made elsewhere (a web page served by another process) is told
in the same post as the move that answers it, before it, and a telling that finds its moves
already told tells nothing. The front-end says when a post is made (`delivered`); only then
is the mark cleared, so a crash between the commit and the post tells the move after the
restart (the sweep, `host.announce.telling`), never loses it.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from itertools import islice

from data.repository import TimeKeeping
from engine.text import Text, t, tn
from host.announce.boards import Boards
from host.announce.computers import Answered, ComputerTurns
from host.model import Channel, Reply, User, Where
from host.play import seats
from host.play.ai_turns import ComputerPlayers
from host.play.changes import Change, Kind, Step
from host.play.commit import Act, Commits
from host.play.live import Loaded
from host.play.results import how_it_ended
from host.present import rounds
from host.present.presenter import Presenter
from host.present.words import Happened

log = logging.getLogger(__name__)

#: Called once when a game ends, however it ended; their replies follow the final board.
FinishHook = Callable[[Loaded], Awaitable[list[Reply]]]
#: Posts replies where a game is played (the front-end's own way of posting).
Poster = Callable[[Where, list[Reply]], Awaitable[None]]
#: Games whose told ply this process keeps in memory; beyond, the stored mark is read.
REMEMBERED = 20_000
#: Games whose marks are cleared in one write at most.
CLEAR_BATCH = 100


class Announcer:
    def __init__(
        self,
        commits: Commits,
        presenter: Presenter,
        boards: Boards,
        computers: ComputerPlayers,
        *,
        wait: float | None,
        post: Poster | None,
        shards: TimeKeeping | None,
        finish_hooks: Sequence[FinishHook] = (),
    ) -> None:
        self.commits = commits
        self.live = commits.live
        self.presenter = presenter
        self.boards = boards
        #: Posts outside any command (None: this process tells only the replies it makes).
        self.post = post
        #: The servers whose channels this process tells (None: all).
        self.shards = shards
        self.finish_hooks = finish_hooks
        self.computers = ComputerTurns(
            commits,
            computers,
            wait,
            self._tell_played if post is not None and wait is not None else None,
        )
        #: Per game, the ply its channel is told up to (`told_to`: one past the last ply
        #: once its end is told).
        self._told: OrderedDict[int, int] = OrderedDict()
        #: One lock per game, kept while anyone holds or awaits it.
        self._turns: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        #: Marks to clear (game, told up to), written one after another in the background.
        self._to_clear: dict[int, int] = {}
        self._clearing: asyncio.Task[None] | None = None

    def close(self) -> None:
        self.computers.close()
        if self._clearing is not None:
            self._clearing.cancel()

    # --- one telling of a game at a time ----------------------------------------------------
    @asynccontextmanager
    async def turn(self, game_id: int) -> AsyncIterator[None]:
        """This process's one telling of `game_id` at a time: a command holds it from its
        commit to its replies, so nothing tells its change before it does."""
        lock = self._turns.get(game_id)
        if lock is None:
            lock = self._turns[game_id] = asyncio.Lock()
        async with lock:
            yield

    async def change(self, game_id: int, act: Act) -> tuple[Change, list[Reply]]:
        """The one walk of a change a command makes: within the game's turn of telling,
        `act` committed (`Commits.apply`), then told; the change and its replies."""
        async with self.turn(game_id):
            change = await self.commits.apply(game_id, act)
            return change, await self.announce(change)

    async def tell(self, change: Change) -> list[Reply]:
        """`announce`, within the game's turn: for a change committed outside it (a start,
        whose game had no turn before it existed)."""
        async with self.turn(change.game_id):
            return await self.announce(change)

    def owns(self, guild_id: int | None) -> bool:
        """Whether this process tells the channels of server `guild_id`."""
        return self.shards is None or self.shards.owns(guild_id)

    async def announce(self, change: Change) -> list[Reply]:
        """What people are told of `change`, as replies to whoever made it. Call within
        the game's `turn` when the change was committed in it."""
        record = change.after.record
        if change.kind is Kind.CHALLENGED:
            answered = change.actor is not None and change.actor.id != record.created_by
            return [self.presenter.challenge(record, change.after.game, change.note, edit=answered)]
        if change.kind is Kind.CHALLENGE_CLOSED:
            assert record.result is not None
            reason = how_it_ended(record.result, (), None)
            return [
                self.presenter.challenge_closed(record.id, reason, edit=change.actor is not None)
            ]
        return await self._tell(change)

    async def tell_elsewhere(self, change: Change) -> None:
        """Tell a change no command waits for (a move made on a page) in its game's
        channel, if this process tells that channel; else its own process does, woken by
        the change feed."""
        record = change.after.record
        if self.post is None or record.channel_id is None or not self.owns(record.guild_id):
            return
        async with self.turn(change.game_id):
            replies = await self._tell(change)
            await self._post(record.channel_id, record.guild_id, replies)

    async def tell_stored(self, game_id: int, post: Poster | None = None) -> bool:
        """Tell the game's channel what it has not been told of the game as stored
        (changes of another process, or from before a restart), with `post` (by default
        the front-end's); whether a post was made."""
        post = post or self.post
        if post is None:
            return False
        cached = self.live.cached(game_id)
        if cached is not None and not self.owns(cached.record.guild_id):
            return False  # another process's server: no read for it
        async with self.turn(game_id):
            marked = await self.live.repository.untold(game_id, self.shards)
            known = self._told.get(game_id)
            if marked is None or (known is not None and known >= marked[1]):
                return False  # nothing untold, or told here and its mark not yet cleared
            loaded = await self.live.locked_load(game_id, fresh=True)
            record = loaded.record
            replies = await self._tell(
                Change(Kind.SEEN, loaded, asked_before=loaded.state.to_act), stored=marked[0]
            )
            if record.channel_id is None:
                return False
            return await self._post(record.channel_id, record.guild_id, replies, post)

    def delivered(self, replies: Sequence[Reply]) -> None:
        """The front-end posted `replies`: the marks of what they tell are cleared."""
        for reply in replies:
            if reply.told_to is not None and reply.game_id is not None:
                told = max(reply.told_to, self._to_clear.get(reply.game_id, reply.told_to))
                self._to_clear[reply.game_id] = told
        if self._to_clear and (self._clearing is None or self._clearing.done()):
            self._clearing = asyncio.get_running_loop().create_task(self._clear())

    async def cleared(self) -> None:
        """Wait until the marks of what was delivered so far are cleared."""
        while self._clearing is not None and not self._clearing.done():
            await asyncio.shield(self._clearing)

    async def _clear(self) -> None:
        """Clear the marks told, a batch of games in one write at a time: a burst of
        posts waits for a few writes, never for one each."""
        while self._to_clear:
            batch = dict(islice(self._to_clear.items(), CLEAR_BATCH))
            for game_id in batch:
                del self._to_clear[game_id]
            try:
                await self.live.repository.mark_told(batch)
            except Exception:
                # The marks stay: the sweep tells the games again rather than never.
                log.exception("clearing what %d games' channels were told failed", len(batch))

    async def _post(
        self,
        channel_id: int,
        guild_id: int | None,
        replies: list[Reply],
        post: Poster | None = None,
    ) -> bool:
        post = post or self.post
        assert post is not None
        public = [r for r in replies if not r.ephemeral]
        if public:
            await post(Channel(channel_id, guild_id), public)
        self.delivered(replies)
        return bool(public)

    # --- telling a change -------------------------------------------------------------------
    async def _tell(self, change: Change, stored: int | None = None) -> list[Reply]:
        """The replies that tell `change` and what is still untold before it (`stored`:
        the stored mark, when already read)."""
        loaded = change.after
        if loaded.record.is_live and change.kind is not Kind.EXPIRED:
            answered = await self.computers.answer(loaded)
        else:
            answered = Answered(loaded)
        return await self._telling(change, answered, stored)

    async def _telling(
        self, change: Change, answered: Answered, stored: int | None = None
    ) -> list[Reply]:
        """The replies that tell `change`, the computers' `answered` moves after it, and
        what is still untold before it."""
        after = answered.after
        record = after.record
        in_channel = record.channel_id is not None
        start, end_told = change.first_ply, False
        if in_channel:
            start, end_told = await self._told_from(change, stored)
        earlier = await self._earlier(change, start) if start < change.first_ply else []
        steps = [*earlier, *(s for s in change.steps if s.before.record.ply >= start)]
        steps += [s for c in answered.changes for s in c.steps]
        told = self._opening(change) + [self._told_step(s) for s in steps]
        if answered.failed:
            told.append(Happened(t("The computer player could not move yet; it will try again.")))
        if answered.thinking:
            told.append(self._thinking_line(after))
        pings = await self.boards.pinged(self._pings(change, after, earlier))
        ending = not record.is_live and not end_told
        told_to = record.ply + (0 if record.is_live else 1)
        if in_channel:
            self._remember(record.id, told_to)
        # Nothing to tell: the game as stored with nothing untold, or moves another telling
        # of this process told already (computers caught up after their own post).
        retold = bool(change.steps) and not steps
        unchanged = change.kind is Kind.SEEN and not steps
        quiet = (unchanged or retold) and not ending and not answered.thinking
        if quiet or (change.kind is Kind.SEEN and rounds.nothing_to_post(after, told, pings)):
            if in_channel:
                self.delivered([Reply(game_id=record.id, told_to=told_to)])
            return []
        if change.kind is Kind.EXPIRED:
            waiting = seats.claimants(after)
            if not in_channel or not waiting:
                return []  # the clock is stopped; nobody to offer the win to
            pings = tuple(User(s.user.id, s.user.name) for s in waiting)
        hooks: list[Reply] = []
        if ending:
            for hook in self.finish_hooks:
                try:
                    hooks += await hook(after)
                except Exception:
                    # The end is committed: its board must not be lost to a hook.
                    log.exception("game %s: a finish hook failed", record.id)
        board = await self.boards.board(after, told, pings)
        if in_channel:
            board = replace(board, game_id=record.id, told_to=told_to)
        return [board, *hooks]

    def _remember(self, game_id: int, told_to: int) -> None:
        self._told[game_id] = max(told_to, self._told.get(game_id, told_to))
        self._told.move_to_end(game_id)
        while len(self._told) > REMEMBERED:
            self._told.popitem(last=False)

    async def _told_from(self, change: Change, stored: int | None) -> tuple[int, bool]:
        """The ply the telling of `change` starts from, and whether the game's end is
        told already: from this process's memory when it told the game up to the change,
        else from the stored mark (`stored`, when read; else as the game was read before
        the change, or as stored now)."""
        first = change.first_ply
        ply = change.after.record.ply
        known = self._told.get(change.game_id)
        if known is not None and known >= first and change.kind is not Kind.SEEN:
            return min(known, ply), known > ply
        if stored is None:
            opened = change.steps[0].before.record if change.steps else None
            if opened is not None and known is None:
                # A restart reads the mark with the game: no read of its own.
                stored = opened.untold_from
            else:
                marked = await self.live.repository.untold(change.game_id)
                stored = marked[0] if marked is not None else None
        start = first if stored is None else min(stored, first)
        if known is not None:
            start = max(start, min(known, ply))
        if known is not None and known > ply:
            return start, True
        # A change of this process marked its own end; another's end is untold while marked.
        return start, change.kind is Kind.SEEN and stored is None

    async def _earlier(self, change: Change, start: int) -> list[Step]:
        """The moves from ply `start` before the change, made elsewhere and untold."""
        first = change.first_ply
        found = await self.live.moves_since(change.game_id, start)
        earlier = [(b, seat, move) for b, seat, move in found if b.record.ply < first]
        last = change.steps[0].before if change.steps else change.after
        steps = []
        for i, (before, seat, move) in enumerate(earlier):
            after = earlier[i + 1][0] if i + 1 < len(earlier) else last
            # A person by their name, as their own command tells them; a computer by its seat.
            holder = before.record.seats[seat].user
            steps.append(Step(before, seat, move, after, by=None if holder.is_bot else holder.name))
        return steps

    def _opening(self, change: Change) -> list[Happened]:
        """What a change tells before its moves."""
        loaded = change.after
        if change.kind is Kind.STARTED:
            told = [Happened(change.note)] if change.note is not None else []
            return [*told, Happened(self.presenter.started_line(loaded))]
        if change.kind is Kind.HANDED_OVER and change.actor is not None:
            line = t(
                "{name} resigned; a computer player takes over {seat}.",
                name=change.actor.name,
                seat=", ".join(str(Text(loaded.game.seat_names[s])) for s in change.seats),
            )
            return [Happened(line)]
        if change.kind is Kind.TAKEN_BACK and change.seats:
            asker = loaded.record.seats[change.seats[0]].user.name
            line = t("{name}'s move {move} was taken back.", name=asker, move=change.taken or "")
            return [Happened(line)]
        return []

    def _told_step(self, step: Step) -> Happened:
        if not step.default:
            return self.presenter.moved(step.before, step.after, step.seat, step.move, step.by)
        together = step.before.deciding_together
        default = (
            str(t("the default choice")) if together else step.before.state.move_text(step.move)
        )
        line = t(
            "{name} ran out of time: {move}.",
            name=self.presenter.seat_label(step.after, step.seat),
            move=default,
        )
        return Happened(line, step.after, secret=together)

    def _thinking_line(self, loaded: Loaded) -> Happened:
        computers = self.computers.to_act(loaded)
        names = ", ".join(self.presenter.seat_label(loaded, s) for s in computers)
        return Happened(
            tn("{names} is thinking…", "{names} are thinking…", n=len(computers), names=names)
        )

    def _pings(self, change: Change, after: Loaded, earlier: list[Step]) -> tuple[User, ...]:
        """Who the post pings: the people newly asked to act (or everyone, at the end),
        never those who made the change."""
        kind = change.kind
        if kind is Kind.STARTED or kind is Kind.TAKEN_BACK:
            return self.presenter.pings(after, frozenset(), set())
        if kind is Kind.CLOSED:
            return self.presenter.pings(after, frozenset(), set(change.acted))
        if kind is Kind.HANDED_OVER:
            return self.presenter.pings(after, change.asked_before, set(change.seats))
        asked = earlier[0].before.state.to_act if earlier else change.asked_before
        acted = set(change.acted) | {s.seat for s in earlier}
        if kind is Kind.MOVED and any(s.default for s in change.steps):
            return self.presenter.pings(after, asked - acted, set())
        return self.presenter.pings(after, asked, acted)

    async def _tell_played(self, shown: Loaded, answered: Answered, asked: set[int]) -> None:
        """What the computers played after the reply they followed, posted in the game's
        channel: those their moves asked to act, and any others who must act now and did
        not when the computers started, are pinged. Secret choices alone (or, in a game
        told a round at a time, choices inside a round) with nobody newly asked to act are
        nothing to tell yet."""
        record = answered.after.record
        if record.channel_id is None or self.post is None or not answered.changes:
            return
        steps = tuple(s for c in answered.changes for s in c.steps)
        change = Change(Kind.MOVED, answered.after, steps, asked_before=shown.state.to_act - asked)
        async with self.turn(record.id):
            told = [self._told_step(s) for s in steps]
            pings = await self.boards.pinged(
                self.presenter.pings(answered.after, change.asked_before, set())
            )
            quiet = all(h.secret for h in told) or rounds.nothing_to_post(
                answered.after, told, pings
            )
            if not pings and record.is_live and quiet and not answered.failed:
                self._remember(record.id, record.ply)
                self.delivered([Reply(game_id=record.id, told_to=record.ply)])
                return
            replies = await self._telling(change, replace(answered, changes=()))
            await self._post(record.channel_id, record.guild_id, replies)
