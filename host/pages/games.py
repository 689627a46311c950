"""A game's pages: the live board with every move in words, the replay's frames and the
record, and a server's front page of live games and recent results."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Mapping
from dataclasses import replace
from typing import Any

from data.repository import GameRecord, MoveRecord
from data.results import Ending, GameResult
from engine.core import GameState
from engine.text import current_language, t
from host import catalog
from host.history.finished import Frame, frames_of
from host.history.records import shown_moves, write_record
from host.model import User
from host.pages.access import Access, not_found
from host.pages.movelist import move_table
from host.pages.views import (
    FrameView,
    GameCard,
    GameView,
    HistoryRow,
    MoveLine,
    PlayerView,
    ReplayView,
    ServerInfo,
    ServerView,
    Visitor,
)
from host.play.live import UNDO, Loaded, game_of, start_state
from host.play.results import list_names, result_tag, short_line
from host.present.presenter import Presenter
from host.rating import Ratings, shown

#: Live games and recent results on a server's front page.
FRONT_LIVE = 24
FRONT_RECENT = 10
#: Pictures kept in memory (a board is 20-120 KB): the latest boards of the games being
#: watched, and the frames of the replays being stepped through. Kept by the game's
#: `updated_at` as well as its ply: a forgetting renames a finished game's players.
PICTURES = 256
#: Games whose moves in words are kept in memory, by ply and language.
WORDS = 256
#: Game pages kept in memory, by ply and language.
VIEWS = 256
#: Games whose every position is kept in memory, for their replays.
REPLAYS = 16


def _remember(cache: OrderedDict[Any, Any], key: Hashable, value: Any, size: int) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)


#: The people a live game waits for who are away, with when they are back.
AwayOf = Callable[[Loaded], Awaitable[dict[int, float]]]


class GamePages:
    def __init__(
        self,
        access: Access,
        presenter: Presenter,
        ratings: Ratings | None,
        away: AwayOf | None = None,
    ) -> None:
        self.access = access
        #: The people a game waits for who are away (its page says so for their clock).
        self.away = away
        self.live = access.live
        self.presenter = presenter
        self.ratings = ratings
        self._pictures: OrderedDict[Hashable, bytes] = OrderedDict()
        self._words: OrderedDict[Hashable, tuple[MoveLine, ...]] = OrderedDict()
        self._views: OrderedDict[Hashable, GameView] = OrderedDict()
        self._replays: OrderedDict[Hashable, list[Frame]] = OrderedDict()
        #: Per game and language: the moves told so far, and the positions they reached.
        self._told_so_far: OrderedDict[
            Hashable, tuple[tuple[MoveLine, ...], tuple[GameState[Any], ...]]
        ] = OrderedDict()

    # --- a server's front page -------------------------------------------------------------
    async def server(self, guild_id: int, visitor: Visitor) -> ServerView:
        server = await self.access.server(guild_id, visitor)
        repository = self.live.repository
        records, _ = await repository.live_games(guild_id, FRONT_LIVE, 0)
        cards = []
        for record in records:
            if record.kind == "channel":
                # A glance at the stored position: no game is replayed to list it.
                game = game_of(record.game)
                glance = Loaded(record, game, game.from_text(record.snapshot), None, None)
                cards.append(await self.card(glance, ratings=False))
        recent = await repository.finished_games(guild_id, None, None, FRONT_RECENT)
        rated = tuple(
            (listing.id, listing.game.name)
            for listing in catalog.all_listings()
            if listing.game.max_players >= 2
        )
        return ServerView(server, tuple(cards), tuple(history_row(r) for r in recent), rated)

    # --- a game ------------------------------------------------------------------------------
    async def game(self, game_id: int, visitor: Visitor) -> GameView:
        server, record = await self.access.game(game_id, visitor)
        away = await self.away(await self.access.loaded(record)) if self.away else {}
        key = (
            game_id,
            record.ply,
            record.status,
            record.updated_at,
            record.deadline_at,
            tuple(sorted(away.items())),
            current_language(),
        )
        kept = self._views.get(key)
        if kept is None:
            kept = await self.view(await self.access.loaded(record), away)
            _remember(self._views, key, kept, VIEWS)
        return replace(kept, server=server)

    async def view(self, loaded: Loaded, away: Mapping[int, float] | None = None) -> GameView:
        """The page of a game as it stands (kept by ply and language: a page watched by
        many is made once per move); `away`: the people it waits for who are away."""
        record = loaded.record
        card = await self.card(loaded)
        humans = [s for s in sorted(loaded.state.to_act) if not record.seats[s].user.is_bot]
        live = record.status == "active"
        clock = self.presenter.clock_lines(loaded, humans, away) if live and humans else []
        latest = [] if loaded.deciding_together else self.presenter.reported(loaded)
        moves = await self.moves(loaded)
        names = self.presenter.names(loaded)
        labels = [self.presenter.seat_label(loaded, s.seat) for s in record.seats]
        to_move = ""
        if live and loaded.state.to_act:
            acting = ", ".join(names[s] for s in sorted(loaded.state.to_act) if s < len(names))
            to_move = str(t("{names} to move", names=acting))
        return GameView(
            server=ServerInfo(record.guild_id or 0, "", ""),
            card=card,
            latest=tuple(latest),
            moves=moves,
            clock_lines=tuple(clock),
            fields=tuple(self.presenter.score_fields(loaded)),
            message=(
                (record.guild_id, record.channel_id, record.board_message_id)
                if record.guild_id and record.channel_id and record.board_message_id
                else None
            ),
            shown_ply=record.ply,
            live=live or record.status == "challenge",
            table=move_table(moves, labels, loaded.game.told_in_rounds),
            to_move=to_move,
        )

    async def card(self, loaded: Loaded, *, ratings: bool = True) -> GameCard:
        """A game in a list: its players (with their ratings here, if `ratings`), whose
        turn it is or how it ended."""
        record = loaded.record
        acting = loaded.state.to_act if record.status == "active" else frozenset()
        winners = set(record.result.winners) if record.result is not None else set()
        players = []
        for seat in record.seats:
            rating = ""
            rated = ratings and self.ratings is not None and record.guild_id is not None
            if rated and not seat.user.is_bot:
                assert self.ratings is not None and record.guild_id is not None
                standing = await self.ratings.repository.standing(
                    record.game, record.guild_id, seat.user.id, placed=False
                )
                if standing is not None:
                    rating = str(shown(standing.mu)) + ("?" if standing.games < 5 else "")
            players.append(
                PlayerView(
                    seat=seat.seat,
                    user_id=seat.user.id,
                    label=self.presenter.seat_label(loaded, seat.seat),
                    is_bot=seat.user.is_bot,
                    rating=rating,
                    to_act=seat.seat in acting,
                    won=seat.seat in winners,
                )
            )
        if record.status == "active":
            state_line = self.presenter.waiting_line(loaded)
        elif record.status == "challenge":
            state_line = str(t("Waiting for the challenge to be accepted."))
        else:
            state_line = self.presenter.result_line(loaded)
        return GameCard(
            id=record.id,
            game=record.game,
            game_name=loaded.game.name,
            status=record.status,
            ply=record.ply,
            players=tuple(players),
            state_line=state_line,
            deadline_at=record.deadline_at if record.status == "active" else None,
            updated_at=record.updated_at,
            names=tuple(self.presenter.names(loaded)),
        )

    async def moves(self, loaded: Loaded) -> tuple[MoveLine, ...]:
        """Every move everyone may see, in words; kept by game, ply, language and who
        sits where (a forgotten player's seats pass to a former player)."""
        key = (
            loaded.id,
            loaded.record.ply,
            loaded.record.status,
            current_language(),
            tuple(s.user.id for s in loaded.record.seats),
        )
        kept = self._words.get(key)
        if kept is not None:
            return kept
        _, moves = await self._log(loaded.id)
        lines = self._told(loaded, shown_moves(loaded.game, loaded.record, moves))
        _remember(self._words, key, lines, WORDS)
        return lines

    def _told(self, loaded: Loaded, moves: list[MoveRecord]) -> tuple[MoveLine, ...]:
        """The moves in words. The log only grows (a takeback is an entry of its own), so
        the words of a game told before are carried on from where they stopped: a move
        costs the page one move's work, however long the game."""
        game, record = loaded.game, loaded.record
        names = self.presenter.names(loaded)
        labels = [self.presenter.seat_label(loaded, s.seat) for s in record.seats]
        secret = game.secret_decisions
        told_key = (loaded.id, current_language(), tuple(labels))
        told = self._told_so_far.get(told_key)
        if told is not None and len(told[0]) <= len(moves):
            lines, states = list(told[0]), list(told[1])
        else:
            lines, states = [], [start_state(game, record)]
        for ply, entry in enumerate(moves[len(lines) :], start=len(lines) + 1):
            name = labels[entry.seat] if entry.seat < len(labels) else "?"
            if entry.text == UNDO:
                if len(states) > 1:
                    states.pop()
                took = t("{name} took back a move.", name=name)
                lines.append(
                    MoveLine(ply, str(took), undo=True, seat=entry.seat, frame=len(states) - 1)
                )
                continue
            before = states[-1]
            move = before.parse_move(entry.seat, entry.text)
            after = before.play(entry.seat, move)
            states.append(after)
            played = before.move_text(move)
            if secret and len(before.to_act) > 1:
                text = t("{name} has made their choice.", name=name)
            else:
                effect = before.view(None).move_effect(move)
                text = (
                    t("{name} played {move}.", name=name, move=played)
                    if effect is None
                    else t("{name} played {move}: {effect}.", name=name, move=played, effect=effect)
                )
            report = after.view(None).report(before.view(None), names)
            # Only decisions already taken are told (`shown_moves`): a secret plan's
            # notation is shown once every plan of its decision is in and revealed.
            waits = len(before.to_act) > 1 and bool(after.to_act) and after.to_act < before.to_act
            lines.append(
                MoveLine(
                    ply,
                    str(text),
                    tuple(str(x) for x in report),
                    seat=entry.seat,
                    notation=played,
                    round=before.round_number if game.told_in_rounds else None,
                    frame=len(states) - 1,
                    waits=waits,
                )
            )
        _remember(self._told_so_far, told_key, (tuple(lines), tuple(states)), WORDS)
        return tuple(lines)

    async def _log(self, game_id: int) -> tuple[GameRecord, list[MoveRecord]]:
        found = await self.live.repository.game_with_moves(game_id)
        if found is None:
            raise not_found()
        return found

    # --- pictures ----------------------------------------------------------------------------
    async def board(self, game_id: int, visitor: Visitor) -> tuple[int, bytes]:
        """The game's latest board as everyone may see it, and its ply."""
        _, record = await self.access.game(game_id, visitor)
        key = ("board", game_id, record.ply, record.status, record.updated_at)
        picture = self._pictures.get(key)
        if picture is None:
            loaded = await self.access.loaded(record)
            images = await self.presenter.images(loaded, with_choices=False, with_steps=False)
            picture = images.board
            _remember(self._pictures, key, picture, PICTURES)
        return record.ply, picture

    async def frame(self, game_id: int, number: int, visitor: Visitor) -> bytes:
        """The picture of one position of the game's replay."""
        _, record = await self.access.game(game_id, visitor)
        key = ("frame", game_id, number, record.ply, record.status, record.updated_at)
        picture = self._pictures.get(key)
        if picture is None:
            frames = await self._frames(await self.access.loaded(record))
            if not 0 <= number < len(frames):
                raise not_found()
            state, ctx, _ = frames[number]
            picture = (await self.presenter.painter.board(state, ctx, None)).board
            _remember(self._pictures, key, picture, PICTURES)
        return picture

    async def _frames(self, loaded: Loaded) -> list[Frame]:
        """Every position of the game as everyone sees it (kept for the few games being
        stepped through: each frame asked for would replay the game again)."""
        key = (loaded.id, loaded.record.ply, loaded.record.status, loaded.record.updated_at)
        kept = self._replays.get(key)
        if kept is None:
            kept = await self._replayed(loaded)
            _remember(self._replays, key, kept, REPLAYS)
        return kept

    async def _replayed(self, loaded: Loaded) -> list[Frame]:
        _, moves = await self._log(loaded.id)
        shown_log = shown_moves(loaded.game, loaded.record, moves)
        names = tuple(self.presenter.names(loaded))
        ending = self.presenter.picture_caption(loaded)
        entries = [(m.seat, m.text) for m in shown_log]
        return frames_of(start_state(loaded.game, loaded.record), entries, names, ending)

    # --- the replay and the record ---------------------------------------------------------------
    async def replay(self, game_id: int, visitor: Visitor) -> ReplayView:
        server, record = await self.access.game(game_id, visitor)
        loaded = await self.access.loaded(record)
        captions = [str(t("The start."))]
        for line in await self.moves(loaded):
            # A takeback steps back: the frames are the positions reached.
            if line.undo:
                if len(captions) > 1:
                    captions.pop()
            else:
                captions.append(line.text)
        frames = tuple(FrameView(n, text) for n, text in enumerate(captions))
        return ReplayView(server, await self.card(loaded), frames)

    async def record_text(self, game_id: int, visitor: Visitor) -> str:
        _, stored = await self.access.game(game_id, visitor)
        loaded = await self.access.loaded(stored)
        record, moves = await self._log(game_id)
        ending = None
        if not record.is_live and record.result is not None:
            ending = (
                result_tag(loaded.game, record.result),
                str(self.presenter.ending_sentence(loaded)),
            )
        return write_record(loaded.game, record, moves, ending)


def history_row(record: GameRecord) -> HistoryRow:
    game = game_of(record.game)
    names = list_names(game, record)
    result = record.result or GameResult(Ending.RULES)
    return HistoryRow(
        id=record.id,
        finished_at=record.finished_at or record.updated_at,
        game=record.game,
        game_name=game.name,
        players=tuple((s.user.id if not s.user.is_bot else 0, names[s.seat]) for s in record.seats),
        result=str(short_line(game, result, names)),
    )


def visitor_user(visitor: Visitor) -> User | None:
    if visitor.user_id is None:
        return None
    return User(visitor.user_id, visitor.name)
