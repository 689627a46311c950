"""Turning a game and what just happened in it into replies.

Every reply a player sees about a game in play is made here: the board (its words,
picture, buttons, who is pinged), a challenge, the move builder's private panel, and the
refusals that name the players (move lists and rules pages are in `host.present.lists`). What
a reply says comes from the game's declared facts (`Game.has_scores`, `Game.hints`,
`Game.secret_decisions`), never from guesses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from data.repository import GameRecord
from engine.core import GameState, Option
from engine.text import Text, t, tn
from host.model import Choice, Reply, User
from host.payloads import Action, Payload
from host.play.live import Loaded
from host.play.results import short_line
from host.present import rounds
from host.present.notices import Notices
from host.present.painting import BoardImages, Painter
from host.present.words import Happened, board_title
from render.core import RenderContext

#: Discord allows 25 options in a select menu and 25 buttons on a message.
MAX_PICKS = 25
#: Pictures before the board: a message holds ten embeds, the board is the last.
MAX_GALLERY = 9


@dataclass(frozen=True, slots=True)
class BoardFacts:
    """What a board shows that is read or written elsewhere, by the flow that asks for
    the board: who follows the game (pinged, or told in a direct message) and how the
    game moved its players' ratings."""

    followers: tuple[User, ...] = ()
    followers_direct: tuple[User, ...] = ()
    rating_line: Text | None = None
    #: The game's page on the web, if its server opened its pages.
    page: str = ""
    #: The people it waits for who are away, with when they are back.
    away: Mapping[int, float] = field(default_factory=dict)


def no_link(record: GameRecord) -> str | None:
    """No link to a game's board: the front-end keeps none."""
    return None


