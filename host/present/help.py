"""`/help`: the games, and how to start, play and find them, in the reader's language."""

from __future__ import annotations

from engine.text import t, tn
from host import catalog
from host.model import Reply


def help_replies(bot: str) -> list[Reply]:
    """`/help`: the games, and how to start, play and find them (`bot`: the bot's name
    as players see it)."""
    games = []
    for listing in catalog.all_listings():
        game = listing.game
        players = (
            str(game.min_players)
            if game.min_players == game.max_players
            else f"{game.min_players}-{game.max_players}"
        )
        line = t(
            "**{name}** (`{id}`, {players}): {blurb}",
            name=game.name,
            id=game.id,
            players=tn("{count} player", "{count} players", n=game.max_players, count=players),
            blurb=game.blurb,
        )
        games.append(str(line))
    sections = [
        "\n".join(games),
        str(
            t(
                "**Start a game**: `/play game:<game> opponent:@someone` posts a challenge "
                "they accept with a button. A busy channel offers a new thread."
            )
        ),
        str(
            t(
                "**Against the computer**: `/play game:<game> opponent:@{bot}`, or "
                "`computers:<n>` to fill seats; `level:` easy, normal or hard.",
                bot=bot,
            )
        ),
        str(
            t(
                "**Your move**: press the buttons on the board, or type `/move` and pick "
                "from your legal moves. `/moves` lists them privately, `/board` shows the "
                "board again, `/resign` gives up."
            )
        ),
        str(
            t(
                "**Between players**: `/draw` offers a draw, `/takeback` asks to take back "
                "your last move; a finished game's **Rematch** button plays it again, and "
                "**Follow** on any board tells you of each of its moves."
            )
        ),
        str(
            t(
                "**Finished games**: `/history` lists them, `/game id:` shows one's record "
                "(with a log to download), `/replay id:` animates it, and `/play record:` "
                "starts from any of its moves."
            )
        ),
        str(
            t(
                "**Ratings**: every finished game between people is rated, per server and "
                "for everyone. `/ratings game:` shows a game's table with your place, "
                "`/profile` your ratings, record, streak and best win (`opponent:` adds "
                "your record against them)."
            )
        ),
        str(
            t(
                "**Your games**: `/games mine` lists every game you play, in every server, "
                "with a link to its board; `/games here` this server's games. `/notify` "
                "sets reminders and direct messages."
            )
        ),
        str(
            t(
                "**The daily challenge**: `/daily` plays today's Hillbert hill, one scored "
                "run a day for everyone; `/leaderboard` and `/stats` rank the runs, and "
                "once a day's hill closes `/daily-replay` shows its winning run and par."
            )
        ),
        str(t("**Rules**: `/rules game:<game>`, with the house rulings.")),
    ]
    title = str(t("Hilltop: how to play"))
    return [Reply(title=title, text="\n\n".join(sections), ephemeral=True)]
