"""Computer players over the engine contract.

A computer player only ever sees `state.view(seat)`. `choose_move` is the single entry
point the host calls, so a stronger search can replace the policy behind a level name
without touching any caller.

Levels: `easy`, `normal` and `hard` search with `engine.mcts` (more simulations each);
`random` and `greedy` (one ply ahead by `evaluate`) are kept to measure them against.
What the search needs to know about a game beyond the contract (how to sample what a
view hides, how to play on quickly, where to cut playouts) is its `Model`, registered
here by game id; a game without one is searched with the defaults.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from engine import mcts
from engine.core import GameState
from engine.everest import (
    HEIGHTS,
    HIDDEN,
    NEXT,
    OFF,
    PEAK,
    SNOWBALL_KIND,
    SQUARES,
    EverestState,
    Plan,
    PlanSpace,
    canonical_actions,
    coin_count,
)
from engine.hillbert import HillbertState
from engine.hollowtown import DICE_HARVEST, HollowtownState
from engine.mcts import Budget, Model
from engine.rng import Rng, seed_from_text

Policy = Callable[[GameState[Any], int, Rng], Hashable]
State = GameState[Any]


def random_policy(state: GameState[Any], seat: int, rng: Rng) -> Hashable:
    moves: Sequence[Hashable] = state.legal_moves(seat)
    move, _ = rng.choice(moves)
    return move


#: The most moves the greedy player tries in one decision.
GREEDY_SAMPLE = 200


def _sample_indices(total: int, count: int, rng: Rng) -> list[int]:
    """`count` distinct indices below `total`, in increasing order."""
    chosen: set[int] = set()
    while len(chosen) < count:
        index, rng = rng.below(total)
        chosen.add(index)
    return sorted(chosen)


def greedy_policy(state: GameState[Any], seat: int, rng: Rng) -> Hashable:
    """The move whose resulting position `evaluate`s best for `seat` (one ply ahead);
    ties are broken by the generator so the bot does not always play the same line.
    Seats that choose at the same moment are assumed to let their deadline pass."""
    legal = state.legal_moves(seat)
    if len(legal) > GREEDY_SAMPLE:
        # Everest offers thousands of plans; a fixed sample keeps a decision well under
        # a second while still choosing among many candidates.
        moves = [legal[i] for i in _sample_indices(len(legal), GREEDY_SAMPLE, rng)]
    else:
        moves = list(legal)
    others = sorted(state.to_act - {seat})
    best: list[Hashable] = []
    best_value = float("-inf")
    for move in moves:
        after = state.play(seat, move)
        for other in others:
            idle = after.timeout_move(other)
            after = after.play(other, idle if idle is not None else after.legal_moves(other)[0])
        value = after.evaluate(seat)
        if value > best_value:
            best_value, best = value, [move]
        elif value == best_value:
            best.append(move)
    choice, _ = rng.choice(best)
    return choice


# --- what the search knows about each game ------------------------------------------------


def _hidden_hill(view: State, seat: int, rng: Rng) -> tuple[State, Rng]:
    """A sampled hill below the board: the view hides the seed that makes the rows."""
    assert isinstance(view, HillbertState)
    seed, rng = rng.next64()
    return replace(view, rng=Rng(seed)), rng


def _hidden_dice(view: State, seat: int, rng: Rng) -> tuple[State, Rng]:
    """Sampled dice for the Harvest ties of the dice variant."""
    assert isinstance(view, HollowtownState)
    seed, rng = rng.next64()
    return replace(view, rng=Rng(seed)), rng


@lru_cache(maxsize=64)
def _plans(coins: int) -> PlanSpace:
    return PlanSpace(coins)


def _walk(square: int, direction: int, points: int) -> tuple[int, int]:
    """Where a lone yeti moving `points` toward `direction` stops, and how often it
    falls on the way (RULES 3(a) without other yeti: enough to rank plans)."""
    here, falls = square, 0
    while points > 0:
        ahead = NEXT[here][direction]
        if ahead == OFF:
            return OFF, falls
        rise = HEIGHTS[ahead] - HEIGHTS[here]
        cost = 2 if rise == 1 else 1
        if rise >= 2 or points < cost:
            break
        points -= cost
        here = ahead
        falls += rise <= -2
    return here, falls


#: WALKS[square][direction][points], for squares on the board and 1-5 points.
WALKS: dict[int, tuple[tuple[tuple[int, int], ...], ...]] = {
    sq: tuple(tuple(_walk(sq, d, mp) for mp in range(6)) for d in range(4)) for sq in SQUARES
}


def _spot_value(square: int, falls: int) -> float:
    """How good a lone yeti's end square is: high ground, the peak most, no falls."""
    if square == OFF:
        return -1.0 - falls
    return HEIGHTS[square] + (1.0 if square in PEAK else 0.0) - falls


Climb = tuple[tuple[int, int], ...]


@lru_cache(maxsize=4096)
def _climbs(square: int, coins: int) -> tuple[tuple[float, Climb], ...]:
    """Every sequence of (coin, direction) moves a plan can make from `square` with
    `coins`, valued by where a lone yeti ends, best first (the other slots of the plan
    will roar or throw)."""
    slots = min(3, coin_count(coins))
    movers = [c for c in range(1, 6) if coins >> c & 1]
    found: list[tuple[float, Climb]] = []

    def extend(here: int, climb: Climb, used: int, falls: int) -> None:
        if coin_count(coins & ~used) >= slots - len(climb):
            found.append((_spot_value(here, falls), climb))
        if len(climb) == slots or here == OFF:
            return
        for coin in movers:
            if not used >> coin & 1:
                for d in range(4):
                    end, fell = WALKS[here][d][coin]
                    extend(end, (*climb, (coin, d)), used | 1 << coin, falls + fell)

    extend(square, (), 0, 0)
    found.sort(key=lambda item: -item[0])
    return tuple(found)


