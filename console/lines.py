"""Reading console lines: `[#channel] <user> /<command> [options]`.

Options are `name:value`, a value running to the next ` name:` or the end of the line;
the first option may be given bare (`/moves c2`). Numbers are checked against the same
ranges as the Discord commands' options. Console users and channels are named, and get
stable ids from their names.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from host.face import (
    BOT_NAME,
    MAX_COMPUTERS,
    MAX_DEADLINE_MINUTES,
    MAX_RECORD_BYTES,
    MAX_RECORD_MOVES,
    MAX_ROUNDS,
    MAX_SEED,
    Channel,
    CommandNames,
    EventSetup,
    GameSetup,
    ServerChange,
    Text,
    User,
    local_user,
    seed_from_text,
    t,
)

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
        "record",
        "ply",
    ),
    "accept": (),
    "decline": (),
    "moves": ("from",),
    "move": ("text",),
    "board": (),
    "resign": (),
    "draw": (),
    "takeback": (),
    "rules": ("game",),
    "history": ("user", "game"),
    "game": ("id",),
    "replay": ("id", "speed"),
    "games here": (),
    "games mine": (),
    "notify": ("reminders", "dm", "digest", "hour", "timezone"),
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
    "admin settings": (
        "game",
        "deadline_hours",
        "min_minutes",
        "max_hours",
        "remind_minutes",
        "threads",
        "web",
        "away_days",
        "away_monthly",
        "away_max",
    ),
    "admin forget-server": (),
    "daily": ("move",),
    "leaderboard": ("period", "scope"),
    "stats": ("user",),
    "daily-replay": ("day", "run", "scope"),
    "ratings": ("game", "scope"),
    "profile": ("user", "opponent"),
    "tournament create": ("game", "format", "rounds", "deadline", "name", "table", "away"),
    "tournament join": ("id",),
    "tournament leave": ("id",),
    "tournament start": ("id",),
    "tournament standings": ("id",),
    "tournament pairings": ("round", "id"),
    "tournament list": (),
    "tournament remove": ("player", "id"),
    "tournament end": ("id",),
    "tournament export": ("file", "id"),
    "away": ("days", "until"),
    "back": (),
    "mydata export": (),
    "mydata forget": (),
    "privacy": (),
    "press": ("button",),
    "help": (),
}

#: Every command's options.
OPTION_NAMES = frozenset(option for options in COMMANDS.values() for option in options)

#: The numeric options and their ranges: those the Discord commands declare.
NUMBER_RANGES: dict[str, tuple[int, int]] = {
    "computers": (0, MAX_COMPUTERS),
    "seed": (0, MAX_SEED),
    "deadline": (1, MAX_DEADLINE_MINUTES),
    "deadline_hours": (1, 720),
    "min_minutes": (1, MAX_DEADLINE_MINUTES),
    "max_hours": (1, 720),
    "remind_minutes": (0, 2880),
    "ply": (0, MAX_RECORD_MOVES),
    "id": (1, MAX_SEED),
    "away_days": (0, 365),
    "away_monthly": (0, 365),
    "away_max": (0, 365),
    "days": (1, 365),
    "rounds": (1, MAX_ROUNDS),
    "round": (1, MAX_ROUNDS * 2),
    "table": (1, 4),
    "hour": (0, 23),
}
#: Commands of two words: a group and one of its commands.
GROUPS = ("admin", "games", "tournament", "mydata")

#: ASCII digits only: int() would also take other scripts' digits, `_` and spaces.
WHOLE_NUMBER = re.compile(r"-?[0-9]+")
_LINE = re.compile(r"^\s*(?:#(?P<channel>[\w-]+)\s+)?@?(?P<user>[\w.-]+)\s+/(?P<rest>.+)$")


class ConsoleInputError(ValueError):
    """A console line that could not be read; the text says why, in the console's
    language."""

    def __init__(self, text: Text) -> None:
        self.text = text
        super().__init__(str(text))


@dataclass(frozen=True)
class Command:
    channel: str
    user: str
    name: str
    options: dict[str, str]


def parse_line(line: str, names: CommandNames | None = None) -> Command:
    """Read one console line (see the module docstring); a refusal names the commands in
    `names`' language."""
    match = _LINE.match(line)
    if not match:
        raise ConsoleInputError(
            t(
                "Write a command as: [#channel] <user> /<command> [options], "
                "e.g. `alice /play game:hokito opponent:bob`."
            )
        )
    rest = match.group("rest").strip()
    words = rest.split(None, 2)
    name = words[0].lower()
    remainder = rest[len(words[0]) :].strip()
    if name in GROUPS and len(words) > 1 and f"{name} {words[1].lower()}" in COMMANDS:
        name = f"{name} {words[1].lower()}"
        remainder = words[2] if len(words) > 2 else ""
    if name not in COMMANDS:
        mine = names or CommandNames()
        known = ", ".join(
            "/" + " ".join(mine.native(w, mine.commands) for w in c.split(" ")) for c in COMMANDS
        )
        raise ConsoleInputError(
            t("/{name} is not a command. Commands: {known}.", name=name, known=known)
        )
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
            raise ConsoleInputError(
                t("/{command} takes no options (got {bare!r}).", command=command, bare=bare)
            )
        options[allowed[0]] = bare
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        value = text[mark.end() : end].strip()
        options[mark.group(1)] = value
    stray = [w for w in re.findall(r"(?:^|\s)([a-z_0-9]+):", text) if w not in allowed]
    # After a known option, `word:` may be part of its value; but an option of another
    # command is a mistake, not a value (`record:` where there is no record option).
    misplaced = [w for w in stray if w in OPTION_NAMES]
    if misplaced:
        stray = misplaced
    if stray and (misplaced or not marks):
        raise ConsoleInputError(
            t(
                "/{command} has no option {stray!r}; options: {options}.",
                command=command,
                stray=stray[0],
                options=", ".join(allowed) or t("none"),
            )
        )
    return options


