-- Years of history: every read a command makes is an indexed look-up or a bounded page.

-- An ended game has its end time (older rows may lack it): pages of history are cut by it.
UPDATE games SET finished_at = updated_at
WHERE finished_at IS NULL AND status IN ('finished', 'aborted', 'declined');

-- A seat knows whether its game is still live, and when it ended: a player's live games
-- and their history are found in their own seats, never among everyone's games.
ALTER TABLE seats ADD COLUMN live INTEGER NOT NULL DEFAULT 1;  -- 0: the game has ended
ALTER TABLE seats ADD COLUMN finished_at DOUBLE PRECISION;     -- the game's, once ended
UPDATE seats s SET live = 0, finished_at = g.finished_at
FROM games g WHERE g.id = s.game_id AND g.status NOT IN ('challenge', 'active');
CREATE INDEX seats_live_of_user ON seats (user_id, game_id) WHERE live = 1;
CREATE INDEX seats_history_of_user ON seats (user_id, finished_at, game_id) WHERE live = 0;

-- A game that ends marks its seats in the same statement.
CREATE FUNCTION games_seats_end() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE seats SET live = 0, finished_at = NEW.finished_at WHERE game_id = NEW.id;
    RETURN NULL;
END;
$$;
CREATE TRIGGER games_seats_end AFTER UPDATE OF status ON games
    FOR EACH ROW
    WHEN (NEW.status NOT IN ('challenge', 'active') AND OLD.status IN ('challenge', 'active'))
    EXECUTE FUNCTION games_seats_end();

-- A server's live games, page by page; its ended games, newest first, page by page.
CREATE INDEX games_live_in_guild ON games (guild_id, id)
    WHERE kind = 'channel' AND status IN ('challenge', 'active');
CREATE INDEX games_history_of_guild ON games (guild_id, finished_at, id)
    WHERE kind = 'channel' AND status IN ('finished', 'aborted');
CREATE INDEX games_history_of_guild_game ON games (guild_id, game, finished_at, id)
    WHERE kind = 'channel' AND status IN ('finished', 'aborted');

-- Challenges nobody answered, for the sweep that runs every few seconds.
CREATE INDEX games_open_challenges ON games (created_at) WHERE status = 'challenge';

-- A place in a table is one more than the ratings ahead, counted in this index.
DROP INDEX ratings_table;
CREATE INDEX ratings_table ON ratings (game, scope, mu DESC, games DESC, user_id);
CREATE INDEX ratings_of_user ON ratings (user_id, scope);
CREATE INDEX rating_changes_best_win ON rating_changes (scope, user_id, game, others_mu, finished_at)
    WHERE outcome = 'win';

-- A player's daily record is read from their totals: runs scored unfinished are counted
-- there too, as they are recorded.
ALTER TABLE daily_totals ADD COLUMN unfinished INTEGER NOT NULL DEFAULT 0;
UPDATE daily_totals SET unfinished = (
    SELECT count(*) FROM daily_runs r
    WHERE r.user_id = daily_totals.user_id AND r.unfinished = 1 AND r.finished_at IS NOT NULL
        AND (daily_totals.period = 'all' OR r.week = daily_totals.period)
);

-- Each pair of players' record against each other, per game and scope, kept as games are
-- rated: a profile's head-to-head reads one row a game, however often the two have met.
CREATE TABLE head_to_head (
    scope            BIGINT NOT NULL,          -- the server's id; 0: the global table
    user_id          BIGINT NOT NULL REFERENCES users (id),
    other_id         BIGINT NOT NULL REFERENCES users (id),
    game             TEXT    NOT NULL,
    wins             INTEGER NOT NULL,        -- games user_id finished ahead of other_id
    draws            INTEGER NOT NULL,
    losses           INTEGER NOT NULL,
    last_game_id     BIGINT NOT NULL REFERENCES games (id),
    last_finished_at DOUBLE PRECISION NOT NULL,
    last_outcome     TEXT    NOT NULL CHECK (last_outcome IN ('win', 'draw', 'loss')),
    PRIMARY KEY (scope, user_id, other_id, game)
);
INSERT INTO head_to_head (scope, user_id, other_id, game, wins, draws, losses, last_game_id,
    last_finished_at, last_outcome)
SELECT scope, user_id, other_id, game, wins, draws, losses, game_id, finished_at, outcome
FROM (
    SELECT a.scope, a.user_id, b.user_id AS other_id, a.game, a.game_id, a.finished_at,
        CASE WHEN a.place < b.place THEN 'win' WHEN a.place = b.place THEN 'draw'
            ELSE 'loss' END AS outcome,
        sum(CASE WHEN a.place < b.place THEN 1 ELSE 0 END) OVER pair AS wins,
        sum(CASE WHEN a.place = b.place THEN 1 ELSE 0 END) OVER pair AS draws,
        sum(CASE WHEN a.place > b.place THEN 1 ELSE 0 END) OVER pair AS losses,
        row_number() OVER (PARTITION BY a.scope, a.user_id, b.user_id, a.game
            ORDER BY a.finished_at DESC, a.game_id DESC) AS newest
    FROM rating_changes a
    JOIN rating_changes b
        ON b.scope = a.scope AND b.game_id = a.game_id AND b.user_id <> a.user_id
    WINDOW pair AS (PARTITION BY a.scope, a.user_id, b.user_id, a.game)
) AS met
WHERE newest = 1;
