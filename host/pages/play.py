"""Playing on a game's page: the same step-by-step move builder as the board's buttons on
Discord (`GameState.move_options`), laid out for a page and drawn on the picture of the
game as the player sees it, and the move committed through the same ply-guarded write.

A page names the ply it was drawn at; a choice made on a page the game has left behind
(another tab, a double click) is refused as a pressed button of an old board is, and
changes nothing. The move is then told in the game's channel by the process that owns its
server (`host.announce.telling`), as a move made on Discord is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from engine.core import MoveOptions, Option
from engine.text import Text, t
from host.model import ServiceError, StaleControlsError, User
from host.pages.access import Access
from host.pages.views import (
    MovePanel,
    PageNotFoundError,
    PanelChoice,
    PlayDone,
    SignInNeededError,
    Visitor,
)
from host.play.changes import Change
from host.play.live import Loaded
from host.play.moves import GAME_OVER, Moves
from host.present import rounds
from host.present.presenter import Presenter
from render.core import PanelPicture

#: Commits a move made on a page drawn at a ply, and has it told (`GameService.move_away`).
MoveAway = Callable[[int, int, User, str, Text], Awaitable[Change]]

#: The most tokens a move can be built from, and the longest token: more is no move.
MAX_STEPS = 8
MAX_TOKEN = 24


class PlayPages:
    def __init__(
        self,
        access: Access,
        moves: Moves,
        move_away: MoveAway,
        presenter: Presenter,
    ) -> None:
        self.access = access
        self.live = access.live
        self.moves = moves
        self.move_away = move_away
        self.presenter = presenter

    async def panel(
        self, game_id: int, visitor: Visitor, ply: int | None, prefix: tuple[str, ...]
    ) -> MovePanel:
        """What `visitor` may choose next in game `game_id`, after `prefix`, on the page
        drawn at `ply` (None: the game as it is now)."""
        loaded, seat, _ = await self._acting(game_id, visitor, ply)
        prefix = _checked(prefix)
        options = loaded.state.move_options(seat, prefix)
        if not options.options and options.complete is None:
            raise ServiceError(t("That choice is no longer available."))
        return self._laid_out(loaded, seat, options, prefix)

    async def offered(self, game_id: int, visitor: Visitor) -> MovePanel | None:
        """The first choices of the visitor's move, when the game waits for them (None:
        not signed in, not a player, or not theirs to act now)."""
        if visitor.user_id is None:
            return None
        try:
            return await self.panel(game_id, visitor, None, ())
        except (SignInNeededError, StaleControlsError):
            return None
        except ServiceError as exc:
            if isinstance(exc, PageNotFoundError):
                raise
            return None  # not a player of this game, or not theirs to act now

    async def channel_game(self, guild_id: int, channel_id: int, visitor: Visitor) -> int | None:
        """The game in play in a channel of a server whose pages `visitor` may see (what
        the Activity opens when it is launched from the channel rather than a board)."""
        await self.access.server(guild_id, visitor)
        record = await self.live.repository.live_game_in_channel(channel_id)
        if record is None or record.guild_id != guild_id or record.kind != "channel":
            return None
        return record.id

    async def picture(
        self, game_id: int, visitor: Visitor, ply: int | None, prefix: tuple[str, ...]
    ) -> tuple[bytes, MovePanel]:
        """The picture `visitor` builds their move on (the game as their seat sees it,
        with the choices drawn where the game draws them), and the panel it goes with."""
        loaded, seat, _ = await self._acting(game_id, visitor, ply)
        prefix = _checked(prefix)
        options = loaded.state.move_options(seat, prefix)
        view = loaded.state.view(seat)
        tokens = tuple(o.token for o in options.options)
        ctx = self.presenter.render_context(loaded, seat)
        drawn = await self.presenter.painter.panel(view, seat, prefix, tokens, ctx)
        return drawn.png, self._laid_out(loaded, seat, options, prefix, drawn)

    async def play(
        self, game_id: int, visitor: Visitor, ply: int, tokens: tuple[str, ...]
    ) -> PlayDone:
        """Play the move built of `tokens` for `visitor`, as the page drawn at `ply`
        offered it. Refused, with nothing changed, when the page is out of date (the move
        was already made: a double click, another tab) or the move is not legal."""
        loaded, _, user = await self._acting(game_id, visitor, ply)
        tokens = _checked(tokens)
        if not tokens:
            raise ServiceError(t("Choose a move first."))
        change = await self.move_away(loaded.id, ply, user, " ".join(tokens), _out_of_date(loaded))
        step = change.steps[0]
        played = step.before.state.move_text(step.move)
        return PlayDone(game_id, change.after.record.ply, str(t("Done: {move}.", move=played)))

    async def _acting(
        self, game_id: int, visitor: Visitor, ply: int | None
    ) -> tuple[Loaded, int, User]:
        """The game, the visitor's seat that is to act, and the visitor as a player, if
        the page drawn at `ply` still offers them a choice; else why not."""
        _, record = await self.access.game(game_id, visitor)
        if visitor.user_id is None:
            raise SignInNeededError(t("Sign in with Discord to play your games here."))
        user = User(visitor.user_id, visitor.name)
        # The computers' turns are the telling process's to play (the announcer), never a
        # page server's: a page shows what is stored.
        loaded = await self.access.loaded(record)
        if not loaded.record.is_live:
            raise StaleControlsError(GAME_OVER)
        if ply is not None and not self.moves.still_offered(loaded, ply, user):
            raise StaleControlsError(_out_of_date(loaded))
        seat = self.moves.acting_seat(loaded, user)
        return loaded, seat, User(user.id, _seat_name(loaded, seat, user))

    def _laid_out(
        self,
        loaded: Loaded,
        seat: int,
        options: MoveOptions[Any],
        prefix: tuple[str, ...],
        drawn: PanelPicture | None = None,
    ) -> MovePanel:
        """The panel of `options`; with the picture `drawn`, each choice's place on it, in
        hundredths of the picture's width and height (the page scales with the screen)."""
        spots: dict[str, tuple[float, float, float, float]] = {}
        size = (0, 0)
        if drawn is not None:
            size = (drawn.width, drawn.height)
            for spot in drawn.spots:
                left, top, right, bottom = spot.box
                spots[spot.token] = (
                    100 * left / drawn.width,
                    100 * top / drawn.height,
                    100 * (right - left) / drawn.width,
                    100 * (bottom - top) / drawn.height,
                )
        choices = tuple(_choice(o, (*prefix, o.token), spots.get(o.token)) for o in options.options)
        browse = tuple(_choice(o, (o.token,), None) for o in options.browse)
        lines: list[str] = []
        if prefix and not options.browse:
            lines.append(str(t("So far: **{chosen}**", chosen=" ".join(prefix))))
        elif not prefix and loaded.game.told_in_rounds:
            # Asked inside a round: what happened in it so far, to choose knowingly.
            lines += rounds.story_lines(self.presenter, loaded, rounds.round_so_far(loaded))
        back: tuple[str, ...] | None = None
        if options.browse:
            back = ()
        elif prefix:
            back = prefix[:-1]
        confirm = None
        if options.complete is not None:
            confirm = str(options.confirm or t("Confirm"))
        return MovePanel(
            game_id=loaded.id,
            ply=loaded.record.ply,
            prefix=prefix,
            lines=tuple(lines),
            prompt=str(options.prompt),
            preview=str(options.preview) if options.preview is not None else "",
            choices=choices,
            browse=browse,
            confirm=confirm,
            back=back,
            size=size,
            secret=loaded.deciding_together,
            plays_at_once=bool(
                prefix
                and not options.options
                and not options.browse
                and options.confirm is None
                and options.complete is not None
                and not loaded.game.confirm_moves
            ),
            names=tuple(self.presenter.names(loaded)),
        )


def _out_of_date(loaded: Loaded) -> Text:
    return t(
        "This page is out of date: the game has moved on (to move {now}). "
        "Nothing was changed; here is the game as it is now.",
        now=loaded.record.ply,
    )


def _choice(
    option: Option, step: tuple[str, ...], spot: tuple[float, float, float, float] | None
) -> PanelChoice:
    return PanelChoice(option.label, step, spot)


def _seat_name(loaded: Loaded, seat: int, user: User) -> str:
    """The player's name as the game knows it (their Discord name when they sat down)."""
    return loaded.record.seats[seat].user.name or user.name


def _checked(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """Tokens as a page sends them, refused when they cannot be a move's."""
    if len(tokens) > MAX_STEPS or any(
        not token or len(token) > MAX_TOKEN or not token.isprintable() for token in tokens
    ):
        raise ServiceError(t("That choice is no longer available."))
    return tokens
