"""The console front-end: the bot's commands without Discord.

One line per command, piped or typed: `[#channel] <user> /<command> [options]`. Options
are `name:value`, a value running to the next ` name:` or the end of the line; the first
option may be given bare (`/moves c2`). Every console user counts as a server admin; the
bot itself is the user `hilltop`. Images go to the output folder. State lives in the
database, so every line may come from a new process; the buttons of the last replies are
kept there too (`data.console`), so that `/press` works across runs and processes.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
import os
import re
import stat
import sys
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Collection
from contextlib import suppress
from pathlib import Path
from typing import TextIO

from console.lines import (
    CONSOLE_GUILD,
    WHOLE_NUMBER,
    Command,
    ConsoleInputError,
    bot_user,
    bounded_int,
    console_channel,
    console_thread,
    console_user,
    english_line,
    event_setup,
    game_number,
    help_text,
    number,
    parse_line,
    people,
    required,
    server_change,
    setup_of,
    switch,
)
from host.face import (
    BOT_NAME,
    ENGLISH,
    Channel,
    ConsoleMemoryError,
    DatabaseUnavailableError,
    Direct,
    FrontEnd,
    House,
    OneServer,
    Payload,
    Reply,
    ServiceError,
    User,
    Where,
    command_names,
    privacy,
    speaking,
    t,
    unreachable_database,
)

log = logging.getLogger(__name__)

_RELATIVE_TIME = re.compile(r"<t:(\d+):R>")
#: Discord's dates and times of day, written out in the console's own time zone.
_ABSOLUTE_TIME = re.compile(r"<t:(\d+):[tTdDfF]>")
_CHANNEL = re.compile(r"<#(\d+)>")


def console_front() -> FrontEnd:
    """What the console lends the service: its bot user, and the games it keeps time
    for, those of the console's own server only (a console run on a bot's database
    leaves a Discord game's deadline to the bot that posts there). It posts nothing
    outside a command: a reply waits for the computers' answer. Its games' web pages
    are open to whoever runs it."""
    return FrontEnd(
        bot_user(),
        shards=OneServer(CONSOLE_GUILD),
        open_pages={CONSOLE_GUILD: "Console"},
        make_thread=console_thread,
    )


class Console:
    def __init__(
        self,
        house: House,
        out_dir: Path,
        stream: TextIO = sys.stdout,
        language: str = ENGLISH,
    ) -> None:
        """The console over `house` (built for `console_front()`)."""
        self.house = house
        self.service = house.service
        #: What the console speaks (`--locale`): English, or any language with a catalogue;
        #: its commands may be typed with that language's names too.
        self.language = language
        self.names = command_names(language)
        self.daily = house.daily
        self.ratings = house.ratings
        self.memory = house.console_memory
        self.out_dir = out_dir
        self.stream = stream
        self._named: set[int] = set()
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        """Read no further line; the command under way, if any, finishes first."""
        self._stopping.set()

    def say(self, text: str = "") -> None:
        print(text, file=self.stream)

    async def run_line(self, line: str) -> None:
        with speaking(self.language):
            await self._run_line(line)

    async def _run_line(self, line: str) -> None:
        line = line.strip()
        if not line or line.startswith("#!") or line.startswith("//"):
            return
        try:
            await self.expire_deadlines()
            command = parse_line(english_line(line, self.names), self.names)
            replies = await self.dispatch(command)
        except ConsoleInputError as exc:
            self.say(f"! {exc.text}")
            return
        except ServiceError as exc:
            self.say(f"! {exc.text}")
            return
        except DatabaseUnavailableError as exc:
            log.warning("console command failed: %s", exc)
            self.say(f"! {unreachable_database()}")
            return
        except Exception:
            # As on Discord: the error is logged and the next line is read.
            log.exception("console command failed: %s", line)
            self.say("! " + str(t("Something went wrong on my side and the error was logged.")))
            return
        for reply in replies:
            await self.show(command, reply)

    async def expire_deadlines(self) -> None:
        """Decisions past their deadline get their default, as the bot's timer does."""
        await self.service.settle_ratings()
        for where, replies in await self.service.expire_due():
            if isinstance(where, Direct):
                name = f"@{where.user.name}"  # a direct message
            else:
                names = await self._channel_names([where.channel_id])
                name = names.get(where.channel_id, str(where.channel_id))
            command = Command(name, BOT_NAME, "timer", {})
            for reply in replies:
                await self.show(command, reply)

    def watch_web(self) -> Callable[[], None]:
        """Tell moves made on the web pages in the transcript, as they are made (the web
        pages are served by this same process); returns what stops it."""
        tasks: set[asyncio.Task[int]] = set()

        def changed(game_id: int | None) -> None:
            task = asyncio.get_running_loop().create_task(
                self.service.tell_untold(self._told_from_web, game_id)
            )
            tasks.add(task)
            task.add_done_callback(tasks.discard)

        unsubscribe = self.house.pages.subscribe(changed)

        def stop() -> None:
            unsubscribe()
            for task in tasks:
                task.cancel()

        return stop

    async def _told_from_web(self, where: Where, replies: list[Reply]) -> None:
        with speaking(self.language):
            names = (
                await self._channel_names([where.channel_id]) if isinstance(where, Channel) else {}
            )
            name = names.get(where.channel_id, "web") if isinstance(where, Channel) else "web"
            command = Command(name, BOT_NAME, "web", {})
            for reply in replies:
                await self.show(command, reply)

    async def dispatch(self, cmd: Command) -> list[Reply]:
        user = console_user(cmd.user)
        channel = console_channel(cmd.channel)
        if channel.channel_id not in self._named:
            try:
                await self.memory.name_channel(channel.channel_id, cmd.channel)
                self._named.add(channel.channel_id)
            except ConsoleMemoryError as exc:
                log.warning("the name of #%s could not be remembered: %s", cmd.channel, exc)
        # As Discord tells a server's and a player's language with each command.
        await self.service.note_languages(channel.guild_id, self.language, user.id, self.language)
        o = cmd.options
        svc = self.service
        events = self.house.events
        handlers: dict[str, Callable[[], Awaitable[list[Reply]]]] = {
            "play": lambda: svc.start(
                channel,
                user,
                setup_of(o, "play"),
                people(o, "opponent", "opponent2", "opponent3"),
            ),
            "accept": lambda: svc.accept(channel, user),
            "decline": lambda: svc.decline(channel, user),
            "moves": lambda: svc.legal_moves(channel, user, o.get("from")),
            "move": lambda: svc.move(channel, user, required(o, "text", "move")),
            "board": lambda: svc.board(channel),
            "resign": lambda: svc.resign(channel, user),
            "draw": lambda: svc.draw(channel, user),
            "takeback": lambda: svc.takeback(channel, user),
            "rules": lambda: svc.rules(required(o, "game", "rules")),
            "games here": lambda: svc.list_games(channel, user),
            "history": lambda: svc.finished(
                channel,
                console_user(o["user"]) if o.get("user") else user,
                o.get("game") or None,
                viewer=user,
            ),
            "game": lambda: svc.game_record(channel, game_number(o), viewer=user),
            "replay": lambda: svc.replay(
                channel, game_number(o), o.get("speed") or "normal", viewer=user
            ),
            "games mine": lambda: svc.my_games(user),
            "notify": lambda: svc.notify(
                user,
                reminders=switch(o, "reminders"),
                dm=switch(o, "dm"),
                digest=switch(o, "digest"),
                hour=number(o, "hour"),
                timezone=o.get("timezone") or None,
            ),
            "admin start": lambda: svc.admin_start(
                channel,
                user,
                setup_of(o, "admin start"),
                people(o, "player1", "player2", "player3", "player4"),
            ),
            "admin end": lambda: svc.admin_end(channel, user),
            "admin settings": lambda: svc.server_settings(channel, user, server_change(o)),
            "admin forget-server": lambda: self.house.servers.forget_server(channel, user),
            "daily": lambda: self.daily.play(channel, user, o.get("move") or None),
            "leaderboard": lambda: self.daily.leaderboard(
                channel, user, o.get("period") or "today", o.get("scope") or "server"
            ),
            "daily-replay": lambda: self.daily.replay_day(
                channel,
                user,
                o.get("day") or None,
                o.get("run") or "winner",
                o.get("scope") or "server",
            ),
            "stats": lambda: self.daily.stats(
                channel, user, console_user(o["user"]) if o.get("user") else None
            ),
            "ratings": lambda: self.ratings.table(
                channel, user, required(o, "game", "ratings"), o.get("scope") or "server"
            ),
            "profile": lambda: self.ratings.profile(
                channel,
                user,
                console_user(o["user"]) if o.get("user") else None,
                console_user(o["opponent"]) if o.get("opponent") else None,
            ),
            "tournament create": lambda: events.create(channel, user, event_setup(o)),
            "tournament join": lambda: events.join(channel, user, number(o, "id")),
            "tournament leave": lambda: events.leave(channel, user, number(o, "id")),
            "tournament start": lambda: events.start(channel, user, number(o, "id")),
            "tournament standings": lambda: events.standings(channel, user, number(o, "id")),
            "tournament pairings": lambda: events.pairings(
                channel, user, number(o, "round"), number(o, "id")
            ),
            "tournament list": lambda: events.listing(channel, user),
            "tournament remove": lambda: events.remove(
                channel,
                user,
                console_user(required(o, "player", "tournament remove")),
                number(o, "id"),
            ),
            "tournament end": lambda: events.end(channel, user, number(o, "id")),
            "tournament export": lambda: events.export(
                channel, user, o.get("file") or "csv", number(o, "id")
            ),
            "away": lambda: self.house.away.away(
                channel, user, number(o, "days"), o.get("until") or None
            ),
            "back": lambda: self.house.away.back(channel, user),
            "mydata export": lambda: self.house.privacy.mydata_export(channel, user),
            "mydata forget": lambda: self.house.privacy.mydata_forget(channel, user),
            "privacy": lambda: privacy(channel, user),
            "press": lambda: self.press(cmd, channel, user),
            "help": lambda: _ready(
                [*svc.help(), Reply(title=str(t("Commands")), text=help_text(self.names))]
            ),
        }
        return await handlers[cmd.name]()

    async def press(self, cmd: Command, channel: Channel, user: User) -> list[Reply]:
        wanted = required(cmd.options, "button", "press").strip()
        if wanted.isdigit() and not wanted.isascii():
            raise ConsoleInputError(
                t(
                    "press: write a button's number with the digits 0-9 (got {wanted!r}).",
                    wanted=wanted,
                )
            )
        try:
            buttons = await self.memory.visible(cmd.channel, cmd.user)
        except ConsoleMemoryError as exc:
            log.warning("the buttons remembered in #%s are unreadable: %s", cmd.channel, exc)
            raise ConsoleInputError(
                t(
                    "The buttons remembered here could not be read, so there are none to "
                    "press. /board shows the board, and its buttons, again."
                )
            ) from None
        if not buttons:
            raise ConsoleInputError(t("There are no buttons to press here yet."))
        payload = None
        if WHOLE_NUMBER.fullmatch(wanted) and 1 <= bounded_int(wanted) <= len(buttons):
            payload = buttons[int(wanted) - 1][0]
        else:
            exact = [p for p, label in buttons if label.lower() == wanted.lower()]
            starts = [p for p, label in buttons if label.lower().startswith(wanted.lower())]
            payload = exact[0] if exact else starts[0] if len(starts) == 1 else None
        if payload is None:
            listing = "  ".join(f"[{i}] {label}" for i, (_, label) in enumerate(buttons, 1))
            raise ConsoleInputError(
                t("No button {wanted!r}. Buttons: {listing}", wanted=wanted, listing=listing)
            )
        try:
            pressed = Payload.parse(payload)
        except ValueError:
            raise ConsoleInputError(
                t("That button could not be read. /board shows the board, and its buttons, again.")
            ) from None
        return await self.service.press(channel, user, pressed)

    async def show(self, cmd: Command, reply: Reply) -> None:
        if reply.where is not None:
            cmd = await self._elsewhere(cmd, reply.where)
        prefix = str(t("(only {user} sees this)", user=cmd.user)) + " " if reply.ephemeral else ""
        where = (
            "[" + str(t("direct message to {user}", user=cmd.channel[1:])) + "]"
            if cmd.channel.startswith("@")
            else f"[#{cmd.channel}]"
        )
        head = f"{where} {prefix}{reply.title}".rstrip()
        self.say(head)
        self.service.delivered([reply])
        if reply.text:
            text = _RELATIVE_TIME.sub(lambda m: _relative(int(m.group(1))), reply.text)
            text = _ABSOLUTE_TIME.sub(lambda m: _absolute(int(m.group(1))), text)
            if mentioned := [int(m.group(1)) for m in _CHANNEL.finditer(text)]:
                channels = await self._channel_names(mentioned)
                text = _CHANNEL.sub(lambda m: "#" + channels.get(int(m.group(1)), m.group(1)), text)
            self.say(text)
        if reply.fields:
            self.say("  " + " | ".join(f"{name}: {value}" for name, value in reply.fields))
        if reply.launch and reply.url:
            # Discord opens the page in its Activity; a console has none: the link to open.
            self.say("  " + str(t("page: {url}", url=reply.url)))
        if reply.mentions or reply.followers:
            names = ", ".join(u.name for u in (*reply.mentions, *reply.followers))
            self.say("  " + str(t("(pings {names})", names=names)))
        for index, (caption, png) in enumerate(reply.gallery, start=1):
            slug = re.sub(r"[^\w]+", "-", caption).strip("-").lower() or str(index)
            path = self.out_dir / f"{self._stem(cmd.channel, reply)}-{slug}.png"
            self.out_dir.mkdir(parents=True, exist_ok=True)
            path.write_bytes(png)
            # A caption is a sentence; before the picture's path it loses its full stop.
            self.say(f"  {caption.rstrip('.')}: {path}")
        if reply.image is not None:
            path = self._save_image(cmd.channel, reply)
            self.say("  " + str(t("image: {path}", path=path)))
        if reply.file is not None:
            name, data = reply.file
            self.out_dir.mkdir(parents=True, exist_ok=True)
            saved = self.out_dir / name
            saved.write_bytes(data)
            self.say("  " + str(t("file: {path}", path=saved)))
        choices = [*reply.picks, *reply.actions]
        if choices:
            # A disabled button (the page shown now) is neither listed nor pressable: the
            # numbers shown are those /press takes.
            enabled = [c for c in choices if not c.disabled]
            listing = "  ".join(f"[{i}] {c.label}" for i, c in enumerate(enabled, 1))
            if enabled:
                self.say(
                    "  "
                    + str(
                        t(
                            "buttons: {listing}   (press with: <user> /press <number or label>)",
                            listing=listing,
                        )
                    )
                )
            owner = cmd.user if reply.ephemeral else None
            try:
                await self.memory.remember(
                    cmd.channel, owner, [(c.payload.encode(), c.label) for c in enabled]
                )
            except ConsoleMemoryError as exc:
                # What the command did stands; only a later /press misses these buttons.
                log.warning("the buttons of #%s could not be remembered: %s", cmd.channel, exc)
                self.say(
                    "  "
                    + str(t("(these buttons could not be remembered: /board shows them again)"))
                )
        self.say()

    async def _elsewhere(self, cmd: Command, where: Where) -> Command:
        """The command as if used where its reply goes: a direct message, or another
        channel (a tournament's, or a game's thread, whose name is remembered as it is
        first shown, so that it is addressed as `#name`)."""
        if isinstance(where, Direct):
            return Command(f"@{where.user.name}", cmd.user, cmd.name, cmd.options)
        name = where.name
        if name and where.channel_id not in self._named:
            try:
                await self.memory.name_channel(where.channel_id, name)
                self._named.add(where.channel_id)
            except ConsoleMemoryError as exc:
                log.warning("the name of #%s could not be remembered: %s", name, exc)
        if not name:
            name = (await self._channel_names([where.channel_id])).get(
                where.channel_id, str(where.channel_id)
            )
        return Command(name, cmd.user, cmd.name, cmd.options)

    async def _channel_names(self, ids: Collection[int]) -> dict[int, str]:
        """The names of channels `ids`; none if they cannot be read (replies then show
        their ids)."""
        try:
            return await self.memory.channel_names(ids)
        except ConsoleMemoryError as exc:
            log.warning("the console's channel names are unreadable: %s", exc)
            return {}

    def _stem(self, channel: str, reply: Reply) -> str:
        return re.sub(r"[^\w]+", "-", f"{channel}-{reply.title}").strip("-").lower()

    def _save_image(self, channel: str, reply: Reply) -> Path:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        suffix = Path(reply.image_name).suffix or ".png"
        path = self.out_dir / f"{self._stem(channel, reply)}{suffix}"
        assert reply.image is not None
        path.write_bytes(reply.image)
        if suffix == ".png":
            latest = self.out_dir / f"{channel}-latest.png"
            latest.write_bytes(reply.image)
        return path

    async def run(self, lines: TextIO, interactive: bool) -> None:
        """Run the lines of `lines` until its end, or until `stop()`."""
        # The first lines, piped input or typed.
        self.say(
            str(
                t(
                    "Hilltop console. Type commands like `alice /play game:hokito "
                    "opponent:bob`; /help lists them; Ctrl-D quits."
                )
            )
        )
        source = read_lines(lines)
        try:
            while not self._stopping.is_set():
                if interactive:
                    print("> ", end="", file=self.stream, flush=True)
                line = await self._next_line(source)
                if line is None:
                    break
                await self.run_line(line)
        finally:
            await source.aclose()

    async def _next_line(self, source: AsyncGenerator[str]) -> str | None:
        """The next line; None at the end of the input, or once asked to stop."""

        async def read() -> str | None:
            return await anext(source, None)

        reading = asyncio.ensure_future(read())
        stopping = asyncio.ensure_future(self._stopping.wait())
        try:
            await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
        if self._stopping.is_set():
            reading.cancel()
            with suppress(asyncio.CancelledError):
                await reading
            return None
        return reading.result()


