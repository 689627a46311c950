"""The console front-end: its line syntax, and whole games piped through `bot.py`, on each
storage backend."""

from __future__ import annotations

import io
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from discord import AppCommandOptionType, app_commands

from cogs.admin import AdminCog
from cogs.games import GamesCog
from console.front import Console, console_front
from console.lines import (
    NUMBER_RANGES,
    Command,
    ConsoleInputError,
    bot_user,
    console_channel,
    console_user,
    parse_line,
)
from data.storage import Storage
from host.model import Channel, Reply
from host.service import GameService
from host.setup import GameSetup
from tests.houses import house_of
from tests.processes import Lines, ended, output_of

ROOT = Path(__file__).resolve().parents[2]
#: Seconds a console process may take to answer a line (the first starts it), however
#: busy the machine: beyond it, it is taken for hung.
ANSWER_SECONDS = 30.0


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


def console_command(tmp_path: Path, *options: str, db: str | None = None) -> list[str]:
    """`python bot.py` on the database `db` (by default an SQLite file in `tmp_path`) and
    the out folder in `tmp_path`."""
    return [
        sys.executable,
        str(ROOT / "bot.py"),
        "--db",
        db or str(tmp_path / "c.sqlite3"),
        "--out",
        str(tmp_path / "out"),
        *options,
    ]


def console_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env.pop("HILLTOP_LOG_LEVEL", None)
    return env | {"PYTHONUNBUFFERED": "1", **extra}


def run_console(tmp_path: Path, *lines: str, db: str | None = None) -> str:
    """One process of `python bot.py --console` fed `lines` on standard input."""
    return console_process(tmp_path, *lines, db=db).stdout


def console_process(
    tmp_path: Path,
    *lines: str,
    options: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    db: str | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        console_command(tmp_path, *options, db=db),
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env or console_env(),
        timeout=120,
        check=True,
    )


def process_line(process: subprocess.Popen[str], line: str, *, until: str) -> None:
    """Send `line` to a running console and read its output up to a line with `until`;
    fails, showing what it wrote, if it ends first or that takes over ANSWER_SECONDS."""
    assert process.stdin is not None
    process.stdin.write(line + "\n")
    process.stdin.flush()
    output = output_of(process)
    output.name = f"the console answering {line!r}"
    output.until(until, ANSWER_SECONDS)


@pytest.fixture
async def console(
    storage: Storage, tmp_path: Path
) -> AsyncIterator[tuple[Console, io.StringIO, Storage]]:
    """A console in this process, its output, and its database."""
    house = house_of(storage, front=console_front())
    out = io.StringIO()
    try:
        yield Console(house, tmp_path / "out", out), out, storage
    finally:
        house.close()


def test_a_game_across_processes_with_buttons(tmp_path: Path, storage_target: str) -> None:
    first = run_console(
        tmp_path,
        "alice /play game:hokito opponent:bob seed:1 seat:first",
        "bob /accept",
        db=storage_target,
    )
    assert "alice challenges bob to Hokito" in first
    assert "alice (Black) to move." in first
    assert (tmp_path / "out" / "general-latest.png").read_bytes()[:4] == b"\x89PNG"
    # A new process: the game, and the board's buttons, are still there.
    second = run_console(tmp_path, "alice /press a1", "alice /press 1", db=storage_target)
    assert "So far: **a1**" in second
    assert "alice played a1-" in second and "bob (White) to move." in second
    third = run_console(
        tmp_path,
        "carol /move a4-b4",
        "alice /move b2-b1",
        "bob /move nonsense",
        "alice /resign",
        "alice /press Yes, resign",
        db=storage_target,
    )
    assert "! You are not playing in this game" in third
    assert "! It is not your turn" in third
    assert "! nonsense:" in third
    # bob never made a move: the game is aborted, and not rated.
    assert "Game aborted: alice (Black) resigned." in third and "not rated" in third


