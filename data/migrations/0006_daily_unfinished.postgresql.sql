-- A run not over when its hill closes (01:00 UTC the day after it started) is scored as it
-- stood then: ranked like any other run, marked unfinished, and its player told once.
ALTER TABLE daily_runs ADD COLUMN unfinished INTEGER NOT NULL DEFAULT 0;  -- 1: scored at the close
ALTER TABLE daily_runs ADD COLUMN untold INTEGER NOT NULL DEFAULT 0;      -- 1: player not told yet

-- What is left to settle: runs not recorded yet, and notices not given yet.
CREATE INDEX daily_runs_open ON daily_runs (day) WHERE finished_at IS NULL;
CREATE INDEX daily_runs_pending ON daily_runs (user_id) WHERE finished_at IS NULL OR untold = 1;
