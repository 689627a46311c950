"""A newcomer's first game in the browser, as the README tells it: the bot started as
`make run` starts it (no Discord token: the console, which serves the pages), a browser at
the address it prints, one tab signed in as alice on a phone, another as bob on a desktop,
and a whole game played by clicks to its end, each move told in the console's transcript
as the console tells its own."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from tests.processes import Lines
from tests.web.browser import DESKTOP, PHONE, Tab, open_tab
from tests.web.play import take_turn

ROOT = Path(__file__).resolve().parents[2]
#: Where the screenshots are left to be looked at: `HILLTOP_SCREENS`, else the test's own.
SCREENS = os.environ.get("HILLTOP_SCREENS")
#: Seconds a line of the console's may take to come.
LINE_SECONDS = 60
#: More moves than the game takes: a game that does not end by then is a failure.
MOST_MOVES = 120
#: What a game's state says once it is over.
ENDED = re.compile(r"Game over\.")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Console:
    """`python bot.py`, as `make run` starts it on a machine with no Discord token: lines
    typed to it, and what it writes, read with deadlines."""

    def __init__(self, folder: Path) -> None:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("HILLTOP_") and k not in ("DISCORD_TOKEN", "DEV_GUILD_ID")
        }
        env |= {"HILLTOP_WEB": f"127.0.0.1:{free_port()}", "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "bot.py"), "--db", str(folder / "hilltop.db")],
            cwd=folder,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.process.stdout is not None
        self.lines = Lines(self.process.stdout, "the console")

    def type(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def wait_for(self, pattern: str) -> re.Match[str]:
        """The first line from here on that `pattern` is found in."""
        while True:
            line = self.lines.next(LINE_SECONDS)
            assert line is not None, f"the console ended; it wrote:\n{self.lines.shown}"
            found = re.search(pattern, line)
            if found:
                return found

    def told(self) -> str:
        return "".join(self.lines.seen)

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=LINE_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def console(tmp_path: Path) -> Iterator[Console]:
    started = Console(tmp_path)
    try:
        yield started
    finally:
        started.stop()


async def shoot(tab: Tab, folder: Path, name: str) -> None:
    await tab.page.screenshot(path=str(folder / f"whole-game-{name}.png"), full_page=True)


async def sign_in(tab: Tab, login: str, name: str) -> None:
    """The "Play as" page, and `name` chosen on it: by its button where it has one."""
    await tab.page.goto(login)
    await expect(tab.page.get_by_role("heading", name="Who are you?")).to_be_visible()
    await tab.press(tab.page.get_by_role("button", name=f"Play as {name}"))
    await expect(tab.page.locator(".who")).to_contain_text(name)


async def next_to_move(*tabs: Tab) -> Tab | None:
    """The tab whose player is offered a move, once their page shows it (the other's
    move reaches it over its stream); None once the game is over on every page."""
    for _ in range(LINE_SECONDS * 10):
        for tab in tabs:
            if await tab.page.locator("#play").is_visible():
                return tab
        ended = [tab.page.locator(".status .state").filter(has_text=ENDED) for tab in tabs]
        if all([await shown.count() for shown in ended]):
            return None
        await asyncio.sleep(0.1)
    states = [await tab.page.locator(".status .state").inner_text() for tab in tabs]
    raise AssertionError(f"no page offered a move, and the game did not end: {states}")


async def test_two_newcomers_play_a_whole_game_by_clicks(
    console: Console, browser: Browser, tmp_path: Path
) -> None:
    shots = Path(SCREENS) if SCREENS else tmp_path
    pages = console.wait_for(r"Watch and play the games in a browser: (http://\S+)/s/1").group(1)
    login = console.wait_for(r"Play in a browser: open (http://\S+/login)").group(1)
    assert login == f"{pages}/login"
    # The console's settings tell the truth about the pages it serves, whatever web: says.
    for typed in ("admin /admin settings", "admin /admin settings web:public"):
        console.type(typed)
        console.wait_for(r"^Web pages: open to anyone who can reach this computer")
        assert console.wait_for(r"^The pages: (\S+)$").group(1) == f"{pages}/s/1"
    console.type("alice /play game:hokito opponent:bob seat:first seed:8")
    console.type("bob /accept")
    console.wait_for(r"Hokito · move 0")

    alice, bob = await open_tab(browser, PHONE), await open_tab(browser, DESKTOP)
    await sign_in(alice, login, "alice")
    await sign_in(bob, login, "bob")
    # The server's page lists the game: each goes to it from there.
    for tab in (alice, bob):
        await tab.page.goto(f"{pages}/s/1")
        await tab.press(tab.page.get_by_role("link", name=re.compile(r"^Hokito · #\d+$")).first)
        await expect(tab.page).to_have_url(re.compile(rf"{pages}/g/\d+$"))
    assert bob.page.url == alice.page.url
    await shoot(alice, shots, "phone-start")
    await shoot(bob, shots, "desktop-start")

    played = {"alice": 0, "bob": 0}
    for _ in range(MOST_MOVES):
        mover = await next_to_move(alice, bob)
        if mover is None:
            break
        turn = await take_turn(mover.page)
        assert turn.said.startswith("Done: "), turn.said
        played["alice" if mover is alice else "bob"] += 1
        if sum(played.values()) == 4:
            await shoot(alice, shots, "phone-playing")
            await shoot(bob, shots, "desktop-playing")
    else:
        raise AssertionError(f"the game did not end in {MOST_MOVES} moves")

    for tab in (alice, bob):
        await expect(tab.page.locator(".status .state")).to_contain_text(ENDED)
        await expect(tab.page.locator("#play")).to_be_hidden()
        tab.assert_no_errors()
    await shoot(alice, shots, "phone-end")
    await shoot(bob, shots, "desktop-end")
    assert played["alice"] >= 5 and played["bob"] >= 5, played

    # Every move made on the pages is told in the console, by whom, and the end too.
    moves = sum(played.values())
    console.wait_for(ENDED.pattern)
    told = console.told()
    assert len(re.findall(r"\balice played\b", told)) == played["alice"], told
    assert len(re.findall(r"\bbob played\b", told)) == played["bob"], told
    assert f"Hokito · move {moves}\n" in told, told
