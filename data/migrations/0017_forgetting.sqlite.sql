-- A person may ask to be forgotten. Their seats in games others played stay (the others'
-- records, results and ratings must still read and replay), held by "a former player":
-- a users row made for them alone, with no name, that nothing links back to them.
ALTER TABLE users ADD COLUMN former INTEGER NOT NULL DEFAULT 0;  -- 1: a former player

-- A forgetting under way: whose, the former player who takes their seats, and the steps
-- done. Each step is one transaction; a forgetting interrupted is continued from its row,
-- which is removed by the last step (then nothing links the two ids).
CREATE TABLE forgetting (
    user_id     INTEGER PRIMARY KEY,
    former_id   INTEGER NOT NULL,
    step        INTEGER NOT NULL DEFAULT 0,   -- steps done
    after_game  INTEGER NOT NULL DEFAULT 0,   -- the last row read by a step that pages
    started_at  REAL    NOT NULL
);
-- Forgettings left unfinished are found by when they started (they are few, and gone
-- once done).
CREATE INDEX forgetting_by_start ON forgetting (started_at);

-- The move log stays append-only, but for one change: a move's person becomes a former
-- player (nothing else of a move may change, and no one else may take it over).
DROP TRIGGER moves_no_update;
CREATE TRIGGER moves_no_update BEFORE UPDATE ON moves
WHEN NEW.game_id IS NOT OLD.game_id OR NEW.ply IS NOT OLD.ply OR NEW.seat IS NOT OLD.seat
    OR NEW.text IS NOT OLD.text OR NEW.created_at IS NOT OLD.created_at
    OR NOT EXISTS (SELECT 1 FROM users WHERE id = NEW.user_id AND former = 1)
BEGIN SELECT RAISE(ABORT, 'the move log is append-only'); END;

-- Everything stored of a person is found from them, each table in its own index.
CREATE INDEX games_by_creator ON games (created_by);
CREATE INDEX seats_by_leaver ON seats (left_by) WHERE left_by IS NOT NULL;
CREATE INDEX daily_totals_by_user ON daily_totals (user_id);
CREATE INDEX follows_by_user ON follows (user_id);
CREATE INDEX rating_changes_by_user ON rating_changes (user_id);
CREATE INDEX head_to_head_by_user ON head_to_head (user_id);
CREATE INDEX head_to_head_by_other ON head_to_head (other_id);
CREATE INDEX events_by_creator ON events (created_by);
CREATE INDEX web_sessions_by_user ON web_sessions (user_id);
CREATE INDEX console_buttons_by_owner ON console_buttons (owner);
-- The console's buttons are read in the order they were shown, a page at a time, for
-- those that hold a person forgotten.
CREATE INDEX console_buttons_by_shown ON console_buttons (shown);
