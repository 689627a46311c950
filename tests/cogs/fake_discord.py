"""A small stand-in for Discord, for end-to-end tests of the bot's Discord layer.

`FakeDiscord` serves, on 127.0.0.1 and an ephemeral port, a gateway websocket and the REST
routes discord.py uses to log in, sync application commands and answer interactions, for
one guild with a text channel (add more with `text_channel`). Tests play the users: they
dispatch slash commands, autocomplete requests and component clicks as INTERACTION_CREATE
events, and read back every request the bot made and the messages it left.

It can serve several guilds spread over several gateway shards (`guilds`, `shard_count`),
as Discord does for a sharded bot: a guild belongs to shard `(guild_id >> 22) % shard_count`,
each connection IDENTIFYs as one shard and is told about that shard's guilds only, and an
interaction goes to a connection of the shard that owns its guild (shard 0 outside guilds).

It checks what Discord checks and a mocked interaction cannot: one answer per interaction
within 3 s, followups and edits with its token for 15 minutes, the callback types each
interaction type allows, the limits of messages, components, embeds, urls, attachments,
autocomplete choices, threads and command schemas, and the bot's permissions in each
channel (`deny_bot` takes some away). Those deadlines are read on the fake's own clock
(`now`), which a test moves on at once with `advance` instead of waiting. Every rule is a
row of `tests/cogs/discord_rules.py`, which the checks read. A breach gets the status,
code and form errors Discord would return and is kept in `rejections`. Threads are
channels of their own: made from a channel that can hold them, archived (`archive`), and
posted in. An application with Activities (`activities=True`) starts with Discord's Entry Point
command, refuses a bulk overwrite of its global commands that drops it, and may answer an
interaction by launching its Activity (kept in `launches`); others may not.
Messages behave as users see them: the first followup after a deferred reply fills the
"thinking…" message, keeping the deferral's visibility and pinging nobody (edits never
ping); ephemeral messages ping nobody and only their recipient can use their components.

`serving()` runs a fake with discord.py pointed at it; `running()` logs a client in and
keeps it connected for the length of a block. A load driver uses `dispatch_slash` and
`dispatch_autocomplete`, which return at once, and waits on each exchange's `answered` and
`replied` events; with `keep_uploads=False` the fake keeps only the size of each file, so
that thousands of boards cost it little memory.

For the web pages it is Discord's OAuth2 too: its authorize page (`authorize_url`) sends
a browser straight back with a code for the user the test put in `next_sign_in`;
`issue_code` gives the code an Activity is handed; `POST /oauth2/token` exchanges a code
once, for the application's `client_id` and `client_secret`, and `/users/@me` and
`/users/@me/guilds` answer for the user of the access token it gave.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import re
import time
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import IntEnum
from typing import Any, TypeVar

import discord
import yarl
from aiohttp import WSMsgType, hdrs, web

from tests.cogs import discord_rules as rules

Json = dict[str, Any]
ClientT = TypeVar("ClientT", bound=discord.Client)

API = "/api/v10"
GATEWAY_PATH = "/gateway"
#: Discord's OAuth2 authorize page, which a browser is sent to (outside the API).
AUTHORIZE_PATH = "/oauth2/authorize"
#: A user's requests with their OAuth2 access token.
BEARER_PATHS = ("/users/@me", "/users/@me/guilds")
#: Message flags.
SUPPRESS_EMBEDS = 1 << 2
EPHEMERAL = 1 << 6
LOADING = 1 << 7
SUPPRESS_NOTIFICATIONS = 1 << 12
SENDABLE_FLAGS = SUPPRESS_EMBEDS | EPHEMERAL | SUPPRESS_NOTIFICATIONS
#: Permission bits.
MANAGE_GUILD = rules.PERMISSIONS["Manage Server"]
MEMBER_PERMISSIONS = rules.permissions(
    "View Channels",
    "Send Messages",
    "Embed Links",
    "Attach Files",
    "Read Message History",
    "Use Application Commands",
)
#: What the bot is invited with (the README's invite link).
BOT_PERMISSIONS = MEMBER_PERMISSIONS | rules.permissions(
    "Create Public Threads", "Send Messages in Threads"
)
#: Discord forgets an interaction that is not answered within this many seconds.
CALLBACK_DEADLINE = rules.CALLBACK_SECONDS
HEARTBEAT_INTERVAL_MS = 41_250
#: Seconds a test waits for what the bot surely does (an answer, a post, a connection):
#: only a hang takes this long, however busy the machine.
WAIT = 30.0
USER_MENTION = re.compile(r"<@!?(\d+)>")
MULTIPART_BOUNDARY = re.compile(r'boundary="?([^";]+)"?')
DISPOSITION_PARAMETER = re.compile(r'(\w+)="([^"]*)"')


class Op(IntEnum):
    DISPATCH = 0
    HEARTBEAT = 1
    IDENTIFY = 2
    RESUME = 6
    INVALID_SESSION = 9
    HELLO = 10
    HEARTBEAT_ACK = 11


class InteractionType(IntEnum):
    APPLICATION_COMMAND = 2
    COMPONENT = 3
    AUTOCOMPLETE = 4


class CallbackType(IntEnum):
    MESSAGE = 4
    DEFERRED_MESSAGE = 5
    DEFERRED_UPDATE = 6
    UPDATE_MESSAGE = 7
    AUTOCOMPLETE_RESULT = 8
    MODAL = 9
    LAUNCH_ACTIVITY = 12


ALLOWED_CALLBACKS = {
    InteractionType.APPLICATION_COMMAND: {4, 5, 9, 12},
    InteractionType.COMPONENT: {4, 5, 6, 7, 9, 12},
    InteractionType.AUTOCOMPLETE: {8},
}

#: The command type of an Activity's Entry Point, and its handler that has Discord launch
#: the Activity (DISCORD_LAUNCH_ACTIVITY).
PRIMARY_ENTRY_POINT = 4
DISCORD_LAUNCH_ACTIVITY = 2
#: The application flag of an application with Activities (EMBEDDED).
EMBEDDED = 1 << 17
#: Discord's refusal of a bulk overwrite of the global commands that drops the Entry Point.
ENTRY_POINT_DROPPED = rules.Error(
    400,
    50240,
    "You cannot remove this app's Entry Point command in a bulk update operation. Please "
    "include the Entry Point command in your update request or delete it separately.",
)


class OptionType(IntEnum):
    SUB_COMMAND = 1
    SUB_COMMAND_GROUP = 2
    STRING = 3
    INTEGER = 4
    BOOLEAN = 5
    USER = 6
    NUMBER = 10


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass(frozen=True, slots=True)
class FakeUser:
    id: int
    name: str
    bot: bool = False
    #: This member's permissions in the guild's channels, as Discord resolves them.
    permissions: int = MEMBER_PERMISSIONS
    #: The language of this user's Discord client, sent with each of their interactions.
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> Json:
        return {"id": str(self.id), "username": self.name, "discriminator": "0", "avatar": None}

    def member(self) -> Json:
        return {
            "user": {**self.payload(), "bot": self.bot},
            "roles": [],
            "flags": 0,
            "joined_at": "2024-01-01T00:00:00+00:00",
            "permissions": str(self.permissions),
        }


@dataclass(frozen=True, slots=True)
class Upload:
    """A file the bot attached to a request."""

    #: The index N of the multipart field `files[N]`.
    index: int
    filename: str
    content_type: str
    #: The file's bytes; empty when the fake keeps no uploads.
    data: bytes
    size: int


@dataclass(slots=True)
class Call:
    """One REST request from the bot, as the fake received it."""

    method: str
    #: The path below /api/v10, e.g. "/webhooks/1/abc/messages/@original".
    path: str
    query: dict[str, str]
    #: The JSON body, or a multipart body's payload_json; None without a body.
    body: Any
    uploads: tuple[Upload, ...]
    #: When the request arrived, on the fake's clock (`FakeDiscord.now`).
    at: float
    status: int = 0

    @property
    def json(self) -> Json:
        return self.body if isinstance(self.body, dict) else {}


@dataclass(frozen=True, slots=True)
class Message:
    """A message as a user saw it at one moment; later edits do not change the snapshot."""

    payload: Json
    uploads: tuple[Upload, ...]
    #: Users Discord notified when the message was posted (never for edits or ephemerals).
    pinged: tuple[int, ...]

    @property
    def id(self) -> int:
        return int(self.payload["id"])

    @property
    def channel_id(self) -> int:
        return int(self.payload["channel_id"])

    @property
    def content(self) -> str:
        return str(self.payload["content"])

    @property
    def ephemeral(self) -> bool:
        return bool(self.payload["flags"] & EPHEMERAL)

    @property
    def embeds(self) -> list[Json]:
        return list(self.payload["embeds"])

    @property
    def text(self) -> str:
        """Title and description of the first embed."""
        embed = self.embeds[0] if self.embeds else {}
        return f"{embed.get('title') or ''}\n{embed.get('description') or ''}"

    @property
    def attachments(self) -> list[str]:
        return [a["filename"] for a in self.payload["attachments"]]

    def components(self) -> list[Json]:
        """Buttons and selects, row by row."""
        return [c for row in self.payload["components"] for c in row["components"]]

    def labels(self) -> list[str]:
        return [str(c.get("label", "")) for c in self.components()]

    def find(
        self, *, label: str | None = None, prefix: str | None = None, custom_id: str | None = None
    ) -> Json:
        """The one component with this label, label prefix or custom_id."""
        found = [
            c
            for c in self.components()
            if label in (None, c.get("label"))
            and str(c.get("label", "")).startswith(prefix or "")
            and custom_id in (None, c.get("custom_id"))
        ]
        if len(found) != 1:
            raise AssertionError(
                f"{len(found)} components fit label={label!r} prefix={prefix!r} "
                f"custom_id={custom_id!r}; the message has {self.labels()}"
            )
        return found[0]

    def upload(self, filename: str) -> Upload:
        for upload in self.uploads:
            if upload.filename == filename:
                return upload
        raise AssertionError(f"no {filename} attached; attachments: {self.attachments}")


@dataclass(slots=True)
class Exchange:
    """One interaction dispatched to the bot, and what the bot did with its token."""

    fake: FakeDiscord = field(repr=False)
    payload: Json
    #: The fake's clock (`FakeDiscord.now`) just before the event was written to the
    #: gateway.
    sent_at: float
    #: The accepted interaction callback.
    callback: Call | None = None
    #: Discord's refusals of callbacks for this interaction (late, repeated, wrong type).
    refusals: list[str] = field(default_factory=list)
    #: Every later request made with this interaction's token: followups, edits, deletes.
    calls: list[Call] = field(default_factory=list)
    #: The message @original names: the reply, or the message a component is on.
    original_id: int | None = None
    #: Messages posted through the followup webhook, in order.
    followup_ids: list[int] = field(default_factory=list)
    #: A deferred "thinking…" reply waiting for its first followup to fill it.
    awaiting_fill: bool = False
    #: When the answer became visible to the user (`FakeDiscord.now`): the callback
    #: for a message, an update or autocomplete choices; after a deferral, the first
    #: followup or edit that fills it in or replaces it.
    replied_at: float | None = None
    #: The message that answer showed, and whether only the user could see it.
    reply_id: int | None = None
    reply_ephemeral: bool = False
    answered: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    replied: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def id(self) -> int:
        return int(self.payload["id"])

    @property
    def token(self) -> str:
        return str(self.payload["token"])

    @property
    def user(self) -> Json:
        """Who interacted: the member's user in a guild, the user in a direct message."""
        return dict(
            self.payload["member"]["user"] if "member" in self.payload else self.payload["user"]
        )

    @property
    def type(self) -> InteractionType:
        return InteractionType(self.payload["type"])

    @property
    def answer(self) -> Call:
        if self.callback is None:
            raise AssertionError(f"interaction {self.id} was not answered")
        return self.callback

    @property
    def seconds(self) -> float:
        """From dispatch to the callback's arrival."""
        return self.answer.at - self.sent_at

    @property
    def latency(self) -> float:
        """Seconds from dispatch until the answer was visible (see `replied_at`)."""
        if self.replied_at is None:
            raise AssertionError(f"interaction {self.id} has no visible answer")
        return self.replied_at - self.sent_at

    def _show(self, at: float, message: Json | None) -> None:
        """The first answer the user sees; later ones do not move `replied_at`."""
        if self.replied_at is not None:
            return
        self.replied_at = at
        if message is not None:
            self.reply_id = int(message["id"])
            self.reply_ephemeral = bool(message["flags"] & EPHEMERAL)
        self.replied.set()

    @property
    def callback_type(self) -> int:
        return int(self.answer.json["type"])

    @property
    def data(self) -> Json:
        """The callback's data: a message, flags or autocomplete choices."""
        return dict(self.answer.json.get("data") or {})

    @property
    def ephemeral(self) -> bool:
        return bool(int(self.data.get("flags") or 0) & EPHEMERAL)

    @property
    def choices(self) -> list[Json]:
        if self.callback_type != CallbackType.AUTOCOMPLETE_RESULT:
            raise AssertionError(f"callback type {self.callback_type} is not autocomplete")
        return list(self.data.get("choices") or [])

    @property
    def message(self) -> Message:
        """The message the callback posted or updated, as it is now."""
        if self.original_id is None:
            raise AssertionError(f"callback type {self.callback_type} left no message")
        return self.fake.message(self.original_id)

    async def shown(self, *, within: float = WAIT) -> Message:
        """The answer as the user sees it once it is visible: the reply itself, or after a
        deferral the message that filled in or replaced the "thinking…" one."""
        try:
            await asyncio.wait_for(self.replied.wait(), within)
        except TimeoutError:
            raise AssertionError(f"no visible answer to {self.payload['data']}") from None
        if self.reply_id is None:
            raise AssertionError(f"the answer to {self.payload['data']} shows no message")
        return self.fake.message(self.reply_id)

    async def followups(self, count: int, *, within: float = WAIT) -> list[Message]:
        """The first `count` followup messages, waiting for them to arrive."""
        await self.fake.wait_until(
            lambda: len(self.followup_ids) >= count,
            within=within,
            what=f"{count} followup(s) to interaction {self.id}",
        )
        return [self.fake.message(i) for i in self.followup_ids[:count]]


