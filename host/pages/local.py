"""Playing on the console's own pages: who the console's players are, and a session as one
of them. Only the console's process offers it, to the computer it runs on (the web
decides that); the servers it covers are those whose pages are always open."""

from __future__ import annotations

import re

from engine.rng import seed_from_text
from engine.text import t
from host.model import ServiceError, User
from host.pages.access import Access
from host.pages.sessions import Sessions
from host.service import BOT_NAME

#: The most players the page lists, and the games read to find them: the first live ones
#: and the latest finished ones of each server.
MOST_PLAYERS = 50
GAMES_READ = 50
#: A console name, as the console reads one (lowercase).
NAME = re.compile(r"[\w.-]{1,100}")


def local_user(name: str) -> User:
    """The console's player `name` (lowercase): the same id wherever the name is typed,
    in the console's lines or on its pages."""
    return User(seed_from_text(f"user:{name}"), name, is_bot=False, is_admin=True)


class LocalPlayers:
    def __init__(self, access: Access, sessions: Sessions) -> None:
        self.access = access
        self.sessions = sessions

    async def names(self) -> list[str]:
        """The names of the players seated in the open servers' games (their live games and
        latest results), in order, at most `MOST_PLAYERS`: the console's own people only,
        whose id is their name's."""
        repository = self.access.live.repository
        found: set[str] = set()
        for guild_id in self.access.always_open:
            live, _ = await repository.live_games(guild_id, GAMES_READ, 0)
            done = await repository.finished_games(guild_id, None, None, GAMES_READ)
            for record in (*live, *done):
                for seat in record.seats:
                    for user in (seat.user, seat.left):
                        if user and not user.is_bot and local_user(user.name).id == user.id:
                            found.add(user.name)
        return sorted(found)[:MOST_PLAYERS]

    async def sign_in(self, name: str) -> str:
        """A new session as the console's player `name`: its token, for the cookie."""
        name = name.strip().lstrip("@").lower()
        if not NAME.fullmatch(name):
            raise ServiceError(
                t("A player's name is letters, digits, dots, dashes and underscores, like alice.")
            )
        if name == BOT_NAME:
            raise ServiceError(t("{name} is the bot: choose a player's name.", name=name))
        user = local_user(name)
        return await self.sessions.sign_in(user.id, user.name, list(self.access.always_open))
