"""`make bench`: the figures the README quotes, as Markdown tables.

    python -m bench           # every table, full budgets (several minutes)
    python -m bench --quick   # the same tables on tiny budgets, to see that they run
    python -m bench --quick --table discord --table data   # only those tables
    python -m bench --smoke   # the least that measures every figure: does each one run?

A figure that cannot be measured (the product raised) is printed as "not measured", with
its traceback on stderr, and the other figures are still measured.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from bench import (
    data_scale,
    discord_load,
    memory_load,
    saturation,
    sharded_load,
    tournament_bench,
    web_load,
    web_play,
)
from bench.common import cores, row
from bench.engine_bench import playouts_per_second
from bench.render_bench import games_with_renderers, render_figures, replay_figures
from bench.service_bench import committed_moves_per_second, move_through_service
from bench.strength import timing_rows
from engine import registry


@dataclass(frozen=True, slots=True)
class Budget:
    playout_seconds: float
    renders: int
    service_moves: int
    #: Positions per game for the computer players' decision times.
    positions: int
    commits: int
    load: discord_load.LoadConfig
    sharded: sharded_load.ShardedConfig
    memory: memory_load.MemoryConfig
    web: web_load.WebLoadConfig
    play: web_play.WebPlayConfig
    data: data_scale.DataScaleConfig
    tournament: tournament_bench.TournamentConfig
    saturation: saturation.SaturationConfig


FULL = Budget(
    2.0,
    200,
    200,
    3,
    3000,
    discord_load.LoadConfig(),
    sharded_load.ShardedConfig(),
    memory_load.MemoryConfig(),
    web_load.WebLoadConfig(),
    web_play.WebPlayConfig(),
    data_scale.FULL,
    tournament_bench.TournamentConfig(),
    saturation.SaturationConfig(),
)
QUICK = Budget(
    0.2,
    20,
    20,
    1,
    300,
    discord_load.QUICK,
    sharded_load.QUICK,
    memory_load.QUICK,
    web_load.QUICK,
    web_play.QUICK,
    data_scale.QUICK,
    tournament_bench.QUICK,
    saturation.QUICK,
)
SMOKE = Budget(
    0.1,
    5,
    20,
    1,
    100,
    discord_load.SMOKE,
    sharded_load.SMOKE,
    memory_load.SMOKE,
    web_load.SMOKE,
    web_play.SMOKE,
    data_scale.SMOKE,
    tournament_bench.SMOKE,
    saturation.SMOKE,
)


def guarded(figure: str, conditions: str, rows: Callable[[], Iterator[str]]) -> Iterator[str]:
    """The rows of one figure, or one "not measured" row if measuring it raised."""
    try:
        yield from list(rows())
    except Exception as exc:
        traceback.print_exc()
        reason = " ".join(str(exc).split())[:300] or type(exc).__name__
        yield row(figure, conditions, f"not measured: {reason}", "")


def figures(budget: Budget) -> Iterator[str]:
    yield row("figure", "conditions", "measured", "target")
    yield row("---", "---", "---", "---")
    yield row(
        "machine",
        f"{cores()}, load average {os.getloadavg()[0]:.1f} at the start",
        f"{platform.machine()}, Python {platform.python_version()}",
        "",
    )
    for game in registry.all_games():
        where = f"{budget.playout_seconds:g} s, one core"

        def playouts(game_id: str = game.id, where: str = where) -> Iterator[str]:
            rate, plies = playouts_per_second(game_id, budget.playout_seconds)
            yield row(
                f"{game_id}: random playouts per second",
                where,
                f"{rate:,.0f} ({plies:.0f} plies each)",
                "report",
            )

        yield from guarded(f"{game.id}: random playouts per second", where, playouts)
    for game_id in games_with_renderers():
        where = f"{budget.renders} renders of a mid-game board"

        def renders(game_id: str = game_id, where: str = where) -> Iterator[str]:
            p50, p95, size = render_figures(game_id, budget.renders)
            yield row(
                f"{game_id}: render p50 / p95",
                where,
                f"{p50:.1f} / {p95:.1f} ms, PNG {size / 1024:.0f} KB",
                "p50 ≤ 10 ms, ≤ 80 KB",
            )

        yield from guarded(f"{game_id}: render p50 / p95", where, renders)
    for game in registry.all_games():
        where = f"{budget.service_moves} moves over 20 games, no Discord"

        def service(game_id: str = game.id, where: str = where) -> Iterator[str]:
            p50, p95 = asyncio.run(move_through_service(game_id, budget.service_moves))
            yield row(
                f"{game_id}: one move through the service p50 / p95",
                where,
                f"{p50:.1f} / {p95:.1f} ms",
                "p50 ≤ 25 ms",
            )

        yield from guarded(f"{game.id}: one move through the service", where, service)
    # Every Hokito move lands on an occupied square, so a game has at most 35 moves: the
    # longest seeded random game stands for "a long Hokito game", and the other games
    # show replays of 60 moves.
    where = "seeded random games, drawn and encoded in this process"

    def replays() -> Iterator[str]:
        for game_id in ("hokito", "molehill", "everest"):
            seconds, size, moves = replay_figures(game_id, 60)
            name = registry.get(game_id).name
            yield row(
                f"replay: a whole {name} game as an animated GIF",
                f"a seeded random game of {moves} moves, drawn and encoded in this process",
                f"{seconds:.2f} s, {size / 1024 / 1024:.2f} MB",
                "≤ 2 s, ≤ 3 MB",
            )

    yield from guarded("replay: a whole game as an animated GIF", where, replays)
    where = f"{budget.commits:,} moves, one after another"

    def commits() -> Iterator[str]:
        rate = asyncio.run(committed_moves_per_second(budget.commits))
        yield row("SQLite committed moves per second", where, f"{rate:,.0f}", "≥ 1,000")

    yield from guarded("SQLite committed moves per second", where, commits)


def search_table(budget: Budget) -> Iterator[str]:
    yield row("game (seats)", "conditions", "sims/s", "easy", "normal", "hard")
    yield row("---", "---", "---", "---", "---", "---")
    where = f"{budget.positions} positions, seconds per decision mean / max, one core"

    def rows() -> Iterator[str]:
        for line in timing_rows(budget.positions):
            name, rest = line.removeprefix("| ").split(" | ", 1)
            yield f"| {name} | {where} | {rest}"

    yield from guarded("computer players", where, rows)


def engine_tables(budget: Budget) -> None:
    for line in figures(budget):
        print(line, flush=True)


def search_tables(budget: Budget) -> None:
    for line in search_table(budget):
        print(line, flush=True)


#: The tables in the order they are printed, by the name `--table` gives each.
TABLES: dict[str, Callable[[Budget], None]] = {
    "figures": engine_tables,
    "search": search_tables,
    "discord": lambda budget: discord_load.run(budget.load),
    "sharded": lambda budget: sharded_load.run(budget.sharded),
    "memory": lambda budget: memory_load.run(budget.memory),
    "web": lambda budget: web_load.run(budget.web),
    "play": lambda budget: web_play.run(budget.play),
    "data": lambda budget: data_scale.run(budget.data),
    "tournament": lambda budget: tournament_bench.run(budget.tournament),
    "saturation": lambda budget: saturation.run(budget.saturation),
}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Hilltop's benchmarks, as Markdown tables.")
    sizes = parser.add_mutually_exclusive_group()
    sizes.add_argument("--quick", action="store_true", help="tiny budgets (about two minutes)")
    sizes.add_argument("--smoke", action="store_true", help="the least that measures every figure")
    parser.add_argument(
        "--table",
        action="append",
        choices=list(TABLES),
        help="only this table (may be given again); every table when none is given",
    )
    args = parser.parse_args(argv)
    budget = QUICK if args.quick else SMOKE if args.smoke else FULL
    chosen = [name for name in TABLES if args.table is None or name in args.table]
    for number, name in enumerate(chosen):
        if number:
            print()
        TABLES[name](budget)


if __name__ == "__main__":
    main()
