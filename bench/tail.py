"""The slowest moves of a run taken apart, from a bot's trace (`bench.bot_trace`).

Each accepted /move's time, from its dispatch until its board showed, is split into the
steps the trace saw: the gateway (until discord.py parsed it), until the command's code
ran, the service (its waits for the database writer's lock, its writes, the render pool's
queue, the drawing itself) and the answer's requests; and, over the same stretch, the
garbage collections, the loop's late wake-ups and its long callbacks. The slowest
hundredth of moves are set beside the median ones.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import ms, row
from bench.load_driver import Run
from tests.cogs.fake_discord import Exchange


@dataclass(slots=True)
class Steps:
    """What the trace saw of one interaction."""

    parsed: float | None = None
    #: The tasks the command ran in: its events count, not those of background work it
    #: set off (which inherit its id).
    tasks: set[str] = field(default_factory=set)
    respond: tuple[float, float] | None = None
    service: tuple[float, float] | None = None
    #: (asked, got, let go) of the writer's lock.
    writes: list[tuple[float, float, float]] = field(default_factory=list)
    #: (asked, a worker began, ended, back on the loop) of each drawing.
    paints: list[tuple[float, float, float, float]] = field(default_factory=list)
    http: list[tuple[float, float]] = field(default_factory=list)
    #: (asked, got, let go) of the game's lock and of its telling's turn.
    locks: dict[str, list[tuple[float, float, float]]] = field(default_factory=dict)
    #: Calls into the database threads, by connection: (queued, result back).
    sql: dict[str, list[tuple[float, float]]] = field(default_factory=dict)


@dataclass(slots=True)
class Trace:
    steps: dict[int, Steps] = field(default_factory=dict)
    #: Process events by label: (start, end, detail).
    process: dict[str, list[tuple[float, float, str]]] = field(default_factory=dict)


def read(path: Path) -> Trace:
    trace = Trace()
    lines = [line.split(" ") for line in path.read_text(errors="replace").splitlines()]
    # The command's own tasks first: its steps are noted as they end, after what ran in it.
    for who, label, *rest in lines:
        if label in ("respond", "service") and who.isdigit():
            steps = trace.steps.setdefault(int(who), Steps())
            steps.tasks.add(_task(rest))
            times = [float(t) for t in rest if t[:1].isdigit()]
            setattr(steps, label, (times[0], times[1]))
    for who, label, *rest in lines:
        if who == "-":
            start, end, *detail = rest
            trace.process.setdefault(label, []).append((float(start), float(end), " ".join(detail)))
            continue
        if not who.isdigit() or label in ("respond", "service"):
            continue
        steps = trace.steps.setdefault(int(who), Steps())
        if label != "parsed" and _task(rest) not in steps.tasks:
            continue
        _add(steps, label, rest)
    return trace


def _task(rest: list[str]) -> str:
    return next((t for t in rest if t[:1] == "t" and t[1:].isdigit()), "t0")


def _add(steps: Steps, label: str, rest: list[str]) -> None:
    times = [float(t) for t in rest if t[:1].isdigit()]
    if label == "parsed":
        steps.parsed = times[0]
    elif label == "write":
        steps.writes.append((times[0], times[1], times[2]))
    elif label == "paint":
        steps.paints.append((times[0], times[1], times[2], times[3]))
    elif label == "http":
        steps.http.append((times[0], times[1]))
    elif label in ("gamelock", "turn", "ratings"):
        steps.locks.setdefault(label, []).append((times[0], times[1], times[2]))
    elif label == "sql":
        steps.sql.setdefault(rest[-1], []).append((times[0], times[1]))


def keep(path: Path, run: Run, only: list[Exchange] | None = None) -> None:
    """The run's accepted moves (or `only` those interactions), for a closer look: id,
    dispatched at, seconds taken."""
    chosen = only if only is not None else [e for e, _ in run.moves]
    lines = [
        f"{e.id} {e.sent_at:.6f} {e.latency:.6f}"
        for e in chosen
        if run.ok(e) and not e.reply_ephemeral
    ]
    path.write_text("\n".join(lines) + "\n")


def overlap(events: list[tuple[float, float, str]], start: float, end: float) -> float:
    return sum(max(0.0, min(end, e) - max(start, s)) for s, e, _ in events)


def parts(trace: Trace, exchange_id: int, sent: float, shown: float) -> dict[str, float]:
    """Seconds of one move's time spent in each step (those the trace saw)."""
    steps = trace.steps.get(exchange_id, Steps())
    found: dict[str, float] = {"total": shown - sent}
    if steps.parsed is not None:
        found["gateway: dispatch until discord.py parsed it"] = steps.parsed - sent
        if steps.respond is not None:
            found["discord.py until the command ran"] = steps.respond[0] - steps.parsed
    if steps.service is not None:
        found["service (the move, its board drawn)"] = steps.service[1] - steps.service[0]
    found["database writer: waiting for its lock"] = sum(g - a for a, g, _ in steps.writes)
    found["database writer: holding it"] = sum(r - g for _, g, r in steps.writes)
    found["render pool: queued"] = sum(b - a for a, b, _, _ in steps.paints)
    found["render pool: drawing"] = sum(e - b for _, b, e, _ in steps.paints)
    found["render pool: result back on the loop"] = sum(d - e for _, _, e, d in steps.paints)
    for label, name in (
        ("gamelock", "the game's lock"),
        ("turn", "the game's turn of telling"),
        ("ratings", "the lock of rating finished games"),
    ):
        found[f"{name}: waiting"] = sum(g - a for a, g, _ in steps.locks.get(label, []))
    for role in ("writer", "reader"):
        calls = steps.sql.get(role, [])
        found[f"database {role} thread: calls, queued to back"] = sum(e - s for s, e in calls)
    if steps.service is not None:
        found["after the service until shown"] = shown - steps.service[1]
    found["REST requests"] = sum(e - s for s, e in steps.http)
    for label, name in (("gc", "garbage collections"), ("lag", "loop woke late"),
                        ("slow", "long loop callbacks")):  # fmt: skip
        found[f"meanwhile: {name}"] = overlap(trace.process.get(label, []), sent, shown)
    return found


