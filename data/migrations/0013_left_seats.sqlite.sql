-- A person who resigns from a game of three or four leaves their seats to a computer, and
-- is still rated for the game: each seat keeps who held it before a computer took it over
-- (left_by, set as the seat changes hands and never changed after), so that the game
-- stays in its resigner's history, found in their own index as the seats they hold are.
ALTER TABLE seats ADD COLUMN left_by INTEGER REFERENCES users (id);  -- NULL: never left

-- The seats computers took over before now (those in a game's options' taken_over) learn
-- who left them from what was stored. First, the person who made a move from the seat:
-- until a computer took it over, only they held it. Else the game's options, read as the
-- bot has written them since it listed resigners: resigned names each resigner once, in
-- the order they resigned, and taken_over gained all of a resigner's seats at once, in
-- the same order. With one resigner, or as many resigners as seats taken over, every
-- seat's resigner is known; otherwise (someone who held two seats resigned, and somebody
-- else did too) only the first seat's (the first resigner's) and the last seat's (the
-- last resigner's). What cannot be recovered: a seat between those whose person never
-- moved from it; and a seat of a game stored before resigners were listed whose person
-- never moved from it. Such a seat keeps no left_by, and its game stays out of its
-- resigner's history (they are still rated for it).
UPDATE seats SET left_by = COALESCE(
    (SELECT m.user_id FROM moves m JOIN users u ON u.id = m.user_id
        WHERE m.game_id = seats.game_id AND m.seat = seats.seat AND u.is_bot = 0
        ORDER BY m.ply LIMIT 1),
    (SELECT r.value
        FROM games g, json_each(g.options, '$.taken_over') t, json_each(g.options, '$.resigned') r
        WHERE g.id = seats.game_id AND t.type = 'integer' AND t.value = seats.seat
            AND json_type(g.options, '$.resigned') = 'array' AND r.type = 'integer'
            AND r.value IN (SELECT id FROM users WHERE is_bot = 0)
            AND r.key = CASE
                WHEN json_array_length(g.options, '$.resigned') = 1 THEN 0
                WHEN json_array_length(g.options, '$.resigned')
                    = json_array_length(g.options, '$.taken_over') THEN t.key
                WHEN t.key = 0 THEN 0
                WHEN t.key = json_array_length(g.options, '$.taken_over') - 1
                    THEN json_array_length(g.options, '$.resigned') - 1
            END)
)
WHERE is_bot = 1
    AND game_id IN (SELECT id FROM games WHERE options LIKE '%"taken_over"%')
    AND seat IN (SELECT t.value FROM games g, json_each(g.options, '$.taken_over') t
        WHERE g.id = seats.game_id AND json_type(g.options, '$.taken_over') = 'array'
            AND t.type = 'integer');

-- A player's history is the ended games of the seats they hold, and of those they left:
-- each read in its own index, in the order the games ended.
CREATE INDEX seats_history_of_leaver ON seats (left_by, finished_at, game_id)
    WHERE left_by IS NOT NULL AND live = 0;
