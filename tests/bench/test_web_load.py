"""The web benchmark's own parts: reading an event stream as it arrives, and setting each
move against the events of the streams that watch its game."""

from __future__ import annotations

import json

import pytest

from bench.web_load import MoveSeen, deliveries
from bench.web_viewers import Stream


def chunked(*writes: bytes) -> bytes:
    """An HTTP/1.1 event-stream response whose body is `writes`, one chunk each."""
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    return head + b"".join(b"%x\r\n%s\r\n" % (len(w), w) for w in writes)


def event(ply: int) -> bytes:
    data = json.dumps({"ply": ply, "status": "active", "html": "<p>\u00e9" + "x" * 5000})
    return f"id: {ply}.active\nevent: game\ndata: {data}\n\n".encode()


async def test_a_stream_read_in_any_pieces_opens_and_tells_each_event_once_whole() -> None:
    whole = chunked(b": open\n\n", event(3), b": still here\n\n", event(4), event(5))
    for size in (1, 2, 7, 100, len(whole)):
        stream = Stream("/g/1/events", "127.0.0.1", 80)
        for start in range(0, len(whole), size):
            stream.data_received(whole[start : start + size])
            if start + size <= whole.index(b": open") + 6:
                assert not stream.opened.is_set()
        assert stream.opened.is_set() and not stream.failure, size
        assert [ply for ply, _ in stream.events] == [3, 4, 5], size
        times = [at for _, at in stream.events]
        assert times == sorted(times)


async def test_a_refused_stream_fails_with_its_status() -> None:
    stream = Stream("/g/1/events", "127.0.0.1", 80)
    stream.data_received(b"HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nno!")
    assert stream.opened.is_set() and stream.failure == "http/1.1 404 not found"
    assert stream.events == []


def test_each_move_is_timed_to_the_first_event_of_its_ply_or_a_later_one() -> None:
    moves = [MoveSeen(7, 1, 9.0, 10.0), MoveSeen(8, 1, 10.5, 11.0), MoveSeen(7, 2, 11.5, 12.0)]
    paths = ["/g/7/events", "/g/8/events", "/g/7/events"]
    events = [
        [(1, 10.25), (2, 12.5)],
        [(1, 10.9)],  # before the answer reached Discord: a negative delay
        [(2, 12.125)],  # ply 1 never came alone: ply 2 shows it too
    ]
    arrivals, missed = deliveries(moves, paths, events)
    delays = [at - move.answered_at for move, at in arrivals]
    assert sorted(delays) == pytest.approx(sorted([0.25, 0.5, -0.1, 2.125, 0.125]))
    assert missed == 0
    arrivals, missed = deliveries(moves, paths, [[(1, 10.5)], [], []])
    assert arrivals == [(moves[0], 10.5)] and missed == 4
