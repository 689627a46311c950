"""Values the service exchanges with its front-ends (Discord cogs and the console).

A `Reply` says what to show, not how: the Discord layer turns it into an embed, a
`board.png` attachment and components; the console prints it and saves the image.
Buttons carry a `Payload` (host.payloads) with the game id and the ply, so a button
keeps working after a restart and a stale or repeated click is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from engine.text import Text, t
from host.payloads import Payload

Style = Literal["primary", "secondary", "success", "danger"]


#: Where a table reaches: this server's members, or everyone.
SCOPES = ("server", "global")


@dataclass(frozen=True, slots=True)
class User:
    id: int
    name: str
    is_bot: bool = False
    #: Manage Server on Discord; every console user.
    is_admin: bool = False

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"


@dataclass(frozen=True, slots=True)
class Channel:
    """Where a command was used: a channel or thread, in a server or not."""

    channel_id: int
    guild_id: int | None = None
    name: str = ""


@dataclass(frozen=True, slots=True)
class Direct:
    """A direct message to one person (turns, reminders, followed games); where the
    person takes none, the message goes to `fallback` instead, if there is one."""

    user: User
    fallback: Channel | None = None


#: Where a reply is posted outside any command.
Where = Channel | Direct


@dataclass(frozen=True, slots=True)
class Choice:
    """A button (or select option). `payload` goes back to `GameService.press`."""

    payload: Payload
    label: str
    style: Style = "secondary"
    disabled: bool = False
    emoji: str | None = None


@dataclass(frozen=True, slots=True)
class Suggestion:
    """An autocomplete choice for a typed move: `label` is shown, `value` is sent back.
    The value names the ply it was offered at, so a move sent twice (a double Enter) is
    told apart from a deliberate second move: the second copy finds the game moved on."""

    label: str
    value: str


#: Between a move and the ply it was offered at, in a suggestion's value: `c2-c4 @12`.
OFFERED_AT = " @"


def offered_move(text: str) -> tuple[str, int | None]:
    """(the move, the ply it was offered at) of a typed move; the ply is None when the
    move was typed by hand rather than picked from the suggestions."""
    text = text.strip()
    move, mark, ply = text.rpartition(OFFERED_AT)
    if mark and ply.isascii() and ply.isdigit():
        return move.strip(), int(ply)
    return text, None


@dataclass(frozen=True, slots=True)
class Reply:
    title: str = ""
    text: str = ""
    image: bytes | None = None
    image_name: str = "board.png"
    #: A file attached (its name and bytes): a game's record.
    file: tuple[str, bytes] | None = None
    #: Pictures shown before the board, with captions (the steps of a round).
    gallery: tuple[tuple[str, bytes], ...] = ()
    #: Only the user who acted sees it (errors, private panels, move lists).
    ephemeral: bool = False
    #: Step choices of a move (a select menu when there are many), then action buttons.
    picks: tuple[Choice, ...] = ()
    pick_placeholder: str = ""
    actions: tuple[Choice, ...] = ()
    #: Users to ping: the players the post asks to act (or tells of the end); a few at
    #: most, so the post's text stays within its limits.
    mentions: tuple[User, ...] = ()
    #: Followers of the game to ping in its channel: told by messages of their own after
    #: the post, as many as it takes, never inside the post (there may be hundreds).
    followers: tuple[User, ...] = ()
    #: Followers of the game who take their news by direct message (sent after the post).
    followers_direct: tuple[User, ...] = ()
    #: Replace the message whose component was used, instead of posting a new one.
    edit: bool = False
    #: With `edit`: change only that message's controls (to this reply's), keeping its
    #: text and pictures.
    only_controls: bool = False
    #: The game this message shows with its controls (a board or a challenge): when it is
    #: posted, a front-end may take the controls off the game's message before it.
    game_id: int | None = None
    #: Colour hint for an embed: "info", "turn", "over", "error".
    tone: str = "info"
    footer: str = ""
    fields: tuple[tuple[str, str], ...] = field(default=())
    #: The game's page on the web, where its server opened its pages ("": none).
    url: str = ""
    #: Answer the button pressed by opening the game's page (`url`) in the Discord
    #: Activity instead of posting anything; a front-end that cannot shows the link.
    launch: bool = False
    #: This post tells the game's channel of the game up to this ply (its end too, if it
    #: ended there): once the front-end has posted it, it says so (`delivered`), and the
    #: game's mark of what is untold is cleared up to there.
    told_to: int | None = None
    #: Posted there rather than where the command was used (a tournament's round, in
    #: its channel and its games' threads; a player's own news, as a direct message).
    where: Channel | Direct | None = None
    #: The people's names its texts quote: theirs, not the service's, so a front-end that
    #: reads markup shows them as written.
    names: tuple[str, ...] = ()


#: The most of a player's own text that a refusal repeats back to them.
ECHO_CHARS = 40


def echoed(text: str) -> str:
    """`text` as a refusal repeats it: its first ECHO_CHARS characters and "…" if longer."""
    return text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "…"


class ServiceError(Exception):
    """A user's request was refused; `text` says what was wrong and how to do it right.
    Nothing was changed."""

    def __init__(self, text: Text | str) -> None:
        self.text = text if isinstance(text, Text) else Text(text)
        super().__init__(str(self.text))


def unreachable_database() -> Text:
    """What a person is told when the database cannot be reached (down or restarting)
    in the middle of their command: it may not have gone through, so they look before
    trying again."""
    return t(
        "I cannot reach the game database right now, so your command may not have gone"
        " through. It should be back in a moment: look at the board (/board) then, and try"
        " again if it is not there."
    )


class StaleControlsError(ServiceError):
    """A button from a board or panel the game has left behind was pressed: a front-end
    may mark that message's controls as stale while it refuses."""


class ChannelBusyError(ServiceError):
    """The channel already has a game; a front-end may offer a new thread instead."""
