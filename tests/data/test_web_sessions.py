"""Web sign-in sessions on each backend: kept by their token's hash, until they expire or
end, and pruned a bounded batch at a time, oldest first."""

from __future__ import annotations

import pytest

from data.storage import Storage, open_storage
from data.web import WebSession, token_hash

#: Discord ids reach 2**63 - 1: they come back whole.
BIG = 2**63 - 1


async def test_a_session_is_kept_by_its_tokens_hash_until_it_expires(storage: Storage) -> None:
    web = storage.web
    kept = token_hash("cookie-token")
    await web.create_session(kept, BIG, "alice", [5, BIG, 5], now=100.0, expires_at=200.0)
    expected = WebSession(BIG, "alice", frozenset({5, BIG}), 200.0)
    assert await web.session(kept, now=100.0) == expected
    assert await web.session(kept, now=199.5) == expected
    assert await web.session(kept, now=200.0) is None  # expired
    assert await web.session(token_hash("another token"), now=100.0) is None
    # The token itself is never what is kept.
    assert await web.session("cookie-token", now=100.0) is None
    rows = await storage.database.fetch("SELECT token_hash FROM web_sessions")
    assert [row[0] for row in rows] == [kept]


async def test_the_token_itself_is_refused_as_a_key(storage: Storage) -> None:
    with pytest.raises(ValueError):
        await storage.web.create_session("cookie-token", 1, "alice", [], 1.0, 2.0)
    with pytest.raises(ValueError):
        await storage.web.create_session(token_hash("x").upper(), 1, "alice", [], 1.0, 2.0)


async def test_a_session_in_no_server_and_one_created_again(storage: Storage) -> None:
    web = storage.web
    key = token_hash("t")
    await web.create_session(key, 7, "bob", (), now=1.0, expires_at=10.0)
    assert await web.session(key, now=2.0) == WebSession(7, "bob", frozenset(), 10.0)
    await web.create_session(key, 7, "bobby", {3}, now=5.0, expires_at=20.0)
    assert await web.session(key, now=15.0) == WebSession(7, "bobby", frozenset({3}), 20.0)


async def test_ending_a_session_signs_out(storage: Storage) -> None:
    web = storage.web
    mine, theirs = token_hash("mine"), token_hash("theirs")
    await web.create_session(mine, 1, "alice", [5], now=1.0, expires_at=100.0)
    await web.create_session(theirs, 2, "bob", [5], now=1.0, expires_at=100.0)
    await web.end_session(mine)
    await web.end_session(mine)  # again: nothing left to end
    assert await web.session(mine, now=2.0) is None
    assert await web.session(theirs, now=2.0) is not None


async def test_pruning_removes_expired_sessions_oldest_first_a_batch_at_a_time(
    storage: Storage,
) -> None:
    web = storage.web
    for n, expires in enumerate((50.0, 10.0, 30.0, 20.0, 40.0, 500.0)):
        await web.create_session(token_hash(f"t{n}"), n, f"p{n}", [], 1.0, expires)
    assert await web.prune_sessions(now=45.0, limit=2) == 2  # 10 and 20
    left = await storage.database.fetch("SELECT expires_at FROM web_sessions")
    assert sorted(row[0] for row in left) == [30.0, 40.0, 50.0, 500.0]
    assert await web.prune_sessions(now=45.0, limit=10) == 2  # 30 and 40
    assert await web.prune_sessions(now=45.0, limit=10) == 0
    assert await web.session(token_hash("t0"), now=45.0) is not None
    assert await web.session(token_hash("t5"), now=45.0) is not None


async def test_a_session_made_by_one_process_is_read_by_another(storage_target: str) -> None:
    first = await open_storage(storage_target)
    second = await open_storage(storage_target)
    try:
        key = token_hash("shared")
        await first.web.create_session(key, 1, "alice", [5], now=1.0, expires_at=100.0)
        assert await second.web.session(key, now=2.0) == WebSession(
            1, "alice", frozenset({5}), 100.0
        )
        await second.web.end_session(key)
        assert await first.web.session(key, now=2.0) is None
    finally:
        await second.close()
        await first.close()
