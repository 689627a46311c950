"""What players offer each other during and after a game: a draw, a takeback, a rematch.

An offer is a message with Accept and Decline buttons for the other player; accepting it
is a change committed by `host.play.offers` and told by the announcer.
"""

from __future__ import annotations

from engine.text import Text, t
from host.announce.announcer import Announcer
from host.model import Choice, Reply, ServiceError, User
from host.payloads import Action, Payload
from host.play import seats
from host.play.commit import Commits
from host.play.live import UNDONE, LiveGames, Loaded
from host.play.moves import GAME_OVER
from host.play.offers import AcceptDraw, TakeBack, answering
from host.present.presenter import Presenter


class Offers:
    def __init__(
        self, live: LiveGames, commits: Commits, announcer: Announcer, presenter: Presenter
    ) -> None:
        self.live = live
        self.commits = commits
        self.announcer = announcer
        self.presenter = presenter

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
        mine = record.seats_of(user.id)
        if not mine:
            raise ServiceError(seats.not_a_player(loaded))
        if len(record.seats) != 2:
            raise ServiceError(
                t("A {what} is agreed between the two players of a duel.", what=what)
            )
        other = record.seats[1 - mine[0]].user
        if other.is_bot:
            raise ServiceError(
                t("The computer plays on: a {what} is agreed between people.", what=what)
            )
        return mine[0], User(other.id, other.name)

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
        if payload.action in (Action.DRAW_DECLINE, Action.TAKEBACK_DECLINE):
            loaded = await self.live.locked_load(payload.game_id, fresh=True)
            answering(loaded, payload.ply, offering, user)
            if payload.action == Action.DRAW_DECLINE:
                return [_answered(t("{name} declined the draw; the game goes on.", name=user.name))]
            return [_answered(t("{name} refused the takeback; the game goes on.", name=user.name))]
        act: AcceptDraw | TakeBack
        if payload.action == Action.DRAW_ACCEPT:
            act = AcceptDraw(user, offering, payload.ply)
            accepted = t("{name} accepted the draw.", name=user.name)
        else:
            act = TakeBack(user, offering, payload.ply)
            accepted = t("{name} allowed the takeback.", name=user.name)
        _, replies = await self.announcer.change(payload.game_id, act)
        return [_answered(accepted), *replies]


def _answered(text: Text) -> Reply:
    """The offer's own message, answered: its buttons gone."""
    return Reply(title=str(t("Answered")), text=str(text), tone="over", edit=True)
