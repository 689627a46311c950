-- Games, their seats, the append-only move log and the current snapshot.
CREATE TABLE users (
    id          INTEGER PRIMARY KEY,          -- Discord user id (console users: a stable hash)
    name        TEXT    NOT NULL,             -- last display name seen
    is_bot      INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE games (
    id              INTEGER PRIMARY KEY,
    game            TEXT    NOT NULL,         -- engine registry id
    kind            TEXT    NOT NULL DEFAULT 'channel' CHECK (kind IN ('channel', 'daily')),
    guild_id        INTEGER,                  -- NULL in direct messages
    channel_id      INTEGER,                  -- the channel or thread it is bound to
    status          TEXT    NOT NULL
                    CHECK (status IN ('challenge', 'active', 'finished', 'aborted', 'declined')),
    seed            INTEGER NOT NULL,
    variant         TEXT,
    rules_version   INTEGER NOT NULL,
    start_position  TEXT,                     -- notation of a custom start, else NULL
    ply             INTEGER NOT NULL DEFAULT 0 CHECK (ply >= 0),  -- moves applied so far
    snapshot        TEXT    NOT NULL,         -- notation after `ply` moves (a cache of the log)
    options         TEXT    NOT NULL DEFAULT '{}',  -- JSON: level and other settings
    result          TEXT,                     -- JSON once finished or aborted
    created_by      INTEGER NOT NULL REFERENCES users (id),
    created_at      REAL    NOT NULL,         -- Unix seconds
    updated_at      REAL    NOT NULL,
    finished_at     REAL
);

-- One live game per channel: a challenge or a game in progress.
CREATE UNIQUE INDEX games_one_live_per_channel
    ON games (channel_id) WHERE status IN ('challenge', 'active') AND kind = 'channel';
CREATE INDEX games_live_by_guild ON games (guild_id, status);

CREATE TABLE seats (
    game_id     INTEGER NOT NULL REFERENCES games (id),
    seat        INTEGER NOT NULL CHECK (seat >= 0),
    user_id     INTEGER NOT NULL REFERENCES users (id),
    is_bot      INTEGER NOT NULL DEFAULT 0,
    accepted    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX seats_by_user ON seats (user_id);

CREATE TABLE moves (
    game_id     INTEGER NOT NULL REFERENCES games (id),
    ply         INTEGER NOT NULL CHECK (ply >= 1), -- this move makes the game's ply this value
    seat        INTEGER NOT NULL,
    user_id     INTEGER NOT NULL REFERENCES users (id),
    text        TEXT    NOT NULL,             -- canonical move notation
    created_at  REAL    NOT NULL,
    PRIMARY KEY (game_id, ply)
);

-- The log is append-only: a committed move is never changed or removed.
CREATE TRIGGER moves_no_update BEFORE UPDATE ON moves
BEGIN SELECT RAISE(ABORT, 'the move log is append-only'); END;
CREATE TRIGGER moves_no_delete BEFORE DELETE ON moves
BEGIN SELECT RAISE(ABORT, 'the move log is append-only'); END;
