"""`make bench`: print the figures the README quotes, as a Markdown table."""

from __future__ import annotations

import asyncio
import os
import platform

from bench.engine_bench import playouts_per_second
from bench.render_bench import games_with_renderers, render_figures
from bench.service_bench import (
    committed_moves_per_second,
    discord_move_latency,
    move_through_service,
)
from bench.strength import timing_rows
from engine import registry


def main() -> None:
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}\n"
    )
    print("| figure | measured | target |")
    print("| --- | --- | --- |")
    for game in registry.all_games():
        rate, plies = playouts_per_second(game.id)
        print(
            f"| {game.id}: random playouts per second | {rate:,.0f} "
            f"({plies:.0f} plies each) | report |"
        )
    for game_id in games_with_renderers():
        p50, p95, size = render_figures(game_id)
        print(
            f"| {game_id}: render p50 / p95 | {p50:.1f} / {p95:.1f} ms, "
            f"PNG {size / 1024:.0f} KB | p50 ≤ 10 ms, ≤ 80 KB |"
        )
    for game in registry.all_games():
        p50, p95 = asyncio.run(move_through_service(game.id))
        print(
            f"| {game.id}: one move through the service p50 / p95 | {p50:.1f} / {p95:.1f} ms "
            "| p50 ≤ 25 ms |"
        )
    print(
        "\nComputer players: hard's MCTS simulations per second, and seconds per decision"
        " (mean / max) for easy, normal, hard.\n"
    )
    print("| game (seats) | sims/s | easy | normal | hard |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(timing_rows(3)))
    print()
    rate = asyncio.run(committed_moves_per_second())
    print(f"| SQLite committed moves per second | {rate:,.0f} | ≥ 1,000 |")
    p50, p95 = asyncio.run(discord_move_latency())
    print(
        f"| /move in the Discord layer, 50 active games, p50 / p95 | {p50:.1f} / "
        f"{p95:.1f} ms | p50 ≤ 30 ms |"
    )


if __name__ == "__main__":
    main()