def test_moves_lists_only_the_moves_asked_for_under_their_piece(
    tmp_path: Path, storage_target: str
) -> None:
    out = run_console(
        tmp_path,
        "alice /play game:hokito opponent:hilltop seed:2 seat:first",
        "alice /moves c2",
        db=storage_target,
    )
    [listing] = out.split("Your legal moves")[1].split("\n\n")[0].splitlines()[1:]
    head, moves = listing.split(" ", 1)
    assert head == "**c2**"
    assert moves and all(move.startswith("c2-") for move in moves.split(" · "))


#: The ranges the Discord commands declare (cogs/games.py, cogs/admin.py).
RANGES = {"computers": (0, 3), "seed": (0, 2**53 - 1), "deadline": (1, 30 * 24 * 60)}


@pytest.mark.parametrize(
    ("option", "line"),
    [
        ("computers", "alice /play game:everest opponent:bob computers:30000000"),
        ("computers", "alice /play game:everest computers:300000000"),
        ("computers", "alice /play game:everest computers:9223372036854775808"),
        ("computers", "alice /play game:everest computers:" + "9" * 5000),
        ("computers", "alice /play game:everest computers:-1"),
        ("computers", "alice /play game:everest computers:٢"),
        ("computers", "alice /play game:everest computers:1_0"),
        ("seed", "alice /play game:hokito opponent:bob seed:99999999999999999999999"),
        ("seed", "alice /play game:hokito opponent:bob seed:9007199254740992"),
        ("seed", "alice /play game:hokito opponent:bob seed:-5"),
        ("seed", "alice /play game:hokito opponent:bob seed:１２"),
        ("deadline", "alice /play game:everest opponent:bob deadline:0"),
        ("deadline", "alice /play game:everest opponent:bob deadline:43201"),
        ("computers", "root /admin start game:everest player1:a player2:b computers:4"),
        ("seed", "root /admin start game:hokito player1:a player2:b seed:2e5"),
    ],
)
async def test_numbers_outside_the_discord_ranges_are_refused_and_change_nothing(
    console: tuple[Console, io.StringIO, Storage], option: str, line: str
) -> None:
    cons, out, storage = console
    await cons.run_line(line)
    low, high = RANGES[option]
    refusal = f"! {option}: give a whole number from {low} to {high} (got "
    assert out.getvalue().startswith(refusal), out.getvalue()
    assert (await storage.database.fetch("SELECT COUNT(*) FROM games"))[0][0] == 0


async def test_numbers_at_the_ends_of_their_ranges_are_taken(
    console: tuple[Console, io.StringIO, Storage],
) -> None:
    cons, out, _ = console
    await cons.run_line("alice /play game:everest computers:3 seed:9007199254740991 deadline:1")
    assert "!" not in out.getvalue() and "alice" in out.getvalue()


async def test_a_deadline_minutes_away_reads_in_minutes(
    console: tuple[Console, io.StringIO, Storage],
) -> None:
    cons, out, _ = console
    await cons.run_line("alice /play game:everest computers:1 deadline:1 seed:3")
    assert "played in 1 min." in out.getvalue()
    await cons.run_line("#other bob /play game:everest computers:1 deadline:150 seed:3")
    assert "played in 2 h 30 min." in out.getvalue()


@pytest.mark.parametrize("command", [GamesCog.play, AdminCog.start, AdminCog.settings])
def test_the_console_number_ranges_are_those_of_the_discord_commands(
    command: app_commands.Command[Any, ..., Any],
) -> None:
    declared = {
        p.name: (p.min_value, p.max_value)
        for p in command.parameters
        if p.type is AppCommandOptionType.integer
    }
    assert declared and declared == {name: NUMBER_RANGES[name] for name in declared}
    assert {name: RANGES[name] for name in declared if name in RANGES} == {
        name: NUMBER_RANGES[name] for name in declared if name in RANGES
    }


@pytest.mark.parametrize("button", ["²", "١", "３"])
async def test_press_takes_ascii_digits_only(
    console: tuple[Console, io.StringIO, Storage], button: str
) -> None:
    cons, out, _ = console
    await cons.run_line("alice /play game:hokito opponent:bob seed:1")
    await cons.run_line(f"bob /press {button}")
    last = out.getvalue().strip().splitlines()[-1]
    assert last == f"! press: write a button's number with the digits 0-9 (got {button!r}).", last


