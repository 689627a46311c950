"""The game service: every game command of the bot, without Discord.

One game at a time per channel. The service is put together from parts, each in a
module named for what it does:

- `host.play.live`: games in memory, a lock per game, reading and replaying them;
- `host.play.starting`: challenges, seating and the start of a game;
- `host.play.playing`: the flow of one move, resigning and ending a game;
- `host.play.moves`: judging a move and its ply-guarded commit;
- `host.play.computer_turns`: the computer players' turns, in the background;
- `host.play.timeouts`: deadlines that pass and challenges nobody answers;
- `host.play.buttons`: what each button does;
- `host.present.presenter`: every reply a player sees about a game in play;
- `host.present.lists`: move lists and rules pages.

The database is the truth; memory holds only a cache keyed by ply, so several processes
can share one database and a restart loses nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from itertools import islice

from data.ratings import RatingRepository
from data.repository import GameRecord, GameRepository, TimeKeeping
from engine.text import Text, speaking, t
from host import catalog, i18n
from host.history.finished import History
from host.model import (
    OFFERED_AT,
    Channel,
    Direct,
    Reply,
    ServiceError,
    Suggestion,
    User,
    Where,
)
from host.pages.links import WebLinks
from host.payloads import Action, Payload
from host.play.ai_turns import ComputerPlayers, ThreadedComputers
from host.play.buttons import Buttons
from host.play.computer_turns import ComputerTurns, Post
from host.play.following import Following
from host.play.game_lists import GameLists
from host.play.live import LiveGames, Loaded, game_of, search_key
from host.play.moves import Moves
from host.play.offers import Offers
from host.play.playing import FinishHook, Playing
from host.play.starting import Starting
from host.play.telling import Poster, Telling
from host.play.timeouts import Timeouts
from host.preferences import Preferences
from host.present.boards import Boards
from host.present.help import help_replies
from host.present.lists import move_list, rules_page
from host.present.painting import Painter, ThreadPainter
from host.present.presenter import MAX_PICKS, Presenter, no_link
from host.present.words import Happened
from host.ratings.rating import Ratings
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
        post: Post | None = None,
        link: Callable[[GameRecord], str | None] = no_link,
        shards: TimeKeeping | None = None,
        finish_hooks: Sequence[FinishHook] = (),
        web_url: str | None = None,
        activity: bool = False,
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
        self.preferences = Preferences(self.settings, self.links)
        self.boards = Boards(self.presenter, self.following, self.ratings, self.links)
        self.moves = Moves(self.live, self.presenter, clock)
        self.computers = ComputerTurns(
            self.live,
            self.moves,
            self.presenter,
            self.boards,
            computers or ThreadedComputers(),
            bot_user,
            computer_wait,
            post,
        )
        self.starting = Starting(
            self.live, self.computers, self.presenter, self.boards, self.settings, bot_user, clock
        )
        self.playing = Playing(
            self.live,
            self.moves,
            self.computers,
            self.presenter,
            self.boards,
            bot_user,
            clock,
            finish_hooks,
        )
        self.timeouts = Timeouts(
            self.live,
            self.moves,
            self.computers,
            self.presenter,
            self.boards,
            self.settings,
            clock,
            shards,
        )
        self.telling = Telling(
            self.live, self.computers, self.presenter, self.boards, shards, finish_hooks
        )
        self.game_lists = GameLists(self.live, self.presenter)
        self.offers = Offers(self.live, self.playing, self.presenter, self.boards, clock)
        names = self.ratings.repository.names if self.ratings is not None else None
        self.history = History(self.live, self.presenter, names)
        self.buttons = Buttons(
            self.live,
            self.moves,
            self.playing,
            self.starting,
            self.computers,
            self.presenter,
            self.game_lists,
            self.offers,
            self.history,
            self.following,
            self.links,
        )

    def close(self) -> None:
        """Stop the computer players' and the painter's workers, and what waits on them."""
        self.computers.close()
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
        return await self.starting.challenge(channel, user, opponents, setup)

    async def check_start(
        self, channel: Channel, user: User, setup: GameSetup, opponents: Sequence[User] = ()
    ) -> str:
        """What `start` would refuse, refused with nothing stored; else the game's name."""
        return (await self.starting.check_challenge(channel, user, opponents, setup)).name

    async def admin_start(
        self, channel: Channel, user: User, setup: GameSetup, players: Sequence[User]
    ) -> list[Reply]:
        """`/admin start`: a match with no challenge step, seats in the order given."""
        return await self.starting.admin_start(channel, user, players, setup)

    async def accept(self, channel: Channel, user: User) -> list[Reply]:
        return await self.starting.accept(channel, user)

    async def decline(self, channel: Channel, user: User) -> list[Reply]:
        return await self.starting.decline(channel, user)

    # --- playing --------------------------------------------------------------------------
    async def move(self, channel: Channel, user: User, text: str) -> list[Reply]:
        """`/move text:<move>`."""
        loaded = await self.live.started_in(channel)
        return await self.playing.move(loaded.id, None, user, text)

    async def move_in(self, game_id: int, user: User, text: str) -> list[Reply]:
        """A move in a game found by id (games not bound to a channel, like daily runs)."""
        return await self.playing.move(game_id, None, user, text)

    async def press(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        """A button or select option of ours was used."""
        return await self.buttons.press(channel, user, payload)

    async def resign(self, channel: Channel, user: User, *, confirmed: bool = False) -> list[Reply]:
        """`/resign`: asks to confirm, as the board's button does, and nothing is given up
        until the player says yes; a front-end that has asked already says `confirmed`."""
        loaded = await self.live.started_in(channel)
        if confirmed:
            return await self.playing.resign(loaded.id, user)
        return await self.buttons.press(
            channel, user, Payload(Action.RESIGN, loaded.id, loaded.record.ply)
        )

    async def admin_end(self, channel: Channel, user: User) -> list[Reply]:
        if not user.is_admin:
            raise ServiceError(t("Only server admins (Manage Server permission) can do that."))
        loaded = await self.live.in_channel(channel)
        return await self.playing.end_by_admin(loaded.id, user)

    async def expire_due(self) -> list[tuple[Where, list[Reply]]]:
        """Defaults for decisions past their deadline, challenges nobody answered: the
        replies to post, with where."""
        return await self.timeouts.expire_due()

    async def tell_untold(self, post: Poster, game_id: int | None = None) -> int:
        """Moves made away from Discord (on the web pages) told in their games' channels,
        with `post`, by the process that owns the channels' servers: of one game (the
        change feed said it changed), or of every game left untold (the sweep). How many
        posts were made."""
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

    async def notify(
        self, user: User, *, reminders: bool | None = None, dm: bool | None = None
    ) -> list[Reply]:
        """`/notify`: the user's notifications, changed first by what is given."""
        return [await self.preferences.player(user, reminders=reminders, dm=dm)]

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
        loaded, caught_up = await self.computers.catch_up(loaded)
        if loaded.record.status == "challenge":
            return [self.presenter.challenge(loaded.record, loaded.game)]
        return [await self.boards.board(loaded, caught_up)]

    async def board_of(self, game_id: int, headline: Text | None = None) -> Reply:
        loaded = await self.live.locked_load(game_id)
        loaded, caught_up = await self.computers.catch_up(loaded)
        told = [Happened(headline)] if headline is not None else []
        return await self.boards.board(loaded, told + caught_up)

    async def loaded(self, game_id: int) -> Loaded:
        return await self.live.locked_load(game_id)

    async def legal_moves(
        self, channel: Channel, user: User, start: str | None = None
    ) -> list[Reply]:
        """`/moves [from]`: the caller's legal moves, one per line, privately."""
        loaded = await self.live.started_in(channel)
        seat = self.moves.acting_seat(loaded, user)
        return [move_list(loaded, seat, start)]

    async def suggest_moves(self, channel: Channel, user: User, typed: str) -> list[Suggestion]:
        """Autocomplete for `/move`: the caller's legal moves matching what they typed,
        those starting with it first; empty for anyone who is not to act. Served from
        memory: Discord wants the choices within 3 s and a player types fast."""
        try:
            loaded = await self.live.started_in(channel)
        except ServiceError:
            return []
        # Ranking Everest's plans the first time from a square takes a few tenths of a
        # second: off the event loop.
        return await asyncio.to_thread(_suggestions, loaded, user, typed)

    async def suggest_in(self, game_id: int, user: User, typed: str) -> list[Suggestion]:
        loaded = self.live.cached(game_id)
        if loaded is None:
            try:
                loaded = await self.live.locked_load(game_id)
            except ServiceError:
                return []
        return await asyncio.to_thread(_suggestions, loaded, user, typed)

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


#: The longest name of an autocomplete choice that Discord accepts.
MAX_CHOICE_NAME = 100


def _suggestions(loaded: Loaded, user: User, typed: str) -> list[Suggestion]:
    """The moves that match `typed`, those starting with it first, each in the order the
    game offers them (`move_order`: Everest's likeliest plans first), with what each does."""
    if loaded.record.status != "active":
        return []
    seats = [s for s in loaded.record.seats_of(user.id) if s in loaded.state.to_act]
    if not seats:
        return []
    seat = seats[0]
    key = search_key(typed)
    keyed = loaded.keyed_moves(seat)
    order = loaded.state.move_order(seat)
    indices: Sequence[int] = range(len(keyed)) if order is None else order
    picked = list(islice((i for i in indices if keyed[i][0].startswith(key)), MAX_PICKS))
    if len(picked) < MAX_PICKS:
        inside = (i for i in indices if key in keyed[i][0] and not keyed[i][0].startswith(key))
        picked += islice(inside, MAX_PICKS - len(picked))
    at = f"{OFFERED_AT}{loaded.record.ply}"
    moves = loaded.state.legal_moves(seat)
    suggestions = []
    for index in picked:
        text = keyed[index][1]
        description = loaded.state.move_description(seat, moves[index])
        suggestions.append(Suggestion(_choice_name(text, description), text + at))
    return suggestions


def _choice_name(text: str, description: Text | None) -> str:
    """`move: what it does`, the description cut short (never the move) to fit a choice."""
    if description is None:
        return text
    name = f"{text}: {description}"
    if len(name) <= MAX_CHOICE_NAME:
        return name
    return name[: MAX_CHOICE_NAME - 1].rstrip() + "…"