class Rejected(Exception):
    """Discord's answer to a request it refuses: its status, code and message, and for
    an invalid form body the errors by field path."""

    def __init__(self, status: int, code: int, message: str, errors: Json | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> Json:
        form = rules.ERRORS["invalid form body"].message
        body: Json = {"message": form if self.errors else self.message, "code": self.code}
        if self.errors is not None:
            body["errors"] = self.errors
        return body


def _refused(name: str) -> Rejected:
    """One of Discord's refusals, by its name in `rules.ERRORS`."""
    error = rules.ERRORS[name]
    return Rejected(error.status, error.code, error.message)


def _invalid(path: str, code: str, **values: Any) -> Rejected:
    """50035 Invalid Form Body for the field at `path` ("components.0.components.1.custom_id"),
    nested as Discord nests it; the reason kept names the path and Discord's words."""
    said = rules.FORM_ERRORS[code].format(**values)
    errors: Json = {"_errors": [{"code": code, "message": said}]}
    for key in reversed([k for k in path.split(".") if k]):
        errors = {key: errors}
    form = rules.ERRORS["invalid form body"]
    return Rejected(form.status, form.code, f"{form.message}: {path}: {said}", errors)


def _bearer(request: web.Request) -> str | None:
    """The OAuth2 access token of a user's own request (`BEARER_PATHS`), if it has one."""
    given = request.headers.get(hdrs.AUTHORIZATION, "")
    path = request.path.removeprefix(API)
    if request.method != "GET" or path not in BEARER_PATHS or not given.startswith("Bearer "):
        return None
    return given.removeprefix("Bearer ")


def _json(data: Any, status: int = 200) -> web.Response:
    # Set by hand: aiohttp's json_response adds "; charset=utf-8", and discord.py reads
    # a body as JSON only when the Content-Type is exactly "application/json".
    headers = {"Content-Type": "application/json"}
    return web.Response(status=status, body=json.dumps(data).encode(), headers=headers)


@dataclass(slots=True)
class Session:
    """One identified gateway connection."""

    id: str
    socket: web.WebSocketResponse
    intents: int
    sequence: int = 0
    #: The shard the connection IDENTIFYed as, of how many: 0 of 1 when it named none.
    shard_id: int = 0
    shard_count: int = 1
    #: The sequence number of the newest event the bot said (in a heartbeat) it has read.
    heard: int | None = None

    async def dispatch(self, event: str, data: Json) -> None:
        self.sequence += 1
        packet = {"op": Op.DISPATCH, "t": event, "s": self.sequence, "d": data}
        await self.socket.send_str(json.dumps(packet))


Handler = Callable[[web.Request, Call], Awaitable[web.StreamResponse]]


class FakeDiscord:
    """Discord for one bot: `guilds` guilds spread evenly over `shard_count` shards, each
    with a text channel named "general" (`channel_id` is the first guild's)."""

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        callback_deadline: float = CALLBACK_DEADLINE,
        keep_uploads: bool = True,
        guilds: int = 1,
        shard_count: int = 1,
        activities: bool = False,
    ) -> None:
        if guilds < 1 or shard_count < 1:
            raise ValueError(f"{guilds} guilds over {shard_count} shards: at least one of each")
        self.token = token
        self.callback_deadline = callback_deadline
        self.keep_uploads = keep_uploads
        #: How many shards the bot must connect: what GET /gateway/bot recommends, and the
        #: only count an IDENTIFY may name.
        self.shard_count = shard_count
        self._ids = itertools.count(1_250_000_000_000_000_000)
        self.bot_user = FakeUser(self.new_id(), "hilltop", bot=True)
        self.application_id = self.bot_user.id
        self.owner = FakeUser(self.new_id(), "owner")
        #: The guilds, the n-th on shard n % shard_count.
        self.guild_ids = [self._guild_id_on(n % shard_count) for n in range(guilds)]
        self.guild_id = self.guild_ids[0]
        self.users: dict[int, FakeUser] = {u.id: u for u in (self.bot_user, self.owner)}
        #: The guilds' channels and threads, and direct message channels, by id.
        self.channels: dict[int, Json] = {}
        #: Users who take no direct messages from the bot.
        self.closed_dms: set[int] = set()
        #: The bot's permissions where they differ from BOT_PERMISSIONS, by channel.
        self.bot_permissions: dict[int, int] = {}
        #: Each guild's "general" text channel, by guild id.
        self.general_channels = {g: self.text_channel("general", g) for g in self.guild_ids}
        self.channel_id = self.general_channels[self.guild_id]
        #: Every REST request, in order of arrival.
        self.calls: list[Call] = []
        #: Requests refused as Discord would refuse them, with the reason.
        self.rejections: list[tuple[Call, str]] = []
        #: Requests whose client went away before sending all of the body.
        self.dropped = 0
        #: Whether the application has Activities: an Entry Point command, and launches.
        self.activities = activities
        #: Commands as last synced, with the ids given to them; None before any sync
        #: (with Activities, the Entry Point command Discord made for them).
        self.global_commands: list[Json] | None = [self._entry_point()] if activities else None
        #: Interactions answered by launching the Activity, in order.
        self.launches: list[Exchange] = []
        self.guild_commands: dict[int, list[Json]] = {}
        self.sessions: list[Session] = []
        #: An interaction for a shard no bot is connected as, or whose connection is
        #: going away: lost (never answered), as on Discord, rather than an error here
        #: (for loads that kill a bot process).
        self.lose_unrouted = False
        self.heartbeats = 0
        #: Messages now in the channels, by id.
        self.messages: dict[int, Json] = {}
        self._uploads: dict[int, tuple[Upload, ...]] = {}
        self._pinged: dict[int, tuple[int, ...]] = {}
        self._exchanges: dict[str, Exchange] = {}
        #: Seconds the clock was moved on by `advance`.
        self._skipped = 0.0
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.port = 0
        #: OAuth2, for the web pages' sign-in: the application's secret; the user who
        #: signs in at Discord's authorize page, as the test chose (None: nobody can);
        #: codes not yet exchanged, with the redirect_uri each was issued for; access
        #: tokens given; and every code exchanged, in order.
        self.client_secret = "fake-client-secret"
        self.next_sign_in: FakeUser | None = None
        self._codes: dict[str, tuple[FakeUser, str | None]] = {}
        self._access: dict[str, FakeUser] = {}
        self.exchanged: list[str] = []

    # === life cycle ========================================================================
    async def start(self) -> None:
        # Room for every file a message may carry: the limits are Discord's, checked below.
        app = web.Application(
            client_max_size=(rules.LIMITS["attachments"].most + 1) * rules.MAX_UPLOAD_BYTES
        )
        app.router.add_get(GATEWAY_PATH, self._gateway)
        app.router.add_get(AUTHORIZE_PATH, self._authorize)
        message = "/webhooks/{app}/{token}/messages/{message}"
        routes: list[tuple[str, str, Handler]] = [
            ("GET", "/gateway", self._get_gateway),
            ("GET", "/gateway/bot", self._get_gateway),
            ("GET", "/users/@me", self._get_me),
            ("GET", "/users/@me/guilds", self._get_my_guilds),
            ("POST", "/oauth2/token", self._token),
            ("POST", "/users/@me/channels", self._open_dm),
            ("GET", "/users/{user}", self._get_user),
            ("GET", "/oauth2/applications/@me", self._get_application),
            ("GET", "/applications/{app}/commands", self._get_commands),
            ("PUT", "/applications/{app}/commands", self._put_commands),
            ("PUT", "/applications/{app}/guilds/{guild}/commands", self._put_commands),
            ("POST", "/interactions/{id}/{token}/callback", self._callback),
            ("POST", "/webhooks/{app}/{token}", self._followup),
            *((method, message, self._webhook_message) for method in ("GET", "PATCH", "DELETE")),
            ("GET", "/channels/{channel}", self._get_channel),
            ("POST", "/channels/{channel}/messages", self._channel_message),
            ("PATCH", "/channels/{channel}/messages/{message}", self._edit_channel_message),
            ("POST", "/channels/{channel}/threads", self._thread),
            ("POST", "/channels/{channel}/messages/{message}/threads", self._thread),
        ]
        for method, path, handler in routes:
            app.router.add_route(method, API + path, self._wrap(handler))
        app.router.add_route("*", "/{tail:.*}", self._wrap(self._unknown_route))
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.port = int(self._runner.addresses[0][1])

    async def close(self) -> None:
        for session in self.sessions:
            await session.socket.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{API}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}{GATEWAY_PATH}"

    def now(self) -> float:
        """The fake's clock, which Discord's deadlines are read on: `time.perf_counter()`
        plus the time a test skipped with `advance`."""
        return time.perf_counter() + self._skipped

    def advance(self, seconds: float) -> None:
        """Move the clock on by `seconds` at once, as if they had passed: a test of a
        deadline (3 s to answer, 15 minutes of a token) need not wait for it."""
        if seconds < 0:
            raise ValueError(f"the clock does not go back ({seconds} s)")
        self._skipped += seconds

    def new_id(self) -> int:
        return next(self._ids)

    def _guild_id_on(self, shard_id: int) -> int:
        """The next id that falls on `shard_id`: ids move with time in their upper bits,
        so one is skipped to instead of drawn."""
        candidate = self.new_id()
        skip = (shard_id - self.shard_of(candidate)) % self.shard_count
        if skip:
            candidate = ((candidate >> 22) + skip) << 22
            self._ids = itertools.count(candidate + 1)
        return candidate

    def shard_of(self, guild_id: int) -> int:
        """The shard whose connections receive `guild_id`'s events, by Discord's rule."""
        return (guild_id >> 22) % self.shard_count

    def user(
        self,
        name: str,
        *,
        bot: bool = False,
        permissions: int = MEMBER_PERMISSIONS,
        locale: str = "en-US",
    ) -> FakeUser:
        """A new member of every guild, whose client speaks `locale`."""
        user = FakeUser(self.new_id(), name, bot, permissions, locale)
        self.users[user.id] = user
        return user

    def text_channel(
        self, name: str, guild_id: int | None = None, *, kind: int = rules.TEXT
    ) -> int:
        """A new text channel in `guild_id` (by default the first guild). GUILD_CREATE lists
        the channels made before the bot connects; interactions carry their channel in
        full, so later ones work too."""
        guild = self.guild_id if guild_id is None else guild_id
        if guild not in self.guild_ids:
            raise AssertionError(f"{guild} is not a guild of this Discord: {self.guild_ids}")
        channel_id = self.new_id()
        self.channels[channel_id] = {
            "id": str(channel_id),
            "type": kind,
            "guild_id": str(guild),
            "name": name,
            "position": sum(c.get("guild_id") == str(guild) for c in self.channels.values()),
        }
        return channel_id

    def guild_of(self, channel_id: int | None = None) -> int | None:
        """The guild of a channel or thread (by default `channel_id`); None for a direct
        message channel."""
        channel = self.channels[channel_id or self.channel_id]
        return int(channel["guild_id"]) if "guild_id" in channel else None

    @property
    def session(self) -> Session:
        """The newest connection still open, whatever its shard: the one interactions go
        to when there is a single shard."""
        for session in reversed(self.sessions):
            if not session.socket.closed:
                return session
        raise AssertionError("no bot is connected to the gateway")

    def session_for(self, guild_id: int | None) -> Session:
        """The connection `guild_id`'s events go to: the newest one still open on the shard
        that owns the guild; shard 0 for what happens outside guilds (direct messages)."""
        shard_id = 0 if guild_id is None else self.shard_of(guild_id)
        for session in reversed(self.sessions):
            if not session.socket.closed and session.shard_id == shard_id:
                return session
        raise AssertionError(f"no bot is connected to the gateway as shard {shard_id}")

    async def wait_until(self, ready: Callable[[], bool], *, within: float, what: str) -> None:
        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(ready), within)
            except TimeoutError:
                raise AssertionError(f"waited {within}s in vain for {what}") from None

    async def caught_up(
        self, sessions: list[Session] | None = None, *, within: float = WAIT
    ) -> None:
        """Return once each connection (by default every one open) has read all that was
        sent on it so far: asked for a heartbeat (op 1), discord.py answers with the
        newest event it has read, having handled every event before it."""
        asked = self.sessions if sessions is None else sessions
        sent = [(s, s.sequence) for s in asked if not s.socket.closed]
        for session, _ in sent:
            await session.socket.send_str(json.dumps({"op": Op.HEARTBEAT, "d": None}))

        def read() -> bool:
            return all(s.heard is not None and s.heard >= last for s, last in sent)

        await self.wait_until(read, within=within, what="the bots to read what was sent")

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    # === what users do =====================================================================
    async def dispatch(self, payload: Json) -> Exchange:
        """Dispatch an interaction without waiting for the bot; its exchange fills in as
        the bot answers. It goes to the shard of the interaction's guild."""
        guild = payload.get("guild_id")
        exchange = Exchange(self, payload, sent_at=self.now())
        try:
            session = self.session_for(None if guild is None else int(guild))
        except AssertionError:
            if not self.lose_unrouted:
                raise
            return exchange  # as on Discord: nobody answers, the user sees it fail
        self._exchanges[exchange.token] = exchange
        try:
            await session.dispatch("INTERACTION_CREATE", payload)
        except ConnectionResetError:
            # The connection is going away (its bot was killed) but is not closed yet.
            if not self.lose_unrouted:
                raise
        return exchange

    async def interact(self, payload: Json, *, within: float = WAIT) -> Exchange:
        """Dispatch an interaction and wait for the bot's callback; the exchange says what
        the bot answered and how long it took."""
        return await self._answered(await self.dispatch(payload), within)

    async def _answered(self, exchange: Exchange, within: float) -> Exchange:
        try:
            await asyncio.wait_for(exchange.answered.wait(), within)
        except TimeoutError:
            data = exchange.payload["data"]
            raise AssertionError(f"no answer to {data} within {within}s") from None
        if exchange.callback is None:
            raise AssertionError(f"Discord refused the bot's answer: {exchange.refusals}")
        return exchange

    async def slash(
        self,
        user: FakeUser,
        command: str,
        /,
        *,
        channel_id: int | None = None,
        within: float = WAIT,
        **options: Any,
    ) -> Exchange:
        """`/command option:value…`; "admin start" names a subcommand."""
        exchange = await self.dispatch_slash(user, command, channel_id=channel_id, **options)
        return await self._answered(exchange, within)

    async def dispatch_slash(
        self, user: FakeUser, command: str, /, *, channel_id: int | None = None, **options: Any
    ) -> Exchange:
        """`slash` without waiting for the answer."""
        data = self._command_data(command, options, focused=None, channel_id=channel_id)
        payload = self._interaction(InteractionType.APPLICATION_COMMAND, user, data, channel_id)
        return await self.dispatch(payload)

    async def dispatch_autocomplete(
        self,
        user: FakeUser,
        command: str,
        focused: str,
        /,
        *,
        channel_id: int | None = None,
        **options: Any,
    ) -> Exchange:
        """`autocomplete` without waiting for the answer."""
        data = self._command_data(command, options, focused=focused, channel_id=channel_id)
        payload = self._interaction(InteractionType.AUTOCOMPLETE, user, data, channel_id)
        return await self.dispatch(payload)

    async def autocomplete(
        self,
        user: FakeUser,
        command: str,
        focused: str,
        /,
        *,
        channel_id: int | None = None,
        within: float = WAIT,
        **options: Any,
    ) -> Exchange:
        """The user is typing `options[focused]` into the option `focused`."""
        exchange = await self.dispatch_autocomplete(
            user, command, focused, channel_id=channel_id, **options
        )
        return await self._answered(exchange, within)

    async def click(
        self,
        user: FakeUser,
        message: Message,
        *,
        label: str | None = None,
        prefix: str | None = None,
        custom_id: str | None = None,
        within: float = WAIT,
    ) -> Exchange:
        """Press a button of `message` as the user saw it (an old snapshot makes a stale or
        a double click)."""
        button = message.find(label=label, prefix=prefix, custom_id=custom_id)
        if button["type"] != 2 or button.get("disabled"):
            raise AssertionError(f"{button} cannot be pressed")
        data = {"custom_id": button["custom_id"], "component_type": 2}
        return await self.interact(self._component(user, message, data), within=within)

    async def choose(
        self, user: FakeUser, message: Message, custom_id: str, values: list[str]
    ) -> Exchange:
        """Pick `values` in a string select of `message`."""
        select = message.find(custom_id=custom_id)
        if select["type"] != 3 or not set(values) <= {o["value"] for o in select["options"]}:
            raise AssertionError(f"{values} cannot be chosen in {select}")
        data = {"custom_id": custom_id, "component_type": 3, "values": values}
        return await self.interact(self._component(user, message, data))

    def message(self, message_id: int) -> Message:
        if message_id not in self.messages:
            raise AssertionError(f"message {message_id} does not exist (deleted?)")
        payload = copy.deepcopy(self.messages[message_id])
        return Message(payload, self._uploads[message_id], self._pinged.get(message_id, ()))

    def channel_messages(self, channel_id: int | None = None) -> list[Message]:
        """Messages now in a channel, oldest first, ephemeral ones included."""
        wanted = str(channel_id or self.channel_id)
        return [self.message(i) for i, m in self.messages.items() if m["channel_id"] == wanted]

    # === gateway and interaction payloads ==================================================
    def _interaction(
        self, kind: InteractionType, user: FakeUser, data: Json, channel_id: int | None
    ) -> Json:
        """An interaction in a channel: in a guild it carries the guild and the user as its
        member; in a direct message channel, the user alone."""
        interaction_id = self.new_id()
        channel = {**self.channels[channel_id or self.channel_id]}
        payload: Json = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": int(kind),
            "data": data,
            "channel_id": channel["id"],
            "channel": channel,
            "token": f"interaction-token-{interaction_id}",
            "version": 1,
            "app_permissions": str(self.bot_permissions_in(int(channel["id"]))),
            "locale": user.locale,
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if "guild_id" in channel:
            channel["permissions"] = str(user.permissions)
            payload |= {"guild_id": channel["guild_id"], "member": user.member(), "context": 0}
        else:
            payload |= {"user": user.payload(), "context": 1}
        return payload

    def _component(self, user: FakeUser, message: Message, data: Json) -> Json:
        if message.ephemeral:
            recipient = int(message.payload["interaction_metadata"]["user"]["id"])
            if recipient != user.id:
                raise AssertionError(f"{user.name} cannot see another user's ephemeral message")
        payload = self._interaction(InteractionType.COMPONENT, user, data, message.channel_id)
        payload["message"] = message.payload
        return payload

    def _command_data(
        self,
        command: str,
        options: dict[str, Any],
        focused: str | None,
        *,
        channel_id: int | None = None,
    ) -> Json:
        """Interaction data for a command synced globally or to the guild of `channel_id`
        (by default `self.channel_id`), typed by its synced schema as the Discord client
        would send it."""
        top, *path = command.split()
        guild = self.guild_of(channel_id)
        here = self.guild_commands.get(guild, []) if guild is not None else []
        synced = here + (self.global_commands or [])
        schema = next((c for c in synced if c["name"] == top and c.get("type", 1) == 1), None)
        if schema is None:
            raise AssertionError(f"/{top} was not synced")
        data: Json = {"id": schema["id"], "name": top, "type": 1}
        if "guild_id" in schema:
            data["guild_id"] = schema["guild_id"]
        holder, level = data, schema
        for name in path:
            subcommands = [o for o in level.get("options", []) if o["type"] <= 2]
            level = next((o for o in subcommands if o["name"] == name), {})
            if not level:
                raise AssertionError(f"/{command}: no subcommand {name}")
            nested: Json = {"name": name, "type": level["type"]}
            holder["options"] = [nested]
            holder = nested
        schemas = {o["name"]: o for o in level.get("options", [])}
        if unknown := set(options) - set(schemas):
            raise AssertionError(f"/{command} has no option {sorted(unknown)}")
        missing = [n for n, o in schemas.items() if o.get("required") and n not in options]
        if missing and focused is None:
            raise AssertionError(f"/{command} needs {missing}")
        resolved: Json = {"users": {}, "members": {}}
        holder["options"] = [
            _option(schemas[name], value, resolved, focused == name)
            for name, value in options.items()
        ]
        if resolved["users"]:
            data["resolved"] = resolved if guild is not None else {"users": resolved["users"]}
        return data

    def _ready(self, session_id: str, shard: list[int] | None = None) -> Json:
        """READY for a connection: the guilds of its shard, still unavailable; `shard` is
        echoed when the IDENTIFY named one."""
        shard_id = shard[0] if shard is not None else 0
        guilds = [g for g in self.guild_ids if self.shard_of(g) == shard_id]
        ready: Json = {
            "v": 10,
            "user": {**self.bot_user.payload(), "bot": True, "verified": True},
            "guilds": [{"id": str(g), "unavailable": True} for g in guilds],
            "session_id": session_id,
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
        }
        if shard is not None:
            ready["shard"] = list(shard)
        return ready

    def _guild(self, guild_id: int | None = None) -> Json:
        """GUILD_CREATE's guild (by default the first), with its channels and threads."""
        guild = self.guild_id if guild_id is None else guild_id
        number = self.guild_ids.index(guild) + 1
        everyone = {"id": str(guild), "name": "@everyone", "position": 0}
        channels = [c for c in self.channels.values() if c.get("guild_id") == str(guild)]
        return {
            "id": str(guild),
            "name": "Hilltop test server" + (f" {number}" if number > 1 else ""),
            "owner_id": str(self.owner.id),
            "unavailable": False,
            "member_count": len(self.users),
            "roles": [{**everyone, "permissions": str(MEMBER_PERMISSIONS)}],
            "channels": [c for c in channels if c["type"] not in rules.THREADS],
            "threads": [c for c in channels if c["type"] in rules.THREADS],
            "members": [self.bot_user.member()],
        }

    # === messages ==========================================================================
    def _new_message(
        self,
        channel_id: int,
        body: Json,
        uploads: tuple[Upload, ...],
        *,
        exchange: Exchange | None,
        loading: bool = False,
    ) -> Json:
        flags = int(body.get("flags") or 0)
        if flags & ~SENDABLE_FLAGS or (exchange is None and flags & EPHEMERAL):
            raise _invalid("flags", "MESSAGE_FLAGS_INVALID")
        if not loading:
            _check_message(body, uploads, new=True)
        message_id = self.new_id()
        message: Json = {
            "id": str(message_id),
            "type": 0,
            "channel_id": str(channel_id),
            "author": {**self.bot_user.payload(), "bot": True},
            "content": "",
            "embeds": [],
            "components": [],
            "attachments": [],
            "mentions": [],
            "flags": flags | (LOADING if loading else 0),
            "timestamp": _now(),
        }
        if exchange is not None:
            message["webhook_id"] = message["application_id"] = str(self.application_id)
            message["interaction_metadata"] = {
                "id": str(exchange.id),
                "type": int(exchange.type),
                "user": exchange.user,
            }
        self.messages[message_id] = message
        self._uploads[message_id] = ()
        self._apply(message_id, body, uploads)
        if not message["flags"] & (EPHEMERAL | LOADING | SUPPRESS_NOTIFICATIONS):
            self._pinged[message_id] = tuple(self._mentioned(message, body))
        return message

    def _edit_message(self, message_id: int, body: Json, uploads: tuple[Upload, ...]) -> Json:
        _check_message(body, uploads, new=False)
        self._apply(message_id, body, uploads)
        self.messages[message_id]["edited_timestamp"] = _now()
        return self.messages[message_id]

    def _fill(self, message_id: int, body: Json, uploads: tuple[Upload, ...]) -> Json:
        """The first followup after a deferred reply replaces its "thinking…" message, which
        keeps the deferral's visibility; being an edit, it pings nobody."""
        _check_message(body, uploads, new=True)
        message = self.messages[message_id]
        message["flags"] &= ~LOADING
        self._apply(message_id, {k: v for k, v in body.items() if k != "flags"}, uploads)
        return message

    def _apply(self, message_id: int, body: Json, uploads: tuple[Upload, ...]) -> None:
        message = self.messages[message_id]
        for key, empty in (("content", ""), ("embeds", []), ("components", [])):
            if key in body:
                message[key] = body[key] if body[key] is not None else empty
        mentioned = self._mentioned(message, body)
        message["mentions"] = [self.users[u].payload() for u in mentioned if u in self.users]
        # Attachments and their uploads are kept in step, one upload per attachment.
        pairs = list(zip(message["attachments"], self._uploads[message_id], strict=True))
        if "attachments" in body:
            wanted = {str(a.get("id")) for a in body["attachments"] or []}
            pairs = [(a, u) for a, u in pairs if a["id"] in wanted]
        pairs += [(self._attachment(u), u) for u in uploads]
        message["attachments"] = [a for a, _ in pairs]
        self._uploads[message_id] = tuple(u for _, u in pairs)

    def _attachment(self, upload: Upload) -> Json:
        attachment_id = self.new_id()
        url = f"http://127.0.0.1:{self.port}/attachments/{attachment_id}/{upload.filename}"
        return {
            "id": str(attachment_id),
            "filename": upload.filename,
            "size": upload.size,
            "url": url,
            "proxy_url": url,
            "content_type": upload.content_type,
        }

    def _mentioned(self, message: Json, body: Json) -> list[int]:
        """Users mentioned in the content whom allowed_mentions lets Discord ping."""
        ids = [int(m) for m in USER_MENTION.findall(message["content"])]
        allowed = body.get("allowed_mentions")
        if allowed is not None and "users" not in allowed.get("parse", []):
            ids = [i for i in ids if str(i) in {str(u) for u in allowed.get("users", [])}]
        return list(dict.fromkeys(ids))

    # === REST ==============================================================================
    def _wrap(self, handler: Handler) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """Record the request, check its token, answer a refusal as Discord does."""

        async def serve(request: web.Request) -> web.StreamResponse:
            try:
                body, uploads = await _read_body(request, keep=self.keep_uploads)
            except ConnectionResetError:
                # The client went away in the middle of its request (a bot stopped while
                # uploading): Discord never sees such a request, and nobody reads the answer.
                self.dropped += 1
                await self._notify()
                return web.Response(status=400)
            path = request.path.removeprefix(API)
            arrived = self.now()
            call = Call(request.method, path, dict(request.query), body, uploads, arrived)
            self.calls.append(call)
            # Interaction callbacks and webhooks are authorised by the token in their path.
            # OAuth2: the token endpoint by the application's secret in the form, a user's
            # own requests by their access token (`_bearer`).
            public = path.startswith(("/interactions/", "/webhooks/")) or path == "/gateway"
            public = public or path == "/oauth2/token" or _bearer(request) is not None
            try:
                if not public and request.headers.get(hdrs.AUTHORIZATION) != f"Bot {self.token}":
                    raise Rejected(401, 0, "401: Unauthorized")
                response = await handler(request, call)
            except Rejected as exc:
                self.rejections.append((call, exc.message))
                response = _json(exc.body(), exc.status)
            call.status = response.status
            await self._notify()
            return response

        return serve

    async def _unknown_route(self, request: web.Request, call: Call) -> web.StreamResponse:
        raise Rejected(404, 0, f"404: Not Found ({call.method} {call.path})")

    async def _get_gateway(self, request: web.Request, call: Call) -> web.StreamResponse:
        if call.path == "/gateway":
            return _json({"url": self.gateway_url})
        # Every shard may IDENTIFY in the same 5 s window.
        limit = {
            "total": 1000,
            "remaining": 1000,
            "reset_after": 0,
            "max_concurrency": self.shard_count,
        }
        return _json(
            {"url": self.gateway_url, "shards": self.shard_count, "session_start_limit": limit}
        )

    async def _get_me(self, request: web.Request, call: Call) -> web.StreamResponse:
        if _bearer(request) is not None:
            return _json({**self._signed_in(request).payload(), "global_name": None})
        return _json({**self.bot_user.payload(), "bot": True, "verified": True})

    # === OAuth2 ============================================================================
    @property
    def client_id(self) -> str:
        """The application's OAuth2 client id (its id, as on Discord)."""
        return str(self.application_id)

    @property
    def authorize_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{AUTHORIZE_PATH}"

    def issue_code(self, user: FakeUser, *, redirect_uri: str | None = None) -> str:
        """A new OAuth2 code for `user`, good for one exchange: what Discord's client
        hands an Activity on AUTHORIZE (no `redirect_uri`), or its authorize page sends
        a browser back with (exchanged only with the same `redirect_uri`)."""
        code = f"code-{self.new_id()}"
        self._codes[code] = (user, redirect_uri)
        return code

    def user_of(self, access_token: str) -> FakeUser | None:
        """Whose access token this is (None: no token this Discord gave)."""
        return self._access.get(access_token)

    async def _authorize(self, request: web.Request) -> web.StreamResponse:
        """The authorize page, already agreed to: straight back to the `redirect_uri`
        with a code for `next_sign_in`, the user the test has signing in."""
        query = request.query
        redirect_uri = query.get("redirect_uri", "")
        if query.get("client_id") != self.client_id or not redirect_uri.startswith("http"):
            return web.Response(status=400, text="Invalid OAuth2 redirect_uri or client_id")
        if query.get("response_type") != "code" or "identify" not in query.get("scope", ""):
            return web.Response(status=400, text="Invalid OAuth2 response_type or scope")
        if self.next_sign_in is None:
            raise AssertionError("a browser signs in, and the test chose nobody: next_sign_in")
        code = self.issue_code(self.next_sign_in, redirect_uri=redirect_uri)
        back = urllib.parse.urlencode({"code": code, "state": query.get("state", "")})
        raise web.HTTPFound(f"{redirect_uri}?{back}")

    async def _token(self, request: web.Request, call: Call) -> web.StreamResponse:
        """An authorization code exchanged for an access token, once; refused as Discord
        refuses (OAuth2's error bodies, kept in `rejections`)."""
        form = call.json
        if form.get("client_id") != self.client_id or form.get("client_secret") != (
            self.client_secret
        ):
            return self._oauth_refusal(call, 401, "invalid_client", "")
        if form.get("grant_type") != "authorization_code":
            return self._oauth_refusal(call, 400, "unsupported_grant_type", "")
        code = str(form.get("code") or "")
        issued = self._codes.pop(code, None)
        if issued is None:
            return self._oauth_refusal(call, 400, "invalid_grant", 'Invalid "code" in request.')
        user, redirect_uri = issued
        if form.get("redirect_uri") != redirect_uri:
            return self._oauth_refusal(
                call, 400, "invalid_grant", 'Invalid "redirect_uri" in request.'
            )
        self.exchanged.append(code)
        token = f"access-{self.new_id()}"
        self._access[token] = user
        return _json(
            {
                "access_token": token,
                "token_type": "Bearer",
                "expires_in": 604800,
                "refresh_token": f"refresh-{self.new_id()}",
                "scope": "identify guilds",
            }
        )

    def _oauth_refusal(
        self, call: Call, status: int, error: str, description: str
    ) -> web.StreamResponse:
        self.rejections.append((call, f"{status} {error} {description}".strip()))
        body = {"error": error} | ({"error_description": description} if description else {})
        return _json(body, status)

    def _signed_in(self, request: web.Request) -> FakeUser:
        """The user whose access token the request carries."""
        user = self._access.get(_bearer(request) or "")
        if user is None:
            raise Rejected(401, 0, "401: Unauthorized")
        return user

    async def _get_my_guilds(self, request: web.Request, call: Call) -> web.StreamResponse:
        """The guilds of the access token's user (every user is in every guild here), or
        the bot's."""
        if _bearer(request) is not None:
            self._signed_in(request)
        return _json(
            [
                {
                    "id": str(g),
                    "name": self._guild(g)["name"],
                    "icon": None,
                    "owner": False,
                    "permissions": str(MEMBER_PERMISSIONS),
                    "features": [],
                }
                for g in self.guild_ids
            ]
        )

    async def _get_application(self, request: web.Request, call: Call) -> web.StreamResponse:
        flags = EMBEDDED if self.activities else 0
        about = {"description": "", "icon": None, "verify_key": "0" * 64, "flags": flags}
        access = {"bot_public": True, "bot_require_code_grant": False}
        owner = self.owner.payload()
        return _json(
            {"id": str(self.application_id), "name": "hilltop", "owner": owner} | about | access
        )

    async def _put_commands(self, request: web.Request, call: Call) -> web.StreamResponse:
        if int(request.match_info["app"]) != self.application_id:
            raise Rejected(404, 10002, "Unknown Application")
        guild = request.match_info.get("guild")
        if guild is not None and int(guild) not in self.guild_ids:
            raise Rejected(404, 10004, "Unknown Guild")
        _check_commands(call.body)
        given = {"application_id": str(self.application_id)}
        if guild is not None:
            given["guild_id"] = guild
        before = self.global_commands if guild is None else self.guild_commands.get(int(guild))
        before = before or []
        if any(c.get("type") == PRIMARY_ENTRY_POINT for c in before) and not any(
            c.get("type") == PRIMARY_ENTRY_POINT for c in call.body
        ):
            error = ENTRY_POINT_DROPPED
            raise Rejected(error.status, error.code, error.message)
        synced = [{**c, **given, "id": self._command_id(c, before)} for c in call.body]
        if guild is None:
            self.global_commands = synced
        else:
            self.guild_commands[int(guild)] = synced
        return _json(synced)

    def _command_id(self, command: Json, before: list[Json]) -> str:
        """A command keeps its id through an overwrite: the one it names, else that of the
        command of its type and name; a new command gets a new id."""
        ids = {str(c["id"]) for c in before}
        if str(command.get("id")) in ids:
            return str(command["id"])
        key = (command.get("type", 1), command.get("name"))
        same = [c["id"] for c in before if (c.get("type", 1), c.get("name")) == key]
        return str(same[0]) if same else str(self.new_id())

    def _entry_point(self) -> Json:
        """The Entry Point command Discord makes when an application's Activities are
        turned on."""
        return {
            "id": str(self.new_id()),
            "application_id": str(self.application_id),
            "version": str(self.new_id()),
            "default_member_permissions": None,
            "type": PRIMARY_ENTRY_POINT,
            "name": "launch",
            "description": "Launch hilltop",
            "dm_permission": True,
            "contexts": [0, 1, 2],
            "integration_types": [0, 1],
            "nsfw": False,
            "handler": DISCORD_LAUNCH_ACTIVITY,
        }

    async def _get_commands(self, request: web.Request, call: Call) -> web.StreamResponse:
        """The global commands; their localizations only `with_localizations=true`."""
        if int(request.match_info["app"]) != self.application_id:
            raise Rejected(404, 10002, "Unknown Application")
        commands = copy.deepcopy(self.global_commands or [])
        if call.query.get("with_localizations") not in ("true", "True", "1"):
            commands = [_without_localizations(c) for c in commands]
        return _json(commands)

    async def _callback(self, request: web.Request, call: Call) -> web.StreamResponse:
        exchange = self._exchanges.get(request.match_info["token"])
        if exchange is None or exchange.id != int(request.match_info["id"]):
            raise _refused("unknown interaction")
        try:
            response = self._answer(exchange, call)
        except Rejected as exc:
            exchange.refusals.append(f"{exc.code}: {exc.message}")
            raise
        else:
            exchange.callback = call
        finally:
            exchange.answered.set()
        return response

    def _answer(self, exchange: Exchange, call: Call) -> web.StreamResponse:
        if exchange.callback is not None:
            raise _refused("already acknowledged")
        if call.at - exchange.sent_at > self.callback_deadline:
            raise _refused("unknown interaction")
        kind = call.json.get("type")
        if kind not in ALLOWED_CALLBACKS[exchange.type]:
            raise _invalid("type", "INTERACTION_RESPONSE_TYPE_INVALID")
        if kind == CallbackType.LAUNCH_ACTIVITY and not self.activities:
            # Only an application with Activities has one to launch.
            raise _invalid("type", "INTERACTION_RESPONSE_TYPE_INVALID")
        data: Json = dict(call.json.get("data") or {})
        channel_id = int(exchange.payload["channel_id"])
        message: Json | None = None
        if kind == CallbackType.MESSAGE:
            message = self._new_message(channel_id, data, call.uploads, exchange=exchange)
        elif kind == CallbackType.DEFERRED_MESSAGE:
            thinking = {"flags": int(data.get("flags") or 0) & EPHEMERAL}
            message = self._new_message(channel_id, thinking, (), exchange=exchange, loading=True)
            exchange.awaiting_fill = True
        elif kind in (CallbackType.DEFERRED_UPDATE, CallbackType.UPDATE_MESSAGE):
            target = int(exchange.payload["message"]["id"])
            if target not in self.messages:
                raise _refused("unknown message")
            exchange.original_id = target
            if kind == CallbackType.UPDATE_MESSAGE:
                message = self._edit_message(target, data, call.uploads)
        elif kind == CallbackType.AUTOCOMPLETE_RESULT:
            _check_choices(data.get("choices"))
        elif kind == CallbackType.LAUNCH_ACTIVITY:
            self.launches.append(exchange)
        if message is not None:
            exchange.original_id = int(message["id"])
        if kind not in (CallbackType.DEFERRED_MESSAGE, CallbackType.DEFERRED_UPDATE):
            exchange._show(call.at, message)
        if call.query.get("with_response") not in ("1", "true"):
            return web.Response(status=204)
        flags = int(message["flags"]) if message is not None else 0
        interaction: Json = {"id": str(exchange.id), "type": int(exchange.type)}
        interaction["response_message_loading"] = bool(flags & LOADING)
        interaction["response_message_ephemeral"] = bool(flags & EPHEMERAL)
        resource: Json = {"type": kind}
        if message is not None:
            interaction["response_message_id"] = message["id"]
            resource["message"] = message
        if kind == CallbackType.LAUNCH_ACTIVITY:
            instance = f"i-{exchange.id}"
            interaction["activity_instance_id"] = instance
            resource["activity_instance"] = {"id": instance}
        return _json({"interaction": interaction, "resource": resource})

    def _webhook_exchange(self, request: web.Request, call: Call) -> Exchange:
        """The interaction whose token the webhook request carries; usable once answered,
        for as long as the token lives."""
        exchange = self._exchanges.get(request.match_info["token"])
        if int(request.match_info["app"]) != self.application_id or exchange is None:
            raise _refused("unknown webhook")
        if call.at - exchange.sent_at > rules.TOKEN_SECONDS:
            raise _refused("invalid webhook token")
        if exchange.callback is None:
            raise _refused("unknown webhook")
        exchange.calls.append(call)
        return exchange

    async def _followup(self, request: web.Request, call: Call) -> web.StreamResponse:
        exchange = self._webhook_exchange(request, call)
        if exchange.awaiting_fill and exchange.original_id in self.messages:
            exchange.awaiting_fill = False
            message = self._fill(exchange.original_id, call.json, call.uploads)
        else:
            channel_id = int(exchange.payload["channel_id"])
            message = self._new_message(channel_id, call.json, call.uploads, exchange=exchange)
        exchange.followup_ids.append(int(message["id"]))
        exchange._show(call.at, message)
        if call.query.get("wait") in ("1", "true"):
            return _json(message)
        return web.Response(status=204)

    async def _webhook_message(self, request: web.Request, call: Call) -> web.StreamResponse:
        exchange = self._webhook_exchange(request, call)
        name = request.match_info["message"]
        if name == "@original":
            message_id = exchange.original_id
        elif int(name) in exchange.followup_ids:
            message_id = int(name)
        else:
            message_id = None
        if message_id is None or message_id not in self.messages:
            raise _refused("unknown message")
        if call.method == "GET":
            return _json(self.messages[message_id])
        if call.method == "DELETE":
            del self.messages[message_id]
            exchange.awaiting_fill = exchange.awaiting_fill and message_id != exchange.original_id
            return web.Response(status=204)
        if message_id == exchange.original_id and exchange.awaiting_fill:
            exchange.awaiting_fill = False
            edited = self._fill(message_id, call.json, call.uploads)
        else:
            edited = self._edit_message(message_id, call.json, call.uploads)
        exchange._show(call.at, edited)
        return _json(edited)

    def _channel(self, request: web.Request) -> Json:
        channel = self.channels.get(int(request.match_info["channel"]))
        if channel is None:
            raise _refused("unknown channel")
        return channel

    async def _get_channel(self, request: web.Request, call: Call) -> web.StreamResponse:
        return _json(self._channel(request))

    async def _get_user(self, request: web.Request, call: Call) -> web.StreamResponse:
        user = self.users.get(int(request.match_info["user"]))
        if user is None:
            raise Rejected(404, 10013, "Unknown User")
        return _json({**user.payload(), "bot": user.bot})

    async def _open_dm(self, request: web.Request, call: Call) -> web.StreamResponse:
        user = self.users.get(int(call.json.get("recipient_id") or 0))
        if user is None:
            raise Rejected(404, 10013, "Unknown User")
        found = [c for c in self.channels.values() if c.get("recipient_id") == user.id]
        if found:
            return _json(found[0])
        channel_id = self.new_id()
        channel: Json = {
            "id": str(channel_id),
            "type": 1,
            "recipients": [user.payload()],
            "last_message_id": None,
            "recipient_id": user.id,
        }
        self.channels[channel_id] = channel
        return _json(channel)

    def direct_messages(self, user: FakeUser) -> list[Message]:
        """The bot's direct messages to `user`, oldest first."""
        ids = [c["id"] for c in self.channels.values() if c.get("recipient_id") == user.id]
        return [m for i in ids for m in self.channel_messages(int(i))]

    async def _channel_message(self, request: web.Request, call: Call) -> web.StreamResponse:
        channel = self._channel(request)
        if channel.get("recipient_id") in self.closed_dms:
            raise _refused("closed direct messages")
        channel_id = int(channel["id"])
        if "guild_id" in channel:
            thread = channel["type"] in rules.THREADS
            self._need(channel_id, "post in a thread" if thread else "post a message")
            if call.uploads:
                self._need(channel_id, "attach files")
            if thread and channel["thread_metadata"]["archived"]:
                # A message unarchives a thread, unless it was locked by a moderator.
                if channel["thread_metadata"].get("locked"):
                    raise _refused("archived thread")
                channel["thread_metadata"]["archived"] = False
        return _json(self._new_message(channel_id, call.json, call.uploads, exchange=None))

    async def _edit_channel_message(self, request: web.Request, call: Call) -> web.StreamResponse:
        """A bot edits its own message in a channel (an ephemeral one it cannot reach)."""
        channel = self._channel(request)
        message = self.messages.get(int(request.match_info["message"]))
        if (
            message is None
            or message["channel_id"] != channel["id"]
            or message["flags"] & EPHEMERAL
        ):
            raise _refused("unknown message")
        if message["author"]["id"] != str(self.application_id):
            raise _refused("another's message")
        if channel.get("thread_metadata", {}).get("archived"):
            raise _refused("archived thread")
        return _json(self._edit_message(int(message["id"]), call.json, call.uploads))

    def bot_permissions_in(self, channel_id: int) -> int:
        """The bot's permissions in a channel (a thread's are its parent's; in a direct
        message, all it was invited with)."""
        channel = self.channels[channel_id]
        if "guild_id" not in channel:
            return BOT_PERMISSIONS
        if channel["type"] in rules.THREADS:
            channel_id = int(channel["parent_id"])
        return self.bot_permissions.get(channel_id, BOT_PERMISSIONS)

    def deny_bot(self, channel_id: int, *names: str) -> None:
        """Take permissions from the bot in a channel, as a server's admin may."""
        self.bot_permissions[channel_id] = self.bot_permissions_in(channel_id) & ~rules.permissions(
            *names
        )

    def _need(self, channel_id: int, what: str) -> None:
        has = self.bot_permissions_in(channel_id)
        for permission, refusal in rules.NEEDS[what]:
            if not has & rules.PERMISSIONS[permission]:
                raise _refused(refusal)

    def archive(self, thread_id: int, *, locked: bool = False) -> None:
        """A thread archived (after its inactivity, or by a moderator who may lock it)."""
        metadata = self.channels[thread_id]["thread_metadata"]
        metadata["archived"] = True
        metadata["locked"] = locked

    def threads_of(self, channel_id: int) -> list[int]:
        """The threads made in a channel, oldest first."""
        wanted = str(channel_id)
        return [i for i, c in self.channels.items() if c.get("parent_id") == wanted]

    async def _thread(self, request: web.Request, call: Call) -> web.StreamResponse:
        """A thread made in a channel (POST /channels/{channel}/threads), or from one of its
        messages (…/messages/{message}/threads, a public thread, once per message)."""
        parent = self._channel(request)
        if "guild_id" not in parent:
            raise _refused("direct message channel")
        parent_id = int(parent["id"])
        self._need(parent_id, "create a thread")
        from_message = request.match_info.get("message")
        if from_message is not None:
            message = self.messages.get(int(from_message))
            if message is None or message["channel_id"] != parent["id"]:
                raise _refused("unknown message")
            if message.get("thread") is not None:
                raise _refused("thread exists")
        kinds = rules.THREAD_TYPES_IN.get(int(parent["type"]), ())
        default = kinds[0] if kinds else rules.PUBLIC_THREAD
        kind = default if from_message is not None else int(call.json.get("type") or default)
        if kind not in kinds:
            raise _refused("channel type")
        name = str(call.json.get("name") or "")
        _length(name, "thread.name", "name")
        thread_id = self.new_id()
        archiving = int(call.json.get("auto_archive_duration") or 1440)
        thread: Json = {
            "id": str(thread_id),
            "type": kind,
            "guild_id": parent["guild_id"],
            "parent_id": parent["id"],
            "owner_id": str(self.application_id),
            "name": name,
            "message_count": 0,
            "member_count": 1,
            "thread_metadata": {
                "archived": False,
                "locked": False,
                "auto_archive_duration": archiving,
                "archive_timestamp": _now(),
            },
        }
        self.channels[thread_id] = thread
        if from_message is not None:
            self.messages[int(from_message)]["thread"] = thread
        shard = self.shard_of(int(parent["guild_id"]))
        for session in self.sessions:
            if session.shard_id == shard and not session.socket.closed:
                await session.dispatch("THREAD_CREATE", {**thread, "newly_created": True})
        return _json(thread)

    # === gateway ===========================================================================
    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        try:
            hello = {"op": Op.HELLO, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}}
            await socket.send_str(json.dumps(hello))
            async for frame in socket:
                if frame.type is not WSMsgType.TEXT:
                    continue
                packet = json.loads(frame.data)
                if packet["op"] == Op.HEARTBEAT:
                    self.heartbeats += 1
                    for session in self.sessions:
                        if session.socket is socket and isinstance(packet["d"], int):
                            session.heard = packet["d"]
                            await self._notify()
                    await socket.send_str(json.dumps({"op": Op.HEARTBEAT_ACK}))
                elif packet["op"] == Op.IDENTIFY and packet["d"]["token"] != self.token:
                    await socket.close(code=4004, message=b"Authentication failed.")
                elif packet["op"] == Op.IDENTIFY:
                    await self._identify(socket, packet["d"])
                elif packet["op"] == Op.RESUME:
                    await socket.send_str(json.dumps({"op": Op.INVALID_SESSION, "d": False}))
        finally:
            await self._notify()
        return socket

    async def _identify(self, socket: web.WebSocketResponse, identify: Json) -> None:
        """A new session on the shard the IDENTIFY names, if it is one of this Discord's:
        READY with the shard's guilds, then GUILD_CREATE for each."""
        shard = identify.get("shard")
        if shard is None and self.shard_count > 1:
            await socket.close(code=4011, message=b"Sharding required.")
            return
        shard_id, shard_count = shard if shard is not None else (0, 1)
        if shard_count != self.shard_count or not 0 <= shard_id < shard_count:
            await socket.close(code=4010, message=b"Invalid shard.")
            return
        session_id = f"session-{self.new_id()}"
        session = Session(session_id, socket, identify["intents"], 0, shard_id, shard_count)
        self.sessions.append(session)
        ready = self._ready(session.id, shard)
        await session.dispatch("READY", ready)
        for guild in ready["guilds"]:
            await session.dispatch("GUILD_CREATE", self._guild(int(guild["id"])))


