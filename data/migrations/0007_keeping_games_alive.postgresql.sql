-- Every decision's clock, reminders, a run-out decision the other player may claim, and
-- the latest board's message (for jump links).
ALTER TABLE games ADD COLUMN deadline_from DOUBLE PRECISION;  -- when the running decision's time began
ALTER TABLE games ADD COLUMN remind_at DOUBLE PRECISION;      -- the next reminder due; NULL: none
ALTER TABLE games ADD COLUMN expired_at DOUBLE PRECISION;     -- time ran out with no default: claimable
ALTER TABLE games ADD COLUMN board_message_id BIGINT;         -- the latest board posted in the channel
CREATE INDEX games_reminders ON games (remind_at) WHERE remind_at IS NOT NULL AND status = 'active';

-- Settings of a server (admins) and of a player (/notify), JSON objects.
CREATE TABLE guild_settings (
    guild_id    BIGINT  PRIMARY KEY,
    settings    TEXT    NOT NULL DEFAULT '{}'
);
CREATE TABLE user_settings (
    user_id     BIGINT  PRIMARY KEY,
    settings    TEXT    NOT NULL DEFAULT '{}'
);

-- People following a game they do not play in.
CREATE TABLE follows (
    game_id     BIGINT  NOT NULL REFERENCES games (id),
    user_id     BIGINT  NOT NULL REFERENCES users (id),
    PRIMARY KEY (game_id, user_id)
);
