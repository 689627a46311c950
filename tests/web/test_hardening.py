"""What a visitor or a player's name cannot break: times out of range in a name, cookies and
addresses of any characters, links written into a name, and move requests of any shape."""

from __future__ import annotations

import hashlib
import hmac
import json

import aiohttp

from host.face import House, User
from tests.web.browser import serving_pages
from tests.web.games import BOB, HERE, HILL, finished_hokito, hokito, open_pages, play_moves
from tests.web.play import CONFIG
from web.auth import SESSION, STATE, sign

#: A name holding Discord's markup of a time far past what a date can hold.
FAR = User(1011, "<t:999999999999>")
#: A name holding a link in Discord's markup.
LINKED = User(1012, "[x](https://evil.example)")


def _game_pages(game: int) -> list[str]:
    return [f"/g/{game}", f"/g/{game}/live", f"/g/{game}/replay"]


async def test_a_name_with_a_time_out_of_range_breaks_no_page(house: House) -> None:
    service = house.service
    await open_pages(service, HERE)
    done = await finished_hokito(service, HERE, first=FAR)
    live = await hokito(service, HERE, first=FAR)
    await play_moves(service, HERE, [FAR, BOB], 2)
    async with serving_pages(house.pages) as site, aiohttp.ClientSession() as http:
        for path in [f"/s/{HILL}", *_game_pages(live), *_game_pages(done)]:
            async with http.get(site.url + path) as answer:
                assert answer.status == 200, path


async def test_cookies_and_addresses_of_any_characters_are_taken_as_absent(
    house: House,
) -> None:
    await open_pages(house.service, HERE)
    async with serving_pages(house.pages, CONFIG) as site, aiohttp.ClientSession() as http:
        for name in (SESSION, STATE):
            cookie = f"{name}=\u017c\u00f3\u0142w.{'0' * 32}".encode().decode("latin-1")
            for path in ("/", f"/s/{HILL}", "/auth/discord?code=c&state=s"):
                async with http.get(site.url + path, headers={"Cookie": cookie}) as answer:
                    assert answer.status in (200, 400), (name, path, answer.status)
        async with http.get(
            f"{site.url}/login?next=/s/{HILL}/\u017c\u00f3\u0142w", allow_redirects=False
        ) as answer:
            assert answer.status == 302
            kept = answer.cookies[STATE].value
        state = kept.partition("|")[0]
        # Back from Discord, which refuses the code: the way back is no error of the site.
        back = {"Cookie": f"{STATE}={kept}"}
        async with http.get(
            f"{site.url}/auth/discord?code=c&state={state}\u017c",
            headers=back,
            allow_redirects=False,
        ) as answer:
            assert answer.status == 400


async def test_a_link_in_a_name_is_no_link_on_any_page(house: House) -> None:
    service = house.service
    await open_pages(service, HERE)
    done = await finished_hokito(service, HERE, first=LINKED)
    live = await hokito(service, HERE, first=LINKED)
    await play_moves(service, HERE, [LINKED, BOB], 2)
    paths = [
        f"/s/{HILL}",
        f"/s/{HILL}/history",
        f"/s/{HILL}/u/{LINKED.id}",
        f"/s/{HILL}/ratings/hokito",
        *_game_pages(live),
        *_game_pages(done),
    ]
    async with serving_pages(house.pages) as site, aiohttp.ClientSession() as http:
        for path in paths:
            async with http.get(site.url + path) as answer:
                assert answer.status == 200, path
                page = await answer.text()
            if path.endswith("/live"):
                page = json.loads(page)["html"]
            assert '<a href="https://evil.example"' not in page, path


async def test_a_move_of_no_proper_ply_is_refused_as_no_move(house: House) -> None:
    service = house.service
    await open_pages(service, HERE)
    game = await hokito(service, HERE, first=LINKED)
    token = await house.pages.sessions.sign_in(LINKED.id, LINKED.name, [HILL])
    mac = hmac.new(CONFIG.cookie_key, f"play|{token}".encode(), hashlib.sha256)
    headers = {
        "Cookie": f"{SESSION}={sign(CONFIG, token)}",
        "X-Hilltop-Check": mac.hexdigest()[:32],
    }
    deep = '{"ply": 0, "step": ' + "[" * 100_000 + "]" * 100_000 + "}"
    bodies = [
        '{"ply": Infinity, "step": []}',
        '{"ply": NaN, "step": []}',
        '{"ply": 1e400, "step": []}',
        deep,
        '{"ply": -1, "step": []}',
        '{"ply": -5, "step": ["a1"]}',
        "[1, 2]",
        "\xff",
    ]
    async with serving_pages(house.pages, CONFIG) as site, aiohttp.ClientSession() as http:
        for body in bodies:
            async with http.post(
                f"{site.url}/g/{game}/play", data=body.encode("latin-1"), headers=headers
            ) as answer:
                assert answer.status == 400, (body[:30], answer.status)
                assert (await answer.json())["message"]
        odd = {**headers, "X-Hilltop-Check": "\u017c".encode().decode("latin-1")}
        async with http.post(
            f"{site.url}/g/{game}/play", data='{"ply": 0, "step": []}', headers=odd
        ) as answer:
            assert answer.status == 403
