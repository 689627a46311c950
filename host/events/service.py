"""Tournaments by command: made, entered, left, started, ended, and read (standings,
pairings, a server's list, exports). An admin makes an event in a channel and starts it;
from then on it runs by itself (`host.events.running`)."""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, replace

from data.events import FORMATS, EntrantState, EventRecord, NewEvent
from engine.text import t, tn
from host.events import rounds, words
from host.events.export import EventFacts, csv_table, cup_csv, trf16
from host.events.running import Running, record_in
from host.model import Channel, Reply, ServiceError, User
from host.payloads import Payload
from host.play.live import game_of, record_of, user_of
from host.play.playing import EndByAdmin, Resign
from host.setup import MAX_DEADLINE_MINUTES

log = logging.getLogger(__name__)

#: A cup stays open this long unless its admin says otherwise (deadline:, in minutes).
CUP_MINUTES = 3 * 24 * 60
#: The longest name an event may be given.
NAME_MOST = 60
ADMINS_ONLY = t("Only server admins (Manage Server permission) can do that.")


@dataclass(frozen=True, slots=True)
class EventSetup:
    """An event as an admin asked for it, before it is checked. None: the default."""

    game: str
    format: str
    rounds: int | None = None
    deadline_minutes: int | None = None
    name: str | None = None
    table: int | None = None
    #: Away time stops the clocks of its games (a tournament may say no).
    away: bool = True


