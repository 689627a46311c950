-- A person who resigns from a game of three or four leaves their seats to a computer, and
-- is still rated for the game: each seat keeps who held it before a computer took it over
-- (left_by, set as the seat changes hands and never changed after), so that the game
-- stays in its resigner's history, found in their own index as the seats they hold are.
ALTER TABLE seats ADD COLUMN left_by BIGINT REFERENCES users (id);  -- NULL: never left

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
WITH stored AS (
    -- Only the options that name a seat taken over are read as JSON.
    SELECT id, CASE WHEN options LIKE '%"taken_over"%' THEN options::jsonb END AS options
    FROM games WHERE options LIKE '%"taken_over"%'
), taken AS (
    -- Each seat taken over: its place in taken_over (from 0), and how long both lists are.
    SELECT s.id AS game_id, t.place - 1 AS place,
        CASE WHEN t.value #>> '{}' ~ '^[0-9]+$' THEN (t.value #>> '{}')::int END AS seat,
        jsonb_array_length(s.options -> 'taken_over') AS seats,
        CASE WHEN jsonb_typeof(s.options -> 'resigned') = 'array'
            THEN jsonb_array_length(s.options -> 'resigned') ELSE 0 END AS resigners
    FROM stored s, jsonb_array_elements(CASE WHEN jsonb_typeof(s.options -> 'taken_over')
        = 'array' THEN s.options -> 'taken_over' ELSE '[]'::jsonb END)
        WITH ORDINALITY AS t (value, place)
    WHERE jsonb_typeof(t.value) = 'number'
), resigned AS (
    -- Each resigner: their place in resigned (from 0).
    SELECT s.id AS game_id, r.place - 1 AS place,
        CASE WHEN r.value #>> '{}' ~ '^-?[0-9]+$' THEN (r.value #>> '{}')::bigint END AS user_id
    FROM stored s, jsonb_array_elements(CASE WHEN jsonb_typeof(s.options -> 'resigned')
        = 'array' THEN s.options -> 'resigned' ELSE '[]'::jsonb END)
        WITH ORDINALITY AS r (value, place)
    WHERE jsonb_typeof(r.value) = 'number'
)
UPDATE seats SET left_by = COALESCE(
    (SELECT m.user_id FROM moves m JOIN users u ON u.id = m.user_id
        WHERE m.game_id = seats.game_id AND m.seat = seats.seat AND u.is_bot = 0
        ORDER BY m.ply LIMIT 1),
    (SELECT r.user_id FROM resigned r JOIN users u ON u.id = r.user_id AND u.is_bot = 0
        WHERE r.game_id = k.game_id AND r.place = CASE
            WHEN k.resigners = 1 THEN 0
            WHEN k.resigners = k.seats THEN k.place
            WHEN k.place = 0 THEN 0
            WHEN k.place = k.seats - 1 THEN k.resigners - 1
        END)
)
FROM taken k
WHERE k.game_id = seats.game_id AND k.seat = seats.seat AND seats.is_bot = 1;

-- A player's history is the ended games of the seats they hold, and of those they left:
-- each read in its own index, in the order the games ended.
CREATE INDEX seats_history_of_leaver ON seats (left_by, finished_at, game_id)
    WHERE left_by IS NOT NULL AND live = 0;
