"""Hilltop as a Discord Activity, in a real browser: a fake Discord client page embeds the
site in an iframe of another site, speaks the Embedded App SDK's own protocol with the
unmodified SDK in it, and hands it codes from the fake Discord; the shell signs in, and
the game's page opens in the frame, signed in, every request of it through `/.proxy/`.

The client page's origin is `http://localhost:3333`: the SDK takes messages only from
Discord's own origins, its own, and that one (Discord's for developing locally). The
browser is given the page by the test (no server listens there) and the Activity is the
site at `http://127.0.0.1:<port>`: another site, as an Activity is Discord's.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
from aiohttp import web
from playwright.async_api import Browser, Frame, Page, Request, Route, expect
from playwright.async_api import TimeoutError as PlaywrightTimeout

from cogs.views import BUTTON_PREFIX
from host.face import Channel, House, User, WebPages
from host.payloads import Action, Payload
from tests.cogs.fake_discord import FakeDiscord, FakeUser
from tests.web.browser import DESKTOP, PHONE, WAIT_MS, Tab, open_tab, serving_pages
from tests.web.games import hokito, open_pages
from tests.web.play import take_turn
from web.app import make_app
from web.config import WebConfig

#: Where the fake Discord client's page is: the one origin besides Discord's and its own
#: that the SDK takes messages from.
CLIENT = "http://localhost:3333"
#: The game's page inside the Activity.
GAME_PAGE = re.compile(r"/\.proxy/a/g/(\d+)$")
#: How long the shell waits for Discord's READY (web/activity/src/activity.js).
READY_MS = 10_000
#: The page of the fake client: it passes every message of the Activity's frame to the
#: test (`DiscordClient.answer`) and posts back the answer, as Discord's client does.
CLIENT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Discord</title></head>
<body>
<script>
const activity = document.createElement("iframe");
activity.name = "activity";
activity.src = %s;
activity.style.cssText = "width: 100%%; height: 90vh; border: 0";
window.addEventListener("message", async (event) => {
  if (event.source !== activity.contentWindow) return;
  const reply = await window.discordClient(event.origin, event.data);
  if (reply !== null) activity.contentWindow.postMessage(reply, event.origin);
});
document.body.append(activity);
</script>
</body></html>
"""
#: The SDK's opcodes and the frame of a command's answer.
HANDSHAKE, FRAME = 0, 1


