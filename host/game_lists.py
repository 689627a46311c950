"""Lists of games: the ones played in this server (`/games here`) and a player's own in
every server and channel (`/games mine`), those waiting for the player first."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from data.repository import GameRecord
from engine.text import t
from host.lists import paged
from host.live import LiveGames, game_of
from host.model import Channel, Reply, ServiceError, User
from host.payloads import Action, Payload
from host.presenter import Presenter

#: Games on one page of `/games mine`.
PAGE_SIZE = 8


@dataclass(frozen=True, slots=True)
class _Line:
    text: str
    waiting_on_you: bool
    #: The time the decision runs out (sorts the games waiting on you).
    deadline: float


class GameLists:
    def __init__(self, live: LiveGames, presenter: Presenter) -> None:
        self.live = live
        self.presenter = presenter

    async def here(self, channel: Channel, user: User) -> list[Reply]:
        records = await self.live.repository.live_games(channel.guild_id)
        if channel.guild_id is None:
            records = [r for r in records if r.seats_of(user.id)]
        lines = [await self._line(record, user) for record in records]
        if not records:
            text = str(t("No games are being played here. Start one with /play."))
        else:
            text = _sections(lines)
        return [Reply(title=str(t("Active games")), text=text, ephemeral=True)]

    async def mine(self, user: User, page: int = 0, *, edit: bool = False) -> list[Reply]:
        """Every live game `user` plays in, waiting on them first (the soonest to run out
        first), with a link to its latest board; paged with buttons."""
        records = await self.live.repository.games_of_user(user.id, ("challenge", "active"))
        lines = [await self._line(record, user) for record in records]
        lines.sort(key=lambda line: (not line.waiting_on_you, line.deadline))
        pages = max(1, -(-len(lines) // PAGE_SIZE))
        if not 0 <= page < pages:
            raise ServiceError(t("That page is gone: use /games mine again."))
        if not lines:
            text = str(t("You are in no game now. Start one with /play, or try /daily."))
        else:
            text = _sections(lines[page * PAGE_SIZE : (page + 1) * PAGE_SIZE])
        waiting = sum(line.waiting_on_you for line in lines)
        title = t("Your games: {n} waiting for you", n=waiting) if waiting else t("Your games")
        turn = partial(Payload, Action.MY_GAMES, user.id)
        return [paged(str(title), text, page, pages, turn, edit=edit)]

    async def _line(self, record: GameRecord, user: User) -> _Line:
        game = game_of(record.game)
        names = " vs ".join(s.user.name for s in record.seats)
        place = f"<#{record.channel_id}>"
        link = self.presenter.link(record)
        # Outside the f-string, so that the catalogue's extraction finds the word.
        label = t("board")
        board = f" · [{label}]({link})" if link else ""
        if record.status == "challenge":
            text = t(
                "{where} · {game}: {names} (challenge)", where=place, game=game.name, names=names
            )
            pending = any(s.user.id == user.id and not s.accepted for s in record.seats)
            return _Line(str(text) + board, pending, record.created_at)
        loaded = await self.live.locked_load(record.id)
        acting = {s.user.id for s in record.seats if s.seat in loaded.state.to_act}
        text = t(
            "{where} · {game}: {names} · move {n}",
            where=place,
            game=game.name,
            names=names,
            n=record.ply,
        )
        clock = f" · <t:{int(record.deadline_at)}:R>" if record.deadline_at else ""
        deadline = record.deadline_at if record.deadline_at is not None else float("inf")
        return _Line(str(text) + clock + board, user.id in acting, deadline)


def _sections(lines: list[_Line]) -> str:
    mine = [line.text for line in lines if line.waiting_on_you]
    others = [line.text for line in lines if not line.waiting_on_you]
    parts = []
    if mine:
        parts.append(str(t("**Your turn**")) + "\n" + "\n".join(mine))
    if others:
        parts.append(str(t("**Other games**")) + "\n" + "\n".join(others))
    return "\n\n".join(parts)
