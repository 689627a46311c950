"""What people read of events, in the reader's language: the announcement with its Join
button, a round's post, the standings, the pairings, a server's list of events, and the
line under a game that counts. Nothing here is stored: events keep facts, and the words
are made when shown."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from data.events import EventRecord, TableRecord, WholeEvent
from engine.text import Text, t, tn
from host.events.rounds import (
    cup_table,
    entrants_of,
    planned_rounds,
    results_of,
    table_standings,
)
from host.events.standings import crosstable
from host.i18n import number
from host.model import Choice, Reply, User
from host.payloads import Action, Payload
from host.play.live import game_of
from host.privacy.names import shown_name

#: Standings rows on one page of a post.
ROWS = 20
#: A crosstable is drawn in a post for this many players at most (a wider one would not
#: fit a phone; the web page and the CSV export have it whole).
CROSSTABLE_MOST = 12
#: Players a post pings itself; more are pinged by messages of their own after it.
MENTIONS_MOST = 20
#: Tables a post lists (a post's text is at most 4,096 characters); the rest are counted,
#: and every one is on the web page and in the CSV export.
TABLES_MOST = 40
#: Entrants an announcement names.
NAMES_MOST = 60
_FRACTIONS = {Fraction(1, 2): "½", Fraction(1, 3): "⅓", Fraction(2, 3): "⅔"}


def event_name(event: EventRecord) -> str:
    """The name an admin gave the event, else its game and format, with its number."""
    if event.name:
        return event.name
    game = game_of(event.game).name
    return str(
        t("{game} {format} #{id}", game=game, format=format_words(event.format), id=event.id)
    )


def format_words(format_id: str) -> Text:
    """A format's name (`data.events.FORMATS`)."""
    if format_id == "cup":
        return t("cup")
    if format_id == "round-robin":
        return t("round robin")
    if format_id == "double-round-robin":
        return t("double round robin")
    return t("Swiss")


def points(value: Fraction) -> str:
    """Points as players write them: 2½, 1⅔, 0; other fractions (shared places of a
    table) to two decimals."""
    whole, part = divmod(value, 1)
    if part == 0:
        return number(int(whole))
    glyph = _FRACTIONS.get(part)
    if glyph is not None:
        return (number(int(whole)) if whole else "") + glyph
    return number(float(value), decimals=2)


def _what(event: EventRecord, entrants: int) -> str:
    """One line on how the event is played."""
    game = game_of(event.game).name
    parts = [game, str(format_words(event.format))]
    if event.format == "swiss":
        rounds = event.rounds or (planned_rounds(event, entrants) if event.round else None)
        parts.append(
            str(tn("{n} round", "{n} rounds", n=rounds))
            if rounds
            else str(t("rounds enough to find a winner"))
        )
    if event.table_size > 2:
        parts.append(str(t("tables of {n}", n=event.table_size)))
    if event.deadline_minutes:
        hours, minutes = divmod(event.deadline_minutes, 60)
        span = f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"
        if event.format == "cup":
            parts.append(str(t("open for {span}", span=span)))
        else:
            parts.append(str(t("{span} a move", span=span)))
    return " · ".join(parts)


def state_words(event: EventRecord) -> str:
    if event.state == "open":
        return str(t("open for entries"))
    if event.state == "running" and event.closes_at is not None:
        return str(t("closes {when}", when=f"<t:{int(event.closes_at)}:R>"))
    if event.state == "running":
        return str(t("round {round} of {rounds}", round=event.round, rounds=event.rounds or "?"))
    if event.state == "ended":
        return str(t("stopped by an admin"))
    return str(t("finished"))


def join_button(event: EventRecord) -> Choice:
    return Choice(Payload(Action.EVENT_JOIN, event.id, 0), str(t("Join")), "success")


def standings_button(event: EventRecord, page: int = 0, label: str | None = None) -> Choice:
    return Choice(
        Payload(Action.EVENT_STANDINGS, event.id, page), label or str(t("Standings")), "secondary"
    )


def announcement(whole: WholeEvent, *, edit: bool = False, note: Text | None = None) -> Reply:
    """The event as it fills: how it is played, who is in, and how to join."""
    event = whole.event
    entered = [shown_name(e.user.name) for e in whole.entrants]
    lines = [_what(event, len(entered))]
    if note is not None:
        lines.insert(0, str(note))
    lines.append(
        str(
            tn(
                "{n} entered: {names}",
                "{n} entered: {names}",
                n=len(entered),
                names=", ".join(entered[:NAMES_MOST]) + (" …" if len(entered) > NAMES_MOST else ""),
            )
        )
        if entered
        else str(t("Nobody has entered yet."))
    )
    lines.append(
        str(
            t(
                "Join with the button or /tournament join id:{id}; an admin starts it with "
                "/tournament start id:{id}.",
                id=event.id,
            )
        )
    )
    return Reply(
        title=str(t("{name}: entries open", name=event_name(event))),
        text="\n".join(lines),
        actions=(join_button(event), standings_button(event)) if event.is_live else (),
        footer=str(t("Tournament #{id}", id=event.id)),
        edit=edit,
    )


