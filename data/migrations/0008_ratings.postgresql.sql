-- Ratings per game, per server and global (scope 0), kept from the stored results. A
-- finished game is marked once it has been through the rating (rated or not), in the
-- same transaction as its changes, so no game is ever counted twice, by any process.
ALTER TABLE games ADD COLUMN rated_at DOUBLE PRECISION;  -- NULL: not through the rating yet
CREATE INDEX games_unrated ON games (finished_at, id)
    WHERE kind = 'channel' AND status = 'finished' AND rated_at IS NULL;

-- What one rated game did to each player's rating, in each scope.
CREATE TABLE rating_changes (
    scope        BIGINT  NOT NULL,            -- the server's id; 0: the global table
    user_id      BIGINT  NOT NULL REFERENCES users (id),
    game_id      BIGINT  NOT NULL REFERENCES games (id),
    game         TEXT    NOT NULL,
    finished_at  DOUBLE PRECISION NOT NULL,
    outcome      TEXT    NOT NULL CHECK (outcome IN ('win', 'draw', 'loss')),
    place        INTEGER NOT NULL,            -- 1: first; players who tied share one
    mu_before    DOUBLE PRECISION NOT NULL,
    sigma_before DOUBLE PRECISION NOT NULL,
    mu_after     DOUBLE PRECISION NOT NULL,
    sigma_after  DOUBLE PRECISION NOT NULL,
    others_mu    DOUBLE PRECISION NOT NULL,   -- the mean μ of the other players before it
    others       TEXT    NOT NULL,            -- their user ids, a JSON list
    PRIMARY KEY (scope, user_id, game_id)
);
CREATE INDEX rating_changes_by_game ON rating_changes (game_id);

-- Each player's rating now, with their record, in each game and scope.
CREATE TABLE ratings (
    game        TEXT    NOT NULL,
    scope       BIGINT  NOT NULL,
    user_id     BIGINT  NOT NULL REFERENCES users (id),
    mu          DOUBLE PRECISION NOT NULL,
    sigma       DOUBLE PRECISION NOT NULL,
    games       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    draws       INTEGER NOT NULL,
    losses      INTEGER NOT NULL,
    streak      INTEGER NOT NULL,             -- n > 0: n wins in a row; n < 0: -n losses
    PRIMARY KEY (game, scope, user_id)
);
CREATE INDEX ratings_table ON ratings (game, scope, mu DESC);

-- The par line itself, so that the par run of a closed day can be replayed.
ALTER TABLE daily_par ADD COLUMN moves TEXT;  -- the turns, one per line; NULL: not kept