# === request bodies and Discord's checks ===================================================
async def _read_body(request: web.Request, *, keep: bool) -> tuple[Any, tuple[Upload, ...]]:
    # Headers are read raw and the body split by hand: aiohttp parses Content-Type with the
    # email package, and a part's Content-Disposition again on every access, escaping each
    # character; under load that cost more than the rest of a request.
    content_type = request.headers.get(hdrs.CONTENT_TYPE, "")
    raw = await request.read()
    if content_type.startswith("application/x-www-form-urlencoded"):
        return dict(urllib.parse.parse_qsl(raw.decode())), ()
    if not content_type.startswith("multipart/form-data"):
        return (json.loads(raw) if raw else None), ()
    boundary = MULTIPART_BOUNDARY.search(content_type)
    body: Any = None
    uploads = []
    parts = raw.split(b"--" + boundary.group(1).encode())[1:] if boundary else []
    for part in parts:
        if part.startswith(b"--"):  # the closing delimiter
            break
        head, _, content = part.partition(b"\r\n\r\n")
        content = content.removesuffix(b"\r\n")
        headers = dict(
            (key.strip().lower(), value.strip())
            for key, _, value in (line.partition(":") for line in head.decode().split("\r\n"))
        )
        disposition = dict(DISPOSITION_PARAMETER.findall(headers.get("content-disposition", "")))
        name = disposition.get("name", "")
        if name == "payload_json":
            body = json.loads(content)
        elif name.startswith("files["):
            index = int(name.removeprefix("files[").removesuffix("]"))
            content_type = headers.get("content-type", "application/octet-stream")
            kept = content if keep else b""
            uploads.append(
                Upload(index, disposition.get("filename", ""), content_type, kept, len(content))
            )
    return body, tuple(uploads)


