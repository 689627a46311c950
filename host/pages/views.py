"""What each web page shows, as plain values in the reader's language: a front-end lays
them out and links them, and decides nothing about who may see what."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.text import ENGLISH
from host.model import ServiceError

#: Who may see a server's pages.
PUBLIC = "public"
MEMBERS = "members"


class PageNotFoundError(ServiceError):
    """No such page for this visitor: an unknown server, one whose pages are closed, a game
    of another server or of a direct message, a hidden run. All look the same, so that
    nothing is learnt from the answer."""


class SignInNeededError(ServiceError):
    """The server shows its pages to its members only, and the visitor has not signed in."""


@dataclass(frozen=True, slots=True)
class Visitor:
    """Who looks: signed in with Discord (a user id, their name and their servers) or not."""

    user_id: int | None = None
    name: str = ""
    guild_ids: frozenset[int] = frozenset()
    language: str = ENGLISH

    @property
    def signed_in(self) -> bool:
        return self.user_id is not None


@dataclass(frozen=True, slots=True)
class ServerInfo:
    guild_id: int
    name: str
    access: str


@dataclass(frozen=True, slots=True)
class PlayerView:
    seat: int
    user_id: int
    #: The name and the seat's role, as posts say it: `alice (Black)`.
    label: str
    is_bot: bool
    #: The rating shown beside the name ("": none yet, or a computer).
    rating: str
    to_act: bool
    won: bool = False


@dataclass(frozen=True, slots=True)
class MoveLine:
    """One move of the game, as it was told: `alice (Black) played c3-c4.`, and what it set
    off."""

    ply: int
    text: str
    notes: tuple[str, ...] = ()
    #: A takeback: the move before it is undone.
    undo: bool = False
    #: Who moved, and the move in the notation the engines write ("" for a takeback).
    seat: int = 0
    notation: str = ""
    #: The round the move was made in, for games told a round at a time (else None).
    round: int | None = None
    #: The position the move reached (after a takeback: the one it went back to), as the
    #: replay's frames count them.
    frame: int = 0
    #: Made in a decision several seats take together that still waits for others after
    #: it: the position to show for it is the one reached once the decision is taken.
    waits: bool = False


@dataclass(frozen=True, slots=True)
class MoveEntry:
    """One move in a list of moves: its notation, the sentence telling it, and the frame
    of the position to show for it (None: a move taken back, whose position is gone)."""

    ply: int
    notation: str
    words: str
    frame: int | None


@dataclass(frozen=True, slots=True)
class MoveRow:
    """A row of a game's list of moves: a move number (a round's number for games told a
    round at a time) and each column's moves in it; or a takeback, told in `note`."""

    number: int
    cells: tuple[tuple[MoveEntry, ...], ...]
    note: str = ""
    #: The takeback's own move number, when the row is one.
    ply: int = 0


@dataclass(frozen=True, slots=True)
class MoveTable:
    """Every move everyone may see, compactly: a column per player, a row per move
    number (per round in games told a round at a time)."""

    columns: tuple[str, ...] = ()
    rows: tuple[MoveRow, ...] = ()
    by_round: bool = False
    #: The move that reached the position on the board now (0: none).
    newest: int = 0
    #: The frame of the position on the board now.
    frame: int = 0


