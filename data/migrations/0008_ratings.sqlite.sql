-- Ratings per game, per server and global (scope 0), kept from the stored results. A
-- finished game is marked once it has been through the rating (rated or not), in the
-- same transaction as its changes, so no game is ever counted twice, by any process.
ALTER TABLE games ADD COLUMN rated_at REAL;  -- NULL: not through the rating yet
CREATE INDEX games_unrated ON games (finished_at, id)
    WHERE kind = 'channel' AND status = 'finished' AND rated_at IS NULL;

-- What one rated game did to each player's rating, in each scope.
CREATE TABLE rating_changes (
    scope        INTEGER NOT NULL,            -- the server's id; 0: the global table
    user_id      INTEGER NOT NULL REFERENCES users (id),
    game_id      INTEGER NOT NULL REFERENCES games (id),
    game         TEXT    NOT NULL,
    finished_at  REAL    NOT NULL,
    outcome      TEXT    NOT NULL CHECK (outcome IN ('win', 'draw', 'loss')),
    place        INTEGER NOT NULL,            -- 1: first; players who tied share one
    mu_before    REAL    NOT NULL,
    sigma_before REAL    NOT NULL,
    mu_after     REAL    NOT NULL,
    sigma_after  REAL    NOT NULL,
    others_mu    REAL    NOT NULL,            -- the mean μ of the other players before it
    others       TEXT    NOT NULL,            -- their user ids, a JSON list
    PRIMARY KEY (scope, user_id, game_id)
) WITHOUT ROWID;
CREATE INDEX rating_changes_by_game ON rating_changes (game_id);

-- Each player's rating now, with their record, in each game and scope.
CREATE TABLE ratings (
    game        TEXT    NOT NULL,
    scope       INTEGER NOT NULL,
    user_id     INTEGER NOT NULL REFERENCES users (id),
    mu          REAL    NOT NULL,
    sigma       REAL    NOT NULL,
    games       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    draws       INTEGER NOT NULL,
    losses      INTEGER NOT NULL,
    streak      INTEGER NOT NULL,             -- n > 0: n wins in a row; n < 0: -n losses
    PRIMARY KEY (game, scope, user_id)
) WITHOUT ROWID;
CREATE INDEX ratings_table ON ratings (game, scope, mu DESC);

-- The par line itself, so that the par run of a closed day can be replayed.
ALTER TABLE daily_par ADD COLUMN moves TEXT;  -- the turns, one per line; NULL: not kept