async def read_lines(stream: TextIO) -> AsyncGenerator[str]:
    """The lines of `stream`. A pipe or a terminal is waited on by the event loop, so that
    a signal is handled while the console waits for input; a file or text in memory never
    keeps a reader waiting, so it is read directly."""
    loop = asyncio.get_running_loop()
    fd = _waitable(stream, loop)
    if fd is None:
        while line := stream.readline():
            yield line
        return
    decoder = codecs.getincrementaldecoder(stream.encoding or "utf-8")(errors="replace")
    pending = ""
    while True:
        await _readable(loop, fd)
        chunk = os.read(fd, 1 << 16)
        pending += decoder.decode(chunk, final=not chunk)
        *lines, pending = pending.split("\n")
        for line in lines:
            yield line + "\n"
        if not chunk:
            if pending:
                yield pending
            return


def _waitable(stream: TextIO, loop: asyncio.AbstractEventLoop) -> int | None:
    """The descriptor of `stream` if the event loop can wait for it to be readable."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(os.fstat(fd).st_mode):
        return None
    try:
        loop.add_reader(fd, lambda: None)
    except (OSError, ValueError):
        return None  # e.g. /dev/null, which cannot be polled
    loop.remove_reader(fd)
    return fd


async def _readable(loop: asyncio.AbstractEventLoop, fd: int) -> None:
    """Wait until `fd` has data or its end (watched only meanwhile: data left unread must
    not wake the loop again and again while a command runs)."""
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, wake)
    try:
        await ready
    finally:
        loop.remove_reader(fd)


def _relative(when: int) -> str:
    """Discord's relative timestamp, written out for the console. Minutes are rounded
    up: a deadline 59 seconds away is "in 1 min", never "in 0 min"."""
    left = max(0, when - int(time.time()))
    hours, minutes = divmod(-(-left // 60), 60)
    if hours:
        return str(t("in {hours} h {minutes} min", hours=hours, minutes=f"{minutes:02d}"))
    return str(t("in {minutes} min", minutes=minutes))


def _absolute(when: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(when))


async def _ready(replies: list[Reply]) -> list[Reply]:
    return replies
