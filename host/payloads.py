"""What a button carries: one typed value, written into Discord's `custom_id` and read back.

A payload names the game and the ply it was drawn at, so a button keeps working after a
restart and a stale or repeated click is refused. On the wire it is
`action:game:ply:argument` (at most 100 characters with the front-end's prefix); the
argument is the move built so far, as tokens joined by spaces, and for a group of
choices the group's letter before a `|`. `PATTERN` is the one place that layout is read:
the Discord layer uses it as its `DynamicItem` template, with named fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Self


class Action(StrEnum):
    """What a button does. The values are the wire words: buttons already posted carry
    them, so they never change."""

    #: Answer a challenge.
    ACCEPT = "accept"
    DECLINE = "decline"
    #: Ask to resign (a private "are you sure?"), then do it.
    RESIGN = "resign"
    RESIGN_CONFIRMED = "resign!"
    #: A practice game's hint: what the computer would play.
    HINT = "hint"
    #: The legal moves, listed privately.
    MOVES = "moves"
    #: The first part of a move picked on the public board: opens a private panel.
    PICK = "pick"
    #: The next part of a move (or Back) in the private panel, which is edited in place.
    STEP = "step"
    #: "Make my move": opens a private panel at the start of a move.
    OPEN = "open"
    #: Too many choices for one message: a group of them (Mole Hill's columns), in the
    #: panel or, from the public board, opening one.
    GROUP = "group"
    GROUP_OPEN = "group+"
    #: Confirm the move built so far.
    PLAY = "play"
    #: Claim the win when the other player's time ran out.
    CLAIM = "claim"
    #: After a game: the same again, seats moved on.
    REMATCH = "rematch"
    #: Answers to a draw offer or a takeback request (tokens: the asking seat).
    DRAW_ACCEPT = "draw+"
    DRAW_DECLINE = "draw-"
    TAKEBACK_ACCEPT = "undo+"
    TAKEBACK_DECLINE = "undo-"
    #: Follow a game one does not play in (pinged at each move), or stop.
    FOLLOW = "follow"
    UNFOLLOW = "unfollow"
    #: A page of finished games (game: whose, 0 for everyone's; ply: the page; tokens:
    #: the game's id, if one game only), and a game's record as a file.
    HISTORY = "history"
    DOWNLOAD = "download"
    #: A game's replay, stepped through privately (ply: the position to show; tokens:
    #: "open" from the public replay).
    REPLAY = "replay"
    #: A page of a player's games (game: the player's id; ply: the page).
    MY_GAMES = "mine"
    #: A page of the live games in this server (game: whose list it is; ply: the page).
    GAMES_HERE = "here"
    #: A page of a game's rules (tokens: the game's id and the page's number); no game
    #: is played, so the game and ply are 0.
    RULES = "rules"
    #: Open the game's board in the Discord Activity, where it is played by clicking the
    #: board (ply 0: the board opens as the game stands). The Activity is given the
    #: button's custom_id, which names the game.
    LAUNCH = "launch"
    #: Enter a tournament (game: the event's id; ply 0).
    EVENT_JOIN = "join"
    #: A page of a tournament's standings (game: the event's id; ply: the page).
    EVENT_STANDINGS = "table"
    #: Delete everything of a server, confirmed by an admin (game: the server's id; ply:
    #: the minute the confirmation was shown in).
    FORGET_SERVER = "forget!"
    #: Forget everything stored about the person pressing, confirmed (game: their id).
    FORGET_ME = "forget-me!"


#: A payload on the wire; the named groups are the fields of `Payload`. Only the known
#: actions match (the longer words first: `resign!` before `resign`).
PATTERN = (
    "(?P<action>"
    + "|".join(re.escape(a) for a in sorted(Action, key=len, reverse=True))
    + r"):(?P<game>[0-9]{1,19}):(?P<ply>[0-9]{1,9}):"
    + r"(?:(?P<group>[^|:\s]+)\|)?(?P<tokens>[^|]*)"
)
_PAYLOAD = re.compile(PATTERN)


@dataclass(frozen=True, slots=True)
class Payload:
    action: Action
    game_id: int
    #: The ply the button was drawn at: a button from an older board is refused.
    ply: int
    #: The parts of the move chosen so far (the builder's prefix).
    tokens: tuple[str, ...] = ()
    #: For GROUP and GROUP_OPEN: which group of choices to show (a first letter).
    group: str | None = None

    def encode(self) -> str:
        group = f"{self.group}|" if self.group is not None else ""
        return f"{self.action}:{self.game_id}:{self.ply}:{group}{' '.join(self.tokens)}"

    @classmethod
    def parse(cls, text: str) -> Self:
        """The payload written by `encode`; ValueError for anything else."""
        match = _PAYLOAD.fullmatch(text)
        if match is None:
            raise ValueError(f"not a payload: {text!r}")
        return cls.from_fields(
            match["action"], match["game"], match["ply"], match["group"], match["tokens"]
        )

    @classmethod
    def from_fields(cls, action: str, game: str, ply: str, group: str | None, tokens: str) -> Self:
        """A payload from `PATTERN`'s named groups."""
        return cls(Action(action), int(game), int(ply), tuple(tokens.split()), group)
