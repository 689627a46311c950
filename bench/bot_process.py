"""The real bot, as its own process, pointed at a fake Discord.

    python -m bench.bot_process API_URL GATEWAY_URL

discord.py is told to use the given REST base and gateway; everything else is `bot.main()`
as deployed, configured by the environment the caller sets (DISCORD_TOKEN, DEV_GUILD_ID,
HILLTOP_DB, HILLTOP_DAILY_SECRET).
"""

from __future__ import annotations

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
    bot.main([])


if __name__ == "__main__":
    main(sys.argv[1:])
