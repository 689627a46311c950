"""Monte Carlo tree search (UCT) over the engine contract, for every game.

One iteration: fix the unknowns (a *determinization*: the hidden plans of other seats and
the dice, sampled by the game's `Model`), walk down the tree choosing moves by UCB1, add
one node, play on with the playout policy, and credit every seat with its reward along
the path. Rewards are per seat in [0, 1]: 1 a win, 0 a loss, 0.5 a draw; a playout cut
at `Model.playout_depth` scores each seat by its `evaluate`, squashed by a logistic. A
solo game has no winner, so its reward is the squashed gain of `evaluate` over the root.

Nodes are keyed by the moves that lead to them (open loop), so one tree serves every
determinization: a move is offered at a node only when it is legal in the state that the
current determinization reaches there, and UCB counts how often each move was available
(information-set MCTS). When nothing is hidden and no dice roll in the view, the state of
each node is fixed: nodes then keep their state and legal moves, and the search proves
wins and losses near the end (MCTS-solver: a node is proven once one move proves a win
for the seat to act, or every move is proven).

Where several seats act at once (Everest plans), each acting seat runs its own bandit at
the node (decoupled UCT) and the child is reached by the joint move. Seats with very many
moves (thousands of Everest plans) see them through progressive widening: a node offers
a seat about `widening * sqrt(visits)` moves, proposed by the model or drawn at random.

The search is deterministic for a given generator and simulation count; the wall-time cap
in `Budget` is a safety net that only binds on a slow or busy machine.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import GameState, Model
from engine.rng import Rng

State = GameState[Any]
Rewards = tuple[float, ...]
#: Tries at proposing a move not yet offered at a node before giving up for this visit.
_PROPOSE_TRIES = 8
#: A seat with more legal moves than this is never listed in full: moves are sampled.
_LIST_LIMIT = 4096


@dataclass(frozen=True, slots=True)
class Budget:
    """How long to think: at most `simulations` iterations and `seconds` of wall time.
    `exploration` is the UCB1 constant for rewards in [0, 1]."""

    simulations: int
    seconds: float = 1.0
    exploration: float = 0.7


@dataclass(frozen=True, slots=True)
class MoveStats:
    """One root move: how often it was tried and its mean reward for the searching seat;
    `proven` is its exact reward when the solver settled it, else None."""

    move: Hashable
    visits: int
    mean: float
    proven: float | None


@dataclass(frozen=True, slots=True)
class SearchResult:
    move: Hashable
    simulations: int
    seconds: float
    root: tuple[MoveStats, ...]


class _Arm:
    """One move of one seat at a node."""

    __slots__ = ("avail", "total", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0
        self.avail = 0


class _Side:
    """The bandit of one acting seat at a node. `untried` lists, in the order they will
    be tried, the legal moves not offered yet (kept only while the node's state is fixed
    and its moves are listed). `available` is the arms legal under `legal`, the move list
    seen last: games hand out the same list object for the same moves, so it is reused
    while they do."""

    __slots__ = ("arms", "available", "legal", "untried", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.arms: dict[Hashable, _Arm] = {}
        self.legal: Sequence[Hashable] = ()
        self.available: list[tuple[Hashable, _Arm]] = []
        self.untried: list[Hashable] | None = None


class _Node:
    __slots__ = ("children", "proven", "sides", "state")

    def __init__(self, state: State | None) -> None:
        self.sides: dict[int, _Side] = {}
        self.children: dict[tuple[Hashable, ...], _Node] = {}
        #: Kept only when the transition to this node is fixed (nothing hidden).
        self.state = state
        #: The exact rewards once the solver has settled this node.
        self.proven: Rewards | None = None


def _squash(value: float) -> float:
    if value >= 40.0:
        return 1.0
    if value <= -40.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(-value))


class _Search:
    def __init__(self, view: State, seat: int, model: Model, budget: Budget, rng: Rng) -> None:
        self.view = view
        self.seat = seat
        self.model = model
        self.budget = budget
        self.rng = rng
        self.fixed = model.determinize is None
        self.seats = range(view.num_seats)
        self.solo = view.num_seats == 1
        self.baseline = view.evaluate(seat) if self.solo else 0.0
        self.root = _Node(view if self.fixed else None)

    # --- rewards ----------------------------------------------------------------------------
    def terminal_rewards(self, state: State) -> Rewards:
        if self.solo:
            return self.cutoff_rewards(state)
        outcome = state.outcome()
        if outcome is None or not outcome.winners:
            return tuple(0.5 for _ in self.seats)
        winners = outcome.winners
        return tuple(1.0 if s in winners else 0.0 for s in self.seats)

    def cutoff_rewards(self, state: State) -> Rewards:
        scale = self.model.eval_scale
        if self.solo:
            return (_squash((state.evaluate(0) - self.baseline) / scale),)
        return tuple(_squash(state.evaluate(s) / scale) for s in self.seats)

    # --- moves ------------------------------------------------------------------------------
    def random_move(self, moves: Sequence[Hashable]) -> Hashable:
        index, self.rng = self.rng.below(len(moves))
        return moves[index]

    def playout_move(self, state: State, actor: int) -> Hashable:
        policy = self.model.playout
        if policy is None:
            return self.random_move(state.legal_moves(actor))
        move, self.rng = policy(state, actor, self.rng)
        return move

    def new_move(
        self, state: State, actor: int, side: _Side, legal: Sequence[Hashable]
    ) -> Hashable | None:
        """A legal move that has no arm at this node yet, or None if none is found."""
        untried = side.untried
        if untried is not None:
            return untried.pop() if untried else None
        arms = side.arms
        propose = self.model.propose
        if propose is not None:
            for _ in range(_PROPOSE_TRIES):
                move, self.rng = propose(state, actor, self.rng)
                if move not in arms:
                    return move
        count = len(legal)
        if len(arms) >= count:
            return None
        if count > _LIST_LIMIT:
            for _ in range(_PROPOSE_TRIES):
                move = self.random_move(legal)
                if move not in arms:
                    return move
            return None
        start, self.rng = self.rng.below(count)
        for i in range(count):
            move = legal[(start + i) % count]
            if move not in arms:
                return move
        return None

    def side_of(self, node: _Node, state: State, actor: int) -> _Side:
        side = node.sides.get(actor)
        if side is None:
            side = node.sides[actor] = _Side()
            if self.fixed:
                legal = state.legal_moves(actor)
                side.legal = legal
                if self.model.propose is None and len(legal) <= _LIST_LIMIT:
                    order = list(legal)
                    # Reverse Fisher-Yates draws: `pop` then takes them in a seeded order.
                    for i in range(len(order) - 1, 0, -1):
                        j, self.rng = self.rng.below(i + 1)
                        order[i], order[j] = order[j], order[i]
                    side.untried = order
        return side

    def select(self, node: _Node, state: State, actor: int) -> Hashable:
        side = self.side_of(node, state, actor)
        side.visits += 1
        arms = side.arms
        if self.fixed:
            legal = side.legal
        else:
            legal = state.legal_moves(actor)
            if legal is not side.legal:
                side.legal = legal
                if isinstance(legal, tuple | list) and len(legal) <= _LIST_LIMIT:
                    allowed: Sequence[Hashable] | set[Hashable] = set(legal)
                else:
                    allowed = legal
                side.available = [(m, a) for m, a in arms.items() if m in allowed]
        available = side.available
        for _, arm in available:
            arm.avail += 1
        limit = len(legal)
        widening = self.model.widening
        if widening is not None:
            limit = min(limit, math.ceil(widening * math.sqrt(side.visits)))
        if len(available) < limit or not available:
            move = self.new_move(state, actor, side, legal)
            if move is None and not available:
                move = self.random_move(legal)
            if move is not None:
                arm = arms[move] = _Arm()
                arm.avail = 1
                available.append((move, arm))
                return move
        return self.best_ucb(node, actor, available)

    def best_ucb(self, node: _Node, actor: int, available: list[tuple[Hashable, _Arm]]) -> Hashable:
        c = self.budget.exploration
        best: Hashable = available[0][0]
        best_value = -1.0
        children = node.children if self.fixed else None
        for move, arm in available:
            # Every arm is visited in the iteration that creates it.
            mean = arm.total / arm.visits
            if children is not None:
                child = children.get((move,))
                if child is not None and child.proven is not None:
                    mean = child.proven[actor]
            value = mean + c * math.sqrt(math.log(arm.avail) / arm.visits)
            if value > best_value:
                best, best_value = move, value
        return best

    # --- one iteration ------------------------------------------------------------------------
    def iterate(self) -> None:
        if self.fixed:
            state = self.view
        else:
            determinize = self.model.determinize
            assert determinize is not None
            state, self.rng = determinize(self.view, self.seat, self.rng)
        node = self.root
        path: list[tuple[_Node, tuple[int, ...], tuple[Hashable, ...]]] = []
        while True:
            if node.proven is not None:
                rewards = node.proven
                break
            actors = tuple(sorted(state.to_act))
            if not actors:
                rewards = self.terminal_rewards(state)
                if self.fixed:
                    node.proven = rewards
                break
            joint = tuple(self.select(node, state, a) for a in actors)
            path.append((node, actors, joint))
            child = node.children.get(joint)
            if child is not None and child.state is not None:
                state = child.state
            else:
                for actor, move in zip(actors, joint, strict=True):
                    state = state.play(actor, move)
            if child is None:
                child = node.children[joint] = _Node(state if self.fixed else None)
                node = child
                if not state.to_act:
                    rewards = self.terminal_rewards(state)
                    if self.fixed:
                        child.proven = rewards
                else:
                    rewards = self.playout(state)
                break
            node = child
        self.backup(path, rewards)

    def playout(self, state: State) -> Rewards:
        depth = self.model.playout_depth
        plies = 0
        while True:
            actors = state.to_act
            if not actors:
                return self.terminal_rewards(state)
            if depth is not None and plies >= depth:
                return self.cutoff_rewards(state)
            if len(actors) == 1:
                (actor,) = actors
                state = state.play(actor, self.playout_move(state, actor))
            else:
                # Simultaneous moves are all chosen before any is played.
                order = sorted(actors)
                moves = [self.playout_move(state, actor) for actor in order]
                for actor, move in zip(order, moves, strict=True):
                    state = state.play(actor, move)
            plies += 1

    def backup(
        self, path: list[tuple[_Node, tuple[int, ...], tuple[Hashable, ...]]], rewards: Rewards
    ) -> None:
        settled = self.fixed
        for node, actors, joint in reversed(path):
            for actor, move in zip(actors, joint, strict=True):
                arm = node.sides[actor].arms[move]
                arm.visits += 1
                arm.total += rewards[actor]
            if settled:
                # A node's proof can only change when the child below it was proven.
                settled = node.children[joint].proven is not None and len(actors) == 1
                if settled and node.proven is None:
                    self.try_prove(node, actors[0])

    def try_prove(self, node: _Node, actor: int) -> None:
        """Max-n solving: a proven win for the seat to act settles the node; so does
        every legal move being proven, at the best of them."""
        side = node.sides[actor]
        best: Rewards | None = None
        complete = not side.untried and len(side.arms) == len(side.legal)
        for move in side.arms:
            child = node.children.get((move,))
            proven = child.proven if child is not None else None
            if proven is None:
                complete = False
                continue
            if proven[actor] >= 1.0:
                node.proven = proven
                return
            if best is None or proven[actor] > best[actor]:
                best = proven
        if complete:
            node.proven = best

    # --- the answer ---------------------------------------------------------------------------
    def root_stats(self) -> tuple[MoveStats, ...]:
        side = self.root.sides.get(self.seat)
        if side is None:
            return ()
        out = []
        for move, arm in side.arms.items():
            child = self.root.children.get((move,)) if self.fixed else None
            proven = None
            if child is not None and child.proven is not None:
                proven = child.proven[self.seat]
            out.append(MoveStats(move, arm.visits, arm.total / arm.visits, proven))
        return tuple(out)


def _preference(stats: MoveStats) -> tuple[int, int, float]:
    """Proven wins first, proven losses last, then the most tried, then the best mean."""
    tier = 1
    if stats.proven is not None:
        tier = 2 if stats.proven >= 1.0 else 0 if stats.proven <= 0.0 else 1
    return (tier, stats.visits, stats.mean)


def search(view: State, seat: int, model: Model, budget: Budget, rng: Rng) -> SearchResult:
    """The move the search prefers for `seat` in `view` (what that seat may see), with
    the statistics behind it. `seat` must be to act and have a legal move."""
    start = time.perf_counter()
    legal = view.legal_moves(seat)
    if seat not in view.to_act or not legal:
        raise ValueError(f"seat {seat} has no move to make")
    if len(legal) == 1:
        return SearchResult(legal[0], 0, time.perf_counter() - start, ())
    run = _Search(view, seat, model, budget, rng)
    deadline = start + budget.seconds
    done = 0
    while done < budget.simulations:
        run.iterate()
        done += 1
        if run.root.proven is not None or time.perf_counter() > deadline:
            break
    stats = tuple(s for s in run.root_stats() if s.move in legal)
    move = max(stats, key=_preference).move if stats else legal[0]
    return SearchResult(move, done, time.perf_counter() - start, stats)
