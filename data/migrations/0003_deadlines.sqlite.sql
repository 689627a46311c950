-- Deadlines: when a decision is not made in time, its documented default is played.
ALTER TABLE games ADD COLUMN deadline_at REAL;  -- Unix seconds; NULL: no deadline running
CREATE INDEX games_due ON games (deadline_at) WHERE deadline_at IS NOT NULL AND status = 'active';