def _everest_plan(state: EverestState, seat: int, rng: Rng) -> tuple[Plan, Rng]:
    """A plausible plan: mostly one that climbs (or holds the peak) as well as a lone
    yeti could, with its free slots roaring or throwing in random directions; sometimes
    a climb a little worse, sometimes any plan at all."""
    coins = state.available(seat)
    plans = _plans(coins)
    where = state.pos[seat]
    roll, rng = rng.below(20)
    if where == OFF or roll < 3:
        index, rng = rng.below(len(plans))
        return plans[index], rng
    climbs = _climbs(where, coins)
    slack = 1.0 if roll < 14 else 2.5
    best = climbs[0][0]
    count = next((i for i, (v, _) in enumerate(climbs) if v < best - slack), len(climbs))
    index, rng = rng.below(count)
    climb = climbs[index][1]
    slots = min(3, coin_count(coins))
    # Which slots move (in the climb's order); the others roar once or throw.
    moving: list[int] = []
    for i in range(slots):
        left, need = slots - i, len(climb) - len(moving)
        pick, rng = rng.below(left)
        if pick < need:
            moving.append(i)
    plan: list[tuple[int, int]] = []
    steps = iter(climb)
    roar_free = bool(coins & 1) and all(c != 0 for c, _ in climb)
    for i in range(slots):
        if i in moving:
            plan.append(next(steps))
            continue
        kind, rng = rng.below(3)
        d, rng = rng.below(4)
        if kind == 0 and roar_free:
            plan.append((0, d))
            roar_free = False
        else:
            plan.append((SNOWBALL_KIND, d))
    actions = canonical_actions(plan, coins)
    if actions is None:
        index, rng = rng.below(len(plans))
        return plans[index], rng
    return Plan(actions), rng


def _everest_move(state: State, seat: int, rng: Rng) -> tuple[Hashable, Rng]:
    assert isinstance(state, EverestState)
    if state.stage == "plan":
        return _everest_plan(state, seat, rng)
    moves = state.legal_moves(seat)
    index, rng = rng.below(len(moves))
    return moves[index], rng


def _everest_determinize(view: State, seat: int, rng: Rng) -> tuple[State, Rng]:
    """Plausible secret plans for the seats that have planned, and fresh dice."""
    assert isinstance(view, EverestState)
    plans = view.plans
    if view.stage == "plan" and HIDDEN in plans:
        filled = list(plans)
        for other, plan in enumerate(plans):
            if plan == HIDDEN:
                guess, rng = _everest_plan(view, other, rng)
                filled[other] = guess.actions
        plans = tuple(filled)
    seed, rng = rng.next64()
    return replace(view, plans=plans, rng=Rng(seed)), rng


def _hollowtown_model(view: State) -> Model:
    assert isinstance(view, HollowtownState)
    dice = view.variant == DICE_HARVEST
    return Model(determinize=_hidden_dice if dice else None, playout_depth=0, eval_scale=2.0)


MODELS: dict[str, Callable[[State], Model]] = {
    "hokito": lambda view: Model(playout_depth=0, eval_scale=8.0),
    "molehill": lambda view: Model(playout_depth=0, eval_scale=3.0),
    "hollowtown": _hollowtown_model,
    "everest": lambda view: Model(
        determinize=_everest_determinize,
        playout=_everest_move,
        propose=_everest_move,
        playout_depth=2,
        eval_scale=3.0,
        widening=2.0,
        # Every extra yeti makes resolving a round (its orders of play) much dearer.
        effort=1 / (view.num_seats - 1),
    ),
    "hillbert": lambda view: Model(determinize=_hidden_hill, playout_depth=3, eval_scale=10.0),
}


#: For a game with no model: random playouts, cut after 40 plies and scored by `evaluate`.
DEFAULT_MODEL = Model(playout_depth=40)


def model_for(view: State) -> Model:
    factory = MODELS.get(view.game_id)
    return factory(view) if factory is not None else DEFAULT_MODEL


@dataclass(frozen=True, slots=True)
class Searcher:
    """A level that searches: `simulations` per decision, at most `seconds` each."""

    simulations: int
    seconds: float

    def budget(self, model: Model) -> Budget:
        return Budget(max(1, round(self.simulations * model.effort)), self.seconds)

    def __call__(self, state: State, seat: int, rng: Rng) -> Hashable:
        model = model_for(state)
        return mcts.search(state, seat, model, self.budget(model), rng).move


LEVELS: dict[str, Policy] = {
    "random": random_policy,
    "easy": Searcher(40, 0.25),
    "normal": Searcher(300, 0.5),
    "hard": Searcher(2000, 1.0),
    "greedy": greedy_policy,
}
DEFAULT_LEVEL = "normal"


def choose_move(state: GameState[Any], seat: int, level: str = DEFAULT_LEVEL) -> Hashable:
    """A legal move for `seat`, chosen from what the seat may see; deterministic for a
    given position so replays and tests are reproducible."""
    view = state.view(seat)
    if not view.legal_moves(seat):
        raise ValueError(f"seat {seat} has no move to make")
    policy = LEVELS.get(level, LEVELS[DEFAULT_LEVEL])
    return policy(view, seat, decision_rng(view, seat, level))


def decision_rng(view: State, seat: int, level: str) -> Rng:
    """The generator of one decision: a function of what the seat sees and the level."""
    return Rng(seed_from_text(f"{view.to_text()}|{seat}|{level}"))


def hint(state: GameState[Any], seat: int) -> Hashable:
    """A suggested move for a practising player (a Hillbert run, say): what `hard` would
    play from what the seat may see."""
    return choose_move(state, seat, "hard")
