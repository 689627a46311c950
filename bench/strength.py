"""`make strength`: how strong the computer levels are, as Markdown tables.

Two-player games (Everest with two yeti): seeded matches between two levels, the stronger
level taking each seat in turn on the same seed, draws counted as half, with a 95% Wilson
interval. Solo games (Hillbert): each level's mean score on the same seeds, within a cap
on turns (a good player can go on for thousands). Searching levels run their fixed
simulation count with no wall-time cap here, so every game replays exactly. A last table
times single decisions under the real caps.

    python -m bench.strength              # 100 games per pairing
    python -m bench.strength --games 20   # a quick look
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Hashable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from engine import ai, mcts, registry
from engine.core import Game, GameState
from engine.rng import Rng, seed_from_text

#: The pairings of every two-player game: (the stronger level, its opponent).
PAIRINGS = (("hard", "random"), ("hard", "greedy"), ("hard", "easy"))
#: The levels compared on solo games, by mean score.
SOLO_LEVELS = ("random", "greedy", "easy", "normal", "hard")
#: Turns after which a solo game is scored as it stands.
SOLO_TURNS = 100
#: A two-player game still running after this many decisions is scored as it stands.
MAX_PLIES = 2000
#: Targets for the share of points the stronger level takes.
TARGETS = {"random": 0.95, "greedy": 0.75, "easy": 0.70}
Z95 = 1.959964


def wilson(points: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a share of `points` out of `games`."""
    if games == 0:
        return 0.0, 1.0
    p = points / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def untimed(level: str) -> ai.Policy:
    """The level's policy without its wall-time cap, so a decision depends only on the
    position and the simulation count."""
    policy = ai.LEVELS[level]
    if isinstance(policy, ai.Searcher):
        return replace(policy, seconds=math.inf)
    return policy


def decide(state: GameState[Any], seat: int, level: str, game_seed: int) -> Hashable:
    """What `choose_move` does, with the untimed policy, its generator also seeded by
    the game's seed: Mole Hill's board is the same for every seed, so without it every
    game between two levels would repeat the same moves."""
    view = state.view(seat)
    rng = Rng(seed_from_text(f"{view.to_text()}|{seat}|{level}|{game_seed}"))
    return untimed(level)(view, seat, rng)


def new_game(game: Game[Any], seed: int) -> GameState[Any]:
    return game.new_state(seed, 1 if game.max_players == 1 else 2, None)


# --- two-player matches -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Match:
    game_id: str
    seed: int
    #: The level in each seat.
    levels: tuple[str, str]


def play_match(match: Match) -> tuple[float, float]:
    """The points of each seat (1 a win, 0.5 a draw) of one whole game."""
    state = new_game(registry.get(match.game_id), match.seed)
    for _ in range(MAX_PLIES):
        if not state.to_act:
            break
        # Simultaneous decisions are all taken on the position before any is played.
        seats = sorted(state.to_act)
        moves = [decide(state, seat, match.levels[seat], match.seed) for seat in seats]
        for seat, move in zip(seats, moves, strict=True):
            state = state.play(seat, move)
    outcome = state.outcome()
    if outcome is None:
        scores = state.scores()
        if scores[0] == scores[1]:
            return 0.5, 0.5
        return (1.0, 0.0) if scores[0] > scores[1] else (0.0, 1.0)
    if not outcome.winners:
        return 0.5, 0.5
    return tuple(1.0 if s in outcome.winners else 0.0 for s in (0, 1))  # type: ignore[return-value]


def matches(game_id: str, strong: str, weak: str, games: int) -> list[Match]:
    """`games` games; each seed is played twice, the stronger level in each seat."""
    out = []
    for i in range(games):
        seed = 1000 + i // 2
        levels = (strong, weak) if i % 2 == 0 else (weak, strong)
        out.append(Match(game_id, seed, levels))
    return out


# --- solo games ---------------------------------------------------------------------------


def solo_score(game_id: str, level: str, seed: int) -> int:
    state = new_game(registry.get(game_id), seed)
    for _ in range(SOLO_TURNS):
        if not state.to_act:
            break
        state = state.play(0, decide(state, 0, level, seed))
    return state.scores()[0]


def _solo_task(task: tuple[str, str, int]) -> int:
    return solo_score(*task)


# --- timing -------------------------------------------------------------------------------


