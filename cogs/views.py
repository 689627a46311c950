"""Components that survive restarts, and turning a service `Reply` into a Discord message.

Every button carries its typed `Payload` in its `custom_id`, and is registered as a
`DynamicItem` whose template has the payload's named fields, so a click on a message
posted before a restart still reaches the service, which refuses it politely if the game
has moved on. A select's options carry whole payloads as their values.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any, Protocol

import discord

from host.face import PATTERN, Choice, Payload, Reply, User, t

BUTTON_PREFIX = "ht:"
SELECT_PREFIX = "hts:"
#: Buttons on one message: five rows of five; picks use four rows, actions the last.
MAX_PICK_BUTTONS = 20
MAX_SELECT_OPTIONS = 25

STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}


class PressHandler(Protocol):
    """The bot, which answers a press of one of these components (`HilltopBot`)."""

    async def handle_press(
        self, interaction: discord.Interaction[Any], payload: Payload
    ) -> None: ...


COLOURS = {"info": 0x5865F2, "turn": 0xE8AA24, "over": 0x2E8C4C, "error": 0xD64034}


class PayloadButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=BUTTON_PREFIX + PATTERN
):
    def __init__(
        self,
        payload: Payload,
        label: str = "…",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        *,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label[:80],
                style=style,
                custom_id=f"{BUTTON_PREFIX}{payload.encode()}"[:100],
                disabled=disabled,
                row=row,
            )
        )
        self.payload = payload

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: Any,
    ) -> PayloadButton:
        return cls(
            Payload.from_fields(
                match["action"], match["game"], match["ply"], match["group"], match["tokens"]
            )
        )

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client: PressHandler = interaction.client
        await client.handle_press(interaction, self.payload)


class PayloadSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]], template=SELECT_PREFIX + r"(?P<key>.+)"
):
    """A select whose option values are whole payloads (used when there are many picks);
    `key` only tells one select from another."""

    def __init__(
        self, key: str, choices: list[Choice] | None = None, placeholder: str = ""
    ) -> None:
        options = [
            discord.SelectOption(label=c.label[:100], value=c.payload.encode()[:100])
            for c in (choices or [])[:MAX_SELECT_OPTIONS]
        ] or [discord.SelectOption(label="…", value="none")]
        super().__init__(
            discord.ui.Select(
                custom_id=f"{SELECT_PREFIX}{key}"[:100],
                placeholder=(placeholder or None) and placeholder[:150],
                options=options,
                row=0,
            )
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: Any,
    ) -> PayloadSelect:
        return cls(match["key"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        if not values:
            return
        try:
            payload = Payload.parse(values[0])
        except ValueError:
            await interaction.response.send_message(
                str(t("That choice is no longer available.")), ephemeral=True
            )
            return
        client: PressHandler = interaction.client
        await client.handle_press(interaction, payload)


class UnknownButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=BUTTON_PREFIX + r"(?!(?:" + PATTERN + r")\Z)(?P<rest>.*)",
):
    """A button of ours that no payload reads: from a version of Hilltop that had other
    buttons, or made up. It is refused privately, so the press does not just fail."""

    def __init__(self, rest: str = "") -> None:
        super().__init__(discord.ui.Button(label="…", custom_id=f"{BUTTON_PREFIX}{rest}"[:100]))

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: Any,
    ) -> UnknownButton:
        return cls(match["rest"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        text = t(
            "That button is not one of mine any more: the message is from an older "
            "version of Hilltop. Use /board to post the game's board again."
        )
        embed = discord.Embed(description=str(text), colour=COLOURS["error"])
        await interaction.response.send_message(embed=embed, ephemeral=True)


def build_view(reply: Reply) -> discord.ui.View | None:
    if not reply.picks and not reply.actions:
        return None
    view = discord.ui.View(timeout=None)
    picks = list(reply.picks)
    action_row = 4
    if len(picks) > MAX_PICK_BUTTONS:
        first = picks[0].payload
        key = f"{first.action}:{first.game_id}:{first.ply}"
        view.add_item(PayloadSelect(key, picks, reply.pick_placeholder))
        action_row = 1
    else:
        for i, choice in enumerate(picks):
            view.add_item(_button(choice, row=i // 5))
        action_row = min(4, (len(picks) + 4) // 5)
    # The actions fill the rows left, five to a row.
    room = (5 - action_row) * 5
    for i, choice in enumerate(reply.actions[:room]):
        view.add_item(_button(choice, row=action_row + i // 5))
    return view


def _button(choice: Choice, row: int) -> PayloadButton:
    return PayloadButton(
        choice.payload, choice.label, STYLES[choice.style], disabled=choice.disabled, row=row
    )


#: Discord's limit on the characters of all the embeds of one message together: titles,
#: descriptions, field names and values, footers and author names.
MAX_EMBEDS_TEXT = 6000
#: Discord's limits on an embed's parts.
MAX_TITLE = 256
MAX_DESCRIPTION = 4096
MAX_FIELDS = 25
MAX_FIELD_NAME = 256
MAX_FIELD_VALUE = 1024
MAX_FOOTER = 2048
#: Pictures in one message besides the board: a message holds ten embeds.
MAX_GALLERY = 9
#: What each gallery caption keeps at least beside a long board, so that the pictures
#: are still told apart; the rest of the room is the board's.
MIN_CAPTION = 40


def cut(text: str, most: int) -> str:
    """`text` within `most` characters; a cut one ends with an ellipsis, so that it does not
    read as whole."""
    if len(text) <= most:
        return text
    if most <= 0:
        return ""
    return text[: most - 1].rstrip() + "…"


def embed_of(reply: Reply, room: int = MAX_EMBEDS_TEXT) -> discord.Embed:
    """The reply as one embed whose text is within `room` characters: its title and its
    text first, then its fields and its footer as far as they fit (a board's fields and
    footer are a few words, so beside the longest text they still do)."""
    title = cut(reply.title, min(MAX_TITLE, room))
    left = room - len(title)
    description = cut(reply.text, min(MAX_DESCRIPTION, left))
    left -= len(description)
    embed = discord.Embed(
        title=title or None,
        description=description or None,
        colour=COLOURS.get(reply.tone, COLOURS["info"]),
        url=reply.url or None,
    )
    for name, value in reply.fields[:MAX_FIELDS]:
        # A field needs a name and a value: one with no room for both is left out.
        name = cut(name, min(MAX_FIELD_NAME, left - 1))
        value = cut(value, min(MAX_FIELD_VALUE, left - len(name)))
        if not name or not value:
            break
        embed.add_field(name=name, value=value, inline=True)
        left -= len(name) + len(value)
    footer = cut(reply.footer, min(MAX_FOOTER, left))
    if footer:
        embed.set_footer(text=footer)
    if reply.image is not None:
        embed.set_image(url=f"attachment://{reply.image_name}")
    return embed


def shares(lengths: Sequence[int], room: int) -> list[int]:
    """How many characters each of texts of `lengths` keeps when together they have
    `room`: the short ones are kept whole, the long ones cut to one length."""
    kept = list(lengths)
    left = max(room, 0)
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    for done, index in enumerate(order):
        kept[index] = min(lengths[index], left // (len(order) - done))
        left -= kept[index]
    return kept


#: Discord's limit on a message's text.
MAX_CONTENT = 2000


def mention_lines(users: Sequence[User], *, prefix: str = "") -> list[str]:
    """`users`' mentions as message texts, each within Discord's limit: as many
    messages as it takes, never one mention cut in two."""
    texts: list[str] = []
    current = prefix
    for user in users:
        mention = f"<@{user.id}>"
        if current != prefix and len(current) + 1 + len(mention) > MAX_CONTENT:
            texts.append(current)
            current = prefix
        current = f"{current} {mention}" if current != prefix else f"{prefix}{mention}"
    if current != prefix:
        texts.append(current)
    return texts


def follower_messages(reply: Reply) -> list[dict[str, Any]]:
    """The messages that ping a post's followers, sent after it."""
    heading = str(t("Following this game:")) + " "
    return [
        {
            "content": text,
            "allowed_mentions": discord.AllowedMentions(everyone=False, roles=False, users=True),
        }
        for text in mention_lines(reply.followers, prefix=heading)
    ]


