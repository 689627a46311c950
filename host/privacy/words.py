"""What is kept, in words: `/privacy`, the console's `/privacy` and the web's /privacy page
all show this one notice, in the reader's language. It says what the storage holds, why,
for how long, who sees it, and how to have a copy or have it removed.

Each table of the storage belongs to one group of the notice (`GROUPS`): a table added
without a place there fails the tests, so that the notice never leaves out what is kept.
"""

from __future__ import annotations

from dataclasses import replace

from data.servers import FORGET_AFTER
from engine.text import Text, t, tn
from host.model import Channel, Reply, User
from host.pages.sessions import SESSION_SECONDS

#: Days a server's data is kept after the bot is removed from it.
SERVER_DAYS = FORGET_AFTER // 86_400
#: Days a sign-in on the web pages lasts.
SESSION_DAYS = SESSION_SECONDS // 86_400

#: Every table of the storage, by the group of the notice that tells of it.
GROUPS: dict[str, tuple[str, ...]] = {
    "people": ("users", "guild_members", "guilds", "forgetting"),
    "games": ("games", "seats", "moves", "follows", "console_channels", "console_buttons"),
    "ratings": ("ratings", "rating_changes", "head_to_head"),
    "daily": ("daily_runs", "daily_totals", "daily_par"),
    "settings": ("user_settings", "digests", "away", "guild_settings"),
    "tournaments": ("events", "event_entrants", "event_tables", "event_seats"),
    "sessions": ("web_sessions",),
}


def stored() -> dict[str, tuple[Text, Text]]:
    """What each group keeps: its heading and its words, in `GROUPS`' order."""
    return {
        "people": (
            t("You"),
            t(
                "Your Discord user id and your display name as last seen, and the servers"
                " whose daily boards you are on. Of servers: those the bot is in, and when"
                " it was removed from one. Your messages are not read: the bot sees only"
                " its own commands."
            ),
        ),
        "games": (
            t("Games"),
            t(
                "Each game: its server and channel, who sat in each seat, every move with"
                " who made it and when, its deadlines and its result; and the games you"
                " follow."
            ),
        ),
        "ratings": (
            t("Ratings"),
            t(
                "Your rating in each game, on each server and global, every change of it"
                " with the game that made it, your wins, draws and losses, and your record"
                " against each opponent."
            ),
        ),
        "daily": (
            t("Daily hills"),
            t(
                "Each daily run: its day, score and turns; your totals for each week and"
                " for all time."
            ),
        ),
        "settings": (
            t("Settings"),
            t(
                "What you chose with /notify (reminders, direct messages, the digest and"
                " its hour, your time zone), your Discord client's language, whether direct"
                " messages reach you, your away days and time away. A server's settings, as"
                " its admins chose them."
            ),
        ),
        "tournaments": (
            t("Tournaments"),
            t("Who made each tournament and who entered it, its pairings, places and scores."),
        ),
        "sessions": (
            t("Signing in on the web"),
            tn(
                "A sign-in lasts {n} day, or until you sign out: your browser keeps a random"
                " token, the bot only its hash, with your id, your name and the ids of your"
                " servers. No Discord password or Discord access token is kept.",
                "A sign-in lasts {n} days, or until you sign out: your browser keeps a random"
                " token, the bot only its hash, with your id, your name and the ids of your"
                " servers. No Discord password or Discord access token is kept.",
                n=SESSION_DAYS,
            ),
        ),
    }


def privacy_notice() -> Reply:
    """The whole notice, as one reply (an embed within Discord's limits)."""
    fields = [(str(heading), str(words)) for heading, words in stored().values()]
    fields += [(str(heading), str(words)) for heading, words in _the_rest()]
    return Reply(
        title=str(t("What Hilltop keeps")),
        text=str(
            t("Hilltop keeps what running the games needs, and nothing more: the facts below.")
        ),
        fields=tuple(fields),
    )


def _the_rest() -> list[tuple[Text, Text]]:
    """Why, for how long, who sees it, and how to have a copy or have it removed."""
    return [
        (
            t("Why"),
            t(
                "To run the games and say whose turn it is, to remind you, to show boards,"
                " histories and replays, to rate players, to rank the daily hill and to run"
                " tournaments."
            ),
        ),
        (
            t("For how long"),
            tn(
                "While the bot is in the server. When it is removed, everything of that"
                " server is deleted {n} day later (inviting it back in time keeps it); your"
                " daily runs and global ratings stay. Games are not deleted otherwise:"
                " they are the other players' history too.",
                "While the bot is in the server. When it is removed, everything of that"
                " server is deleted {n} days later (inviting it back in time keeps it); your"
                " daily runs and global ratings stay. Games are not deleted otherwise:"
                " they are the other players' history too.",
                n=SERVER_DAYS,
            ),
        ),
        (
            t("Who sees it"),
            t(
                "A server's members see the games played there (and who in them is away),"
                " its ratings and its boards; the global ratings and daily boards can be"
                " seen on every server. The web pages show a server's games only if its"
                " admins open them with /admin settings web:. Your other settings, your copy"
                " and your sessions are yours alone. The bot's operator, who runs its"
                " database, can read all of it."
            ),
        ),
        (
            t("A copy, or removal"),
            t(
                "/mydata export sends you a file of everything stored about you. /mydata"
                " forget deletes it; in games others played your seat stays, as “a former"
                " player”. A server's admins delete everything of their server with /admin"
                " forget-server. For a deleted Discord account, the bot's operator runs"
                " bot.py --export-user or --forget-user."
            ),
        ),
    ]


async def privacy(channel: Channel, user: User) -> list[Reply]:
    """`/privacy`: the notice, to the person who asked (only they see it)."""
    return [replace(privacy_notice(), ephemeral=True)]