def _option(schema: Json, value: Any, resolved: Json, focused: bool) -> Json:
    """One option of a command interaction, typed by the option's synced schema."""
    kind = OptionType(schema["type"])
    entry: Json = {"name": schema["name"], "type": int(kind)}
    if focused:
        return entry | {"value": str(value), "focused": True}
    if kind is OptionType.USER:
        if not isinstance(value, FakeUser):
            raise AssertionError(f"{schema['name']} takes a FakeUser")
        member = value.member()
        resolved["users"][str(value.id)] = member.pop("user")
        resolved["members"][str(value.id)] = member
        return entry | {"value": str(value.id)}
    cast = {OptionType.STRING: str, OptionType.INTEGER: int, OptionType.NUMBER: float}
    entry["value"] = bool(value) if kind is OptionType.BOOLEAN else cast[kind](value)
    choices = [c["value"] for c in schema.get("choices") or []]
    if choices and entry["value"] not in choices:
        raise AssertionError(f"{schema['name']} must be one of {choices}")
    return entry


def _without_localizations(entry: Json) -> Json:
    """A command (or option, or choice) as Discord lists it without its localizations."""
    kept = {
        k: v
        for k, v in entry.items()
        if k not in ("name_localizations", "description_localizations")
    }
    for key in ("options", "choices"):
        if isinstance(kept.get(key), list):
            kept[key] = [_without_localizations(o) for o in kept[key]]
    return kept


