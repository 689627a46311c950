"""Positions at the edges of what each notation accepts (the largest numbers, the most
seats, the tallest board, one stack of every pawn) still draw, at the usual size."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from engine import registry
from render.core import RenderContext
from tests.render.support import options_png, render_png, step_pngs

NAMES = ("Ann", "Bob", "Cyd", "Dee")
RNG_MAX = 2**64 - 1

EDGES = {
    "everest": (
        "everest n=4 cap=999 round=999 stage=over step=3 pos=d3,e3,d4,off "
        "aside=5432A0,5432A0,-,- dmg=99,99,99,0 peak=3 plans=dazed,dazed,dazed,4E+5W+sAN "
        f"result=draw rng={RNG_MAX}:{RNG_MAX} ev=step.3,dice.5.5.5.5,dice.0.-.-.5,pick.3.120,"
        "snow.3.h6.a1.W.2,hit.2.d4.S,fall.1.e3,off.0.a1.W,aside.3.5432A0,heal.3,"
        "home.3.off.a5,bump.2.a5.b5,round.999,draw"
    ),
    "hillbert": "/".join(["HHH....", "HHH....", "HHH...."] + ["......."] * 27)
    + f" score=999999999 turns=999999999 hungry=0 facing=3 jumped=1 seed={RNG_MAX}",
    "hokito": "".join(f"{c}{v}" * 6 for c in "bw" for v in "123")
    + ",.,.,.,.,."
    + "/.,.,.,.,.,." * 5
    + " w",
    "hollowtown": (
        "Hh,Mu15,-/-,-,-/-,-,Dd market=0/2,0/2,0/2 bank=0 supply=0/0 turn=hollow round=999 "
        f"lastbuy=999 rng={RNG_MAX}:{RNG_MAX} variant=dice-harvest"
    ),
    "molehill": "2m - - e1,a4,i4,e7/b2,h2,b6,h6 24",
}


def size_of(png: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(png)) as image:
        image.load()
        return image.size


@pytest.mark.parametrize("game_id", sorted(EDGES))
def test_positions_at_the_limits_draw_at_the_usual_size(game_id: str) -> None:
    game = registry.get(game_id)
    state = game.from_text(EDGES[game_id])
    assert state.to_text() == EDGES[game_id]
    names = NAMES[: state.num_seats]
    ctx = RenderContext(names=names)
    usual = render_png(game.new_state(1, state.num_seats, None), ctx)
    assert size_of(render_png(state.view(None), ctx)) == size_of(usual)
    for png in step_pngs(state, ctx):
        assert size_of(png)[0] > 0
    for seat in state.to_act:
        options_png(state.view(seat), seat, (), RenderContext(names=names, viewer=seat))


def test_every_event_of_the_everest_edge_is_told() -> None:
    state = registry.get("everest").from_text(EDGES["everest"])
    lines = [str(line) for line in state.report(None, NAMES)]
    assert "Conflict! Roll-off: Ann 5, Bob 5, Cyd 5, Dee 5." in lines
    assert "Dee picks outcome 120." in lines
    assert "Cyd is bumped a5→b5." in lines
    assert lines[-1] == "The round cap is reached: a draw."
