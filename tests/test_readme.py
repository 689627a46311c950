"""The README's example console session runs as written: no line is refused or fails."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from console.lines import ConsoleInputError, parse_line

ROOT = Path(__file__).resolve().parent.parent
FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def parses(line: str) -> bool:
    try:
        parse_line(line)
    except ConsoleInputError:
        return False
    return True


def example_session() -> list[str]:
    """The code block of the console section made only of console commands."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Playing locally: the console", 1)[1].split("\n## ", 1)[0]
    sessions = [
        lines
        for block in FENCED.findall(section)
        if (lines := [line for line in block.splitlines() if line.strip()])
        and all(map(parses, lines))
    ]
    assert len(sessions) == 1, f"one example session expected in the console section: {sessions}"
    return sessions[0]


def test_the_example_session_shows_the_main_commands() -> None:
    commands = {parse_line(line).name for line in example_session()}
    assert {"play", "accept", "moves", "move", "press", "daily", "leaderboard"} <= commands


def test_the_readme_example_session_runs_without_a_refusal(tmp_path: Path) -> None:
    session = example_session()
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "HILLTOP_LOG_LEVEL")}
    places = ["--db", str(tmp_path / "readme.sqlite3"), "--out", str(tmp_path / "out")]
    done = subprocess.run(
        [sys.executable, str(ROOT / "bot.py"), "--console", *places],
        input="\n".join(session) + "\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env | {"HILLTOP_DAILY_SECRET": "readme"},
        timeout=180,
        check=True,
    )
    refusals = [line for line in done.stdout.splitlines() if line.startswith("!")]
    assert not refusals, "\n".join(refusals)
    assert "Traceback" not in done.stderr and "ERROR" not in done.stderr, done.stderr
    # Every line was answered: a reply starts with its channel.
    assert done.stdout.count("\n[#") + done.stdout.startswith("[#") >= len(session)
