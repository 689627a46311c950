"""Settings kept in the database by two processes at once, on each backend."""

from __future__ import annotations

from dataclasses import replace

from data.storage import Storage
from host.settings import ServerChange, SettingsStore

GUILD = 7
USER = 1001


def store(storage: Storage) -> SettingsStore:
    """The settings of one process (its own cache) on `storage`."""
    return SettingsStore(storage.games, clock=lambda: 0.0)


async def test_two_processes_changing_different_keys_keep_both(storage: Storage) -> None:
    ours, theirs = store(storage), store(storage)
    mine = await ours.player(USER, fresh=True)
    yours = await theirs.player(USER, fresh=True)
    # Both read before either saves: each saves only the key it changed.
    await ours.save_player(USER, replace(mine, dm=True))
    await theirs.save_player(USER, replace(yours, reminders=False))
    now = await store(storage).player(USER, fresh=True)
    assert now.dm and not now.reminders


async def test_two_admins_setting_deadlines_of_different_games_keep_both(
    storage: Storage,
) -> None:
    ours, theirs = store(storage), store(storage)
    mine = await ours.server(GUILD, fresh=True)
    yours = await theirs.server(GUILD, fresh=True)
    await ours.save_server(GUILD, mine.changed(ServerChange(game="hokito", deadline_hours=2)))
    await theirs.save_server(GUILD, yours.changed(ServerChange(game="molehill", threads=True)))
    await theirs.save_server(
        GUILD,
        (await theirs.server(GUILD)).changed(ServerChange(game="everest", deadline_hours=5)),
    )
    now = await store(storage).server(GUILD, fresh=True)
    assert now.threads
    assert dict(now.deadlines) == {"hokito": 2 * 3600, "everest": 5 * 3600}
