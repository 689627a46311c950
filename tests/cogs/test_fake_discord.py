"""The fake Discord itself: what it does where Discord would, checked without a bot."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.cogs import discord_rules as rules
from tests.cogs import fake_discord
from tests.cogs.fake_discord import FakeDiscord, InteractionType, Json, Session, serving


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


# === Discord's rules, as the fake answers a bot that breaks them ===========================
async def bot_request(
    fake: FakeDiscord,
    method: str,
    path: str,
    body: Any = None,
    files: dict[str, bytes] | None = None,
) -> tuple[int, Any]:
    """A request as the bot makes it, with its token; the status and the JSON answer."""
    headers = {"Authorization": f"Bot {fake.token}"}
    data: Any = None
    if files:
        data = aiohttp.FormData()
        data.add_field("payload_json", json.dumps(body), content_type="application/json")
        for index, (name, content) in enumerate(files.items()):
            data.add_field(f"files[{index}]", content, filename=name)
    async with (
        aiohttp.ClientSession() as session,
        session.request(
            method,
            fake.api_url + path,
            json=None if files else body,
            data=data,
            headers=headers,
        ) as response,
    ):
        return response.status, (await response.json() if response.status != 204 else None)


async def test_a_bot_gone_in_the_middle_of_a_request_is_counted_not_logged_as_a_crash(
    fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    """A bot stopped while uploading a board leaves a request half sent: Discord never
    sees it, and the fake neither records it nor logs a traceback about it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", fake.port)
    path = f"{fake_discord.API}/channels/{fake.channel_id}/messages"
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bot {fake.token}\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    )
    writer.write(head.encode() + b'{"content": "half')
    await writer.drain()
    writer.close()
    await writer.wait_closed()
    for _ in range(200):
        if fake.dropped:
            break
        await asyncio.sleep(0.01)
    assert fake.dropped == 1
    assert not fake.calls
    assert not [r for r in caplog.records if r.exc_info], caplog.text
    del reader


def button(custom_id: str, **more: Any) -> Json:
    return {"type": 2, "style": 2, "label": "go", "custom_id": custom_id, **more}


def row(*items: Json) -> Json:
    return {"type": 1, "components": list(items)}


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with serving() as server:
        yield server


async def post(fake: FakeDiscord, body: Json, channel: int | None = None) -> tuple[int, Any]:
    return await bot_request(fake, "POST", f"/channels/{channel or fake.channel_id}/messages", body)


async def test_buttons_sharing_a_custom_id_are_refused_disabled_or_not(fake: FakeDiscord) -> None:
    body = {"content": "x", "components": [row(button("a"), button("a", disabled=True))]}
    status, answer = await post(fake, body)
    assert (status, answer["code"], answer["message"]) == (400, 50035, "Invalid Form Body")
    error = answer["errors"]["components"]["0"]["components"]["1"]["custom_id"]["_errors"][0]
    assert error == {
        "code": "COMPONENT_CUSTOM_ID_DUPLICATED",
        "message": "Component custom id cannot be duplicated",
    }
    [(_, reason)] = fake.rejections
    assert reason == (
        "Invalid Form Body: components.0.components.1.custom_id: "
        "Component custom id cannot be duplicated"
    )
    status, _ = await post(fake, {"content": "x", "components": [row(button("a"), button("b"))]})
    assert status == 200


@pytest.mark.parametrize(
    ("body", "path", "code"),
    [
        ({"content": "x" * 2001}, "content", "BASE_TYPE_MAX_LENGTH"),
        (
            {"content": "x", "components": [row(button("a" * 101))]},
            "components.0.components.0.custom_id",
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            {"content": "x", "components": [row(*(button(str(i)) for i in range(6)))]},
            "components.0.components",
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            {"content": "x", "components": [row(button(str(i))) for i in range(6)]},
            "components",
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {"content": "x", "components": [row(button("a", label="l" * 81))]},
            "components.0.components.0.label",
            "BASE_TYPE_MAX_LENGTH",
        ),
        ({"embeds": [{"title": "t" * 257}]}, "embeds.0.title", "BASE_TYPE_MAX_LENGTH"),
        ({"embeds": [{"description": "d" * 4097}]}, "embeds.0.description", "BASE_TYPE_MAX_LENGTH"),
        (
            {"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]},
            "embeds.0.fields",
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {"embeds": [{"fields": [{"name": "n", "value": "v" * 1025}]}]},
            "embeds.0.fields.0.value",
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            {"embeds": [{"footer": {"text": "f" * 2049}}]},
            "embeds.0.footer.text",
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]},
            "embeds",
            "MAX_EMBED_SIZE_EXCEEDED",
        ),
        ({"embeds": [{"title": "t"}] * 11}, "embeds", "BASE_TYPE_MAX_LENGTH"),
    ],
)
async def test_each_limit_is_refused_with_its_field_path(
    fake: FakeDiscord, body: Json, path: str, code: str
) -> None:
    status, answer = await post(fake, body)
    assert (status, answer["code"]) == (400, 50035)
    errors = answer["errors"]
    for key in path.split("."):
        errors = errors[key]
    assert errors["_errors"][0]["code"] == code


