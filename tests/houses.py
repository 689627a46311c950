"""Houses for tests, built by the composition root as `bot.py` builds them."""

from __future__ import annotations

import atexit
import os
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial

import bot
from data.storage import Storage
from host.daily.par import ParRunner
from host.face import FrontEnd, GameRecord, House, HouseSettings, User, build_house
from host.play.ai_turns import PooledComputers
from host.present.painting import ProcessPainter
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


class KeptPainter(ProcessPainter):
    """The board painter of the test process: worker processes, as a deployment's, kept
    for the life of the process as a bot process keeps its own, however many bots the
    tests build and close (spawning a worker costs a fresh interpreter)."""

    def close(self) -> None:
        """A house's close leaves the workers to the next house."""

    def stop(self) -> None:
        super().close()


class KeptComputers(PooledComputers):
    """The computer players of the test process, in worker processes as a deployment's,
    kept for the life of the process as `KeptPainter` is."""

    def close(self) -> None:
        """A house's close leaves the workers to the next house."""

    def stop(self) -> None:
        super().close()


_kept: tuple[KeptPainter, KeptComputers] | None = None


def kept_workers() -> tuple[KeptPainter, KeptComputers]:
    """The test process's painter and computers, started on first use."""
    global _kept
    if _kept is None:
        painter = KeptPainter()
        # As `bot.house_settings` sizes them: a core left to the bot.
        computers = KeptComputers(workers=max(1, (os.cpu_count() or 2) - 1))
        _kept = painter, computers
        atexit.register(painter.stop)
        atexit.register(computers.stop)
    return _kept


def bot_houses(
    storage: Storage,
    *,
    clock: Callable[[], float] | None = None,
    par_runner: ParRunner | None = None,
) -> Callable[[FrontEnd], House]:
    """What `bot.py` lends the Discord client: its house, built once the bot knows its own
    user, with the settings a deployment has (boards and computers in worker processes,
    the test process's own, kept from one bot to the next)."""
    painter, computers = kept_workers()
    deployed = bot.house_settings(for_discord=True)
    settings = replace(
        deployed,
        daily_secret="test",
        painter=(lambda: painter) if bot.render_in_processes() else deployed.painter,
        computers=lambda: computers,
    )
    if clock is not None:
        settings = replace(settings, clock=clock)
    if par_runner is not None:
        settings = replace(settings, par_runner=par_runner)
    return partial(build_house, storage, settings)
