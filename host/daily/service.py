"""The daily Hillbert challenge: one hill per UTC day, one scored run per person.

Today's hill comes from the date and a deployment secret, so it is the same for everyone
and nobody can compute tomorrow's. A run is a game bound to a user and a day (not to a
channel) and is played in private. When it ends, the result is checked by replaying the
seed and the move log in the engine before it reaches any leaderboard; then a
spoiler-free summary is posted for the channel, and par (what a careful player reaches on
that hill, computed once a day in another process and stored) is shown to the player beside
the spread of the day's runs.

A run counts for the day it started on. Its hill closes at 01:00 UTC the day after: a run
still going at midnight can be finished until then, and a run not over by then is scored
as it stood at the close (later moves do not count), marked unfinished, and its player is
told once; it is recorded when the player next uses /daily or anybody reads the tables.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import date

from data.daily import BoardRow, DailyRepository, DailyRun
from data.repository import NewGame, UserRecord
from data.results import Ending, GameResult
from engine.core import MoveError
from engine.hillbert import GAME, result_text, rows_text, turns_text
from engine.rng import seed_from_text
from engine.text import t, tn
from host import i18n
from host.daily.calendar import (
    closes_at,
    first_open_day,
    iso_week,
    next_rollover,
    streak_now,
    utc_day,
)
from host.daily.par import DailyPar, ParRunner, ProcessParRunner
from host.daily.replays import DailyReplays
from host.daily.results import Replayed, replay_log, size_legend, size_strip
from host.daily.runs import open_game, own_games
from host.model import SCOPES, Channel, Reply, ServiceError, Suggestion, User, offered_move
from host.play.live import Loaded
from host.play.seats import echoed, echoing
from host.privacy.names import shown_name
from host.service import GameService

log = logging.getLogger(__name__)

GAME_ID = GAME.id
DEFAULT_SECRET = "hilltop-default-daily-secret"
PERIODS = ("today", "week", "all")
TOP = 10
#: How long a board waits for another process recording the runs of closed hills, and
#: how often it looks.
SETTLE_WAIT = 30.0
SETTLE_POLL = 0.2
#: The missing daily secret was warned of (once a process, however many houses it builds).
_warned_of_no_secret = False


class DailyService:
    def __init__(
        self,
        games: GameService,
        daily: DailyRepository,
        *,
        secret: str | None = None,
        par_runner: ParRunner | None = None,
    ) -> None:
        self.games = games
        self.daily = daily
        global _warned_of_no_secret
        if not secret and not _warned_of_no_secret:
            _warned_of_no_secret = True
            log.warning("HILLTOP_DAILY_SECRET is not set: anyone can compute the daily hills")
        self.secret = secret or DEFAULT_SECRET
        self.par = DailyPar(daily, par_runner or ProcessParRunner(), self.seed_for, self.clock)
        #: Replays of closed days: par and the winning run.
        self.replays = DailyReplays(games, daily, self.par, self._settle_closed)
        #: Runs of days before this one have all been recorded (by this process).
        self._settled_before: date | None = None
        games.live.own_game = own_games(daily, self.clock)

    def close(self) -> None:
        self.par.close()

    @property
    def clock(self) -> Callable[[], float]:
        return self.games.clock

    def seed_for(self, day: date) -> int:
        return seed_from_text(f"hillbert-daily|{self.secret}|{day.isoformat()}") >> 15

    # === commands =========================================================================
    async def play(self, channel: Channel, user: User, move: str | None = None) -> list[Reply]:
        """`/daily [move]`: start or resume the run, or play a turn of it: yesterday's
        while it is still open, else today's."""
        if channel.guild_id is not None:
            await self.daily.note_member(channel.guild_id, UserRecord(user.id, user.name))
        untold, run = await self._settle_user(user)
        if run is None and untold and move:
            # The move was meant for the run just scored; it must not open today's.
            text = t("{move} was not played: the run it was meant for is over.", move=move)
            replies = [Reply(text=str(text), ephemeral=True)]
        else:
            replies = await self._play_run(user, run, move)
        # Told only once the command went through, so that a refusal loses no notice.
        return await self._notices(user.id) + replies if untold else replies

    async def _play_run(self, user: User, run: DailyRun | None, move: str | None) -> list[Reply]:
        """The board of, or a turn of, the open `run`; else of today's (started now)."""
        today = utc_day(self.clock())
        if run is not None and run.day != today.isoformat():
            return await self._play_earlier(run, user, move)
        if run is None:
            recorded = await self.daily.run_for(user.id, today.isoformat())
            if recorded is not None and recorded.finished_at is not None:
                return [await self._finished_reply(recorded)]
            # A run another command of theirs started a moment ago is theirs to go on.
            run = recorded
        if run is None:
            if move:
                self._check_first_move(today, move)
            game_id, created = await self._start(UserRecord(user.id, user.name), today)
        else:
            game_id, created = run.game_id, False
        if move:
            return await self.games.move_in(game_id, user, move)
        headline = (
            t("Today's hill ({day}). One attempt, scored: good luck!", day=today.isoformat())
            if created
            else t("Your run on today's hill ({day}) continues.", day=today.isoformat())
        )
        return [await self.games.board_of(game_id, headline)]

    async def suggest(self, channel: Channel, user: User, typed: str) -> list[Suggestion]:
        game_id = await open_game(self.daily, self.clock, user)
        return [] if game_id is None else await self.games.suggest_in(game_id, user, typed)

    async def leaderboard(
        self, channel: Channel, user: User, period: str = "today", scope: str = "server"
    ) -> list[Reply]:
        if period not in PERIODS:
            raise ServiceError(t("period: choose today, week or all (not {p!r}).", p=period))
        if scope not in SCOPES:
            raise ServiceError(t("scope: choose server or global (not {s!r}).", s=scope))
        guild = channel.guild_id if scope == "server" else None
        if scope == "server" and guild is None:
            raise ServiceError(t("There is no server here: use scope:global."))
        # Someone who reads the table on the web without signing in is nobody (id 0):
        # no row of their own, and no membership noted.
        anonymous = user.id == 0
        if guild is not None and not anonymous:
            await self.daily.note_member(guild, UserRecord(user.id, user.name))
        await self._settle_closed()
        today = utc_day(self.clock())
        if period == "today":
            key = today.isoformat()
            rows = await self.daily.day_board(key, guild, TOP)
            mine = None if anonymous else await self.daily.day_rank(key, guild, user.id)
            title = t("Daily Hillbert, {day}", day=key)
        else:
            key = iso_week(today) if period == "week" else "all"
            rows = await self.daily.total_board(key, guild, TOP)
            mine = None if anonymous else await self.daily.total_rank(key, guild, user.id)
            title = (
                t("Daily Hillbert, week {week}", week=key)
                if period == "week"
                else t("Daily Hillbert, all time")
            )
        lines = [self._row_text(row, period, row.user_id == user.id) for row in rows]
        if not rows:
            lines.append(str(t("Nobody has finished a run yet. Be the first: /daily")))
        if mine is not None and all(r.user_id != user.id for r in rows):
            lines += ["…", self._row_text(mine, period, True)]
        elif mine is None and rows and not anonymous:
            lines.append(str(t("You have no finished run in this period yet.")))
        lines.append(str(t("Next hill <t:{when}:R>.", when=next_rollover(self.clock()))))
        where = str(t("this server")) if guild is not None else str(t("everyone"))
        return [
            Reply(
                title=str(title),
                text="\n".join(lines),
                footer=str(t("Ranking {where}.", where=where)),
                names=tuple(shown_name(row.name) for row in (*rows, *([mine] if mine else []))),
            )
        ]

    async def stats(self, channel: Channel, user: User, target: User | None = None) -> list[Reply]:
        who = target or user
        await self._settle_closed()
        record = await self.daily.record_of(who.id)
        if record is None:
            text = str(t("{name} has not finished a daily run yet.", name=who.name))
            return [Reply(title=str(t("Daily stats: {name}", name=who.name)), text=text)]
        streak = await streak_now(self.daily, who.id, utc_day(self.clock()))
        fields = [
            (str(t("Runs")), str(record.runs)),
            (str(t("Best score")), str(record.best)),
            (str(t("Average")), i18n.number(record.total / record.runs, decimals=1)),
            (str(t("Streak")), str(tn("{n} day", "{n} days", n=streak))),
        ]
        if record.unfinished:
            fields.append((str(t("Scored unfinished")), str(record.unfinished)))
        last = record.last
        result = result_text(last.score or 0, last.turns or 0)
        text = str(
            t("Last run {day}: {result}, unfinished.", day=last.day, result=result)
            if last.unfinished
            else t("Last run {day}: {result}.", day=last.day, result=result)
        )
        return [
            Reply(
                title=str(t("Daily stats: {name}", name=who.name)),
                text=text,
                fields=tuple(fields),
            )
        ]

    async def replay_day(
        self, channel: Channel, user: User, day: str | None, run: str, scope: str
    ) -> list[Reply]:
        """`/daily-replay`: the par run or the winning run (of this server or of everyone)
        of a closed day's hill, the latest by default, as an animated picture."""
        return await self.replays.replay(channel, user, day, run, scope)

    def closed_days(self) -> list[date]:
        """The latest closed days, newest first: those whose runs may be replayed."""
        return self.replays.closed_days()

    # === starting and continuing ==========================================================
    def _check_first_move(self, day: date, text: str) -> None:
        """Refuse a first move that the new run would refuse, before the run (and its one
        attempt) is created: a refusal changes nothing."""
        move, offered = offered_move(text.strip())
        if offered not in (None, 0):
            raise ServiceError(
                t(
                    "{move} was offered for another board. Your run on today's hill has not "
                    "started; /daily shows it.",
                    move=echoed(move),
                )
            )
        state = GAME.new_state(self.seed_for(day), 1, None)
        try:
            state.play(0, state.parse_move(0, move.strip()))
        except MoveError as exc:
            raise ServiceError(
                t(
                    "{reason}\nYour run on today's hill has not started; /daily shows it.",
                    reason=str(echoing(exc.text, move)),
                )
            ) from None

    async def _start(self, user: UserRecord, day: date) -> tuple[int, bool]:
        """(game id, created) of the user's run of `day`, created if there is none."""
        game = GAME
        seed = self.seed_for(day)
        new = NewGame(
            game=GAME_ID,
            guild_id=None,
            channel_id=None,
            status="active",
            seed=seed,
            variant=None,
            rules_version=game.rules_version,
            start_position=None,
            snapshot=game.new_state(seed, 1, None).to_text(),
            created_by=user,
            seats=((user, True),),
            kind="daily",
        )
        record, created = await self.daily.start_run(
            new, user, day.isoformat(), iso_week(day), self.clock()
        )
        if created:
            self.par.start(day)
        return record.id, created

    async def _play_earlier(self, run: DailyRun, user: User, move: str | None) -> list[Reply]:
        """A turn of, or the board of, a run of an earlier day that is still open."""
        close = int(closes_at(date.fromisoformat(run.day)))
        if not move:
            headline = t(
                "Your run on the hill of {day} is still open and counts for that day: "
                "finish it before 01:00 UTC (<t:{when}:R>). Today's hill opens once it is "
                "over.",
                day=run.day,
                when=close,
            )
            return [await self.games.board_of(run.game_id, headline)]
        replies = await self.games.move_in(run.game_id, user, move)
        line = str(
            t(
                "Your run on the hill of {day}: open until 01:00 UTC (<t:{when}:R>).",
                day=run.day,
                when=close,
            )
        )
        board, *rest = replies
        return [replace(board, text=f"{line}\n{board.text}"), *rest]

    # === recording results ================================================================
    async def _settle_user(self, user: User) -> tuple[bool, DailyRun | None]:
        """Record every run of `user` that is over; returns whether they have runs scored
        unfinished they have not been told about, and their run still to be played."""
        now = self.clock()
        playable: DailyRun | None = None
        untold = False
        for run in await self.daily.pending_runs(user.id):
            untold = untold or run.untold
            if run.finished_at is not None:
                continue
            if now < closes_at(date.fromisoformat(run.day)):
                loaded = await self.games.loaded(run.game_id)
                if loaded.record.status == "active":
                    playable = playable or run
                    continue
            replayed, stored = await self._record(run)
            untold = untold or (stored and replayed is not None and not replayed.over)
        return untold, playable

    async def _settle_closed(self) -> None:
        """Record the runs whose hill has closed, so that boards and stats include them."""
        first_open = first_open_day(self.clock())
        if self._settled_before == first_open:
            return
        # Once for all processes: one records, the others wait for it (each run is
        # recorded once in any case; the lock spares them replaying every run).
        name = f"daily-close:{first_open.isoformat()}"
        for _ in range(int(SETTLE_WAIT / SETTLE_POLL)):
            async with self.daily.exclusive(name) as mine:
                if mine:
                    await self._record_closed(first_open)
                    self._settled_before = first_open
                    return
            await asyncio.sleep(SETTLE_POLL)
        log.warning("the runs of closed hills are being recorded elsewhere for too long")

    async def _record_closed(self, first_open: date) -> None:
        for run in await self.daily.open_runs_before(first_open.isoformat()):
            try:
                await self._record(run)
            except Exception:
                # One broken run must not hold up the boards; it is tried again later.
                log.exception("daily game %s: recording its result failed", run.game_id)

    async def _record(self, run: DailyRun) -> tuple[Replayed | None, bool]:
        """Verify `run` by replay and record it: as it ended, or as it stood when its hill
        closed. Call only once its game is over or its hill closed. Returns (its result,
        whether this call recorded it)."""
        found = await self.games.repository.game_with_moves(run.game_id)
        if found is None:
            return None, False
        record, moves = found
        close = closes_at(date.fromisoformat(run.day))
        replayed = replay_log(record, moves, close)
        if replayed is None:
            log.error("daily game %s does not replay to its stored result; not ranked", record.id)
            return None, False
        score, turns, sizes = replayed.score, replayed.turns, replayed.sizes
        if replayed.over:
            stored = await self.daily.finish_run(record.id, score, turns, sizes, self.clock())
        elif record.status == "active":
            result = GameResult(Ending.HILL_CLOSED, scores=(score,))
            # Ranked as it stood at the close, whenever it is recorded.
            stored = await self.daily.close_run(
                record.id, record.ply, result, score, turns, sizes, close
            )
        else:
            stored = await self.daily.finish_run(
                record.id, score, turns, sizes, close, unfinished=True
            )
        return replayed, stored

    async def _notices(self, user_id: int) -> list[Reply]:
        """Tell the player, once, about each of their runs scored unfinished."""
        return [
            Reply(
                title=str(t("Daily Hillbert {day}", day=run.day)),
                text=str(
                    t(
                        "Your run on the hill of {day} was not over when that hill closed "
                        "(01:00 UTC the next day), so it was scored as it stood then: "
                        "{result}. It is ranked, and marked unfinished in /stats.",
                        day=run.day,
                        result=result_text(run.score or 0, run.turns or 0),
                    )
                ),
                ephemeral=True,
            )
            for run in await self.daily.take_untold(user_id)
        ]

    async def on_finish(self, loaded: Loaded) -> list[Reply]:
        """After a move finishes a game: a daily run's result, recorded and told."""
        record = loaded.record
        if record.kind != "daily":
            return []
        run = await self.daily.run_by_game(record.id)
        if run is None:
            return []
        replayed, stored = await self._record(run)
        if replayed is None:
            return [
                Reply(
                    text=str(
                        t(
                            "Your result could not be verified and was not "
                            "ranked. The error was logged."
                        )
                    ),
                    ephemeral=True,
                )
            ]
        if not stored:
            return []
        user = record.seats[0].user
        if not replayed.over:
            return await self._notices(user.id)
        today = utc_day(self.clock())
        streak = await streak_now(self.daily, user.id, today)
        summary = Reply(
            title=str(t("Daily Hillbert {day}", day=run.day)),
            text="\n".join(
                [
                    str(
                        t(
                            "{name} finished the hill of {day}: {result}.",
                            day=run.day,
                            name=user.name,
                            result=result_text(replayed.score, replayed.turns),
                        )
                    ),
                    size_strip(replayed.sizes),
                    str(size_legend()) if replayed.sizes else "",
                    str(tn("🔥 Streak: {n} day", "🔥 Streak: {n} days", n=streak))
                    if streak > 1
                    else "",
                    str(t("Play yours with /daily.")),
                ]
            )
            .replace("\n\n", "\n")
            .strip(),
            tone="over",
        )
        par_reply = await self.par.reply(run.day, replayed.score)
        if run.day != today.isoformat():
            opened = t("Today's hill is open: /daily.")
            par_reply = replace(par_reply, text=f"{par_reply.text}\n{opened}")
        return [summary, par_reply]

    async def replay(self, game_id: int, until: float | None = None) -> Replayed | None:
        """The result of a run, recomputed from its seed and move log (see `replay_log`)."""
        found = await self.games.repository.game_with_moves(game_id)
        return replay_log(*found, until) if found is not None else None

    async def _finished_reply(self, run: DailyRun) -> Reply:
        score = run.score if run.score is not None else 0
        turns = run.turns if run.turns is not None else 0
        reply = await self.par.reply(run.day, score)
        text = str(
            t(
                "You have played today's hill: {result}. The next hill comes <t:{when}:R>.",
                result=result_text(score, turns),
                when=next_rollover(self.clock()),
            )
        )
        return Reply(
            title=str(t("Daily Hillbert {day}", day=run.day)),
            text=f"{text}\n{reply.text}",
            ephemeral=True,
        )

    def _row_text(self, row: BoardRow, period: str, me: bool) -> str:
        name = f"**{shown_name(row.name)}**" if me else shown_name(row.name)
        if period == "today":
            return str(
                t(
                    "{rank}. {name}: {rows}, {turns}",
                    rank=row.rank,
                    name=name,
                    rows=rows_text(row.score),
                    turns=turns_text(row.turns),
                )
            )
        return str(
            t(
                "{rank}. {name}: {score} in all, best {best} ({runs})",
                rank=row.rank,
                name=name,
                score=row.score,
                best=row.best,
                runs=tn("{n} run", "{n} runs", n=row.runs),
            )
        )
