"""Finished games: `/history` lists them, `/game id:` shows one's record, and its
"Download log" gives the record as a file that `/play record:` loads again.

Only a server's own games are shown there (in a direct message: the games played in
direct messages), and a game in progress only as everyone may see it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextlib import nullcontext
from typing import Any

from data.repository import GameRecord, GameRepository, MoveRecord
from data.results import Ending, GameResult
from engine.core import GameState
from engine.text import t, tn
from host import i18n
from host.background import OnePerUser
from host.history.records import shown_moves, write_record
from host.model import Channel, Choice, Reply, ServiceError, User
from host.payloads import Action, Payload
from host.play.live import LiveGames, game_of, replay, start_state
from host.play.results import list_names, result_tag, short_line
from host.present.lists import paged_from
from host.present.painting import NORMAL, SPEEDS, Painter, Speed
from host.present.presenter import Presenter
from host.present.words import move_number
from host.privacy.names import shown_name
from render.core import RenderContext

#: Games on one page of `/history`.
PAGE_SIZE = 10
#: Discord's limit for an attachment.
MAX_REPLAY_BYTES = 8 * 1024 * 1024
#: The buttons of a replay stepped through: label, and the way it goes (carried in its
#: payload, so that no two buttons of a panel share a custom_id).
STEPS = (("⏮", "first"), ("◀", "back"), ("▶", "next"), ("⏭", "last"))


def _cursor(cursor: str | None) -> tuple[int | None, int | None]:
    """(older than, newer than) from a page's cursor ("<id" or ">id")."""
    if cursor is None:
        return None, None
    try:
        game_id = int(cursor[1:])
    except ValueError:
        raise ServiceError(t("That page is gone: use /history again.")) from None
    return (game_id, None) if cursor.startswith("<") else (None, game_id)


#: Players' names by id, as stored (for a player who is no longer in a game's seats).
Names = Callable[[Iterable[int]], Awaitable[dict[int, str]]]


#: The tournament each of these games was played in, as a label, by game id.
Labels = Callable[[Iterable[int]], Awaitable[dict[int, str]]]


