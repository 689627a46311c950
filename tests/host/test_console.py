"""The console front-end: its line syntax, and whole games piped through `bot.py`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from host.console import ConsoleInputError, parse_line

ROOT = Path(__file__).resolve().parents[2]


def test_parse_line_reads_channel_user_command_and_options() -> None:
    cmd = parse_line("#lobby @alice /play game:hokito opponent:@bob seed:7")
    assert (cmd.channel, cmd.user, cmd.name) == ("lobby", "alice", "play")
    assert cmd.options == {"game": "hokito", "opponent": "@bob", "seed": "7"}


def test_values_run_to_the_next_option_and_first_may_be_bare() -> None:
    assert parse_line("bob /move text:4E 2N sAE").options == {"text": "4E 2N sAE"}
    assert parse_line("bob /moves c2").options == {"from": "c2"}
    assert parse_line("bob /move c2-e4").options == {"text": "c2-e4"}
    assert parse_line("bob /play hokito opponent:carol").options == {
        "game": "hokito",
        "opponent": "carol",
    }
    cmd = parse_line("root /admin start game:hokito player1:a player2:b")
    assert cmd.name == "admin start" and cmd.options["player2"] == "b"
    assert parse_line("bob /board").channel == "general"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("hello there", "Write a command as"),
        ("alice /fly", "/fly is not a command"),
        ("alice /board now:yes", "takes no options"),
    ],
)
def test_bad_lines_are_explained(line: str, message: str) -> None:
    with pytest.raises(ConsoleInputError, match=message):
        parse_line(line)


def run_console(tmp_path: Path, *lines: str) -> str:
    """One process of `python bot.py --console` fed `lines` on standard input."""
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bot.py"),
            "--db",
            str(tmp_path / "c.sqlite3"),
            "--out",
            str(tmp_path / "out"),
        ],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
        check=True,
    )
    return done.stdout


def test_a_game_across_processes_with_buttons(tmp_path: Path) -> None:
    first = run_console(
        tmp_path,
        "alice /play game:hokito opponent:bob seed:1 seat:first",
        "bob /accept",
    )
    assert "alice challenges bob to Hokito" in first
    assert "alice (Black) to move." in first
    assert (tmp_path / "out" / "general-latest.png").read_bytes()[:4] == b"\x89PNG"
    # A new process: the game, and the board's buttons, are still there.
    second = run_console(tmp_path, "alice /press a1", "alice /press 1")
    assert "So far: **a1**" in second
    assert "alice played a1-" in second and "bob (White) to move." in second
    third = run_console(
        tmp_path, "carol /move a4-b4", "alice /move b2-b1", "bob /move nonsense", "alice /resign"
    )
    assert "! You are not playing in this game" in third
    assert "! It is not your turn" in third
    assert "! nonsense:" in third
    assert "Game over. alice resigned." in third and "bob (White) wins." in third


def test_moves_lists_only_moves_one_per_line(tmp_path: Path) -> None:
    out = run_console(
        tmp_path,
        "alice /play game:hokito opponent:hilltop seed:2 seat:first",
        "alice /moves c2",
    )
    listing = out.split("Your legal moves")[1].split("\n\n")[0].splitlines()[1:]
    assert listing and all(line.startswith("c2-") and " " not in line for line in listing)