def _check_commands(commands: Any) -> None:
    if not isinstance(commands, list):
        raise _invalid("", "BASE_TYPE_MAX_LENGTH", **_bounds("commands"))
    _length(commands, "commands", "")
    keys = [(int(c.get("type", 1)), str(c.get("name"))) for c in commands]
    for index, key in enumerate(keys):
        if keys.index(key) != index:
            raise _invalid(f"{index}.name", "APPLICATION_COMMANDS_DUPLICATE_NAME")
    for index, command in enumerate(commands):
        if command.get("type", 1) == 1:
            _check_described(command, f"{index}")
            _check_options(command.get("options") or [], f"{index}.options")


def _check_described(entry: Json, where: str) -> None:
    if not re.match(rules.COMMAND_NAME, str(entry.get("name", ""))):
        raise _invalid(f"{where}.name", "APPLICATION_COMMAND_INVALID_NAME")
    _length(str(entry.get("description") or ""), "command.description", f"{where}.description")


def _check_options(options: list[Json], where: str) -> None:
    _length(options, "command.options", where)
    names = [o.get("name") for o in options]
    optional_seen = False
    for index, option in enumerate(options):
        here = f"{where}.{index}"
        if names.index(option.get("name")) != index:
            raise _invalid(f"{here}.name", "APPLICATION_COMMANDS_DUPLICATE_NAME")
        _check_described(option, here)
        if option.get("type") in (OptionType.SUB_COMMAND, OptionType.SUB_COMMAND_GROUP):
            _check_options(option.get("options") or [], f"{here}.options")
            continue
        if option.get("required") and optional_seen:
            raise _invalid(f"{here}.required", "APPLICATION_COMMAND_OPTIONS_ORDER_INVALID")
        optional_seen = optional_seen or not option.get("required")
        choices = option.get("choices") or []
        _length(choices, "command.choices", f"{here}.choices")
        if choices and option.get("autocomplete"):
            raise _invalid(f"{here}.autocomplete", "BASE_TYPE_CHOICES", choices="false")


