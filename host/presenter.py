"""Turning a game and what just happened in it into replies.

Every reply a player sees about a game in play is made here: the board (its words,
picture, buttons, who is pinged), a challenge, the move builder's private panel, and the
refusals that name the players (move lists and rules pages are in `host.lists`). What
a reply says comes from the game's declared facts (`Game.has_scores`, `Game.hints`,
`Game.secret_decisions`), never from guesses.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from data.repository import GameRecord, SeatRecord
from data.results import Ending, GameResult
from engine.core import Game, MoveError, Option
from engine.text import Text, t, tn
from host import rounds
from host.following import Following
from host.live import Loaded, user_of
from host.model import Choice, Reply, User
from host.painting import BoardImages, Painter
from host.payloads import Action, Payload
from host.ratings import Ratings
from host.results import how_it_ended, short_line
from render.core import RenderContext

#: Discord allows 25 options in a select menu and 25 buttons on a message.
MAX_PICKS = 25
#: Pictures before the board: a message holds ten embeds, the board is the last.
MAX_GALLERY = 9


@dataclass(frozen=True, slots=True)
class Happened:
    """One thing a reply tells, in order: a move, with the game as the move left it, or
    a line that is no move ("… is thinking", "the game begins")."""

    line: Text
    after: Loaded | None = None
    #: A decision made in secret: it is told that it was made, and nothing more.
    secret: bool = False
    #: The seat that made the move, when a seat did.
    seat: int | None = None


log = logging.getLogger(__name__)

#: The computer's levels as players read them.
LEVEL_WORDS = {"easy": t("easy"), "normal": t("normal"), "hard": t("hard")}


class Presenter:
    def __init__(self, painter: Painter, *, render_images: bool = True) -> None:
        self.painter = painter
        self.render_images = render_images
        #: A link to a game's latest board, where the front-end has one (set by it).
        self.link: Callable[[GameRecord], str | None] = lambda record: None
        #: Who follows which game (set by the service; None: nobody follows).
        self.following: Following | None = None
        #: Rates each game between people as it finishes (None: no ratings kept).
        self.ratings: Ratings | None = None

    # --- the board ------------------------------------------------------------------------
    async def board(
        self,
        loaded: Loaded,
        told: Sequence[Happened] = (),
        pings: tuple[User, ...] = (),
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
            lines += self._report(after)
            if after.record.ply == record.ply:
                last_told = True
            else:
                earlier.append(happened)
        if not last_told:
            lines += self._report(loaded)
        picks: tuple[Choice, ...] = ()
        actions: list[Choice] = []
        tone = "turn"
        if record.status != "active":
            tone = "over"
            lines.append(self.result_line(loaded))
            lines += await self._rating_lines(loaded)
            if not private:
                again = t("Play again") if game.solo else t("Rematch")
                actions.append(Choice(self._payload(loaded, Action.REMATCH), str(again), "primary"))
        else:
            acting = sorted(state.to_act)
            humans = [s for s in acting if not record.seats[s].user.is_bot]
            lines.append(self.waiting_line(loaded))
            if humans:
                lines += self.clock_lines(loaded, humans)
            picks, actions = self._board_controls(loaded, acting, humans, private)
        followers: tuple[User, ...] = ()
        followers_direct: tuple[User, ...] = ()
        moved = any(h.after is not None for h in told) or record.status != "active"
        if self.following is not None and moved and not private:
            followers, followers_direct = await self.following.audience(loaded)
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
            title=str(t("{game} · move {n}", game=game.name, n=record.ply)),
            text="\n".join(lines),
            image=image,
            gallery=gallery,
            ephemeral=private,
            picks=picks,
            pick_placeholder=str(state.option_prompt(())) if picks else "",
            actions=tuple(actions),
            mentions=() if private else pings,
            followers=() if private else followers,
            followers_direct=followers_direct,
            game_id=None if private else record.id,
            tone=tone,
            fields=self._score_fields(loaded),
            footer=self.footer(record),
        )

    async def _rating_lines(self, loaded: Loaded) -> list[str]:
        """A finished game's board says how it moved its players' ratings, however it
        ended (a move, a resignation, a computer's move, a deadline, an agreed draw)."""
        if loaded.record.status != "finished" or self.ratings is None:
            return []
        try:
            line = await self.ratings.line_for(loaded.record)
        except Exception:
            # The game's end is committed: its board must not be lost to the ratings,
            # which the next sweep brings up to date.
            log.exception("game %s: rating it failed", loaded.id)
            return []
        return [str(line)] if line is not None else []

    def _report(self, loaded: Loaded) -> list[str]:
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
            if happened.secret and not self._report(after):
                continue  # a decision made in secret that set nothing off: nothing to see
            drawn = await self.images(after, with_choices=False)
            pictures += drawn.steps
            if not drawn.steps and not happened.secret:
                pictures.append((str(happened.line), drawn.board))
        pictures += last.steps
        if last.choices is not None:
            pictures.append((str(t("The choices")), last.choices))
        return tuple(pictures[-MAX_GALLERY:])

    def waiting_line(self, loaded: Loaded) -> str:
        """Who the game waits for: still planning, in secret, or to move."""
        acting = sorted(loaded.state.to_act)
        names = ", ".join(self.seat_label(loaded, s) for s in acting)
        if loaded.state.planning:
            return str(t("Still planning: {names}.", names=names))
        if len(acting) == 1:
            return str(t("{names} to move.", names=names))
        return str(t("Waiting for: {names}.", names=names))

    def clock_lines(self, loaded: Loaded, humans: list[int]) -> list[str]:
        """When the pending decision runs out, and what happens then."""
        record, state = loaded.record, loaded.state
        if record.deadline_at is not None:
            when = int(record.deadline_at)
            if any(state.timeout_move(s) is not None for s in humans):
                return [
                    str(
                        t(
                            "Without a decision, the default choice is played <t:{when}:R>.",
                            when=when,
                        )
                    )
                ]
            others = self.claimants(loaded)
            if not others:
                return [str(t("Time to decide runs out <t:{when}:R>.", when=when))]
            return [
                str(
                    t(
                        "Time to move runs out <t:{when}:R>; after that, {others} may claim "
                        "the win.",
                        when=when,
                        others=", ".join(s.user.name for s in others),
                    )
                )
            ]
        if record.expired_at is not None:
            late = ", ".join(self.seat_label(loaded, s) for s in humans)
            claiming = ", ".join(s.user.name for s in self.claimants(loaded))
            if not claiming:
                return [str(t("{late} ran out of time; the game waits.", late=late))]
            return [
                str(
                    t(
                        "{late} ran out of time <t:{when}:R>. {others} may claim the win with "
                        "the button, or wait: the game goes on when the move comes.",
                        late=late,
                        when=int(record.expired_at),
                        others=claiming,
                    )
                )
            ]
        return []

    def claimants(self, loaded: Loaded) -> list[SeatRecord]:
        """The people who may claim the win when the decision pending ran out of time:
        those not to act (in a game of two)."""
        record = loaded.record
        if len(record.seats) != 2:
            return []
        return [s for s in record.seats if s.seat not in loaded.state.to_act and not s.user.is_bot]

    def turn_message(self, loaded: Loaded, person: User) -> Reply:
        """A direct message: it is `person`'s turn, where, and the way to the board."""
        record = loaded.record
        lines = [
            str(
                t(
                    "Your turn in <#{channel}> ({game}: {players}).",
                    channel=record.channel_id,
                    game=loaded.game.name,
                    players=" vs ".join(self.names(loaded)),
                )
            )
        ]
        if record.deadline_at is not None:
            lines.append(str(t("Time runs out <t:{when}:R>.", when=int(record.deadline_at))))
        return self._notice(loaded, t("{game}: your move", game=loaded.game.name), lines, "turn")

    def game_over_message(self, loaded: Loaded) -> Reply:
        """A direct message to a player: the game is over, how it ended, and where."""
        record = loaded.record
        lines = [
            str(
                t(
                    "Your game in <#{channel}> is over ({game}: {players}).",
                    channel=record.channel_id,
                    game=loaded.game.name,
                    players=" vs ".join(self.names(loaded)),
                )
            ),
            self.result_line(loaded),
        ]
        title = t("{game}: game over", game=loaded.game.name)
        return self._notice(loaded, title, lines, "over")

    def challenged(self, loaded: Loaded) -> Reply:
        """A direct message: a challenge waits for your answer, and where."""
        record = loaded.record
        challenger = next(s.user.name for s in record.seats if s.user.id == record.created_by)
        line = t(
            "{name} challenges you to {game} in <#{channel}>: accept or decline there.",
            name=challenger,
            game=loaded.game.name,
            channel=record.channel_id,
        )
        title = t("{game}: a challenge", game=loaded.game.name)
        return self._notice(loaded, title, [str(line)], "turn")

    def follow_message(self, loaded: Loaded) -> Reply:
        """A direct message to a follower: the game they follow has moved on, or ended."""
        record = loaded.record
        if record.status != "active":
            what = self.result_line(loaded)
        else:
            waiting = ", ".join(self.seat_label(loaded, s) for s in sorted(loaded.state.to_act))
            what = str(t("Now waiting for: {names}.", names=waiting))
        lines = [
            str(
                t(
                    "In <#{channel}> ({game}: {players}), after move {n}:",
                    channel=record.channel_id,
                    game=loaded.game.name,
                    players=" vs ".join(self.names(loaded)),
                    n=record.ply,
                )
            ),
            what,
        ]
        title = t("{game}: a game you follow", game=loaded.game.name)
        return self._notice(loaded, title, lines, "over" if record.status != "active" else "info")

    def reminder(self, loaded: Loaded, people: Sequence[User]) -> Reply:
        """A reminder that a decision is pending, with where it is and when it runs out."""
        record = loaded.record
        lines = [
            str(
                t(
                    "Reminder: {names}, your move in {game} ({players}) runs out <t:{when}:R>.",
                    names=", ".join(p.name for p in people),
                    game=loaded.game.name,
                    players=" vs ".join(self.names(loaded)),
                    when=int(record.deadline_at or 0),
                )
            )
        ]
        title = t("{game}: your move", game=loaded.game.name)
        return self._notice(loaded, title, lines, "turn", tuple(people))

    def _notice(
        self,
        loaded: Loaded,
        title: Text,
        lines: list[str],
        tone: str,
        mentions: tuple[User, ...] = (),
    ) -> Reply:
        """A message about a game outside its channel's flow (a reminder, a direct
        message), ending with a link to its board where there is one."""
        link = self.link(loaded.record)
        if link:
            lines = [*lines, str(t("The board: {link}", link=link))]
        return Reply(
            title=str(title),
            text="\n".join(lines),
            mentions=mentions,
            tone=tone,
            footer=self.footer(loaded.record),
        )

    def _board_controls(
        self, loaded: Loaded, acting: list[int], humans: list[int], private: bool
    ) -> tuple[tuple[Choice, ...], list[Choice]]:
        """The first choices of a move (when one person is to act), then the actions."""
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
        if not private:
            actions.append(Choice(self._payload(loaded, Action.RESIGN), str(t("Resign")), "danger"))
            follow = Payload(Action.FOLLOW, loaded.id, 0)
            actions.append(Choice(follow, str(t("Follow"))))
        return picks, actions

    def _score_fields(self, loaded: Loaded) -> tuple[tuple[str, str], ...]:
        if not loaded.game.has_scores:
            return ()
        scores = loaded.state.scores()
        return tuple(
            (self.seat_label(loaded, s.seat), _points(scores[s.seat])) for s in loaded.record.seats
        )

    def result_line(self, loaded: Loaded) -> str:
        """How the game ended and who won, in the reader's language, from the stored
        facts (and, for a game over by its rules, from its final position)."""
        result = loaded.record.result or GameResult(Ending.RULES)
        how = self.ending_sentence(loaded)
        if result.aborted:
            return str(
                t(
                    "Game aborted: {how} It ended before everyone had made a move, so it is "
                    "not rated.",
                    how=how,
                )
            )
        if loaded.record.status == "aborted":
            return str(t("Game over: {reason}", reason=how))
        if loaded.game.solo:
            return str(t("Game over. {reason}", reason=how))
        if result.ending is Ending.RULES:
            told = loaded.state.view(None).result_text(self.names(loaded))
            if told is not None:
                return str(t("Game over. {result}", result=told))
        if len(result.winners) == 1:
            verdict = t("{name} wins.", name=self.seat_label(loaded, result.winners[0]))
        else:
            verdict = t("It is a draw.")
        if not loaded.game.has_scores:
            return str(t("Game over. {reason} {verdict}", reason=how, verdict=verdict))
        scores = result.scores or tuple(loaded.state.scores())
        score_text = ", ".join(
            f"{self.seat_label(loaded, i)} {score}" for i, score in enumerate(scores)
        )
        return str(
            t(
                "Game over. {reason} Scores: {scores}. {verdict}",
                reason=how,
                scores=score_text,
                verdict=verdict,
            )
        )

    def ending_sentence(self, loaded: Loaded) -> Text:
        """A sentence saying how a finished game ended, naming the seats."""
        result = loaded.record.result or GameResult(Ending.RULES)
        labels = [self.seat_label(loaded, s.seat) for s in loaded.record.seats]
        outcome = loaded.state.outcome()
        return how_it_ended(result, labels, outcome.reason if outcome is not None else None)

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

    def footer(self, record: GameRecord) -> str:
        """The seed would let anyone foresee dice and hills: shown once a game is over
        (never for a daily run, whose hill others may still be playing)."""
        if record.is_live or record.kind == "daily":
            return str(t("Game {id}", id=record.id))
        return str(t("Game {id} · seed {seed}", id=record.id, seed=record.seed))

    # --- who is who -----------------------------------------------------------------------
    def names(self, loaded: Loaded) -> list[str]:
        """The players' names by seat. Computer players share the bot's name, so where
        there are several each gets a number ("hilltop 2"): those that sat down at the
        start in seat order, then those that took over from a player who resigned, so
        that no number changes hands during a game."""
        seats = loaded.record.seats
        later = [s for s in loaded.options.taken_over if seats[s].user.is_bot]
        computers = [s.seat for s in seats if s.user.is_bot and s.seat not in later] + later
        if len(computers) < 2:
            return [s.user.name for s in seats]
        return [
            f"{s.user.name} {computers.index(s.seat) + 1}" if s.user.is_bot else s.user.name
            for s in seats
        ]

    def seat_label(self, loaded: Loaded, seat: int) -> str:
        """Who sits in `seat`, with the seat's role (and, for a computer, its level)."""
        name = self.names(loaded)[seat]
        if loaded.game.solo:
            return name
        roles = loaded.game.seat_names
        # A seat's name is looked up in the catalogue like any text ("Black": "Czarne").
        fixed = str(Text(roles[seat])) if seat < len(roles) else str(seat + 1)
        now = loaded.state.seat_role(seat)
        role = str(now) if now is not None else fixed
        if loaded.record.seats[seat].user.is_bot:
            level = LEVEL_WORDS.get(loaded.options.level, loaded.options.level)
            return str(t("{name} ({role}, {level} computer)", name=name, role=role, level=level))
        return f"{name} ({role})"

    def started_line(self, loaded: Loaded) -> Text:
        seats = ", ".join(self.seat_label(loaded, s.seat) for s in loaded.record.seats)
        moves = loaded.options.from_record
        if moves is None:
            return t("The game begins: {seats}.", seats=seats)
        if moves == 0:
            return t("The game begins from the start of the record: {seats}.", seats=seats)
        return t(
            "The game continues from the record, after its move {n}: {seats}.", n=moves, seats=seats
        )

    def moved(
        self, before: Loaded, after: Loaded, seat: int, move: Any, name: str | None = None
    ) -> Happened:
        """A move as told publicly, naming the mover `name` (by default the seat's
        label): a decision made in secret stays secret."""
        name = name or self.seat_label(before, seat)
        if before.deciding_together:
            line = t("{name} has made their choice.", name=name)
            return Happened(line, after, secret=True, seat=seat)
        played = before.state.move_text(move)
        effect = before.state.view(None).move_effect(move)
        if effect is None:
            line = t("{name} played {move}.", name=name, move=played)
        else:
            line = t("{name} played {move}: {effect}.", name=name, move=played, effect=effect)
        return Happened(line, after, seat=seat)

    def pings(self, loaded: Loaded, before: frozenset[int], actors: set[int]) -> tuple[User, ...]:
        """Who to notify after a move: people newly asked to act, or, once the game is
        over, every person in it; never the seats in `actors`, who just acted."""
        record = loaded.record
        if record.status == "active":
            targets = set(loaded.state.to_act - before) - actors
        else:
            targets = {s.seat for s in record.seats} - actors
        acted = {s.user.id for s in record.seats if s.seat in actors}
        people: dict[int, User] = {}
        for s in record.seats:
            if s.seat in targets and not s.user.is_bot and s.user.id not in acted:
                people.setdefault(s.user.id, user_of(s.user))
        return tuple(people.values())

    # --- challenges -----------------------------------------------------------------------
    def challenge(
        self, record: GameRecord, game: Game[Any], extra: Text | None = None, *, edit: bool = False
    ) -> Reply:
        challenger = next(s.user for s in record.seats if s.user.id == record.created_by)
        pending = [s.user for s in record.seats if not s.accepted]
        lines = [
            str(
                t(
                    "{name} challenges {others} to {game}.",
                    name=challenger.name,
                    others=", ".join(u.name for u in pending),
                    game=game.name,
                )
            )
        ]
        if extra is not None:
            lines.insert(0, str(extra))
        lines.append(str(t("Accept or decline with the buttons (or /accept, /decline).")))
        return Reply(
            title=str(t("{game}: a challenge", game=game.name)),
            text="\n".join(lines),
            actions=(
                Choice(Payload(Action.ACCEPT, record.id, 0), str(t("Accept")), "success"),
                Choice(Payload(Action.DECLINE, record.id, 0), str(t("Decline")), "danger"),
            ),
            mentions=tuple(user_of(u) for u in pending),
            tone="turn",
            edit=edit,
            game_id=record.id,
        )

    def challenge_closed(self, game_id: int, reason: Text, *, edit: bool = False) -> Reply:
        """A challenge that needs no answer any more: its message, without buttons."""
        return Reply(
            title=str(t("Challenge closed")),
            text=str(reason),
            tone="over",
            edit=edit,
            game_id=game_id,
        )

    # --- the move builder -----------------------------------------------------------------
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
    def not_a_player(self, loaded: Loaded) -> Text:
        players = self.names(loaded)
        return tn(
            "You are not playing in this game ({players} is). Watch, or start your own "
            "game in another channel or thread.",
            "You are not playing in this game ({players} are). Watch, or start your own "
            "game in another channel or thread.",
            n=len(players),
            players=", ".join(players),
        )

    def not_your_turn(self, loaded: Loaded) -> Text:
        waiting = ", ".join(self.seat_label(loaded, s) for s in sorted(loaded.state.to_act))
        return t("It is not your turn: waiting for {names}.", names=waiting)

    def not_challenged(self, record: GameRecord, user: User) -> Text:
        pending = ", ".join(s.user.name for s in record.seats if not s.accepted)
        if any(s.user.id == user.id and s.accepted for s in record.seats):
            return t("You have already accepted; waiting for {names}.", names=pending)
        return t("This challenge is for {names}, not for you.", names=pending)

    def move_error(self, exc: MoveError) -> Text:
        return t(
            "{reason}\nSee /moves for your legal moves, or use the buttons on the board.",
            reason=str(exc.text),
        )


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
