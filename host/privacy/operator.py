"""The operator's `python bot.py --export-user ID [--out FILE]` and `--forget-user ID`: the
same copy and forgetting a person asks for with /mydata, for Discord's deletion requests
of accounts that no longer exist. An id nothing is stored about changes nothing and
exits with code 2."""

from __future__ import annotations

from pathlib import Path

from data.storage import Storage
from host.house import FrontEnd, HouseSettings, build_house
from host.model import User
from host.privacy.service import Forgotten, told

#: The exit code of a request about an id that holds nothing.
NOTHING = 2


async def export_user(storage: Storage, user_id: int, out: Path | None) -> int:
    """Write the person's copy to `out` (else ./hilltop-data-ID.json); the exit code."""
    house = build_house(storage, HouseSettings(render_images=False), FrontEnd(await _bot(storage)))
    try:
        exported = await house.privacy.export(user_id)
    finally:
        house.close()
    if exported is None:
        print(f"Nothing is stored about user {user_id}: no copy written.")
        return NOTHING
    target = out or Path(exported.filename)
    target.write_text(exported.text, encoding="utf-8")
    print(f"The data stored about user {user_id} is in {target}.")
    return 0


async def forget_user(storage: Storage, user_id: int) -> int:
    """Forget the person (or finish their forgetting); the exit code."""
    house = build_house(storage, HouseSettings(render_images=False), FrontEnd(await _bot(storage)))
    try:
        outcome = await house.privacy.forget(User(user_id, ""))
    finally:
        house.close()
    if outcome is Forgotten.DONE:
        print(f"User {user_id} is forgotten: their seats in others' games are a former player's.")
        return 0
    print(f"User {user_id}: {told(outcome)}")
    return NOTHING


async def _bot(storage: Storage) -> User:
    """The bot's own user, as the games know it: a computer takes a resigner's seats."""
    found = await storage.privacy.computer()
    return User(found.id, found.name, is_bot=True) if found else User(0, "hilltop", is_bot=True)
