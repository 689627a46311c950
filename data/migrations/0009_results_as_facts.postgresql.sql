-- A game's result becomes facts: how it ended, who won, the scores and who ended it.
-- Rows stored before kept a sentence in the language of whoever ended the game, beside a
-- few marks; how it ended is recovered from those marks (and, for a challenge, from the
-- sentence in either language it was written in), and the sentence is dropped: each
-- reader is told the result in their own language. No game is removed.
UPDATE games SET result = jsonb_build_object(
    'ending', CASE
        WHEN status = 'declined' AND (
            result::jsonb ->> 'reason' LIKE '% withdrew the challenge.'
            OR result::jsonb ->> 'reason' LIKE '% wycofuje wyzwanie.') THEN 'withdrawn'
        WHEN status = 'declined' AND (
            result::jsonb ->> 'reason' LIKE 'The challenge expired%'
            OR result::jsonb ->> 'reason' LIKE 'Wyzwanie wygasło%') THEN 'expired'
        WHEN status = 'declined' THEN 'declined'
        WHEN kind = 'daily' AND status = 'aborted' THEN 'hill_closed'
        WHEN (result::jsonb -> 'aborted') = 'true'::jsonb THEN 'admin'
        WHEN result::jsonb ? 'resigned' THEN 'resigned'
        WHEN (result::jsonb -> 'on_time') = 'true'::jsonb THEN 'claimed'
        WHEN (result::jsonb -> 'agreed_draw') = 'true'::jsonb THEN 'agreed_draw'
        ELSE 'rules'
    END,
    'winners', COALESCE(result::jsonb -> 'winners', '[]'::jsonb),
    'scores', COALESCE(result::jsonb -> 'scores', '[]'::jsonb),
    'by', CASE
        WHEN result::jsonb ? 'resigned' THEN result::jsonb -> 'resigned'
        WHEN (result::jsonb -> 'on_time') = 'true'::jsonb
            THEN COALESCE(result::jsonb -> 'winners', '[]'::jsonb)
        ELSE '[]'::jsonb
    END,
    'code', '',
    'aborted', false,
    'actor', NULL
)::text
WHERE result IS NOT NULL AND NOT (result::jsonb ? 'ending');

-- A game ended off the board before every person in it had made a move is aborted: it
-- stays recorded, and is not rated (`--recompute-ratings` takes back what it was given).
UPDATE games SET
    result = jsonb_set(result::jsonb, '{aborted}', 'true'::jsonb)::text,
    status = 'aborted'
WHERE kind = 'channel'
    AND status IN ('finished', 'aborted')
    AND result::jsonb ->> 'ending' IN ('resigned', 'agreed_draw', 'claimed', 'timed_out', 'admin')
    AND EXISTS (
        SELECT 1 FROM seats s
        WHERE s.game_id = games.id AND s.is_bot = 0 AND NOT EXISTS (
            SELECT 1 FROM moves m
            WHERE m.game_id = games.id AND m.seat = s.seat AND m.text <> 'undo'
        )
    );