def console_user(name: str) -> User:
    name = name.lstrip("@").lower()
    if name == BOT_NAME:
        return bot_user()
    return local_user(name)


def bot_user() -> User:
    return User(seed_from_text(f"user:{BOT_NAME}"), BOT_NAME, is_bot=True, is_admin=False)


def console_channel(channel: str) -> Channel:
    return Channel(seed_from_text(f"channel:{channel}"), CONSOLE_GUILD, channel)


async def console_thread(parent: Channel, name: str) -> Channel:
    """A tournament game's thread, as the console keeps one: a channel of its own named
    after the thread (`#spring-r1-alice-v-bob`), addressed as any channel is."""
    slug = re.sub(r"[^\w]+", "-", name, flags=re.UNICODE).strip("-").lower()[:80] or "game"
    return console_channel(slug)


def event_setup(options: dict[str, str]) -> EventSetup:
    """The tournament asked for by `/tournament create`."""
    return EventSetup(
        required(options, "game", "tournament create"),
        required(options, "format", "tournament create"),
        rounds=number(options, "rounds"),
        deadline_minutes=number(options, "deadline"),
        name=options.get("name") or None,
        table=number(options, "table"),
        away=switch(options, "away") is not False,
    )


def required(options: dict[str, str], name: str, command: str) -> str:
    value = options.get(name, "").strip()
    if not value:
        raise ConsoleInputError(t("/{command} needs {name}:<value>.", command=command, name=name))
    return value


def number(options: dict[str, str], name: str) -> int | None:
    """The whole number given for option `name`, within its range (NUMBER_RANGES)."""
    value = options.get(name, "").strip()
    if not value:
        return None
    low, high = NUMBER_RANGES[name]
    if not (WHOLE_NUMBER.fullmatch(value) and low <= bounded_int(value) <= high):
        raise ConsoleInputError(
            t(
                "{name}: give a whole number from {low} to {high} (got {value!r}).",
                name=name,
                low=low,
                high=high,
                value=value,
            )
        )
    return int(value)


def bounded_int(digits: str) -> int:
    """The value of an ASCII whole number; one too long for any range here counts as
    ±10**20 unconverted (thousands of digits take long to convert, or are refused)."""
    if len(digits.lstrip("-")) > 20:
        return -(10**20) if digits.startswith("-") else 10**20
    return int(digits)


