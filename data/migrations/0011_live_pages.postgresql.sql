-- Pages that show games live: every committed change a viewer of a game sees is announced
-- to every process on the database, and people signed in on the web keep their session
-- here, whichever process serves their next page.

-- A change is announced on the channel hilltop_games with the game's id, when its
-- transaction commits (nothing, if it rolls back; a game changed twice in one transaction
-- is announced once). A new game; a change of what a viewer sees in a game (not a
-- reminder, the board's message or the rating's mark); a seat taken by someone else, or
-- accepted (a challenge accepted by some of its players changes no game row). A copy
-- of a whole database sets hilltop.announce to 'off' for its transaction: nothing can
-- be watching a database being filled.
CREATE FUNCTION games_announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('hilltop.announce', true) IS DISTINCT FROM 'off' THEN
        PERFORM pg_notify('hilltop_games', NEW.id::text);
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER games_announce_new AFTER INSERT ON games
    FOR EACH ROW EXECUTE FUNCTION games_announce();
CREATE TRIGGER games_announce_change AFTER UPDATE OF ply, status, snapshot, options,
    result, updated_at, finished_at, deadline_at, deadline_from, expired_at ON games
    FOR EACH ROW
    WHEN ((NEW.ply, NEW.status, NEW.snapshot, NEW.options, NEW.result, NEW.updated_at,
        NEW.finished_at, NEW.deadline_at, NEW.deadline_from, NEW.expired_at)
        IS DISTINCT FROM (OLD.ply, OLD.status, OLD.snapshot, OLD.options, OLD.result,
        OLD.updated_at, OLD.finished_at, OLD.deadline_at, OLD.deadline_from, OLD.expired_at))
    EXECUTE FUNCTION games_announce();

CREATE FUNCTION seats_announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('hilltop.announce', true) IS DISTINCT FROM 'off' THEN
        PERFORM pg_notify('hilltop_games', NEW.game_id::text);
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER seats_announce_change AFTER UPDATE OF user_id, is_bot, accepted ON seats
    FOR EACH ROW
    WHEN ((NEW.user_id, NEW.is_bot, NEW.accepted)
        IS DISTINCT FROM (OLD.user_id, OLD.is_bot, OLD.accepted))
    EXECUTE FUNCTION seats_announce();

-- Web sessions: the SHA-256 (hex) of the random token in the person's cookie, never the
-- token itself; who they are on Discord and the servers they are in (a JSON list of ids).
CREATE TABLE web_sessions (
    token_hash  TEXT    PRIMARY KEY,
    user_id     BIGINT  NOT NULL,
    user_name   TEXT    NOT NULL,
    guild_ids   TEXT    NOT NULL DEFAULT '[]',
    created_at  DOUBLE PRECISION NOT NULL,    -- Unix seconds
    expires_at  DOUBLE PRECISION NOT NULL
);
-- Expired sessions are removed oldest first, a bounded batch at a time.
CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);
