"""The flow of one move, top to bottom, and the other ways a game goes on or ends.

A move: take the game's lock and read it (from memory when it is there); let computer
turns left pending play first; judge the move and commit it under the lock (one
ply-guarded write); release the lock; let the computers answer; draw the reply. If the
move was judged on a memory that another process has made stale, it is judged again on
the stored game, so nothing is refused by stale memory or applied twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import replace

from data.repository import HandOver, StalePlyError
from data.results import Ending, GameResult
from engine.text import Text, t
from host.model import Reply, ServiceError, StaleControlsError, User
from host.play.computer_turns import ComputerTurns
from host.play.live import LiveGames, Loaded, record_of
from host.play.moves import GAME_OVER, MOVED_ON, Moves
from host.play.results import ended
from host.present.boards import Boards
from host.present.presenter import Presenter
from host.present.words import Happened

#: Called after a move finishes a game; their replies follow the final board.
FinishHook = Callable[[Loaded], Awaitable[list[Reply]]]


class Playing:
    def __init__(
        self,
        live: LiveGames,
        moves: Moves,
        computers: ComputerTurns,
        presenter: Presenter,
        boards: Boards,
        bot_user: User,
        clock: Callable[[], float],
        finish_hooks: Sequence[FinishHook] = (),
    ) -> None:
        self.live = live
        self.moves = moves
        self.computers = computers
        self.presenter = presenter
        self.boards = boards
        self.bot_user = bot_user
        self.clock = clock
        #: Called after a move finishes a game; their replies follow the final board.
        self.finish_hooks = finish_hooks

    async def move(self, game_id: int, ply: int | None, user: User, text: str) -> list[Reply]:
        """Play `text` for `user`. With `ply` (a button), the game must still be where the
        button was drawn; a typed move is checked against the position as it is."""
        loaded = await self.live.locked_load(game_id)
        loaded, caught_up = await self.computers.catch_up(loaded)
        before, seat, move, loaded = await self._judged(game_id, ply, user, text)
        told = [*caught_up, self.presenter.moved(before, loaded, seat, move, user.name)]
        loaded, answered = await self.computers.answer(loaded)
        pings = self.presenter.pings(loaded, before.state.to_act, {seat})
        replies = [await self.boards.board(loaded, told + answered, pings)]
        if loaded.record.status == "finished":
            for hook in self.finish_hooks:
                replies += await hook(loaded)
        return replies

    async def move_away(
        self, game_id: int, offered_at: int, user: User, text: str, stale: Text
    ) -> tuple[Loaded, str]:
        """A move made away from Discord (on the web pages), as the page drawn at ply
        `offered_at` offered it (refused with `stale` when the game has moved on without
        leaving the move to this user: a page left behind, a confirm sent twice): judged
        and committed as a move on Discord is, and marked for the game's channel to be
        told of it by the process that owns the channel's server (`Telling`), which also
        lets the computers answer it there. The game after it, and the move's notation."""
        before, _, move, after = await self._judged(
            game_id, None, user, text, untold=True, offered_at=offered_at, stale=stale
        )
        return after, before.state.move_text(move)

    async def _judged(
        self,
        game_id: int,
        ply: int | None,
        user: User,
        text: str,
        *,
        untold: bool = False,
        offered_at: int | None = None,
        stale: Text | None = None,
    ) -> tuple[Loaded, int, Hashable, Loaded]:
        """Judge `text` and commit it under the game's lock: the game before, the seat,
        the move, and the game after. With `offered_at`, the move must still be the
        user's to make as it was offered then (checked under the lock)."""
        async with self.live.lock(game_id):
            before = await self.live.load(game_id)
            try:
                loaded = await self._commit(before, ply, user, text, untold, offered_at, stale)
            except ServiceError:
                # Judged on this process's memory of the game: if another process has
                # moved it on meanwhile, judge again on the stored game.
                if not await self.live.changed_elsewhere(before):
                    raise
                before = await self.live.load(game_id)
                loaded = await self._commit(before, ply, user, text, untold, offered_at, stale)
        seat, move = loaded.movers[-1], loaded.last_move
        return before, seat, move, loaded

    async def _commit(
        self,
        before: Loaded,
        ply: int | None,
        user: User,
        text: str,
        untold: bool,
        offered_at: int | None,
        stale: Text | None,
    ) -> Loaded:
        if offered_at is not None and not self.moves.still_offered(before, offered_at, user):
            raise StaleControlsError(stale or MOVED_ON)
        seat, move, after = self.moves.judge(before, ply, user, text)
        return await self.moves.commit(before, seat, user, move, after, untold=untold)

    async def resign(self, game_id: int, user: User) -> list[Reply]:
        """In a game of two the other player wins; in a larger game a computer takes the
        resigner's seats and the game goes on, unless no person is left to play it: then
        it ends there, won by nobody."""
        async with self.live.lock(game_id):
            loaded = await self.live.load(game_id)
            if loaded.record.status != "active":
                raise ServiceError(GAME_OVER)
            seats = loaded.record.seats_of(user.id)
            if not seats:
                raise ServiceError(self.presenter.not_a_player(loaded))
            if len(loaded.record.seats) <= 2:
                others = [s.seat for s in loaded.record.seats if s.seat not in seats]
                winners = others if len(others) == 1 else []
                resigned = ended(loaded, Ending.RESIGNED, winners=winners, by=seats)
                return await self.close(loaded, resigned, mover=seats[0])
            hand_over = self._hand_over_to_computer(loaded, seats)
            if all(s.user.is_bot for s in loaded.record.seats if s.seat not in seats):
                # The seats change hands as the game ends, in one transaction: never a
                # live game of computers alone. The resigner is named as the person, not
                # as the computer now in the seat.
                last = ended(loaded, Ending.RESIGNED, by=seats, actor=user)
                return await self.close(loaded, last, mover=seats[0], hand_over=hand_over)
            record = await self.live.repository.replace_seats(
                loaded.id, hand_over.seats, hand_over.user, hand_over.options
            )
            loaded = self.live.remember(replace(loaded, record=record))
        line = t(
            "{name} resigned; a computer player takes over {seat}.",
            name=user.name,
            seat=", ".join(str(Text(loaded.game.seat_names[s])) for s in seats),
        )
        before = loaded.state.to_act
        loaded, answered = await self.computers.answer(loaded)
        pings = self.presenter.pings(loaded, before, set(seats))
        return [await self.boards.board(loaded, [Happened(line), *answered], pings)]

    def _hand_over_to_computer(self, loaded: Loaded, seats: tuple[int, ...]) -> HandOver:
        """A computer takes over the resigner's seats; the resigner can no longer win."""
        people = [loaded.record.seats[s].user.id for s in seats[:1]]
        options = replace(
            loaded.options,
            taken_over=(*loaded.options.taken_over, *seats),
            resigned=(*loaded.options.resigned, *people),
        )
        return HandOver(seats, record_of(self.bot_user), options.stored())

    async def end_by_admin(self, game_id: int, user: User) -> list[Reply]:
        async with self.live.lock(game_id):
            loaded = await self.live.load(game_id, fresh=True)
            # An admin who plays in the game ended it: the end pings the others, not them.
            mine = loaded.record.seats_of(user.id)
            result = ended(loaded, Ending.ADMIN, actor=user)
            return await self.close(loaded, result, mover=mine[0] if mine else None)

    async def claim(self, game_id: int, ply: int, user: User) -> list[Reply]:
        """The win claimed by a player whose opponent's time ran out (a game of two). Two
        claims at once record one result: the close is guarded by the ply."""
        async with self.live.lock(game_id):
            loaded = await self.live.load(game_id, fresh=True)
            record = loaded.record
            if record.status != "active":
                raise StaleControlsError(GAME_OVER)
            if record.expired_at is None or record.ply != ply:
                raise StaleControlsError(
                    t("The move came after all: there is no win to claim. The game goes on.")
                )
            claimants = self.presenter.claimants(loaded)
            mine = [s for s in claimants if s.user.id == user.id]
            if not mine:
                names = ", ".join(s.user.name for s in claimants) or str(t("nobody"))
                raise ServiceError(
                    t("Only {names} may claim this win; it is not yours to claim.", names=names)
                )
            claimed = ended(loaded, Ending.CLAIMED, winners=(mine[0].seat,), by=(mine[0].seat,))
            return await self.close(loaded, claimed, mover=mine[0].seat)

    async def close(
        self,
        loaded: Loaded,
        result: GameResult,
        *,
        mover: int | None = None,
        hand_over: HandOver | None = None,
    ) -> list[Reply]:
        """End a game that is not over by its rules (resigned, ended by an admin): its
        final board, which tells the players who did not end it (`mover`: the seat that
        did). `hand_over`: seats that change hands as it ends. Call under the game's
        lock."""
        try:
            record = await self.live.repository.close_game(
                loaded.id,
                loaded.record.ply,
                result.status,
                result,
                self.clock(),
                hand_over=hand_over,
            )
        except StalePlyError:
            raise ServiceError(t("The game moved on; try again.")) from None
        loaded = self.live.remember(replace(loaded, record=record))
        pings = self.presenter.pings(loaded, frozenset(), {mover} if mover is not None else set())
        return [await self.boards.board(loaded, (), pings)]
