"""The floor of a load through Discord: the simplest Hokito host on the same stack.

    python -m bench.minimal_bot API_URL GATEWAY_URL

discord.py, pointed at a fake Discord as `bench.bot_process` points the real bot, with
commands of the shapes the load driver uses (/move with its autocomplete, /play,
/admin start), synced to DEV_GUILD_ID. It does what a first bot written on the design's
four packages does, each on the event loop as it comes: it keeps each channel's game in
memory, checks a move against the rules, stores it (aiosqlite, one commit a move), draws
the board with the same renderer (Pillow) and answers with it. No deadlines, ratings,
history, computers, pages or restarts: what the real bot takes beyond this one under the
same load is the price of those, and of how it shares its writer, painters and loop.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import aiosqlite
import discord
import yarl
from discord import app_commands

import engine.hokito  # noqa: F401 (registers the game)
from engine import registry
from engine.core import GameState, MoveError
from render.core import RenderContext
from render.hokito import render

HOKITO = registry.get("hokito")

#: The most choices an autocomplete may offer (Discord's limit).
CHOICES = 25
#: Where the moves are stored when HILLTOP_DB does not say (as for the real bot).
DATABASE = "minimal.sqlite3"


def board_png(state: GameState[Any], names: tuple[str, ...], move: Any = None) -> bytes:
    """The board as the real bot's Hokito renderer draws it."""
    out = io.BytesIO()
    render(state, RenderContext(names=names, last_move=move)).save(out, format="PNG")  # type: ignore[arg-type]
    return out.getvalue()


class MinimalBot(discord.Client):
    def __init__(self, guild_id: int | None) -> None:
        super().__init__(intents=discord.Intents.none() | discord.Intents(guilds=True))
        self.tree = app_commands.CommandTree(self)
        self.guild = discord.Object(guild_id) if guild_id else None
        #: Each channel's game: its position and its players by seat.
        self.games: dict[int, tuple[GameState[Any], tuple[int, ...], tuple[str, ...]]] = {}
        self.db: aiosqlite.Connection | None = None
        self._commands()

    def _commands(self) -> None:
        tree = self.tree

        async def complete(
            interaction: discord.Interaction[Any], current: str
        ) -> list[app_commands.Choice[str]]:
            found = self.games.get(interaction.channel_id or 0)
            if found is None:
                return []
            state, players, _ = found
            seats = [s for s in sorted(state.to_act) if players[s] == interaction.user.id]
            if not seats:
                return []
            texts = [t for t in state.move_texts(seats[0]) if t.startswith(current)]
            return [app_commands.Choice(name=t, value=t) for t in texts[:CHOICES]]

        @tree.command(name="move", description="Make your move")
        @app_commands.autocomplete(text=complete)
        async def move(interaction: discord.Interaction[Any], text: str) -> None:
            await self.moved(interaction, text.rsplit(" @", 1)[0])

        @tree.command(name="play", description="Start a game")
        async def play(
            interaction: discord.Interaction[Any],
            game: str,
            opponent: discord.User | None = None,
            seed: int | None = None,
        ) -> None:
            await interaction.response.send_message("Only /admin start here.", ephemeral=True)

        admin = app_commands.Group(name="admin", description="Server admin")

        @admin.command(name="start", description="Start a game")
        async def start(
            interaction: discord.Interaction[Any],
            game: str,
            player1: discord.User,
            player2: discord.User | None = None,
            seed: int | None = None,
        ) -> None:
            people = (player1, player2 or player1)
            names = tuple(p.display_name for p in people)
            state = HOKITO.new_state(seed or 1, 2, None)
            self.games[interaction.channel_id or 0] = (state, tuple(p.id for p in people), names)
            await self.board_reply(interaction, f"A game of {game} starts", state, names)

        tree.add_command(admin)

    async def moved(self, interaction: discord.Interaction[Any], text: str) -> None:
        channel = interaction.channel_id or 0
        found = self.games.get(channel)
        seats = (
            []
            if found is None
            else [s for s in sorted(found[0].to_act) if found[1][s] == interaction.user.id]
        )
        if found is None or not seats:
            await interaction.response.send_message("Not your turn.", ephemeral=True)
            return
        state, players, names = found
        try:
            move = state.parse_move(seats[0], text)
            after = state.play(seats[0], move)
        except MoveError as exc:
            await interaction.response.send_message(str(exc), ephemeral=True)
            return
        self.games[channel] = (after, players, names)
        assert self.db is not None
        await self.db.execute(
            "INSERT INTO moves (channel, ply, user_id, move, at) VALUES (?, ?, ?, ?, ?)",
            (channel, 0, interaction.user.id, text, time.time()),
        )
        await self.db.commit()
        title = f"{interaction.user.display_name} played {text}"
        await self.board_reply(interaction, title, after, names, move)

    async def board_reply(
        self,
        interaction: discord.Interaction[Any],
        title: str,
        state: GameState[Any],
        names: tuple[str, ...],
        move: Any = None,
    ) -> None:
        embed = discord.Embed(title=title, description="Game over." if state.is_over else "")
        embed.set_image(url="attachment://board.png")
        picture = discord.File(io.BytesIO(board_png(state, names, move)), filename="board.png")
        await interaction.response.send_message(embed=embed, file=picture)

    async def setup_hook(self) -> None:
        self.db = await aiosqlite.connect(os.environ.get("HILLTOP_DB") or DATABASE)
        await self.db.execute(
            "CREATE TABLE IF NOT EXISTS moves (channel INTEGER, ply INTEGER, user_id INTEGER,"
            " move TEXT, at REAL)"
        )
        await self.db.commit()
        if self.guild is not None:
            self.tree.copy_global_to(guild=self.guild)
            await self.tree.sync(guild=self.guild)
        else:
            await self.tree.sync()


def main(argv: Sequence[str]) -> None:
    if len(argv) != 2:
        raise SystemExit(__doc__)
    api_url, gateway_url = argv
    discord.http.Route.BASE = api_url
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    if trace := os.environ.get("HILLTOP_BENCH_TRACE"):
        from bench import bot_trace

        bot_trace.install(trace, product=False)
    guild = os.environ.get("DEV_GUILD_ID", "").strip()
    bot = MinimalBot(int(guild) if guild else None)
    with contextlib.suppress(KeyboardInterrupt):
        bot.run(os.environ["DISCORD_TOKEN"], log_handler=None)


if __name__ == "__main__":
    main(sys.argv[1:])
