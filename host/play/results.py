"""How games end: the result each ending builds, and the words a reader is given for it.

Every way a game ends builds a `GameResult` here (facts: winners, scores, how it ended,
who did it) and the database keeps it as it is. The words are made when a result is
shown, in the reader's language: a short line for lists (`bob beat alice · alice
resigned`), a sentence for the final board and the replay, and the tags of a record.

A game that ends off the board (resigned, a draw agreed, a win claimed on time, timed
out, ended by an admin) before every person in it has made a move is aborted: it is
recorded and listed, and never rated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from data.repository import GameRecord
from data.results import OFF_THE_BOARD, Actor, Ending, GameResult
from engine.core import Game, Outcome
from engine.text import Text, joined, t, tn
from host.model import User
from host.play.live import Loaded
from host.privacy.names import shown_name

#: A line's parts are joined with this (punctuation, not a word to translate).
PARTS = " · "


# --- the facts --------------------------------------------------------------------------
def by_rules(outcome: Outcome) -> GameResult:
    """A game over by its rules."""
    return GameResult(
        Ending.RULES, tuple(sorted(outcome.winners)), tuple(outcome.scores), code=outcome.code
    )


def ended(
    loaded: Loaded,
    ending: Ending,
    *,
    winners: Sequence[int] = (),
    by: Sequence[int] = (),
    actor: User | None = None,
) -> GameResult:
    """A game ended off the board (or a challenge closed) as it stands: its scores now,
    and whether it is aborted."""
    return GameResult(
        ending,
        tuple(sorted(winners)),
        tuple(loaded.state.scores()),
        tuple(by),
        aborted=ending in OFF_THE_BOARD and not everyone_moved(loaded),
        actor=Actor(actor.id, actor.name) if actor is not None else None,
    )


def timed_out(outcome: Outcome, seats: Sequence[int], loaded: Loaded) -> GameResult:
    """A game whose last move was a default played for `seats`, out of time."""
    return GameResult(
        Ending.TIMED_OUT,
        tuple(sorted(outcome.winners)),
        tuple(outcome.scores),
        tuple(seats),
        code=outcome.code,
        aborted=not everyone_moved(loaded),
    )


def everyone_moved(loaded: Loaded) -> bool:
    """Whether every seat a person holds has made a move of its own."""
    moved = set(loaded.movers)
    return all(s.seat in moved for s in loaded.record.seats if not s.user.is_bot)


# --- the words --------------------------------------------------------------------------
def list_names(game: Game[Any], record: GameRecord) -> list[str]:
    """Who sat in each seat, as a list shows them: people by name, a computer by its
    seat ("Hilltop (Blue)"), so that several computers are told apart."""
    result = record.result
    # The last person to resign from a larger game gave their seat to a computer.
    resigner = result.actor if result is not None and result.ending is Ending.RESIGNED else None
    names = []
    for seat in record.seats:
        if seat.left is not None:
            # A person who resigned from it: the game is theirs in the list, not the
            # computer's that took the seat over.
            names.append(shown_name(seat.left.name))
        elif resigner is not None and result is not None and seat.seat in result.by:
            names.append(shown_name(resigner.name))
        elif seat.user.is_bot and not game.solo and seat.seat < len(game.seat_names):
            role = Text(game.seat_names[seat.seat])
            names.append(str(t("{name} ({role})", name=seat.user.name, role=role)))
        else:
            names.append(shown_name(seat.user.name))
    return names


def how_it_ended(result: GameResult, labels: Sequence[str], reason: Text | None) -> Text:
    """A sentence saying how a game ended. `labels` names the seats; `reason` is what the
    rules said (from the final position), for a game over by its rules."""
    by: Text | str = joined([_label(labels, s) for s in result.by])
    actor = shown_name(result.actor.name) if result.actor is not None else None
    match result.ending:
        case Ending.RULES:
            return reason if reason is not None else t("The game ended by its rules.")
        case Ending.RESIGNED:
            by = actor if actor is not None else by
            if result.winners or len(labels) <= 2:
                return t("{name} resigned.", name=by)
            return t("{name} resigned, and nobody is left to play.", name=by)
        case Ending.AGREED_DRAW:
            if len(labels) == 2:
                return t("{a} and {b} agreed a draw.", a=labels[0], b=labels[1])
            return t("The players agreed a draw.")
        case Ending.CLAIMED:
            late = [_label(labels, s) for s in range(len(labels)) if s not in result.by]
            return t(
                "{late} ran out of time, and {name} claimed the win.",
                late=joined(late),
                name=by,
            )
        case Ending.TIMED_OUT:
            told = t("{names} ran out of time, and the default ended the game.", names=by)
            return told if reason is None else joined([told, reason], " ")
        case Ending.ADMIN:
            if actor is None:
                return t("An admin ended the game.")
            return t("Ended by {name}, an admin.", name=actor)
        case Ending.HILL_CLOSED:
            return t("The hill closed before the run was over; it was scored as it stood.")
        case Ending.DECLINED:
            if actor is None:
                return t("The challenge was declined.")
            return t("{name} declined the challenge.", name=actor)
        case Ending.WITHDRAWN:
            if actor is None:
                return t("The challenge was withdrawn.")
            return t("{name} withdrew the challenge.", name=actor)
        case Ending.EXPIRED:
            return t("The challenge expired: nobody answered within a day.")


def short_line(game: Game[Any], result: GameResult, labels: Sequence[str]) -> Text:
    """Who won, and how, in a few words: `bob beat alice · alice resigned`, `draw agreed`,
    `aborted · alice resigned`."""
    how = _how_briefly(game, result, labels)
    if result.aborted:
        return joined([t("aborted"), how] if how is not None else [t("aborted")], PARTS)
    if result.ending is Ending.AGREED_DRAW:
        return t("draw agreed")
    if result.ending is Ending.ADMIN or result.ending not in (*OFF_THE_BOARD, Ending.RULES):
        return how if how is not None else t("ended")
    if len(result.winners) == 1:
        winner = _label(labels, result.winners[0])
        losers = [_label(labels, s) for s in range(len(labels)) if s not in result.winners]
        if len(labels) == 2:
            verdict = t("{winner} beat {loser}", winner=winner, loser=losers[0])
        else:
            verdict = t("{winner} won", winner=winner)
    elif game.solo:
        verdict = tn("{n} point", "{n} points", n=result.scores[0] if result.scores else 0)
    elif result.winners:
        verdict = t("{winners} won", winners=joined([_label(labels, s) for s in result.winners]))
    else:
        verdict = t("draw")
    return joined([verdict, how] if how is not None else [verdict], PARTS)


def result_tag(game: Game[Any], result: GameResult) -> str:
    """A record's Result tag, as short as a chess record's: `1-0`, `0-1`, `½-½`, one
    figure per seat in larger games, the score of a solo game; `*` for an aborted game."""
    if result.aborted or result.ending not in (*OFF_THE_BOARD, Ending.RULES):
        return "*"
    if game.solo:
        return str(result.scores[0]) if result.scores else "*"
    seats = max(len(result.scores), 2)
    if not result.winners:
        return "-".join("½" for _ in range(seats))
    return "-".join("1" if s in result.winners else "0" for s in range(seats))


def _how_briefly(game: Game[Any], result: GameResult, labels: Sequence[str]) -> Text | None:
    """How it ended, as the second part of a short line (None: the scores say enough)."""
    by: Text | str = joined([_label(labels, s) for s in result.by])
    if result.ending is Ending.RESIGNED and result.actor is not None:
        by = shown_name(result.actor.name)
    match result.ending:
        case Ending.RULES:
            if not game.has_scores or game.solo or not result.scores:
                return None
            ranked = sorted(result.scores, reverse=True)
            return Text("-".join(str(s) for s in ranked)) if ranked else None
        case Ending.RESIGNED:
            return t("{name} resigned", name=by)
        case Ending.AGREED_DRAW:
            return t("draw agreed")
        case Ending.CLAIMED:
            return t("won on time")
        case Ending.TIMED_OUT:
            return t("{names} ran out of time", names=by)
        case Ending.ADMIN:
            return t("ended by an admin")
        case _:
            return how_it_ended(result, labels, None)


def _label(labels: Sequence[str], seat: int) -> str:
    return labels[seat] if 0 <= seat < len(labels) else str(seat + 1)
