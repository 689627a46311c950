"""The words of a game in play that every reply shares: who the seats are, who must act
and by when, how it ended, and the refusals that name the players."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from data.repository import GameRecord, SeatRecord
from data.results import Ending, GameResult
from engine.text import Text, t
from host import i18n
from host.model import User
from host.play import seats
from host.play.live import Loaded, user_of
from host.play.results import how_it_ended
from host.privacy.names import shown_name
from host.setup import GameOptions


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


def move_number(record: GameRecord) -> int:
    """The move a game is at as its titles count it ("Hokito · move 5"). A game started
    from a record (`/play record: ply:`) goes on from that record's move: its first board
    says it continues after the record's move N, so its titles count from N too."""
    start = GameOptions.from_stored(record.options).from_record
    return record.ply + (start or 0)


def board_title(loaded: Loaded) -> Text:
    """A board's title: the move the game is at ("Hokito · move 5"), or for a game told
    a round at a time the round ("Everest · round 1"): its moves are plans made together
    in secret, so counting them would number a first board by the computers' plans."""
    number = loaded.state.round_number if loaded.game.told_in_rounds else None
    if number:
        return t("{game} · round {round}", game=loaded.game.name, round=number)
    return t("{game} · move {n}", game=loaded.game.name, n=move_number(loaded.record))


class Words:
    """Sentences about a game, from its record and state alone."""

    def waiting_line(self, loaded: Loaded) -> str:
        """Who the game waits for: still planning, in secret, or to move."""
        acting = sorted(loaded.state.to_act)
        names = ", ".join(self.seat_label(loaded, s) for s in acting)
        if loaded.state.planning:
            return str(t("Still planning: {names}.", names=names))
        if len(acting) == 1:
            return str(t("{names} to move.", names=names))
        return str(t("Waiting for: {names}.", names=names))

    def clock_lines(
        self, loaded: Loaded, humans: list[int], away: Mapping[int, float] | None = None
    ) -> list[str]:
        """When the pending decision runs out, and what happens then; for a player who is
        away (`away`: by user id, when they are back), that their time is stopped."""
        record, state = loaded.record, loaded.state
        gone = [
            (record.seats[s].user.name, (away or {})[record.seats[s].user.id])
            for s in humans
            if record.seats[s].user.id in (away or {})
        ]
        if gone:
            return [
                str(
                    t(
                        "{name} is away until {day}: their time is stopped.",
                        name=name,
                        day=i18n.day(until),
                    )
                )
                for name, until in gone
            ]
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
                        others=", ".join(shown_name(s.user.name) for s in others),
                    )
                )
            ]
        if record.expired_at is not None:
            late = ", ".join(self.seat_label(loaded, s) for s in humans)
            claiming = ", ".join(shown_name(s.user.name) for s in self.claimants(loaded))
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

    def footer(self, record: GameRecord) -> str:
        """The seed would let anyone foresee dice and hills: shown once a game is over
        (never for a daily run, whose hill others may still be playing)."""
        if record.is_live or record.kind == "daily":
            return str(t("Game {id}", id=record.id))
        return str(t("Game {id} · seed {seed}", id=record.id, seed=record.seed))

    # --- who is who -----------------------------------------------------------------------

    def names(self, loaded: Loaded) -> list[str]:
        return seats.names(loaded)

    def seat_label(self, loaded: Loaded, seat: int) -> str:
        return seats.seat_label(loaded, seat)

    def claimants(self, loaded: Loaded) -> list[SeatRecord]:
        return seats.claimants(loaded)

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
