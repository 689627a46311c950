"""Finished games: `/history` lists them, `/game id:` shows one's record, and its
"Download log" gives the record as a file that `/play record:` loads again.

Only a server's own games are shown there (in a direct message: the games played in
direct messages), and a game in progress only as everyone may see it."""

from __future__ import annotations

from datetime import UTC, datetime

from data.repository import GameRecord, MoveRecord
from engine.text import t, tn
from host.live import LiveGames, game_of
from host.model import Channel, Choice, Reply, ServiceError, User
from host.payloads import Action, Payload
from host.presenter import Presenter
from host.records import write_record

#: Games on one page of `/history`.
PAGE_SIZE = 10


class History:
    def __init__(self, live: LiveGames, presenter: Presenter) -> None:
        self.live = live
        self.presenter = presenter

    async def page(
        self,
        channel: Channel,
        whose: User | None,
        game: str | None,
        page: int = 0,
        *,
        edit: bool = False,
    ) -> list[Reply]:
        """Finished games here, newest first: `whose` if given, of `game` if given."""
        if game is not None:
            game_of(game)  # an unknown game is refused, naming the games
        records, total = await self.live.repository.finished_games(
            channel.guild_id,
            whose.id if whose is not None else None,
            game,
            PAGE_SIZE,
            page * PAGE_SIZE,
        )
        pages = max(1, -(-total // PAGE_SIZE))
        if not 0 <= page < pages:
            raise ServiceError(t("That page is gone: use /history again."))
        lines = []
        for record in records:
            loaded_game = game_of(record.game)
            when = datetime.fromtimestamp(record.finished_at or record.updated_at, UTC)
            players = " vs ".join(s.user.name for s in record.seats)
            reason = str((record.result or {}).get("reason", ""))
            link = self.presenter.link(record)
            line = t(
                "`#{id}` {date} · **{game}** · {players}: {reason}",
                id=record.id,
                date=when.strftime("%Y-%m-%d"),
                game=loaded_game.name,
                players=players,
                reason=reason or t("ended"),
            )
            lines.append(str(line) + (f" [{t('board')}]({link})" if link else ""))
        if not lines:
            text = str(t("No finished games here yet."))
        else:
            text = "\n".join(lines) + "\n" + str(t("`/game id:` shows one's record."))
        title = tn("{n} finished game", "{n} finished games", n=total)
        if whose is not None:
            title = t("{name}: {games}", name=whose.name, games=str(title))
        tokens = (game,) if game else ()
        owner = whose.id if whose is not None else 0
        actions = []
        if pages > 1:
            for label, target in (("◀", page - 1), ("▶", page + 1)):
                payload = Payload(Action.HISTORY, owner, max(0, min(pages - 1, target)), tokens)
                actions.append(Choice(payload, label, disabled=not 0 <= target < pages))
        footer = str(t("Page {page} of {pages}", page=page + 1, pages=pages)) if pages > 1 else ""
        return [
            Reply(
                title=str(title),
                text=text,
                ephemeral=True,
                actions=tuple(actions),
                footer=footer,
                edit=edit,
            )
        ]

    async def turn_page(
        self, channel: Channel, owner_id: int, game: str | None, page: int
    ) -> list[Reply]:
        """Another page, from its button: whose games it lists is known by id; the name
        is read from one of their games."""
        whose = None
        if owner_id:
            records, _ = await self.live.repository.finished_games(
                channel.guild_id, owner_id, None, 1, 0
            )
            seats = records[0].seats if records else ()
            name = next((s.user.name for s in seats if s.user.id == owner_id), "?")
            whose = User(owner_id, name)
        return await self.page(channel, whose, game, page, edit=True)

    async def record(self, channel: Channel, game_id: int) -> list[Reply]:
        """One game's record: players and seats, the result, the set-up and every move,
        with a button to download it as a file."""
        record, moves = await self._readable(channel, game_id)
        game = game_of(record.game)
        loaded = await self.live.locked_load(game_id)
        result = self.presenter.result_line(loaded) if not record.is_live else ""
        text = write_record(game, record, moves, result)
        shown = (
            text
            if len(text) <= 3900
            else text[:3800] + "\n…\n" + str(t("(the whole record is in the download)"))
        )
        download = Payload(Action.DOWNLOAD, game_id, 0)
        return [
            Reply(
                title=str(t("Game {id}: {game}", id=game_id, game=game.name)),
                text=f"```\n{shown}```",
                ephemeral=True,
                actions=(Choice(download, str(t("Download log"))),),
            )
        ]

    async def download(self, channel: Channel, game_id: int) -> list[Reply]:
        record, moves = await self._readable(channel, game_id)
        game = game_of(record.game)
        loaded = await self.live.locked_load(game_id)
        result = self.presenter.result_line(loaded) if not record.is_live else ""
        text = write_record(game, record, moves, result)
        return [
            Reply(
                text=str(
                    t(
                        "The record of game {id}. Load it with /play record: (and ply: to "
                        "start from any move).",
                        id=game_id,
                    )
                ),
                ephemeral=True,
                file=(f"hilltop-game-{game_id}.txt", text.encode()),
            )
        ]

    async def _readable(
        self, channel: Channel, game_id: int
    ) -> tuple[GameRecord, list[MoveRecord]]:
        found = await self.live.repository.game_with_moves(game_id)
        if found is None or found[0].kind != "channel" or found[0].guild_id != channel.guild_id:
            # Another server's game is not to be told apart from one that does not exist.
            raise ServiceError(t("There is no game {id} here.", id=game_id))
        return found
