"""The game service: every game command of the bot, without Discord.

One game at a time per channel. The service is put together from parts, each in a
module named for what it does:

- `host.play`: committing changes: games in memory with a lock per game, starting,
  moves, offers and deadlines, each through `host.play.commit` (one ply-guarded write,
  and a typed `Change`);
- `host.announce`: telling each change: the computers' answers, pings, the board, the
  finish hooks, and the channel told once, in order;
- `host.commands`: what each button does, lists of games, offers between players;
- `host.present`: every reply a player sees about a game, move lists and rules pages.

Every change a command makes takes one walk: within the game's turn of telling, commit
(`Commits.apply`), then announce (`Announcer.announce`).

The database is the truth; memory holds only a cache keyed by ply, so several processes
can share one database and a restart loses nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import replace
from typing import Any, Unpack

from data.digests import Digests
from data.ratings import RatingRepository
from data.repository import GameRecord, GameRepository, TimeKeeping
from engine.text import Text, speaking, t
from host import catalog, i18n
from host.announce.announcer import Announcer, FinishHook, Poster
from host.announce.boards import Boards
from host.announce.clock import Clock, TickHook
from host.announce.computers import Answered
from host.announce.telling import Telling
from host.away.absences import Absences
from host.commands.buttons import Buttons, Pressed
from host.commands.game_lists import GameLists
from host.commands.offers import Offers
from host.commands.suggestions import suggestions
from host.history.finished import History, Labels
from host.history.records import setup_from_record
from host.links import WebLinks
from host.model import (
    Channel,
    Direct,
    Reply,
    ServiceError,
    Suggestion,
    User,
    Where,
)
from host.payloads import Action, Payload
from host.play.ai_turns import ComputerPlayers, ThreadedComputers
from host.play.changes import Change
from host.play.commit import Act, Commits
from host.play.following import Following
from host.play.live import LiveGames, Loaded, game_of
from host.play.moves import Moves
from host.play.playing import EndByAdmin, Move, Resign
from host.play.starting import Starting
from host.preferences import PlayerChange, Preferences
from host.present.help import help_replies
from host.present.lists import move_list, rules_page
from host.present.painting import Painter, ThreadPainter
from host.present.presenter import Presenter, no_link
from host.present.words import Happened
from host.rating import Ratings
from host.settings import ServerChange, SettingsStore
from host.setup import GameSetup

BOT_NAME = "hilltop"


class GameService:
    def __init__(
        self,
        games: GameRepository,
        *,
        bot_user: User,
        clock: Callable[[], float] = time.time,
        render_images: bool = True,
        computers: ComputerPlayers | None = None,
        painter: Painter | None = None,
        computer_wait: float | None = None,
        ratings: RatingRepository | None = None,
        post: Poster | None = None,
        link: Callable[[GameRecord], str | None] = no_link,
        shards: TimeKeeping | None = None,
        finish_hooks: Sequence[FinishHook] = (),
        web_url: str | None = None,
        activity: bool = False,
        buttons: Mapping[Action, Pressed] | None = None,
        tick_hooks: Sequence[TickHook] = (),
        labels: Labels | None = None,
        digests: Digests[Any] | None = None,
        absences: Absences | None = None,
    ) -> None:
        """The service over `games` (and `ratings`, if kept). A front-end lends it what only
        it has: `post`, to post replies outside any command (the computers' later moves;
        without it, replies wait for the computers); `link`, a game's latest board;
        `shards`, the servers whose time this process keeps; and `finish_hooks`, called
        after a move finishes a game, whose replies follow the final board. `web_url` is
        where the web pages are served, for links to them (None: no links); `activity`, whether
        the Discord application has an Activity that shows them."""
        i18n.install()
        self.repository = games
        self.bot_user = bot_user
        self.clock = clock
        self.painter = painter or ThreadPainter()
        self.live = LiveGames(games)
        self.settings = SettingsStore(games, clock)
        self.following = Following(games, self.settings, clock)
        #: Ratings of games between people (None: this service keeps none).
        self.ratings = Ratings(ratings, clock) if ratings is not None else None
        self.presenter = Presenter(
            self.painter, render_images=render_images, link=link, activity=activity
        )
        self.links = WebLinks(self.settings, web_url)
        self.preferences = Preferences(self.settings, self.links, digests)
        #: Who is away (None: away time is not kept).
        self.absences = absences
        self.boards = Boards(
            self.presenter, self.following, self.ratings, self.links, absences=absences
        )
        self.moves = Moves(self.live, clock)
        #: The one way a game changes.
        self.commits = Commits(self.live, self.moves, bot_user, clock)
        self._tasks: set[asyncio.Task[None]] = set()
        #: Called once when a game ends, after its rating (the house adds its own).
        self.finish_hooks = finish_hooks
        #: The one way a change is told.
        self.announcer = Announcer(
            self.commits,
            self.presenter,
            self.boards,
            computers or ThreadedComputers(),
            wait=computer_wait,
            post=post,
            shards=shards,
            finish_hooks=[self._finish],
        )
        self.computers = self.announcer.computers
        self.starting = Starting(
            self.commits, self.settings, self.presenter.check_showable, setup_from_record, clock
        )
        self.timeouts = Clock(
            self.announcer, self.settings, clock, shards, tick_hooks, absences=absences
        )
        self.telling = Telling(self.announcer, shards)
        self.game_lists = GameLists(self.live, self.presenter, absences)
        self.offers = Offers(self.live, self.commits, self.announcer, self.presenter)
        names = self.ratings.repository.names if self.ratings is not None else None
        self.history = History(self.live, self.presenter, names, labels)
        self.buttons = Buttons(
            self.live,
            self.moves,
            self.announcer,
            self.starting,
            self.presenter,
            self.game_lists,
            self.offers,
            self.history,
            self.following,
            self.links,
            buttons,
            absences,
        )

    async def _finish(self, loaded: Loaded) -> list[Reply]:
        """A game ended: it is rated, if between people (its board then says how), then
        the other finish hooks run."""
        if self.ratings is not None:
            await self.ratings.settle()
        replies: list[Reply] = []
        for hook in self.finish_hooks:
            replies += await hook(loaded)
        return replies

    async def _change(self, game_id: int, act: Act) -> list[Reply]:
        """Commit `act` and tell it: the one walk of a change made by a command."""
        return (await self.announcer.change(game_id, act))[1]

    def close(self) -> None:
        """Stop the computer players' and the painter's workers, and what waits on them."""
        self.announcer.close()
        self.painter.close()

    async def settle_ratings(self) -> None:
        """Rate the finished games not rated yet (those a computer finished in the
        background, or that a restart interrupted)."""
        if self.ratings is not None:
            await self.ratings.settle()

    # --- starting -------------------------------------------------------------------------
    async def start(
        self, channel: Channel, user: User, setup: GameSetup, opponents: Sequence[User] = ()
    ) -> list[Reply]:
        """`/play`: challenge people (or the bot) to a game in this channel."""
        return await self.announcer.tell(
            await self.starting.challenge(channel, user, opponents, setup)
        )

    async def check_start(
        self, channel: Channel, user: User, setup: GameSetup, opponents: Sequence[User] = ()
    ) -> str:
        """What `start` would refuse, refused with nothing stored; else the game's name."""
        return (await self.starting.check_challenge(channel, user, opponents, setup)).name

    async def admin_start(
        self, channel: Channel, user: User, setup: GameSetup, players: Sequence[User]
    ) -> list[Reply]:
        """`/admin start`: a match with no challenge step, seats in the order given."""
        return await self.announcer.tell(
            await self.starting.admin_start(channel, user, players, setup)
        )

    async def accept(self, channel: Channel, user: User) -> list[Reply]:
        return await self.announcer.tell(await self.starting.accept(channel, user))

    async def decline(self, channel: Channel, user: User) -> list[Reply]:
        return await self.announcer.tell(await self.starting.decline(channel, user))

    # --- playing --------------------------------------------------------------------------
    async def move(self, channel: Channel, user: User, text: str) -> list[Reply]:
        """`/move text:<move>`: in the channel's game, else in the user's daily run."""
        loaded = await self.live.started_for(channel, user)
        return await self.move_in(loaded.id, user, text)

    async def move_in(self, game_id: int, user: User, text: str) -> list[Reply]:
        """A move in a game found by id (games not bound to a channel, like daily runs).
        Computer turns left pending (by a restart) are played first where replies wait
        for them, and told."""
        caught = await self.computers.catch_up(await self.live.locked_load(game_id))
        earlier = await self._told_computers(caught) if caught.changes else []
        return [*earlier, *await self._change(game_id, Move(user, text))]

    async def _told_computers(self, caught: Answered) -> list[Reply]:
        """Computer moves caught up before a command, told before its reply."""
        change = replace(caught.changes[0], after=caught.after)
        steps = tuple(s for c in caught.changes for s in c.steps)
        return await self.announcer.tell(replace(change, steps=steps))

    async def move_away(
        self, game_id: int, offered_at: int, user: User, text: str, stale: Text
    ) -> Change:
        """A move made away from Discord (on a web page drawn at ply `offered_at`; refused
        with `stale` when the game has moved on without leaving the move to this user),
        committed as any move is and told in the game's channel by the process that tells
        it (this one, in the background, or another, woken by the change feed)."""
        act = Move(user, text, offered_at=offered_at, stale=stale)
        change = await self.commits.apply(game_id, act)
        self._background(self.announcer.tell_elsewhere(change))
        return change

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def delivered(self, replies: Sequence[Reply]) -> None:
        """The front-end posted `replies` where they belong: what they tell of their games
        is told (a crash before this tells it again after the restart)."""
        self.announcer.delivered(replies)

    async def press(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        """A button or select option of ours was used."""
        return await self.buttons.press(channel, user, payload)

    async def resign(self, channel: Channel, user: User, *, confirmed: bool = False) -> list[Reply]:
        """`/resign`: asks to confirm, as the board's button does, and nothing is given up
        until the player says yes; a front-end that has asked already says `confirmed`."""
        loaded = await self.live.started_in(channel)
        if confirmed:
            return await self._change(loaded.id, Resign(user))
        return await self.buttons.press(
            channel, user, Payload(Action.RESIGN, loaded.id, loaded.record.ply)
        )

    async def admin_end(self, channel: Channel, user: User) -> list[Reply]:
        if not user.is_admin:
            raise ServiceError(t("Only server admins (Manage Server permission) can do that."))
        loaded = await self.live.in_channel(channel)
        return await self._change(loaded.id, EndByAdmin(user))

    async def expire_due(self) -> list[tuple[Where, list[Reply]]]:
        """Defaults for decisions past their deadline, challenges nobody answered: the
        replies to post, with where."""
        return await self.timeouts.expire_due()

    async def tell_untold(self, post: Poster, game_id: int | None = None) -> int:
        """Changes not told in their games' channels (made by another process, or before
        a restart) told there by the process that tells the channels' servers: of one game
        (the change feed said it changed), or of every game left untold (the sweep), with
        `post`. How many posts were made."""
        if game_id is not None:
            return int(await self.telling.tell(game_id, post))
        return await self.telling.sweep(post)

    # --- finished games -------------------------------------------------------------------
    async def finished(
        self,
        channel: Channel,
        whose: User | None = None,
        game: str | None = None,
        *,
        viewer: User | None = None,
    ) -> list[Reply]:
        """`/history`: finished games here, newest first (one player's, one game's), as
        `viewer` (who asked) may see them: in a direct message, only their own."""
        return await self.history.page(channel, whose, game, viewer=viewer)

    async def replay(
        self,
        channel: Channel,
        game_id: int,
        speed: str = "normal",
        *,
        viewer: User | None = None,
    ) -> list[Reply]:
        """`/replay id: speed:`: the game as an animated picture, and a private
        step-through."""
        return await self.history.replay(channel, game_id, speed, viewer)

    async def game_record(
        self, channel: Channel, game_id: int, *, viewer: User | None = None
    ) -> list[Reply]:
        """`/game id:`: one game's record, with a button to download it."""
        return await self.history.record(channel, game_id, viewer)

    # --- offers between players -----------------------------------------------------------
    async def draw(self, channel: Channel, user: User) -> list[Reply]:
        """`/draw`: offer the other player a draw."""
        return await self.offers.offer_draw(await self.live.started_in(channel), user)

    async def takeback(self, channel: Channel, user: User) -> list[Reply]:
        """`/takeback`: ask the other player to let you take back your last move."""
        return await self.offers.ask_takeback(await self.live.started_in(channel), user)

    # --- settings -------------------------------------------------------------------------
    async def server_settings(
        self, channel: Channel, user: User, change: ServerChange | None = None
    ) -> list[Reply]:
        """`/admin settings`: this server's settings, changed first by what is given."""
        return [await self.preferences.server(channel, user, change or ServerChange())]

    async def notify(self, user: User, **change: Unpack[PlayerChange]) -> list[Reply]:
        """`/notify`: the user's notifications, changed first by what is given."""
        return [await self.preferences.player(user, **change)]

    async def new_games_in_threads(self, channel: Channel) -> bool:
        """Whether this server starts every new game in a thread of its own."""
        return (await self.settings.server(channel.guild_id)).threads

    async def direct_messages_closed(self, user: User) -> None:
        await self.preferences.direct_messages_closed(user)

    async def turn_messages(
        self, game_id: int, people: Sequence[User]
    ) -> list[tuple[Where, list[Reply]]]:
        """Direct messages to those of `people` (just pinged about the game) who want them
        (`/notify dm:on`): that it is their turn, that they are challenged, or that the
        game is over, with where and a link. Only to someone who has something to do there
        now, or who played in the game that ended."""
        wanting = []
        for person in people:
            settings = await self.settings.player(person.id)
            if not person.is_bot and settings.direct:
                wanting.append((person, settings.language))
        if not wanting:
            return []
        loaded = await self.live.locked_load(game_id)
        record = loaded.record
        messages: list[tuple[Where, list[Reply]]] = []
        for person, language in wanting:
            seats = set(record.seats_of(person.id))
            # A direct message is in the language of its reader's Discord.
            with speaking(language):
                if record.status == "challenge":
                    if any(not record.seats[s].accepted for s in seats):
                        messages.append((Direct(person), [self.presenter.challenged(loaded)]))
                elif record.status == "active" and seats & loaded.state.to_act:
                    turn = self.presenter.turn_message(loaded, person)
                    messages.append((Direct(person), [turn]))
                elif record.status in ("finished", "aborted") and seats:
                    over = self.presenter.game_over_message(loaded)
                    messages.append((Direct(person), [over]))
        return messages

    async def follow_messages(
        self, game_id: int, followers: Sequence[User]
    ) -> list[tuple[Where, list[Reply]]]:
        """Direct messages to followers who take their news so: what happened in the
        game they follow, and a link to it."""
        loaded = await self.live.locked_load(game_id)
        messages: list[tuple[Where, list[Reply]]] = []
        for follower in followers:
            with speaking((await self.settings.player(follower.id)).language):
                messages.append((Direct(follower), [self.presenter.follow_message(loaded)]))
        return messages

    async def notices(self, user: User) -> list[Reply]:
        """What `user` must be told once, privately, with their next command's reply."""
        return await self.preferences.notices(user)

    # --- looking at games -----------------------------------------------------------------
    async def board(self, channel: Channel) -> list[Reply]:
        game_id = (await self.live.in_channel(channel)).id
        # Asked for the latest board: make sure no other process has moved since.
        loaded = await self.live.locked_load(game_id, fresh=True)
        caught = await self.computers.catch_up(loaded)
        told = await self._told_computers(caught) if caught.changes else []
        if told:
            return told
        loaded = caught.after
        if loaded.record.status == "challenge":
            return [self.presenter.challenge(loaded.record, loaded.game)]
        return [await self.boards.board(loaded)]

    async def board_of(self, game_id: int, headline: Text | None = None) -> Reply:
        loaded = (await self.computers.catch_up(await self.live.locked_load(game_id))).after
        told = [Happened(headline)] if headline is not None else []
        return await self.boards.board(loaded, told)

    async def loaded(self, game_id: int) -> Loaded:
        return await self.live.locked_load(game_id)

    async def legal_moves(
        self, channel: Channel, user: User, start: str | None = None
    ) -> list[Reply]:
        """`/moves [from]`: the caller's legal moves (of their daily run here), privately."""
        loaded = await self.live.started_for(channel, user)
        seat = self.moves.acting_seat(loaded, user)
        return [move_list(loaded, seat, start)]

    async def suggest_moves(self, channel: Channel, user: User, typed: str) -> list[Suggestion]:
        """Autocomplete for `/move`: the caller's legal moves matching what they typed,
        those starting with it first; empty for anyone who is not to act. Served from
        memory: Discord wants the choices within 3 s and a player types fast."""
        try:
            loaded = await self.live.started_for(channel, user)
        except ServiceError:
            return []
        # Ranking Everest's plans the first time from a square takes a few tenths of a
        # second: off the event loop.
        return await asyncio.to_thread(suggestions, loaded, user, typed)

    async def suggest_in(self, game_id: int, user: User, typed: str) -> list[Suggestion]:
        loaded = self.live.cached(game_id)
        if loaded is None:
            try:
                loaded = await self.live.locked_load(game_id)
            except ServiceError:
                return []
        return await asyncio.to_thread(suggestions, loaded, user, typed)

    async def list_games(self, channel: Channel, user: User) -> list[Reply]:
        """`/games here`: the games of this server (or of this direct message)."""
        return await self.game_lists.here(channel, user)

    async def my_games(self, user: User) -> list[Reply]:
        """`/games mine`: every game the user plays, in every server."""
        return await self.game_lists.mine(user)

    def help(self) -> list[Reply]:
        """`/help`: the games, and how to start, play and find them."""
        return help_replies(self.bot_user.name)

    async def rules(self, game_id: str) -> list[Reply]:
        """`/rules`: the first page of a game's rules, with buttons to the others."""
        listing = catalog.listing(game_of(game_id).id)
        return [await rules_page(self.painter, listing, images=self.presenter.render_images)]

    def game_choices(self) -> list[tuple[str, str]]:
        """(id, name) of every game, for menus and autocomplete."""
        return [(listing.id, listing.game.name) for listing in catalog.all_listings()]

    def variant_choices(self, game_id: str) -> list[tuple[str, str]]:
        games = [listing.game for listing in catalog.all_listings()]
        chosen = [g for g in games if g.id == game_id]
        if chosen:
            return [(v.name, str(v.description)) for v in chosen[0].variants]
        return [(v.name, f"{g.name}: {v.name}") for g in games for v in g.variants]

    # --- for front-ends -------------------------------------------------------------------
    async def note_board_messages(self, boards: dict[int, int]) -> None:
        """Store each game's latest board message (game id: message id), so that links to
        it survive a restart and other processes know it."""
        await self.repository.set_board_messages(boards)

    async def note_languages(
        self, guild_id: int | None, guild_language: str, user_id: int, language: str
    ) -> None:
        """Remember a server's and a player's language, as the front-end tells them with
        each command (stored only when they changed)."""
        await self.settings.note_languages(guild_id, guild_language, user_id, language)
