"""The tournament benchmark at its smallest: a Swiss of eight with no-shows played to its
end on SQLite, and a field of fifty paired, print their rows, and no round waits for the
clock to start."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from bench import tournament_bench

SMALL = replace(
    tournament_bench.SMOKE,
    players=8,
    rounds=3,
    postgres=False,
    pairing_entrants=50,
    pairing_rounds=2,
    pairing_runs=2,
)


def test_a_small_tournament_prints_its_figures_and_no_round_is_stuck(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tournament_bench.run(SMALL)
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line]
    assert all(line.startswith("| ") and line.endswith(" |") for line in lines), out
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    assert all(len(cells) == 4 for cells in rows), out
    assert rows[1] == ["---"] * 4
    measured = {cells[0]: cells[2] for cells in rows[2:]}
    assert not any("not measured" in cell or "n/a" in cell for cell in measured.values()), out
    figures = [
        "tournament, SQLite: stuck rounds",
        "tournament, SQLite: a round's last result to every game of the next round",
        "tournament, SQLite: a whole event",
        "Swiss pairing of 50 entrants",
    ]
    found = {f: [cell for name, cell in measured.items() if name.startswith(f)] for f in figures}
    assert all(len(cells) == 1 and re.search(r"\d", cells[0]) for cells in found.values()), out
    [stuck] = found["tournament, SQLite: stuck rounds"]
    assert stuck == "0 of 2 round changes"
    [event] = found["tournament, SQLite: a whole event"]
    # The no-shows' games were won by the clock, which took them out.
    clock = re.search(r"(\d+) won by the clock, (\d+) of 2 no-shows out", event)
    assert clock is not None and int(clock[1]) >= 1 and int(clock[2]) >= 1, event
