"""CPU time of a process and of the processes it started, from Linux's /proc."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Fields of /proc/<pid>/stat counted from the one after the command name, which may hold
# spaces and so is skipped by its closing parenthesis: ppid, utime, stime, cutime, cstime.
_PPID, _UTIME, _STIME, _CUTIME, _CSTIME = 1, 11, 12, 13, 14


@dataclass(frozen=True, slots=True)
class CpuTimes:
    """Seconds of CPU (user + system)."""

    own: float
    #: Every descendant: those still running, and those that ended and were waited for.
    children: float

    def __sub__(self, other: CpuTimes) -> CpuTimes:
        return CpuTimes(self.own - other.own, self.children - other.children)

    def __add__(self, other: CpuTimes) -> CpuTimes:
        return CpuTimes(self.own + other.own, self.children + other.children)


def _fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def _ticks(fields: list[str], *indexes: int) -> int:
    return sum(int(fields[i]) for i in indexes)


def cpu_times(pid: int) -> CpuTimes:
    """The CPU `pid` has used so far, and its descendants (worker processes) apart."""
    own = _fields(pid)
    if own is None:
        raise ProcessLookupError(pid)
    stats: dict[int, list[str]] = {}
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (fields := _fields(int(entry.name))) is not None:
            stats[int(entry.name)] = fields
            children.setdefault(int(fields[_PPID]), []).append(int(entry.name))
    descendants = 0
    todo = list(children.get(pid, ()))
    while todo:
        child = todo.pop()
        descendants += _ticks(stats[child], _UTIME, _STIME, _CUTIME, _CSTIME)
        todo += children.get(child, ())
    reaped = _ticks(own, _CUTIME, _CSTIME)
    return CpuTimes(_ticks(own, _UTIME, _STIME) / CLOCK_TICKS, (reaped + descendants) / CLOCK_TICKS)
