-- The daily Hillbert challenge: one scored run per user per UTC day, leaderboards, par.
CREATE TABLE daily_runs (
    user_id     BIGINT  NOT NULL REFERENCES users (id),
    day         TEXT    NOT NULL,             -- UTC date the run started, YYYY-MM-DD
    week        TEXT    NOT NULL,             -- its ISO week, YYYY-Www
    game_id     BIGINT  NOT NULL UNIQUE REFERENCES games (id),
    started_at  DOUBLE PRECISION NOT NULL,
    finished_at DOUBLE PRECISION,             -- set once the result is validated
    score       INTEGER,
    turns       INTEGER,
    sizes       TEXT,                         -- his size after each turn, e.g. "1123321"
    PRIMARY KEY (user_id, day)                -- one scored attempt per user per day
);
CREATE INDEX daily_runs_today ON daily_runs (day, score DESC, turns, finished_at)
    WHERE finished_at IS NOT NULL;

-- Running totals, kept in the same transaction as a finished run, so that the weekly and
-- all-time boards never scan every run.
CREATE TABLE daily_totals (
    period      TEXT    NOT NULL,             -- 'all' or an ISO week 'YYYY-Www'
    user_id     BIGINT  NOT NULL REFERENCES users (id),
    total       BIGINT  NOT NULL,
    best        INTEGER NOT NULL,
    runs        INTEGER NOT NULL,
    last_at     DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (period, user_id)
);
CREATE INDEX daily_totals_rank ON daily_totals (period, total DESC, best DESC, last_at);

-- Which users have used the bot in which server: the "server" leaderboards.
CREATE TABLE guild_members (
    guild_id    BIGINT  NOT NULL,
    user_id     BIGINT  NOT NULL REFERENCES users (id),
    PRIMARY KEY (guild_id, user_id)
);
CREATE INDEX guild_members_by_user ON guild_members (user_id);

CREATE TABLE daily_par (
    day         TEXT    PRIMARY KEY,
    score       INTEGER NOT NULL,
    turns       INTEGER NOT NULL,
    computed_at DOUBLE PRECISION NOT NULL
);