def thread_name(event: EventRecord, round_: int, names: Sequence[str]) -> str:
    """A game's thread: the event, the round and the players (Discord allows 100
    characters)."""
    players = " v ".join(names) if len(names) > 1 else names[0]
    return f"{event_name(event)} · R{round_} · {players}"[:100]


def round_post(whole: WholeEvent, round_: int, people: dict[int, User]) -> Reply:
    """A round's start in the event's channel: each table's players and game, the byes,
    and everyone playing pinged."""
    event = whole.event
    lines = _at_most([_table_line(whole, table, people) for table in whole.round_tables(round_)])
    playing = [
        people[s.user_id]
        for table in whole.round_tables(round_)
        if not table.bye and table.decided_at is None
        for s in table.seats
        if s.user_id in people
    ]
    mentions = tuple(playing[:MENTIONS_MOST]) if len(playing) <= MENTIONS_MOST else ()
    followers = tuple(playing) if len(playing) > MENTIONS_MOST else ()
    return Reply(
        title=str(
            t(
                "{name}: round {round} of {rounds}",
                name=event_name(event),
                round=round_,
                rounds=event.rounds or "?",
            )
        ),
        text="\n".join(lines) + "\n\n" + _where_to_play(event) + _away_note(event),
        mentions=mentions,
        followers=followers,
        actions=(standings_button(event),),
        tone="turn",
        footer=str(t("Tournament #{id}", id=event.id)),
    )


def _where_to_play(event: EventRecord) -> str:
    if event.format == "cup" and event.closes_at is not None:
        return str(
            t(
                "Your run is in its own thread: the same hill for everyone; the cup closes "
                "{when}, and a run not over by then counts as it stands.",
                when=f"<t:{int(event.closes_at)}:R>",
            )
        )
    return str(t("Your game is in its own thread; the deadline of each move is on its board."))


def _away_note(event: EventRecord) -> str:
    """Where a tournament keeps its clocks running for players away, its round says so."""
    if event.away:
        return ""
    return " " + str(t("Away time does not stop this tournament's clocks."))


def _at_most(lines: list[str]) -> list[str]:
    """The first `TABLES_MOST` lines, and how many more there are."""
    if len(lines) <= TABLES_MOST:
        return lines
    more = len(lines) - TABLES_MOST
    return [*lines[:TABLES_MOST], str(tn("… and {n} more table", "… and {n} more tables", n=more))]


def _table_line(whole: WholeEvent, table: TableRecord, people: dict[int, User]) -> str:
    names = [_name(whole, s.user_id, people) for s in table.seats]
    if table.bye:
        return str(t("Bye: {name} (worth a win)", name=names[0]))
    where = f" <#{table.thread_id}>" if table.thread_id else ""
    if whole.event.format == "cup":
        return str(t("{name}'s run", name=names[0])) + where
    players = " – ".join(names)
    if table.decided_at is not None:
        result = _result_words(table)
        return str(
            t(
                "Board {board}: {players} · {result}",
                board=table.board,
                players=players,
                result=result,
            )
        )
    return str(t("Board {board}: {players}", board=table.board, players=players)) + where


def _result_words(table: TableRecord) -> str:
    places = [s.place for s in table.seats]
    if len(places) == 2 and places[0] == places[1]:
        text = "½–½"
    elif len(places) == 2:
        text = "1–0" if places[0] == 1 else "0–1"
    else:
        text = " ".join(str(p) for p in places)
    return text + (" " + str(t("(forfeit)")) if table.forfeit else "")


def _name(whole: WholeEvent, user_id: int, people: dict[int, User]) -> str:
    person = people.get(user_id)
    if person is not None:
        return person.name
    return next((shown_name(e.user.name) for e in whole.entrants if e.user.id == user_id), "?")


def people_of(whole: WholeEvent) -> dict[int, User]:
    return {e.user.id: User(e.user.id, shown_name(e.user.name)) for e in whole.entrants}