def sample_positions(game: Game[Any], players: int, count: int) -> Iterator[GameState[Any]]:
    """`count` positions spread through seeded random games: the k-th is k/(count+1) of
    the way through its game, so short games (Hokito's end in about 30 plies) are not
    sampled only near their end, where a search has little to decide."""
    for seed in range(1, count + 1):
        state = game.new_state(seed, players, None)
        rng = Rng(seed)
        states = [state]
        while state.to_act and len(states) < MAX_PLIES:
            seat, rng = rng.choice(sorted(state.to_act))
            move, rng = rng.choice(state.legal_moves(seat))
            state = state.play(seat, move)
            states.append(state)
        live = [s for s in states if s.to_act]
        yield live[len(live) * seed // (count + 1)]


def _seconds_per_decision(positions: list[GameState[Any]], level: str) -> list[float]:
    times = []
    for state in positions:
        start = time.perf_counter()
        ai.choose_move(state, min(state.to_act), level)
        times.append(time.perf_counter() - start)
    return times


def _hard_search(positions: list[GameState[Any]]) -> tuple[list[float], float]:
    """Seconds per decision of `hard`, and its simulations per second. The search is the
    one `ai.choose_move` runs, called directly for its simulation count."""
    policy = ai.LEVELS["hard"]
    assert isinstance(policy, ai.Searcher)
    times = []
    simulations = searching = 0.0
    for state in positions:
        start = time.perf_counter()
        seat = min(state.to_act)
        view = state.view(seat)
        model = ai.model_for(view)
        rng = ai.decision_rng(view, seat, "hard")
        result = mcts.search(view, seat, model, policy.budget(model), rng)
        times.append(time.perf_counter() - start)
        simulations += result.simulations
        searching += result.seconds
    return times, simulations / searching if searching else 0.0


def timing_rows(count: int) -> list[str]:
    """One row per game and seat count: hard's simulations per second, and seconds per
    decision (mean / max) for easy, normal and hard on `count` positions."""
    rows = []
    for game in registry.all_games():
        for players in sorted({game.min_players, game.max_players}):
            positions = list(sample_positions(game, players, count))
            hard, rate = _hard_search(positions)
            levels = [_seconds_per_decision(positions, level) for level in ("easy", "normal")]
            cells = [f"{statistics.mean(t):.2f} / {max(t):.2f}" for t in [*levels, hard]]
            rows.append(f"| {game.id} ({players}) | {rate:,.0f} | " + " | ".join(cells) + " |")
    return rows


# --- the report ---------------------------------------------------------------------------


def two_player_games() -> list[Game[Any]]:
    return [g for g in registry.all_games() if g.min_players <= 2 <= g.max_players]


def solo_games() -> list[Game[Any]]:
    return [g for g in registry.all_games() if g.max_players == 1]


def run(games: int, jobs: int, only: Sequence[str], timing: bool) -> None:
    chosen = [g for g in registry.all_games() if not only or g.id in only]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        duel_rows = []
        for game in (g for g in two_player_games() if g in chosen):
            for strong, weak in PAIRINGS:
                started = time.perf_counter()
                todo = matches(game.id, strong, weak, games)
                results = list(pool.map(play_match, todo))
                points = sum(p[m.levels.index(strong)] for m, p in zip(todo, results, strict=True))
                wins = sum(
                    1 for m, p in zip(todo, results, strict=True) if p[m.levels.index(strong)] == 1
                )
                draws = sum(1 for p in results if p[0] == 0.5)
                low, high = wilson(points, games)
                target = TARGETS[weak]
                verdict = "yes" if points / games >= target else "no"
                duel_rows.append(
                    f"| {game.id} | {strong} vs {weak} | {wins}-{draws}-{games - wins - draws} "
                    f"| {points / games:.0%} | {low:.0%}-{high:.0%} | ≥ {target:.0%} | {verdict} "
                    f"| {time.perf_counter() - started:,.0f} s |"
                )
                print(duel_rows[-1], flush=True)
        solo_rows = []
        for game in (g for g in solo_games() if g in chosen):
            for level in SOLO_LEVELS:
                started = time.perf_counter()
                tasks = [(game.id, level, 1000 + i) for i in range(games)]
                scores = list(pool.map(_solo_task, tasks))
                solo_rows.append(
                    f"| {game.id} | {level} | {statistics.mean(scores):.1f} "
                    f"| {statistics.median(scores):.0f} | {min(scores)}-{max(scores)} "
                    f"| {time.perf_counter() - started:,.0f} s |"
                )
                print(solo_rows[-1], flush=True)
    print()
    print(f"{games} games per pairing; wins-draws-losses of the first level; draws count half.")
    print()
    print("| game | pairing | W-D-L | score | 95% interval | target | met | time |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(duel_rows))
    if solo_rows:
        print()
        print(f"Solo: the score within {SOLO_TURNS} turns on the same {games} seeds.")
        print()
        print("| game | level | mean | median | range | time |")
        print("| --- | --- | --- | --- | --- | --- |")
        print("\n".join(solo_rows))
    if timing:
        print()
        print(
            "Seconds per decision (mean / max) under the real caps; hard's simulations per second."
        )
        print()
        print("| game (seats) | sims/s | easy | normal | hard |")
        print("| --- | --- | --- | --- | --- |")
        print("\n".join(timing_rows(10)))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per pairing (100)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (1)")
    parser.add_argument("--only", nargs="*", default=(), help="game ids to measure (all)")
    parser.add_argument("--no-timing", action="store_true", help="skip the timing table")
    args = parser.parse_args(argv)
    run(args.games, args.jobs, args.only, not args.no_timing)


if __name__ == "__main__":
    main()
