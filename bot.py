"""Hilltop's entry point: configuration, logging, the database, then Discord or the console.

python bot.py              # Discord when DISCORD_TOKEN is set, else the console
python bot.py --console    # always the console (local play, demos, scripted tests)
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from data.daily import SqliteDailyRepository
from data.db import Database, default_path
from data.games import SqliteGameRepository
from host.console import Console, bot_user
from host.daily import DailyService
from host.service import GameService

log = logging.getLogger("hilltop")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Hilltop, a board-game host for Discord.")
    parser.add_argument(
        "--console",
        action="store_true",
        help="run the console front-end even when DISCORD_TOKEN is set",
    )
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help="SQLite file (default: $HILLTOP_DB or ./var/hilltop.sqlite3)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="where the console writes board images (default: ./var/console)",
    )
    parser.add_argument("--log-level", default=os.environ.get("HILLTOP_LOG_LEVEL", "INFO"))
    return parser.parse_args(argv)


def setup_logging(level: str, console: bool) -> None:
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.INFO) if not console else logging.WARNING,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        stream=sys.stderr,
    )


async def run_console(args: argparse.Namespace) -> None:
    db = await Database.open(args.db or default_path())
    try:
        service = GameService(SqliteGameRepository(db), bot_user=bot_user())
        daily = DailyService(service, SqliteDailyRepository(db), secret=daily_secret())
        console = Console(service, daily, args.out or Path("var") / "console")
        try:
            await console.run(sys.stdin, interactive=sys.stdin.isatty())
        finally:
            daily.close()
            service.close()
    finally:
        await db.close()


async def run_discord(token: str, args: argparse.Namespace) -> None:
    from cogs.client import HilltopBot

    db = await Database.open(args.db or default_path())
    try:
        bot = HilltopBot(
            SqliteGameRepository(db),
            SqliteDailyRepository(db),
            daily_secret=daily_secret(),
            dev_guild_id=_int_env("DEV_GUILD_ID"),
        )
        async with bot:
            await bot.start(token)
    finally:
        await db.close()


def daily_secret() -> str | None:
    """The deployment secret that makes the daily hills unpredictable."""
    return os.environ.get("HILLTOP_DAILY_SECRET", "").strip() or None


def _int_env(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise SystemExit(f"{name} must be a numeric Discord id, got {value!r}") from None


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    token = os.environ.get("DISCORD_TOKEN", "").strip()
    use_console = args.console or not token
    setup_logging(args.log_level, use_console)
    try:
        if use_console:
            asyncio.run(run_console(args))
        else:
            asyncio.run(run_discord(token, args))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
