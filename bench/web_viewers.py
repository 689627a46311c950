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
- `{"kind": "players", "base": URL, "games": [{"id": G, "cookies": [C, C]}], "every": S,
  "seed": N, "settle": T}`: two signed-in players per game, each with an aiohttp client
  of its own sending its session cookie C, each loading the game page (for its
  `data-check`) and opening the game's event stream, then playing as the page's script
  does: on load and on each `event: game`, `GET /g/<id>/play`; when that offers a move,
  a pause of about S seconds (a person thinking; uniform in [S/2, 3S/2], the first one in
  [0, S] so that the games are spread), then the first choice each time
  (`GET …/play?ply=&step=…`) until the answer says `at_once` (or offers a confirm), then
  `POST /g/<id>/play`. Ready once every stream is open. On "stop" no one clicks again;
  the moves under way end and the streams are read T seconds more. Result: `moves`, per
  POST `[game, player, clicked, answered, status, played, done]` (played: the ply the
  answer says, -1 if none; done: its "Done: …" text); `steps`, seconds of each choice's
  GET; `streams`, per player `[game, player, [[ply, t], …]]`; `failed`; `cpu`.
"""

from __future__ import annotations

import asyncio
import html
import json
import random
import re
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


# === players =================================================================================
#: The first choice of a move panel, and its confirm button, as the page's script finds them.
FIRST_CHOICE = re.compile(r'data-choose="([^"]*)"')
CONFIRM = re.compile(r'data-play="([^"]*)"')
CHECK = re.compile(r'data-check="([^"]*)"')
#: Choices one move may take before the player gives up on it (a page gone astray).
MOST_STEPS = 30


class PlayerStream(Stream):
    """A player's event stream: sent with their cookie, as their browser sends it; wakes
    its player at each `event: game`."""

    def __init__(self, path: str, host: str, port: int, cookie: str) -> None:
        super().__init__(path, host, port)
        self.request = self.request[:-2] + f"Cookie: {cookie}\r\n\r\n".encode()
        self.moved = asyncio.Event()

    def data_received(self, data: bytes) -> None:
        seen = len(self.events)
        super().data_received(data)
        if len(self.events) > seen:
            self.moved.set()


def _attribute(pattern: re.Pattern[str], text: str) -> list[str] | None:
    found = pattern.search(text)
    if found is None:
        return None
    steps = json.loads(html.unescape(found.group(1)))
    return [str(s) for s in steps]


class Player:
    """One signed-in player of one game, playing by the page's requests."""

    def __init__(
        self,
        base: str,
        game_id: int,
        seat: int,
        cookie: str,
        stream: PlayerStream,
        rng: random.Random,
    ) -> None:
        self.base = base
        self.game_id = game_id
        self.seat = seat
        self.cookie = cookie
        self.stream = stream
        self.rng = rng
        self.check = ""
        self.http: aiohttp.ClientSession | None = None
        #: Per POST: game, player, clicked, answered, status, played ply, its "Done" text.
        self.moves: list[tuple[int, int, float, float, int, int, str]] = []
        self.steps: list[float] = []

    async def load(self) -> None:
        """The game page, as the browser first loads it: the check its moves carry."""
        self.http = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=PAGE_TIMEOUT), headers={"Cookie": self.cookie}
        )
        async with self.http.get(f"{self.base}/g/{self.game_id}") as response:
            text = await response.text()
            if response.status != 200:
                raise RuntimeError(f"/g/{self.game_id} answered {response.status}")
        found = CHECK.search(text)
        if found is None or not found.group(1):
            raise RuntimeError(f"/g/{self.game_id} carries no data-check for a signed-in player")
        self.check = found.group(1)

    async def close(self) -> None:
        if self.http is not None:
            await self.http.close()

    async def _panel(self, query: list[tuple[str, str]]) -> dict[str, Any]:
        assert self.http is not None
        async with self.http.get(f"{self.base}/g/{self.game_id}/play", params=query) as got:
            found: dict[str, Any] = await got.json()
            return found

    async def play(self, every: float, stopping: asyncio.Event) -> None:
        """As the page's script: the panel asked for on load and at each event; a move,
        after a person's pause, whenever it offers one, until `stopping` is set."""
        first = True
        while not stopping.is_set():
            if not first:
                await _either(self.stream.moved, stopping)
                if stopping.is_set():
                    return
            self.stream.moved.clear()
            panel = await self._panel([])
            if panel.get("idle"):
                first = False
                continue
            pause = (
                self.rng.uniform(0, every) if first else self.rng.uniform(every / 2, every * 1.5)
            )
            first = False
            with suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), pause)
            if stopping.is_set():
                return
            await self.move(panel)

    async def move(self, panel: dict[str, Any]) -> None:
        """The first choice each time, then the POST once the move is whole."""
        for _ in range(MOST_STEPS):
            if panel.get("idle"):
                return  # the game moved on meanwhile: the next event asks again
            confirm = _attribute(CONFIRM, str(panel.get("panel", "")))
            if panel.get("at_once") or confirm is not None:
                steps = list(panel["prefix"]) if panel.get("at_once") else confirm
                await self.send(int(panel["ply"]), steps or [])
                return
            choice = _attribute(FIRST_CHOICE, str(panel.get("panel", "")))
            if choice is None:
                raise RuntimeError(f"game {self.game_id}: a panel with no choice: {panel}")
            query = [("ply", str(panel["ply"])), *(("step", s) for s in choice)]
            start = time.perf_counter()
            panel = await self._panel(query)
            self.steps.append(time.perf_counter() - start)
        raise RuntimeError(f"game {self.game_id}: no whole move after {MOST_STEPS} choices")

    async def send(self, ply: int, steps: list[str]) -> None:
        assert self.http is not None
        headers = {"X-Hilltop-Check": self.check}
        body = {"ply": ply, "step": steps}
        clicked = time.perf_counter()
        async with self.http.post(
            f"{self.base}/g/{self.game_id}/play", json=body, headers=headers
        ) as response:
            answer = await response.json(content_type=None)
            status = response.status
        answered = time.perf_counter()
        played = int(answer.get("played", -1)) if isinstance(answer, dict) else -1
        done = str(answer.get("done", "")) if isinstance(answer, dict) else ""
        self.moves.append((self.game_id, self.seat, clicked, answered, status, played, done))