async def test_a_select_holds_a_row_alone_and_at_most_25_options(fake: FakeDiscord) -> None:
    options = [{"label": str(i), "value": str(i)} for i in range(26)]
    select = {"type": 3, "custom_id": "s", "options": options}
    status, answer = await post(fake, {"content": "x", "components": [row(select)]})
    assert status == 400
    assert "options" in answer["errors"]["components"]["0"]["components"]["0"]
    select["options"] = options[:25]
    status, _ = await post(fake, {"content": "x", "components": [row(select, button("b"))]})
    assert status == 400
    status, _ = await post(fake, {"content": "x", "components": [row(select)]})
    assert status == 200


async def test_attachments_are_limited_in_number_and_size(fake: FakeDiscord) -> None:
    path = f"/channels/{fake.channel_id}/messages"
    files = {f"{i}.png": b"png" for i in range(11)}
    status, answer = await bot_request(fake, "POST", path, {"content": "x"}, files)
    assert (status, answer["code"]) == (400, 50035) and "files" in answer["errors"]
    big = {"big.png": b"0" * (rules.MAX_UPLOAD_BYTES + 1)}
    status, answer = await bot_request(fake, "POST", path, {"content": "x"}, big)
    assert (status, answer["code"]) == (413, 40005)


async def test_threads_are_made_where_they_can_be_and_refused_by_their_real_codes(
    fake: FakeDiscord,
) -> None:
    general = fake.channel_id
    status, thread = await bot_request(
        fake, "POST", f"/channels/{general}/threads", {"name": "game", "type": 11}
    )
    assert status == 200 and thread["parent_id"] == str(general)
    assert fake.threads_of(general) == [int(thread["id"])]
    status, answer = await bot_request(
        fake, "POST", f"/channels/{general}/threads", {"name": "n" * 101, "type": 11}
    )
    assert (status, answer["code"]) == (400, 50035) and "name" in answer["errors"]
    # A thread holds no threads; an announcement channel holds announcement threads only.
    news = fake.text_channel("news", kind=rules.ANNOUNCEMENT)
    for parent in (int(thread["id"]), news):
        status, answer = await bot_request(
            fake, "POST", f"/channels/{parent}/threads", {"name": "game", "type": 11}
        )
        assert (status, answer["code"]) == (400, 50024)
    fake.deny_bot(general, "Create Public Threads")
    status, answer = await bot_request(
        fake, "POST", f"/channels/{general}/threads", {"name": "game", "type": 11}
    )
    assert (status, answer["code"], answer["message"]) == (403, 50013, "Missing Permissions")
    hidden = fake.text_channel("hidden")
    fake.deny_bot(hidden, "View Channels")
    status, answer = await bot_request(
        fake, "POST", f"/channels/{hidden}/threads", {"name": "game", "type": 11}
    )
    assert (status, answer["code"], answer["message"]) == (403, 50001, "Missing Access")


async def test_a_message_gets_one_thread(fake: FakeDiscord) -> None:
    _, message = await post(fake, {"content": "a game"})
    path = f"/channels/{fake.channel_id}/messages/{message['id']}/threads"
    status, _ = await bot_request(fake, "POST", path, {"name": "game"})
    assert status == 200
    status, answer = await bot_request(fake, "POST", path, {"name": "again"})
    assert (status, answer["code"]) == (400, 160004)


async def test_posting_in_a_thread_needs_its_permission_and_an_unlocked_thread(
    fake: FakeDiscord,
) -> None:
    _, thread = await bot_request(
        fake, "POST", f"/channels/{fake.channel_id}/threads", {"name": "game", "type": 11}
    )
    thread_id = int(thread["id"])
    fake.archive(thread_id)
    status, message = await post(fake, {"content": "still here"}, thread_id)
    # A message unarchives a thread that is not locked.
    assert status == 200 and not fake.channels[thread_id]["thread_metadata"]["archived"]
    fake.archive(thread_id, locked=True)
    status, answer = await post(fake, {"content": "again"}, thread_id)
    assert (status, answer["code"]) == (400, 50083)
    status, answer = await bot_request(
        fake, "PATCH", f"/channels/{thread_id}/messages/{message['id']}", {"content": "edit"}
    )
    assert (status, answer["code"]) == (400, 50083)
    fake.channels[thread_id]["thread_metadata"]["archived"] = False
    fake.deny_bot(fake.channel_id, "Send Messages in Threads")
    status, answer = await post(fake, {"content": "again"}, thread_id)
    assert (status, answer["code"]) == (403, 50013)


def test_every_rule_of_the_table_is_read_by_the_fakes_checks() -> None:
    """A row no check reads would document a rule the fake does not enforce."""
    source = Path(fake_discord.__file__).read_text()
    needed = {refusal for needs in rules.NEEDS.values() for _, refusal in needs}

    def read(key: str) -> bool:
        dynamic = key.startswith("option.") and 'f"option.{key}"' in source
        return f'"{key}"' in source or dynamic

    assert [k for k in rules.LIMITS if not read(k)] == []
    assert [k for k in rules.ERRORS if not read(k) and k not in needed] == []
    assert [k for k in rules.FORM_ERRORS if not read(k)] == []
    assert [k for k in rules.NEEDS if not read(k)] == []
