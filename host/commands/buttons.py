"""The button protocol: what each `Action` does when its button is pressed.

Every press names its game and the ply its board was drawn at. One table maps an action
to its handler; each handler checks what it needs (the game is live, the board is
current for this user, the user is to act) before it acts, and refuses with a reason
otherwise, changing nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from data.repository import MAX_ID
from engine.text import t
from host import catalog, i18n
from host.announce.announcer import Announcer
from host.away.absences import Absences
from host.background import OnePerUser
from host.commands.game_lists import GameLists
from host.commands.offers import Offers
from host.history.finished import History
from host.links import WebLinks
from host.model import Channel, Choice, Reply, ServiceError, StaleControlsError, User
from host.payloads import Action, Payload
from host.play import seats
from host.play.ai_turns import ComputerPlayers
from host.play.following import Following
from host.play.live import LiveGames, Loaded
from host.play.moves import GAME_OVER, Moves
from host.play.playing import Claim, Move, Resign
from host.play.starting import Starting
from host.present.lists import move_list, rules_page
from host.present.presenter import Presenter
from host.present.words import move_number

Handler = Callable[["Buttons", Channel, User, Payload], Awaitable[list[Reply]]]
#: A button of another part of the house, pressed.
Pressed = Callable[[Channel, User, Payload], Awaitable[list[Reply]]]


class Buttons:
    def __init__(
        self,
        live: LiveGames,
        moves: Moves,
        announcer: Announcer,
        starting: Starting,
        presenter: Presenter,
        game_lists: GameLists,
        offers: Offers,
        history: History,
        following: Following,
        links: WebLinks | None = None,
        more: Mapping[Action, Pressed] | None = None,
        absences: Absences | None = None,
    ) -> None:
        self.live = live
        #: Who is away: no win is claimed against them.
        self.absences = absences
        #: What the buttons of other parts of the house do (an event's Join), by action.
        self.more = more if more is not None else {}
        self.moves = moves
        self.announcer = announcer
        self.commits = announcer.commits
        self.starting = starting
        self.presenter = presenter
        self.game_lists = game_lists
        self.offers = offers
        self.history = history
        self.following = following
        #: Links to the games' web pages (None: no pages served).
        self.links = links
        self.hints = OnePerUser(
            lambda: t("Your last hint is still being worked out: wait for it, then ask again.")
        )

    @property
    def players(self) -> ComputerPlayers:
        return self.announcer.computers.computers

    async def press(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        if payload.game_id > MAX_ID:  # a made-up button: no row has such an id
            raise ServiceError(t("That game does not exist."))
        handler = HANDLERS.get(payload.action)
        if handler is None:
            pressed = self.more.get(payload.action)
            if pressed is None:
                raise ServiceError(t("That button does nothing any more."))
            return await pressed(channel, user, payload)
        return await handler(self, channel, user, payload)

    # --- challenges -----------------------------------------------------------------------
    async def _answer(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        record = await self.live.record(payload.game_id)
        if record.channel_id != channel.channel_id or not record.is_live:
            raise ServiceError(t("That challenge is no longer open."))
        async with self.announcer.turn(record.id):
            if payload.action == Action.DECLINE:
                change = await self.starting.decline(channel, user)
            else:
                change = await self.starting.accept(channel, user)
            replies = await self.announcer.announce(change)
        if payload.action == Action.DECLINE:
            return replies
        # The pressed challenge is answered in place, so that no live-looking Accept is
        # left behind; a game that begins follows as a post of its own.
        if replies and replies[0].edit:
            return replies
        accepted = t("{name} accepted: the game begins.", name=user.name)
        return [self.presenter.challenge_closed(payload.game_id, accepted, edit=True), *replies]

    # --- resigning ------------------------------------------------------------------------
    async def _ask_resign(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        loaded = await self._current(payload, user)
        if not loaded.record.seats_of(user.id):
            raise ServiceError(seats.not_a_player(loaded))
        sure = Payload(Action.RESIGN_CONFIRMED, payload.game_id, payload.ply)
        return [
            Reply(
                title=str(t("Resign?")),
                text=str(t("Do you really want to resign this game? This cannot be undone.")),
                ephemeral=True,
                actions=(Choice(sure, str(t("Yes, resign")), "danger"),),
            )
        ]

    async def _resign(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        return (await self.announcer.change(payload.game_id, Resign(user)))[1]

    async def _claim(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        if self.absences is not None:
            loaded = await self.live.locked_load(payload.game_id, fresh=True)
            seats = loaded.record.seats
            late = [seats[s].user for s in loaded.state.to_act if not seats[s].user.is_bot]
            away = await self.absences.of((u.id for u in late), fresh=True)
            for person in late:
                if person.id in away:
                    raise ServiceError(
                        t(
                            "{name} is away until {day}: their time is stopped, so there is "
                            "no win to claim.",
                            name=person.name,
                            day=i18n.day(away[person.id].until),
                        )
                    )
        return (await self.announcer.change(payload.game_id, Claim(user, payload.ply)))[1]

    # --- rules ----------------------------------------------------------------------------
    async def _rules_page(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        try:
            game_id, page = payload.tokens
            listing = catalog.listing(game_id)
        except (ValueError, KeyError):
            raise ServiceError(t("That page is not one of mine.")) from None
        if not (page.isascii() and page.isdigit()):
            raise ServiceError(t("That page is not one of mine."))
        images = self.presenter.render_images
        return [
            await rules_page(self.presenter.painter, listing, int(page), images=images, edit=True)
        ]

    # --- offers ---------------------------------------------------------------------------
    async def _answer_offer(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        return await self.offers.answer(user, payload)

    async def _rematch(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        """A rematch from a finished game's post: the post keeps its picture and text and
        loses its button; the new challenge (or game) follows."""
        finished = await self.live.locked_load(payload.game_id)
        change = await self.starting.rematch(channel, user, finished)
        replies = await self.announcer.tell(change)
        done = Reply(edit=True, only_controls=True)
        return [done, *replies]

    # --- finished games -------------------------------------------------------------------
    async def _history_page(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        """Another page of `/history` (the game field holds whose games, 0: everyone's;
        the tokens the game asked for and where the page is cut)."""
        return await self.history.turn_page(
            channel, payload.game_id, payload.tokens, payload.ply, user
        )

    async def _replay_step(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        opening = payload.tokens == ("open",)
        return await self.history.step(channel, payload.game_id, payload.ply, opening, user)

    async def _download(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        return await self.history.download(channel, payload.game_id, user)

    # --- following ------------------------------------------------------------------------
    async def _follow(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        loaded = await self.live.locked_load(payload.game_id)
        on = payload.action == Action.FOLLOW
        record = loaded.record
        if on and (
            channel.guild_id is None
            or record.kind != "channel"
            or record.guild_id != channel.guild_id
        ):
            # Games are followed in their own server; another server's (or a direct
            # message's) is not told apart from one that does not exist.
            raise ServiceError(t("There is no game {id} here.", id=payload.game_id))
        return [await self.following.follow(loaded, user, on)]

    # --- the board in the Activity ---------------------------------------------------------
    async def _launch(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        """Open a game's page in the Discord Activity: a game of this server whose page the
        server keeps open, on a deployment that has an Activity (a button from before the
        Activity or the pages were turned off is refused, rather than opening nothing)."""
        if not self.presenter.activity:
            raise ServiceError(
                t("The board cannot be opened inside Discord here: use the buttons or /move.")
            )
        record = await self.live.record(payload.game_id)
        if (
            channel.guild_id is None
            or record.kind != "channel"
            or record.guild_id != channel.guild_id
        ):
            # Another server's game is not told apart from one that does not exist.
            raise ServiceError(t("There is no game {id} here.", id=payload.game_id))
        page = await self.links.game(record) if self.links is not None else ""
        if not page:
            raise ServiceError(
                t(
                    "This server's games are not on the web, so the board cannot be opened "
                    "here: an admin can open them with /admin settings web."
                )
            )
        title = t("Game {id}: the board", id=record.id)
        return [Reply(title=str(title), url=page, ephemeral=True, launch=True)]

    # --- lists ----------------------------------------------------------------------------
    async def _my_games(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        """Another page of `/games mine` (the game field holds whose list it is)."""
        if payload.game_id != user.id:
            raise ServiceError(t("That list is someone else's: use /games mine for yours."))
        return await self.game_lists.mine(user, payload.ply, edit=True)

    async def _games_here(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        """Another page of `/games here` (the game field holds whose list it is: the
        games waiting on them come first)."""
        if payload.game_id != user.id:
            raise ServiceError(t("That list is someone else's: use /games here for yours."))
        return await self.game_lists.here(channel, user, payload.ply, edit=True)

    # --- help while playing ---------------------------------------------------------------
    async def _hint(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        loaded = await self._current(payload, user)
        seat = self.moves.acting_seat(loaded, user)
        if not loaded.game.hints:
            raise ServiceError(t("{game} has no hints.", game=loaded.game.name))
        if loaded.record.kind == "daily":
            raise ServiceError(t("No hints in the daily challenge: it is your own run."))
        with self.hints.slot(user.id):
            move = await self.players.hint(loaded.state, seat)
        text = t("Hint: the bot would play {move}.", move=loaded.state.move_text(move))
        return [Reply(text=str(text), ephemeral=True)]

    async def _moves(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        loaded = await self._current(payload, user)
        seat = self.moves.acting_seat(loaded, user)
        return [move_list(loaded, seat)]

    # --- building a move ------------------------------------------------------------------
    async def _build(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        """PICK (from the public board), OPEN or STEP: the next choices of the move, in a
        private panel; a move with nothing left to choose is played at once, unless the game
        asks to confirm it after its preview."""
        loaded = await self._current(payload, user)
        seat = self.moves.acting_seat(loaded, user)
        options = loaded.state.move_options(seat, payload.tokens)
        in_panel = payload.action == Action.STEP
        if not options.options and options.complete is None:
            raise ServiceError(t("That choice is no longer available."))
        finished = (
            not options.options
            and not options.browse
            and options.confirm is None
            and options.complete is not None
            and payload.tokens
        )
        if finished and not loaded.game.confirm_moves:
            return await self._play_built(loaded, user, payload.tokens, in_panel)
        return [await self.presenter.builder(loaded, seat, payload.tokens, edit=in_panel)]

    async def _group(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        """One group of too many choices; GROUP_OPEN comes from the public board and opens
        a private panel, GROUP edits the panel."""
        loaded = await self._current(payload, user)
        seat = self.moves.acting_seat(loaded, user)
        edit = payload.action == Action.GROUP
        reply = await self.presenter.builder(loaded, seat, payload.tokens, edit, payload.group)
        return [reply]

    async def _play(self, channel: Channel, user: User, payload: Payload) -> list[Reply]:
        loaded = await self._current(payload, user)
        return await self._play_built(loaded, user, payload.tokens, True)

    async def _play_built(
        self, loaded: Loaded, user: User, tokens: tuple[str, ...], from_panel: bool
    ) -> list[Reply]:
        act = Move(user, " ".join(tokens), loaded.record.ply)
        change, replies = await self.announcer.change(loaded.id, act)
        if not from_panel:
            return replies
        step = change.steps[0]
        move = step.before.state.move_text(step.move)
        done = Reply(text=str(t("Done: {move}.", move=move)), ephemeral=True, edit=True)
        return [done, *replies]

    async def _current(self, payload: Payload, user: User) -> Loaded:
        """The pressed button's game, if what the button offered `user` still stands."""
        loaded = await self.live.locked_load(payload.game_id)
        loaded = (await self.announcer.computers.catch_up(loaded)).after
        if not loaded.record.is_live:
            raise StaleControlsError(GAME_OVER)
        if not self.moves.still_offered(loaded, payload.ply, user):
            raise StaleControlsError(
                t(
                    "This board is out of date: the game has moved on (to move {now}). Use the "
                    "latest board, or /board to post it again.",
                    now=move_number(loaded.record),
                )
            )
        return loaded


