"""Away time through the console, every line a console of its own on one database and
one simulated clock: alice goes away, bob's lists and the board say so with the date, a
win on time is not claimed against her, and /back gives her unused days back."""

from __future__ import annotations

import io
from pathlib import Path

from console.front import Console, console_front
from data.storage import Storage
from tests.houses import house_of


class Clock:
    def __init__(self) -> None:
        self.now = 1_798_761_600.0  # 2027-01-01 00:00 UTC

    def __call__(self) -> float:
        return self.now


async def run(storage: Storage, out: Path, clock: Clock, *lines: str) -> str:
    said = []
    for line in lines:
        house = house_of(storage, front=console_front(), clock=clock)
        stream = io.StringIO()
        try:
            await Console(house, out, stream).run_line(line)
        finally:
            house.close()
        said.append(stream.getvalue())
    return "".join(said)


async def test_away_through_the_console(sqlite_storage: Storage, tmp_path: Path) -> None:
    clock = Clock()
    out = tmp_path / "out"
    await run(
        sqlite_storage,
        out,
        clock,
        "alice /play game:hokito opponent:bob seed:1 seat:first deadline:1",
        "bob /accept",
    )
    clock.now += 120  # alice's minute is out: bob may claim the win
    expired = await run(sqlite_storage, out, clock, "bob /board")
    assert "ran out of time" in expired and "Claim" in expired
    away = await run(sqlite_storage, out, clock, "alice /away days:3")
    assert "Away until Jan 4, 2027" in away and "4 away days left" in away
    mine = await run(sqlite_storage, out, clock, "bob /games mine")
    assert "alice is away until Jan 4, 2027" in mine
    board = await run(sqlite_storage, out, clock, "bob /board")
    assert "alice is away until Jan 4, 2027: their time is stopped." in board
    refused = await run(sqlite_storage, out, clock, "bob /press Claim")
    assert "! alice is away until Jan 4, 2027: their time is stopped, so there is no win" in refused
    clock.now += 24 * 3600 + 60
    back = await run(sqlite_storage, out, clock, "alice /back")
    assert "1 unused day given back; 5 away days left" in back
    claimed = await run(sqlite_storage, out, clock, "bob /press Claim")
    assert "!" not in claimed.splitlines()[0]
