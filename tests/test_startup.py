"""Starting: processes that open a fresh database together all start, and a database
that cannot be used ends every kind of start within seconds, with one line saying why
and nothing left open."""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Awaitable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

import asyncpg
import pytest

import data.sqlite.db
from data.migrations import Backend, migrations
from data.repository import DatabaseUnusableError
from data.storage import open_storage
from tests.postgres_server import quote_identifier
from tests.processes import Lines, run

if TYPE_CHECKING:
    from tests.conftest import PostgresDatabases

ROOT = Path(__file__).resolve().parent.parent

#: Processes opening each fresh database together, and how many databases.
OPENERS = 4
ROUNDS = 100
#: Connections creating (or dropping) those databases at once.
ADMIN_CONNECTIONS = 4
#: Seconds a process may take to open and close one database, however busy the machine.
ROUND_SECONDS = 20.0
#: Seconds a start refused for its database may take to end (it takes one or less).
REFUSAL_SECONDS = 10.0
#: A password that must never be shown.
PASSWORD = "s3cret-Pa55"

#: One opener: for each line "<when> <database>" it reads, it opens the database when
#: the monotonic clock (one for every process) reaches `when`, closes it, and says on one
#: line how that went (with the schema's version that it found).
OPENER = """
import asyncio, sys, time
sys.path.insert(0, sys.argv[1])
from data.storage import open_storage

async def main():
    while line := sys.stdin.readline():
        when, target = line.rstrip("\\n").split(" ", 1)
        time.sleep(max(0.0, float(when) - time.monotonic()))
        try:
            storage = await open_storage(target)
        except Exception as exc:
            said = " ".join(f"{type(exc).__name__}: {exc}".split())
            print(f"failed: {said}", flush=True)
            continue
        try:
            # Migrated by this process or another: the schema is whole either way.
            version = await storage.database.migrate()
        finally:
            await storage.close()
        print(f"started at version {version}", flush=True)

asyncio.run(main())
"""

#: `bot.main` with discord.py's API and gateway at the address given first (a port that
#: counts whoever connects), then the command line.
BOT_KEPT_HOME = (
    "import sys, discord, yarl, bot\n"
    "discord.http.Route.BASE = f'http://{sys.argv[1]}/api/v10'\n"
    "discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f'ws://{sys.argv[1]}/')\n"
    "bot.main(sys.argv[2:])\n"
)


