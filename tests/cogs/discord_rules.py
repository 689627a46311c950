"""Discord's contract with a bot, as far as Hilltop can meet it: one table of limits and
one of refusals, read by the fake Discord's checks (`tests/cogs/fake_discord.py`), so that
what the fake enforces is written here and nowhere else.

Sources: Discord's developer documentation (Message, Embed limits, Message Components,
Receiving and Responding to interactions, Threads, JSON error codes, Permissions) and its
OpenAPI description (discord/discord-api-spec: the lengths of urls, the bounds of a
select's `min_values` and `max_values`). A breach of a limit is answered as Discord
answers it: 400, code 50035 "Invalid Form Body", with the field's path and the form error
(`FORM_ERRORS`); any other refusal by its own status and code (`ERRORS`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limit:
    """How long (characters) or how many (items) something may be."""

    least: int
    most: int
    what: str


LIMITS: dict[str, Limit] = {
    # --- a message ---------------------------------------------------------------------
    "content": Limit(0, 2000, "characters of a message's content"),
    "embeds": Limit(0, 10, "embeds in a message"),
    "attachments": Limit(0, 10, "files attached to a message"),
    # --- an embed ----------------------------------------------------------------------
    "embed.title": Limit(0, 256, "characters of an embed's title"),
    "embed.description": Limit(0, 4096, "characters of an embed's description"),
    "embed.fields": Limit(0, 25, "fields of an embed"),
    "embed.field.name": Limit(1, 256, "characters of a field's name"),
    "embed.field.value": Limit(1, 1024, "characters of a field's value"),
    "embed.footer.text": Limit(0, 2048, "characters of an embed's footer"),
    "embed.author.name": Limit(0, 256, "characters of an embed's author name"),
    "embeds.characters": Limit(0, 6000, "characters of every embed of a message together"),
    "embed.url": Limit(0, 2048, "characters of an embed's url"),
    # --- components --------------------------------------------------------------------
    "components": Limit(0, 5, "action rows in a message"),
    "row.buttons": Limit(1, 5, "buttons in an action row"),
    "row.selects": Limit(1, 1, "selects in an action row (alone in it)"),
    "custom_id": Limit(1, 100, "characters of a component's custom_id"),
    "button.label": Limit(0, 80, "characters of a button's label"),
    "button.url": Limit(0, 512, "characters of a link button's url"),
    "select.options": Limit(1, 25, "options of a select"),
    "select.placeholder": Limit(0, 150, "characters of a select's placeholder"),
    # Numbers, not lengths: how many options a user must and may pick; besides,
    # min_values <= max_values, and a string select's max_values <= its options.
    "select.min_values": Limit(0, 25, "options a select has its user pick at least"),
    "select.max_values": Limit(1, 25, "options a select lets its user pick at most"),
    "option.label": Limit(1, 100, "characters of a select option's label"),
    "option.value": Limit(1, 100, "characters of a select option's value"),
    "option.description": Limit(0, 100, "characters of a select option's description"),
    # --- autocomplete ------------------------------------------------------------------
    "choices": Limit(0, 25, "choices of an autocomplete answer"),
    "choice.name": Limit(1, 100, "characters of a choice's name"),
    "choice.value": Limit(0, 100, "characters of a choice's string value"),
    # --- threads -----------------------------------------------------------------------
    "thread.name": Limit(1, 100, "characters of a thread's name"),
    # --- application commands ----------------------------------------------------------
    "commands": Limit(0, 100, "commands of one scope"),
    "command.description": Limit(1, 100, "characters of a command's or option's description"),
    "command.options": Limit(0, 25, "options of a command"),
    "command.choices": Limit(0, 25, "fixed choices of an option"),
}

#: Bytes of one attached file in a server without boosts (Discord's interactions say so
#: in `attachment_size_limit`).
MAX_UPLOAD_BYTES = 10 * 1024 * 1024
#: An interaction is forgotten unless its first response comes within this many seconds;
#: a response may come once.
CALLBACK_SECONDS = 3.0
#: An interaction's token lives this long: followups and edits or deletes of its messages
#: (the webhook routes) are refused after it with "invalid webhook token".
TOKEN_SECONDS = 15 * 60.0
#: The schemes a url may have, by the name of its limit; any other is refused with
#: URL_TYPE_INVALID_SCHEME, which names them. A link button may also open Discord's own
#: pages (discord://); an embed's url is a web page.
URL_SCHEMES: dict[str, tuple[str, ...]] = {
    "embed.url": ("http", "https"),
    "button.url": ("http", "https", "discord"),
}
#: Command and option names: 1-32 lowercase letters, digits, - or _.
COMMAND_NAME = r"^[-_a-z0-9]{1,32}$"


@dataclass(frozen=True, slots=True)
class Error:
    status: int
    code: int
    message: str


ERRORS: dict[str, Error] = {
    "unknown channel": Error(404, 10003, "Unknown Channel"),
    "unknown message": Error(404, 10008, "Unknown Message"),
    "unknown webhook": Error(404, 10015, "Unknown Webhook"),
    "unknown interaction": Error(404, 10062, "Unknown interaction"),
    # 401, not 404: the token was good once and has expired.
    "invalid webhook token": Error(401, 50027, "Invalid Webhook Token"),
    "too large": Error(413, 40005, "Request entity too large"),
    "already acknowledged": Error(400, 40060, "Interaction has already been acknowledged."),
    "missing access": Error(403, 50001, "Missing Access"),
    "direct message channel": Error(400, 50003, "Cannot execute action on a DM channel"),
    "another's message": Error(403, 50005, "Cannot edit a message authored by another user"),
    "empty message": Error(400, 50006, "Cannot send an empty message"),
    "closed direct messages": Error(403, 50007, "Cannot send messages to this user"),
    "missing permissions": Error(403, 50013, "Missing Permissions"),
    "channel type": Error(400, 50024, "Cannot execute action on this channel type"),
    "invalid form body": Error(400, 50035, "Invalid Form Body"),
    "archived thread": Error(400, 50083, "Thread is archived"),
    "thread exists": Error(400, 160004, "A thread has already been created for this message"),
}

#: The errors inside a 50035, by their code: what Discord says of the field.
FORM_ERRORS: dict[str, str] = {
    "BASE_TYPE_MAX_LENGTH": "Must be {most} or fewer in length.",
    "BASE_TYPE_BAD_LENGTH": "Must be between {least} and {most} in length.",
    "BASE_TYPE_CHOICES": "Value must be one of {choices}.",
    "BASE_TYPE_REQUIRED": "This field is required",
    "NUMBER_TYPE_MIN": "int value should be greater than or equal to {least}.",
    "NUMBER_TYPE_MAX": "int value should be less than or equal to {most}.",
    "URL_TYPE_INVALID_SCHEME": (
        'Scheme "{scheme}" is not supported. Scheme must be one of {schemes}.'
    ),
    "URL_TYPE_INVALID_URL": "Not a well formed URL.",
    "COMPONENT_CUSTOM_ID_DUPLICATED": "Component custom id cannot be duplicated",
    "COMPONENT_LAYOUT_WIDTH_EXCEEDED": "The specified component exceeds the maximum width",
    "APPLICATION_COMMAND_INVALID_NAME": "Command name is invalid",
    "APPLICATION_COMMANDS_DUPLICATE_NAME": "Application command names must be unique",
    "APPLICATION_COMMAND_OPTIONS_ORDER_INVALID": (
        "Required options must be placed before non-required options"
    ),
    "MAX_EMBED_SIZE_EXCEEDED": "Embed size exceeds maximum size of 6000",
    "MESSAGE_FLAGS_INVALID": "Invalid message flags",
    "INTERACTION_RESPONSE_TYPE_INVALID": "Invalid interaction response type",
}

#: Permission bits, by the names Discord's client shows.
PERMISSIONS: dict[str, int] = {
    "Manage Server": 1 << 5,
    "View Channels": 1 << 10,
    "Send Messages": 1 << 11,
    "Embed Links": 1 << 14,
    "Attach Files": 1 << 15,
    "Read Message History": 1 << 16,
    "Use Application Commands": 1 << 31,
    "Create Public Threads": 1 << 35,
    "Send Messages in Threads": 1 << 38,
}


def permissions(*names: str) -> int:
    bits = 0
    for name in names:
        bits |= PERMISSIONS[name]
    return bits


#: What a route needs of the bot in the channel, and the refusal when it lacks it: a
#: channel it cannot see is "Missing Access", anything else "Missing Permissions".
NEEDS: dict[str, tuple[tuple[str, str], ...]] = {
    "post a message": (
        ("View Channels", "missing access"),
        ("Send Messages", "missing permissions"),
    ),
    "post in a thread": (
        ("View Channels", "missing access"),
        ("Send Messages in Threads", "missing permissions"),
    ),
    "attach files": (("Attach Files", "missing permissions"),),
    "create a thread": (
        ("View Channels", "missing access"),
        ("Create Public Threads", "missing permissions"),
    ),
}

#: Channel types (Discord's numbers), and which hold threads: text and announcement
#: channels do; a public thread is made in a text channel, an announcement thread in an
#: announcement channel.
TEXT, DIRECT_MESSAGE, VOICE, ANNOUNCEMENT = 0, 1, 2, 5
ANNOUNCEMENT_THREAD, PUBLIC_THREAD, PRIVATE_THREAD = 10, 11, 12
THREADS = (ANNOUNCEMENT_THREAD, PUBLIC_THREAD, PRIVATE_THREAD)
THREAD_TYPES_IN: dict[int, tuple[int, ...]] = {
    TEXT: (PUBLIC_THREAD, PRIVATE_THREAD),
    ANNOUNCEMENT: (ANNOUNCEMENT_THREAD,),
}
