"""What players read of the ratings: `/ratings` (a game's table, with your own place even
outside the top ten) and `/profile` (a player's ratings, record, streak, best win,
head-to-head against another player, and daily Hillbert stats).

In a server everything is that server's: its table, and the record of its games (the
global rating is shown beside, a number without any other server's games). In a
direct message, the global tables."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import date
from typing import Any

from data.daily import DailyRepository
from data.ratings import GLOBAL, Standing
from data.repository import GameRecord, GameRepository
from data.results import OFF_THE_BOARD, Ending, GameResult
from engine.core import Game
from engine.hillbert import GAME as HILLBERT
from engine.hillbert import rows_text
from engine.text import Text, t, tn
from host import catalog, i18n
from host.daily.calendar import streak_now, utc_day
from host.history.finished import finished_page
from host.model import SCOPES, Channel, Reply, ServiceError, User
from host.play.live import game_of
from host.play.results import list_names, short_line
from host.privacy.names import shown_name
from host.rating import Ratings, shown

log = logging.getLogger(__name__)

#: Places in a ratings table.
TOP = 10
#: A profile's most recent games, listed.
RECENT = 5
#: Discord's limit for a field's text.
FIELD_LIMIT = 1024


#: The tournaments a player entered (in one server, or anywhere), newest first, as lines.
Entered = Callable[[int, int | None], Awaitable[list[str]]]


class RatingPages:
    def __init__(
        self,
        ratings: Ratings,
        daily: DailyRepository,
        entered: Entered | None = None,
        games: GameRepository | None = None,
    ) -> None:
        self.ratings = ratings
        self.repository = ratings.repository
        self.daily = daily
        #: The tournaments a player entered (None: none kept).
        self.entered = entered
        #: The finished games, rated or not, summed up on a profile (None: not shown).
        self.games = games

    def game_choices(self) -> list[tuple[str, str]]:
        """(id, name) of every game that has ratings (those played by two or more)."""
        return [
            (listing.id, listing.game.name)
            for listing in catalog.all_listings()
            if listing.game.max_players >= 2
        ]

    async def table(
        self, channel: Channel, user: User, game_id: str, scope: str = "server"
    ) -> list[Reply]:
        """A game's ratings table: the top ten, and the user's own place below it."""
        game = rated_game(game_id)
        where = _scope(channel, scope)
        await self._settle()
        rows = await self.repository.table(game.id, where, TOP)
        # A reader on the web who has not signed in is nobody (id 0): no row of their own.
        anonymous = user.id == 0
        mine = None if anonymous else await self.repository.standing(game.id, where, user.id)
        lines = [_row(row, row.user_id == user.id) for row in rows]
        if not rows:
            lines.append(
                str(
                    t(
                        "No rated {game} games yet. Games between people count: start one "
                        "with /play {id} and choose an opponent.",
                        game=game.name,
                        id=game.id,
                    )
                )
            )
        elif mine is None and not anonymous:
            lines.append(
                str(
                    t("You have no rated {game} game here yet.", game=game.name)
                    if where != GLOBAL
                    else t("You have no rated {game} game yet.", game=game.name)
                )
            )
        elif mine is not None and all(r.user_id != user.id for r in rows):
            lines += ["…", _row(mine, True)]
        place = str(t("this server")) if where != GLOBAL else str(t("everyone"))
        return [
            Reply(
                title=str(t("{game} ratings: {place}", game=game.name, place=place)),
                text="\n".join(lines),
                names=tuple(row.name for row in (*rows, *([mine] if mine else []))),
                footer=str(
                    t(
                        "? marks a provisional rating (fewer than 5 rated games). Games "
                        "between people count; against the computer they do not."
                    )
                ),
            )
        ]

    async def profile(
        self, channel: Channel, user: User, target: User | None, opponent: User | None
    ) -> list[Reply]:
        """A player's ratings and record in each game, head-to-head against `opponent`,
        and their daily Hillbert stats."""
        who = target or user
        if who.is_bot:
            raise ServiceError(t("{name} is a computer player: it has no profile.", name=who.name))
        if opponent is not None and opponent.id == who.id:
            raise ServiceError(
                t("opponent: choose someone other than {name} to compare with.", name=who.name)
            )
        where = channel.guild_id or GLOBAL
        await self._settle()
        #: The people's names the profile quotes: shown as written wherever it is read.
        quoted = [who.name] + ([opponent.name] if opponent else [])
        standings = await self._standings(who, where)
        fields = [await self._game_field(s, where, quoted) for s in standings]
        rated = bool(fields)
        played = await self._played_field(channel, user, who, quoted)
        if played is not None:
            fields.append(played)
        if opponent is not None:
            fields.append(await self._head_to_head(who, opponent, where))
        fields.append(await self._daily_field(who))
        tournaments = await self.entered(who.id, channel.guild_id) if self.entered else []
        if tournaments:
            fields.append((str(t("Tournaments")), "\n".join(tournaments)))
        if not rated and played is not None:
            text = t(
                "No rated game yet: games between people are rated, /play one with an opponent."
            )
        elif not rated:
            text = t(
                "{name} has no rated game here yet. Games between people count: /play one "
                "with an opponent.",
                name=who.name,
            )
        elif where != GLOBAL:
            text = t("Ratings and records in this server; the global rating beside.")
        else:
            text = t("Ratings and records with everyone.")
        return [
            Reply(
                title=str(t("Profile: {name}", name=who.name)),
                text=str(text),
                fields=tuple(fields),
                names=tuple(quoted),
            )
        ]

    async def _settle(self) -> None:
        """Rate what finished since the last sweep; a failure leaves the tables as they
        are (a little behind), not the reader without them."""
        try:
            await self.ratings.settle()
        except Exception:
            log.exception("rating the finished games failed")

    async def _played_field(
        self, channel: Channel, reader: User, who: User, quoted: list[str]
    ) -> tuple[str, str] | None:
        """Every finished game of `who` here, rated or not, summed up from the newest page
        of their history (the one /history reads): their record, and the most recent
        games as /history lists them. None: no games, or none the reader may see (a
        direct-message game belongs to its players alone)."""
        if self.games is None or (channel.guild_id is None and reader.id != who.id):
            return None
        records, _, more = await finished_page(
            self.games, channel.guild_id, who.id, None, (None, None)
        )
        if not records:
            return None
        wins = draws = losses = played = 0
        for record in records:
            outcome = _outcome_of(record, who.id)
            if outcome is None:
                continue
            played += 1
            wins += outcome == "win"
            draws += outcome == "draw"
            losses += outcome == "loss"
        lines = [
            str(
                played_text(played, wins, draws, losses)
                if more
                else record_text(played, wins, draws, losses)
            )
        ]
        for record in records[:RECENT]:
            game = game_of(record.game)
            names = list_names(game, record)
            quoted += names
            result = record.result or GameResult(Ending.RULES)
            line = t(
                "`#{id}` {date} · **{game}** · {players}: {result}",
                id=record.id,
                date=i18n.day(record.finished_at or record.updated_at),
                game=game.name,
                players=" vs ".join(names),
                result=short_line(game, result, names),
            )
            lines.append(str(line))
        # A field holds so much: the oldest games listed give way first.
        while len(lines) > 2 and len("\n".join(lines)) > FIELD_LIMIT:
            lines.pop()
        title = t("Games here") if channel.guild_id is not None else t("Games in direct messages")
        return str(title), "\n".join(lines)[:FIELD_LIMIT]

    async def _standings(self, who: User, where: int) -> list[Standing]:
        return await self.repository.standings_of(who.id, where)

    async def _game_field(
        self, standing: Standing, where: int, quoted: list[str]
    ) -> tuple[str, str]:
        name = catalog.listing(standing.game).game.name
        head = t("**{rating}** · #{place}", rating=rating_text(standing), place=standing.place)
        lines = [str(head)]
        if where != GLOBAL:
            # The global rating beside, without its place: counting every rating ahead
            # of it in the whole world is not worth one line of a profile.
            mondial = await self.repository.standing(
                standing.game, GLOBAL, standing.user_id, placed=False
            )
            if mondial is not None:
                lines[0] += " · " + str(t("global {rating}", rating=rating_text(mondial)))
        lines.append(
            str(record_text(standing.games, standing.wins, standing.draws, standing.losses))
        )
        if standing.streak:
            lines.append(str(t("Streak: {streak}", streak=streak_text(standing.streak))))
        best = await self.repository.best_win(standing.user_id, where, standing.game)
        if best is not None:
            named = await self.repository.names(best.others)
            known = {u: shown_name(name) for u, name in named.items()}
            quoted += known.values()
            names = ", ".join(known.get(u, "?") for u in best.others)
            # A game's number is shown only in its own server's profile: the global one
            # would name the games of other servers.
            lines.append(
                str(
                    t(
                        "Best win: game #{id} against {names} ({rating})",
                        id=best.game_id,
                        names=names,
                        rating=shown(best.others_mu),
                    )
                    if where != GLOBAL
                    else t(
                        "Best win: against {names} ({rating})",
                        names=names,
                        rating=shown(best.others_mu),
                    )
                )
            )
        return name, "\n".join(lines)

    async def _head_to_head(self, who: User, opponent: User, where: int) -> tuple[str, str]:
        meetings = await self.repository.head_to_head(who.id, opponent.id, where)
        title = str(t("Against {name}", name=opponent.name))
        if not meetings:
            return title, str(
                t(
                    "{a} and {b} have no rated game together here yet.",
                    a=who.name,
                    b=opponent.name,
                )
            )
        lines = [
            f"{game_of(m.game).name}: {record_text(m.games, m.wins, m.draws, m.losses)}"
            for m in sorted(meetings, key=lambda m: m.game)
        ]
        last = max(meetings, key=lambda m: (m.last_finished_at, m.last_game_id))
        lines.append(
            str(
                t(
                    "Last: game #{id}, {outcome}.",
                    id=last.last_game_id,
                    outcome=_OUTCOME_WORDS[last.last_outcome],
                )
                if where != GLOBAL
                else t("Last: {outcome}.", outcome=_OUTCOME_WORDS[last.last_outcome])
            )
        )
        return title, "\n".join(lines)

    async def _daily_field(self, who: User) -> tuple[str, str]:
        record = await self.daily.record_of(who.id)
        title = str(t("Daily {game}", game=HILLBERT.name))
        if record is None:
            return title, str(t("No daily run yet: /daily plays today's hill."))
        today: date = utc_day(self.ratings.clock())
        best = record.best
        streak = await streak_now(self.daily, who.id, today)
        text = t(
            "{runs}, best {best}, streak {streak}",
            runs=tn("{n} run", "{n} runs", n=record.runs),
            best=rows_text(best),
            streak=tn("{n} day", "{n} days", n=streak),
        )
        return title, str(text)


_OUTCOMES = ("win", "draw", "loss")


def _outcome_of(record: GameRecord, user_id: int) -> str | None:
    """ "win", "draw" or "loss" of a finished game for a player in it (one who resigned
    lost it); None for a game without one (aborted, a solo game, a challenge closed)."""
    result = record.result
    if result is None or result.aborted or len(record.seats) < 2:
        return None
    if result.ending not in (*OFF_THE_BOARD, Ending.RULES):
        return None
    seats = {
        s.seat
        for s in record.seats
        if s.user.id == user_id or (s.left is not None and s.left.id == user_id)
    }
    if not seats:
        return None
    if not result.winners:
        return "draw"
    return "win" if seats & set(result.winners) else "loss"


_OUTCOME_WORDS = {"win": t("a win"), "draw": t("a draw"), "loss": t("a loss")}


def rated_game(game_id: str) -> Game[Any]:
    """A game that has ratings (a refusal for the solo game and unknown ones)."""
    game = game_of(game_id)
    if game.max_players < 2:
        raise ServiceError(
            t(
                "{game} is played alone: it has the daily leaderboard (/leaderboard), not ratings.",
                game=game.name,
            )
        )
    return game


def _scope(channel: Channel, scope: str) -> int:
    if scope not in SCOPES:
        raise ServiceError(t("scope: choose server or global (not {s!r}).", s=scope))
    if scope == "global" or channel.guild_id is None:
        return GLOBAL
    return channel.guild_id


def rating_text(standing: Standing) -> str:
    """A rating as shown: "1658", or "1540?" while provisional."""
    return f"{shown(standing.mu)}{'?' if standing.provisional else ''}"


def record_text(games: int, wins: int, draws: int, losses: int) -> Text:
    return t(
        "{games}: {wins}, {draws}, {losses}",
        games=tn("{n} game", "{n} games", n=games),
        wins=tn("{n} win", "{n} wins", n=wins),
        draws=tn("{n} draw", "{n} draws", n=draws),
        losses=tn("{n} loss", "{n} losses", n=losses),
    )


def played_text(played: int, wins: int, draws: int, losses: int) -> Text:
    """A record over the newest games only (the older ones are not read for a profile)."""
    return tn(
        "Of the last {n} game: {wins}, {draws}, {losses}",
        "Of the last {n} games: {wins}, {draws}, {losses}",
        n=played,
        wins=tn("{n} win", "{n} wins", n=wins),
        draws=tn("{n} draw", "{n} draws", n=draws),
        losses=tn("{n} loss", "{n} losses", n=losses),
    )


def streak_text(streak: int) -> Text:
    if streak > 0:
        return tn("{n} win", "{n} wins", n=streak)
    return tn("{n} loss", "{n} losses", n=-streak)


def _row(row: Standing, me: bool) -> str:
    name = f"**{row.name}**" if me else row.name
    return str(
        t(
            "{place}. {name}: {rating} · {record}",
            place=row.place,
            name=name,
            rating=rating_text(row),
            record=record_text(row.games, row.wins, row.draws, row.losses),
        )
    )