@dataclass
class DiscordClient:
    """Discord's client around one launch of the Activity: it answers the SDK's handshake
    with READY, AUTHORIZE with a code the fake Discord issues for `user`, AUTHENTICATE
    with the user of the access token, as long as the frame is the one it launched."""

    fake: FakeDiscord
    user: FakeUser
    guild_id: int
    channel_id: int
    frame_id: str = "frame-1"
    instance_id: str = "i-1"
    #: A reload inside Discord: the handshake is never answered.
    answers_handshake: bool = True
    #: The SDK's messages, as (command or "HANDSHAKE", its arguments).
    said: list[tuple[str, Any]] = field(default_factory=list)
    #: The codes handed to the Activity, in order.
    codes: list[str] = field(default_factory=list)
    #: What went wrong between the Activity and the client.
    faults: list[str] = field(default_factory=list)
    handshake: asyncio.Event = field(default_factory=asyncio.Event)
    origin: str = ""

    def url(self, site: str, custom_id: str | None) -> str:
        """The Activity's address as Discord opens it: the root of the URL mapping."""
        query = {
            "frame_id": self.frame_id,
            "instance_id": self.instance_id,
            "platform": "desktop",
            "guild_id": str(self.guild_id),
            "channel_id": str(self.channel_id),
        }
        if custom_id is not None:
            query["custom_id"] = custom_id
        return f"{site}/?{urlencode(query)}"

    async def answer(self, source: dict[str, Any], origin: str, data: Any) -> Any:
        if origin != self.origin or not isinstance(data, list) or len(data) != 2:
            self.faults.append(f"from {origin}: {data!r}")
            return None
        opcode, payload = data
        if opcode == HANDSHAKE:
            self.said.append(("HANDSHAKE", payload))
            self.handshake.set()
            expected = {"v": 1, "client_id": self.fake.client_id, "frame_id": self.frame_id}
            if any(payload.get(k) != v for k, v in expected.items()):
                self.faults.append(f"handshake {payload}")
                return None
            if not self.answers_handshake:
                return None
            return [FRAME, self._ready()]
        command, args, nonce = payload["cmd"], payload.get("args") or {}, payload["nonce"]
        self.said.append((command, args))
        if command == "AUTHORIZE":
            return [FRAME, self._authorized(args, nonce)]
        if command == "AUTHENTICATE":
            return [FRAME, self._authenticated(args, nonce)]
        if command == "CAPTURE_LOG":
            return [FRAME, {"cmd": command, "evt": None, "nonce": nonce, "data": None}]
        self.faults.append(f"unexpected command {command}")
        return [FRAME, _error(command, nonce, f"{command} is not answered here")]

    def _ready(self) -> dict[str, Any]:
        config = {"api_endpoint": "//discord.com/api", "environment": "production"}
        user = {"id": str(self.user.id), "username": self.user.name, "discriminator": "0"}
        data = {"v": 1, "config": config, "user": user}
        return {"cmd": "DISPATCH", "evt": "READY", "nonce": None, "data": data}

    def _authorized(self, args: dict[str, Any], nonce: str) -> dict[str, Any]:
        wanted = {"client_id": self.fake.client_id, "response_type": "code"}
        if any(args.get(k) != v for k, v in wanted.items()) or "identify" not in args["scope"]:
            self.faults.append(f"authorize {args}")
            return _error("AUTHORIZE", nonce, "Invalid client id or scope")
        code = self.fake.issue_code(self.user)
        self.codes.append(code)
        return {"cmd": "AUTHORIZE", "evt": None, "nonce": nonce, "data": {"code": code}}

    def _authenticated(self, args: dict[str, Any], nonce: str) -> dict[str, Any]:
        user = self.fake.user_of(str(args.get("access_token")))
        if user is None:
            self.faults.append(f"authenticate {args}")
            return _error("AUTHENTICATE", nonce, "Invalid access token")
        application = {"id": self.fake.client_id, "name": "hilltop", "description": ""}
        data = {
            "access_token": args["access_token"],
            "user": {**user.payload(), "public_flags": 0, "global_name": None},
            "scopes": ["identify", "guilds"],
            "expires": "2100-01-01T00:00:00.000Z",
            "application": application,
        }
        return {"cmd": "AUTHENTICATE", "evt": None, "nonce": nonce, "data": data}


def _error(command: str, nonce: str, message: str) -> dict[str, Any]:
    data = {"code": 4000, "message": message}
    return {"cmd": command, "evt": "ERROR", "nonce": nonce, "data": data}


@dataclass
class Traffic:
    """Every request of the Activity's frame, and what went wrong in either frame."""

    requests: list[Request] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def paths(self, site: str) -> list[str]:
        return [r.url.removeprefix(site) for r in self.requests]


def watch(page: Page) -> Traffic:
    """Record what the Activity's frame asks for, and every fault of `page`."""
    traffic = Traffic()

    def requested(request: Request) -> None:
        if request.frame.parent_frame is not None:
            traffic.requests.append(request)

    page.on("request", requested)
    page.on("requestfailed", lambda r: traffic.errors.append(f"{r.method} {r.url}: {r.failure}"))
    page.on(
        "response",
        lambda r: (
            traffic.errors.append(f"{r.request.method} {r.url}: {r.status}")
            if r.status >= 400
            else None
        ),
    )
    page.on("pageerror", lambda error: traffic.errors.append(f"script error: {error}"))
    page.on(
        "console",
        lambda message: traffic.errors.append(message.text) if message.type == "error" else None,
    )
    return traffic


async def launch(page: Page, site: str, client: DiscordClient, custom_id: str | None) -> Frame:
    """The fake client's page opened on `page`, launching the Activity in its frame (from a
    board's button: `custom_id`; from the App Launcher: None): the Activity's frame."""
    client.origin = site
    page_html = CLIENT_PAGE % json.dumps(client.url(site, custom_id))

    async def serve(route: Route) -> None:
        await route.fulfill(status=200, content_type="text/html", body=page_html)

    await page.route(f"{CLIENT}/**", serve)
    # A page the test gives the browser counts as a public site's, which may open a
    # loopback site only once allowed to (Discord's page and the Activity are both public).
    await page.context.grant_permissions(["local-network-access"], origin=CLIENT)
    await page.expose_binding("discordClient", client.answer)
    await page.goto(f"{CLIENT}/channels/{client.guild_id}/{client.channel_id}")
    frame = page.frame(name="activity")
    assert frame is not None
    return frame