def standings_reply(whole: WholeEvent, page: int = 0, *, edit: bool = False) -> Reply:
    """A page of the standings, with the crosstable of a round robin small enough."""
    event = whole.event
    if event.format == "cup":
        runs = cup_table(whole)
        lines = [
            f"{r.rank:>3} {r.name[:16]:<16} "
            + (f"{r.score:>5} {r.turns:>4}" if r.score is not None else str(t("not finished")))
            for r in runs
        ]
        player, score, turns = str(t("Player")), str(t("Score")), str(t("Turns"))
        header = f"{'#':>3} {player[:16]:<16} {score:>5} {turns:>4}"
        return _paged(whole, header, lines, page, edit)
    rows = table_standings(whole)
    # Column heads, outside the f-string, where the catalogue finds them.
    player, pts, buchholz = str(t("Player")), str(t("Pts")), str(t("BH-C1"))
    sonneborn, direct = str(t("SB")), str(t("DE"))
    header = f"{'#':>3} {player[:16]:<16} {pts:>5} {buchholz:>6} {sonneborn:>6} {direct:>4}"
    lines = [
        f"{r.rank:>3} {(r.name if r.playing else r.name + ' ×')[:16]:<16} {points(r.points):>5}"
        f" {points(r.buchholz_cut1):>6} {points(r.sonneborn_berger):>6}"
        f" {points(r.direct) if r.direct is not None else '':>4}"
        for r in rows
    ]
    reply = _paged(whole, header, lines, page, edit)
    if event.format != "swiss" and 1 < len(rows) <= CROSSTABLE_MOST and page == 0:
        results, byes = results_of(whole)
        cross = crosstable(entrants_of(whole), results, byes)
        width = max(len(r.name[:10]) for r in rows)
        numbers = " ".join(f"{i:>3}" for i in range(1, len(rows) + 1))
        drawn = [f"{'':>2} {'':<{width}} {numbers}"] + [
            f"{i:>2} {r.name[:10]:<{width}} " + " ".join(f"{c or '·':>3}" for c in cells)
            for i, (r, cells) in enumerate(zip(rows, cross, strict=False), start=1)
        ]
        reply = Reply(
            title=reply.title,
            text=reply.text + "\n" + "```\n" + "\n".join(drawn) + "\n```",
            actions=reply.actions,
            footer=reply.footer,
            edit=edit,
        )
    return reply


def _paged(whole: WholeEvent, header: str, lines: list[str], page: int, edit: bool) -> Reply:
    event = whole.event
    pages = max(1, -(-len(lines) // ROWS))
    page = min(max(page, 0), pages - 1)
    shown = lines[page * ROWS : (page + 1) * ROWS]
    body = (
        "```\n" + "\n".join([header, *shown]) + "\n```"
        if shown
        else str(t("Nobody has entered yet."))
    )
    actions: list[Choice] = []
    if page > 0:
        actions.append(standings_button(event, page - 1, str(t("◀ Previous"))))
    if page + 1 < pages:
        actions.append(standings_button(event, page + 1, str(t("Next ▶"))))
    footer = str(t("Tournament #{id} · {state}", id=event.id, state=state_words(event)))
    if pages > 1:
        footer += " · " + str(t("page {page} of {pages}", page=page + 1, pages=pages))
    if event.format != "cup":
        footer += "\n" + str(
            t(
                "Pts points · BH-C1 Buchholz cut 1 · SB Sonneborn-Berger · DE direct "
                "encounter · × out"
            )
        )
    return Reply(
        title=str(t("{name}: standings", name=event_name(event))),
        text=_what(event, len(whole.entrants)) + "\n" + body,
        actions=tuple(actions),
        footer=footer,
        edit=edit,
    )


def pairings_reply(whole: WholeEvent, round_: int) -> Reply:
    event = whole.event
    people = people_of(whole)
    lines = _at_most([_table_line(whole, table, people) for table in whole.round_tables(round_)])
    return Reply(
        title=str(t("{name}: round {round}", name=event_name(event), round=round_)),
        text="\n".join(lines) or str(t("No tables in this round.")),
        footer=str(t("Tournament #{id} · {state}", id=event.id, state=state_words(event))),
        actions=(standings_button(event),),
    )


def list_reply(events: Sequence[EventRecord]) -> Reply:
    lines = [
        f"#{e.id} {event_name(e)} · {format_words(e.format)!s} · {state_words(e)}" for e in events
    ]
    return Reply(
        title=str(t("Tournaments here")),
        text="\n".join(lines)
        or str(t("No tournaments here yet. An admin makes one with /tournament create.")),
    )


def counted(event: EventRecord, table: TableRecord, absent: Sequence[str]) -> Reply:
    """Under a game's final board: that it counts for the event, and who is out."""
    lines = [
        str(
            t(
                "This game counts for {name}, round {round}: {result}.",
                name=event_name(event),
                round=table.round,
                result=_result_words(table),
            )
        )
    ]
    for name in absent:
        lines.append(
            str(
                t(
                    "{name} lost without moving and is out of later rounds; "
                    "/tournament join id:{id} enters them again.",
                    name=name,
                    id=event.id,
                )
            )
        )
    return Reply(text="\n".join(lines), actions=(standings_button(event),))


def final_post(whole: WholeEvent) -> Reply:
    """The event is over: the final standings."""
    reply = standings_reply(whole)
    return Reply(
        title=str(t("{name}: final standings", name=event_name(whole.event))),
        text=reply.text,
        footer=reply.footer,
        tone="over",
    )
