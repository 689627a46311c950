-- Away time: each player's balance of days, and the time they are away. While a player
-- is away, the deadlines of their own decisions stop; a game's clock stopped so keeps the
-- time it had left (paused_left), and runs again with it when they are back.
CREATE TABLE away (
    user_id     BIGINT  PRIMARY KEY REFERENCES users (id),
    balance     INTEGER NOT NULL,             -- whole days left
    credited    TEXT    NOT NULL,             -- the last month whose days were added, YYYY-MM
    away_from   DOUBLE PRECISION,                         -- NULL: not away
    away_until  DOUBLE PRECISION,
    days        INTEGER                       -- days taken for the time away
);
-- The absences that end: each leaves the index when its player is back.
CREATE INDEX away_ending ON away (away_until) WHERE away_until IS NOT NULL;

ALTER TABLE games ADD COLUMN paused_left DOUBLE PRECISION;  -- seconds left of a clock stopped for away time

-- An event may keep its games' deadlines running for players away.
ALTER TABLE events ADD COLUMN away INTEGER NOT NULL DEFAULT 1;
