-- The servers the bot is in, and those it was removed from: everything of a server it
-- left is deleted once `forget_at` has passed, unless it is invited back first. A server
-- only unavailable for a while (an outage) is still one the bot is in.
CREATE TABLE guilds (
    guild_id    INTEGER PRIMARY KEY,
    seen_at     REAL    NOT NULL,             -- when the bot last found itself in it
    left_at     REAL,                         -- NULL: the bot is in it
    forget_at   REAL,                         -- when its data goes; NULL: never
    forgetting  INTEGER NOT NULL DEFAULT 0    -- 1: its data is being deleted, step by step
);
-- The sweep reads only the servers whose data is due to go.
CREATE INDEX guilds_to_forget ON guilds (forget_at) WHERE forget_at IS NOT NULL;

-- A server's ratings, and the head-to-head records last played in a game, are found
-- by what they are of when the server's data is deleted. The ratings' index is in the
-- table's own order after its scope, so that a table read by game and scope is read in
-- order from either index, never sorted whole.
CREATE INDEX ratings_of_scope ON ratings (scope, game, mu DESC, games DESC, user_id);
CREATE INDEX head_to_head_by_last_game ON head_to_head (last_game_id);

-- The move log stays append-only, but for the games of a server whose data is being
-- deleted: those go with every move of them.
DROP TRIGGER moves_no_delete;
CREATE TRIGGER moves_no_delete BEFORE DELETE ON moves
WHEN NOT EXISTS (
    SELECT 1 FROM games g JOIN guilds s ON s.guild_id = g.guild_id
    WHERE g.id = OLD.game_id AND s.forgetting = 1
)
BEGIN SELECT RAISE(ABORT, 'the move log is append-only'); END;