class Events:
    def __init__(self, running: Running) -> None:
        #: What runs the events by themselves (and the finish hook and clock it lends).
        self.running = running
        self.repository = running.repository
        self.clock = running.clock

    # --- commands -------------------------------------------------------------------------
    async def create(self, channel: Channel, user: User, setup: EventSetup) -> list[Reply]:
        """`/tournament create`: an event in this channel, open for entries."""
        guild_id = _in_server(channel)
        if not user.is_admin:
            raise ServiceError(ADMINS_ONLY)
        game = game_of(setup.game)
        if setup.format not in FORMATS:
            raise ServiceError(
                t(
                    "format: {format!r} is not a format; use {known}.",
                    format=setup.format,
                    known=", ".join(FORMATS),
                )
            )
        cup = setup.format == "cup"
        if game.solo != cup:
            raise ServiceError(
                t("{game} is played alone: its tournament is a cup (format:cup).", game=game.name)
                if game.solo
                else t(
                    "A cup is for a game played alone (Hillbert); {game} is not.", game=game.name
                )
            )
        table = setup.table if setup.table is not None else (1 if cup else game.max_players)
        if not cup and not game.min_players <= table <= game.max_players:
            raise ServiceError(
                t(
                    "table: {game} is played by {low} to {high} players, not {n}.",
                    game=game.name,
                    low=game.min_players,
                    high=game.max_players,
                    n=table,
                )
            )
        if cup and table != 1:
            raise ServiceError(t("table: a cup's runs are played alone; leave table out."))
        if table > 2 and setup.format != "swiss":
            raise ServiceError(
                t(
                    "table: a round robin is played in games of two; tables of {n} play a Swiss.",
                    n=table,
                )
            )
        if setup.rounds is not None:
            if setup.format != "swiss":
                raise ServiceError(
                    t(
                        "rounds: only a Swiss is given its rounds; leave rounds out for a "
                        "{format}.",
                        format=words.format_words(setup.format),
                    )
                )
            if not 1 <= setup.rounds <= rounds.MAX_ROUNDS:
                raise ServiceError(
                    t(
                        "rounds: give 1 to {most} rounds, not {n}.",
                        most=rounds.MAX_ROUNDS,
                        n=setup.rounds,
                    )
                )
        if (
            setup.deadline_minutes is not None
            and not 1 <= setup.deadline_minutes <= MAX_DEADLINE_MINUTES
        ):
            raise ServiceError(
                t(
                    "deadline: give 1 to {most} minutes, not {n}.",
                    most=MAX_DEADLINE_MINUTES,
                    n=setup.deadline_minutes,
                )
            )
        name = " ".join((setup.name or "").split()) or None
        if name is not None and len(name) > NAME_MOST:
            raise ServiceError(t("name: {n} characters at most.", n=NAME_MOST))
        event = await self.repository.create(
            NewEvent(
                guild_id=guild_id,
                channel_id=channel.channel_id,
                game=game.id,
                format=setup.format,
                name=name,
                table_size=table,
                rounds=setup.rounds,
                deadline_minutes=setup.deadline_minutes,
                seed=secrets.randbits(48),
                created_by=record_of(user),
                away=setup.away,
            ),
            self.clock(),
        )
        return [words.announcement(await self.running.whole(event.id))]

    async def join(self, channel: Channel, user: User, event_id: int | None = None) -> list[Reply]:
        """`/tournament join`: enter an open event (or come back after a game not moved in)."""
        event = await self._pick(channel, event_id)
        return await self._join(event, user, edit=False)

    async def _join(self, event: EventRecord, user: User, *, edit: bool) -> list[Reply]:
        if user.is_bot:
            raise ServiceError(t("Computer players do not enter tournaments."))
        whole = await self.running.whole(event.id)
        mine = next((e for e in whole.entrants if e.user.id == user.id), None)
        name = words.event_name(event)
        if event.state in ("finished", "ended"):
            raise ServiceError(t("{name} is over.", name=name))
        if mine is not None and not (event.state == "running" and mine.state == "absent"):
            if mine.state in ("left", "removed"):
                raise ServiceError(t("You are out of {name} and cannot enter it again.", name=name))
            raise ServiceError(t("You are already entered in {name}.", name=name))
        if mine is None and event.state != "open":
            raise ServiceError(t("{name} has started: entries are closed.", name=name))
        if mine is None and len(whole.entrants) >= rounds.MAX_ENTRANTS:
            raise ServiceError(
                t("{name} is full ({n} entrants).", name=name, n=rounds.MAX_ENTRANTS)
            )
        if not await self.repository.join(event.id, record_of(user), self.clock()):
            raise ServiceError(
                t("{name} changed meanwhile; look again with /tournament standings.", name=name)
            )
        if mine is not None:
            return [
                Reply(
                    text=str(
                        t(
                            "You are back in {name}: you are paired again from the next round.",
                            name=name,
                        )
                    )
                )
            ]
        whole = await self.running.whole(event.id)
        joined = t("{user} joined.", user=user.name)
        return [words.announcement(whole, edit=edit, note=joined)]

    async def leave(self, channel: Channel, user: User, event_id: int | None = None) -> list[Reply]:
        """`/tournament leave`: leave an event; a game in play is resigned."""
        event = await self._pick(channel, event_id)
        return await self._take_out(event, user, "left", by=user)

    async def remove(
        self, channel: Channel, user: User, player: User, event_id: int | None = None
    ) -> list[Reply]:
        """`/tournament remove player:` (admins): take a player out; a game in play is
        resigned for them."""
        if not user.is_admin:
            raise ServiceError(ADMINS_ONLY)
        event = await self._pick(channel, event_id)
        return await self._take_out(event, player, "removed", by=user)

    async def _take_out(
        self, event: EventRecord, player: User, state: EntrantState, *, by: User
    ) -> list[Reply]:
        name = words.event_name(event)
        whole = await self.running.whole(event.id)
        entrant = next((e for e in whole.entrants if e.user.id == player.id), None)
        if entrant is None or entrant.state in ("left", "removed"):
            raise ServiceError(
                t("You are not entered in {name}.", name=name)
                if by.id == player.id
                else t("{player} is not entered in {name}.", player=player.name, name=name)
            )
        if not event.is_live:
            raise ServiceError(t("{name} is over.", name=name))
        if not await self.repository.leave(event.id, player.id, state):
            raise ServiceError(
                t("{name} changed meanwhile; look again with /tournament standings.", name=name)
            )
        replies: list[Reply] = []
        for table in whole.round_tables(event.round):
            if (
                table.game_id is not None
                and table.decided_at is None
                and player.id in table.user_ids
            ):
                replies += await self.running.in_thread(
                    table, Resign(user_of(record_in(whole, player.id)))
                )
        told = (
            t("{player} left {name}.", player=player.name, name=name)
            if by.id == player.id
            else t(
                "{admin} took {player} out of {name}.", admin=by.name, player=player.name, name=name
            )
        )
        later = (
            t("Their results stand; they are not paired again.")
            if event.state == "running"
            else t("")
        )
        reply = Reply(text=" ".join(p for p in (str(told), str(later)) if p))
        return [reply, *await self.running.deliver(replies)]

    async def start(self, channel: Channel, user: User, event_id: int | None = None) -> list[Reply]:
        """`/tournament start` (admins): close the entries and start round 1."""
        if not user.is_admin:
            raise ServiceError(ADMINS_ONLY)
        event = await self._pick(channel, event_id)
        name = words.event_name(event)
        if event.state != "open":
            raise ServiceError(t("{name} has already started.", name=name))
        whole = await self.running.whole(event.id)
        entrants = len(whole.entrants)
        least = rounds.least_entrants(event)
        if entrants < least:
            raise ServiceError(
                t(
                    "{name} needs at least {least} entrants to start; it has {n}.",
                    name=name,
                    least=least,
                    n=entrants,
                )
            )
        now = self.clock()
        planned = rounds.planned_rounds(event, entrants)
        closes = (
            now + 60.0 * (event.deadline_minutes or CUP_MINUTES) if event.format == "cup" else None
        )
        started = replace(event, rounds=planned, round=1, state="running")
        tables = rounds.next_tables(replace(whole, event=started), 1)
        if not await self.repository.start_round(
            event.id, 1, tables, now, rounds=planned, closes_at=closes
        ):
            raise ServiceError(t("{name} has already started.", name=name))
        log.info("event %s started: %d entrants, %d rounds", event.id, entrants, planned)
        told = [
            tn(
                "{name} has started with {n} entrant.",
                "{name} has started with {n} entrants.",
                n=entrants,
                name=name,
            ),
            tn("It plays {n} round.", "It plays {n} rounds.", n=planned),
            t("The games are being set up in threads."),
        ]
        said = Reply(text=" ".join(str(line) for line in told))
        return [said, *await self.running.spread(self.running.open_round(event.id), event.guild_id)]

    async def end(self, channel: Channel, user: User, event_id: int | None = None) -> list[Reply]:
        """`/tournament end` (admins): end an event now; its games in play are ended too."""
        if not user.is_admin:
            raise ServiceError(ADMINS_ONLY)
        event = await self._pick(channel, event_id)
        if not await self.repository.finish(event.id, "ended", self.clock()):
            raise ServiceError(t("{name} is over.", name=words.event_name(event)))
        whole = await self.running.whole(event.id)
        replies: list[Reply] = []
        for table in whole.round_tables(event.round):
            if table.game_id is not None and table.decided_at is None:
                replies += await self.running.in_thread(table, EndByAdmin(user))
        return [
            words.final_post(await self.running.whole(event.id)),
            *await self.running.deliver(replies),
        ]

    async def standings(
        self, channel: Channel, user: User, event_id: int | None = None, page: int = 0
    ) -> list[Reply]:
        """`/tournament standings`: points and tie-breaks (a crosstable for a round robin)."""
        event = await self._pick(channel, event_id, live_only=False)
        return [words.standings_reply(await self.running.whole(event.id), page)]

    async def pairings(
        self, channel: Channel, user: User, round_: int | None = None, event_id: int | None = None
    ) -> list[Reply]:
        """`/tournament pairings`: a round's tables and results (the round under way)."""
        event = await self._pick(channel, event_id, live_only=False)
        if event.round == 0:
            raise ServiceError(t("{name} has not started yet.", name=words.event_name(event)))
        wanted = round_ if round_ is not None else event.round
        if not 1 <= wanted <= event.round:
            raise ServiceError(
                t(
                    "round: {name} has played rounds 1 to {last}, not {n}.",
                    name=words.event_name(event),
                    last=event.round,
                    n=wanted,
                )
            )
        return [words.pairings_reply(await self.running.whole(event.id), wanted)]

    async def listing(self, channel: Channel, user: User) -> list[Reply]:
        """`/tournament list`: this server's events, newest first."""
        guild_id = _in_server(channel)
        return [words.list_reply(await self.repository.of_guild(guild_id))]

    async def export(
        self, channel: Channel, user: User, kind: str = "csv", event_id: int | None = None
    ) -> list[Reply]:
        """`/tournament export`: the standings as a file: CSV for any event, FIDE's
        tournament report (TRF-16) for games of two."""
        event = await self._pick(channel, event_id, live_only=False)
        whole = await self.running.whole(event.id)
        slug = f"tournament-{event.id}"
        if kind == "trf":
            if event.table_size != 2:
                raise ServiceError(t("file: FIDE's report is for games of two; use file:csv."))
            results, byes = rounds.results_of(whole)
            facts = EventFacts(
                name=words.event_name(event),
                game=game_of(event.game).name,
                format=event.format,
                city_or_place=channel.name or "Discord",
                start=None,
                end=None,
                rounds=event.rounds or event.round,
                round_dates=(),
            )
            data = trf16(facts, rounds.entrants_of(whole), results, byes).encode()
            name = f"{slug}.trf"
        elif kind == "csv":
            text = (
                cup_csv(rounds.cup_table(whole))
                if event.format == "cup"
                else csv_table(rounds.table_standings(whole))
            )
            data, name = text.encode(), f"{slug}.csv"
        else:
            raise ServiceError(
                t("file: {kind!r} is not a kind of file; use csv or trf.", kind=kind)
            )
        return [
            Reply(
                text=str(t("{name}: the standings as a file.", name=words.event_name(event))),
                file=(name, data),
            )
        ]

    async def choices(self, channel: Channel, typed: str) -> list[tuple[int, str]]:
        """Autocomplete for an event's id: this server's events, the channel's live ones
        first, those matching what was typed."""
        if channel.guild_id is None:
            return []
        here = await self.repository.live_in_channel(channel.channel_id)
        rest = [
            e
            for e in await self.repository.of_guild(channel.guild_id)
            if e.id not in {h.id for h in here}
        ]
        key = typed.strip().lower().lstrip("#")
        found = []
        for event in [*here, *rest]:
            label = f"#{event.id} {words.event_name(event)} · {words.state_words(event)}"
            if key in label.lower():
                found.append((event.id, label[:100]))
        return found[:25]

    # --- buttons --------------------------------------------------------------------------
    async def pressed_join(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        event = await self._event(payload.game_id, channel)
        return await self._join(event, user, edit=True)

    async def pressed_standings(
        self, channel: Channel, user: User, payload: Payload
    ) -> list[Reply]:
        event = await self._event(payload.game_id, channel)
        reply = words.standings_reply(await self.running.whole(event.id), payload.ply)
        return [replace(reply, ephemeral=True)]

    async def _event(self, event_id: int, channel: Channel) -> EventRecord:
        event = await self.repository.get(event_id)
        if event is None or event.guild_id != channel.guild_id:
            raise ServiceError(
                t(
                    "There is no tournament #{id} in this server; /tournament list shows them.",
                    id=event_id,
                )
            )
        return event

    async def _pick(
        self, channel: Channel, event_id: int | None, *, live_only: bool = True
    ) -> EventRecord:
        """The event named, or the one open in this channel."""
        _in_server(channel)
        if event_id is not None:
            return await self._event(event_id, channel)
        here = await self.repository.live_in_channel(channel.channel_id)
        if len(here) == 1:
            return here[0]
        if not here:
            raise ServiceError(
                t(
                    "This channel has no tournament open; give its id (id:), which "
                    "/tournament list shows."
                )
            )
        ids = ", ".join(f"#{e.id}" for e in here)
        raise ServiceError(
            t("This channel has several tournaments ({ids}); say which with id:.", ids=ids)
        )


def _in_server(channel: Channel) -> int:
    if channel.guild_id is None:
        raise ServiceError(t("Tournaments are run in a server's channels, not in direct messages."))
    return channel.guild_id