class History:
    def __init__(
        self,
        live: LiveGames,
        presenter: Presenter,
        names: Names | None = None,
        labels: Labels | None = None,
    ) -> None:
        self.live = live
        self.presenter = presenter
        self.names = names
        #: Tournaments named beside their games (None: none kept).
        self.labels = labels
        #: One replay drawn per person at a time: thirty /replays of one person queue
        #: one drawing ahead of everyone else's, not thirty.
        self.replays = OnePerUser(
            lambda: t("Your last replay is still being drawn: wait for it, then ask again.")
        )

    async def page(
        self,
        channel: Channel,
        whose: User | None,
        game: str | None,
        number: int = 0,
        cursor: str | None = None,
        *,
        edit: bool = False,
        viewer: User | None = None,
    ) -> list[Reply]:
        """Finished games here, newest first: `whose` if given, of `game` if given. In a
        direct message, only `viewer`'s own games: a direct-message game belongs to its
        players alone. A page is cut where the one beside it ended (`cursor`: "<id" for
        the games older than game id, ">id" for those newer), so a page deep in years of
        history costs what the first one does; `number` is its place from the newest."""
        if game is not None:
            game = game_of(game).id  # an unknown game is refused, naming the games
        if channel.guild_id is None:
            if viewer is None:
                raise ServiceError(t("No finished games here yet."))
            if whose is not None and whose.id != viewer.id:
                raise ServiceError(
                    t(
                        "In direct messages /history shows only your own games; to see "
                        "{name}'s, use it in a server you share.",
                        name=whose.name,
                    )
                )
            whose = viewer
        records, more_newer, more_older = await finished_page(
            self.live.repository,
            channel.guild_id,
            whose.id if whose is not None else None,
            game,
            _cursor(cursor),
        )
        if cursor is not None and not records:
            raise ServiceError(t("That page is gone: use /history again."))
        lines = []
        events = await self.labels([r.id for r in records]) if self.labels and records else {}
        for record in records:
            loaded_game = game_of(record.game)
            when = i18n.day(record.finished_at or record.updated_at)
            names = list_names(loaded_game, record)
            result = record.result or GameResult(Ending.RULES)
            link = self.presenter.link(record)
            line = t(
                "`#{id}` {date} · **{game}** · {players}: {result}",
                id=record.id,
                date=when,
                game=loaded_game.name,
                players=" vs ".join(names),
                result=short_line(loaded_game, result, names),
            )
            label = t("board")  # outside the f-string, where the catalogue finds it
            event = f" · {events[record.id]}" if record.id in events else ""
            lines.append(str(line) + event + (f" [{label}]({link})" if link else ""))
        if not lines:
            text = str(t("No finished games here yet."))
        else:
            text = "\n".join(lines) + "\n" + str(t("`/game id:` shows one's record."))
        title = (
            t("Finished games") if whose is None else t("Finished games of {name}", name=whose.name)
        )
        tokens = (game,) if game else ()
        owner = whose.id if whose is not None else 0
        first, last = (records[0].id, records[-1].id) if records else (0, 0)
        newer = Payload(Action.HISTORY, owner, max(0, number - 1), (*tokens, f">{first}"))
        older = Payload(Action.HISTORY, owner, number + 1, (*tokens, f"<{last}"))
        return [
            paged_from(
                str(title),
                text,
                number,
                (newer, bool(records) and more_newer),
                (older, bool(records) and more_older),
                edit=edit,
            )
        ]

    async def turn_page(
        self,
        channel: Channel,
        owner_id: int,
        tokens: tuple[str, ...],
        number: int,
        viewer: User | None = None,
    ) -> list[Reply]:
        """Another page, from its button (tokens: the game asked for, if any, and where
        the page is cut). Whose games it lists is known by id; the name is read from one
        of their games. A button from before pages were cut this way shows the newest."""
        game = next((token for token in tokens if not token.startswith(("<", ">"))), None)
        cursor = next((token for token in tokens if token.startswith(("<", ">"))), None)
        whose = None
        if owner_id:
            records = await self.live.repository.finished_games(channel.guild_id, owner_id, None, 1)
            seats = records[0].seats if records else ()
            name = next((s.user.name for s in seats if s.user.id == owner_id), None)
            if name is None and self.names is not None:
                # Their newest game is one they resigned: a computer holds their seat.
                name = (await self.names([owner_id])).get(owner_id)
            whose = User(owner_id, "?" if name is None else shown_name(name))
        if cursor is None:
            number = 0
        return await self.page(channel, whose, game, number, cursor, edit=True, viewer=viewer)

    async def record(
        self, channel: Channel, game_id: int, viewer: User | None = None
    ) -> list[Reply]:
        """One game's record: players and seats, the result, the set-up and every move,
        with a button to download it as a file."""
        record, moves = await self._readable(channel, game_id, viewer)
        game = game_of(record.game)
        text = write_record(game, record, moves, await self._ending_tags(record))
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

    async def download(
        self, channel: Channel, game_id: int, viewer: User | None = None
    ) -> list[Reply]:
        record, moves = await self._readable(channel, game_id, viewer)
        game = game_of(record.game)
        text = write_record(game, record, moves, await self._ending_tags(record))
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

    async def _ending_tags(self, record: GameRecord) -> tuple[str, str] | None:
        """A finished game's Result tag (`1-0`) and its Termination tag, in words (None:
        the game goes on)."""
        if record.is_live or record.result is None:
            return None
        loaded = await self.live.locked_load(record.id)
        return result_tag(loaded.game, record.result), str(self.presenter.ending_sentence(loaded))

    # --- replays ---------------------------------------------------------------------------
    async def replay(
        self,
        channel: Channel,
        game_id: int,
        speed: str = "normal",
        viewer: User | None = None,
    ) -> list[Reply]:
        """The whole game as an animated picture, one frame per move with the move drawn
        (Everest: each step of each round), at one of the `SPEEDS` (a long game is shown
        faster, within the speed's limit); a game in progress only as far as everyone
        may see it. A button opens a private board to step through. One replay is drawn
        for `viewer` at a time."""
        pace = SPEEDS.get(speed)
        if pace is None:
            raise ServiceError(t("speed: choose normal or fast (not {speed!r}).", speed=speed))
        with self.replays.slot(viewer.id) if viewer is not None else nullcontext():
            record, frames = await self._frames(channel, game_id, viewer)
            gif = await animate(self.presenter.painter, frames, pace)
        game = game_of(record.game)
        step = Payload(Action.REPLAY, game_id, 0, ("open",))
        moves = len(frames) - 1
        return [
            Reply(
                title=str(t("Replay of game {id}: {game}", id=game_id, game=game.name)),
                text=str(
                    tn(
                        "{players}: {n} move, each drawn.",
                        "{players}: {n} moves, each drawn.",
                        n=moves,
                        players=" vs ".join(shown_name(s.user.name) for s in record.seats),
                    )
                ),
                image=gif,
                image_name="replay.gif",
                actions=(Choice(step, str(t("Step through"))),),
            )
        ]

    async def step(
        self,
        channel: Channel,
        game_id: int,
        ply: int,
        opening: bool,
        viewer: User | None = None,
    ) -> list[Reply]:
        """A private board at `ply` of a game, with buttons to the first, the previous,
        the next and the last position."""
        record, frames = await self._frames(channel, game_id, viewer)
        last = len(frames) - 1
        ply = max(0, min(last, ply))
        state, ctx, _ = frames[ply]
        board = await self.presenter.painter.board(state, ctx, None)
        actions = []
        for label, way in STEPS:
            to = {"first": 0, "back": ply - 1, "next": ply + 1, "last": last}[way]
            # Each button names its way: Discord refuses a message whose buttons share a
            # custom_id, disabled ones too (⏮ and ◀ both lead to 0 from the second position).
            payload = Payload(Action.REPLAY, game_id, max(0, min(last, to)), (way,))
            still = to == ply or not 0 <= to <= last
            actions.append(Choice(payload, label, disabled=still))
        game = game_of(record.game)
        # A game started from a record counts its moves from the record's start.
        shift = move_number(record) - record.ply
        return [
            Reply(
                title=str(
                    t(
                        "Game {id}: {game} · move {ply} of {last}",
                        id=game_id,
                        game=game.name,
                        ply=ply + shift,
                        last=last + shift,
                    )
                ),
                image=board.board,
                ephemeral=True,
                actions=tuple(actions),
                edit=not opening,
            )
        ]

    async def _frames(
        self, channel: Channel, game_id: int, viewer: User | None = None
    ) -> tuple[GameRecord, list[tuple[GameState[Any], RenderContext, bool]]]:
        """Each position everyone may see, with what its picture shows, and whether it is
        a moment to dwell on (a move that set something off, the end)."""
        record, moves = await self._readable(channel, game_id, viewer)
        game = game_of(record.game)
        loaded = await self.live.locked_load(game_id)
        names = tuple(self.presenter.names(loaded))
        shown = shown_moves(game, record, moves)
        # A game that ended off the board (resigned, claimed, agreed) says on its last
        # frame who won and how; one over on the board shows it there.
        ending = self.presenter.picture_caption(loaded)
        entries = [(m.seat, m.text) for m in shown]
        return record, frames_of(start_state(game, record), entries, names, ending)

    async def _readable(
        self, channel: Channel, game_id: int, viewer: User | None
    ) -> tuple[GameRecord, list[MoveRecord]]:
        """A game that `viewer` may read here: one of this server's games; in a direct
        message, only a direct-message game `viewer` played in (such a game belongs to
        its players alone)."""
        found = await self.live.repository.game_with_moves(game_id)
        if (
            found is None
            or found[0].kind != "channel"
            or found[0].guild_id != channel.guild_id
            or (found[0].guild_id is None and not _plays_in(found[0], viewer))
        ):
            # Another server's game is not to be told apart from one that does not exist.
            raise ServiceError(t("There is no game {id} here.", id=game_id))
        return found


