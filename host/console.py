"""The console front-end: the bot's commands without Discord.

One line per command, piped or typed: `[#channel] <user> /<command> [options]`. Options
are `name:value`, a value running to the next ` name:` or the end of the line; the first
option may be given bare (`/moves c2`). Every console user counts as a server admin; the
bot itself is the user `hilltop`. Images go to the output folder. State lives in the
database, so every line may come from a new process; the buttons of the last replies are
kept in a small file beside the images so that `/press` works across runs too.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from engine.rng import seed_from_text
from engine.text import t
from host.daily import DailyService
from host.model import Choice, Place, Reply, ServiceError, User
from host.service import BOT_NAME, GameService

log = logging.getLogger(__name__)

CONSOLE_GUILD = 1
DEFAULT_CHANNEL = "general"

#: Command name -> its options in order (the first may be given bare).
COMMANDS: dict[str, tuple[str, ...]] = {
    "play": (
        "game",
        "opponent",
        "opponent2",
        "opponent3",
        "computers",
        "seed",
        "seat",
        "variant",
        "position",
        "level",
        "deadline",
    ),
    "accept": (),
    "decline": (),
    "moves": ("from",),
    "move": ("text",),
    "board": (),
    "resign": (),
    "rules": ("game",),
    "games": (),
    "admin start": (
        "game",
        "player1",
        "player2",
        "player3",
        "player4",
        "computers",
        "seed",
        "variant",
        "position",
        "level",
        "deadline",
    ),
    "admin end": (),
    "daily": ("move",),
    "leaderboard": ("period", "scope"),
    "stats": ("user",),
    "press": ("button",),
    "help": (),
}

_RELATIVE_TIME = re.compile(r"<t:(\d+):R>")
_CHANNEL = re.compile(r"<#(\d+)>")
_LINE = re.compile(r"^\s*(?:#(?P<channel>[\w-]+)\s+)?@?(?P<user>[\w.-]+)\s+/(?P<rest>.+)$")


class ConsoleInputError(ValueError):
    pass


@dataclass(frozen=True)
class Command:
    channel: str
    user: str
    name: str
    options: dict[str, str]


def parse_line(line: str) -> Command:
    """Read one console line (see the module docstring)."""
    match = _LINE.match(line)
    if not match:
        raise ConsoleInputError(
            "Write a command as: [#channel] <user> /<command> [options], "
            "e.g. `alice /play game:hokito opponent:bob`."
        )
    rest = match.group("rest").strip()
    words = rest.split(None, 2)
    name = words[0].lower()
    remainder = rest[len(words[0]) :].strip()
    if name == "admin" and len(words) > 1 and f"admin {words[1].lower()}" in COMMANDS:
        name = f"admin {words[1].lower()}"
        remainder = words[2] if len(words) > 2 else ""
    if name not in COMMANDS:
        known = ", ".join("/" + c for c in COMMANDS)
        raise ConsoleInputError(f"/{name} is not a command. Commands: {known}.")
    return Command(
        match.group("channel") or DEFAULT_CHANNEL,
        match.group("user").lower(),
        name,
        parse_options(name, remainder),
    )


def parse_options(command: str, text: str) -> dict[str, str]:
    allowed = COMMANDS[command]
    options: dict[str, str] = {}
    if not text:
        return options
    pattern = re.compile(
        r"(?:^|\s)(" + "|".join(map(re.escape, allowed)) + r"):" if allowed else r"(?!x)x"
    )
    marks = list(pattern.finditer(text))
    bare = text[: marks[0].start()].strip() if marks else text.strip()
    if bare:
        if not allowed:
            raise ConsoleInputError(f"/{command} takes no options (got {bare!r}).")
        options[allowed[0]] = bare
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        value = text[mark.end() : end].strip()
        options[mark.group(1)] = value
    stray = [w for w in re.findall(r"(?:^|\s)([a-z_0-9]+):", text) if w not in allowed]
    if stray and not marks:
        raise ConsoleInputError(
            f"/{command} has no option {stray[0]!r}; options: {', '.join(allowed) or 'none'}."
        )
    return options


def console_user(name: str) -> User:
    name = name.lstrip("@").lower()
    if name == BOT_NAME:
        return bot_user()
    return User(seed_from_text(f"user:{name}"), name, is_bot=False, is_admin=True)


def bot_user() -> User:
    return User(seed_from_text(f"user:{BOT_NAME}"), BOT_NAME, is_bot=True, is_admin=False)


def console_place(channel: str) -> Place:
    return Place(seed_from_text(f"channel:{channel}"), CONSOLE_GUILD, channel)


class ButtonMemory:
    """The buttons of the latest replies, per channel (public) and per user (private)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.data = {"counter": 0, "seen": {}}

    def remember(self, channel: str, owner: str | None, choices: list[Choice]) -> None:
        self.data["counter"] += 1
        key = f"{channel}|{owner or ''}"
        self.data["seen"][key] = {
            "n": self.data["counter"],
            "buttons": [[c.payload, c.label] for c in choices],
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.data), encoding="utf-8")

    def visible(self, channel: str, user: str) -> list[tuple[str, str]]:
        public = self.data["seen"].get(f"{channel}|")
        private = self.data["seen"].get(f"{channel}|{user}")
        newest = max((x for x in (public, private) if x), key=lambda x: x["n"], default=None)
        return [(p, label) for p, label in newest["buttons"]] if newest else []


