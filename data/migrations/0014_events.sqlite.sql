-- Events: tournaments of many games, run round by round in a server.
CREATE TABLE events (
    id              INTEGER PRIMARY KEY,
    guild_id        INTEGER NOT NULL,
    channel_id      INTEGER NOT NULL,         -- where it was made: its rounds are posted there
    game            TEXT    NOT NULL,         -- engine registry id
    format          TEXT    NOT NULL
                    CHECK (format IN ('swiss', 'round-robin', 'double-round-robin', 'cup')),
    name            TEXT,                     -- the name an admin gave it; NULL: none given
    table_size      INTEGER NOT NULL DEFAULT 2 CHECK (table_size BETWEEN 1 AND 4),
    rounds          INTEGER,                  -- rounds planned; NULL until it starts, if not given
    deadline_minutes INTEGER,                 -- a decision's time in its games (a cup: its window)
    seed            INTEGER NOT NULL,         -- a cup's hill
    state           TEXT    NOT NULL DEFAULT 'open'
                    CHECK (state IN ('open', 'running', 'finished', 'ended')),
    round           INTEGER NOT NULL DEFAULT 0,  -- the round under way (0: not started)
    created_by      INTEGER NOT NULL REFERENCES users (id),
    created_at      REAL    NOT NULL,
    started_at      REAL,
    round_at        REAL,                     -- when the round under way started
    closes_at       REAL,                     -- a cup's window closes then
    finished_at     REAL
);
CREATE INDEX events_of_guild ON events (guild_id, id);
CREATE INDEX events_live_in_channel ON events (channel_id, id) WHERE state IN ('open', 'running');
CREATE INDEX events_running ON events (id) WHERE state = 'running';

-- Who entered, in the order they entered; `state` says whether they are still paired.
CREATE TABLE event_entrants (
    event_id    INTEGER NOT NULL REFERENCES events (id),
    user_id     INTEGER NOT NULL REFERENCES users (id),
    entry       INTEGER NOT NULL,             -- 1 for the first to enter
    state       TEXT    NOT NULL DEFAULT 'in'
                CHECK (state IN ('in', 'left', 'removed', 'absent')),  -- absent: lost unmoved
    joined_at   REAL    NOT NULL,
    PRIMARY KEY (event_id, user_id)
);
CREATE UNIQUE INDEX event_entrants_in_order ON event_entrants (event_id, entry);
CREATE INDEX event_entrants_by_user ON event_entrants (user_id, event_id);

-- The tables of each round: a game, or a bye (one seat, decided as it is made).
CREATE TABLE event_tables (
    event_id    INTEGER NOT NULL REFERENCES events (id),
    round       INTEGER NOT NULL CHECK (round >= 1),
    board       INTEGER NOT NULL CHECK (board >= 1),  -- 1 for the best-placed table
    bye         INTEGER NOT NULL DEFAULT 0,
    game_id     INTEGER UNIQUE REFERENCES games (id),  -- NULL until its game starts
    thread_id   INTEGER,                      -- the thread made for its game
    starting_at REAL,                         -- a process began to start its game then
    forfeit     INTEGER NOT NULL DEFAULT 0,   -- decided without being played
    decided_at  REAL,                         -- NULL while it is being played
    PRIMARY KEY (event_id, round, board)
);
CREATE INDEX event_tables_undecided ON event_tables (event_id, round) WHERE decided_at IS NULL;

-- Who sits where at each table, and where they finished.
CREATE TABLE event_seats (
    event_id    INTEGER NOT NULL,
    round       INTEGER NOT NULL,
    board       INTEGER NOT NULL,
    seat        INTEGER NOT NULL CHECK (seat >= 0),
    user_id     INTEGER NOT NULL REFERENCES users (id),
    place       INTEGER,                      -- 1 best, shared by a tie; NULL until decided
    score       INTEGER,                      -- a cup's score, as the game ended
    turns       INTEGER,                      -- a cup's turns taken
    PRIMARY KEY (event_id, round, board, seat),
    FOREIGN KEY (event_id, round, board) REFERENCES event_tables (event_id, round, board)
);
CREATE INDEX event_seats_by_user ON event_seats (user_id, event_id);
