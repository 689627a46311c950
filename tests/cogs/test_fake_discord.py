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
from tests.cogs.fake_discord import (
    Exchange,
    FakeDiscord,
    InteractionType,
    Json,
    Session,
    serving,
)


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
    await fake.wait_until(
        lambda: fake.dropped > 0, within=fake_discord.WAIT, what="the half-sent request"
    )
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


def form_error(answer: Json, path: str) -> Json:
    """The first form error of a 50035 answer at the field `path`."""
    errors = answer["errors"]
    for key in path.split("."):
        errors = errors[key]
    return dict(errors["_errors"][0])


# --- urls -----------------------------------------------------------------------------------
def link(url: Any, **more: Any) -> Json:
    return {"type": 2, "style": 5, "label": "open", "url": url, **more}


@pytest.mark.parametrize(
    ("body", "path", "error"),
    [
        (
            {"embeds": [{"title": "t", "url": "ftp://example.com/game"}]},
            "embeds.0.url",
            {
                "code": "URL_TYPE_INVALID_SCHEME",
                "message": 'Scheme "ftp" is not supported. '
                "Scheme must be one of ('http', 'https').",
            },
        ),
        (
            # Discord's own pages open from a button, not from an embed's title.
            {"embeds": [{"title": "t", "url": "discord://-/channels/1/2"}]},
            "embeds.0.url",
            {
                "code": "URL_TYPE_INVALID_SCHEME",
                "message": 'Scheme "discord" is not supported. '
                "Scheme must be one of ('http', 'https').",
            },
        ),
        (
            {"embeds": [{"title": "t", "url": "https://example.com/" + "a" * 2029}]},
            "embeds.0.url",
            {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 2048 or fewer in length."},
        ),
        (
            {"embeds": [{"title": "t", "url": "https://example.com/a game"}]},
            "embeds.0.url",
            {"code": "URL_TYPE_INVALID_URL", "message": "Not a well formed URL."},
        ),
        (
            {"content": "x", "components": [row(link("https://example.com/" + "a" * 493))]},
            "components.0.components.0.url",
            {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 512 or fewer in length."},
        ),
        (
            {"content": "x", "components": [row(link("javascript:alert(1)"))]},
            "components.0.components.0.url",
            {
                "code": "URL_TYPE_INVALID_SCHEME",
                "message": 'Scheme "javascript" is not supported. '
                "Scheme must be one of ('http', 'https', 'discord').",
            },
        ),
        (
            # A page of the bot's site without its address is no url at all.
            {"content": "x", "components": [row(button("a"), link("/games/12"))]},
            "components.0.components.1.url",
            {
                "code": "URL_TYPE_INVALID_SCHEME",
                "message": 'Scheme "" is not supported. '
                "Scheme must be one of ('http', 'https', 'discord').",
            },
        ),
        (
            {"content": "x", "components": [row({"type": 2, "style": 5, "label": "open"})]},
            "components.0.components.0.url",
            {"code": "BASE_TYPE_REQUIRED", "message": "This field is required"},
        ),
        (
            {"content": "x", "components": [row(link("https://"))]},
            "components.0.components.0.url",
            {"code": "URL_TYPE_INVALID_URL", "message": "Not a well formed URL."},
        ),
    ],
)
async def test_a_url_out_of_its_length_scheme_or_form_is_refused(
    fake: FakeDiscord, body: Json, path: str, error: Json
) -> None:
    status, answer = await post(fake, body)
    assert (status, answer["code"], answer["message"]) == (400, 50035, "Invalid Form Body")
    assert form_error(answer, path) == error
    assert fake.channel_messages() == []


async def test_urls_of_the_schemes_and_lengths_discord_takes_are_posted(fake: FakeDiscord) -> None:
    longest_page = "https://example.com/" + "a" * 2028
    longest_link = "https://example.com/" + "a" * 492
    links = [link(u) for u in ("http://example.com", longest_link, "discord://-/channels/1/2")]
    body = {"embeds": [{"title": "t", "url": longest_page}], "components": [row(*links)]}
    status, message = await post(fake, body)
    assert status == 200, message
    assert [c["url"] for c in fake.message(int(message["id"])).components()] == [
        "http://example.com",
        longest_link,
        "discord://-/channels/1/2",
    ]


# --- buttons and selects --------------------------------------------------------------------
@pytest.mark.parametrize(
    "bare",
    [
        {"type": 2, "style": 1, "custom_id": "a"},
        {"type": 2, "style": 1, "custom_id": "a", "label": ""},
        {"type": 2, "style": 5, "url": "https://example.com"},
    ],
)
async def test_a_button_without_a_label_or_an_emoji_is_refused(
    fake: FakeDiscord, bare: Json
) -> None:
    status, answer = await post(fake, {"content": "x", "components": [row(bare)]})
    assert (status, answer["code"]) == (400, 50035)
    assert form_error(answer, "components.0.components.0.label") == {
        "code": "BASE_TYPE_REQUIRED",
        "message": "This field is required",
    }
    # An emoji alone is enough.
    shown = {**bare, "emoji": {"name": "🎲"}}
    status, _ = await post(fake, {"content": "x", "components": [row(shown)]})
    assert status == 200


def select(options: int, **values: Any) -> Json:
    choices = [{"label": str(i), "value": str(i)} for i in range(options)]
    return {"type": 3, "custom_id": "s", "options": choices, **values}


@pytest.mark.parametrize(
    ("menu", "path", "error"),
    [
        (
            # A user select: its users are Discord's, it lists no options of its own.
            {"type": 5, "custom_id": "u", "min_values": 26, "max_values": 26},
            "min_values",
            {"code": "NUMBER_TYPE_MAX", "message": "int value should be less than or equal to 25."},
        ),
        (
            select(3, min_values=-1),
            "min_values",
            {
                "code": "NUMBER_TYPE_MIN",
                "message": "int value should be greater than or equal to 0.",
            },
        ),
        (
            select(3, min_values=0, max_values=0),
            "max_values",
            {
                "code": "NUMBER_TYPE_MIN",
                "message": "int value should be greater than or equal to 1.",
            },
        ),
        (
            {"type": 5, "custom_id": "u", "max_values": 26},
            "max_values",
            {"code": "NUMBER_TYPE_MAX", "message": "int value should be less than or equal to 25."},
        ),
        (
            select(5, min_values=3, max_values=2),
            "min_values",
            {"code": "NUMBER_TYPE_MAX", "message": "int value should be less than or equal to 2."},
        ),
        (
            select(3, max_values=4),
            "max_values",
            {"code": "NUMBER_TYPE_MAX", "message": "int value should be less than or equal to 3."},
        ),
        (
            # Left out, max_values is 1: a min_values above it needs one given.
            select(5, min_values=2),
            "min_values",
            {"code": "NUMBER_TYPE_MAX", "message": "int value should be less than or equal to 1."},
        ),
    ],
)
async def test_a_select_asks_for_a_possible_number_of_picks(
    fake: FakeDiscord, menu: Json, path: str, error: Json
) -> None:
    status, answer = await post(fake, {"content": "x", "components": [row(menu)]})
    assert (status, answer["code"]) == (400, 50035)
    assert form_error(answer, f"components.0.components.0.{path}") == error


@pytest.mark.parametrize(
    "menu",
    [
        select(1),
        select(3, min_values=0, max_values=3),
        select(3, min_values=3, max_values=3),
        select(25, min_values=25, max_values=25),
    ],
)
async def test_a_select_within_its_picks_is_posted(fake: FakeDiscord, menu: Json) -> None:
    status, message = await post(fake, {"content": "x", "components": [row(menu)]})
    assert status == 200, message


# --- interactions ---------------------------------------------------------------------------
class ListeningSocket:
    """A bot's gateway connection that takes every event and leaves it be: the test
    answers the interaction itself, as the bot would."""

    closed = False

    async def send_str(self, data: str) -> None:
        del data

    async def close(self, *, code: int) -> None:
        self.closed = True


async def interaction(
    fake: FakeDiscord, kind: InteractionType = InteractionType.APPLICATION_COMMAND
) -> Exchange:
    """A user's interaction, dispatched to a connection that listens and does nothing."""
    if not fake.sessions:
        socket: Any = ListeningSocket()
        fake.sessions.append(Session("session-1", socket, 1))
    user = fake.user(f"user{len(fake.users)}")
    return await fake.dispatch(fake._interaction(kind, user, {"name": "play"}, None))


async def callback(fake: FakeDiscord, exchange: Exchange, body: Json) -> tuple[int, Any]:
    path = f"/interactions/{exchange.id}/{exchange.token}/callback"
    return await bot_request(fake, "POST", path, body)


async def test_an_answer_after_3_seconds_finds_the_interaction_gone(fake: FakeDiscord) -> None:
    late = await interaction(fake)
    fake.advance(rules.CALLBACK_SECONDS + 0.5)
    status, answer = await callback(fake, late, {"type": 4, "data": {"content": "late"}})
    assert (status, answer["code"], answer["message"]) == (404, 10062, "Unknown interaction")
    assert late.callback is None and fake.channel_messages() == []
    # The same answer in time is taken: the clock moved, nothing else.
    prompt = await interaction(fake)
    status, _ = await callback(fake, prompt, {"type": 4, "data": {"content": "in time"}})
    assert status == 204
    assert [m.content for m in fake.channel_messages()] == ["in time"]


async def test_an_interaction_is_answered_once(fake: FakeDiscord) -> None:
    exchange = await interaction(fake)
    status, _ = await callback(fake, exchange, {"type": 5})
    assert status == 204
    status, answer = await callback(fake, exchange, {"type": 4, "data": {"content": "again"}})
    assert (status, answer["code"], answer["message"]) == (
        400,
        40060,
        "Interaction has already been acknowledged.",
    )
    assert exchange.callback_type == 5
    assert exchange.refusals == ["40060: Interaction has already been acknowledged."]


async def test_an_autocomplete_answer_holds_25_choices_of_up_to_100_characters(
    fake: FakeDiscord,
) -> None:
    choices = [{"name": f"game {i}", "value": str(i)} for i in range(26)]
    too_many = await interaction(fake, InteractionType.AUTOCOMPLETE)
    status, answer = await callback(fake, too_many, {"type": 8, "data": {"choices": choices}})
    assert (status, answer["code"]) == (400, 50035)
    assert form_error(answer, "data.choices") == {
        "code": "BASE_TYPE_MAX_LENGTH",
        "message": "Must be 25 or fewer in length.",
    }
    too_long = await interaction(fake, InteractionType.AUTOCOMPLETE)
    named = [{"name": "n" * 101, "value": "1"}]
    status, answer = await callback(fake, too_long, {"type": 8, "data": {"choices": named}})
    assert (status, answer["code"]) == (400, 50035)
    assert form_error(answer, "data.choices.0.name") == {
        "code": "BASE_TYPE_BAD_LENGTH",
        "message": "Must be between 1 and 100 in length.",
    }
    fitting = await interaction(fake, InteractionType.AUTOCOMPLETE)
    most = [*choices[:24], {"name": "n" * 100, "value": "1"}]
    status, _ = await callback(fake, fitting, {"type": 8, "data": {"choices": most}})
    assert status == 204 and fitting.choices == most


async def test_a_token_serves_followups_and_edits_for_15_minutes_only(fake: FakeDiscord) -> None:
    exchange = await interaction(fake)
    status, _ = await callback(fake, exchange, {"type": 5})
    assert status == 204
    hook = f"/webhooks/{fake.application_id}/{exchange.token}"
    fake.advance(rules.TOKEN_SECONDS - 60)
    status, filled = await bot_request(fake, "POST", hook + "?wait=true", {"content": "done"})
    assert status == 200 and filled["content"] == "done"
    fake.advance(61)
    late = {"content": "too late"}
    for method, path, body in [
        ("POST", hook, late),
        ("PATCH", hook + "/messages/@original", late),
        ("GET", hook + "/messages/@original", None),
        ("DELETE", hook + "/messages/@original", None),
    ]:
        status, answer = await bot_request(fake, method, path, body)
        assert (status, answer["code"], answer["message"]) == (
            401,
            50027,
            "Invalid Webhook Token",
        ), (method, path)
    assert exchange.original_id is not None
    assert fake.message(exchange.original_id).content == "done"
    assert exchange.followup_ids == [exchange.original_id]


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
    assert set(rules.URL_SCHEMES) <= set(rules.LIMITS)
    constants = ("MAX_UPLOAD_BYTES", "CALLBACK_SECONDS", "TOKEN_SECONDS", "URL_SCHEMES")
    assert [c for c in constants if f"rules.{c}" not in source] == []
