"""A game's record as plain text, like a chess PGN: header lines, then the moves.

    [Game "hokito"]
    [Id "12"]
    [Seed "1234"]
    [Variant "-"]
    [Start "-"]
    [Level "normal"]
    [Seat1 "alice"]
    [Seat2 "bob"]
    [Result "1-0"]
    [Termination "bob (White) resigned."]

    1. Black: b2-b1
    2. White: e5-e3

Each move is its seat and the move in its game's notation (an `undo` line is a
takeback); the seat may be left out where only one seat can make the move. `/game` writes it
for any game anyone may look at; `/play record:` reads it back and starts from any ply,
to continue or to study (a finished game's record, by default, from the last position
where it was still being played). A decision made in secret (Everest's plans) is written
only once it has been revealed. A record saved with a byte-order mark reads the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from data.repository import GameRecord, MoveRecord
from engine.core import Game, GameState, MoveError, NotationError
from engine.text import Text, t
from host import catalog
from host.model import ServiceError
from host.play.live import UNDO, replay, start_state
from host.privacy.names import shown_name
from host.setup import GameSetup

_HEADER = re.compile(r'^\[(?P<key>[A-Za-z0-9]+) "(?P<value>[^"\n]*)"\]$')
_MOVE = re.compile(r"^(?P<number>[0-9]+)\.\s+(?:(?P<seat>[^:]+):\s*)?(?P<text>\S.*)$")
#: A record read back holds at most this many moves.
MAX_RECORD_MOVES = 5000
#: The largest record file read (a long Everest game's record is about 30 KB).
MAX_RECORD_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class ParsedRecord:
    game: Game[Any]
    start: GameState[Any]
    #: (seat, notation) per move, in order.
    moves: tuple[tuple[int, str], ...]


def shown_moves(game: Game[Any], record: GameRecord, moves: list[MoveRecord]) -> list[MoveRecord]:
    """The moves anyone may see: all of them, but for a live game of secret decisions
    those made in the decision still open (Everest's plans of the round in progress)."""
    moves = moves[: record.ply]
    if not record.is_live or not game.secret_decisions or not moves:
        return moves
    reached = replay(start_state(game, record), [(m.seat, m.text) for m in moves])
    shown = len(moves)
    # Walk back over the moves made while several seats decide together, in the
    # decision still open now.
    while shown > 0 and len(reached[shown - 1][0].to_act) > 1:
        before = reached[shown - 1][0]
        if not before.to_act >= reached[-1][0].to_act:
            break
        shown -= 1
    return moves[:shown]


def write_record(
    game: Game[Any],
    record: GameRecord,
    moves: list[MoveRecord],
    ending: tuple[str, str] | None = None,
) -> str:
    """The record of a game, as everyone may see it. `ending` is a finished game's
    Result tag and its Termination (how it ended, in words)."""
    options = record.options
    headers = [
        ("Game", game.id),
        ("Id", str(record.id)),
        ("Seed", str(record.seed) if not record.is_live else "-"),
        ("Variant", record.variant or "-"),
        ("Start", record.start_position or "-"),
        ("Level", str(options.get("level", "-"))),
        *((f"Seat{s.seat + 1}", shown_name(s.user.name).replace('"', "'")) for s in record.seats),
        ("Result", ending[0] if ending else "*"),
    ]
    if ending:
        headers.append(("Termination", ending[1].replace('"', "'").replace("\n", " ")))
    lines = [f'[{key} "{value}"]' for key, value in headers]
    lines.append("")
    shown = shown_moves(game, record, moves)
    lines += [f"{n}. {_move_line(game, m)}" for n, m in enumerate(shown, start=1)]
    if len(shown) < min(record.ply, len(moves)):
        lines.append(str(t("(decisions not revealed yet are left out)")))
    return "\n".join(lines) + "\n"


def _move_line(game: Game[Any], move: MoveRecord) -> str:
    if move.text == UNDO or not 0 <= move.seat < len(game.seat_names):
        return move.text
    return f"{game.seat_names[move.seat]}: {move.text}"


def read_record(text: str) -> ParsedRecord:
    """A record written by `write_record` (or by hand in its form); ServiceError saying
    what is wrong and where."""
    headers: dict[str, str] = {}
    entries: list[tuple[str | None, str]] = []
    # Editors on some systems save UTF-8 with a byte-order mark first: it is no text.
    text = text.removeprefix("\ufeff")
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("("):
            continue
        if line.startswith("["):
            match = _HEADER.match(line)
            if match is None:
                raise ServiceError(
                    t('record line {n}: write a header as [Name "value"].', n=number)
                )
            headers[match["key"]] = match["value"]
            continue
        move = _MOVE.match(line)
        if move is None or int(move["number"]) != len(entries) + 1:
            raise ServiceError(
                t(
                    "record line {n}: expected move {k} as `{k}. <move>`.",
                    n=number,
                    k=len(entries) + 1,
                )
            )
        seat = move["seat"].strip() if move["seat"] else None
        entries.append((seat, move["text"].strip()))
        if len(entries) > MAX_RECORD_MOVES:
            raise ServiceError(t("record: at most {n} moves.", n=MAX_RECORD_MOVES))
    game_id = headers.get("Game", "")
    try:
        game = catalog.listing(game_id).game
    except KeyError:
        raise ServiceError(t('record: the header [Game "…"] names no game of mine.')) from None
    seats = sum(1 for key in headers if re.fullmatch(r"Seat[0-9]+", key))
    start = _start(game, headers, seats)
    moves = tuple(_seated(game, start, entries))
    return ParsedRecord(game, start, moves)


def position_after(
    parsed: ParsedRecord, ply: int | None
) -> tuple[GameState[Any], int, Text | None]:
    """The position a game from the record starts at, and after how many of its moves:
    after `ply` moves, or by default after all of them; but where the record's game is
    over by then, after the last move before its end, with a note saying so (None
    otherwise). A `ply` where the game is over is refused, naming the plies where it is
    still played."""
    count = len(parsed.moves) if ply is None else ply
    if not 0 <= count <= len(parsed.moves):
        raise ServiceError(
            t("ply: the record has {n} moves; choose from 0 to {n}.", n=len(parsed.moves))
        )
    reached = [state for state, _ in replay(parsed.start, parsed.moves)]
    if reached[count].to_act:
        return reached[count], count, None
    playable = [k for k, state in enumerate(reached) if state.to_act]
    if not playable:
        raise ServiceError(t("record: its game is over from its first position."))
    last = playable[-1]
    if ply is not None:
        raise ServiceError(
            t(
                "ply: the record's game is over after move {ply}; choose a ply where it is "
                "still played, at most {last}.",
                ply=ply,
                last=last,
            )
        )
    note = t(
        "The record's game is over after its move {n}, so this game starts at ply {last}, "
        "the last position where it was still played (ply: starts from another).",
        n=count,
        last=last,
    )
    return reached[last], last, note


def _start(game: Game[Any], headers: dict[str, str], seats: int) -> GameState[Any]:
    start = headers.get("Start", "-")
    if start == "-" and headers.get("Seed", "-") == "-":
        raise ServiceError(
            t(
                "record: this game was still being played when its record was written, so "
                "its seed (its dice and hills to come) was secret. Load the record of a "
                "finished game."
            )
        )
    try:
        if start != "-":
            return game.from_text(start)
        seed = int(headers.get("Seed", ""))
        variant = headers.get("Variant", "-")
        return game.new_state(seed, seats, None if variant == "-" else variant)
    except (NotationError, ValueError) as exc:
        raise ServiceError(
            t(
                "record: its start cannot be set up ({why}). A record needs its Seed and "
                "its players, or a Start position.",
                why=str(exc),
            )
        ) from None


def _seated(
    game: Game[Any], start: GameState[Any], entries: list[tuple[str | None, str]]
) -> list[tuple[int, str]]:
    """Each move with the seat that made it: the one named, else the one seat to act
    whose move it can be."""
    names = [name.lower() for name in game.seat_names]
    out: list[tuple[int, str]] = []
    reached = [start]
    for number, (named, text) in enumerate(entries, start=1):
        state = reached[-1]
        if text == UNDO:
            out.append((-1, text))
            if len(reached) > 1:
                reached.pop()
            continue
        if named is not None and named.lower() not in names:
            raise ServiceError(
                t(
                    "record move {n}: {seat} is no seat of {game} ({seats}).",
                    n=number,
                    seat=named,
                    game=game.name,
                    seats=", ".join(game.seat_names),
                )
            )
        seats = [names.index(named.lower())] if named is not None else sorted(state.to_act)
        last: MoveError | None = None
        for seat in seats:
            try:
                move = state.parse_move(seat, text)
            except MoveError as exc:
                last = exc
                continue
            out.append((seat, text))
            reached.append(state.play(seat, move))
            break
        else:
            why = str(last.text) if last is not None else str(t("the game is over"))
            raise ServiceError(t("record move {n} ({move}): {why}", n=number, move=text, why=why))
    return out


def setup_from_record(game: Game[Any], setup: GameSetup) -> tuple[GameSetup, Text | None]:
    """A set-up that gives a record: the same, starting where the record is after its
    chosen ply (`position_after`), which it keeps (the first board says where in the record
    it goes on), with its note."""
    if setup.record is None:
        if setup.ply is not None:
            raise ServiceError(t("ply: give it with a record: to start from."))
        return setup, None
    if setup.position is not None:
        raise ServiceError(t("Give a position or a record, not both."))
    parsed = read_record(setup.record)
    if parsed.game.id != game.id:
        raise ServiceError(
            t(
                "record: it is a game of {theirs}, not of {game}; use game:{id}.",
                theirs=parsed.game.name,
                game=game.name,
                id=parsed.game.id,
            )
        )
    position, moves, note = position_after(parsed, setup.ply)
    return replace(setup, position=position.to_text(), record=None, ply=moves), note