def test_two_console_processes_on_one_database_keep_each_others_buttons(
    tmp_path: Path, storage_target: str
) -> None:
    def start() -> subprocess.Popen[str]:
        return subprocess.Popen(
            console_command(tmp_path, db=storage_target),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=tmp_path,
            env=console_env(),
        )

    first, second = start(), start()
    try:
        # Both are running before either shows a button.
        process_line(first, "alice /rules game:hokito", until="Hokito")
        process_line(second, "carol /rules game:hokito", until="Hokito")
        process_line(first, "#one alice /play game:hokito opponent:bob", until="buttons:")
        process_line(second, "#two carol /play game:hokito opponent:dave", until="buttons:")
    finally:
        for process in (first, second):
            assert process.stdin is not None
            process.stdin.close()
            ended(process, ANSWER_SECONDS, name="a console", said=output_of(process))
    later = run_console(
        tmp_path, "#one bob /press Accept", "#two dave /press Accept", db=storage_target
    )
    assert "!" not in later, later
    assert later.count("The game begins") == 2


async def test_a_damaged_or_missing_button_store_means_no_buttons(
    console: tuple[Console, io.StringIO, Storage],
) -> None:
    cons, out, storage = console
    await cons.run_line("alice /play game:hokito opponent:bob")
    await damage(storage, "UPDATE console_buttons SET buttons = '[[\"accept:1\"'")
    await cons.run_line("bob /press Accept")
    assert out.getvalue().splitlines()[-1].startswith("! The buttons remembered here could not")
    await damage(storage, "DROP TABLE console_buttons")
    await cons.run_line("bob /press 1")
    assert out.getvalue().splitlines()[-1].startswith("! The buttons remembered here could not")
    # Commands still work, and say that their buttons were not remembered.
    await cons.run_line("bob /accept")
    assert "The game begins" in out.getvalue()
    assert "(these buttons could not be remembered" in out.getvalue()


async def damage(storage: Storage, sql: str) -> None:
    """Run `sql` on `storage`'s database from a connection of its own, as someone
    meddling with the database would."""
    if storage.backend == "sqlite":
        with sqlite3.connect(storage.target) as conn:
            conn.execute(sql)
        return
    conn = await asyncpg.connect(storage.target)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_waiting_for_input_stops_the_console_cleanly(
    tmp_path: Path, storage_target: str, backend: str, signum: signal.Signals
) -> None:
    wal = Path(f"{storage_target}-wal")  # SQLite's write-ahead log
    with subprocess.Popen(
        console_command(tmp_path, db=storage_target),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=console_env(),
    ) as console:
        assert console.stderr is not None
        errors = Lines(console.stderr, "the console's standard error")
        try:
            process_line(console, "alice /play game:hokito opponent:bob", until="buttons:")
            if backend == "sqlite":
                assert wal.exists()  # open: its log is in use
            console.send_signal(signum)
            # A shutdown that hangs fails the wait.
            status = ended(console, 10, said=errors)
            said = errors.rest(10)
            assert status == 0 and "Traceback" not in said, said
            if backend == "sqlite":
                # Closed: the last connection checkpointed the log into the database and
                # removed it.
                assert not wal.exists()
        finally:
            console.kill()


@pytest.mark.parametrize(
    ("options", "env", "shown"),
    [
        ((), {}, False),
        (("--log-level", "INFO"), {}, True),
        ((), {"HILLTOP_LOG_LEVEL": "info"}, True),
        (("--log-level", "WARNING"), {"HILLTOP_LOG_LEVEL": "INFO"}, False),
    ],
)
def test_an_explicit_log_level_applies_in_the_console(
    tmp_path: Path, options: tuple[str, ...], env: dict[str, str], shown: bool
) -> None:
    done = console_process(
        tmp_path,
        "alice /play game:hokito opponent:bob",
        options=options,
        env=console_env(**env),
    )
    assert ("INFO    host.play.starting: game 1 created" in done.stderr) is shown, done.stderr