@dataclass(frozen=True, slots=True)
class GameCard:
    """A game in a list: who plays, whose turn it is or how it ended."""

    id: int
    game: str
    game_name: str
    status: str
    ply: int
    players: tuple[PlayerView, ...]
    #: Who the game waits for, or how it ended.
    state_line: str
    #: When the pending decision runs out (seconds since the epoch), if it does.
    deadline_at: float | None
    updated_at: float
    #: The players' names as the game's texts say them: shown as written, never as markup.
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GameView:
    server: ServerInfo
    card: GameCard
    #: What the game reports of its last move (what it set off).
    latest: tuple[str, ...]
    #: Every move since the start, in words (those everyone may see).
    moves: tuple[MoveLine, ...]
    #: What happens when time runs out, and when.
    clock_lines: tuple[str, ...]
    #: The scores or counts beside the board, as the post shows them.
    fields: tuple[tuple[str, str], ...]
    #: The game's latest board message on Discord: (server, channel, message), if kept.
    message: tuple[int, int, int] | None
    #: The ply of the board shown (the latest everyone may see).
    shown_ply: int
    live: bool
    #: The moves as a table of their notation, beside the board.
    table: MoveTable = field(default_factory=MoveTable)
    #: Who is to move, for the tab's title ("alice to move"; "": nobody).
    to_move: str = ""


@dataclass(frozen=True, slots=True)
class FrameView:
    ply: int
    #: The move that led here, in words ("" at the start).
    text: str


@dataclass(frozen=True, slots=True)
class ReplayView:
    server: ServerInfo
    card: GameCard
    frames: tuple[FrameView, ...]


@dataclass(frozen=True, slots=True)
class ServerView:
    server: ServerInfo
    live: tuple[GameCard, ...]
    recent: tuple[HistoryRow, ...]
    #: The games that have ratings, (id, name), for links to their tables.
    rated_games: tuple[tuple[str, str], ...]
    #: The server's latest tournaments, newest first.
    tournaments: tuple[TournamentLine, ...] = ()


@dataclass(frozen=True, slots=True)
class HistoryRow:
    id: int
    finished_at: float
    game: str
    game_name: str
    players: tuple[tuple[int, str], ...]
    result: str


@dataclass(frozen=True, slots=True)
class HistoryView:
    server: ServerInfo
    rows: tuple[HistoryRow, ...]
    #: The player and the game the list is narrowed to.
    player: tuple[int, str] | None
    game: str | None
    #: Where the pages beside this one start ("<id": older, ">id": newer; None: none).
    newer: str | None
    older: str | None
    games: tuple[tuple[str, str], ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Card:
    """A page that reads as its post does on Discord: a title, lines of text (with the
    same light markup: **bold**, `code`, <t:…:R> times, [links](…)), fields and a footer."""

    server: ServerInfo
    title: str
    text: str
    fields: tuple[tuple[str, str], ...] = ()
    footer: str = ""
    #: The people's names its texts quote: shown as written, never as markup.
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DailyDay:
    day: str
    #: The two runs shown: (run, title, text), the pictures served beside.
    runs: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True, slots=True)
class PanelChoice:
    """One next piece of a move, as a page offers it: its label, the whole of the move
    built so far once it is chosen, and where it is on the picture (left, top, width,
    height in hundredths of the picture's size; None: a button only)."""

    label: str
    step: tuple[str, ...]
    spot: tuple[float, float, float, float] | None = None


@dataclass(frozen=True, slots=True)
class MovePanel:
    """What a player may choose next, on a game's page: the builder of the board's
    buttons on Discord, for the player whose page it is alone."""

    game_id: int
    #: The move the page was drawn at: choices made on it are refused once the game has
    #: moved on without the player.
    ply: int
    prefix: tuple[str, ...]
    #: What was chosen so far, and what happened in the round so far (Everest).
    lines: tuple[str, ...]
    prompt: str
    #: The effect of the move as built so far ("" : nothing to say yet).
    preview: str
    choices: tuple[PanelChoice, ...]
    #: Neighbours of the move on show, to look at one by one (a roll-off's outcomes).
    browse: tuple[PanelChoice, ...]
    #: The confirm button's label, when what is chosen is a whole move (None: not yet).
    confirm: str | None
    #: The move built so far after a step back (None: nothing to go back to).
    back: tuple[str, ...] | None
    #: The picture's size in pixels ((0, 0): the panel was laid out without it).
    size: tuple[int, int]
    #: The player decides in secret: nobody else sees this panel or its picture.
    secret: bool
    #: What is chosen is a whole move that is played as soon as it is chosen, as the
    #: board's buttons play it (games that confirm their moves show `confirm` instead).
    plays_at_once: bool = False
    #: The players' names its lines quote: shown as written, never as markup.
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PlayDone:
    """A move made on a page: the game's move number after it, and the words for it."""

    game_id: int
    ply: int
    text: str


