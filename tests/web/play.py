"""Playing games by clicks in the browser: players signed in on the site, and a move made as
a person makes it, one choice at a time, on the board where the choice has a place on it
and with the panel's buttons otherwise."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import Browser, Frame, Page, expect

from host.face import WebPages
from tests.web.browser import WAIT_MS, Tab, open_tab
from web.auth import SESSION, sign
from web.config import WebConfig

#: The site as the play tests serve it: signing in set up (the cookie's key).
CONFIG = WebConfig(port=0, client_id="4242", client_secret="the-secret")
#: Set on the game's element while a click is being answered; a counter of clicks answered.
SETTLED = (
    "(n) => { const g = document.querySelector('.game');"
    " return !g.dataset.working && Number(g.dataset.clicks || 0) > n; }"
)
#: SETTLED as a promise, kept as soon as the game's element changes so (no polling).
SETTLED_SOON = (
    "(n) => new Promise((settled) => { const g = document.querySelector('.game');"
    " const done = () => !g.dataset.working && Number(g.dataset.clicks || 0) > n;"
    " if (done()) return settled(true);"
    " new MutationObserver((_, watch) => { if (done()) { watch.disconnect(); settled(true); } })"
    ".observe(g, { attributes: true }); })"
)
CLICKS = "() => Number(document.querySelector('.game').dataset.clicks || 0)"
#: Moves the page has played.
MOVES = "() => Number(document.querySelector('.game').dataset.moves || 0)"
#: What the next click of a turn is chosen from, read at once: the moves played and the
#: clicks answered, the words of the confirm button and of the first choice offered, and
#: the names of the spots on the board.
LOOK = """() => {
  const game = document.querySelector('.game');
  const confirm = document.querySelector('#play button.confirm');
  const first = document.querySelector('#play .choices button');
  return {
    moves: Number(game.dataset.moves || 0),
    clicks: Number(game.dataset.clicks || 0),
    confirm: confirm ? confirm.innerText : null,
    first: first ? first.textContent.trim() : null,
    spots: Array.from(
      document.querySelectorAll('#spots .spot'), (s) => s.getAttribute('aria-label')
    ),
  };
}"""


async def signed_in(
    browser: Browser,
    site_url: str,
    config: WebConfig,
    pages: WebPages,
    user_id: int,
    name: str,
    guild_id: int,
    width: str,
) -> Tab:
    """A browser of `name`'s own, signed in to the site as Discord would sign them in."""
    token = await pages.sessions.sign_in(user_id, name, [guild_id])
    tab = await open_tab(browser, width)
    cookie = {"name": SESSION, "value": sign(config, token), "url": site_url}
    await tab.page.context.add_cookies([cookie])  # type: ignore[list-item]
    return tab


@dataclass
class Turn:
    """One move made by clicks: the choices clicked (on the board or as buttons), and what
    the page said once it was played."""

    clicks: list[str]
    on_board: int
    said: str


async def click(
    where: Page | Frame, target_selector: str, nth: int = 0, *, answered: int | None = None
) -> None:
    """Click a choice and wait until the page has its answer (and, for a move with nothing
    left to confirm, until the move is played). `answered`: the clicks the page had
    answered before, when the caller has just read them."""
    before = await where.evaluate(CLICKS) if answered is None else answered
    await where.locator(target_selector).nth(nth).click()
    try:
        await asyncio.wait_for(where.evaluate(SETTLED_SOON, before), WAIT_MS / 1000)
    except TimeoutError:
        raise AssertionError(
            f"the page did not answer the click on {target_selector} (#{nth}) within {WAIT_MS} ms"
        ) from None


async def take_turn(where: Page | Frame, *, prefer_board: bool = True) -> Turn:
    """Make one whole move by clicks: each time the first choice offered (on the board when
    it has a place there), until the move is played; the confirm button when the move asks
    for one."""
    panel = where.locator("#play")
    await expect(panel).to_be_visible()
    moves = await where.evaluate(MOVES)
    clicks: list[str] = []
    on_board = 0
    for _ in range(30):
        look = await where.evaluate(LOOK)
        if look["moves"] > moves:
            break
        if look["confirm"] is not None:
            clicks.append(look["confirm"])
            await click(where, "#play button.confirm", answered=look["clicks"])
            continue
        label = look["first"]
        if label is None:
            # Nothing offered yet: the panel is being drawn again.
            await expect(panel.locator(".choices button, button.confirm").first).to_be_attached()
            continue
        clicks.append(label)
        if prefer_board and label in look["spots"]:
            on_board += 1
            nth = look["spots"].index(label)
            await click(where, "#spots .spot", nth, answered=look["clicks"])
        else:
            await click(where, "#play .choices button", answered=look["clicks"])
    else:
        raise AssertionError(f"no move was played after {clicks}")
    said = await where.locator("#told").inner_text()
    return Turn(clicks, on_board, said)


async def shoot(where: Page, name: str) -> None:
    """A screenshot of the page into `HILLTOP_SCREENS`, when set (to look at the pages as
    players see them while the tests play)."""
    folder = os.environ.get("HILLTOP_SCREENS")
    if folder:
        await where.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)