def test_an_unknown_log_level_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        console_command(tmp_path, "--log-level", "LOUD"),
        input="",
        capture_output=True,
        text=True,
        env=console_env(),
        timeout=60,
    )
    assert done.returncode != 0 and "log level 'LOUD' is none of" in done.stderr


async def test_the_console_has_the_commands_that_keep_games_alive(
    console: tuple[Console, io.StringIO, Storage],
) -> None:
    cons, out, _ = console
    for line in (
        "alice /play game:hokito opponent:bob seed:1 seat:first",
        "bob /accept",
        "alice /games mine",
        "alice /notify reminders:off",
        "bob /draw",
        "root /admin settings game:hokito deadline_hours:12",
        "alice /notify dm:maybe",
    ):
        await cons.run_line(line)
    text = out.getvalue()
    assert "**Your turn**" in text and "#general · Hokito: alice vs bob" in text
    assert "Reminders before your time runs out: off." in text
    assert "bob offers a draw. alice: accept or decline." in text
    assert "Hokito: 12 hours per decision." in text
    assert "! dm: write on or off (got 'maybe')." in text


async def test_a_replay_is_asked_for_at_a_speed(
    console: tuple[Console, io.StringIO, Storage],
) -> None:
    cons, out, _ = console
    assert parse_line("alice /replay id:1 speed:fast").options == {"id": "1", "speed": "fast"}
    for line in (
        "alice /play game:hokito opponent:bob seed:1 seat:first",
        "bob /accept",
        "alice /resign",
        "carol /replay id:1 speed:fast",
        "carol /replay id:1 speed:slow",
    ):
        await cons.run_line(line)
    said = out.getvalue()
    assert "Replay of game 1: Hokito" in said
    assert said.strip().splitlines()[-1] == "! speed: choose normal or fast (not 'slow')."


async def test_the_console_speaks_polish_with_polish_commands(
    console: tuple[Console, io.StringIO, Storage],
) -> None:
    english, _, _ = console
    polish = Console(english.house, english.out_dir, io.StringIO(), language="pl")
    out = polish.stream
    assert isinstance(out, io.StringIO)
    for line in (
        "alice /graj gra:hokito przeciwnik:bob ziarno:1 miejsce:pierwsze",
        "bob /przyjmij",
        "bob /ruch tekst:b1-b2",
        "bob /nic",
    ):
        await polish.run_line(line)
    said = out.getvalue()
    assert "alice wyzywa bob do gry w Hokito." in said
    assert "Partia się zaczyna: alice (Czarne), bob (Białe)." in said
    assert "! To nie twój ruch: czekamy na alice (Czarne)." in said
    assert "! /nic to nie polecenie. Polecenia: /graj, /przyjmij," in said
    assert "przyciski: [1] " in said  # the console's own words too
    # The English console is unchanged, on the same games.
    await english.run_line("bob /board")
    assert "alice (Black) to move." in english.stream.getvalue()  # type: ignore[attr-defined]


async def test_the_console_keeps_time_only_for_its_own_games(
    console: tuple[Console, io.StringIO, Storage],
) -> None:
    shell, out, storage = console
    # Two days ago, a bot on the same database and the console each started an Everest
    # game with a minute per decision, and posted a challenge nobody answered.
    ago = lambda: time.time() - 2 * 24 * 3600  # noqa: E731
    earlier = GameService(storage.games, bot_user=bot_user(), clock=ago, render_images=False)
    discord, lobby = Channel(500, 7, "general"), Channel(501, 7, "lobby")
    mine, my_lobby = console_channel("general"), console_channel("lobby")
    alice, bob = console_user("alice"), console_user("bob")
    for channel, other in ((discord, lobby), (mine, my_lobby)):
        setup = GameSetup("everest", seed=3, deadline_minutes=1)
        await earlier.start(channel, alice, setup, [bob])
        await earlier.accept(channel, bob)
        await earlier.start(other, alice, GameSetup("hokito", seed=1), [bob])
    earlier.close()
    await shell.run_line("alice /help")  # each line first keeps the time of what is due
    theirs = await storage.games.live_game_in_channel(discord.channel_id)
    assert theirs is not None and theirs.ply == 0 and theirs.expired_at is None
    challenge = await storage.games.live_game_in_channel(lobby.channel_id)
    assert challenge is not None and challenge.status == "challenge"
    ours = await storage.games.live_game_in_channel(mine.channel_id)
    assert ours is not None and ours.ply == 2  # both yeti dazed: the two plans are in
    assert await storage.games.live_game_in_channel(my_lobby.channel_id) is None
    assert "ran out of time: dazed" in out.getvalue() and "expired" in out.getvalue()


