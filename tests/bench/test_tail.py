"""The slowest moves taken apart from a bot's trace: each step counted once, in the
command's own tasks only, and the process's pauses over the move's time."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import tail

#: One /move, interaction 7, dispatched at 10.000: parsed, its service run in task t1
#: (the writer's lock waited for 0.3 s, a board queued 0.1 s and drawn in 0.02 s, the
#: ratings' lock waited for 0.2 s), a write of background work it set off (task t2,
#: which inherits its id), and a garbage collection half inside the move's time.
TRACE = """\
7 parsed 10.010000 t9
7 write 10.050000 10.350000 10.360000 t1 commit<apply
7 write 10.100000 10.900000 10.910000 t2 _clear
7 ratings 10.360000 10.560000 10.570000 t1 ratings<settle
7 paint 10.570000 10.670000 10.690000 10.700000 t1 draw_board
7 service 10.020000 10.700000 t1
7 respond 10.015000 10.750000 t9
- gc 10.700000 10.900000 2 1000
- lag 12.000000 12.100000
"""


@pytest.fixture
def parts(tmp_path: Path) -> dict[str, float]:
    path = tmp_path / "bot.trace"
    path.write_text(TRACE)
    return tail.parts(tail.read(path), 7, 10.0, 10.8)


def test_each_step_of_a_move_is_its_own_tasks_only(parts: dict[str, float]) -> None:
    assert parts["total"] == pytest.approx(0.8)
    assert parts["gateway: dispatch until discord.py parsed it"] == pytest.approx(0.01)
    assert parts["discord.py until the command ran"] == pytest.approx(0.005)
    assert parts["service (the move, its board drawn)"] == pytest.approx(0.68)
    # The background write (task t2) is not the move's.
    assert parts["database writer: waiting for its lock"] == pytest.approx(0.3)
    assert parts["database writer: holding it"] == pytest.approx(0.01)
    assert parts["the lock of rating finished games: waiting"] == pytest.approx(0.2)
    assert parts["render pool: queued"] == pytest.approx(0.1)
    assert parts["render pool: drawing"] == pytest.approx(0.02)
    assert parts["render pool: result back on the loop"] == pytest.approx(0.01)
    assert parts["after the service until shown"] == pytest.approx(0.1)


def test_pauses_of_the_process_count_over_the_moves_time_only(parts: dict[str, float]) -> None:
    assert parts["meanwhile: garbage collections"] == pytest.approx(0.1)
    assert parts["meanwhile: loop woke late"] == 0.0
