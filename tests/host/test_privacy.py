"""The operator's --export-user and --forget-user: a copy written, a person forgotten,
and an id nothing is stored about answered clearly, with exit code 2 and nothing
changed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

import bot
from console.lines import console_channel, console_user
from data.results import Actor, Ending, GameResult
from data.storage import Storage, open_storage
from host.face import FrontEnd
from host.model import ServiceError, User
from host.payloads import Action, Payload
from host.play.results import how_it_ended
from host.privacy.names import shown_name
from host.privacy.service import Forgotten
from tests.data.conftest import make_console
from tests.host.conftest import ALICE as WEB_ALICE
from tests.host.conftest import BOT, HERE
from tests.host.test_web_pages import CONFIG, hokito, move, open_pages
from tests.houses import house_of
from web.app import make_app

ALICE = console_user("alice")
PLAYED = [
    "alice /play game:hokito opponent:bob seed:1",
    "bob /accept",
    "alice /resign",
    "alice /press Yes, resign",
    "#second alice /play game:molehill opponent:bob seed:2",
    "#second bob /accept",
]


async def _played(db: Path, tmp_path: Path) -> None:
    storage = await open_storage(db)
    try:
        async with make_console(storage, tmp_path / "out") as console:
            for line in PLAYED:
                await console.run_line(line)
    finally:
        await storage.close()


async def _dump(db: Path) -> list[tuple[object, ...]]:
    storage = await open_storage(db)
    try:
        rows = []
        for table in ("users", "seats", "games", "moves"):
            rows += [(table, *r) for r in await storage.database.fetch(f"SELECT * FROM {table}")]
        return sorted(rows, key=repr)
    finally:
        await storage.close()


def _main(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as ended:
        bot.main(argv)
    return int(ended.value.code or 0)


async def _run(*argv: str) -> int:
    """`python bot.py ARGV`'s exit code (in a thread: it runs its own event loop)."""
    return await asyncio.to_thread(_main, list(argv))


async def test_the_operator_exports_and_forgets_a_user(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "hilltop.sqlite3"
    await _played(db, tmp_path)
    out = tmp_path / "alice.json"
    assert await _run("--db", str(db), "--export-user", str(ALICE.id), "--out", str(out)) == 0
    copy = json.loads(out.read_text(encoding="utf-8"))
    assert copy["name"] == "alice" and len(copy["tables"]["games"]) == 2
    assert await _run("--db", str(db), "--forget-user", str(ALICE.id)) == 0
    assert "is forgotten" in capsys.readouterr().out
    # The game still in play was resigned first: bob won it.
    storage = await open_storage(db)
    try:
        assert await storage.games.live_games_of_user(ALICE.id) == []
        assert await storage.privacy.user(ALICE.id) is None
    finally:
        await storage.close()
    before = await _dump(db)
    assert await _run("--db", str(db), "--forget-user", str(ALICE.id)) == 2
    assert "Nothing is stored about that player" in capsys.readouterr().out
    assert await _dump(db) == before


async def test_an_id_that_is_no_user_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "hilltop.sqlite3"
    await _played(db, tmp_path)
    before = await _dump(db)
    out = tmp_path / "nobody.json"
    assert await _run("--db", str(db), "--export-user", "12345", "--out", str(out)) == 2
    assert not out.exists() and "Nothing is stored about user 12345" in capsys.readouterr().out
    assert await _run("--db", str(db), "--forget-user", "12345") == 2
    assert await _dump(db) == before


def test_a_former_player_is_shown_in_words_and_a_name_as_it_is() -> None:
    assert shown_name("") == "a former player"
    assert shown_name("bob") == "bob"


async def test_only_its_person_can_confirm_a_forgetting_and_a_former_player_is_forgotten(
    tmp_path: Path,
) -> None:
    db = tmp_path / "hilltop.sqlite3"
    await _played(db, tmp_path)
    storage = await open_storage(db)
    try:
        async with make_console(storage, tmp_path / "out") as console:
            privacy = console.house.privacy
            [asked] = await privacy.mydata_forget(console_channel("general"), ALICE)
            [confirm] = asked.actions
            assert confirm.payload == Payload(Action.FORGET_ME, ALICE.id, 0)
            bob = console_user("bob")
            with pytest.raises(ServiceError, match="someone else's"):
                await privacy.pressed_forget(console_channel("general"), bob, confirm.payload)
            assert await storage.privacy.user(ALICE.id) is not None
            [done] = await privacy.pressed_forget(
                console_channel("general"), ALICE, confirm.payload
            )
            assert "is forgotten" in done.text
            # Asked again, or the old button pressed again: nothing is stored about her.
            [again] = await privacy.mydata_forget(console_channel("general"), ALICE)
            assert again.text == "Nothing is stored about you." and not again.actions
            [twice] = await privacy.pressed_forget(
                console_channel("general"), ALICE, confirm.payload
            )
            assert twice.text == "Nothing is stored about you."
            seat = await storage.database.fetch(
                "SELECT user_id FROM seats WHERE game_id = 1 AND user_id <> ?", (bob.id,)
            )
            former = int(seat[0][0])
            stored = await storage.privacy.user(former)
            assert stored is not None and stored.former and stored.name == "" and former < 0
            assert await privacy.forget(User(former, "")) is Forgotten.ALREADY
            assert await privacy.export(former) is None
    finally:
        await storage.close()


async def test_the_web_pages_and_their_pictures_name_a_former_player(storage: Storage) -> None:
    house = house_of(storage, front=FrontEnd(BOT), render_images=True)
    try:
        async with TestClient(TestServer(make_app(house.pages, CONFIG))) as client:
            await open_pages(house, HERE)
            game = await hokito(house)
            await move(house, HERE, WEB_ALICE)
            body = await (await client.get(f"/g/{game}")).text()
            assert "alice (Black)" in body
            picture = await client.get(f"/g/{game}/board.png?ply=1")
            assert picture.status == 200
            assert await house.privacy.forget(WEB_ALICE) is Forgotten.DONE
            body = await (await client.get(f"/g/{game}")).text()
            assert "alice" not in body and "a former player" in body
            again = await client.get(
                f"/g/{game}/board.png?ply=1", headers={"If-None-Match": picture.headers["ETag"]}
            )
            # The picture is drawn again: the one cached named her.
            assert again.status == 200 and again.headers["ETag"] != picture.headers["ETag"]
    finally:
        house.close()


def test_a_game_ended_by_a_former_player_says_who_in_words() -> None:
    ended = GameResult(Ending.RESIGNED, winners=(0,), actor=Actor(-5, ""))
    labels = ["bob (Black)", "carol (White)"]
    assert str(how_it_ended(ended, labels, None)) == "a former player resigned."


async def test_the_computer_players_id_is_no_person_to_forget_or_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "hilltop.sqlite3"
    await _played(db, tmp_path)
    storage = await open_storage(db)
    try:
        async with make_console(storage, tmp_path / "out") as console:
            await console.run_line("#third alice /play game:hokito opponent:hilltop seed:3")
        computer = await storage.privacy.computer()
    finally:
        await storage.close()
    assert computer is not None
    before = await _dump(db)
    out = tmp_path / "computer.json"
    assert await _run("--db", str(db), "--export-user", str(computer.id), "--out", str(out)) == 2
    assert not out.exists()
    assert await _run("--db", str(db), "--forget-user", str(computer.id)) == 2
    assert "a computer player, not a person" in capsys.readouterr().out
    assert await _dump(db) == before
