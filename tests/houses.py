"""Houses for tests, built by the composition root as `bot.py` builds them."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial

import bot
from data.storage import Storage
from host.daily.par import ParRunner
from host.face import FrontEnd, GameRecord, House, HouseSettings, User, build_house
from host.present.presenter import no_link

#: The bot's own user in tests of the service.
BOT = User(9999, "hilltop", is_bot=True)


def house_of(
    storage: Storage,
    *,
    bot: User = BOT,
    clock: Callable[[], float] = time.time,
    secret: str = "test",
    par_runner: ParRunner | None = None,
    render_images: bool = False,
    front: FrontEnd | None = None,
    link: Callable[[GameRecord], str | None] = no_link,
) -> House:
    """A house over `storage`: no pictures drawn unless asked, computers and boards in
    threads of the test's process, replies that wait for the computers."""
    settings = HouseSettings(
        clock=clock, daily_secret=secret, render_images=render_images, par_runner=par_runner
    )
    return build_house(storage, settings, front or FrontEnd(bot, link=link))


def bot_houses(
    storage: Storage,
    *,
    clock: Callable[[], float] | None = None,
    par_runner: ParRunner | None = None,
) -> Callable[[FrontEnd], House]:
    """What `bot.py` lends the Discord client: its house, built once the bot knows its own
    user, with the settings a deployment has (boards and computers in worker processes)."""
    settings = replace(bot.house_settings(for_discord=True), daily_secret="test")
    if clock is not None:
        settings = replace(settings, clock=clock)
    if par_runner is not None:
        settings = replace(settings, par_runner=par_runner)
    return partial(build_house, storage, settings)