async def open_activity(
    page: Page, site: str, client: DiscordClient, custom_id: str | None = None
) -> Frame:
    """The Activity launched in the fake client on `page` (see `launch`), through to the
    game's page it opens: that page's frame. Fails with what the shell says if it stops
    before."""
    frame = await launch(page, site, client, custom_id)
    try:
        await frame.wait_for_url(GAME_PAGE)
    except PlaywrightTimeout:
        said = await frame.evaluate("document.body ? document.body.innerText : ''")
        raise AssertionError(
            f"the Activity stopped at {frame.url}, saying {said!r}; "
            f"Discord heard {client.said}, faults {client.faults}"
        ) from None
    await frame.wait_for_load_state("load")
    return frame


@asynccontextmanager
async def serving_site(pages: WebPages, fake: FakeDiscord, secret: str = "") -> AsyncIterator[str]:
    """The site, signing in with the fake Discord, served on a loopback port chosen before
    the site is made (the browser's sign-in comes back to its address): that address."""
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    port = int(listening.getsockname()[1])
    config = WebConfig(
        host="127.0.0.1",
        port=port,
        url=f"http://127.0.0.1:{port}",
        client_id=fake.client_id,
        client_secret=secret or fake.client_secret,
        discord_api=fake.api_url,
        discord_authorize=fake.authorize_url,
    )
    runner = web.AppRunner(
        make_app(pages, config), handle_signals=False, access_log=None, shutdown_timeout=5.0
    )
    await runner.setup()
    try:
        await web.SockSite(runner, listening).start()
        yield config.url
    finally:
        await runner.cleanup()
        listening.close()


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    discord = FakeDiscord()
    await discord.start()
    try:
        yield discord
    finally:
        await discord.close()


@pytest.fixture
async def tab(browser: Browser) -> AsyncIterator[Tab]:
    opened = await open_tab(browser, DESKTOP)
    yield opened
    await opened.page.context.close()


def general(fake: FakeDiscord) -> Channel:
    return Channel(channel_id=fake.channel_id, guild_id=fake.guild_id, name="general")


def player(user: FakeUser) -> User:
    return User(user.id, user.name)


def sessions_started(house: House) -> list[int]:
    """The users each new session on the site is for, from now on."""
    started: list[int] = []
    sessions = house.pages.sessions
    sign_in: Callable[..., Any] = sessions.sign_in

    async def recorded(user_id: int, name: str, guild_ids: Any) -> str:
        started.append(user_id)
        return str(await sign_in(user_id, name, guild_ids))

    sessions.sign_in = recorded  # type: ignore[method-assign]
    return started


async def test_a_board_button_opens_its_game_in_the_activity_signed_in_through_the_proxy(
    house: House, fake: FakeDiscord, tab: Tab
) -> None:
    alice, bob = fake.user("alice"), fake.user("bob")
    where = general(fake)
    # The server shows its games to its members only: the page opens for a signed-in one.
    await open_pages(house.service, where, access="members")
    game_id = await hokito(house.service, where, player(alice), player(bob))
    client = DiscordClient(fake, alice, fake.guild_id, fake.channel_id)
    traffic = watch(tab.page)
    button = BUTTON_PREFIX + Payload(Action.LAUNCH, game_id, 0).encode()
    async with serving_site(house.pages, fake) as site:
        frame = await open_activity(tab.page, site, client, button)
        assert frame.url == f"{site}/.proxy/a/g/{game_id}"
        await expect(frame.locator("h1")).to_have_text(f"Hokito · #{game_id}")
        await expect(frame.locator(".who")).to_contain_text("alice")
        # Signed in with the code Discord handed the Activity, exchanged once by the site.
        assert len(client.codes) == 1
        assert fake.exchanged == client.codes
        [(_, args)] = [s for s in client.said if s[0] == "AUTHENTICATE"]
        assert fake.user_of(args["access_token"]) == alice
        assert [s[0] for s in client.said] == ["HANDSHAKE", "AUTHORIZE", "AUTHENTICATE"]
        assert client.faults == []
        # The session's cookie is kept for the Activity's frame in Discord's page alone.
        [cookie] = [c for c in await tab.page.context.cookies() if c["name"] == "hilltop_session"]
        assert cookie["sameSite"] == "None" and cookie["secure"] and cookie["httpOnly"]
        assert cookie.get("partitionKey") == "http://localhost"
        # Discord loads the Activity at the root of its URL mapping; all else the page
        # asks for goes through the proxy, and nothing goes anywhere else.
        paths = traffic.paths(site)
        assert paths[0] == client.url("", button), paths
        outside = [p for p in paths[1:] if not p.startswith("/.proxy/")]
        assert outside == [], paths
        for wanted in (
            "/.proxy/a/static/activity.js",
            "/.proxy/api/token",
            "/.proxy/api/launch",
            f"/.proxy/a/g/{game_id}",
            "/.proxy/a/static/hilltop.js",
            f"/.proxy/a/g/{game_id}/events",
        ):
            assert any(p.partition("?")[0] == wanted for p in paths), (wanted, paths)
        # The board, as everyone or as its player sees it.
        assert any(re.match(rf"/\.proxy/a/g/{game_id}/\w+\.png", p) for p in paths), paths
        assert traffic.errors == []