class Console:
    def __init__(
        self,
        service: GameService,
        daily: DailyService,
        out_dir: Path,
        stream: TextIO = sys.stdout,
    ) -> None:
        self.service = service
        self.daily = daily
        self.out_dir = out_dir
        self.stream = stream
        self.buttons = ButtonMemory(out_dir / "buttons.json")

    def say(self, text: str = "") -> None:
        print(text, file=self.stream)

    async def run_line(self, line: str) -> None:
        line = line.strip()
        if not line or line.startswith("#!") or line.startswith("//"):
            return
        try:
            await self.expire_deadlines()
            command = parse_line(line)
            replies = await self.dispatch(command)
        except ConsoleInputError as exc:
            self.say(f"! {exc}")
            return
        except ServiceError as exc:
            self.say(f"! {exc.text}")
            return
        except Exception:
            # As on Discord: the error is logged and the next line is read.
            log.exception("console command failed: %s", line)
            self.say("! Something went wrong on my side and the error was logged.")
            return
        for reply in replies:
            self.show(command, reply)

    async def expire_deadlines(self) -> None:
        """Decisions past their deadline get their default, as the bot's timer does."""
        for place, replies in await self.service.expire_due():
            channels: dict[str, str] = self.buttons.data.get("channels", {})
            name = channels.get(str(place.channel_id), str(place.channel_id))
            command = Command(name, BOT_NAME, "timer", {})
            for reply in replies:
                self.show(command, reply)

    async def dispatch(self, cmd: Command) -> list[Reply]:
        user = console_user(cmd.user)
        place = console_place(cmd.channel)
        self.buttons.data.setdefault("channels", {})[str(place.channel_id)] = cmd.channel
        o = cmd.options
        svc = self.service
        handlers: dict[str, Callable[[], Awaitable[list[Reply]]]] = {
            "play": lambda: svc.play(
                place,
                user,
                _required(o, "game", "play"),
                [console_user(o[k]) for k in ("opponent", "opponent2", "opponent3") if o.get(k)],
                computers=_int(o, "computers") or 0,
                seed=_int(o, "seed"),
                seat=o.get("seat"),
                variant=o.get("variant") or None,
                position=o.get("position") or None,
                level=o.get("level") or None,
                deadline_minutes=_int(o, "deadline"),
            ),
            "accept": lambda: svc.accept(place, user),
            "decline": lambda: svc.decline(place, user),
            "moves": lambda: svc.legal_moves(place, user, o.get("from")),
            "move": lambda: svc.move(place, user, _required(o, "text", "move")),
            "board": lambda: svc.board(place),
            "resign": lambda: svc.resign(place, user),
            "rules": lambda: _ready(svc.rules(_required(o, "game", "rules"))),
            "games": lambda: svc.list_games(place, user),
            "admin start": lambda: svc.admin_start(
                place,
                user,
                _required(o, "game", "admin start"),
                [
                    console_user(o[k])
                    for k in ("player1", "player2", "player3", "player4")
                    if o.get(k)
                ],
                computers=_int(o, "computers") or 0,
                seed=_int(o, "seed"),
                variant=o.get("variant") or None,
                position=o.get("position") or None,
                level=o.get("level") or None,
                deadline_minutes=_int(o, "deadline"),
            ),
            "admin end": lambda: svc.admin_end(place, user),
            "daily": lambda: self.daily.play(place, user, o.get("move") or None),
            "leaderboard": lambda: self.daily.leaderboard(
                place, user, o.get("period") or "today", o.get("scope") or "server"
            ),
            "stats": lambda: self.daily.stats(
                place, user, console_user(o["user"]) if o.get("user") else None
            ),
            "press": lambda: self.press(cmd, place, user),
            "help": lambda: _ready([Reply(title="Commands", text=_help())]),
        }
        return await handlers[cmd.name]()

    async def press(self, cmd: Command, place: Place, user: User) -> list[Reply]:
        wanted = _required(cmd.options, "button", "press").strip()
        buttons = self.buttons.visible(cmd.channel, cmd.user)
        if not buttons:
            raise ConsoleInputError("There are no buttons to press here yet.")
        payload = None
        if wanted.isdigit() and 1 <= int(wanted) <= len(buttons):
            payload = buttons[int(wanted) - 1][0]
        else:
            exact = [p for p, label in buttons if label.lower() == wanted.lower()]
            starts = [p for p, label in buttons if label.lower().startswith(wanted.lower())]
            payload = exact[0] if exact else starts[0] if len(starts) == 1 else None
        if payload is None:
            listing = "  ".join(f"[{i}] {label}" for i, (_, label) in enumerate(buttons, 1))
            raise ConsoleInputError(f"No button {wanted!r}. Buttons: {listing}")
        return await self.service.press(place, user, payload)

    def show(self, cmd: Command, reply: Reply) -> None:
        prefix = f"(only {cmd.user} sees this) " if reply.ephemeral else ""
        head = f"[#{cmd.channel}] {prefix}{reply.title}".rstrip()
        self.say(head)
        if reply.text:
            text = _RELATIVE_TIME.sub(lambda m: _relative(int(m.group(1))), reply.text)
            channels: dict[str, str] = self.buttons.data.get("channels", {})
            text = _CHANNEL.sub(lambda m: "#" + channels.get(m.group(1), m.group(1)), text)
            self.say(text)
        if reply.fields:
            self.say("  " + " | ".join(f"{name}: {value}" for name, value in reply.fields))
        if reply.mentions:
            names = ", ".join(u.name for u in reply.mentions)
            self.say(f"  (pings {names})")
        for index, (caption, png) in enumerate(reply.gallery, start=1):
            slug = re.sub(r"[^\w]+", "-", caption).strip("-").lower() or str(index)
            path = self.out_dir / f"{self._stem(cmd.channel, reply)}-{slug}.png"
            self.out_dir.mkdir(parents=True, exist_ok=True)
            path.write_bytes(png)
            self.say(f"  {caption}: {path}")
        if reply.image is not None:
            path = self._save_image(cmd.channel, reply)
            self.say(f"  image: {path}")
        choices = [*reply.picks, *reply.actions]
        if choices:
            listing = "  ".join(
                f"[{i}] {c.label}" for i, c in enumerate(choices, 1) if not c.disabled
            )
            self.say(f"  buttons: {listing}   (press with: <user> /press <number or label>)")
            self.buttons.remember(cmd.channel, cmd.user if reply.ephemeral else None, choices)
        self.say()

    def _stem(self, channel: str, reply: Reply) -> str:
        return re.sub(r"[^\w]+", "-", f"{channel}-{reply.title}").strip("-").lower()

    def _save_image(self, channel: str, reply: Reply) -> Path:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.out_dir / f"{self._stem(channel, reply)}.png"
        assert reply.image is not None
        path.write_bytes(reply.image)
        latest = self.out_dir / f"{channel}-latest.png"
        latest.write_bytes(reply.image)
        return path

    async def run(self, lines: TextIO, interactive: bool) -> None:
        if interactive:
            self.say(
                str(
                    t(
                        "Hilltop console. Type commands like `alice /play game:hokito "
                        "opponent:bob`; /help lists them; Ctrl-D quits."
                    )
                )
            )
        while True:
            if interactive:
                print("> ", end="", file=self.stream, flush=True)
            line = lines.readline()
            if not line:
                break
            await self.run_line(line)


def _relative(when: int) -> str:
    """Discord's relative timestamp, written out for the console."""
    left = max(0, when - int(time.time()))
    return f"in {left // 3600}h {left % 3600 // 60:02d}m"


def _required(options: dict[str, str], name: str, command: str) -> str:
    value = options.get(name, "").strip()
    if not value:
        raise ConsoleInputError(f"/{command} needs {name}:<value>.")
    return value


def _int(options: dict[str, str], name: str) -> int | None:
    value = options.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise ConsoleInputError(f"{name}: {value!r} is not a whole number.") from None


async def _ready(replies: list[Reply]) -> list[Reply]:
    return replies


def _help() -> str:
    lines = []
    for name, options in COMMANDS.items():
        shown = " ".join(f"[{o}:]" for o in options)
        lines.append(f"/{name} {shown}".rstrip())
    return "\n".join(lines)
