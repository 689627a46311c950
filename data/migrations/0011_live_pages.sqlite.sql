-- Pages that show games live: people signed in on the web keep their session here. (The
-- changes to games are announced by the one process's own writer connection, with
-- triggers of its own: data/sqlite/feed.py.)

-- Web sessions: the SHA-256 (hex) of the random token in the person's cookie, never the
-- token itself; who they are on Discord and the servers they are in (a JSON list of ids).
CREATE TABLE web_sessions (
    token_hash  TEXT    PRIMARY KEY,
    user_id     INTEGER NOT NULL,
    user_name   TEXT    NOT NULL,
    guild_ids   TEXT    NOT NULL DEFAULT '[]',
    created_at  REAL    NOT NULL,             -- Unix seconds
    expires_at  REAL    NOT NULL
);
-- Expired sessions are removed oldest first, a bounded batch at a time.
CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);
