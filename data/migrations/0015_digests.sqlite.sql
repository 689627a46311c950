-- The daily digests: one row per player who takes one, for as long as they take it.
CREATE TABLE digests (
    user_id     INTEGER PRIMARY KEY,
    next_at     REAL    NOT NULL,     -- when the next one is due (the player's local hour)
    ends_from   REAL    NOT NULL      -- games that ended after this go in the next one
);
CREATE INDEX digests_due ON digests (next_at);
