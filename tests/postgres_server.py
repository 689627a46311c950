"""A throwaway PostgreSQL server for the tests and benchmarks, without Docker or root.

`PostgresServer().start()` runs `initdb` into a fresh temporary directory and starts a
server on a free loopback port, trusting connections from 127.0.0.1 only. Databases are
made per test with `create_database` (cheaply, from a migrated template). A missing
PostgreSQL installation is an error, never a skip: `find_binaries` says how to install one.

PostgreSQL refuses to run as root; when this process is root, the server's programs run as
the unprivileged `nobody` account, which owns the temporary directory. Every server still
running when the interpreter exits is stopped and its directory removed; a small watchdog
process does the same if this process is killed before it can.
"""

from __future__ import annotations

import atexit
import contextlib
import grp
import importlib.util
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

#: The superuser made by initdb; every connection logs in as it.
SUPERUSER = "hilltop"
#: The account the server runs as when this process is root.
UNPRIVILEGED_USER = "nobody"
#: Programs a server needs in its bin directory.
REQUIRED = ("initdb", "pg_ctl", "postgres")
#: Seconds to wait for a server to accept connections, or to stop.
START_TIMEOUT = 60
#: Seconds to retry CREATE DATABASE while its template still has sessions closing.
TEMPLATE_BUSY_TIMEOUT = 10.0

_INSTALL_HINT = (
    "No PostgreSQL server binaries (initdb, pg_ctl, postgres) were found. Install them with "
    "the Debian/Ubuntu package `postgresql` (apt-get install postgresql), or into the "
    "virtualenv with `pip install pgserver`, or point HILLTOP_PG_BIN at the directory that "
    "holds them."
)
#: A process that outlives this one only to clean up after it: it blocks reading its
#: stdin, and when that ends without "stop" (this process was killed, and its atexit
#: handlers never ran) it stops the server and deletes the directory.
_WATCHDOG = """
import shutil, subprocess, sys
pg_ctl, data, base, uid, gid = sys.argv[1:6]
if sys.stdin.readline().strip() != "stop":
    kw = {} if uid == "-" else {"user": int(uid), "group": int(gid), "extra_groups": []}
    subprocess.run([pg_ctl, "-D", data, "stop", "-m", "immediate"], cwd=base,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, **kw)
    shutil.rmtree(base, ignore_errors=True)
"""
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]{0,62}$")
_TEMPLATE_BUSY = "is being accessed by other users"


def _has_binaries(directory: Path) -> bool:
    return all(os.access(directory / name, os.X_OK) for name in REQUIRED)


def _version_key(path: Path) -> tuple[int, ...]:
    parts = re.findall(r"\d+", path.parent.name)
    return tuple(int(p) for p in parts) or (-1,)


def find_binaries() -> Path:
    """The directory holding `initdb`, `pg_ctl` and `postgres`.

    In order: `$HILLTOP_PG_BIN`; the directory of `pg_ctl` on PATH (symlinks resolved)
    when `initdb` is beside it; the newest `/usr/lib/postgresql/*/bin`; the binaries of
    the `pgserver` wheel. Raises RuntimeError, saying how to install them, if none is found.
    """
    explicit = os.environ.get("HILLTOP_PG_BIN")
    if explicit:
        directory = Path(explicit).expanduser().resolve()
        if not _has_binaries(directory):
            raise RuntimeError(
                f"HILLTOP_PG_BIN={explicit} does not hold {', '.join(REQUIRED)}. {_INSTALL_HINT}"
            )
        return directory
    on_path = shutil.which("pg_ctl")
    if on_path:
        # The real directory first: a symlinked pg_ctl (/usr/local/bin) lives beside psql
        # and pg_isready only there.
        for directory in (Path(on_path).resolve().parent, Path(on_path).parent):
            if _has_binaries(directory):
                return directory
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=_version_key, reverse=True)
    for directory in debian:
        if _has_binaries(directory):
            return directory
    spec = importlib.util.find_spec("pgserver")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            directory = Path(location) / "pginstall" / "bin"
            if _has_binaries(directory):
                return directory
    raise RuntimeError(_INSTALL_HINT)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def quote_identifier(name: str) -> str:
    """`name` as a quoted SQL identifier; only plain names (letters, digits, _) are taken."""
    if not _IDENTIFIER.match(name):
        raise ValueError(f"not a plain database name: {name!r}")
    return f'"{name}"'


