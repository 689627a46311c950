"""Tournaments through the console, every line in a console of its own on one database,
as one process per command would be: the games are found in their own channels by the
names the console gives them, played there and resigned, and every round starts by
itself."""

from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import Path

import pytest

from console.front import Console, console_front
from data.storage import Storage
from tests.houses import house_of

#: A game's first board, in its own channel: `[#club-r1-alice-v-dave] Hokito · move 0`.
_GAME_STARTS = re.compile(r"^\[#([\w-]+)\] Hokito · move 0$", re.M)
_BOARD = re.compile(r"^Board \d+: (\w+) – (\w+)", re.M)
_BYE = re.compile(r"^Bye: (\w+)", re.M)


class Lines:
    """Console lines, each run by a console built afresh on the same database."""

    def __init__(self, storage: Storage, out: Path) -> None:
        self.storage = storage
        self.out = out
        self.said: list[str] = []

    async def __call__(self, *lines: str) -> str:
        text = []
        for line in lines:
            house = house_of(self.storage, front=console_front())
            stream = io.StringIO()
            try:
                await Console(house, self.out, stream).run_line(line)
            finally:
                house.close()
            text.append(stream.getvalue())
        said = "".join(text)
        self.said.append(said)
        return said


async def play_games(lines: Lines, started: str, losers: dict[str, str]) -> str:
    """Every game that `started` shows starting: each player moves once by the board's
    first buttons, then the loser named for its channel (or the second player) resigns.
    What the last resignation set off (the next round) is returned."""
    after = ""
    for channel in _GAME_STARTS.findall(started):
        first, second = channel.split("-r", 1)[1].split("-", 1)[1].split("-v-")
        await lines(
            f"#{channel} {first} /press 1",
            f"#{channel} {first} /press 1",
            f"#{channel} {second} /press 1",
            f"#{channel} {second} /press 1",
        )
        loser = losers.get(channel, second)
        after = await lines(f"#{channel} {loser} /resign", f"#{channel} {loser} /press Yes")
        assert "This game counts for" in after
    return after


@pytest.fixture
def lines(sqlite_storage: Storage, tmp_path: Path) -> Lines:
    return Lines(sqlite_storage, tmp_path / "out")


async def test_a_round_robin_of_four_through_the_console(lines: Lines) -> None:
    created = await lines("#club root /tournament create game:hokito format:round-robin name:Club")
    assert "Club: entries open" in created
    await lines(*(f"#club {name} /tournament join" for name in ("alice", "bob", "carol")))
    await lines("#club dave /press Join")
    said = await lines("#club root /tournament start")
    # A tournament game is a game like any other: /games mine lists it, with its place.
    [first_game, *_] = _GAME_STARTS.findall(said)
    player = first_game.split("-r1-", 1)[1].split("-v-")[0]
    assert f"#{first_game}" in await lines(f"{player} /games mine")
    strength = {"alice": 0, "bob": 1, "carol": 2, "dave": 3}
    met: Counter[frozenset[str]] = Counter()
    for round_ in (1, 2, 3):
        assert f"[#club] Club: round {round_} of 3" in said
        pairs = _BOARD.findall(said.split(f"Club: round {round_} of 3", 1)[1])
        met.update(frozenset(p) for p in pairs)
        losers = {}
        for channel in _GAME_STARTS.findall(said):
            players = channel.split("-r", 1)[1].split("-", 1)[1].split("-v-")
            losers[channel] = max(players, key=strength.__getitem__)
        said = await play_games(lines, said, losers)
    assert set(met.values()) == {1} and len(met) == 6  # every pair met, once
    assert "[#club] Club: final standings" in said
    table = said.split("Club: final standings", 1)[1].split("```")[1]
    order = [m.group(1) for m in re.finditer(r"^\s+\d+ (\w+)\s+(\d)", table, re.M)]
    assert order == ["alice", "bob", "carol", "dave"]
    points = [int(m.group(2)) for m in re.finditer(r"^\s+\d+ (\w+)\s+(\d)", table, re.M)]
    assert points == [3, 2, 1, 0]


async def test_a_swiss_of_seven_through_the_console(lines: Lines) -> None:
    seven = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"]
    await lines("#open root /tournament create game:hokito format:swiss rounds:3 name:Open")
    await lines(*(f"#open {name} /tournament join" for name in seven))
    said = await lines("#open root /tournament start")
    byes: list[str] = []
    met: Counter[frozenset[str]] = Counter()
    for round_ in (1, 2, 3):
        post = said.split(f"Open: round {round_} of 3", 1)[1]
        [bye] = _BYE.findall(post)
        byes.append(bye)
        pairs = _BOARD.findall(post)
        assert len(pairs) == 3
        met.update(frozenset(p) for p in pairs)
        said = await play_games(lines, said, {})
    assert len(set(byes)) == 3  # one bye a round, never twice to one player
    assert set(met.values()) == {1}  # no rematch
    assert "[#open] Open: final standings" in said