def _check_choices(choices: Any) -> None:
    if not isinstance(choices, list):
        raise _invalid("data.choices", "BASE_TYPE_MAX_LENGTH", **_bounds("choices"))
    _length(choices, "choices", "data.choices")
    for index, choice in enumerate(choices):
        here = f"data.choices.{index}"
        _length(str(choice.get("name", "")), "choice.name", f"{here}.name")
        if isinstance(value := choice.get("value"), str):
            _length(value, "choice.value", f"{here}.value")


def _check_message(body: Json, uploads: tuple[Upload, ...], *, new: bool) -> None:
    content = str(body.get("content") or "")
    embeds = body.get("embeds") or []
    components = body.get("components") or []
    _length(content, "content", "content")
    if new and not (content or embeds or components or uploads):
        raise _refused("empty message")
    _length(embeds, "embeds", "embeds")
    for index, embed in enumerate(embeds):
        if embed.get("url") is not None:
            _check_url(embed["url"], "embed.url", f"embeds.{index}.url")
    total = sum(_embed_size(e, f"embeds.{i}") for i, e in enumerate(embeds))
    if total > rules.LIMITS["embeds.characters"].most:
        raise _invalid("embeds", "MAX_EMBED_SIZE_EXCEEDED")
    _length(uploads, "attachments", "files")
    for upload in uploads:
        if upload.size > rules.MAX_UPLOAD_BYTES:
            raise _refused("too large")
    _check_components(components)


