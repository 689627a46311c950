"""What a stored history of a given size holds, row by row: users and their servers, a
year of finished games and of daily hills, the games in play now (one busy server among
them), and the ratings the finished games gave.

The rows come in chunks, each the rows of every table for a stretch of games, so that a
sink writes one chunk per transaction while the next is made. Every game is a copy of a
real game of `bench.scale.pool` (its moves are written by the sink from the pool, by the
`Copy` rows). What the benchmark needs to find in the data (the busy server, a player
with many games, games to move in or resign) is listed in the `Manifest`.
"""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, cast

from bench.scale.pool import (
    GAME_WEIGHTS,
    DailyGame,
    PoolGame,
    by_game,
    channel_pool,
    daily_pool,
)
from console.lines import bot_user
from data.results import Actor, Ending, GameResult, dump_result
from host.daily.calendar import iso_week, utc_day
from host.setup import GameOptions

DAY = 86400.0
HOUR = 3600.0
#: Ids of the generated rows, apart from each other and from the console's (hashes).
USER_BASE = 300_000_000_000_000_000
GUILD_BASE = 500_000_000_000_000_000
#: A server's id steps by 2**22, so that the servers spread over the shards.
GUILD_STEP = 1 << 22
CHANNEL_BASE = 600_000_000_000_000_000
LIVE_CHANNEL_BASE = 700_000_000_000_000_000
#: Channels of a server that its finished games were played in.
CHANNELS_PER_GUILD = 6
#: Games per chunk (one transaction each).
CHUNK = 20_000
#: A newcomer's rating (μ, σ), as the rating system starts everyone.
START_SKILL = (25.0, 25.0 / 3.0)

#: The columns each chunk fills, in the order of its rows.
GAME_COLUMNS = (
    "id",
    "game",
    "kind",
    "guild_id",
    "channel_id",
    "status",
    "seed",
    "variant",
    "rules_version",
    "start_position",
    "ply",
    "snapshot",
    "options",
    "result",
    "created_by",
    "created_at",
    "updated_at",
    "finished_at",
    "deadline_at",
    "deadline_from",
    "remind_at",
    "last_seat",
    "last_user_id",
    "last_move",
    "rated_at",
)
SEAT_COLUMNS = ("game_id", "seat", "user_id", "is_bot", "accepted")
USER_COLUMNS = ("id", "name", "is_bot")
MEMBER_COLUMNS = ("guild_id", "user_id")
RUN_COLUMNS = (
    "user_id",
    "day",
    "week",
    "game_id",
    "started_at",
    "finished_at",
    "score",
    "turns",
    "sizes",
    "unfinished",
    "untold",
)
TOTAL_COLUMNS = ("period", "user_id", "total", "best", "runs", "last_at")
PAR_COLUMNS = ("day", "score", "turns", "computed_at", "moves")
CHANGE_COLUMNS = (
    "scope",
    "user_id",
    "game_id",
    "game",
    "finished_at",
    "outcome",
    "place",
    "mu_before",
    "sigma_before",
    "mu_after",
    "sigma_after",
    "others_mu",
    "others",
)
RATING_COLUMNS = (
    "game",
    "scope",
    "user_id",
    "mu",
    "sigma",
    "games",
    "wins",
    "draws",
    "losses",
    "streak",
)
#: Tables in the order a chunk is written (parents first).
TABLES = {
    "users": USER_COLUMNS,
    "guild_members": MEMBER_COLUMNS,
    "games": GAME_COLUMNS,
    "seats": SEAT_COLUMNS,
    "daily_runs": RUN_COLUMNS,
    "daily_totals": TOTAL_COLUMNS,
    "daily_par": PAR_COLUMNS,
    "rating_changes": CHANGE_COLUMNS,
    "ratings": RATING_COLUMNS,
}

#: How a rated game went for a player: the outcome, the place, how far the rating moves
#: (in σ) and which count of the record it adds to.
_WIN = ("win", 1, 1 / 8, 3)
_DRAW = ("draw", 1, 0.0, 4)
_LOSS = ("loss", 2, -1 / 8, 5)
#: Pool numbers of the daily runs start here (channel games: their pool index).
DAILY_POOL_BASE = 100_000
#: Finished games of each kind, per hundred.
DECLINED, ABORTED, RESIGNED, AGAINST_COMPUTER = 2, 3, 10, 6
#: Live games that are challenges, per hundred.
CHALLENGES = 5
#: Games the benchmark moves in, resigns, reads the record of.
MOVE_PROBES = 40
RESIGN_PROBES = 40
RECORD_PROBES = 8
RECORD_GAME = "hokito"
#: Players of the busy server who have not played today's hill (for /daily).
DAILY_NEWCOMERS = 40
#: Finished games of the busy server the player with many games plays in, per hundred.
HEAVY_SHARE = 2
#: The most live games that player plays in.
HEAVY_LIVE = 40


