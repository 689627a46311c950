"""Reading what another process writes, always with a deadline: a process that hangs
fails its test within seconds, showing what it wrote until then, instead of holding the
test run until something outside kills it."""

from __future__ import annotations

import queue
import subprocess
import threading
import time
import weakref
from collections.abc import Sequence
from typing import IO, Any

#: How many of the last lines read a failure shows.
SHOWN_LINES = 40
#: The readers of the processes whose standard output a test reads line by line.
_READERS: weakref.WeakKeyDictionary[subprocess.Popen[str], Lines] = weakref.WeakKeyDictionary()


class Lines:
    """The lines of one text stream, read by a thread of their own, so that taking the
    next one can have a deadline (a blocked `readline` has none)."""

    def __init__(self, stream: IO[str], name: str) -> None:
        self.name = name
        #: Every line read so far, taken or not.
        self.seen: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._ended = False
        threading.Thread(
            target=self._pump, args=(stream,), name=f"read {name}", daemon=True
        ).start()

    def _pump(self, stream: IO[str]) -> None:
        try:
            for line in iter(stream.readline, ""):
                self.seen.append(line)
                self._lines.put(line)
        except (OSError, ValueError):  # the stream was closed under the reader
            pass
        finally:
            self._lines.put(None)

    @property
    def shown(self) -> str:
        """What was read, for a failure's message: its last lines."""
        earlier = len(self.seen) - SHOWN_LINES
        return (f"({earlier} earlier lines)\n" if earlier > 0 else "") + "".join(
            self.seen[-SHOWN_LINES:]
        )

    def next(self, timeout: float) -> str | None:
        """The next line, or None once the stream has ended; fails if neither comes
        within `timeout` seconds."""
        try:
            return self._take(time.monotonic() + timeout)
        except queue.Empty:
            raise AssertionError(
                f"{self.name} wrote no new line within {timeout:g} s; it wrote:\n{self.shown}"
            ) from None

    def until(self, text: str, timeout: float) -> list[str]:
        """The lines up to the first that holds `text` (included); fails if the stream
        ends first or that line does not come within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        taken: list[str] = []
        try:
            while (line := self._take(deadline)) is not None:
                taken.append(line)
                if text in line:
                    return taken
        except queue.Empty:
            raise AssertionError(
                f"{self.name} wrote no line with {text!r} within {timeout:g} s; it wrote:\n"
                f"{self.shown}"
            ) from None
        raise AssertionError(f"{self.name} ended before writing {text!r}; it wrote:\n{self.shown}")

    def rest(self, timeout: float) -> str:
        """Everything up to the end of the stream; fails if it does not end within
        `timeout` seconds."""
        deadline = time.monotonic() + timeout
        taken: list[str] = []
        try:
            while (line := self._take(deadline)) is not None:
                taken.append(line)
        except queue.Empty:
            raise AssertionError(
                f"{self.name} did not end within {timeout:g} s; it wrote:\n{self.shown}"
            ) from None
        return "".join(taken)

    def _take(self, deadline: float) -> str | None:
        """The next line, or None once the stream has ended; queue.Empty if neither
        comes by `deadline` (on the monotonic clock)."""
        if self._ended:
            return None
        line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        if line is None:
            self._ended = True
        return line


def output_of(process: subprocess.Popen[str], name: str = "the process") -> Lines:
    """The lines `process` writes to its standard output (a text pipe), one reader per
    process however often this is asked."""
    lines = _READERS.get(process)
    if lines is None:
        assert process.stdout is not None, "the process's output is not a pipe"
        lines = _READERS[process] = Lines(process.stdout, name)
    return lines


def ended(
    process: subprocess.Popen[Any], timeout: float, *, name: str = "", said: Lines | None = None
) -> int:
    """`process`'s exit status once it has ended; if it has not within `timeout` seconds
    it is killed and the test fails, naming it (`name`, else its command) and showing
    what it wrote (`said`)."""
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        named = name or " ".join(map(str, process.args))
        raise AssertionError(
            f"{named} did not end within {timeout:g} s"
            + (f"; it wrote:\n{said.shown}" if said is not None else "")
        ) from None


def run(
    command: Sequence[str], *, timeout: float, input: str = "", **options: Any
) -> subprocess.CompletedProcess[str]:
    """`command` run to its end with `input` on its standard input, its output and errors
    captured as text; fails, with what it wrote, if it does not end within `timeout`
    seconds (it is killed then)."""
    try:
        return subprocess.run(
            command, input=input, capture_output=True, text=True, timeout=timeout, **options
        )
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(
            f"{' '.join(command)} did not end within {timeout:g} s; it wrote:\n"
            f"{_text(exc.stdout)}\nand on its standard error:\n{_text(exc.stderr)}"
        ) from None


def _text(output: str | bytes | None) -> str:
    if isinstance(output, bytes):
        return output.decode(errors="replace")
    return output or ""
