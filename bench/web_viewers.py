"""The web's visitors, in a process of their own: the benchmark process also plays Discord
for the bot, and visitors sharing its event loop would slow its answers and its clocks.

    python -m bench.web_viewers

It reads one command as a JSON line on stdin, gets going, prints `{"ready": t}` once every
visitor is under way, and on the line "stop" ends every request and connection and prints
what it saw as one JSON line. Times are `time.perf_counter()` (CLOCK_MONOTONIC, the same
clock in every process of the machine), so that the benchmark can set them against the
moments its fake Discord saw.

- `{"kind": "pages", "base": URL, "paths": [...], "viewers": N, "every": S}`: N visitors,
  each with an aiohttp client of its own, each loading one page after another, visitor i
  starting at path i and going round them all: with no pause, or with `every` > 0 one
  page every S seconds (their starts spread over the first S seconds; a page that takes
  longer is followed at once by the next). Result: `samples`, one
  `[start, seconds, status]` per request (status 0: no response), and `cpu`.
- `{"kind": "streams", "base": URL, "paths": [...]}`: one Server-Sent Events stream per
  path, read by a bare asyncio protocol (a few microseconds per event, so that a thousand
  streams woken at once are timed as they arrive, not as this process gets round to
  them). Ready once every stream has said it is open. Result: `events`, per stream the
  `[ply, t]` of each `event: game` (the ply from its id "<ply>.<status>"); `failed`, the
  streams refused or cut, with why; and `cpu`.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from contextlib import suppress
from typing import Any
from urllib.parse import urlsplit

import aiohttp

#: Connections being opened at once: beyond the server's listen backlog they would wait
#: for the kernel's retransmissions.
OPENING = 64
#: Longest a page may take before it counts as failed.
PAGE_TIMEOUT = 30.0
#: Longest a stream may take to say it is open.
OPEN_TIMEOUT = 60.0


async def _line() -> str:
    return await asyncio.to_thread(sys.stdin.readline)


def _say(value: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(value, separators=(",", ":")) + "\n")
    sys.stdout.flush()


# === pages ===================================================================================
async def pages(base: str, paths: list[str], viewers: int, every: float) -> None:
    samples: list[tuple[float, float, int]] = []
    stop = asyncio.Event()
    started = [asyncio.Event() for _ in range(viewers)]
    begin = time.perf_counter()

    async def viewer(i: int) -> None:
        try:
            await view(i)
        finally:
            started[i].set()  # a visitor that failed does not hold the others up

    async def view(i: int) -> None:
        timeout = aiohttp.ClientTimeout(total=PAGE_TIMEOUT)
        due = begin + every * i / viewers
        async with aiohttp.ClientSession(timeout=timeout) as http:
            k = i
            while not stop.is_set():
                if every > 0:
                    with suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), due - time.perf_counter())
                    if stop.is_set():
                        break
                    due = max(due + every, time.perf_counter())
                url = base + paths[k % len(paths)]
                k += 1
                start = time.perf_counter()
                try:
                    async with http.get(url) as response:
                        await response.read()
                        status = response.status
                except (aiohttp.ClientError, TimeoutError):
                    status = 0
                samples.append((start, time.perf_counter() - start, status))
                started[i].set()

    tasks = [asyncio.create_task(viewer(i)) for i in range(viewers)]
    try:
        await asyncio.gather(*(e.wait() for e in started))
        for task in tasks:
            if task.done():
                task.result()  # a visitor's own error ends the run, told on stderr
        cpu = time.process_time()
        _say({"ready": time.perf_counter()})
        await _line()
        stop.set()
        await asyncio.gather(*tasks)
        _say({"samples": samples, "cpu": time.process_time() - cpu})
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


# === event streams ===========================================================================
class Stream(asyncio.Protocol):
    """One `GET <path>` answered by an event stream: the HTTP head, the chunked body
    decoded as it comes, and each event's ply with the moment its last byte came."""

    def __init__(self, path: str, host: str, port: int) -> None:
        self.path = path
        self.request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n"
            "Cache-Control: no-cache\r\n\r\n"
        ).encode()
        self.transport: asyncio.Transport | None = None
        self.events: list[tuple[int, float]] = []
        self.failure = ""
        #: Set once the stream has said it is open, or has failed.
        self.opened = asyncio.Event()
        self.closed = asyncio.Event()
        #: Closed by this side: the end of the run, not a failure.
        self.stopping = False
        self._raw = bytearray()
        self._head = True
        self._chunked = False
        #: Bytes left of the body's current chunk, and whether its CRLF is still to come.
        self._left = 0
        self._crlf = False
        self._body = bytearray()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.stopping:
            self.fail(f"closed by the server ({exc})" if exc else "closed by the server")
        self.closed.set()

    def fail(self, why: str) -> None:
        if not self.failure:
            self.failure = why
        self.opened.set()
        if self.transport is not None:
            self.transport.close()

    def stop(self) -> None:
        self.stopping = True
        if self.transport is None or self.transport.is_closing():
            self.closed.set()
        else:
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        at = time.perf_counter()
        if self.failure:
            return
        raw = self._raw
        raw += data
        if self._head:
            end = raw.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(raw[:end]).decode("latin-1").lower()
            del raw[: end + 4]
            self._head = False
            status = head.split("\r\n", 1)[0]
            if not status.startswith("http/1.1 200"):
                self.fail(status)
                return
            self._chunked = "transfer-encoding: chunked" in head
        if self._chunked:
            self._dechunk()
        else:
            self._body += raw
            raw.clear()
        self._split(at)

    def _dechunk(self) -> None:
        raw = self._raw
        while raw:
            if self._left:
                take = min(self._left, len(raw))
                self._body += raw[:take]
                del raw[:take]
                self._left -= take
                self._crlf = not self._left
            elif self._crlf:
                if len(raw) < 2:
                    return
                del raw[:2]
                self._crlf = False
            else:
                end = raw.find(b"\r\n")
                if end < 0:
                    return
                size = int(bytes(raw[:end]).split(b";")[0], 16)
                del raw[: end + 2]
                if size == 0:
                    return
                self._left = size

    def _split(self, at: float) -> None:
        body = self._body
        while (end := body.find(b"\n\n")) >= 0:
            event = bytes(body[:end])
            del body[: end + 2]
            if event.startswith(b": open"):
                self.opened.set()
            elif b"\nevent: game" in b"\n" + event:
                for line in event.split(b"\n"):
                    if line.startswith(b"id: "):
                        self.events.append((int(line[4:].split(b".")[0]), at))
                        break


