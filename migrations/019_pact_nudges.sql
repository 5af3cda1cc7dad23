-- Unread nudges (docs/pacts.md "People's side"): a pact's owner hears of
-- messages nobody else has read, at most once an hour per pact
-- (pacts.nudged_at, migration 017) and once per message: nudged_upto is the
-- feed id of the latest message a nudge has covered.
ALTER TABLE pacts ADD COLUMN nudged_upto bigint NOT NULL DEFAULT 0;
