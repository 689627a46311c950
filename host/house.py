"""The composition root: the whole service graph, built in one place from what the
deployment chose and what the front-end serving it lends.

`bot.py` builds one house for whichever front-end runs (Discord or the console), and the
tests build theirs the same way. Nothing is set on a part of the house after it is built.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from data.repository import GameRecord, OneServer, TimeKeeping
from data.storage import Storage
from engine.rng import seed_from_text
from host.announce.announcer import FinishHook, Poster
from host.announce.clock import TickHook
from host.away.absences import Absences
from host.away.service import AwayTime
from host.commands.buttons import Pressed
from host.console_memory import ConsoleMemory
from host.daily.par import ParRunner
from host.daily.service import DailyService
from host.digests import DailyDigests
from host.events.labels import entered, game_labels
from host.events.running import Running, ThreadMaker
from host.events.service import Events
from host.model import Channel, User
from host.pages.service import WebPages
from host.payloads import Action
from host.play.ai_turns import ComputerPlayers
from host.present.painting import Painter
from host.present.presenter import no_link
from host.privacy.service import Privacy
from host.ratings.pages import RatingPages
from host.servers import Servers
from host.service import GameService


@dataclass(frozen=True, slots=True)
class HouseSettings:
    """What a deployment chooses, whichever front-end serves it."""

    clock: Callable[[], float] = time.time
    #: The secret the daily hills are drawn from (None: a default anyone can compute).
    daily_secret: str | None = None
    #: Whether boards are drawn (tests of the words alone go without).
    render_images: bool = True
    #: Where boards are drawn, made once the house is built (None: in a thread).
    painter: Callable[[], Painter] | None = None
    #: Where the computers think, made once the house is built (None: in threads).
    computers: Callable[[], ComputerPlayers] | None = None
    #: Where the daily par is searched (None: a worker process of its own).
    par_runner: ParRunner | None = None
    #: Where the web pages are served, for links to them (None: no links).
    web_url: str | None = None
    #: The Discord application has an Activity showing the game pages: boards whose page
    #: is open get a button that opens it inside Discord.
    activity: bool = False


@dataclass(frozen=True, slots=True)
class FrontEnd:
    """What the front-end a house serves lends it: the bot's own user, and what only the
    front-end can do or knows."""

    bot_user: User
    #: Posts replies outside any command (the computers' later moves, changes made by a
    #: web page or another process, told in their channels); None: a reply waits for the
    #: computers' answer instead, and the channels are told by the process that posts.
    post: Poster | None = None
    #: How long a reply waits for the computers before their answer is posted on its own.
    computer_wait: float | None = None
    #: A link to a game's latest board, where the front-end keeps one.
    link: Callable[[GameRecord], str | None] = no_link
    #: The games whose time this process keeps (None: all).
    shards: TimeKeeping | None = None
    #: Servers whose web pages anyone may see whatever their settings, by name (the
    #: console's own games, for whoever runs it).
    open_pages: dict[int, str] = field(default_factory=dict)
    #: Makes a thread off a channel for a tournament's game (by default a channel of its
    #: own, named so, as a front-end without threads keeps one).
    make_thread: ThreadMaker = field(default=lambda parent, name: _own_channel(parent, name))


@dataclass(frozen=True, slots=True)
class House:
    """A front-end's whole service: the games, the daily challenge, the ratings pages, and
    the console's memory (its buttons and channel names)."""

    service: GameService
    daily: DailyService
    ratings: RatingPages
    console_memory: ConsoleMemory
    #: The web's pages over the same games.
    pages: WebPages
    #: Tournaments.
    events: Events
    #: Away time.
    away: AwayTime
    #: Servers the bot is removed from, and deleting everything of one.
    servers: Servers
    #: `/mydata`: a person's copy of their data, and forgetting them.
    privacy: Privacy

    def close(self) -> None:
        """Stop the house's workers (computers, painter, par search)."""
        self.daily.close()
        self.service.close()


