"""Everest in a Discord channel, through the fake Discord: a game against three computers
posts once per round, and every round's post reveals all the plans of the round."""

from __future__ import annotations

from cogs.client import HilltopBot
from data.storage import Storage
from engine.everest import EverestGame
from tests.cogs.fake_discord import CallbackType, FakeDiscord
from tests.cogs.test_gateway import (  # noqa: F401 (fixtures)
    Players,
    bot,
    fake,
    nothing_logged_an_error,
    players,
)


async def test_everest_against_three_computers_posts_once_per_round(
    fake: FakeDiscord,  # noqa: F811
    bot: HilltopBot,  # noqa: F811
    storage: Storage,
    players: Players,  # noqa: F811
) -> None:
    alice = players.alice
    # Replies wait for the computers: the same posts on every run, however busy the machine.
    bot.service.computers.wait = None
    played = await fake.slash(
        alice, "play", game="everest", computers=3, seed=11, level="easy", within=30
    )
    if played.callback_type == CallbackType.DEFERRED_MESSAGE:
        await played.followups(1, within=30)
    answers = []
    for _ in range(300):
        offered = await fake.autocomplete(alice, "move", "text", text="")
        if not offered.choices:
            break
        moved = await fake.slash(alice, "move", text=offered.choices[0]["value"], within=30)
        if moved.callback_type == CallbackType.DEFERRED_MESSAGE:
            [answer] = await moved.followups(1, within=30)
        else:
            answer = moved.message
        answers.append(answer)
    record = await storage.games.get_game(1)
    assert record is not None and record.status == "finished"
    rounds = EverestGame().from_text(record.snapshot).round
    public = [m for m in fake.channel_messages() if not m.ephemeral]
    # The start, then one post per round; the last round's post tells the end too.
    assert rounds >= 3 and len(public) == 1 + rounds, [m.text for m in public]
    assert "The game begins" in public[0].text and "Game over." in public[-1].text
    for number, post in enumerate(public[1:], start=1):
        plans = post.text.split(f"Round {number}. Plans: ")[1].splitlines()[0]
        assert "alice (Red): " in plans
        assert all(f"hilltop {n} (" in plans for n in (1, 2, 3)), post.text
        assert post.attachments == ["board.png"]
    # Her moves inside a round (a plan the computers still had to answer never happens
    # here: they plan first) were answered to her alone.
    private = [m for m in answers if m.ephemeral]
    assert private and len(private) + rounds == len(answers)
