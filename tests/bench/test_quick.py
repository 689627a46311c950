"""`python -m bench --smoke` runs every table end to end and prints figures in each: the
benchmarks' own code on the least budgets that measure every figure (`--quick` and the
full run differ from it only in their numbers).

Each table is run as a process of its own (`--table`), so that the tables are checked side
by side with the other tests instead of one after another."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench import data_scale
from bench.__main__ import TABLES
from bench.render_bench import games_with_renderers
from engine import registry

ROOT = Path(__file__).resolve().parents[2]
#: Commands of the stored-history table with a time at both sizes (the others may have
#: no call to time, such as a page the product does not offer).
DATA_COMMANDS = [name for name in data_scale.COMMANDS if name != "/games here ▶"]
#: Figures whose measured cell must hold a number, by table; one row each unless counted.
FIGURES: dict[str, dict[str, int]] = {
    "figures": {
        "random playouts per second": len(registry.all_games()),
        "one move through the service": len(registry.all_games()),
        "render p50 / p95": len(games_with_renderers()),
        "SQLite committed moves per second": 1,
    },
    # The computer players' decision times: one row per game and number of seats, checked
    # apart (`searched`).
    "search": {},
    "discord": {
        "/move: dispatch to visible answer": 1,
        "autocomplete of /move": 1,
        "moves per second achieved": 1,
        "failed interactions": 1,
        "bot CPU per accepted move": 1,
        "REST requests per accepted move": 1,
        "after SIGKILL": 1,
        "capacity step": 1,
        "capacity: most moves/s": 1,
        "mixed: /move p50 / p99": 1,
        "computer delay": 1,
    },
    "sharded": {
        "PostgreSQL, 2 shard processes: /move: dispatch to visible answer": 1,
        "PostgreSQL, 2 shard processes: failed interactions": 1,
        "PostgreSQL, 2 shard processes: after SIGKILL": 1,
        "PostgreSQL restarted in the middle of the load": 2,
        "PostgreSQL capacity step": 2,
        "PostgreSQL capacity:": 1,
    },
    "memory": {"bot RSS after": 2, "bot RSS growth": 1},
    # The web pages: loaded, streamed (over a few games, then one), and the Discord path
    # alone and while they are loaded.
    "web": {
        "web: a game page (/g/<id>)": 1,
        "web: bot CPU per game page": 1,
        "web: a move to its event on every stream": 2,
        "web, the Discord path alone / watched": 5,
        "web: a game page while the Discord path": 1,
    },
    # Playing on the pages: a click to its answer, to both players' pages, to Discord.
    "play": {"web play: a click to": 3},
    # The stored history at two sizes: its builds, each command, the memory.
    "data": {
        "data scale, SQLite: build of": 2,
        "data scale, PostgreSQL": len(DATA_COMMANDS) + 2,
        "data scale, SQLite: RSS after touching": len(data_scale.SMOKE.memory_marks),
        "data scale, SQLite: RSS growth": 1,
        **{f"data scale, SQLite: {name}": 1 for name in DATA_COMMANDS},
    },
    # A Swiss played to its end on each backend, and a big field paired.
    "tournament": {
        "tournament, SQLite: stuck rounds": 1,
        "tournament, SQLite: a round's last result": 1,
        "tournament, SQLite: a whole event": 1,
        "tournament, PostgreSQL, 2 shard processes: stuck rounds": 1,
        "tournament, PostgreSQL, 2 shard processes: rounds started by the process": 1,
        "tournament, PostgreSQL, 2 shard processes: a round's last result": 1,
        "tournament, PostgreSQL, 2 shard processes: a whole event": 1,
        "Swiss pairing of": 1,
    },
    # Every channel moving as fast as the bot answers: the bot, then a minimal bot on the
    # same stack, in one sitting; and a burst of game starts while other channels play.
    "saturation": {
        "saturation, the bot: moves/s": 1,
        "saturation, a minimal bot on the same stack: moves/s": 1,
        "saturation: the bot's /move p99 against": 1,
        "saturation: the bot's moves/s over": 1,
        "saturation, the bot: failed interactions": 1,
        "saturation, the minimal bot: failed interactions": 1,
        "saturation, the bot: plies lost": 1,
        "burst, the others each in a server of their own: their /move p99": 1,
        "burst, the others each in a server of their own: the started games'": 1,
        "burst, the others each in a server of their own: their failed": 1,
        "burst, the others all in one server: their /move p99": 1,
        "burst, the others all in one server: the started games'": 1,
        "burst, the others all in one server: their failed": 1,
    },
}


def test_every_table_has_its_figures_checked() -> None:
    assert list(FIGURES) == list(TABLES)


@pytest.mark.parametrize("table", list(TABLES))
# Past the run's own guard below, which comes first.
@pytest.mark.timeout(960)
def test_the_smallest_run_prints_the_table_with_figures(table: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke", "--table", table],
        cwd=ROOT,
        capture_output=True,
        text=True,
        # Only a guard against a hang, far past what a table takes on a loaded machine: the
        # test waits for the run, not for the clock.
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line]
    assert lines, f"the {table} table printed nothing"
    assert all(line.startswith("| ") and line.endswith(" |") for line in lines), done.stdout
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    for figure, least in FIGURES[table].items():
        measured = [r[2] for r in rows if figure in r[0]]
        assert len(measured) >= least, f"no row for {figure!r} in\n{done.stdout}"
        for cell in measured:
            assert re.search(r"\d", cell), (figure, cell)
            assert "not measured" not in cell and "n/a" not in cell, (figure, cell)
    if table == "search":
        searched = {r[0].split(" (")[0] for r in rows if re.fullmatch(r"[a-z]+ \(\d\)", r[0])}
        assert searched == {g.id for g in registry.all_games()}