async def streams(base: str, paths: list[str]) -> None:
    loop = asyncio.get_running_loop()
    address = urlsplit(base)
    host, port = address.hostname or "127.0.0.1", address.port or 80
    gate = asyncio.Semaphore(OPENING)
    opened = [Stream(path, host, port) for path in paths]

    async def open_one(stream: Stream) -> None:
        async with gate:
            try:
                await loop.create_connection(lambda: stream, host, port)
            except OSError as exc:
                stream.fail(f"could not connect: {exc}")
                stream.closed.set()
                return
            try:
                await asyncio.wait_for(stream.opened.wait(), OPEN_TIMEOUT)
            except TimeoutError:
                stream.fail(f"not open within {OPEN_TIMEOUT:g} s")

    openers = [asyncio.create_task(open_one(s)) for s in opened]
    try:
        await asyncio.gather(*openers)
        cpu = time.process_time()
        _say({"ready": time.perf_counter()})
        await _line()
        for stream in opened:
            stream.stop()
        await asyncio.gather(*(s.closed.wait() for s in opened))
        _say(
            {
                "events": [s.events for s in opened],
                "paths": [s.path for s in opened],
                "failed": [s.failure for s in opened if s.failure],
                "cpu": time.process_time() - cpu,
            }
        )
    finally:
        for task in openers:
            task.cancel()
        await asyncio.gather(*openers, return_exceptions=True)
        for stream in opened:
            if stream.transport is not None:
                stream.transport.abort()


async def main() -> None:
    command = json.loads(await _line())
    if command["kind"] == "pages":
        await pages(command["base"], command["paths"], command["viewers"], command["every"])
    elif command["kind"] == "streams":
        await streams(command["base"], command["paths"])
    else:
        raise SystemExit(f"unknown command {command['kind']!r}")


if __name__ == "__main__":
    asyncio.run(main())
