"""Who sees what: a server whose pages were never opened is no different from a server that
does not exist, a server's pages show its own games only, and a game's pages show nothing
of a decision not yet revealed."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import Browser

from host.face import GameSetup, House
from tests.web.browser import DESKTOP, Tab, open_tab, serving_pages
from tests.web.conftest import Clock, fresh_house
from tests.web.games import (
    ALICE,
    BESIDE,
    BOB,
    CAROL,
    CLOSED,
    HERE,
    HILL,
    OTHER,
    THERE,
    UNKNOWN,
    YONDER,
    finished_hokito,
    hokito,
    open_pages,
)

NO_SUCH_PAGE = "There is no such page."


async def fetch(tab: Tab, url: str) -> tuple[int, str]:
    """What the browser is answered at `url`: the status, and the page with its own path
    written as `{path}` (the page links to itself in other languages)."""
    response = await tab.page.goto(url)
    assert response is not None
    path = re.sub(r"^https?://[^/]+", "", url).partition("?")[0]
    return response.status, (await response.text()).replace(path, "{path}")


async def game_links(tab: Tab) -> set[int]:
    """The games the open page links to."""
    hrefs = await tab.page.locator('a[href^="/g/"]').evaluate_all(
        "(links) => links.map((a) => a.getAttribute('href'))"
    )
    return {int(re.match(r"/g/(\d+)", href).group(1)) for href in hrefs}  # type: ignore[union-attr]


async def test_a_closed_server_and_its_games_are_pages_that_do_not_exist(
    house: House, browser: Browser
) -> None:
    service = house.service
    await open_pages(service, HERE)
    closed_finished = await finished_hokito(service, THERE)
    closed_live = await hokito(service, THERE)
    ours = await finished_hokito(service, HERE)
    tab = await open_tab(browser, DESKTOP)
    async with serving_pages(house.pages) as site:
        nothing = await fetch(tab, f"{site.url}/s/{UNKNOWN}")
        assert nothing[0] == 404 and NO_SUCH_PAGE in nothing[1]
        missing = ours + 1000
        for path in (
            f"/s/{CLOSED}",
            f"/s/{CLOSED}/history",
            f"/s/{CLOSED}/history?player={ALICE.id}",
            f"/s/{CLOSED}/leaderboard",
            f"/s/{CLOSED}/ratings/hokito",
            f"/s/{CLOSED}/u/{ALICE.id}",
            f"/s/{CLOSED}/daily",
            f"/s/{UNKNOWN}/history",
            f"/s/{UNKNOWN}/u/{ALICE.id}",
            *(
                f"/g/{game}{tail}"
                for game in (closed_finished, closed_live, missing)
                for tail in ("", "/board.png", "/live", "/events", "/replay", "/record.txt")
            ),
            f"/g/{closed_finished}/frames/0.png",
            f"/g/{missing}/frames/0.png",
            f"/s/{HILL}/u/{CAROL.id}",  # never played here
        ):
            assert await fetch(tab, site.url + path) == nothing, path
        # The open server's pages are there, and say nothing of the closed one's games.
        status, page = await fetch(tab, f"{site.url}/s/{HILL}")
        assert status == 200 and NO_SUCH_PAGE not in page
        assert await game_links(tab) == {ours}
        assert (await fetch(tab, f"{site.url}/g/{ours}"))[0] == 200
    await tab.page.context.close()
    tab.assert_no_errors()


async def test_each_open_server_shows_its_own_games_only(house: House, browser: Browser) -> None:
    service = house.service
    await open_pages(service, HERE, name="The Hill")
    await open_pages(service, YONDER, name="Yonder")
    ours = {await finished_hokito(service, HERE), await hokito(service, BESIDE)}
    theirs = {
        await finished_hokito(service, YONDER, first=CAROL, second=BOB),
        await hokito(service, YONDER, first=CAROL, second=BOB),
    }
    tab = await open_tab(browser, DESKTOP)
    async with serving_pages(house.pages) as site:
        for server, name, games in ((HILL, "The Hill", ours), (OTHER, "Yonder", theirs)):
            for path in (f"/s/{server}", f"/s/{server}/history"):
                status, _ = await fetch(tab, site.url + path)
                assert status == 200, path
                assert await tab.page.locator("h1").first.inner_text() != ""
                assert name in await tab.page.title()
                linked = await game_links(tab)
                assert linked and linked <= games, (path, linked)
            # Each game's own page is its server's: named, and linked to, as that server.
            for game in games:
                status, _ = await fetch(tab, f"{site.url}/g/{game}")
                assert status == 200
                brand = tab.page.locator("header .brand")
                assert await brand.get_attribute("href") == f"/s/{server}"
                assert name in await brand.inner_text()
        # carol played at Yonder only: she has a profile there, and is nobody at the Hill.
        assert (await fetch(tab, f"{site.url}/s/{OTHER}/u/{CAROL.id}"))[0] == 200
        assert (await fetch(tab, f"{site.url}/s/{HILL}/u/{CAROL.id}"))[0] == 404
        status, _ = await fetch(tab, f"{site.url}/s/{HILL}/history?player={CAROL.id}")
        assert status == 200 and await game_links(tab) == set()
        # bob played at both: each server's list of his games holds that server's alone.
        await fetch(tab, f"{site.url}/s/{HILL}/history?player={BOB.id}")
        assert await game_links(tab) <= ours
        await fetch(tab, f"{site.url}/s/{OTHER}/history?player={BOB.id}")
        assert await game_links(tab) <= theirs
    await tab.page.context.close()
    tab.assert_no_errors()


#: The pages of a game in play, which must not tell one secret plan from another.
SECRET_KEEPING = ("", "/board.png", "/live", "/replay", "/record.txt", "/frames/0.png")


async def test_a_plan_not_yet_revealed_changes_no_byte_of_the_pages(
    tmp_path: Path, clock: Clock, browser: Browser
) -> None:
    """Two games of Everest, each in a database of its own (so that both have the same id)
    with the same seed and clock, that differ only in the plan alice has sent while bob
    has not: every page of the game, and the server's, is the same to the byte."""
    tab = await open_tab(browser, DESKTOP)
    served: list[dict[str, bytes]] = []
    sent: list[str] = []
    for n in range(2):
        async with fresh_house(tmp_path / f"everest-{n}.sqlite3", clock) as house:
            service = house.service
            await open_pages(service, HERE)
            setup = GameSetup("everest", seed=1, computers=1)
            [challenge] = await service.start(HERE, ALICE, setup, [BOB])
            await service.accept(HERE, BOB)
            game_id = challenge.game_id
            suggested = await service.suggest_moves(HERE, ALICE, "")
            plans = list(dict.fromkeys(s.value for s in suggested))
            assert len(plans) >= 2, plans
            await service.move(HERE, ALICE, plans[n])
            # Bob has not sent his: nothing is revealed yet.
            loaded = await service.live.in_channel(HERE)
            seat = {s.user.id: s.seat for s in loaded.record.seats}
            assert loaded.record.status == "active" and seat[BOB.id] in loaded.state.to_act
            found = await service.repository.game_with_moves(loaded.id)
            assert found is not None
            sent.append(" ".join(m.text for m in found[1] if m.seat == seat[ALICE.id]))
            pages: dict[str, bytes] = {}
            async with serving_pages(house.pages) as site:
                for tail in SECRET_KEEPING:
                    got = await tab.page.request.get(f"{site.url}/g/{game_id}{tail}")
                    assert got.status == 200, tail
                    pages[f"/g/{game_id}{tail}"] = await got.body()
                got = await tab.page.request.get(f"{site.url}/s/{HILL}")
                assert got.status == 200
                pages[f"/s/{HILL}"] = await got.body()
            served.append(pages)
    # The plans sent differ; nothing served does.
    assert sent[0] != sent[1]
    first, second = served
    assert first.keys() == second.keys()
    differ = [path for path in first if first[path] != second[path]]
    assert differ == [], f"these pages tell the plans apart: {differ}"
    for path, body in first.items():
        assert body, path
    await tab.page.context.close()
    tab.assert_no_errors()