class Presenter(Notices):
    """Every reply a player sees about a game, formatted from what it is given; the only
    work it does besides is drawing (in the painter)."""

    def __init__(
        self,
        painter: Painter,
        *,
        render_images: bool = True,
        link: Callable[[GameRecord], str | None] = no_link,
        activity: bool = False,
    ) -> None:
        self.painter = painter
        self.render_images = render_images
        #: A link to a game's latest board, where the front-end keeps one.
        self.link = link
        #: The Discord application has an Activity showing the game pages.
        self.activity = activity

    # --- the board ------------------------------------------------------------------------
    async def board(
        self,
        loaded: Loaded,
        told: Sequence[Happened] = (),
        pings: tuple[User, ...] = (),
        facts: BoardFacts = BoardFacts(),
    ) -> Reply:
        """The game as it stands, after what `told` says happened, in order: each move
        with what the game reported of it by itself, then who must act (or the result).
        Each move before the last is drawn too (its steps, or the board it left), so a
        player who looks once sees every move since they last acted."""
        record, state, game = loaded.record, loaded.state, loaded.game
        #: A daily run is played in private so that nobody else sees the hill.
        private = record.kind == "daily"
        lines: list[str] = []
        earlier: list[Happened] = []
        last_told = False
        by_round = game.told_in_rounds
        if by_round:
            # Told a round at a time: inside a round, privately; a round ended, whole.
            if rounds.inside_a_round(loaded, told):
                within = await rounds.within_round(self, loaded, in_order(told), pings)
                if within is not None:
                    return within
            lines = rounds.retold(self, loaded, in_order(told))
            last_told = True
        for happened in () if by_round else in_order(told):
            lines.append(str(happened.line))
            after = happened.after
            if after is None:
                continue
            lines += self.reported(after)
            if after.record.ply == record.ply:
                last_told = True
            else:
                earlier.append(happened)
        if not last_told:
            lines += self.reported(loaded)
        picks: tuple[Choice, ...] = ()
        actions: list[Choice] = []
        tone = "turn"
        if record.status != "active":
            tone = "over"
            lines.append(self.result_line(loaded))
            if facts.rating_line is not None:
                lines.append(str(facts.rating_line))
            if not private:
                again = t("Play again") if game.solo else t("Rematch")
                actions.append(Choice(self._payload(loaded, Action.REMATCH), str(again), "primary"))
        else:
            acting = sorted(state.to_act)
            humans = [s for s in acting if not record.seats[s].user.is_bot]
            lines.append(self.waiting_line(loaded))
            if humans:
                lines += self.clock_lines(loaded, humans, facts.away)
            picks, actions = self._board_controls(loaded, acting, humans, private, facts.page)
        image: bytes | None = None
        gallery: tuple[tuple[str, bytes], ...] = ()
        if self.render_images and by_round:
            # One picture: the round is told in words, its choices asked privately.
            image = (await self.images(loaded, with_choices=False, with_steps=False)).board
        elif self.render_images:
            images = await self.images(loaded)
            image = images.board
            gallery = await self._gallery(earlier, images)
        return Reply(
            title=str(board_title(loaded)),
            text="\n".join(lines),
            image=image,
            gallery=gallery,
            ephemeral=private,
            picks=picks,
            pick_placeholder=str(state.option_prompt(())) if picks else "",
            actions=tuple(actions),
            mentions=() if private else pings,
            followers=() if private else facts.followers,
            followers_direct=() if private else facts.followers_direct,
            game_id=None if private else record.id,
            tone=tone,
            fields=self.score_fields(loaded),
            footer=self.footer(record),
            url="" if private else facts.page,
        )

    def reported(self, loaded: Loaded) -> list[str]:
        """What the game reports by itself of the move that led to `loaded`."""
        previous = loaded.previous.view(None) if loaded.previous is not None else None
        report = loaded.state.view(None).report(previous, self.names(loaded))
        return [str(line) for line in report]

    async def _gallery(
        self, earlier: list[Happened], last: BoardImages
    ) -> tuple[tuple[str, bytes], ...]:
        """The pictures before the board: for each move before the last, its steps (or,
        for a move made in the open, the board it left), then the last move's steps, then
        the choices to pick from. A message holds ten pictures: the oldest give way."""
        # A step is captioned as the game's text names it ("Round 3 · step 2").
        pictures: list[tuple[str, bytes]] = []
        for happened in earlier:
            after = happened.after
            assert after is not None
            if happened.secret and not self.reported(after):
                continue  # a decision made in secret that set nothing off: nothing to see
            drawn = await self.images(after, with_choices=False)
            pictures += drawn.steps
            if not drawn.steps and not happened.secret:
                pictures.append((str(happened.line), drawn.board))
        pictures += last.steps
        if last.choices is not None:
            pictures.append((str(t("The choices")), last.choices))
        return tuple(pictures[-MAX_GALLERY:])

    def _board_controls(
        self, loaded: Loaded, acting: list[int], humans: list[int], private: bool, page: str = ""
    ) -> tuple[tuple[Choice, ...], list[Choice]]:
        """The first choices of a move (when one person is to act), then the actions. A
        game whose web `page` is open gets a button that opens the page in the Activity,
        where the move is made by clicking the board."""
        record, state = loaded.record, loaded.state
        picks: tuple[Choice, ...] = ()
        actions: list[Choice] = []
        make_move = Choice(self._payload(loaded, Action.OPEN), str(t("Make my move")), "primary")
        if len(humans) == 1 and len(acting) == 1:
            options = state.move_options(humans[0], ())
            if options.options:
                picks = pick_choices(loaded.id, record.ply, (), options.options, None, Action.PICK)
            else:
                actions.append(make_move)
        elif humans:
            actions.append(make_move)
        actions.append(Choice(self._payload(loaded, Action.MOVES), str(t("Legal moves"))))
        if loaded.game.hints and record.kind != "daily":
            # Practice only: a hint in the scored daily run would defeat it.
            actions.append(Choice(self._payload(loaded, Action.HINT), str(t("Hint"))))
        if loaded.record.expired_at is not None and self.claimants(loaded):
            claim = Choice(self._payload(loaded, Action.CLAIM), str(t("Claim the win")), "success")
            actions.insert(0, claim)
        if page and self.activity and not private:
            launch = Payload(Action.LAUNCH, loaded.id, 0)
            actions.append(Choice(launch, str(t("Open the board"))))
        if not private:
            actions.append(Choice(self._payload(loaded, Action.RESIGN), str(t("Resign")), "danger"))
            follow = Payload(Action.FOLLOW, loaded.id, 0)
            actions.append(Choice(follow, str(t("Follow"))))
        return picks, actions

    def score_fields(self, loaded: Loaded) -> tuple[tuple[str, str], ...]:
        if not loaded.game.has_scores:
            return ()
        scores = loaded.state.scores()
        return tuple(
            (self.seat_label(loaded, s.seat), _points(scores[s.seat])) for s in loaded.record.seats
        )

    async def images(
        self, loaded: Loaded, *, with_choices: bool = True, with_steps: bool = True
    ) -> BoardImages:
        """The board, one picture per step of what the last move set off, and a picture
        of the choices when one player must choose among drawn outcomes (a roll-off's
        outcomes are public: everyone saw the dice)."""
        acting = sorted(loaded.state.to_act) if loaded.record.status == "active" else []
        chooser = acting[0] if len(acting) == 1 and with_choices else None
        return await self.painter.board(
            loaded.state.view(None), self.render_context(loaded), chooser, steps=with_steps
        )

    async def check_showable(self, state: GameState[Any], names: Sequence[str]) -> None:
        """Draw `state` once, as its board would be drawn, with the players' `names`:
        raises if it cannot be shown."""
        if not self.render_images:
            return
        acting = sorted(state.to_act)
        chooser = acting[0] if len(acting) == 1 else None
        await self.painter.board(state.view(None), RenderContext(names=tuple(names)), chooser)

    def render_context(self, loaded: Loaded, viewer: int | None = None) -> RenderContext:
        return RenderContext(
            names=tuple(self.names(loaded)),
            last_move=loaded.last_move,
            previous=loaded.previous.view(viewer) if loaded.previous is not None else None,
            viewer=viewer,
            caption=self.picture_caption(loaded),
        )

    def picture_caption(self, loaded: Loaded) -> str:
        """What the picture of a game that ended off the board (resigned, agreed, claimed,
        ended by an admin) says in place of whose turn it would be: that it is over, who
        won and how. Empty while it goes on, or when the board itself shows the end."""
        record = loaded.record
        if record.is_live or record.result is None or not loaded.state.to_act:
            return ""
        told = short_line(loaded.game, record.result, self.names(loaded))
        return str(t("Game over: {result}", result=told))

    async def builder(
        self,
        loaded: Loaded,
        seat: int,
        prefix: tuple[str, ...],
        edit: bool,
        group: str | None = None,
    ) -> Reply:
        """The private panel that builds a move step by step."""
        options = loaded.state.move_options(seat, prefix)
        picks = pick_choices(
            loaded.id, loaded.record.ply, prefix, options.options, group, Action.STEP
        )
        if options.browse:
            # The neighbours of the move on show, each in place of the whole of it.
            picks += tuple(
                Choice(self._payload(loaded, Action.STEP, (o.token,)), o.label)
                for o in options.browse
            )
        actions: list[Choice] = []
        if options.complete is not None:
            confirm = self._payload(loaded, Action.PLAY, prefix)
            label = options.confirm or t("Confirm")
            actions.append(Choice(confirm, str(label), "success"))
        if group is not None:
            actions.append(Choice(self._payload(loaded, Action.STEP, prefix), str(t("Back"))))
        elif options.browse:
            # A move being looked at stands for the whole prefix: back to the start.
            actions.append(Choice(self._payload(loaded, Action.STEP, ()), str(t("Back"))))
        elif prefix:
            back = self._payload(loaded, Action.STEP, prefix[:-1])
            actions.append(Choice(back, str(t("Back"))))
        lines = [str(options.prompt)]
        if prefix:
            lines.insert(0, str(t("So far: **{chosen}**", chosen=" ".join(prefix))))
        elif group is None and loaded.game.told_in_rounds:
            # Asked inside a round: what happened in it so far, to choose knowingly.
            lines[:0] = rounds.story_lines(self, loaded, rounds.round_so_far(loaded))
        if options.preview is not None:
            lines.append(str(options.preview))
        picture = None
        if self.render_images:
            view = loaded.state.view(seat)
            ctx = self.render_context(loaded, seat)
            picture = await self.painter.options(view, seat, prefix, ctx)
        return Reply(
            title=str(t("Your move")),
            text="\n".join(lines),
            image=picture,
            ephemeral=True,
            picks=picks,
            pick_placeholder=str(options.prompt),
            actions=tuple(actions),
            edit=edit,
        )

    def _payload(self, loaded: Loaded, action: Action, tokens: tuple[str, ...] = ()) -> Payload:
        return Payload(action, loaded.id, loaded.record.ply, tokens)

    # --- refusals that name players -------------------------------------------------------


