"""The real bot, as its own process, pointed at a fake Discord.

    python -m bench.bot_process API_URL GATEWAY_URL

discord.py is told to use the given REST base and gateway; everything else is `bot.main()`
as deployed, configured by the environment the caller sets (DISCORD_TOKEN, DEV_GUILD_ID,
HILLTOP_DB, HILLTOP_DAILY_SECRET). With HILLTOP_BENCH_TRACE=<file>, the process notes
where its time goes into that file (`bench.bot_trace`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import discord
import yarl

import bot


def main(argv: Sequence[str]) -> None:
    if len(argv) != 2:
        raise SystemExit(__doc__)
    api_url, gateway_url = argv
    discord.http.Route.BASE = api_url
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    if trace := os.environ.get("HILLTOP_BENCH_TRACE"):
        from bench import bot_trace

        bot_trace.install(trace)
    bot.main([])


if __name__ == "__main__":
    main(sys.argv[1:])