async def test_from_the_app_launcher_the_activity_opens_the_channels_game_or_says_there_is_none(
    house: House, fake: FakeDiscord, browser: Browser
) -> None:
    alice, bob = fake.user("alice"), fake.user("bob")
    where = general(fake)
    await open_pages(house.service, where, access="public")
    game_id = await hokito(house.service, where, player(alice), player(bob))
    quiet = fake.text_channel("quiet")
    async with serving_site(house.pages, fake) as site:
        tab = await open_tab(browser, DESKTOP)
        client = DiscordClient(fake, bob, fake.guild_id, fake.channel_id)
        frame = await open_activity(tab.page, site, client)
        assert frame.url == f"{site}/.proxy/a/g/{game_id}"
        await expect(frame.locator(".who")).to_contain_text("bob")
        await tab.page.context.close()

        tab = await open_tab(browser, DESKTOP)
        client = DiscordClient(fake, bob, fake.guild_id, quiet)
        frame = await launch(tab.page, site, client, None)
        await expect(frame.locator("#said")).to_have_text(
            "No game is being played in this channel yet: start one with /play."
        )
        assert GAME_PAGE.search(frame.url) is None
        await tab.page.context.close()


async def test_an_activity_discord_never_answers_says_to_launch_it_again(
    house: House, fake: FakeDiscord, tab: Tab
) -> None:
    await open_pages(house.service, general(fake))
    client = DiscordClient(fake, fake.user("alice"), fake.guild_id, fake.channel_id)
    client.answers_handshake = False
    # The pages' clock stands still but when the test moves it.
    start = datetime(2030, 1, 1, tzinfo=UTC)
    await tab.page.clock.install(time=start)
    await tab.page.clock.pause_at(start + timedelta(seconds=1))
    async with serving_site(house.pages, fake) as site:
        frame = await launch(tab.page, site, client, None)
        said = frame.locator("#said")
        await asyncio.wait_for(client.handshake.wait(), WAIT_MS / 1000)
        await expect(said).to_have_text("Connecting to Discord…")
        await tab.page.clock.run_for(READY_MS - 1)
        assert await said.text_content() == "Connecting to Discord…"
        await tab.page.clock.run_for(1)
        await expect(said).to_have_text(
            "Discord did not answer. Close the Activity and launch it again."
        )
    assert fake.exchanged == []


async def post_code(
    site: str, body: Any, *, as_json: bool = True, cookie: str = ""
) -> tuple[int, Any, str]:
    """`POST /api/token` as the shell makes it (with the frame's `cookie`, if it has one):
    the status, the answer and any cookie set."""
    headers = {"Cookie": cookie} if cookie else {}
    async with aiohttp.ClientSession() as http:
        url = f"{site}/.proxy/api/token"
        if as_json:
            asked = http.post(url, json=body, headers=headers)
        else:
            asked = http.post(url, data=body, headers=headers)
        async with asked as answer:
            cookie = answer.headers.get("Set-Cookie", "")
            return answer.status, await answer.json(), cookie