def switch(options: dict[str, str], name: str) -> bool | None:
    """on/off (as Discord offers them; true/false and yes/no too) for option `name`."""
    value = options.get(name, "").strip().lower()
    if not value:
        return None
    if value in ("on", "true", "yes"):
        return True
    if value in ("off", "false", "no"):
        return False
    raise ConsoleInputError(t("{name}: write on or off (got {value!r}).", name=name, value=value))


def server_change(options: dict[str, str]) -> ServerChange:
    """What `/admin settings` was asked to change."""
    return ServerChange(
        options.get("game") or None,
        number(options, "deadline_hours"),
        number(options, "min_minutes"),
        number(options, "max_hours"),
        number(options, "remind_minutes"),
        switch(options, "threads"),
        options.get("web") or None,
        away_days=number(options, "away_days"),
        away_monthly=number(options, "away_monthly"),
        away_max=number(options, "away_max"),
    )


def people(options: dict[str, str], *names: str) -> list[User]:
    """The users named by the options `names`, in that order."""
    return [console_user(options[name]) for name in names if options.get(name)]


def setup_of(options: dict[str, str], command: str) -> GameSetup:
    """The game set-up asked for by `/play` or `/admin start`."""
    return GameSetup(
        required(options, "game", command),
        computers=number(options, "computers") or 0,
        seed=number(options, "seed"),
        seat=options.get("seat") or None,
        variant=options.get("variant") or None,
        position=options.get("position") or None,
        level=options.get("level") or None,
        deadline_minutes=number(options, "deadline"),
        record=record_file(options.get("record") or None),
        ply=number(options, "ply"),
    )


def game_number(options: dict[str, str]) -> int:
    """The game's number given to `/game id:`."""
    required(options, "id", "game")
    found = number(options, "id")
    assert found is not None
    return found


def record_file(path: str | None) -> str | None:
    """The text of a record file named by `record:` (the console's attachment): a
    regular file of at most MAX_RECORD_BYTES, as an attachment is."""
    if path is None:
        return None
    try:
        # Opened without waiting (a named pipe would wait for a writer), then looked at:
        # a device or a pipe never ends, and is no saved record.
        descriptor = os.open(Path(path).expanduser(), os.O_RDONLY | os.O_NONBLOCK)
        with open(descriptor, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                raise ConsoleInputError(
                    t("record: {path!r} is not a file; name a saved game record.", path=path)
                )
            data = file.read(MAX_RECORD_BYTES + 1)
        if len(data) > MAX_RECORD_BYTES:
            raise ConsoleInputError(
                t("record: the file is too large for a game record (at most 256 KB).")
            )
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConsoleInputError(
            t("record: cannot read {path!r} ({why}).", path=path, why=str(exc))
        ) from None


def english_line(line: str, names: CommandNames) -> str:
    """A line written with another language's command, option and choice names, as the
    English line the console reads (`/graj gra:hokito poziom:łatwy` is `/play game:hokito
    level:easy`); notation and other values are left as typed."""
    match = _LINE.match(line)
    if not match or not names.commands:
        return line
    words = match.group("rest").split(" ")
    out = [names.english(words[0], names.commands)]
    rest = words[1:]
    if out[0] in GROUPS and rest:
        out.append(names.english(rest[0], names.commands))
        rest = rest[1:]
    for word in rest:
        key, colon, value = word.partition(":")
        if colon and key.lower() in names.options:
            word = f"{names.options[key.lower()]}:{names.english(value, names.choices)}"
        out.append(word)
    return line[: match.start("rest")] + " ".join(out)


def help_text(names: CommandNames | None = None) -> str:
    """Every console command with its options, in `names`' language (English if none)."""
    names = names or CommandNames()
    lines = []
    for name, options in COMMANDS.items():
        command = " ".join(names.native(word, names.commands) for word in name.split(" "))
        shown = " ".join(f"[{names.native(o, names.options)}:]" for o in options)
        lines.append(f"/{command} {shown}".rstrip())
    return "\n".join(lines)
