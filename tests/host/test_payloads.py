"""The typed button payload: its wire form, which buttons already posted carry, and what
it refuses."""

from __future__ import annotations

import pytest

from host.payloads import Action, Payload

#: Buttons as they stand on boards posted by earlier versions of the bot.
POSTED = {
    "accept:12:0:": Payload(Action.ACCEPT, 12, 0),
    "resign!:3:17:": Payload(Action.RESIGN_CONFIRMED, 3, 17),
    "pick:5:2:c2": Payload(Action.PICK, 5, 2, ("c2",)),
    "play:5:2:rod e4 n": Payload(Action.PLAY, 5, 2, ("rod", "e4", "n")),
    "group+:9:4:e|": Payload(Action.GROUP_OPEN, 9, 4, (), "e"),
    "group:9:4:e|rod": Payload(Action.GROUP, 9, 4, ("rod",), "e"),
}


@pytest.mark.parametrize("wire", sorted(POSTED))
def test_posted_buttons_read_back_typed_and_write_the_same(wire: str) -> None:
    payload = Payload.parse(wire)
    assert payload == POSTED[wire]
    assert payload.encode() == wire


def test_every_action_survives_the_wire() -> None:
    for action in Action:
        payload = Payload(action, 2**40, 999, ("a1", "b2"), None)
        assert Payload.parse(payload.encode()) == payload


@pytest.mark.parametrize(
    "wire",
    [
        "",
        "nonsense",
        "bogus:1:2:",
        "pick:x:2:c2",
        "pick:1:-2:c2",
        "pick:1:2",
        "pick:1:2:a|b|c",
        "pick:１:2:c2",  # a full-width digit is not a digit here
    ],
)
def test_anything_else_is_refused(wire: str) -> None:
    with pytest.raises(ValueError):
        Payload.parse(wire)