async def test_the_token_exchange_refuses_bad_input_and_bad_codes_and_starts_no_session(
    house: House, fake: FakeDiscord
) -> None:
    alice = fake.user("alice")
    started = sessions_started(house)
    async with serving_site(house.pages, fake) as site:
        for body, as_json in (
            ({}, True),
            ({"code": 5}, True),
            ({"code": ""}, True),
            (["code"], True),
            ({"code": "x" * 1000}, True),
            ("code=abc", False),  # a form, as another site's page could send
        ):
            status, answer, cookie = await post_code(site, body, as_json=as_json)
            assert status == 400 and "relaunch" in answer["message"], (body, answer)
            assert cookie == ""
        assert fake.calls == []  # nothing was asked of Discord

        status, answer, cookie = await post_code(site, {"code": "never-issued"})
        assert (status, cookie) == (400, "")
        assert answer["message"].startswith("Discord did not accept that sign-in")

        code = fake.issue_code(alice)
        status, answer, cookie = await post_code(site, {"code": code})
        assert status == 200 and fake.user_of(answer["access_token"]) == alice
        for attribute in ("HttpOnly", "Secure", "SameSite=None", "Partitioned"):
            assert f"; {attribute}" in cookie, cookie
        assert started == [alice.id]
        # The same code again: Discord refuses it, and no second session starts.
        status, answer, cookie = await post_code(site, {"code": code})
        assert (status, cookie) == (400, "")
        assert started == [alice.id]
        assert [reason for _, reason in fake.rejections] == [
            '400 invalid_grant Invalid "code" in request.'
        ] * 2

    # Discord refusing the site itself (its secret is wrong) is Discord's failure: a 502.
    async with serving_site(house.pages, fake, secret="not-the-secret") as site:
        status, answer, cookie = await post_code(site, {"code": fake.issue_code(alice)})
        assert (status, cookie) == (502, "")
        assert answer["message"] == "Discord did not confirm who you are; relaunch the Activity."
    assert started == [alice.id]


async def test_launch_says_why_it_has_no_game_to_open(house: House, fake: FakeDiscord) -> None:
    alice, bob = fake.user("alice"), fake.user("bob")
    where = general(fake)
    game_id = await hokito(house.service, where, player(alice), player(bob))
    async with serving_site(house.pages, fake) as site, aiohttp.ClientSession() as http:
        launch_url = f"{site}/.proxy/api/launch"
        here = {"guild_id": str(fake.guild_id), "channel_id": str(fake.channel_id)}

        cookies: dict[str, str] = {}

        async def asked(query: dict[str, str]) -> tuple[int, str]:
            async with http.get(launch_url, params=query, headers=cookies) as answer:
                body = await answer.json()
                return answer.status, str(body.get("message") or body.get("url"))

        assert await asked(here) == (401, "You are not signed in here: relaunch the Activity.")
        status, _, cookie = await post_code(site, {"code": fake.issue_code(alice)})
        assert status == 200
        # The browser's part: the cookie sent back with each request.
        cookies["Cookie"] = cookie.partition(";")[0]
        closed = (
            404,
            "This server's games are not shown on Hilltop's pages: its admins open them "
            "with /admin settings web:.",
        )
        assert await asked(here) == closed
        button = BUTTON_PREFIX + Payload(Action.LAUNCH, game_id, 0).encode()
        assert await asked({**here, "custom_id": button}) == closed
        await open_pages(house.service, where, access="members")
        assert await asked(here) == (200, f"/.proxy/a/g/{game_id}")
        assert await asked({"custom_id": button}) == (200, f"/.proxy/a/g/{game_id}")
        moves = BUTTON_PREFIX + Payload(Action.MOVES, game_id, 0).encode()
        for query in ({"custom_id": moves}, {"custom_id": "ht:nonsense"}):
            assert await asked(query) == (400, "That button does not open a game of Hilltop.")
        assert await asked({"guild_id": "x"}) == (
            400,
            "Hilltop's games are played in a server's channels: launch it in one.",
        )
        # A relaunch signs in afresh, and ends the session the frame had.
        before = cookies["Cookie"]
        status, _, cookie = await post_code(site, {"code": fake.issue_code(alice)}, cookie=before)
        assert status == 200 and cookie.partition(";")[0] != before
        assert await asked(here) == (401, "You are not signed in here: relaunch the Activity.")
        cookies["Cookie"] = cookie.partition(";")[0]
        assert await asked(here) == (200, f"/.proxy/a/g/{game_id}")