def message_parts(reply: Reply) -> dict[str, Any]:
    """Keyword arguments shared by send, followup and edit calls. The embeds' text is
    within Discord's limit for the whole message: gallery captions are shortened first,
    the board's own text only where the captions at their shortest leave too little."""
    pings = mention_lines(reply.mentions)
    gallery = reply.gallery[:MAX_GALLERY]
    captions = [cut(caption, MAX_TITLE) for caption, _ in gallery]
    least = sum(min(len(caption), MIN_CAPTION) for caption in captions)
    board = embed_of(reply, MAX_EMBEDS_TEXT - least)
    parts: dict[str, Any] = {
        # The players a post pings are a few; past Discord's limit the rest would be cut.
        "content": pings[0] if pings else None,
        "embed": board,
        "allowed_mentions": discord.AllowedMentions(everyone=False, roles=False, users=True),
    }
    view = build_view(reply)
    if view is not None:
        parts["view"] = view
    if reply.image is not None:
        parts["file"] = discord.File(io.BytesIO(reply.image), filename=reply.image_name)
    elif reply.file is not None:
        name, data = reply.file
        parts["file"] = discord.File(io.BytesIO(data), filename=name)
    if gallery:
        # Up to ten embeds in one message: the pictures first, the board last.
        embeds, files = [], []
        kept = shares([len(c) for c in captions], MAX_EMBEDS_TEXT - len(board))
        for index, ((_, png), caption, most) in enumerate(
            zip(gallery, captions, kept, strict=True), start=1
        ):
            name = f"step{index}.png"
            embeds.append(
                discord.Embed(title=cut(caption, most) or None, colour=COLOURS["info"]).set_image(
                    url=f"attachment://{name}"
                )
            )
            files.append(discord.File(io.BytesIO(png), filename=name))
        parts["embeds"] = [*embeds, parts.pop("embed")]
        parts["files"] = files + ([parts.pop("file")] if "file" in parts else [])
    return parts