async def _either(moved: asyncio.Event, stopping: asyncio.Event) -> None:
    """Until the stream says the game moved, or the run is stopping."""
    waiting = asyncio.ensure_future(moved.wait())
    ending = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait({waiting, ending}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (waiting, ending):
            task.cancel()
        await asyncio.gather(waiting, ending, return_exceptions=True)


async def players(
    base: str, games: list[dict[str, Any]], every: float, seed: int, settle: float
) -> None:
    loop = asyncio.get_running_loop()
    address = urlsplit(base)
    host, port = address.hostname or "127.0.0.1", address.port or 80
    gate = asyncio.Semaphore(OPENING)
    rng = random.Random(seed)
    everyone: list[Player] = []
    for game in games:
        for seat, cookie in enumerate(game["cookies"]):
            path = f"/g/{game['id']}/events"
            stream = PlayerStream(path, host, port, cookie)
            rand = random.Random(rng.random())
            everyone.append(Player(base, int(game["id"]), seat, cookie, stream, rand))

    async def open_one(player: Player) -> None:
        async with gate:
            await player.load()
            try:
                await loop.create_connection(lambda: player.stream, host, port)
            except OSError as exc:
                player.stream.fail(f"could not connect: {exc}")
                player.stream.closed.set()
                return
            try:
                await asyncio.wait_for(player.stream.opened.wait(), OPEN_TIMEOUT)
            except TimeoutError:
                player.stream.fail(f"not open within {OPEN_TIMEOUT:g} s")

    stopping = asyncio.Event()
    playing: list[asyncio.Task[None]] = []
    try:
        await asyncio.gather(*(open_one(p) for p in everyone))
        cpu = time.process_time()
        playing = [asyncio.create_task(p.play(every, stopping)) for p in everyone]
        _say({"ready": time.perf_counter()})
        await _line()
        stopping.set()
        await asyncio.gather(*playing)  # a player's own error ends the run, told on stderr
        await asyncio.sleep(settle)
        for player in everyone:
            player.stream.stop()
        await asyncio.gather(*(p.stream.closed.wait() for p in everyone))
        _say(
            {
                "moves": [m for p in everyone for m in p.moves],
                "steps": [s for p in everyone for s in p.steps],
                "streams": [[p.game_id, p.seat, p.stream.events] for p in everyone],
                "failed": [p.stream.failure for p in everyone if p.stream.failure],
                "cpu": time.process_time() - cpu,
            }
        )
    finally:
        for task in playing:
            task.cancel()
        await asyncio.gather(*playing, return_exceptions=True)
        for player in everyone:
            if player.stream.transport is not None:
                player.stream.transport.abort()
            await player.close()


async def main() -> None:
    command = json.loads(await _line())
    if command["kind"] == "pages":
        await pages(command["base"], command["paths"], command["viewers"], command["every"])
    elif command["kind"] == "streams":
        await streams(command["base"], command["paths"])
    elif command["kind"] == "players":
        await players(
            command["base"],
            command["games"],
            command["every"],
            command["seed"],
            command["settle"],
        )
    else:
        raise SystemExit(f"unknown command {command['kind']!r}")


if __name__ == "__main__":
    asyncio.run(main())
