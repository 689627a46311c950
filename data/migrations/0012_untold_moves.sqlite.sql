-- Moves made away from Discord (on the web pages, in the Activity) that the game's channel
-- has not been told yet: the ply the first of them was made at, set by the move's own
-- statement, and cleared once by the process that tells the channel.
ALTER TABLE games ADD COLUMN untold_from INTEGER;
-- The games waiting to be told: few at any time, whatever the number of games.
CREATE INDEX games_untold ON games (id) WHERE untold_from IS NOT NULL;
