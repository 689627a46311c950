"""The bot's extensions: each a cog with its slash commands, loaded in this order."""

EXTENSIONS = (
    "cogs.games",
    "cogs.daily",
    "cogs.ratings",
    "cogs.admin",
    "cogs.events",
    "cogs.away",
    "cogs.mydata",
    "cogs.privacy",
    "cogs.timers",
    "cogs.telling",
)