HANDLERS: dict[Action, Handler] = {
    Action.RULES: Buttons._rules_page,
    Action.ACCEPT: Buttons._answer,
    Action.DECLINE: Buttons._answer,
    Action.RESIGN: Buttons._ask_resign,
    Action.RESIGN_CONFIRMED: Buttons._resign,
    Action.CLAIM: Buttons._claim,
    Action.MY_GAMES: Buttons._my_games,
    Action.GAMES_HERE: Buttons._games_here,
    Action.HISTORY: Buttons._history_page,
    Action.DOWNLOAD: Buttons._download,
    Action.REPLAY: Buttons._replay_step,
    Action.REMATCH: Buttons._rematch,
    Action.FOLLOW: Buttons._follow,
    Action.UNFOLLOW: Buttons._follow,
    Action.DRAW_ACCEPT: Buttons._answer_offer,
    Action.DRAW_DECLINE: Buttons._answer_offer,
    Action.TAKEBACK_ACCEPT: Buttons._answer_offer,
    Action.TAKEBACK_DECLINE: Buttons._answer_offer,
    Action.HINT: Buttons._hint,
    Action.MOVES: Buttons._moves,
    Action.PICK: Buttons._build,
    Action.OPEN: Buttons._build,
    Action.STEP: Buttons._build,
    Action.GROUP: Buttons._group,
    Action.GROUP_OPEN: Buttons._group,
    Action.PLAY: Buttons._play,
    Action.LAUNCH: Buttons._launch,
}
