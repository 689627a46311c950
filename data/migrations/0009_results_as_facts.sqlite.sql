-- A game's result becomes facts: how it ended, who won, the scores and who ended it.
-- Rows stored before kept a sentence in the language of whoever ended the game, beside a
-- few marks; how it ended is recovered from those marks (and, for a challenge, from the
-- sentence in either language it was written in), and the sentence is dropped: each
-- reader is told the result in their own language. No game is removed.
UPDATE games SET result = json_object(
    'ending', CASE
        WHEN status = 'declined' AND (
            json_extract(result, '$.reason') LIKE '% withdrew the challenge.'
            OR json_extract(result, '$.reason') LIKE '% wycofuje wyzwanie.') THEN 'withdrawn'
        WHEN status = 'declined' AND (
            json_extract(result, '$.reason') LIKE 'The challenge expired%'
            OR json_extract(result, '$.reason') LIKE 'Wyzwanie wygasło%') THEN 'expired'
        WHEN status = 'declined' THEN 'declined'
        WHEN kind = 'daily' AND status = 'aborted' THEN 'hill_closed'
        WHEN json_extract(result, '$.aborted') THEN 'admin'
        WHEN json_extract(result, '$.resigned') IS NOT NULL THEN 'resigned'
        WHEN json_extract(result, '$.on_time') THEN 'claimed'
        WHEN json_extract(result, '$.agreed_draw') THEN 'agreed_draw'
        ELSE 'rules'
    END,
    'winners', json(COALESCE(json_extract(result, '$.winners'), '[]')),
    'scores', json(COALESCE(json_extract(result, '$.scores'), '[]')),
    'by', json(CASE
        WHEN json_extract(result, '$.resigned') IS NOT NULL THEN json_extract(result, '$.resigned')
        WHEN json_extract(result, '$.on_time') THEN COALESCE(json_extract(result, '$.winners'), '[]')
        ELSE '[]'
    END),
    'code', '',
    'aborted', json('false'),
    'actor', NULL
)
WHERE result IS NOT NULL AND json_extract(result, '$.ending') IS NULL;

-- A game ended off the board before every person in it had made a move is aborted: it
-- stays recorded, and is not rated (`--recompute-ratings` takes back what it was given).
UPDATE games SET
    result = json_set(result, '$.aborted', json('true')),
    status = 'aborted'
WHERE kind = 'channel'
    AND status IN ('finished', 'aborted')
    AND json_extract(result, '$.ending') IN
        ('resigned', 'agreed_draw', 'claimed', 'timed_out', 'admin')
    AND EXISTS (
        SELECT 1 FROM seats s
        WHERE s.game_id = games.id AND s.is_bot = 0 AND NOT EXISTS (
            SELECT 1 FROM moves m
            WHERE m.game_id = games.id AND m.seat = s.seat AND m.text <> 'undo'
        )
    );
