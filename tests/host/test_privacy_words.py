"""What is kept, in words: every table of the storage has its place in the notice, the
notice fits one Discord embed in every language, says the numbers the code keeps to,
and the web's /privacy page, linked from every page, shows it."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from console.lines import COMMANDS as CONSOLE_COMMANDS
from data.copy import TABLES
from data.storage import Storage
from host.face import FrontEnd, languages, privacy_notice, speaking
from host.privacy.words import GROUPS, stored
from tests.host.conftest import BOT
from tests.host.test_web_pages import CONFIG
from tests.houses import house_of
from web.app import make_app

MIGRATIONS = Path(__file__).resolve().parents[2] / "data" / "migrations"
_CREATED = re.compile(r"^\s*CREATE TABLE (\w+)", re.MULTILINE | re.IGNORECASE)
_DROPPED = re.compile(r"^\s*DROP TABLE (?:IF EXISTS )?(\w+)", re.MULTILINE | re.IGNORECASE)


def schema_tables() -> set[str]:
    """Every table the migrations leave, read from the migrations themselves."""
    tables: set[str] = set()
    for path in sorted(MIGRATIONS.glob("*.sqlite.sql")):
        text = path.read_text(encoding="utf-8")
        tables |= set(_CREATED.findall(text))
        tables -= set(_DROPPED.findall(text))
    return tables


def test_every_table_of_the_storage_has_one_place_in_the_notice() -> None:
    placed = Counter(table for tables in GROUPS.values() for table in tables)
    assert [table for table, n in placed.items() if n > 1] == []
    everything = set(TABLES) | schema_tables()
    assert "web_sessions" in everything and "users" in everything
    assert everything - placed.keys() == set(), "tables the privacy notice does not tell of"
    assert placed.keys() - everything == set(), "tables the notice names that do not exist"


def test_every_group_is_told_in_the_notice() -> None:
    groups = stored()
    assert list(groups) == list(GROUPS)
    fields = dict(privacy_notice().fields)
    for heading, words in groups.values():
        assert fields[str(heading)] == str(words)


def test_the_notice_says_the_numbers_and_the_ways_out() -> None:
    with speaking("en"):
        notice = privacy_notice()
    words = " ".join(value for _, value in notice.fields)
    assert "deleted 30 days later" in words
    assert "A sign-in lasts 7 days" in words
    assert "No Discord password or Discord access token is kept." in words
    for way in ("/mydata export", "/mydata forget", "/admin forget-server", "/admin settings web:"):
        assert way in words
        assert way.removeprefix("/").removesuffix(" web:") in CONSOLE_COMMANDS
    assert "--export-user" in words and "--forget-user" in words


@pytest.mark.parametrize("language", languages())
def test_the_notice_fits_one_embed_in_every_language(language: str) -> None:
    with speaking(language):
        notice = privacy_notice()
    assert 0 < len(notice.title) <= 256 and len(notice.text) <= 4096
    assert len(notice.fields) <= 25
    for name, value in notice.fields:
        assert 0 < len(name) <= 256 and 0 < len(value) <= 1024, name
    total = len(notice.title) + len(notice.text)
    total += sum(len(name) + len(value) for name, value in notice.fields)
    assert total <= 6000


@pytest.fixture
async def client(storage: Storage) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    house = house_of(storage, front=FrontEnd(BOT))
    try:
        async with TestClient(TestServer(make_app(house.pages, CONFIG))) as client:
            yield client
    finally:
        house.close()


async def test_the_privacy_page_shows_the_notice_and_every_page_links_it(
    client: TestClient[web.Request, web.Application],
) -> None:
    page = await client.get("/privacy", headers={"Accept-Language": "en"})
    assert page.status == 200
    body = await page.text()
    with speaking("en"):
        notice = privacy_notice()
    assert f"<h1>{notice.title}</h1>" in body
    for heading, _ in notice.fields:
        assert f"<h2>{heading}</h2>" in body
    assert "Discord user id and your display name as last seen" in body
    assert "deleted 30 days later" in body
    front = await (await client.get("/")).text()
    assert 'href="/privacy"' in front
    inside = await (await client.get("/a/privacy")).text()
    assert 'href="/.proxy/a/privacy"' in inside