def rows(
    path: Path,
    run: Run,
    share: float = 0.01,
    *,
    only: list[Exchange] | None = None,
    label: str = "the bot's saturation run",
) -> Iterator[str]:
    """The slowest `share` of the run's accepted moves (or of `only` those) against the
    middle tenth."""
    trace = read(path)
    chosen = only if only is not None else [e for e, _ in run.moves]
    moves = sorted(
        (e for e in chosen if run.ok(e) and not e.reply_ephemeral), key=lambda e: e.latency
    )
    if not moves:
        return
    count = max(1, round(share * len(moves)))
    slowest = moves[-count:]
    low = len(moves) * 45 // 100
    middle = moves[low : max(len(moves) * 55 // 100, low + 1)]

    def mean(group: list[Exchange]) -> dict[str, float]:
        taken = [parts(trace, e.id, e.sent_at, e.sent_at + e.latency) for e in group]
        names = dict.fromkeys(k for t in taken for k in t)
        return {k: statistics.fmean(t.get(k, 0.0) for t in taken) for k in names}

    slow, usual = mean(slowest), mean(middle)
    where = f"{label}, {count} slowest of {len(moves)} moves against the median tenth"
    for name, seconds in slow.items():
        median = ms(usual.get(name, 0.0))
        yield row(f"tail: {name}", where, f"{ms(seconds)} (median moves: {median})", "report", "")
    begin, end = run.start, run.start + run.elapsed
    for label in ("gc", "lag", "slow"):
        events = [e for e in trace.process.get(label, []) if begin <= e[0] <= end]
        ranked = sorted(events, key=lambda x: x[0] - x[1])[:3]
        longest = "; ".join(f"{ms(e - s)} {what[:60]}".strip() for s, e, what in ranked)
        yield row(
            f"tail: the process's {label} events during the run",
            where,
            f"{len(events)}, {ms(sum(e - s for s, e, _ in events))} in all; longest "
            f"{longest or 'none'}",
            "report",
            "",
        )
