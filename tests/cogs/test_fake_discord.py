"""The fake Discord itself: what it does where Discord would, checked without a bot."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from tests.cogs.fake_discord import FakeDiscord, InteractionType, Session


class DyingSocket:
    """A gateway connection whose bot was killed: not closed yet, but refusing writes."""

    closed = False

    async def send_str(self, data: str) -> None:
        raise aiohttp.ClientConnectionResetError("Cannot write to closing transport")


def dying_fake() -> tuple[FakeDiscord, dict[str, Any]]:
    fake = FakeDiscord()
    socket: Any = DyingSocket()
    fake.sessions.append(Session("session-1", socket, 1))
    alice = fake.user("alice")
    payload = fake._interaction(InteractionType.APPLICATION_COMMAND, alice, {}, None)
    return fake, payload


async def test_an_interaction_sent_to_a_dying_connection_is_lost_when_losses_are_allowed() -> None:
    fake, payload = dying_fake()
    fake.lose_unrouted = True
    exchange = await fake.dispatch(payload)
    assert exchange.callback is None and not exchange.answered.is_set()


async def test_an_interaction_sent_to_a_dying_connection_fails_loudly_otherwise() -> None:
    fake, payload = dying_fake()
    with pytest.raises(ConnectionResetError):
        await fake.dispatch(payload)
