"""What players offer each other during and after a game: a draw, a takeback, a rematch.

An offer is a message with Accept and Decline buttons for the other player. Its buttons
name the game, the ply it was made at and who made it, so an offer lapses by itself
when a move is made, survives a restart, and can be answered only by the one it is for.
A takeback is logged as an undo entry: the history is never rewritten.
"""

from __future__ import annotations

from collections.abc import Callable

from data.repository import StalePlyError
from data.results import Ending
from engine.text import Text, t
from host.model import Choice, Reply, ServiceError, StaleControlsError, User
from host.payloads import Action, Payload
from host.play.deadlines import first_deadline
from host.play.live import UNDO, UNDONE, LiveGames, Loaded
from host.play.moves import GAME_OVER
from host.play.playing import Playing
from host.play.results import ended
from host.present.boards import Boards
from host.present.presenter import Presenter
from host.present.words import Happened

LAPSED = t("This offer lapsed: a move was made since, or the game ended.")


class Offers:
    def __init__(
        self,
        live: LiveGames,
        playing: Playing,
        presenter: Presenter,
        boards: Boards,
        clock: Callable[[], float],
    ) -> None:
        self.live = live
        self.playing = playing
        self.presenter = presenter
        self.boards = boards
        self.clock = clock

    # --- making an offer ------------------------------------------------------------------
    async def offer_draw(self, loaded: Loaded, user: User) -> list[Reply]:
        seat, other = self._duel(loaded, user, t("draw"))
        return [
            self._offer(
                loaded,
                Action.DRAW_ACCEPT,
                Action.DRAW_DECLINE,
                seat,
                other,
                t("Draw offered"),
                t(
                    "{name} offers a draw. {other}: accept or decline. The offer lapses when "
                    "a move is made.",
                    name=user.name,
                    other=other.name,
                ),
            )
        ]

    async def ask_takeback(self, loaded: Loaded, user: User) -> list[Reply]:
        seat, other = self._duel(loaded, user, t("takeback"))
        if loaded.game.secret_decisions:
            raise ServiceError(
                t(
                    "{game} has no takebacks: its moves are secret and made together.",
                    game=loaded.game.name,
                )
            )
        if self._last_move_of(loaded) != seat:
            raise ServiceError(
                t(
                    "Only your own last move can be taken back, before anyone moves after "
                    "it; the last move here is not yours."
                )
            )
        assert loaded.last_move is not None and loaded.previous is not None
        move = loaded.previous.move_text(loaded.last_move)
        return [
            self._offer(
                loaded,
                Action.TAKEBACK_ACCEPT,
                Action.TAKEBACK_DECLINE,
                seat,
                other,
                t("Takeback asked"),
                t(
                    "{name} asks to take back {move}. {other}: accept or decline. The request "
                    "lapses when a move is made.",
                    name=user.name,
                    move=move,
                    other=other.name,
                ),
            )
        ]

    def _duel(self, loaded: Loaded, user: User, what: Text) -> tuple[int, User]:
        """The seat of `user` and the other player, in a game of two between people."""
        record = loaded.record
        if record.status != "active":
            raise ServiceError(GAME_OVER)
        seats = record.seats_of(user.id)
        if not seats:
            raise ServiceError(self.presenter.not_a_player(loaded))
        if len(record.seats) != 2:
            raise ServiceError(
                t("A {what} is agreed between the two players of a duel.", what=what)
            )
        other = record.seats[1 - seats[0]].user
        if other.is_bot:
            raise ServiceError(
                t("The computer plays on: a {what} is agreed between people.", what=what)
            )
        return seats[0], User(other.id, other.name)

    def _offer(
        self,
        loaded: Loaded,
        accept: Action,
        decline: Action,
        seat: int,
        other: User,
        title: Text,
        text: Text,
    ) -> Reply:
        tokens = (str(seat),)
        ply = loaded.record.ply
        return Reply(
            title=str(title),
            text=str(text),
            actions=(
                Choice(Payload(accept, loaded.id, ply, tokens), str(t("Accept")), "success"),
                Choice(Payload(decline, loaded.id, ply, tokens), str(t("Decline")), "danger"),
            ),
            mentions=(other,),
            tone="turn",
            footer=self.presenter.footer(loaded.record),
        )

    def _last_move_of(self, loaded: Loaded) -> int | None:
        """The seat whose move is the last one standing (None: none, or an undo)."""
        if loaded.last_move is None or not loaded.movers or loaded.movers[-1] == UNDONE:
            return None
        return loaded.movers[-1]

    # --- answering one --------------------------------------------------------------------
    async def answer(self, user: User, payload: Payload) -> list[Reply]:
        try:
            offering = int(payload.tokens[0])
        except (IndexError, ValueError):
            raise ServiceError(t("That button is not one of mine.")) from None
        async with self.live.lock(payload.game_id):
            loaded = await self.live.load(payload.game_id, fresh=True)
            record = loaded.record
            if record.status != "active" or record.ply != payload.ply:
                raise StaleControlsError(LAPSED)
            if not 0 <= offering < len(record.seats) or len(record.seats) != 2:
                raise ServiceError(t("That button is not one of mine."))
            answering = record.seats[1 - offering].user
            if answering.id != user.id:
                raise ServiceError(
                    t("This offer is for {name} to answer, not you.", name=answering.name)
                )
            asker = record.seats[offering].user.name
            if payload.action == Action.DRAW_DECLINE:
                return [_answered(t("{name} declined the draw; the game goes on.", name=user.name))]
            if payload.action == Action.TAKEBACK_DECLINE:
                return [
                    _answered(t("{name} refused the takeback; the game goes on.", name=user.name))
                ]
            if payload.action == Action.DRAW_ACCEPT:
                drawn = ended(loaded, Ending.AGREED_DRAW)
                closed = await self.playing.close(loaded, drawn, mover=1 - offering)
                return [_answered(t("{name} accepted the draw.", name=user.name)), *closed]
            board = await self._undo(loaded, offering, asker)
        return [_answered(t("{name} allowed the takeback.", name=user.name)), board]

    async def _undo(self, loaded: Loaded, seat: int, asker: str) -> Reply:
        """Take back the last move (of `seat`): an undo entry in the log, the position
        before that move as the new snapshot. Call under the game's lock."""
        before = loaded.previous
        assert before is not None and loaded.last_move is not None
        record = loaded.record
        now = self.clock()
        timer = first_deadline(loaded.game, before, loaded.players, loaded.options, now)
        try:
            await self.live.repository.append_move(
                record.id,
                record.ply,
                seat,
                record.seats[seat].user.id,
                UNDO,
                before.to_text(),
                now,
                None,
                timer,
            )
        except StalePlyError:
            raise StaleControlsError(LAPSED) from None
        taken = before.move_text(loaded.last_move)
        self.live.forget(record.id)
        after = await self.live.load(record.id)
        line = t("{name}'s move {move} was taken back.", name=asker, move=taken)
        pings = self.presenter.pings(after, frozenset(), set())
        return await self.boards.board(after, [Happened(line)], pings)


def _answered(text: Text) -> Reply:
    """The offer's own message, answered: its buttons gone."""
    return Reply(title=str(t("Answered")), text=str(text), tone="over", edit=True)