def _embed_size(embed: Json, where: str) -> int:
    """The characters Discord counts, once each part is within its own limit."""
    parts = [
        (str(embed.get("title") or ""), "embed.title", f"{where}.title"),
        (str(embed.get("description") or ""), "embed.description", f"{where}.description"),
        (
            str((embed.get("footer") or {}).get("text") or ""),
            "embed.footer.text",
            f"{where}.footer.text",
        ),
        (
            str((embed.get("author") or {}).get("name") or ""),
            "embed.author.name",
            f"{where}.author.name",
        ),
    ]
    fields = embed.get("fields") or []
    _length(fields, "embed.fields", f"{where}.fields")
    for index, entry in enumerate(fields):
        here = f"{where}.fields.{index}"
        parts += [
            (str(entry.get("name") or ""), "embed.field.name", f"{here}.name"),
            (str(entry.get("value") or ""), "embed.field.value", f"{here}.value"),
        ]
    for text, limit, path in parts:
        _length(text, limit, path)
    return sum(len(text) for text, _, _ in parts)


SELECTS = (3, 5, 6, 7, 8)
#: Button styles: a link button opens its url; a premium one shows its SKU, no label.
LINK_BUTTON, PREMIUM_BUTTON = 5, 6


def _check_components(rows: list[Json]) -> None:
    _length(rows, "components", "components")
    seen: set[str] = set()
    for r, row in enumerate(rows):
        items = row.get("components") or []
        where = f"components.{r}.components"
        selects = [c for c in items if c.get("type") in SELECTS]
        _length(items, "row.selects" if selects else "row.buttons", where)
        if selects and len(items) > 1:
            raise _invalid(where, "COMPONENT_LAYOUT_WIDTH_EXCEEDED")
        for i, item in enumerate(items):
            here = f"{where}.{i}"
            if item.get("type") == 2:
                _check_button(item, here)
            else:
                _check_select(item, here)
            if item.get("type") == 2 and item.get("style") == LINK_BUTTON:
                continue  # a link button has a url instead
            custom_id = str(item.get("custom_id") or "")
            _length(custom_id, "custom_id", f"{here}.custom_id")
            # Disabled components count too.
            if custom_id in seen:
                raise _invalid(f"{here}.custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED")
            seen.add(custom_id)