def _tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return f"(no server log: {exc})"
    return "\n".join(text.splitlines()[-lines:])


def _clean_env() -> dict[str, str]:
    """This process's environment without libpq's PG* settings, in the C locale."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["LC_ALL"] = "C"
    env.pop("LANGUAGE", None)
    return env


class PostgresServer:
    """One throwaway PostgreSQL server in a temporary directory.

    `durable=False` (the default) turns off fsync and full_page_writes: fast, and fine for
    data thrown away after the run; commits still survive a crash of the server itself. A
    benchmark that measures commits asks for `durable=True`, which keeps PostgreSQL's
    defaults. `settings` adds or overrides server settings (values in postgresql.conf
    syntax, strings quoted: {"work_mem": "'64MB'"}).
    """

    def __init__(
        self,
        *,
        durable: bool = False,
        max_connections: int = 300,
        bin_dir: Path | None = None,
        settings: dict[str, str] | None = None,
    ) -> None:
        self.durable = durable
        self.max_connections = max_connections
        self.settings = dict(settings or {})
        self.bin_dir = bin_dir if bin_dir is not None else find_binaries()
        self.host = "127.0.0.1"
        self.port: int | None = None
        self.base_dir: Path | None = None
        self._running = False
        self._lock = threading.Lock()
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._major_version: int | None = None
        self._as_user = os.geteuid() == 0
        if self._as_user:
            account = pwd.getpwnam(UNPRIVILEGED_USER)
            self._uid, self._gid = account.pw_uid, account.pw_gid
            grp.getgrgid(self._gid)  # the group must exist too

    # Paths inside the temporary directory.

    @property
    def data_dir(self) -> Path:
        return self._base() / "data"

    @property
    def socket_dir(self) -> Path:
        return self._base() / "socket"

    @property
    def log_path(self) -> Path:
        return self._base() / "server.log"

    def _base(self) -> Path:
        if self.base_dir is None:
            raise RuntimeError("the PostgreSQL server was not started")
        return self.base_dir

    # URLs.

    @property
    def url(self) -> str:
        """The superuser's URL of the `postgres` database."""
        return self.database_url("postgres")

    def database_url(self, name: str) -> str:
        """The superuser's URL of database `name` on this server."""
        if self.port is None:
            raise RuntimeError("the PostgreSQL server was not started")
        return f"postgresql://{SUPERUSER}@{self.host}:{self.port}/{name}"

    @property
    def running(self) -> bool:
        """Whether the server process was started and not stopped since."""
        return self._running

    # Life cycle.

    def start(self) -> PostgresServer:
        """initdb a fresh directory and start the server on a free port; returns self."""
        if self.base_dir is not None:
            raise RuntimeError("this PostgreSQL server was already started")
        self.base_dir = Path(tempfile.mkdtemp(prefix="hilltop-pg-", dir=self._temp_parent()))
        _LIVE.add(self)
        try:
            os.chmod(self.base_dir, 0o755)
            self.socket_dir.mkdir(mode=0o755)
            if self._as_user:
                os.chown(self.base_dir, self._uid, self._gid)
                os.chown(self.socket_dir, self._uid, self._gid)
            self._start_watchdog()
            self._initdb()
            for attempt in range(3):
                self.port = free_port()
                self._write_settings()
                try:
                    self.start_server()
                    break
                except RuntimeError:
                    # Another process may have taken the port in the meantime.
                    if attempt == 2 or not self._port_taken():
                        raise
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop the server at once (its data is thrown away) and delete its directory."""
        with self._lock:
            if self.base_dir is None:
                return
            self._stop_watchdog()
            if self.data_dir.exists():
                self._pg_ctl("stop", "-m", "immediate", check=False)
            self._running = False
            shutil.rmtree(self.base_dir, ignore_errors=True)
            self.base_dir = None
            _LIVE.discard(self)

    def stop_server(self, mode: str = "fast") -> None:
        """Stop the server process, keeping its data directory and port for `start_server`.

        `mode` is pg_ctl's: "smart", "fast" (a clean shutdown) or "immediate" (a crash,
        recovered on the next start)."""
        if mode not in ("smart", "fast", "immediate"):
            raise ValueError(f"unknown shutdown mode {mode!r}")
        result = self._pg_ctl("stop", "-m", mode, check=False)
        self._running = False
        if result.returncode != 0 and self._postmaster_alive():
            raise RuntimeError(
                f"pg_ctl stop -m {mode} failed:\n{result.stdout}{result.stderr}\n"
                f"--- server log ---\n{_tail(self.log_path)}"
            )

    def start_server(self) -> None:
        """Start the server on its data directory and port, and wait until it accepts
        connections over TCP."""
        result = self._pg_ctl("start", "-w", "-t", str(START_TIMEOUT), "-l", str(self.log_path))
        if result.returncode != 0:
            raise RuntimeError(
                f"PostgreSQL did not start on port {self.port}:\n{result.stdout}{result.stderr}\n"
                f"--- server log ({self.log_path}) ---\n{_tail(self.log_path)}"
            )
        self._wait_ready()
        self._running = True

    def restart(self) -> None:
        """Stop the server cleanly and start it again on the same port and data."""
        self.stop_server("fast")
        self.start_server()

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # Databases.

    def create_database(self, name: str, template: str | None = None) -> str:
        """Create database `name` (a copy of `template` if given); returns its URL.

        A template must have no open sessions; sessions still closing are waited for."""
        self._psql(self._create_sql(name, template), retry_busy=template is not None)
        return self.database_url(name)

    def drop_database(self, name: str) -> None:
        """Drop database `name` if it exists, ending its sessions."""
        self._psql(f"DROP DATABASE IF EXISTS {quote_identifier(name)} WITH (FORCE)")

    def execute(self, sql: str, database: str = "postgres") -> None:
        """Run `sql` (one or more statements) in `database` with psql."""
        self._psql(sql, database=database)

    async def create_database_async(self, name: str, template: str | None = None) -> str:
        """`create_database` over asyncpg, without starting a process; returns its URL."""
        import asyncio

        import asyncpg

        sql = self._create_sql(name, template)
        deadline = time.monotonic() + TEMPLATE_BUSY_TIMEOUT
        conn = await asyncpg.connect(self.url)
        try:
            while True:
                try:
                    await conn.execute(sql)
                    break
                except asyncpg.ObjectInUseError:
                    if template is None or time.monotonic() > deadline:
                        raise
                    await asyncio.sleep(0.02)
        finally:
            await conn.close()
        return self.database_url(name)

    async def drop_database_async(self, name: str) -> None:
        """`drop_database` over asyncpg."""
        import asyncpg

        conn = await asyncpg.connect(self.url)
        try:
            await conn.execute(f"DROP DATABASE IF EXISTS {quote_identifier(name)} WITH (FORCE)")
        finally:
            await conn.close()

    # Internals.

    @property
    def major_version(self) -> int:
        """The server's major version (15 for PostgreSQL 15.x), from its data directory."""
        if self._major_version is None:
            text = (self.data_dir / "PG_VERSION").read_text(encoding="ascii")
            self._major_version = int(text.strip())
        return self._major_version

    def _create_sql(self, name: str, template: str | None) -> str:
        sql = f"CREATE DATABASE {quote_identifier(name)}"
        if template is not None:
            sql += f" TEMPLATE {quote_identifier(template)}"
            if self.major_version >= 15:
                # Copying the files of a small template is faster than logging every block.
                sql += " STRATEGY FILE_COPY"
        return sql

    def _temp_parent(self) -> str | None:
        # The unprivileged account must be able to reach the directory: /tmp is.
        return "/tmp" if self._as_user else None

    def _run(
        self, args: Sequence[str], *, unprivileged: bool, timeout: float = START_TIMEOUT + 30
    ) -> subprocess.CompletedProcess[str]:
        extra: dict[str, Any] = {}
        if unprivileged and self._as_user:
            extra = {"user": self._uid, "group": self._gid, "extra_groups": []}
        return subprocess.run(
            list(args),
            capture_output=True,
            text=True,
            env=_clean_env(),
            cwd=self.base_dir,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
            **extra,
        )

    def _start_watchdog(self) -> None:
        owner = (str(self._uid), str(self._gid)) if self._as_user else ("-", "-")
        self._watchdog = subprocess.Popen(
            [
                sys.executable,
                "-I",
                "-c",
                _WATCHDOG,
                str(self.bin_dir / "pg_ctl"),
                str(self.data_dir),
                str(self.base_dir),
                *owner,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=_clean_env(),
            cwd=self.base_dir,
            start_new_session=True,  # not stopped by the terminal's Ctrl-C with this one
        )

    def _stop_watchdog(self) -> None:
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is None or watchdog.stdin is None:
            return
        with contextlib.suppress(OSError):
            watchdog.stdin.write(b"stop\n")
            watchdog.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            watchdog.wait(timeout=5)

    def _initdb(self) -> None:
        result = self._run(
            [
                str(self.bin_dir / "initdb"),
                "-D",
                str(self.data_dir),
                "--auth=trust",
                f"--username={SUPERUSER}",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
                "--no-instructions",
            ],
            unprivileged=True,
        )
        if result.returncode != 0:
            raise RuntimeError(f"initdb failed:\n{result.stdout}{result.stderr}")

    def _write_settings(self) -> None:
        settings = {
            "port": str(self.port),
            "listen_addresses": "'127.0.0.1'",
            "unix_socket_directories": f"'{self.socket_dir}'",
            "max_connections": str(self.max_connections),
            "logging_collector": "off",
        }
        if not self.durable:
            # Nothing is forced to disk, but every commit is still written out of the
            # server's memory before it is acknowledged (synchronous_commit stays on: with
            # fsync off that costs a write, not a flush), so a committed transaction
            # survives a crash of the server (`stop_server("immediate")`), though not one
            # of the machine.
            settings |= {"fsync": "off", "full_page_writes": "off"}
        settings |= self.settings
        # postgresql.auto.conf is read last, so these win over postgresql.conf; it is
        # rewritten whole so that a new port replaces the old one.
        lines = ["# Settings of the throwaway test server."]
        lines += [f"{key} = {value}" for key, value in settings.items()]
        auto_conf = self.data_dir / "postgresql.auto.conf"
        auto_conf.write_text("\n".join(lines) + "\n", encoding="utf-8")
        if self._as_user:
            os.chown(auto_conf, self._uid, self._gid)

    def _pg_ctl(self, *args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
        result = self._run(
            [str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), *args], unprivileged=True
        )
        if check and result.returncode != 0:
            raise RuntimeError(f"pg_ctl {' '.join(args)} failed:\n{result.stderr}")
        return result

    def _postmaster_alive(self) -> bool:
        return self._pg_ctl("status").returncode == 0

    def _port_taken(self) -> bool:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", self.port or 0))
            except OSError:
                return True
        return False

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        pg_isready = self.bin_dir / "pg_isready"
        while True:
            if pg_isready.exists():
                ready = (
                    self._run(
                        [
                            str(pg_isready),
                            "-q",
                            "-h",
                            self.host,
                            "-p",
                            str(self.port),
                            "-U",
                            SUPERUSER,
                            "-d",
                            "postgres",
                        ],
                        unprivileged=False,
                        timeout=10,
                    ).returncode
                    == 0
                )
            else:
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                    sock.settimeout(1)
                    ready = sock.connect_ex((self.host, self.port or 0)) == 0
            if ready:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"PostgreSQL on port {self.port} does not accept connections:\n"
                    f"--- server log ({self.log_path}) ---\n{_tail(self.log_path)}"
                )
            time.sleep(0.05)

    def _psql(self, sql: str, *, database: str = "postgres", retry_busy: bool = False) -> None:
        psql = self.bin_dir / "psql"
        if not psql.exists():
            raise RuntimeError(f"psql is not in {self.bin_dir}; use the *_async methods")
        deadline = time.monotonic() + TEMPLATE_BUSY_TIMEOUT
        while True:
            result = self._run(
                [
                    str(psql),
                    "-X",
                    "-q",
                    "-v",
                    "ON_ERROR_STOP=1",
                    "-d",
                    self.database_url(database),
                    "-c",
                    sql,
                ],
                unprivileged=False,
                timeout=60,
            )
            if result.returncode == 0:
                return
            if retry_busy and _TEMPLATE_BUSY in result.stderr and time.monotonic() < deadline:
                time.sleep(0.02)
                continue
            raise RuntimeError(f"psql failed on {sql!r}:\n{result.stderr}")


class _Registry:
    """The servers started and not yet stopped, stopped at interpreter exit."""

    def __init__(self) -> None:
        self._servers: list[PostgresServer] = []
        self._lock = threading.Lock()

    def add(self, server: PostgresServer) -> None:
        with self._lock:
            self._servers.append(server)

    def discard(self, server: PostgresServer) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._servers.remove(server)

    def stop_all(self) -> None:
        with self._lock:
            servers = list(self._servers)
        for server in servers:
            with contextlib.suppress(Exception):
                server.stop()


_LIVE = _Registry()
atexit.register(_LIVE.stop_all)