@dataclass(frozen=True, slots=True)
class Scale:
    """The size of a stored history."""

    name: str
    #: Games of channels that ended (finished, with some aborted and declined).
    finished: int
    #: Games in play (and challenges) outside the busy server.
    live: int
    #: Games in play in the busy server, each in a channel (a thread) of its own.
    busy_live: int
    busy_members: int
    users: int
    guilds: int
    #: Daily runs per day, for `days` days up to today.
    daily_runs: int
    days: int = 365
    #: The share of the finished games played in the busy server.
    busy_share: float = 0.05

    @property
    def daily_players(self) -> int:
        return min(self.users, self.daily_runs * 4)

    def describe(self) -> str:
        return (
            f"{self.finished:,} finished games, {self.live + self.busy_live:,} live "
            f"({self.busy_live:,} in the busy server), {self.users:,} players, "
            f"{self.guilds:,} servers, {self.days * self.daily_runs:,} daily runs"
        )


@dataclass(frozen=True, slots=True)
class Person:
    id: int
    name: str


@dataclass(frozen=True, slots=True)
class MoveProbe:
    """A live game of two, where every player has moved, and a move its next player may
    make that does not end it."""

    game_id: int
    channel_id: int
    guild_id: int
    player: Person
    move: str


@dataclass(frozen=True, slots=True)
class ResignProbe:
    game_id: int
    channel_id: int
    guild_id: int
    player: Person


@dataclass
class Manifest:
    """What the benchmark uses of the generated history: real ids, by role."""

    scale: Scale
    now: float
    busy_guild: int
    #: The channel of a live game of the busy server (for /board, /history, /games here).
    busy_channel: int
    #: A member of the busy server who plays in many of its games, and their usual opponent.
    heavy: Person
    rival: Person
    #: A member of the busy server who finished today's hill.
    played_today: Person
    #: Members of the busy server who have not played today's hill.
    newcomers: list[Person]
    #: The daily player with the most runs.
    most_runs: Person
    moves: list[MoveProbe]
    resigns: list[ResignProbe]
    #: Finished games of the busy server: the same pool games at every size.
    records: list[int]
    #: The ids of every live game (for touching many games).
    live_ids: list[int]
    #: Rows written, by table (moves counted from the copies).
    counts: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(_plain(self))