def _check_button(button: Json, here: str) -> None:
    """A button shows a label or an emoji (a premium button shows its SKU instead); a
    link button has a url that Discord can open."""
    label = str(button.get("label") or "")
    _length(label, "button.label", f"{here}.label")
    style = button.get("style")
    if not label and not button.get("emoji") and style != PREMIUM_BUTTON:
        raise _invalid(f"{here}.label", "BASE_TYPE_REQUIRED")
    if style == LINK_BUTTON:
        if button.get("url") is None:
            raise _invalid(f"{here}.url", "BASE_TYPE_REQUIRED")
        _check_url(button["url"], "button.url", f"{here}.url")


def _check_select(select: Json, here: str) -> None:
    """A select's placeholder, a string select's options, and how many of them a user
    must and may pick: at least `min_values`, at most `max_values` (both 1 when left
    out), with min <= max and, in a string select, max no more than its options."""
    placeholder = str(select.get("placeholder") or "")
    _length(placeholder, "select.placeholder", f"{here}.placeholder")
    options = select.get("options") or []
    if select.get("type") == 3:
        _length(options, "select.options", f"{here}.options")
        for o, option in enumerate(options):
            for key in ("label", "value", "description"):
                path = f"{here}.options.{o}.{key}"
                if key != "description" or key in option:
                    _length(str(option.get(key) or ""), f"option.{key}", path)
    least = _number(select.get("min_values"), "select.min_values", f"{here}.min_values")
    most = _number(select.get("max_values"), "select.max_values", f"{here}.max_values")
    if least > most:
        raise _invalid(f"{here}.min_values", "NUMBER_TYPE_MAX", most=most)
    if select.get("type") == 3 and most > len(options):
        raise _invalid(f"{here}.max_values", "NUMBER_TYPE_MAX", most=len(options))


def _number(value: Any, limit: str, path: str) -> int:
    """A count within `rules.LIMITS[limit]` (1 when left out), or Discord's form error."""
    number = 1 if value is None else int(value)
    bounds = rules.LIMITS[limit]
    if number < bounds.least:
        raise _invalid(path, "NUMBER_TYPE_MIN", least=bounds.least)
    if number > bounds.most:
        raise _invalid(path, "NUMBER_TYPE_MAX", most=bounds.most)
    return number


def _check_url(url: Any, limit: str, path: str) -> None:
    """A url within its length, of a scheme Discord takes there (`rules.URL_SCHEMES`),
    and whole: with a host, and no blanks in it. Discord names the scheme as written,
    whatever precedes the first colon (none without one)."""
    text = str(url)
    _length(text, limit, path)
    schemes = rules.URL_SCHEMES[limit]
    scheme, colon, _ = text.partition(":")
    if not colon or scheme.lower() not in schemes:
        named = scheme if colon else ""
        raise _invalid(path, "URL_TYPE_INVALID_SCHEME", scheme=named, schemes=schemes)
    try:
        host = urllib.parse.urlsplit(text).netloc
    except ValueError:
        host = ""
    if not host or any(c.isspace() or not c.isprintable() for c in text):
        raise _invalid(path, "URL_TYPE_INVALID_URL")


def _bounds(limit: str) -> dict[str, int]:
    found = rules.LIMITS[limit]
    return {"least": found.least, "most": found.most}


def _length(value: Any, limit: str, path: str) -> None:
    """`value`'s length within `rules.LIMITS[limit]`, or Discord's form error for it."""
    bounds = rules.LIMITS[limit]
    if bounds.least <= len(value) <= bounds.most:
        return
    code = "BASE_TYPE_MAX_LENGTH" if bounds.least == 0 else "BASE_TYPE_BAD_LENGTH"
    raise _invalid(path, code, **_bounds(limit))


# === discord.py against the fake ===========================================================
@asynccontextmanager
async def serving(**options: Any) -> AsyncIterator[FakeDiscord]:
    """A running fake, with discord.py's REST base and gateway pointed at it meanwhile."""
    fake = FakeDiscord(**options)
    await fake.start()
    saved = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = fake.api_url
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
    try:
        yield fake
    finally:
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved
        await fake.close()


@asynccontextmanager
async def running(
    client: ClientT, fake: FakeDiscord, *, within: float = WAIT
) -> AsyncIterator[ClientT]:
    """`client` logged in (setup_hook run) and connected until it is ready; closed, and its
    connection task finished, however the block ends."""
    # discord.py waits this long after the last GUILD_CREATE before `ready`; the fake sends
    # its guilds straight after READY, so the default 2 s would only slow tests down. On a
    # busy machine a GUILD_CREATE may still be read after `ready`: the client's connections
    # are read to the end (`caught_up`) before the block begins.
    client._connection.guild_ready_timeout = 0.05
    connection: asyncio.Task[None] | None = None
    before = len(fake.sessions)
    try:
        await asyncio.wait_for(client.login(fake.token), within)
        connection = asyncio.create_task(client.connect(reconnect=False))
        ready = asyncio.create_task(client.wait_until_ready())
        await asyncio.wait({connection, ready}, timeout=within, return_when=asyncio.FIRST_COMPLETED)
        if not ready.done():
            ready.cancel()
            if connection.done():
                connection.result()
            raise AssertionError(f"the client was not ready within {within}s")
        await fake.caught_up(fake.sessions[before:], within=within)
        yield client
    finally:
        await asyncio.wait_for(client.close(), within)
        if connection is not None:
            await asyncio.wait_for(connection, within)