async def finished_page(
    repository: GameRepository,
    guild_id: int | None,
    user_id: int | None,
    game: str | None,
    cut: tuple[int | None, int | None],
) -> tuple[list[GameRecord], bool, bool]:
    """One page of finished games, newest first, cut where the page beside ended (`cut`:
    older than, newer than a game id): the games, and whether there are newer and older
    ones. A page deep in years of history costs what the first one does."""
    older_than, newer_than = cut
    records = await repository.finished_games(
        guild_id, user_id, game, PAGE_SIZE + 1, older_than=older_than, newer_than=newer_than
    )
    if newer_than is not None:
        return records[-PAGE_SIZE:], len(records) > PAGE_SIZE, True
    return records[:PAGE_SIZE], older_than is not None, len(records) > PAGE_SIZE


def _plays_in(record: GameRecord, viewer: User | None) -> bool:
    """Whether `viewer` holds a seat of the game, or held one until they resigned."""
    if viewer is None:
        return False
    return any(s.user.id == viewer.id or (s.left and s.left.id == viewer.id) for s in record.seats)


Frame = tuple[GameState[Any], RenderContext, bool]


def frames_of(
    start: GameState[Any],
    moves: Sequence[tuple[int, str]],
    names: tuple[str, ...],
    ending: str = "",
) -> list[Frame]:
    """Each position from `start` through `moves` as everyone sees it, with what its
    picture shows, and whether it is a moment to dwell on (a move that set something
    off, the end). `ending` captions the last frame of a game not over on the board."""
    reached = replay(start, moves)
    frames: list[Frame] = []
    for number, (state, move) in enumerate(reached):
        public = state.view(None)
        previous = reached[number - 1][0].view(None) if number else None
        caption = ending if number == len(reached) - 1 and state.to_act else ""
        ctx = RenderContext(names=names, last_move=move, previous=previous, caption=caption)
        key = state.outcome() is not None or bool(public.report(previous, names))
        frames.append((public, ctx, key))
    return frames


async def animate(painter: Painter, frames: list[Frame], speed: Speed = NORMAL) -> bytes:
    """The frames as an animated GIF under Discord's attachment limit: a longer game
    shows every other move (every fourth…), keeping the moments to dwell on and the end."""
    gif = await painter.replay(frames, speed)
    every = 2
    while len(gif) > MAX_REPLAY_BYTES and every <= len(frames):
        kept = [f for i, f in enumerate(frames) if i % every == 0 or f[2]]
        gif = await painter.replay([*kept, frames[-1]], speed)
        every *= 2
    return gif