def build_house(storage: Storage, settings: HouseSettings, front: FrontEnd) -> House:
    """The service graph over `storage`, for `front`."""
    finish_hooks: list[FinishHook] = []
    tick_hooks: list[TickHook] = []
    buttons: dict[Action, Pressed] = {}
    absences = Absences(storage.away, settings.clock)
    service = GameService(
        storage.games,
        bot_user=front.bot_user,
        clock=settings.clock,
        render_images=settings.render_images,
        computers=settings.computers() if settings.computers is not None else None,
        painter=settings.painter() if settings.painter is not None else None,
        computer_wait=front.computer_wait,
        ratings=storage.ratings,
        post=front.post,
        link=front.link,
        shards=front.shards,
        finish_hooks=finish_hooks,
        web_url=settings.web_url,
        activity=settings.activity,
        buttons=buttons,
        tick_hooks=tick_hooks,
        labels=game_labels(storage.events),
        digests=storage.digests,
        absences=absences,
    )
    daily = DailyService(
        service, storage.daily, secret=settings.daily_secret, par_runner=settings.par_runner
    )
    # A daily run that ends is recorded, and its result told, after its final board.
    finish_hooks.append(daily.on_finish)
    running = Running(
        service, storage.events, make_thread=front.make_thread, post=front.post, shards=front.shards
    )
    events = Events(running)
    # A tournament's game that ends records its table's result, after the final board;
    # the clock starts what a round left waiting.
    finish_hooks.append(running.on_finish)
    tick_hooks.append(running.tick)
    away = AwayTime(storage.away, absences, service.commits, service.settings, settings.clock)
    # Away times that ran out: their players' clocks run again.
    tick_hooks.append(away.tick)
    if not isinstance(front.shards, OneServer):
        # A console (one server of its own) sends none: the bots on its database do.
        digests = DailyDigests(
            storage.digests, service.live, service.settings, service.presenter, service.links
        )
        tick_hooks.append(digests.tick)
    servers = Servers(
        storage.servers, service.commits, storage.events, service.settings, settings.clock
    )
    # Servers the bot left long enough ago lose their data; an admin's deletion goes on.
    tick_hooks.append(servers.tick)
    buttons[Action.FORGET_SERVER] = servers.pressed_forget
    buttons[Action.EVENT_JOIN] = events.pressed_join
    buttons[Action.EVENT_STANDINGS] = events.pressed_standings
    assert service.ratings is not None  # the house keeps ratings
    ratings = RatingPages(
        service.ratings, storage.daily, entered(storage.events), service.live.repository
    )
    pages = WebPages(
        service,
        daily,
        ratings,
        storage.changes,
        storage.web,
        storage.events,
        front.open_pages,
        gone=servers.is_gone,
    )

    def dropped(game_id: int | None) -> None:
        """A forgetting renamed the game's people (None: any game's, news of it may have
        been missed): what this process keeps of it (and the daily runs its pages keep)
        is read again, with a former player."""
        if game_id is None:
            service.live.forget_every()
        else:
            service.live.forget(game_id)
        pages.tables.drop_runs()

    privacy = Privacy(
        storage.privacy,
        storage.games,
        service.announcer.change,
        settings.clock,
        drop=dropped,
        settle=service.settle_ratings,
    )
    # Another process's forgetting drops the same here.
    storage.changes.when_forgotten(dropped)
    # Forgettings a stopped process left midway are finished.
    tick_hooks.append(privacy.tick)
    buttons[Action.FORGET_ME] = privacy.pressed_forget
    return House(
        service,
        daily,
        ratings,
        ConsoleMemory(storage.console),
        pages,
        events,
        away,
        servers=servers,
        privacy=privacy,
    )


async def _own_channel(parent: Channel, name: str) -> Channel:
    """A game's place where there are no threads: a channel of its own, its id from the
    channel it is made off and its name."""
    return Channel(seed_from_text(f"thread:{parent.channel_id}:{name}"), parent.guild_id, name)
