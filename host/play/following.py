"""People who follow a game they do not play in: pinged (or sent a direct message, per
their `/notify`) when a move is made and when the game ends.

Followers are kept in the database; this keeps a short-lived cache of each game's, so a
move's reply reads them at most once a minute."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from data.repository import UserRecord
from engine.text import t
from host.model import Choice, Reply, ServiceError, User
from host.payloads import Action, Payload
from host.play.live import Loaded, record_of, user_of
from host.settings import SettingsStore, keep_bounded


class FollowsRepository(Protocol):
    async def follow(self, game_id: int, user: UserRecord, on: bool) -> None: ...

    async def followers(self, game_id: int) -> list[UserRecord]: ...


class Following:
    TTL = 60.0

    def __init__(
        self, repository: FollowsRepository, settings: SettingsStore, clock: Callable[[], float]
    ) -> None:
        self.repository = repository
        self.settings = settings
        self.clock = clock
        self._cache: dict[int, tuple[float, tuple[User, ...]]] = {}

    async def of(self, game_id: int) -> tuple[User, ...]:
        cached = self._cache.get(game_id)
        if cached is not None and cached[0] > self.clock():
            return cached[1]
        followers = tuple(user_of(u) for u in await self.repository.followers(game_id))
        keep_bounded(self._cache, game_id, (self.clock() + self.TTL, followers))
        return followers

    async def audience(self, loaded: Loaded) -> tuple[tuple[User, ...], tuple[User, ...]]:
        """The followers of a game who are not its players: those to ping in the channel,
        and those who asked for direct messages."""
        players = {s.user.id for s in loaded.record.seats}
        pinged: list[User] = []
        direct: list[User] = []
        for follower in await self.of(loaded.id):
            if follower.id in players:
                continue
            wants = await self.settings.player(follower.id)
            (direct if wants.direct else pinged).append(follower)
        return tuple(pinged), tuple(direct)

    async def pinged(self, players: tuple[User, ...]) -> tuple[User, ...]:
        """Those of a game's `players` its board pings: not those whose daily digest
        tells them of their games instead."""
        return tuple([p for p in players if not (await self.settings.player(p.id)).digested])

    async def follow(self, loaded: Loaded, user: User, on: bool) -> Reply:
        if on and loaded.record.seats_of(user.id):
            raise ServiceError(
                t("You play in this game: you are pinged whenever it is your turn already.")
            )
        if on and not loaded.record.is_live:
            raise ServiceError(t("This game is over; there is nothing more to follow."))
        await self.repository.follow(loaded.id, record_of(user), on)
        self._cache.pop(loaded.id, None)
        if not on:
            return Reply(text=str(t("You no longer follow this game.")), ephemeral=True, edit=True)
        undo = Payload(Action.UNFOLLOW, loaded.id, 0)
        return Reply(
            text=str(
                t(
                    "You follow this game: you are told of each move and of its end (as a "
                    "ping, or a direct message if you chose them with /notify)."
                )
            ),
            ephemeral=True,
            actions=(Choice(undo, str(t("Unfollow"))),),
        )