def in_order(told: Sequence[Happened]) -> list[Happened]:
    """What a reply tells, in the order it happened: the lines before the first move,
    the moves by ply (each once), then the lines after them. Computers that play in the
    background may have moved before the person whose reply this is."""
    moves = {h.after.record.ply: h for h in told if h.after is not None}
    if not moves:
        return list(told)
    first = next(i for i, h in enumerate(told) if h.after is not None)
    before = list(told[:first])
    after = [h for h in told[first:] if h.after is None]
    return [*before, *(moves[ply] for ply in sorted(moves)), *after]


def pick_choices(
    game_id: int,
    ply: int,
    prefix: tuple[str, ...],
    options: Sequence[Option],
    group: str | None,
    action: Action,
) -> tuple[Choice, ...]:
    """Buttons for the next part of a move. More than a message holds are grouped by
    their first letter (Mole Hill's squares: a column first, then the square; an Everest
    plan's 28 actions: the coin first, then the direction); pinned options keep their own
    buttons, first (the sides of the mole's square)."""
    if group is not None:
        options = [o for o in options if o.token[:1] == group and not o.pinned]
    if len(options) <= MAX_PICKS:
        return tuple(
            Choice(Payload(action, game_id, ply, (*prefix, o.token)), o.label) for o in options
        )
    pinned = tuple(
        Choice(Payload(action, game_id, ply, (*prefix, o.token)), o.label)
        for o in options
        if o.pinned
    )
    groups: dict[str, list[Option]] = {}
    for option in options:
        if not option.pinned:
            groups.setdefault(option.token[:1], []).append(option)
    if len(groups) == 1 and not pinned:
        # One letter for all (Everest's `pick 1` … `pick 120`): a group would only hold
        # them all again. The first ones are shown; the game lets a player browse on.
        return tuple(
            Choice(Payload(action, game_id, ply, (*prefix, o.token)), o.label)
            for o in options[:MAX_PICKS]
        )
    opens = Action.GROUP if action == Action.STEP else Action.GROUP_OPEN
    grouped = tuple(
        Choice(Payload(opens, game_id, ply, prefix, letter), _group_label(members))
        for letter, members in groups.items()
    )
    return (*pinned, *grouped)[:MAX_PICKS]


def _group_label(members: Sequence[Option]) -> str:
    """What a group's button says: the game's name for it, else its first and last
    tokens ("a1 … a8")."""
    first, last = members[0], members[-1]
    if first.group_label is not None:
        return first.group_label
    return first.token if len(members) == 1 else f"{first.token} … {last.token}"


def _points(n: int) -> str:
    return str(tn("{n} point", "{n} points", n=n))
