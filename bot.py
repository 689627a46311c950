"""Hilltop's entry point: configuration, logging, the database, then Discord or the console.

python bot.py                # Discord when DISCORD_TOKEN is set, else the console
python bot.py --console      # always the console (local play, demos, scripted tests)
python bot.py --web          # only the web pages, beside bot processes on one database
python bot.py --healthcheck  # exit 0 if the running bot is connected to Discord

SIGTERM (`docker stop`) or SIGINT (Ctrl-C) stops the bot gracefully: no new commands are
taken, those under way finish, the workers and the database are closed, and the exit
status is 0. A second signal stops it at once.

A database that cannot be used (not a database, a folder that cannot be written, a
server that cannot be reached) ends every mode at once: one line on stderr saying why,
exit status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiohttp.web import AppRunner

    from cogs.client import HilltopBot
    from data.repository import Shards
    from host.face import House, HouseSettings
    from host.present.painting import Painter

log = logging.getLogger("hilltop")

#: While connected, the bot touches the heartbeat file this often...
HEARTBEAT_SECONDS = 20
#: ...and `--healthcheck` calls it unhealthy once the file is older than this.
HEARTBEAT_STALE_SECONDS = 90
#: How often the bot hands the memory it has freed back to the system.
TRIM_SECONDS = 10.0
#: glibc's mallopt() parameter for the most malloc arenas a process may have.
_M_ARENA_MAX = -8
#: How long a starting bot waits for its shards to be let go (by a process of the same
#: shards that was just stopped or killed) before it refuses to start.
SHARD_WAIT_SECONDS = 15.0
#: How long a stopping bot waits for the commands under way (`docker stop` allows 10 s).
GRACE_SECONDS = 5.0
#: discord.py runs each interaction in a task whose name starts with one of these.
_INTERACTION_TASKS = ("CommandTree-invoker", "discord-ui-")
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Hilltop, a board-game host for Discord.")
    parser.add_argument(
        "--console",
        action="store_true",
        help="run the console front-end even when DISCORD_TOKEN is set",
    )
    parser.add_argument(
        "--web",
        action="store_true",
        help="serve only the web pages (on $HILLTOP_WEB, default 127.0.0.1:8080), beside "
        "the bot's processes on the same database",
    )
    parser.add_argument(
        "--db",
        default=None,
        help="the database: an SQLite file, or a postgresql:// URL (default: $HILLTOP_DB, "
        "else ./var/hilltop.sqlite3)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="where the console writes board images (default: ./var/console)",
    )
    parser.add_argument(
        "--log-level",
        default=os.environ.get("HILLTOP_LOG_LEVEL") or None,
        help="DEBUG, INFO, WARNING or ERROR (default: $HILLTOP_LOG_LEVEL, else INFO on "
        "Discord and WARNING in the console)",
    )
    parser.add_argument(
        "--locale",
        default="en",
        help="the console's language: en or pl (default: en)",
    )
    parser.add_argument(
        "--recompute-ratings",
        action="store_true",
        help="compute every rating again from the stored results, then exit (safe while "
        "the bot runs: the tables change in one transaction)",
    )
    parser.add_argument(
        "--copy-to",
        metavar="POSTGRESQL_URL",
        default=None,
        help="copy the SQLite database (--db) into this PostgreSQL database, which must "
        "have no games yet, then check that every table arrived whole; exit 1 if not",
    )
    parser.add_argument(
        "--export-user",
        metavar="USER_ID",
        type=int,
        default=None,
        help="write everything stored about this user to a JSON file (--out, else "
        "./hilltop-data-USER_ID.json), then exit; exit 2 if nothing is",
    )
    parser.add_argument(
        "--forget-user",
        metavar="USER_ID",
        type=int,
        default=None,
        help="forget this user as /mydata forget does (a deleted account), then exit; "
        "exit 2 if nothing is stored about them",
    )
    parser.add_argument(
        "--healthcheck",
        action="store_true",
        help="exit 0 if the bot is connected: its heartbeat file ($HILLTOP_HEARTBEAT) is "
        f"under {HEARTBEAT_STALE_SECONDS} s old",
    )
    return parser.parse_args(argv)


def setup_logging(level: str | None, console: bool) -> None:
    """`level` when given; else INFO on Discord, and only warnings in the console, whose
    replies share the terminal."""
    if level is None:
        number = logging.WARNING if console else logging.INFO
    else:
        names = logging.getLevelNamesMapping()
        if level.upper() not in names:
            known = ", ".join(n for n in names if n not in ("NOTSET", "WARN", "FATAL"))
            raise SystemExit(f"log level {level!r} is none of {known}")
        number = names[level.upper()]
    logging.basicConfig(
        level=number,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        stream=sys.stderr,
    )


@contextmanager
def on_stop_signal(stop: Callable[[], None]) -> Iterator[None]:
    """Call `stop` on the first SIGTERM or SIGINT; a second signal then acts as it would
    by default (a shutdown that hangs can still be cut short)."""
    loop = asyncio.get_running_loop()

    def first(signum: int) -> None:
        for number in _STOP_SIGNALS:
            loop.remove_signal_handler(number)
        log.info("%s: stopping", signal.Signals(signum).name)
        stop()

    for number in _STOP_SIGNALS:
        loop.add_signal_handler(number, first, number)
    try:
        yield
    finally:
        for number in _STOP_SIGNALS:
            loop.remove_signal_handler(number)


# The application is imported by the modes that run it: `--healthcheck`, run every 30 s
# beside the bot, needs none of it.
async def run_console(args: argparse.Namespace) -> None:
    from console.front import Console, console_front
    from data.storage import open_storage
    from host.face import build_house, language_of, speaking, t

    storage = await open_storage(args.db)
    try:
        house = build_house(storage, house_settings(), console_front())
        language = language_of(args.locale)
        if language != args.locale.split("-")[0].lower():
            log.warning("the console does not speak %r; it speaks English", args.locale)
        console = Console(house, args.out or Path("var") / "console", language=language)
        pages = await start_web(house, console=True)
        if pages is not None:
            # The posts link to the pages this console serves, its own server's open.
            house.service.links.serve_at(pages[1], house.pages.access.always_open)
            print(f"Watch and play the games in a browser: {pages[1]}/s/1")
            login = f"{pages[1]}/login"
            with speaking(language):
                how = t("Play in a browser: open {url} and choose who you are.", url=login)
            print(how)
        # Moves made on the pages are told here as they are made.
        stop_watching = console.watch_web() if pages is not None else None
        try:
            with on_stop_signal(console.stop):
                await console.run(sys.stdin, interactive=sys.stdin.isatty())
        finally:
            if stop_watching is not None:
                stop_watching()
            if pages is not None:
                await pages[0].cleanup()
            house.close()
    finally:
        await storage.close()


def web_wanted() -> bool:
    """Whether this process serves the web pages: `HILLTOP_WEB` set (or unset: the
    console serves them at 127.0.0.1:8080 so that a newcomer sees them), but not `off`."""
    return os.environ.get("HILLTOP_WEB", "").strip().lower() != "off"


async def start_web(house: House, *, console: bool = False) -> tuple[AppRunner, str] | None:
    """Serve the web pages in this process, if wanted: the runner and the address. A
    console whose address is taken goes on without them (said once, in the log)."""
    from web.app import serve
    from web.config import WebConfig

    if not web_wanted() or (not console and not os.environ.get("HILLTOP_WEB", "").strip()):
        return None
    config = WebConfig.from_env(console=console)
    try:
        return await serve(house.pages, config), config.url
    except OSError as exc:
        if not console:
            raise
        print(f"The web pages are not served: {config.host}:{config.port} is taken ({exc}).")
        return None


async def run_web(args: argparse.Namespace) -> None:
    """Only the web pages, on the shared database: no Discord connection, no console."""
    from data.storage import open_storage
    from host.face import FrontEnd, User, build_house

    if not web_wanted():
        raise SystemExit("--web serves the pages: set HILLTOP_WEB to the address, not off")
    os.environ.setdefault("HILLTOP_WEB", "127.0.0.1:8080")
    storage = await open_storage(args.db)
    if storage.backend != "postgresql":
        await storage.close()
        # SQLite tells a process only of its own changes: pages served by another
        # process would never follow a game.
        raise SystemExit(
            "--web runs beside the bot's processes on PostgreSQL (HILLTOP_DB=postgresql://…); "
            "on SQLite the bot serves the pages itself: set HILLTOP_WEB for it"
        )
    try:
        house = build_house(storage, house_settings(), FrontEnd(User(0, "hilltop", is_bot=True)))
        stopped = asyncio.Event()
        started = await start_web(house)
        assert started is not None
        print(f"Hilltop's web pages: {started[1]}", flush=True)
        try:
            with on_stop_signal(stopped.set):
                await stopped.wait()
        finally:
            await started[0].cleanup()
            house.close()
    finally:
        await storage.close()


def house_settings(*, for_discord: bool = False) -> HouseSettings:
    """What this deployment chose, from its environment: the daily secret, the pages'
    address (`HILLTOP_WEB_URL`), whether the application has an Activity
    (`HILLTOP_ACTIVITY`) and, for the bot on Discord, where boards are drawn and computers
    think (worker processes)."""
    from host.face import HouseSettings
    from host.play.ai_turns import PooledComputers

    web_url = os.environ.get("HILLTOP_WEB_URL", "").strip() or None
    if not for_discord:
        return HouseSettings(daily_secret=daily_secret(), web_url=web_url, activity=activity_on())
    return HouseSettings(
        daily_secret=daily_secret(),
        web_url=web_url,
        activity=activity_on(),
        painter=painter,
        computers=lambda: PooledComputers(workers=max(1, (os.cpu_count() or 2) - 1)),
    )


def activity_on() -> bool:
    """`HILLTOP_ACTIVITY=on`: the Discord application (`DISCORD_CLIENT_ID`) has Activities
    turned on, showing the game pages (served at `HILLTOP_WEB_URL`) inside Discord; boards
    whose page is open get a button that opens it there. `off` or unset: no Activity."""
    value = os.environ.get("HILLTOP_ACTIVITY", "").strip().lower()
    if value in ("", "off"):
        return False
    if value != "on":
        raise SystemExit(f"HILLTOP_ACTIVITY must be on or off, got {value!r}")
    if not os.environ.get("DISCORD_CLIENT_ID", "").strip():
        raise SystemExit(
            "HILLTOP_ACTIVITY=on needs DISCORD_CLIENT_ID: the id of the application whose "
            "Activity shows the pages"
        )
    return True


def painter() -> Painter:
    """Where boards are drawn: `HILLTOP_RENDER=process` (worker processes, the default)
    or `thread` (one thread of the bot's own process). See the README for the measure."""
    from host.present.painting import ProcessPainter, ThreadPainter

    return ProcessPainter() if render_in_processes() else ThreadPainter()


def render_in_processes() -> bool:
    """Whether `HILLTOP_RENDER` has boards drawn in worker processes (the default)."""
    choice = os.environ.get("HILLTOP_RENDER", "process").strip().lower()
    if choice not in ("process", "thread"):
        log.warning("HILLTOP_RENDER=%r is neither process nor thread; using process", choice)
    return choice != "thread"


async def run_discord(token: str, args: argparse.Namespace) -> None:
    from cogs.client import HilltopBot
    from data.repository import DatabaseUnavailableError, ShardsHeldError
    from data.storage import open_storage
    from host.face import FrontEnd, build_house

    trim = allocator_trim()  # before any thread: each would have an arena of its own
    shards = shards_from_env()
    activity_on()  # a mistaken HILLTOP_ACTIVITY stops the bot now, not once it logs in
    storage = await open_storage(args.db)
    try:
        # One process per shard, and one shard count per database: else a server's games
        # would be handled twice, or by nobody. A hold lost to another process (its
        # connection to the database ended, and the other took the shards before this
        # one could take them again) stops this process: its supervisor starts it again,
        # and it then refuses to start while the other holds them.
        taken_over: asyncio.Future[str] = asyncio.get_running_loop().create_future()

        def lost(why: str) -> None:
            if not taken_over.done():
                taken_over.set_result(why)

        try:
            hold = await storage.hold_shards(shards, wait=SHARD_WAIT_SECONDS, on_lost=lost)
        except (ShardsHeldError, DatabaseUnavailableError) as exc:
            raise SystemExit(f"Not starting: {exc}.") from None
        web: list[tuple[AppRunner, str]] = []

        def make_house(front: FrontEnd) -> House:
            # Built when the bot logs in; the pages, if served here, start with it.
            house = build_house(storage, house_settings(for_discord=True), front)
            task = asyncio.get_running_loop().create_task(start_web(house))
            task.add_done_callback(lambda done: web.append(r) if (r := done.result()) else None)
            return house

        try:
            bot = HilltopBot(
                make_house,
                dev_guild_id=_int_env("DEV_GUILD_ID"),
                shards=shards,
            )
            closing: list[asyncio.Task[None]] = []
            async with bot:
                heartbeat = asyncio.create_task(keep_heartbeat(bot, heartbeat_path()))
                trimming = asyncio.create_task(keep_memory_returned(trim))

                def stop() -> None:
                    closing.append(asyncio.create_task(bot.close()))

                watching = asyncio.create_task(stop_when_taken_over(taken_over, stop))
                try:
                    # Closing the client ends its gateway connection (no new commands),
                    # its workers and, with them, `bot.start`.
                    with on_stop_signal(stop):
                        await bot.start(token)
                finally:
                    heartbeat.cancel()
                    trimming.cancel()
                    watching.cancel()
            await commands_under_way()
            for runner, _ in web:
                await runner.cleanup()
        finally:
            await hold.release()
        if taken_over.done():
            raise SystemExit(f"Stopped: {taken_over.result()}.")
    finally:
        await storage.close()


async def stop_when_taken_over(taken_over: asyncio.Future[str], stop: Callable[[], None]) -> None:
    """Call `stop` once another process holds this one's shards (`taken_over` says who):
    from then on, every server of theirs would be handled twice."""
    why = await asyncio.shield(taken_over)  # cancelling this task leaves `taken_over` be
    log.error("%s; stopping", why[:1].upper() + why[1:])
    stop()


async def recompute_ratings(args: argparse.Namespace) -> None:
    from data.storage import open_storage
    from host.rating import Ratings

    storage = await open_storage(args.db)
    try:
        rated = await Ratings(storage.ratings).recompute()
    finally:
        await storage.close()
    print(f"Ratings recomputed: {rated} rated game{'' if rated == 1 else 's'}.")


async def copy_to_postgresql(source: str, target: str) -> int:
    """`--copy-to`: the copy, and a table of what arrived; 0 if everything did."""
    from data.copy import CopyError, copy_database

    try:
        copied, tables = await copy_database(source, target)
    except CopyError as exc:
        print(f"Nothing was copied: {exc}.")
        return 1
    print(
        f"Copied {copied} rows from {source}."
        if copied
        else "Nothing to copy: the games are there."
    )
    print(f"{'table':<16} {'SQLite':>9} {'PostgreSQL':>11}  contents")
    for table in tables:
        verdict = "identical" if table.same else "DIFFERENT"
        print(f"{table.table:<16} {table.sqlite_rows:>9} {table.postgresql_rows:>11}  {verdict}")
    if all(table.same for table in tables):
        print("Everything arrived: every table is identical in both databases.")
        return 0
    print("The databases differ: do not switch HILLTOP_DB to PostgreSQL yet.")
    return 1


async def commands_under_way() -> None:
    """Wait up to GRACE_SECONDS for the interactions being handled: a move under way is
    committed before the database closes."""
    handlers = [
        task
        for task in asyncio.all_tasks()
        if task is not asyncio.current_task() and task.get_name().startswith(_INTERACTION_TASKS)
    ]
    if handlers:
        log.info("waiting for %d commands under way", len(handlers))
        await asyncio.wait(handlers, timeout=GRACE_SECONDS)


def allocator_trim() -> Callable[[], int] | None:
    """Bound the memory the C allocator keeps (glibc only; None elsewhere): at most two
    malloc arenas (one per thread otherwise, each keeping its own free memory), and the
    function that hands free memory back to the system. Without them a long-running bot
    keeps growing by what it frees in pieces (messages, boards, database pages) faster
    than it reuses them, though its Python objects do not grow."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt, malloc_trim = libc.mallopt, libc.malloc_trim
    except (OSError, AttributeError):
        return None
    mallopt(_M_ARENA_MAX, 2)
    return lambda: int(malloc_trim(0))


async def keep_memory_returned(trim: Callable[[], int] | None) -> None:
    """Hand the memory freed since the last time back to the system, every TRIM_SECONDS
    (a few milliseconds each)."""
    if trim is None:
        return
    while True:
        await asyncio.sleep(TRIM_SECONDS)
        trim()


async def keep_heartbeat(bot: HilltopBot, path: Path | None) -> None:
    """Touch `path` every HEARTBEAT_SECONDS while the gateway is connected."""
    if path is None:
        return
    await bot.wait_until_ready()
    while True:
        connected = bot.shards and all(not shard.is_closed() for shard in bot.shards.values())
        if not bot.is_closed() and connected:
            await asyncio.to_thread(path.touch)
        await asyncio.sleep(HEARTBEAT_SECONDS)


def heartbeat_path() -> Path | None:
    value = os.environ.get("HILLTOP_HEARTBEAT", "").strip()
    return Path(value) if value else None


def healthcheck() -> int:
    """0 if the heartbeat is fresh: the bot is running and connected to Discord."""
    path = heartbeat_path()
    if path is None:
        print("unhealthy: HILLTOP_HEARTBEAT names no heartbeat file")
        return 1
    try:
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        print(f"unhealthy: no heartbeat at {path} (not connected yet)")
        return 1
    if age > HEARTBEAT_STALE_SECONDS:
        print(f"unhealthy: the last heartbeat was {age:.0f} s ago")
        return 1
    print(f"healthy: the last heartbeat was {age:.0f} s ago")
    return 0


def daily_secret() -> str | None:
    """The deployment secret that makes the daily hills unpredictable."""
    return os.environ.get("HILLTOP_DAILY_SECRET", "").strip() or None


def shards_from_env() -> Shards | None:
    """`HILLTOP_SHARDS`, the Discord shards this process holds: "0,1/4" is shards 0 and 1
    of 4; unset, one process holds every shard."""
    from data.repository import Shards

    value = os.environ.get("HILLTOP_SHARDS", "").strip()
    if not value:
        return None
    try:
        ids_text, count_text = value.split("/")
        ids = tuple(int(part) for part in ids_text.split(","))
        count = int(count_text)
    except ValueError:
        raise SystemExit(
            f"HILLTOP_SHARDS must be shard ids and their count, such as 0,1/4; got {value!r}"
        ) from None
    if count < 1 or len(set(ids)) != len(ids) or not all(0 <= i < count for i in ids):
        raise SystemExit(
            f"HILLTOP_SHARDS={value!r}: each shard id must be given once and be below the "
            f"count ({count})"
        )
    return Shards(tuple(sorted(ids)), count)


def _int_env(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise SystemExit(f"{name} must be a numeric Discord id, got {value!r}") from None


@contextmanager
def unusable_database_said(doing: str) -> Iterator[None]:
    """A database that cannot be used ends the process with one line saying why (after
    `doing`), and exit status 1: opening it closed whatever it had opened."""
    from data.repository import DatabaseUnusableError

    try:
        yield
    except DatabaseUnusableError as exc:
        raise SystemExit(f"{doing}: {exc}.") from None


async def privacy_request(args: argparse.Namespace) -> int:
    """--export-user or --forget-user: the operator's /mydata; the exit code."""
    from data.storage import open_storage
    from host.privacy.operator import export_user, forget_user

    storage = await open_storage(args.db)
    try:
        if args.export_user is not None:
            return await export_user(storage, args.export_user, args.out)
        return await forget_user(storage, args.forget_user)
    finally:
        await storage.close()


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.healthcheck:
        raise SystemExit(healthcheck())
    if args.copy_to:
        setup_logging(args.log_level, True)
        source = args.db or os.environ.get("HILLTOP_DB", "").strip() or "var/hilltop.sqlite3"
        if not Path(source).is_file():
            raise SystemExit(f"--copy-to copies an SQLite file: there is none at {source}")
        with unusable_database_said("Nothing was copied"):
            raise SystemExit(asyncio.run(copy_to_postgresql(source, args.copy_to)))
    if args.export_user is not None or args.forget_user is not None:
        setup_logging(args.log_level, True)
        with unusable_database_said("Nothing was changed"):
            raise SystemExit(asyncio.run(privacy_request(args)))
    if args.recompute_ratings:
        setup_logging(args.log_level, True)
        with unusable_database_said("The ratings were not recomputed"):
            asyncio.run(recompute_ratings(args))
        return
    if args.web:
        setup_logging(args.log_level, False)
        with unusable_database_said("Not starting"):
            asyncio.run(run_web(args))
        return
    token = os.environ.get("DISCORD_TOKEN", "").strip()
    use_console = args.console or not token
    setup_logging(args.log_level, use_console)
    try:
        with unusable_database_said("Not starting"):
            if use_console:
                asyncio.run(run_console(args))
            else:
                asyncio.run(run_discord(token, args))
    except KeyboardInterrupt:
        # Ctrl-C before the bot took over the signal, or a second one: stopped at once.
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
