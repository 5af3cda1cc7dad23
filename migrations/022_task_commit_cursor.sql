-- The cursor agents pass back (since / next_since of pact_list and
-- pact_events) must never pass a change that has not committed yet.
-- change_seq is numbered when a row is written, not when it commits: under
-- concurrent writers a change numbered 10 can commit after one numbered 11,
-- and a reader that saw 11 moved its cursor past 10 for good
-- (docs/reliability.md, "pact_events cursors skip tasks"). change_xact is
-- the writing transaction's id (pg_current_xact_id(), 64 bits, never
-- reused). A reader returns only changes whose transaction is older than
-- its snapshot's xmin — every transaction below it has ended, so no change
-- can appear below it later — and moves its cursor in that order
-- (docs/events.md, "The cursor").
ALTER TABLE tasks ADD COLUMN change_xact bigint NOT NULL DEFAULT 1;
ALTER TABLE tasks ALTER COLUMN change_xact SET DEFAULT (pg_current_xact_id()::text::bigint);
CREATE INDEX tasks_project_xact_idx ON tasks (project_id, change_xact, change_seq);

CREATE OR REPLACE FUNCTION tasks_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.change_seq := nextval('task_change_seq');
    NEW.change_xact := pg_current_xact_id()::text::bigint;
    NEW.updated_at := now();
    RETURN NEW;
END $$;