@dataclass(frozen=True, slots=True)
class TournamentLine:
    """A tournament in a list: its name, how it is played, and how far it has come."""

    id: int
    name: str
    #: Its game and format ("Hokito · round robin · 3 rounds").
    what: str
    #: How far it has come, in words ("round 2 of 3", "open for entries", "finished").
    state: str
    #: open, running, finished or ended (by an admin).
    status: str

    @property
    def live(self) -> bool:
        return self.status in ("open", "running")


@dataclass(frozen=True, slots=True)
class StandingLine:
    """One entrant's line of a tournament's standings, its numbers as players write them
    (2½, 1⅔)."""

    rank: int
    name: str
    points: str
    buchholz_cut1: str
    sonneborn_berger: str
    #: Direct encounter ("": it does not apply).
    direct: str
    #: Still in the tournament (not left, removed, or out for not moving).
    playing: bool


@dataclass(frozen=True, slots=True)
class CupLine:
    """One entrant's line of a cup's standings ("" for a run not finished)."""

    rank: int
    name: str
    score: str
    turns: str


@dataclass(frozen=True, slots=True)
class TableLine:
    """One table of a round: who sits at it, in seat order, and its result or its game's
    progress."""

    board: int
    players: tuple[str, ...]
    #: Each seat's points at the table, in seat order ("1–0", "½–½", "1–½–0"; a cup's
    #: run: its score); "" while its game is played.
    result: str
    #: What else there is to say: a bye, a forfeit, a game in play at its move, a game
    #: still being set up.
    note: str
    #: The table's game (None: a bye, or a table decided without one).
    game_id: int | None
    #: Its game is being played.
    live: bool


@dataclass(frozen=True, slots=True)
class RoundLines:
    number: int
    tables: tuple[TableLine, ...]


@dataclass(frozen=True, slots=True)
class TournamentView:
    """A tournament's page: its standings (a cup's runs), a round robin's crosstable and
    every round's tables, the latest first. A table whose game has ended counts as its
    game ended, whether or not the result is recorded yet."""

    server: ServerInfo
    line: TournamentLine
    #: Everyone who entered, in entry order.
    entrants: tuple[str, ...]
    standings: tuple[StandingLine, ...]
    cup: tuple[CupLine, ...]
    #: A round robin's crosstable: row i, column j is what the player of standings line
    #: i scored against the player of line j ("1", "½", "0"; a forfeit "+", "-", "=";
    #: "" for a player against themselves and a pair yet to meet).
    crosstable: tuple[tuple[str, ...], ...]
    rounds: tuple[RoundLines, ...]


@dataclass(frozen=True, slots=True)
class TurnLine:
    """A game waiting for the reader, as their own page lists it."""

    id: int
    game_name: str
    #: The server whose game it is (its pages are ones the reader may see).
    server: ServerInfo
    #: The other players, as a list in the reader's language ("bob and carol").
    opponents: str
    #: The game's move and status, which name its latest board's picture.
    ply: int
    status: str
    #: Since when it has waited for the reader, and the words for it.
    since: float
    since_words: str
    #: When the decision runs out (None: it does not), and the words for it.
    deadline_at: float | None
    deadline_words: str
    #: The words for the board's picture, for those who do not see it.
    board_alt: str
    #: The players' names its words quote: shown as written, never as markup.
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TurnsView:
    """The signed-in reader's games waiting for them, in every server whose pages they may
    see, the soonest to run out first."""

    lines: tuple[TurnLine, ...]
    #: The servers whose pages the reader may see, linked when nothing waits.
    servers: tuple[ServerInfo, ...]