async def test_the_root_answers_discord_with_the_shell_and_anyone_else_with_the_front_page(
    house: House, fake: FakeDiscord
) -> None:
    client = DiscordClient(fake, fake.user("alice"), fake.guild_id, fake.channel_id)
    async with aiohttp.ClientSession() as http:
        async with serving_site(house.pages, fake) as site:
            async with http.get(client.url(site, None)) as answer:
                shell = await answer.text()
            async with http.get(f"{site}/") as answer:
                front = await answer.text()
        # A site that cannot sign anyone in has no Activity to run.
        async with (
            serving_pages(house.pages) as unset,
            http.get(client.url(unset.url, None)) as answer,
        ):
            assert answer.status == 200
            bare = await answer.text()
    assert '<script src="/.proxy/a/static/activity.js" defer></script>' in shell
    assert f'data-client="{fake.client_id}"' in shell and "Connecting to Discord…" in shell
    assert "activity.js" not in front and "Board games played in Discord channels" in front
    assert "activity.js" not in bare and "The Activity is not set up on this site." in bare


async def test_the_browser_sign_in_goes_through_discords_authorize_page(
    house: House, fake: FakeDiscord, tab: Tab
) -> None:
    alice, bob = fake.user("alice"), fake.user("bob")
    where = general(fake)
    await open_pages(house.service, where, access="members")
    game_id = await hokito(house.service, where, player(alice), player(bob))
    fake.next_sign_in = alice
    async with serving_site(house.pages, fake) as site:
        response = await tab.page.goto(f"{site}/g/{game_id}")
        assert response is not None and response.status == 200
        assert tab.page.url == f"{site}/g/{game_id}"
        await expect(tab.page.locator(".who")).to_contain_text("alice")
        [exchange] = [c for c in fake.calls if c.path == "/oauth2/token"]
        assert exchange.json["redirect_uri"] == f"{site}/auth/discord"
        assert fake.exchanged == [exchange.json["code"]]
        assert [c for c in await tab.page.context.cookies() if c["name"] == "hilltop_session"]
    tab.assert_no_errors()


async def test_two_players_finish_a_game_by_clicks_inside_the_activity(
    house: House, fake: FakeDiscord, browser: Browser
) -> None:
    alice, bob = fake.user("alice"), fake.user("bob")
    where = general(fake)
    await open_pages(house.service, where)
    game_id = await hokito(house.service, where, player(alice), player(bob))
    button = BUTTON_PREFIX + Payload(Action.LAUNCH, game_id, 0).encode()
    tabs = [await open_tab(browser, DESKTOP), await open_tab(browser, PHONE)]
    told: list[str] = []

    async def post(_: object, replies: list[Any]) -> None:
        told.extend(reply.text for reply in replies)

    try:
        async with serving_site(house.pages, fake) as site:
            frames = {}
            for tab, user, frame_id in zip(tabs, (alice, bob), ("frame-a", "frame-b"), strict=True):
                client = DiscordClient(fake, user, fake.guild_id, fake.channel_id, frame_id)
                traffic = watch(tab.page)
                frames[user.id] = (await open_activity(tab.page, site, client, button), traffic)
            made = 0
            for _ in range(100):
                loaded = await house.service.loaded(game_id)
                if loaded.record.status != "active":
                    break
                [seat] = loaded.state.to_act
                frame, _ = frames[loaded.record.seats[seat].user.id]
                turn = await take_turn(frame)
                assert turn.said.startswith("Done: ") and turn.on_board == len(turn.clicks)
                made += 1
                # The process that owns the server tells the channel (here: this one).
                assert await house.service.tell_untold(post, game_id) == 1
            else:
                raise AssertionError("the game did not end")
            assert made == len(await house.service.repository.moves(game_id)) > 10
            assert len(told) == made and "has no legal move" in told[-1]
            for frame, traffic in frames.values():
                await expect(frame.locator("#live")).to_contain_text("has no legal move")
                await expect(frame.locator("#play")).to_be_hidden()
                outside = [p for p in traffic.paths(site)[1:] if not p.startswith("/.proxy/")]
                # A picture replaced before it came is let go of, which is no fault.
                failed = [e for e in traffic.errors if not e.endswith("net::ERR_ABORTED")]
                assert outside == [] and failed == []
    finally:
        for tab in tabs:
            await tab.page.context.close()
