"""Games told to their channel a round at a time (`Game.told_in_rounds`: Everest).

A round of such a game is many decisions: every seat's secret plan, then the choices the
plans set off (a roll-off's pick, which roarer to answer, which coins to set aside). Told
move by move, it floods the channel. So the channel gets one post per round, when the
round ends, telling it whole: each plan, revealed, then every step it set off, with one
picture of the board. Inside a round, a reply is private to the person whose move it
answers: their choice acknowledged, or the next choice asked of them with the round so
far. People asked to choose by someone else's move (or a computer's) are pinged with a
short post whose button opens their choice privately.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from data.repository import GameRecord
from engine.text import Text, t
from host.model import Choice, Reply, User
from host.payloads import Action, Payload
from host.play.live import Loaded, Played


class Happened(Protocol):
    """One thing a reply tells (`host.present.presenter.Happened`)."""

    @property
    def line(self) -> Text: ...

    @property
    def after(self) -> Loaded | None: ...

    @property
    def seat(self) -> int | None: ...


class Presenter(Protocol):
    """What telling a round needs of the presenter (`host.present.presenter.Presenter`)."""

    def names(self, loaded: Loaded) -> list[str]: ...

    def seat_label(self, loaded: Loaded, seat: int) -> str: ...

    def waiting_line(self, loaded: Loaded) -> str: ...

    def clock_lines(
        self, loaded: Loaded, humans: list[int], away: Mapping[int, float] | None = None
    ) -> list[str]: ...

    def footer(self, record: GameRecord) -> str: ...

    async def builder(
        self,
        loaded: Loaded,
        seat: int,
        prefix: tuple[str, ...],
        edit: bool,
        group: str | None = None,
    ) -> Reply: ...


def closes_a_round(happened: Happened) -> bool:
    """Whether the move `happened` tells ended its round (or the game)."""
    after = happened.after
    if after is None or not after.story:
        return False
    last = after.story[-1]
    return last.closes_round and last.after is after.state


def inside_a_round(loaded: Loaded, told: Sequence[Happened]) -> bool:
    """Whether a reply tells moves inside a round only: it opens with a move (not with a
    line of its own, such as the game beginning or a player resigning), no move of it
    ended a round, and the game goes on."""
    return (
        loaded.record.status == "active"
        and bool(told)
        and told[0].after is not None
        and not any(closes_a_round(h) for h in told)
    )


def round_so_far(loaded: Loaded) -> tuple[Played, ...]:
    """The moves of the round in progress, once its plans are revealed (nothing while
    the seats plan: plans are secret until all are in)."""
    if loaded.state.planning or not loaded.story or loaded.story[-1].closes_round:
        return ()
    return loaded.story


def story_lines(presenter: Presenter, loaded: Loaded, story: Sequence[Played]) -> list[str]:
    """A round told in words: the plans, revealed (once all are in), then what each move
    of the round set off, in order."""
    if not story:
        return []
    names = presenter.names(loaded)
    first_round = story[0].before.round_number
    plans = [p for p in story if p.before.planning and p.before.round_number == first_round]
    lines: list[str] = []
    if plans and (not plans[-1].after.planning or plans[-1].closes_round):
        shown = "; ".join(
            f"{presenter.seat_label(loaded, p.seat)}: {p.before.move_text(p.move)}"
            for p in sorted(plans, key=lambda p: p.seat)
        )
        lines.append(str(t("Round {round}. Plans: {plans}.", round=first_round, plans=shown)))
    for played in story:
        # Every secret in these states is revealed by now: the plans are all in.
        lines += [str(line) for line in played.after.report(played.before, names)]
    return lines


def retold(presenter: Presenter, loaded: Loaded, told: Sequence[Happened]) -> list[str]:
    """What a public post of such a game says of `told`: each round ended in it, whole;
    lines that are no move (the game begins, someone is thinking), and those of moves no
    seat chose (a default played at a deadline), as they are. The moves of a round not
    ended here are told when it ends."""
    lines: list[str] = []
    for happened in told:
        if happened.after is None or happened.seat is None:
            lines.append(str(happened.line))
        if happened.after is not None and closes_a_round(happened):
            lines += story_lines(presenter, loaded, happened.after.story)
    return lines


def _actors(loaded: Loaded, told: Sequence[Happened]) -> list[int]:
    """The people's seats whose moves `told` tells, in order."""
    seats = loaded.record.seats
    found: list[int] = []
    for happened in told:
        seat = happened.seat
        if seat is not None and not seats[seat].user.is_bot and seat not in found:
            found.append(seat)
    return found


async def within_round(
    presenter: Presenter, loaded: Loaded, told: Sequence[Happened], pings: tuple[User, ...]
) -> Reply | None:
    """The reply to moves inside a round (see the module's docstring); None when it is
    news for nobody in particular (the board is shown then)."""
    if pings:
        return asked(presenter, loaded, pings)
    actors = _actors(loaded, told)
    choosing = [s for s in actors if s in loaded.state.to_act]
    if choosing:
        return await presenter.builder(loaded, choosing[0], (), edit=False)
    if actors:
        lines = [str(h.line) for h in told if h.after is None or h.seat in actors]
        lines.append(presenter.waiting_line(loaded))
        lines += presenter.clock_lines(loaded, _people_acting(loaded))
        return Reply(
            title=str(t("{game} · round {round}", game=loaded.game.name, round=_round(loaded))),
            text="\n".join(lines),
            ephemeral=True,
        )
    return None


def asked(presenter: Presenter, loaded: Loaded, people: Sequence[User]) -> Reply:
    """A short post for people asked to choose inside a round: it pings them, and its
    button opens their choice privately (nobody else's choice is theirs to make)."""
    record = loaded.record
    ids = {person.id for person in people}
    seats = [s.seat for s in record.seats if s.user.id in ids and s.seat in loaded.state.to_act]
    names = ", ".join(presenter.seat_label(loaded, s) for s in seats)
    lines = [
        str(
            t(
                "Round {round} waits for your choice, {names}: open it with the button.",
                round=_round(loaded),
                names=names,
            )
        ),
        *presenter.clock_lines(loaded, seats),
    ]
    choose = Payload(Action.OPEN, record.id, record.ply)
    return Reply(
        title=str(t("{game} · round {round}", game=loaded.game.name, round=_round(loaded))),
        text="\n".join(lines),
        actions=(Choice(choose, str(t("Make my choice")), "primary"),),
        mentions=tuple(people),
        game_id=record.id,
        tone="turn",
        footer=presenter.footer(record),
    )


def _people_acting(loaded: Loaded) -> list[int]:
    seats = loaded.record.seats
    return [s for s in sorted(loaded.state.to_act) if not seats[s].user.is_bot]


def nothing_to_post(loaded: Loaded, told: Sequence[Happened], pings: tuple[User, ...]) -> bool:
    """Whether moves made outside any command (computers, in the background) are news
    for nobody yet: inside a round, with nobody newly asked to choose."""
    return loaded.game.told_in_rounds and not pings and inside_a_round(loaded, told)


def _round(loaded: Loaded) -> int:
    return loaded.state.round_number or 0
