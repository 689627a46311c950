"""Every game's PNGs: palette images in the game's fixed palette, and the same bytes for the
same position in another process (another hash seed, empty caches) and from many threads."""

from __future__ import annotations

import hashlib
import importlib
import io
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from engine import registry
from engine.core import GameState
from engine.rng import Rng
from render.core import DEFAULT_THEME, RenderContext
from tests.render.support import GAME_IDS, options_png, render_png, step_pngs

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("Ann", "Bob", "Cy", "Di")


def positions(game_id: str) -> list[tuple[GameState[Any], RenderContext]]:
    """Positions along seeded random games, each with the move that led there."""
    game = registry.get(game_id)
    found: list[tuple[GameState[Any], RenderContext]] = []
    for seed, players in ((3, game.min_players), (8, game.max_players)):
        state = game.new_state(seed, players, None)
        found.append((state, RenderContext(names=NAMES[:players])))
        rng = Rng(seed)
        for ply in range(1, 25):
            if not state.to_act:
                break
            seat, rng = rng.choice(sorted(state.to_act))
            move, rng = rng.choice(state.legal_moves(seat))
            previous, state = state, state.play(seat, move)
            if ply % 6 == 0 or not state.to_act:
                ctx = RenderContext(names=NAMES[:players], last_move=move, previous=previous)
                found.append((state, ctx))
    return found


def pngs(game_id: str) -> list[bytes]:
    """Every picture of the game's positions: boards, steps and choices."""
    out = []
    for state, ctx in positions(game_id):
        out.append(render_png(state, ctx))
        out.extend(step_pngs(state, ctx))
        for seat in sorted(state.to_act):
            choice = options_png(state, seat, (), ctx)
            if choice is not None:
                out.append(choice)
    return out


def digests(threads: int = 1) -> list[str]:
    """SHA-256 of every game's pictures, drawn `threads` times over on as many threads."""
    with ThreadPoolExecutor(threads) as pool:
        per_game = list(pool.map(pngs, GAME_IDS * threads))
    return [hashlib.sha256(png).hexdigest() for game in per_game for png in game]


def digests_elsewhere(threads: int) -> list[str]:
    """`digests(threads)` in a fresh Python process with its own hash seed."""
    snippet = f"from tests.render.test_png import digests; print(*digests({threads}))"
    env = {**os.environ, "PYTHONHASHSEED": "4242"}
    done = subprocess.run(
        [sys.executable, "-c", snippet],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return done.stdout.split()


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_png_is_in_the_games_fixed_palette(game_id: str) -> None:
    declared = importlib.import_module(f"render.{game_id}").palette(DEFAULT_THEME)
    palettes = set()
    count = 0
    for png in pngs(game_id):
        image = Image.open(io.BytesIO(png))
        assert image.mode == "P"
        palette = image.getpalette()
        assert palette is not None
        palettes.add(bytes(palette))
        # Only palette entries are used: none was added for a colour the game left out.
        _, highest = image.getextrema()
        assert highest < len(palette) // 3
        count += 1
    assert count >= 4
    (palette,) = palettes
    assert palette == declared.data
    entries = [tuple(palette[i : i + 3]) for i in range(0, len(palette), 3)]
    assert len(entries) == len(set(entries)) <= 256
    assert {DEFAULT_THEME.background, DEFAULT_THEME.ink} <= set(entries)


def test_same_bytes_in_a_fresh_process() -> None:
    here = digests()
    assert len(here) > 30
    assert digests_elsewhere(1) == here


def test_same_bytes_when_threads_fill_the_caches_at_once() -> None:
    assert digests_elsewhere(4) == digests() * 4


def test_same_bytes_twice_in_one_process() -> None:
    assert digests() == digests()
