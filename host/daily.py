"""The daily Hillbert challenge: one hill per UTC day, one scored run per person.

Today's hill comes from the date and a deployment secret, so it is the same for everyone
and nobody can compute tomorrow's. A run is a game bound to a user and a day (not to a
channel) and is played in private. When it ends, the result is checked by replaying the
seed and the move log in the engine before it reaches any leaderboard; then a
spoiler-free summary is posted for the channel, and par (the bot's own best score on that
hill, searched once a day in another process) is shown to the player.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from data.daily import BoardRow, DailyRepository
from data.repository import NewGame, UserRecord
from engine import registry
from engine.hillbert import HillbertState
from engine.hillbert_par import DEFAULT_MAX_TURNS, par
from engine.rng import seed_from_text
from engine.text import t
from host.model import Place, Reply, ServiceError, Suggestion, User
from host.service import GameService, Loaded
from host.workers import worker_pool

log = logging.getLogger(__name__)

GAME_ID = "hillbert"
DEFAULT_SECRET = "hilltop-default-daily-secret"
PERIODS = ("today", "week", "all")
SCOPES = ("server", "global")
TOP = 10
SIZE_EMOJI = {1: "🟩", 2: "🟨", 3: "🟥"}
STRIP_LENGTH = 24

ParRunner = Callable[[int], Awaitable[tuple[int, int]]]


def utc_day(moment: float) -> date:
    return datetime.fromtimestamp(moment, UTC).date()


def iso_week(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def next_rollover(moment: float) -> int:
    """Unix time of the next 00:00 UTC."""
    tomorrow = utc_day(moment) + timedelta(days=1)
    return int(datetime(tomorrow.year, tomorrow.month, tomorrow.day, tzinfo=UTC).timestamp())


def size_strip(sizes: str, length: int = STRIP_LENGTH) -> str:
    """An emoji per stretch of the run: his largest size in it (green Small, yellow
    Medium, red Big)."""
    if not sizes:
        return ""
    buckets = min(length, len(sizes))
    out = []
    for i in range(buckets):
        part = sizes[i * len(sizes) // buckets : (i + 1) * len(sizes) // buckets]
        out.append(SIZE_EMOJI[max(int(c) for c in part)])
    return "".join(out)


def streak_of(days: list[str], today: date) -> int:
    """Consecutive days played up to today (or up to yesterday, if not yet today)."""
    played = {date.fromisoformat(d) for d in days}
    day = today if today in played else today - timedelta(days=1)
    count = 0
    while day in played:
        count += 1
        day -= timedelta(days=1)
    return count


def _par_in_process(seed: int) -> tuple[int, int]:
    result = par(seed)
    return result.score, result.turns


class ProcessParRunner:
    """Runs the par search in a worker process, so it never slows the event loop."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    async def __call__(self, seed: int) -> tuple[int, int]:
        if self._pool is None:
            self._pool = worker_pool(1, background=True)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, _par_in_process, seed)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class Replayed:
    score: int
    turns: int
    sizes: str


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
        if not secret:
            log.warning("HILLTOP_DAILY_SECRET is not set: anyone can compute the daily hills")
        self.secret = secret or DEFAULT_SECRET
        self.par_runner: ParRunner = par_runner or ProcessParRunner()
        self._par_tasks: dict[str, asyncio.Task[tuple[int, int]]] = {}
        games.finish_hooks.append(self._on_finish)

    def close(self) -> None:
        for task in self._par_tasks.values():
            task.cancel()
        closer = getattr(self.par_runner, "close", None)
        if closer is not None:
            closer()

    @property
    def clock(self) -> Callable[[], float]:
        return self.games.clock

    def seed_for(self, day: date) -> int:
        return seed_from_text(f"hillbert-daily|{self.secret}|{day.isoformat()}") >> 15

    # === commands =========================================================================
    async def play(self, place: Place, user: User, move: str | None = None) -> list[Reply]:
        """`/daily [move]`: start or resume today's run, or play a turn of it."""
        now = self.clock()
        today = utc_day(now)
        record_user = UserRecord(user.id, user.name)
        if place.guild_id is not None:
            await self.daily.note_member(place.guild_id, record_user)
        game = registry.get(GAME_ID)
        seed = self.seed_for(today)
        state = game.new_state(seed, 1, None)
        new = NewGame(
            game=GAME_ID,
            guild_id=place.guild_id,
            channel_id=None,
            status="active",
            seed=seed,
            variant=None,
            rules_version=game.rules_version,
            start_position=None,
            snapshot=state.to_text(),
            created_by=record_user,
            seats=((record_user, True),),
            kind="daily",
        )
        record, created = await self.daily.start_run(
            new, record_user, today.isoformat(), iso_week(today), now
        )
        if created:
            self._start_par(today)
        if record.status != "active":
            run = await self.daily.run_by_game(record.id)
            if run is not None and run.finished_at is None and record.status == "finished":
                # The run ended but its result was never recorded (a crash in between):
                # verify and record it now; it is idempotent.
                loaded = await self.games.loaded(record.id)
                await self._on_finish(loaded)
            return [await self._finished_reply(user, today.isoformat(), record.id)]
        if move:
            return await self.games.play_in(record.id, user, move)
        headline = (
            t("Today's hill ({day}). One attempt, scored: good luck!", day=today.isoformat())
            if created
            else t("Your run on today's hill ({day}) continues.", day=today.isoformat())
        )
        return [await self.games.board_of(record.id, headline)]

    async def suggest(self, place: Place, user: User, typed: str) -> list[Suggestion]:
        run = await self.daily.run_for(user.id, utc_day(self.clock()).isoformat())
        if run is None or run.finished_at is not None:
            return []
        return await self.games.suggest_in(run.game_id, user, typed)

    async def leaderboard(
        self, place: Place, user: User, period: str = "today", scope: str = "server"
    ) -> list[Reply]:
        if period not in PERIODS:
            raise ServiceError(t("period: choose today, week or all (not {p!r}).", p=period))
        if scope not in SCOPES:
            raise ServiceError(t("scope: choose server or global (not {s!r}).", s=scope))
        guild = place.guild_id if scope == "server" else None
        if scope == "server" and guild is None:
            raise ServiceError(t("There is no server here: use scope:global."))
        if guild is not None:
            await self.daily.note_member(guild, UserRecord(user.id, user.name))
        today = utc_day(self.clock())
        if period == "today":
            key = today.isoformat()
            rows = await self.daily.day_board(key, guild, TOP)
            mine = await self.daily.day_rank(key, guild, user.id)
            title = t("Daily Hillbert, {day}", day=key)
        else:
            key = iso_week(today) if period == "week" else "all"
            rows = await self.daily.total_board(key, guild, TOP)
            mine = await self.daily.total_rank(key, guild, user.id)
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
        elif mine is None and rows:
            lines.append(str(t("You have no finished run in this period yet.")))
        lines.append(str(t("Next hill <t:{when}:R>.", when=next_rollover(self.clock()))))
        where = str(t("this server")) if guild is not None else str(t("everyone"))
        return [
            Reply(
                title=str(title),
                text="\n".join(lines),
                footer=str(t("Ranking {where}.", where=where)),
            )
        ]

    async def stats(self, place: Place, user: User, target: User | None = None) -> list[Reply]:
        who = target or user
        runs = await self.daily.finished_runs(who.id)
        today = utc_day(self.clock())
        if not runs:
            text = str(t("{name} has not finished a daily run yet.", name=who.name))
            return [Reply(title=str(t("Daily stats: {name}", name=who.name)), text=text)]
        scores = [r.score or 0 for r in runs]
        fields = (
            (str(t("Runs")), str(len(runs))),
            (str(t("Best score")), str(max(scores))),
            (str(t("Average")), f"{sum(scores) / len(scores):.1f}"),
            (str(t("Streak")), str(t("{n} days", n=streak_of([r.day for r in runs], today)))),
        )
        last = runs[-1]
        text = str(
            t(
                "Last run {day}: {score} rows in {turns} turns.",
                day=last.day,
                score=last.score,
                turns=last.turns,
            )
        )
        return [Reply(title=str(t("Daily stats: {name}", name=who.name)), text=text, fields=fields)]

    # === finishing ========================================================================
    async def _on_finish(self, loaded: Loaded) -> list[Reply]:
        record = loaded.record
        if record.kind != "daily":
            return []
        run = await self.daily.run_by_game(record.id)
        if run is None:
            return []
        replayed = await self.replay(record.id)
        if replayed is None:
            log.error("daily game %s does not replay to its stored result; not ranked", record.id)
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
        stored = await self.daily.finish_run(
            record.id, replayed.score, replayed.turns, replayed.sizes, self.clock()
        )
        if not stored:
            return []
        user = record.seats[0].user
        runs = await self.daily.finished_runs(user.id)
        streak = streak_of([r.day for r in runs], utc_day(self.clock()))
        summary = Reply(
            title=str(t("Daily Hillbert {day}", day=run.day)),
            text="\n".join(
                [
                    str(
                        t(
                            "{name} finished the hill of {day}: {score} rows in {turns} turns.",
                            day=run.day,
                            name=user.name,
                            score=replayed.score,
                            turns=replayed.turns,
                        )
                    ),
                    size_strip(replayed.sizes),
                    str(t("🔥 Streak: {n} days", n=streak)) if streak > 1 else "",
                    str(t("Play yours with /daily.")),
                ]
            )
            .replace("\n\n", "\n")
            .strip(),
            tone="over",
        )
        return [summary, await self._par_reply(run.day, replayed.score)]

    async def replay(self, game_id: int) -> Replayed | None:
        """The result of a finished run, recomputed from its seed and move log."""
        loaded = await self.games.loaded(game_id)
        record = loaded.record
        state: Any = registry.get(GAME_ID).new_state(record.seed, 1, None)
        sizes = []
        for entry in await self.games.games.moves(game_id):
            state = state.play(entry.seat, state.parse_move(entry.seat, entry.text))
            sizes.append(str(state.size))
        if state.to_text() != record.snapshot or state.outcome() is None:
            return None
        assert isinstance(state, HillbertState)
        return Replayed(state.score, state.turns, "".join(sizes))

    async def _finished_reply(self, user: User, day: str, game_id: int) -> Reply:
        run = await self.daily.run_by_game(game_id)
        score = run.score if run and run.score is not None else 0
        turns = run.turns if run and run.turns is not None else 0
        reply = await self._par_reply(day, score)
        when = next_rollover(self.clock())
        text = str(
            t(
                "You have played today's hill: {score} rows in {turns} turns. The next "
                "hill comes <t:{when}:R>.",
                score=score,
                turns=turns,
                when=when,
            )
        )
        return Reply(
            title=str(t("Daily Hillbert {day}", day=day)),
            text=f"{text}\n{reply.text}",
            ephemeral=True,
        )

    async def _par_reply(self, day: str, score: int) -> Reply:
        try:
            par_score, par_turns = await asyncio.wait_for(
                asyncio.shield(self._par(date.fromisoformat(day))), timeout=2.0
            )
        except Exception:
            task = self._par_tasks.get(day)
            if task is not None and task.done():
                # A failed search is dropped, so that the next call tries again.
                log.error("par for %s failed", day, exc_info=task.exception())
                del self._par_tasks[day]
            return Reply(
                text=str(
                    t("Par for this hill is not ready yet; ask again with /daily in a minute.")
                ),
                ephemeral=True,
            )
        verdict = (
            t("You beat par!")
            if score > par_score
            else t("You matched par.")
            if score == par_score
            else t("{n} rows short of par.", n=par_score - score)
        )
        return Reply(
            text=str(
                t(
                    "Par (the bot's best on this hill within {limit} turns): {score} rows in "
                    "{turns} turns. {verdict}",
                    limit=DEFAULT_MAX_TURNS,
                    score=par_score,
                    turns=par_turns,
                    verdict=verdict,
                )
            ),
            ephemeral=True,
        )

    def _start_par(self, day: date) -> None:
        """Begin today's par search early, so it is ready when the first run ends."""
        self._par(day)

    def _par(self, day: date) -> asyncio.Task[tuple[int, int]]:
        key = day.isoformat()
        task = self._par_tasks.get(key)
        if task is None:
            task = self._par_tasks[key] = asyncio.ensure_future(self._compute_par(day))
        return task

    async def _compute_par(self, day: date) -> tuple[int, int]:
        key = day.isoformat()
        cached = await self.daily.get_par(key)
        if cached is not None:
            return cached
        started = time.monotonic()
        score, turns = await self.par_runner(self.seed_for(day))
        await self.daily.set_par(key, score, turns, self.clock())
        log.info(
            "par for %s: %d rows in %d turns (%.1fs)", key, score, turns, time.monotonic() - started
        )
        stored = await self.daily.get_par(key)  # another process may have stored it first
        return stored or (score, turns)

    def _row_text(self, row: BoardRow, period: str, me: bool) -> str:
        name = f"**{row.name}**" if me else row.name
        if period == "today":
            return str(
                t(
                    "{rank}. {name}: {score} rows, {turns} turns",
                    rank=row.rank,
                    name=name,
                    score=row.score,
                    turns=row.turns,
                )
            )
        return str(
            t(
                "{rank}. {name}: {score} in all, best {best} ({runs} runs)",
                rank=row.rank,
                name=name,
                score=row.score,
                best=row.best,
                runs=row.runs,
            )
        )
