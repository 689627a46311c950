-- A move is one statement: raising a game's ply by one, with the move that did it, logs
-- that move in the same statement (and so the same transaction). One round trip commits
-- a move, and no lock is held between a check and a write.
ALTER TABLE games ADD COLUMN last_seat INTEGER;      -- the seat that made move `ply`
ALTER TABLE games ADD COLUMN last_user_id BIGINT;    -- who made it (a users id)
ALTER TABLE games ADD COLUMN last_move TEXT;         -- its canonical notation

-- The ply only ever goes up by one, one move at a time.
CREATE FUNCTION games_ply_steps_by_one() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a game''s ply goes up by one move at a time'
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE TRIGGER games_ply_steps_by_one BEFORE UPDATE OF ply ON games
    FOR EACH ROW WHEN (NEW.ply <> OLD.ply + 1) EXECUTE FUNCTION games_ply_steps_by_one();

-- The move is logged from the row's last_* columns: when they are not set (NULL), the
-- log's NOT NULL constraints fail the whole statement.
CREATE FUNCTION games_log_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO moves (game_id, ply, seat, user_id, text, created_at)
    VALUES (NEW.id, NEW.ply, NEW.last_seat, NEW.last_user_id, NEW.last_move, NEW.updated_at);
    RETURN NULL;
END;
$$;
CREATE TRIGGER games_log_move AFTER UPDATE OF ply ON games
    FOR EACH ROW EXECUTE FUNCTION games_log_move();