def fresh_databases(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> list[str]:
    """ROUNDS databases of `backend` that nobody opened yet; PostgreSQL's are dropped
    after the test."""
    if backend == "sqlite":
        return [str(tmp_path / f"round-{n}" / "hilltop.sqlite3") for n in range(ROUNDS)]
    databases: PostgresDatabases = request.getfixturevalue("postgres")
    server = databases.server
    names = [f"fresh_{uuid.uuid4().hex[:12]}_{n}" for n in range(ROUNDS)]
    request.addfinalizer(
        lambda: on_server(
            server.url,
            [f"DROP DATABASE IF EXISTS {quote_identifier(n)} WITH (FORCE)" for n in names],
        )
    )
    on_server(server.url, [f"CREATE DATABASE {quote_identifier(name)}" for name in names])
    return [server.database_url(name) for name in names]


def on_server(admin_url: str, statements: list[str]) -> None:
    """Run `statements` on the server of `admin_url`, a few at a time: creating or
    dropping a database takes the server a while, much of it writing. Waits for all: the
    next test finds the server as it was."""

    async def run_all() -> None:
        left = iter(statements)

        async def one_connection() -> None:
            conn = await asyncpg.connect(admin_url)
            try:
                for statement in left:  # shared: each connection takes the next one
                    await conn.execute(statement)
            finally:
                await conn.close()

        await asyncio.gather(*(one_connection() for _ in range(ADMIN_CONNECTIONS)))

    asyncio.run(run_all())


def test_processes_opening_a_fresh_database_together_all_start(
    backend: Backend, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    targets = fresh_databases(backend, tmp_path, request)
    latest = max(version for version, _, _ in migrations(backend))
    failures: list[str] = []
    with ExitStack() as stack:
        errors = [tmp_path / f"opener-{n}.err" for n in range(OPENERS)]
        openers = [
            stack.enter_context(
                subprocess.Popen(
                    [sys.executable, "-c", OPENER, str(ROOT)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=stack.enter_context(error.open("w")),
                    text=True,
                    cwd=tmp_path,
                )
            )
            for error in errors
        ]
        stack.callback(lambda: [opener.kill() for opener in openers])
        said = [output(opener, f"opener {n}") for n, opener in enumerate(openers)]
        for n, target in enumerate(targets):
            # A moment ahead, so that every opener is waiting for it.
            when = time.monotonic() + 0.005
            try:
                for opener in openers:
                    assert opener.stdin is not None
                    opener.stdin.write(f"{when} {target}\n")
                    opener.stdin.flush()
            except BrokenPipeError:
                failures.append(f"round {n}: an opener has ended")
                break
            try:
                answers = [(lines.next(ROUND_SECONDS) or "(ended)").strip() for lines in said]
            except AssertionError as exc:  # one hangs
                failures.append(f"round {n}: {exc}")
                break
            failures += [
                f"round {n}, opener {k}: {answer}"
                for k, answer in enumerate(answers)
                if answer != f"started at version {latest}"
            ]
        for opener in openers:
            assert opener.stdin is not None
            with suppress(BrokenPipeError):
                opener.stdin.close()
        deadline = time.monotonic() + ROUND_SECONDS
        for k, opener in enumerate(openers):
            # One that failed and left a connection (and its thread) open never ends.
            try:
                status = opener.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                failures.append(f"opener {k} did not end within {ROUND_SECONDS:g} s of its input")
                continue
            if status != 0:
                failures.append(f"opener {k} ended with {status}: {errors[k].read_text()}")
    for k, error in enumerate(errors):
        if failures and error.read_text().strip():
            failures.append(f"opener {k} wrote on its standard error:\n{error.read_text()}")
    assert not failures, "\n".join(failures)


def output(process: subprocess.Popen[str], name: str) -> Lines:
    assert process.stdout is not None
    return Lines(process.stdout, name)


# In this process: the error, its words, and no connection or thread left behind.


async def refused(opening: Awaitable[object]) -> str:
    """The message of the DatabaseUnusableError `opening` raises, once every thread it
    started has ended."""
    before = set(threading.enumerate())
    with pytest.raises(DatabaseUnusableError) as refusal:
        await opening
    for thread in set(threading.enumerate()) - before:
        if thread.name.startswith("asyncio_"):
            continue  # the loop's own workers (name lookups), kept for its life
        thread.join(5)
        assert not thread.is_alive(), f"{thread.name} was left running"
    message = str(refusal.value)
    assert "\n" not in message
    return message


def not_a_database(tmp_path: Path) -> Path:
    """A file that is not a database, where one was expected."""
    path = tmp_path / "notes.sqlite3"
    path.write_text("These are my notes, not a database.\n" * 100)
    return path


def not_a_folder(tmp_path: Path) -> tuple[Path, Path]:
    """A file, and a database path that takes it for a folder."""
    (tmp_path / "var").write_text("a file, not a folder")
    return tmp_path / "var", tmp_path / "var" / "hilltop.sqlite3"


def read_only_place() -> Path:
    """A database path in a folder nobody may create files in, root included (sysfs)."""
    return Path("/sys") / f"hilltop-{os.getpid()}-{time.monotonic_ns()}.sqlite3"


async def test_a_file_that_is_not_a_database_is_refused_and_left_as_it_was(
    tmp_path: Path,
) -> None:
    path = not_a_database(tmp_path)
    before = path.read_bytes()
    said = await refused(open_storage(path))
    assert said == f"{path} is not a Hilltop database (file is not a database)"
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]  # no log or lock files beside it


async def test_a_database_that_cannot_be_created_says_why(tmp_path: Path) -> None:
    blocker, beyond = not_a_folder(tmp_path)
    said = await refused(open_storage(beyond))
    assert said == f"cannot create {beyond}: {blocker} is a file, not a folder"
    said = await refused(open_storage(tmp_path))
    assert said == f"cannot open {tmp_path}: it is a folder"
    place = read_only_place()
    said = await refused(open_storage(place))
    assert said.startswith(f"cannot create {place}: the folder is read-only"), said
    assert not place.exists()


async def test_an_sqlite_database_locked_for_too_long_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(data.sqlite.db, "BUSY_SECONDS", 0.2)

    async def refused_while(path: Path, begin: str) -> str:
        """The refusal to open `path` while another connection holds it from `begin`."""
        other = sqlite3.connect(path, isolation_level=None)
        other.execute(begin)
        try:
            return await refused(open_storage(path))
        finally:
            other.close()

    # A fresh file another process holds while it makes it (before any WAL).
    fresh = tmp_path / "fresh.sqlite3"
    said = await refused_while(fresh, "BEGIN EXCLUSIVE")
    assert said == f"{fresh} is locked by another process for more than 0.2 s"
    # A database in use, whose writer does not let go.
    used = tmp_path / "used.sqlite3"
    await (await open_storage(used)).close()
    said = await refused_while(used, "BEGIN IMMEDIATE")
    assert said == f"{used} is locked by another process for more than 0.2 s"
    # Once let go, it opens.
    await (await open_storage(used)).close()


@contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port nobody listens on, kept so while the block runs (bound here, and
    never listened on: a connection is refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


async def test_an_unreachable_postgresql_server_is_refused_without_its_password() -> None:
    with closed_port() as port:
        url = f"postgresql://hilltop:{PASSWORD}@127.0.0.1:{port}/hilltop"
        said = await refused(open_storage(url))
    assert said.startswith(f"the PostgreSQL server at 127.0.0.1:{port} cannot be reached: ")
    assert PASSWORD not in said


@pytest.mark.parametrize(
    "password", ["x[s3cret-Pa55]y", "s3cret@Pa55", "s3cret:Pa55", "s3cret%40Pa55"]
)
async def test_a_password_of_any_characters_is_never_shown(password: str) -> None:
    with closed_port() as port:
        url = f"postgresql://hilltop:{password}@127.0.0.1:{port}/hilltop"
        said = await refused(open_storage(url))
    for secret in ("s3cret", "Pa55"):
        assert secret not in said, said


@pytest.mark.postgresql
async def test_a_postgresql_database_that_is_not_there_is_refused(
    postgres: PostgresDatabases,
) -> None:
    server = postgres.server
    said = await refused(open_storage(server.database_url("no_such_database")))
    assert said == (
        f"the PostgreSQL database no_such_database at {server.host}:{server.port} does not exist"
    )


async def test_something_that_is_neither_a_file_nor_a_postgresql_url_is_refused() -> None:
    said = await refused(open_storage(f"mysql://hilltop:{PASSWORD}@127.0.0.1/hilltop"))
    assert said == "the database mysql://… is neither an SQLite file nor a postgresql:// URL"


# Whole processes: every way of starting ends at once, with one line and no traceback.


def start_env(**extra: str) -> dict[str, str]:
    """This environment without any Hilltop or Discord settings, and no web pages."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("HILLTOP_") and k not in ("DISCORD_TOKEN", "DEV_GUILD_ID")
    }
    return env | {"HILLTOP_WEB": "off", **extra}


def assert_refused(done: subprocess.CompletedProcess[str], line: str) -> None:
    """The process ended with a failure status and `line` alone on its standard error."""
    shown = f"exit status {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert done.returncode == 1, shown
    assert done.stderr.splitlines() == [line], shown
    assert PASSWORD not in done.stdout + done.stderr


def console(tmp_path: Path, db: str | Path) -> subprocess.CompletedProcess[str]:
    """`python bot.py --console` on `db`, fed a line to play."""
    return run(
        [sys.executable, str(ROOT / "bot.py"), "--console", "--db", str(db)],
        input="alice /play game:hokito opponent:bob\n",
        timeout=REFUSAL_SECONDS,
        cwd=tmp_path,
        env=start_env(),
    )


def test_the_console_ends_on_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = not_a_database(tmp_path)
    assert_refused(
        console(tmp_path, path),
        f"Not starting: {path} is not a Hilltop database (file is not a database).",
    )


def test_the_console_ends_on_an_unreachable_postgresql_server(tmp_path: Path) -> None:
    with closed_port() as port:
        done = console(tmp_path, f"postgresql://hilltop:{PASSWORD}@127.0.0.1:{port}/hilltop")
    line = done.stderr.strip()
    assert line.startswith(f"Not starting: the PostgreSQL server at 127.0.0.1:{port} cannot be")
    assert_refused(done, line)


def test_the_console_ends_where_its_database_cannot_be_created(tmp_path: Path) -> None:
    place = read_only_place()
    done = console(tmp_path, place)
    line = done.stderr.strip()
    assert line.startswith(f"Not starting: cannot create {place}: the folder is read-only")
    assert_refused(done, line)
    blocker, beyond = not_a_folder(tmp_path)
    assert_refused(
        console(tmp_path, beyond),
        f"Not starting: cannot create {beyond}: {blocker} is a file, not a folder.",
    )


def test_the_web_process_ends_on_an_unreachable_postgresql_server(tmp_path: Path) -> None:
    with closed_port() as port:
        done = run(
            [sys.executable, str(ROOT / "bot.py"), "--web"],
            timeout=REFUSAL_SECONDS,
            cwd=tmp_path,
            env=start_env(
                HILLTOP_DB=f"postgresql://hilltop:{PASSWORD}@127.0.0.1:{port}/hilltop",
                HILLTOP_WEB="127.0.0.1:0",
            ),
        )
    line = done.stderr.strip()
    assert line.startswith(f"Not starting: the PostgreSQL server at 127.0.0.1:{port} cannot be")
    assert_refused(done, line)


def test_the_bot_ends_on_an_unusable_database_before_connecting_to_discord(
    tmp_path: Path,
) -> None:
    path = not_a_database(tmp_path)
    # Discord's address here: whoever connects waits in this socket's queue.
    with socket.socket() as discord:
        discord.bind(("127.0.0.1", 0))
        discord.listen()
        address = f"127.0.0.1:{discord.getsockname()[1]}"
        done = run(
            [sys.executable, "-c", BOT_KEPT_HOME, address, "--db", str(path)],
            timeout=REFUSAL_SECONDS,
            cwd=tmp_path,
            env=start_env(DISCORD_TOKEN="not.a.token"),
        )
        discord.setblocking(False)
        with pytest.raises(BlockingIOError):
            discord.accept()  # nobody tried
    assert_refused(
        done, f"Not starting: {path} is not a Hilltop database (file is not a database)."
    )


def test_the_maintenance_commands_end_on_an_unusable_database(tmp_path: Path) -> None:
    path = not_a_database(tmp_path)
    done = run(
        [sys.executable, str(ROOT / "bot.py"), "--recompute-ratings", "--db", str(path)],
        timeout=REFUSAL_SECONDS,
        cwd=tmp_path,
        env=start_env(),
    )
    assert_refused(
        done,
        f"The ratings were not recomputed: {path} is not a Hilltop database "
        "(file is not a database).",
    )
    source = tmp_path / "games.sqlite3"
    source.touch()  # a new database: migrated, and then there is nothing to copy
    with closed_port() as port:
        done = run(
            [
                *(sys.executable, str(ROOT / "bot.py"), "--db", str(source)),
                *("--copy-to", f"postgresql://hilltop:{PASSWORD}@127.0.0.1:{port}/hilltop"),
            ],
            timeout=REFUSAL_SECONDS,
            cwd=tmp_path,
            env=start_env(),
        )
    line = done.stderr.strip()
    assert line.startswith(
        f"Nothing was copied: the PostgreSQL server at 127.0.0.1:{port} cannot be reached: "
    )
    assert_refused(done, line)
