"""Test-wide settings, and the storage every data, host and Discord-layer test runs on.

A test that takes `storage` (or `storage_target`, or anything built on them) runs once per
backend: on a fresh SQLite file, and on a fresh PostgreSQL database. The PostgreSQL
server is a throwaway one (tests/postgres_server.py), started the first time a
PostgreSQL-parametrised test needs it; a template database is migrated once, and each
test gets a copy of it (`CREATE DATABASE … TEMPLATE …`), dropped after the test.

A machine without PostgreSQL fails those tests with a message saying how to install it:
they are never skipped. `-m "not postgresql"` leaves them out on purpose.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from asyncio import FIRST_COMPLETED
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest
from hypothesis import HealthCheck, settings

# Every hosted game, registered for the engine's index too (tests iterate over them).
import host.catalog  # noqa: F401
from data.migrations import BACKENDS
from data.storage import Storage, open_storage

if TYPE_CHECKING:
    from tests.postgres_server import PostgresServer

# Machines here are shared and noisy: Hypothesis checks properties, not speed (no deadline
# per example, and no health check that times the generation of examples).
settings.register_profile(
    "hilltop",
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("hilltop")

#: Databases copied from the template ahead of the tests that will take them.
READY_DATABASES = 2

T = TypeVar("T")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "postgresql: runs on the throwaway PostgreSQL server (the backend param)"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # `-m "not postgresql"` deselects the PostgreSQL half on purpose; nothing skips it.
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("backend") == "postgresql":
            item.add_marker(pytest.mark.postgresql)


class PostgresDatabases:
    """The session's PostgreSQL server, its migrated template, and a fresh copy of it
    per test.

    The server's administration (CREATE/DROP DATABASE) runs on an event loop of its own
    in a thread, so that sync and async fixtures alike can use it whatever loop a test
    runs on, and so that the next tests' databases are copied while a test runs.
    """

    TEMPLATE = "hilltop_template"

    def __init__(self, server: PostgresServer) -> None:
        self.server = server
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="postgres-admin", daemon=True
        )
        self._thread.start()
        self._names = itertools.count(1)
        self._drops: list[Future[None]] = []
        try:
            self._call(self._setup())
        except BaseException:
            self.close()
            raise

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    async def _setup(self) -> None:
        await self.server.create_database_async(self.TEMPLATE)
        # Opening migrates; closing leaves the template without sessions, as copies need.
        template = await open_storage(self.server.database_url(self.TEMPLATE))
        await template.close()
        self._ready: asyncio.Queue[str] = asyncio.Queue(maxsize=READY_DATABASES)
        self._filler = asyncio.create_task(self._fill())

    async def _fill(self) -> None:
        """Keep READY_DATABASES copies of the template ready: the next is copied as soon
        as one is taken."""
        while True:
            name = f"test_{next(self._names)}"
            await self.server.create_database_async(name, template=self.TEMPLATE)
            await self._ready.put(name)

    async def _take(self) -> str:
        taking = asyncio.ensure_future(self._ready.get())
        await asyncio.wait({taking, self._filler}, timeout=60, return_when=FIRST_COMPLETED)
        if taking.done():
            return taking.result()
        taking.cancel()
        if self._filler.done():
            self._filler.result()  # raises what stopped it
        raise TimeoutError("no PostgreSQL database could be copied from the template in 60 s")

    def create(self) -> tuple[str, str]:
        """A fresh, migrated database: (name, URL)."""
        name = self._call(self._take())
        return name, self.server.database_url(name)

    def create_empty(self) -> tuple[str, str]:
        """A fresh database without any table (not migrated): (name, URL)."""
        name = f"empty_{next(self._names)}"
        return name, self._call(self.server.create_database_async(name))

    def drop(self, name: str) -> None:
        """Drop `name` (ending any session left on it) without waiting for it."""
        coro = self.server.drop_database_async(name)
        self._drops.append(asyncio.run_coroutine_threadsafe(coro, self._loop))

    def close(self) -> None:
        async def shutdown() -> None:
            filler = getattr(self, "_filler", None)
            if filler is not None:
                filler.cancel()
                with contextlib.suppress(BaseException):
                    await filler

        try:
            for drop in self._drops:
                drop.exception(timeout=30)
            self._call(shutdown())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
            if not self._thread.is_alive():
                self._loop.close()
            self.server.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresDatabases]:
    """The throwaway PostgreSQL server with its migrated template, started the first
    time a PostgreSQL-parametrised test asks for a database."""
    # Imported here: a run without PostgreSQL tests needs nothing of it.
    from tests.postgres_server import PostgresServer

    try:
        server = PostgresServer().start()
    except Exception as exc:  # no binaries (the message says how to install them), no start
        pytest.fail(
            f"The PostgreSQL half of the storage tests needs a PostgreSQL server: {exc}",
            pytrace=False,
        )
    databases = PostgresDatabases(server)  # a failed migration of the template says so
    yield databases
    databases.close()


@pytest.fixture(params=BACKENDS, ids=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The storage backend this run of the test is on."""
    return str(request.param)


@pytest.fixture
def storage_target(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """Where a fresh database of `backend` without data is: an SQLite file path (created
    and migrated when first opened), or the postgresql:// URL of a copy of the migrated
    template. Open it with `open_storage`, once per process a test stands for."""
    if backend == "sqlite":
        yield str(tmp_path / "hilltop.sqlite3")
        return
    databases: PostgresDatabases = request.getfixturevalue("postgres")
    name, url = databases.create()
    yield url
    databases.drop(name)


@pytest.fixture
def empty_storage_target(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[str]:
    """Like `storage_target`, but never migrated: no table at all, for tests of the
    migrations themselves."""
    if backend == "sqlite":
        yield str(tmp_path / "empty.sqlite3")
        return
    databases: PostgresDatabases = request.getfixturevalue("postgres")
    name, url = databases.create_empty()
    yield url
    databases.drop(name)


@pytest.fixture
async def storage(storage_target: str) -> AsyncIterator[Storage]:
    """The repositories of a fresh database of each backend, closed after the test."""
    opened = await open_storage(storage_target)
    yield opened
    await opened.close()


@pytest.fixture
async def sqlite_storage(tmp_path: Path) -> AsyncIterator[Storage]:
    """SQLite only, for facts of SQLite itself (pragmas, its file, its reader)."""
    opened = await open_storage(tmp_path / "sqlite-only.sqlite3")
    assert opened.backend == "sqlite"
    yield opened
    await opened.close()