async def test_an_end_in_the_console_runs_the_finish_hooks_once_and_is_told_once(
    console: tuple[Console, io.StringIO, Storage],
) -> None:
    cons, out, storage = console
    ended: list[int] = []

    async def hook(loaded: Any) -> list[Any]:
        ended.append(loaded.id)
        return []

    cons.house.service.finish_hooks.append(hook)
    for line in (
        "alice /play game:hokito opponent:bob seed:1 seat:first",
        "bob /accept",
        "alice /move b2-b1",
        "root /admin end",
    ):
        await cons.run_line(line)
    assert len(ended) == 1
    # What the console printed was posted: nothing of the game is left to tell.
    await cons.house.service.announcer.cleared()
    assert await storage.games.untold(ended[0]) is None
    assert out.getvalue().count("alice played b2-b1") == 1


async def test_game_names_are_taken_in_any_letter_case(
    console: tuple[Console, io.StringIO, Storage],
) -> None:
    cons, out, storage = console
    for line in (
        "alice /play game:HOKITO opponent:bob seed:1",
        "alice /rules game:Hokito",
        "alice /ratings game:HoKiTo",
        "alice /history game:HOKITO",
        "root /admin settings game:MOLEHILL deadline_hours:12",
        "#other root /admin start game:Everest player1:a player2:b",
        "root /tournament create game:MoleHill format:swiss rounds:2",
    ):
        await cons.run_line(line)
    said = out.getvalue()
    assert "There is no game" not in said and "Unknown game" not in said, said
    assert "Mole Hill: 12 hours per decision." in said
    games = await storage.database.fetch("SELECT game FROM games ORDER BY id")
    assert [row[0] for row in games] == ["hokito", "everest"]


async def test_the_buttons_listed_are_numbered_as_press_takes_them(
    console: tuple[Console, io.StringIO, Storage],
) -> None:
    cons, out, _ = console
    await cons.run_line("alice /rules game:hokito")
    assert "buttons: [1] How to move  [2] House rulings " in out.getvalue(), out.getvalue()
    await cons.run_line("alice /press 1")
    assert "Hokito: rules · How to move" in out.getvalue()
    await cons.run_line("alice /press 2")
    assert "Hokito: rules · House rulings" in out.getvalue()


def test_piped_input_gets_the_banner_and_the_web_address_first(tmp_path: Path) -> None:
    done = console_process(tmp_path, "alice /board", env=console_env(HILLTOP_WEB="127.0.0.1:0"))
    first, second, third, *_ = done.stdout.splitlines()
    assert first.startswith("Watch and play the games in a browser: http://"), done.stdout
    assert re.fullmatch(
        r"Play in a browser: open http://\S+/login and choose who you are\.", second
    ), done.stdout
    assert third.startswith("Hilltop console. Type commands like"), done.stdout


async def test_a_pictures_caption_is_not_run_into_its_path(
    console: tuple[Console, io.StringIO, Storage],
) -> None:
    shell, out, _ = console
    step = Reply(title="Everest · round 2", gallery=(("alice played e6-d6.", b"\x89PNG"),))
    await shell.show(Command("general", "alice", "board", {}), step)
    [line] = [line for line in out.getvalue().splitlines() if "alice played" in line]
    assert line.startswith("  alice played e6-d6: ") and line.endswith(".png")
