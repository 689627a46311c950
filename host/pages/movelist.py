"""A game's moves as a table beside its board: a column per player and a row per move
number, or per round for games told a round at a time (Everest), where each player's plan
and the choices of the round (a roll-off's pick, healing) share the round's row."""

from __future__ import annotations

from collections.abc import Sequence

from host.pages.views import MoveEntry, MoveLine, MoveRow, MoveTable


class _Row:
    """A row being filled: its number and each column's moves so far."""

    def __init__(self, number: int, columns: int) -> None:
        self.number = number
        self.cells: list[list[MoveEntry]] = [[] for _ in range(columns)]

    def taken(self, column: int) -> bool:
        """Whether a move in `column` belongs in a row after this one (two-player games:
        the column or one to its right holds a move already)."""
        return any(self.cells[c] for c in range(column, len(self.cells)))

    def done(self) -> MoveRow:
        return MoveRow(self.number, tuple(tuple(cell) for cell in self.cells))


def move_table(lines: Sequence[MoveLine], columns: Sequence[str], by_round: bool) -> MoveTable:
    """The table of `lines` (every move everyone may see, in order) under `columns` (the
    players, in seat order). A move taken back stays, struck out and without a position to
    show; the takeback is a row of its own, and the moves after it start a new row."""
    frames = _frames(lines)
    entries: dict[int, MoveEntry] = {}
    stack: list[int] = []
    rows: list[MoveRow | _Row] = []
    row: _Row | None = None
    for line, frame in zip(lines, frames, strict=True):
        if line.undo:
            if stack:
                undone = stack.pop()
                kept = entries[undone]
                entries[undone] = MoveEntry(undone, kept.notation, kept.words, None)
            rows.append(MoveRow(0, (), line.text, line.ply))
            row = None
            continue
        column = line.seat if 0 <= line.seat < len(columns) else 0
        if by_round and line.round is not None:
            fresh = row is None or row.number != line.round
            number = line.round
        else:
            fresh = row is None or row.taken(column)
            number = sum(isinstance(r, _Row) for r in rows) + 1
        if row is None or fresh:
            row = _Row(number, len(columns))
            rows.append(row)
        entries[line.ply] = MoveEntry(line.ply, line.notation, line.text, frame)
        row.cells[column].append(entries[line.ply])
        stack.append(line.ply)
    done = tuple(_settled(r, entries) for r in rows)
    newest = stack[-1] if stack else 0
    return MoveTable(tuple(columns), done, by_round, newest, frames[-1] if frames else 0)


def _frames(lines: Sequence[MoveLine]) -> list[int]:
    """The frame to show for each line: its own, or for a move made in a decision that
    still waited for others, the frame of the move that took the decision."""
    shown = [line.frame for line in lines]
    for i in range(len(lines) - 2, -1, -1):
        if lines[i].waits and not lines[i + 1].undo:
            shown[i] = shown[i + 1]
    return shown


def _settled(row: MoveRow | _Row, entries: dict[int, MoveEntry]) -> MoveRow:
    """A finished row, its moves as they stand at the end (struck out if taken back)."""
    if isinstance(row, MoveRow):
        return row
    cells = tuple(tuple(entries[e.ply] for e in cell) for cell in row.cells)
    return MoveRow(row.number, cells)
