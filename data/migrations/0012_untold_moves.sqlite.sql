-- Moves made away from Discord (on the web pages, in the Activity) that the game's channel
-- has not been told yet: the ply the first of them was made at, and the ply the last of
-- them reached, set by the move's own statement; cleared by the process that tells the
-- channel, up to the ply it told (moves made on Discord in between are told by their own
-- replies, and are not told again).
ALTER TABLE games ADD COLUMN untold_from INTEGER;
ALTER TABLE games ADD COLUMN untold_last INTEGER;
-- The games waiting to be told: few at any time, whatever the number of games.
CREATE INDEX games_untold ON games (id) WHERE untold_from IS NOT NULL;