def _plain(value: Any) -> Any:
    if hasattr(value, "__dataclass_fields__"):
        return {name: _plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


#: (game id, pool number, moves kept, first move's time, seconds between moves, the
#: user of each of seats 0-3): the moves of a copy, which the sink writes from the pool.
Copy = tuple[int, int, int, float, float, int | None, int | None, int | None, int | None]


@dataclass
class Chunk:
    """The rows of every table for a stretch of games, written in one transaction."""

    rows: defaultdict[str, list[tuple[Any, ...]]] = field(default_factory=lambda: defaultdict(list))
    copies: list[Copy] = field(default_factory=list)

    def add(self, table: str, row: tuple[Any, ...]) -> None:
        self.rows[table].append(row)

    def size(self) -> int:
        return sum(len(rows) for rows in self.rows.values()) + len(self.copies)


def pool_moves() -> list[tuple[int, int, int, str]]:
    """(pool number, ply, seat, text) of every move of every pool game and daily run, for
    the sink's table of moves to copy."""
    rows = [
        (game.index, ply, seat, text)
        for game in channel_pool()
        for ply, (seat, text) in enumerate(game.moves, start=1)
    ]
    return rows


def daily_pool_moves(
    runs: tuple[tuple[DailyGame, ...], ...],
) -> list[tuple[int, int, int, str]]:
    return [
        (_daily_number(day, n), ply, 0, text)
        for day, games in enumerate(runs)
        for n, game in enumerate(games)
        for ply, text in enumerate(game.moves, start=1)
    ]


def _daily_number(day: int, n: int) -> int:
    return DAILY_POOL_BASE + day * 10 + n


class Plan:
    """The rows of a history of `scale`, made chunk by chunk (`chunks`), and the
    `manifest` once they are all made."""

    def __init__(self, scale: Scale, now: float, seed: int = 1) -> None:
        self.scale = scale
        self.now = now
        self.today = utc_day(now)
        self.rng = random.Random(seed)
        self.pool = channel_pool()
        self.pool_by_game = by_game(self.pool)
        self.daily = daily_pool(self.today, scale.days)
        self.bot = bot_user()
        self.options = json.dumps(GameOptions().stored(), sort_keys=True)
        self.next_id = 1
        self._people()
        self.skills: dict[tuple[str, int, int], list[float]] = {}
        self.counts: dict[str, int] = {}
        self.moves: list[MoveProbe] = []
        self.resigns: list[ResignProbe] = []
        self.records: list[int] = []
        self.live_ids: list[int] = []
        self.busy_channel = 0
        self.played_today: Person | None = None
        self.newcomers: list[Person] = []
        self.most_runs: Person | None = None
        games = sorted(GAME_WEIGHTS)
        self._game_names = games
        self._game_cumulative = _cumulative([GAME_WEIGHTS[g] for g in games])

    # --- people and servers -------------------------------------------------------------
    def _people(self) -> None:
        s = self.scale
        rng = self.rng
        self.names = [f"player{i:06d}" for i in range(s.users)]
        self.guild_ids = [GUILD_BASE + g * GUILD_STEP for g in range(s.guilds)]
        #: Each user's servers (indices), their home first; the busy server is 0.
        homes: list[list[int]] = []
        for u in range(s.users):
            if u < s.busy_members:
                homes.append([0])
            else:
                # Older servers are bigger: a skewed choice of the others.
                homes.append([1 + int((s.guilds - 1) * rng.random() ** 1.6)])
        for u in range(s.users):
            if rng.random() < 0.3:
                other = 1 + rng.randrange(s.guilds - 1)
                if other not in homes[u]:
                    homes[u].append(other)
        members: list[list[int]] = [[] for _ in range(s.guilds)]
        for u, guilds in enumerate(homes):
            for g in guilds:
                members[g].append(u)
        for g in range(s.guilds):
            while len(members[g]) < 4:  # every server has enough people for any game
                u = rng.randrange(s.busy_members, s.users)
                if g not in homes[u]:
                    homes[u].append(g)
                    members[g].append(u)
        self.homes = homes
        self.members = members
        self.non_busy_users = list(range(s.busy_members, s.users))

    def user_id(self, u: int) -> int:
        return USER_BASE + u

    def person(self, u: int) -> Person:
        return Person(self.user_id(u), self.names[u])

    # --- choices ------------------------------------------------------------------------
    def _pool_game(
        self, rng: random.Random, seats: int | None = None, game: str | None = None
    ) -> PoolGame:
        while True:
            at = rng.random() * self._game_cumulative[-1]
            name = game or self._game_names[_index(self._game_cumulative, at)]
            games = self.pool_by_game[name]
            chosen = games[int(rng.random() * len(games))]
            if seats is None or chosen.seats == seats:
                return chosen

    def _guild(self, rng: random.Random) -> int:
        """A server other than the busy one, as likely as its share of the players."""
        u = self.non_busy_users[int(rng.random() * len(self.non_busy_users))]
        guilds = self.homes[u]
        return guilds[0] if len(guilds) == 1 or rng.random() < 0.7 else guilds[1]

    def _players(self, rng: random.Random, guild: int, count: int) -> list[int]:
        members = self.members[guild]
        if count == 1:
            return [members[int(rng.random() * len(members))]]
        if count == 2:  # most games: two draws are faster than a sample
            n = len(members)
            first = int(rng.random() * n)
            second = int(rng.random() * (n - 1))
            return [members[first], members[second + (second >= first)]]
        return rng.sample(members, count)

    def _take_id(self) -> int:
        game_id = self.next_id
        self.next_id += 1
        return game_id

    # --- the chunks ---------------------------------------------------------------------
    def chunks(self) -> Iterator[Chunk]:
        yield self._people_chunk()
        yield from self._finished_chunks()
        yield from self._daily_chunks()
        yield from self._live_chunks()
        yield self._ratings_chunk()

    def _people_chunk(self) -> Chunk:
        chunk = Chunk()
        chunk.rows["users"] = [(self.user_id(u), self.names[u], 0) for u in range(self.scale.users)]
        chunk.rows["users"].append((self.bot.id, self.bot.name, 1))
        chunk.rows["guild_members"] = [
            (self.guild_ids[g], self.user_id(u))
            for g, members in enumerate(self.members)
            for u in sorted(members)
        ]
        self._count(chunk)
        return chunk

    def _count(self, chunk: Chunk) -> None:
        for table, rows in chunk.rows.items():
            self.counts[table] = self.counts.get(table, 0) + len(rows)
        self.counts["moves"] = self.counts.get("moves", 0) + sum(c[2] for c in chunk.copies)

    def _finished_chunks(self) -> Iterator[Chunk]:
        s = self.scale
        rng = self.rng
        start = self.now - s.days * DAY
        span = (s.days - 1) * DAY
        chunk = Chunk()
        busy_content = random.Random(7)
        for i in range(s.finished):
            created = start + span * (i + rng.random()) / max(1, s.finished)
            probe = len(self.records) < RECORD_PROBES and i % 3 == 0
            if probe or rng.random() < s.busy_share:
                self._finished_game(chunk, busy_content if probe else rng, 0, created, probe)
            else:
                self._finished_game(chunk, rng, self._guild(rng), created, False)
            if len(chunk.copies) >= CHUNK:
                self._count(chunk)
                yield chunk
                chunk = Chunk()
        self._count(chunk)
        yield chunk

    def _finished_game(
        self, chunk: Chunk, rng: random.Random, guild: int, created: float, probe: bool
    ) -> None:
        game_id = self._take_id()
        kind = int(rng.random() * 100)
        if probe:
            # The same real game at every size: two people, over by its rules, of the
            # game most played.
            pool = self._pool_game(rng, seats=2, game=RECORD_GAME)
            kind = 50
        elif kind < AGAINST_COMPUTER + RESIGNED:
            pool = self._pool_game(rng, seats=2)
        else:
            pool = self._pool_game(rng)
        people = self._players(rng, guild, pool.seats)
        if guild == 0 and pool.seats > 1 and (probe or rng.random() * 100 < HEAVY_SHARE):
            heavy, rival = 0, 1
            people = [heavy, rival] + [p for p in people if p not in (heavy, rival)]
            people = people[: pool.seats]
        users = [self.user_id(u) for u in people]
        bots = [False] * pool.seats
        accepted = [True] * pool.seats
        ply = pool.ply
        status = "finished"
        result = pool.result
        winners = pool.winners
        rated = pool.seats > 1
        if pool.seats > 1 and kind >= 100 - DECLINED:
            ply, status, rated = 0, "declined", False
            ending = Ending.DECLINED if rng.random() < 0.6 else Ending.EXPIRED
            result = cast(str, dump_result(GameResult(ending)))
            accepted = [True] + [False] * (pool.seats - 1)
        elif kind >= 100 - DECLINED - ABORTED:
            ply = int(rng.random() * pool.ply)
            admin = people[0]
            status, rated = "aborted", False
            result = cast(
                str,
                dump_result(
                    GameResult(
                        Ending.ADMIN,
                        scores=pool.scores[ply],
                        actor=Actor(self.user_id(admin), self.names[admin]),
                    )
                ),
            )
        elif kind < AGAINST_COMPUTER and pool.seats == 2:
            users[1] = self.bot.id
            bots[1] = True
            rated = False
        elif (
            kind < AGAINST_COMPUTER + RESIGNED
            and pool.all_moved is not None
            and pool.all_moved < pool.ply
        ):
            ply = pool.all_moved + int(rng.random() * (pool.ply - pool.all_moved))
            quitter = int(rng.random() * 2)
            winners = (1 - quitter,)
            result = cast(
                str,
                dump_result(GameResult(Ending.RESIGNED, winners, pool.scores[ply], by=(quitter,))),
            )
        step = 20.0 + 100.0 * rng.random()
        finished = created + step * (ply + 1)
        self._game_rows(
            chunk,
            game_id,
            pool,
            guild,
            self._finished_channel(rng, guild),
            status,
            ply,
            result,
            users,
            bots,
            accepted,
            created,
            finished,
            step,
            finished_at=finished,
            rated_at=finished if status == "finished" else None,
        )
        if rated and status == "finished":
            self._rate(chunk, pool, game_id, guild, users, winners, finished)
        if probe:
            self.records.append(game_id)

    def _finished_channel(self, rng: random.Random, guild: int) -> int:
        return CHANNEL_BASE + guild * 64 + int(rng.random() * CHANNELS_PER_GUILD)

    def _game_rows(
        self,
        chunk: Chunk,
        game_id: int,
        pool: PoolGame,
        guild: int | None,
        channel: int | None,
        status: str,
        ply: int,
        result: str | None,
        users: list[int],
        bots: list[bool],
        accepted: list[bool],
        created: float,
        updated: float,
        step: float,
        *,
        finished_at: float | None = None,
        rated_at: float | None = None,
        deadline: tuple[float, float, float | None] | None = None,
    ) -> None:
        last = pool.moves[ply - 1] if ply else None
        deadline_at, deadline_from, remind_at = deadline if deadline else (None, None, None)
        chunk.rows["games"].append(
            (
                game_id,
                pool.game,
                "channel",
                self.guild_ids[guild] if guild is not None else None,
                channel,
                status,
                pool.seed,
                pool.variant,
                pool.rules_version,
                None,
                ply,
                pool.snapshots[ply],
                self.options,
                result,
                users[0],
                created,
                updated,
                finished_at,
                deadline_at,
                deadline_from,
                remind_at,
                last[0] if last else None,
                users[last[0]] if last else None,
                last[1] if last else None,
                rated_at,
            ),
        )
        seats = chunk.rows["seats"]
        for seat, user in enumerate(users):
            seats.append((game_id, seat, user, int(bots[seat]), int(accepted[seat])))
        if ply:
            u: list[int | None] = [*users, None, None, None]
            chunk.copies.append((game_id, pool.index, ply, created, step, u[0], u[1], u[2], u[3]))

    # --- ratings ------------------------------------------------------------------------
    def _rate(
        self,
        chunk: Chunk,
        pool: PoolGame,
        game_id: int,
        guild: int,
        users: list[int],
        winners: tuple[int, ...],
        finished: float,
    ) -> None:
        """Rating changes of a game, in its server's table and the global one: a simple
        rule stands in for the rating system (the numbers are not the point, the rows are)."""
        n = len(users)
        if winners:
            outcomes = [_WIN if seat in winners else _LOSS for seat in range(n)]
        else:
            outcomes = [_DRAW] * n
        others = ["[" + ", ".join(str(o) for o in sorted(users) if o != u) + "]" for u in users]
        changes = chunk.rows["rating_changes"]
        game = pool.game
        for scope in (self.guild_ids[guild], 0):
            records = [self._record(game, scope, u) for u in users]
            mus = [r[0] for r in records]
            total = sum(mus)
            for i in range(n):
                record = records[i]
                mu, sigma = record[0], record[1]
                outcome, place, step, tally = outcomes[i]
                after_mu, after_sigma = mu + step * sigma, max(0.8, sigma * 0.96)
                others_mu = (total - mus[i]) / (n - 1)
                changes.append(
                    (
                        scope,
                        users[i],
                        game_id,
                        game,
                        finished,
                        outcome,
                        place,
                        mu,
                        sigma,
                        after_mu,
                        after_sigma,
                        others_mu,
                        others[i],
                    )
                )
                record[0], record[1] = after_mu, after_sigma
                record[2] += 1
                record[tally] += 1
                streak = record[6]
                if outcome == "win":
                    record[6] = streak + 1 if streak > 0 else 1
                elif outcome == "draw":
                    record[6] = 0
                else:
                    record[6] = streak - 1 if streak < 0 else -1

    def _record(self, game: str, scope: int, user: int) -> list[float]:
        """[μ, σ, games, wins, draws, losses, streak] of a player in a game and scope."""
        key = (game, scope, user)
        record = self.skills.get(key)
        if record is None:
            record = self.skills[key] = [*START_SKILL, 0, 0, 0, 0, 0]
        return record

    def _ratings_chunk(self) -> Chunk:
        chunk = Chunk()
        chunk.rows["ratings"] = [
            (game, scope, user, r[0], r[1], int(r[2]), int(r[3]), int(r[4]), int(r[5]), int(r[6]))
            for (game, scope, user), r in self.skills.items()
        ]
        self._count(chunk)
        return chunk

    # --- the daily hills ----------------------------------------------------------------
    def _daily_chunks(self) -> Iterator[Chunk]:
        s = self.scale
        rng = self.rng
        players = s.daily_players
        totals: dict[tuple[str, int], list[float]] = {}
        runs_of = [0] * players
        chunk = Chunk()
        first = self.today - timedelta(days=s.days - 1)
        for d, games in enumerate(self.daily):
            day = first + timedelta(days=d)
            assert day.isoformat() == games[0].day
            week = iso_week(day)
            midnight = _midnight(day)
            latest = max(midnight + 1.0, min(midnight + DAY, self.now - 120.0))
            chosen = rng.sample(range(players), min(players, s.daily_runs))
            for u in chosen:
                n = int(rng.random() * len(games))
                run = games[n]
                game_id = self._take_id()
                started = midnight + (latest - midnight) * rng.random() * 0.9
                step = 5.0 + 20.0 * rng.random()
                finished = min(started + step * (len(run.moves) + 1), latest)
                user = self.user_id(u)
                chunk.add(
                    "games",
                    (
                        game_id,
                        "hillbert",
                        "daily",
                        None,
                        None,
                        "finished",
                        run.seed,
                        None,
                        self.pool_by_game["hillbert"][0].rules_version,
                        None,
                        len(run.moves),
                        run.snapshot,
                        "{}",
                        run.result,
                        user,
                        started,
                        finished,
                        finished,
                        None,
                        None,
                        None,
                        0,
                        user,
                        run.moves[-1],
                        None,
                    ),
                )
                chunk.add("seats", (game_id, 0, user, 0, 1))
                step = (finished - started) / (len(run.moves) + 1)
                number = _daily_number(d, n)
                chunk.copies.append(
                    (game_id, number, len(run.moves), started, step, user, None, None, None)
                )
                scored = (run.score, run.turns, run.sizes, 0, 0)
                chunk.add("daily_runs", (user, run.day, week, game_id, started, finished, *scored))
                runs_of[u] += 1
                for period in ("all", week):
                    total = totals.get((period, u))
                    if total is None:
                        totals[(period, u)] = [run.score, run.score, 1, finished]
                    else:
                        total[0] += run.score
                        total[1] = max(total[1], run.score)
                        total[2] += 1
                        total[3] = max(total[3], finished)
            best = max(games, key=lambda g: (g.score, -g.turns))
            line = "\n".join(best.moves)
            chunk.add("daily_par", (best.day, best.score + 2, best.turns, midnight + 60.0, line))
            if day == self.today:
                self._today(set(chosen))
            if len(chunk.copies) >= CHUNK:
                self._count(chunk)
                yield chunk
                chunk = Chunk()
        chunk.rows["daily_totals"] = [
            (period, self.user_id(u), int(t[0]), int(t[1]), int(t[2]), t[3])
            for (period, u), t in totals.items()
        ]
        most = max(range(players), key=lambda u: runs_of[u])
        self.most_runs = self.person(most)
        self._count(chunk)
        yield chunk

    def _today(self, played: set[int]) -> None:
        members = range(2, self.scale.busy_members)  # not the player with many games
        done = [u for u in members if u in played]
        self.played_today = self.person(done[0] if done else 0)
        self.newcomers = [self.person(u) for u in members if u not in played][:DAILY_NEWCOMERS]

    # --- games in play ------------------------------------------------------------------
    def _live_chunks(self) -> Iterator[Chunk]:
        s = self.scale
        chunk = Chunk()
        content = random.Random(11)  # the busy server's games: the same at every size
        heavy_live = min(HEAVY_LIVE, s.busy_live // 4)
        for j in range(s.busy_live):
            self._live_game(chunk, content, 0, j, probe_moves=j < MOVE_PROBES, heavy=j < heavy_live)
            if len(chunk.copies) >= CHUNK:
                self._count(chunk)
                yield chunk
                chunk = Chunk()
        for j in range(s.live):
            self._live_game(
                chunk,
                self.rng,
                self._guild(self.rng),
                s.busy_live + j,
                probe_resign=j < RESIGN_PROBES,
            )
            if len(chunk.copies) >= CHUNK:
                self._count(chunk)
                yield chunk
                chunk = Chunk()
        self._count(chunk)
        yield chunk

    def _live_game(
        self,
        chunk: Chunk,
        rng: random.Random,
        guild: int,
        number: int,
        *,
        probe_moves: bool = False,
        probe_resign: bool = False,
        heavy: bool = False,
    ) -> None:
        game_id = self._take_id()
        channel = LIVE_CHANNEL_BASE + number
        probe = probe_moves or probe_resign
        pool = self._pool_game(rng, seats=2 if probe else None)
        if probe:
            while pool.all_moved is None or pool.all_moved + 4 > pool.ply:
                pool = self._pool_game(rng, seats=2)
        people = self._players(rng, guild, pool.seats)
        if heavy and 0 not in people:
            people[0] = 0
        users = [self.user_id(u) for u in people]
        created = self.now - HOUR - 20 * DAY * rng.random()
        challenge = not probe and pool.seats > 1 and rng.randrange(100) < CHALLENGES
        if challenge:
            created = self.now - 60.0 - 20 * HOUR * rng.random()
            self._game_rows(
                chunk,
                game_id,
                pool,
                guild,
                channel,
                "challenge",
                0,
                None,
                users,
                [False] * pool.seats,
                [True] + [False] * (pool.seats - 1),
                created,
                created,
                1.0,
            )
        else:
            low = pool.all_moved if pool.all_moved is not None else 1
            high = pool.ply - (4 if probe else 1)
            ply = rng.randint(min(low, high), high) if high > 0 else 0
            updated = min(self.now - 60.0, created + 600.0 * ply)
            step = (updated - created) / (ply + 1)
            deadline_at = self.now + 2 * HOUR + 70 * HOUR * rng.random()
            remind = deadline_at - HOUR if rng.random() < 0.8 else None
            self._game_rows(
                chunk,
                game_id,
                pool,
                guild,
                channel,
                "active",
                ply,
                None,
                users,
                [False] * pool.seats,
                [True] * pool.seats,
                created,
                updated,
                step,
                deadline=(deadline_at, updated, remind),
            )
            if probe_moves:
                self.moves.append(self._move_probe(pool, ply, game_id, channel, people))
            if probe_resign:
                player = self.person(people[rng.randrange(2)])
                self.resigns.append(ResignProbe(game_id, channel, self.guild_ids[guild], player))
        if guild == 0 and not self.busy_channel:
            self.busy_channel = channel
        self.live_ids.append(game_id)

    def _move_probe(
        self, pool: PoolGame, ply: int, game_id: int, channel: int, people: list[int]
    ) -> MoveProbe:
        """The next move of a live game: one of the legal moves of its first seat to act
        that does not end it."""
        from host.play.live import game_of

        game = game_of(pool.game)
        state = game.new_state(pool.seed, pool.seats, pool.variant)
        for seat, text in pool.moves[:ply]:
            state = state.play(seat, state.parse_move(seat, text))
        assert state.to_text() == pool.snapshots[ply]
        seat = min(state.to_act)
        rng = random.Random(game_id)
        legal = state.legal_moves(seat)
        for _ in range(50):
            move = legal[rng.randrange(len(legal))]
            if state.play(seat, move).to_act:
                break
        player = self.person(people[seat])
        return MoveProbe(game_id, channel, self.guild_ids[0], player, state.move_text(move))

    def manifest(self) -> Manifest:
        assert self.played_today is not None and self.most_runs is not None
        return Manifest(
            scale=self.scale,
            now=self.now,
            busy_guild=self.guild_ids[0],
            busy_channel=self.busy_channel,
            heavy=self.person(0),
            rival=self.person(1),
            played_today=self.played_today,
            newcomers=self.newcomers,
            most_runs=self.most_runs,
            moves=self.moves,
            resigns=self.resigns,
            records=self.records,
            live_ids=self.live_ids,
            counts=dict(self.counts),
        )


def _midnight(day: date) -> float:
    return float((day - date(1970, 1, 1)).days) * DAY


def _cumulative(weights: list[int]) -> list[float]:
    total = 0.0
    out = []
    for weight in weights:
        total += weight
        out.append(total)
    return out


def _index(cumulative: list[float], at: float) -> int:
    for i, edge in enumerate(cumulative):
        if at < edge:
            return i
    return len(cumulative) - 1


def expected_moves(scale: Scale) -> int:
    """Roughly how many moves a history of `scale` holds (for progress)."""
    pool = channel_pool()
    mean = sum(g.ply for g in pool) / len(pool)
    return math.ceil(mean * (scale.finished + scale.live + scale.busy_live) * 0.8)
