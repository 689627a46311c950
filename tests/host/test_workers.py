"""Worker processes: boards drawn in them match boards drawn here, and they never outlive
the bot."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from engine import registry
from host.present.painting import ProcessPainter, ThreadPainter
from render.core import RenderContext
from tests.processes import output_of
from tests.waiting import PATIENCE

ROOT = Path(__file__).resolve().parents[2]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has ended; only its parent's bookkeeping is left.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] != "Z"


async def test_a_board_drawn_in_a_worker_process_is_the_same_picture() -> None:
    game = registry.get("hokito")
    state = game.new_state(4, 2, None)
    move = state.legal_moves(0)[3]
    after = state.play(0, move)
    ctx = RenderContext(names=("alice", "bob"), last_move=move, previous=state)
    here, there = ThreadPainter(), ProcessPainter()
    try:
        local = await here.board(after, ctx, None)
        remote = await there.board(after, ctx, None)
    finally:
        here.close()
        there.close()
    assert remote.board[:8] == b"\x89PNG\r\n\x1a\n"
    assert remote == local


async def test_a_replay_is_drawn_in_a_worker_of_its_own_and_is_the_same_picture() -> None:
    game = registry.get("hokito")
    state = game.new_state(4, 2, None)
    move = state.legal_moves(0)[3]
    after = state.play(0, move)
    names = ("alice", "bob")
    frames = [
        (state, RenderContext(names=names), False),
        (after, RenderContext(names=names, last_move=move, previous=state), True),
    ]
    here, there = ThreadPainter(), ProcessPainter()
    try:
        local = await here.replay(frames)
        remote = await there.replay(frames)
        # The boards' own worker never drew it: the replay's worker is another process.
        board_pid = there._executor.submit(os.getpid).result()
        assert there._long_work is not None
        replay_pid = there._long_work.submit(os.getpid).result()
    finally:
        here.close()
        there.close()
    assert remote.startswith(b"GIF89a") and remote == local
    assert board_pid != replay_pid


def test_workers_exit_when_the_bot_process_is_killed() -> None:
    script = textwrap.dedent(
        """
        import os, sys, time
        from host.workers import worker_pool
        pool = worker_pool(1, background=True)
        print(pool.submit(os.getpid).result(), flush=True)
        time.sleep(60)
        """
    )
    bot = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        worker = int(output_of(bot, "the bot").next(timeout=60) or "0")
        assert alive(worker)
        with open(f"/proc/{worker}/stat") as stat:
            niceness = int(stat.read().rsplit(")", 1)[1].split()[16])
        assert niceness >= 10  # background work yields to the bot's replies
        bot.send_signal(signal.SIGKILL)
        bot.wait(PATIENCE)
        deadline = time.monotonic() + PATIENCE
        while alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(worker), "the worker outlived the killed bot"
    finally:
        bot.kill()
        bot.wait(10)
