-- Pact feed numbers per organization (docs/pacts.md, "Feed numbers";
-- docs/security.md, issue 29, finding 10). Every number a pact hands out —
-- the stream's event ids, a webhook's webhook-id, get_pact's since and
-- cursor, a write's cursor — was pact_feed.id, one sequence for the whole
-- board, so an agent could count what other organizations wrote between two
-- of its own events. Each row now also carries its organization and seq,
-- its number in that organization's feed, and seq is what leaves the board.
--
-- * Rows written before this migration keep their id as their seq. Those
--   are the numbers already handed out, so every cursor given before the
--   upgrade (a Last-Event-ID, a since, a message's cursor) still names the
--   same row and resumes exactly: nothing is skipped and nothing replayed.
-- * A new row's seq is one more than its organization's last, taken under
--   a per-organization advisory lock (1702, hashtext(org_id)) held to
--   commit, instead of the board-wide lock the writers took before: an
--   organization's numbers commit in their order and have no gaps, and
--   writers of different organizations no longer wait for each other.
-- * The row's id is drawn after that lock too, so within an organization
--   id and seq rise together: the cursors the module keeps (pact_seats'
--   read_upto and write_upto, pact_messages.feed_id, ...) stay ids, and
--   the two orders agree wherever an organization's rows are compared.
-- The trigger does it on every insert, so no code path can forget it.
ALTER TABLE pact_feed ADD COLUMN org_id text REFERENCES orgs (id), ADD COLUMN seq bigint;

ALTER TABLE pact_feed DISABLE TRIGGER pact_feed_append_only;
UPDATE pact_feed f SET org_id = p.org_id, seq = f.id FROM pacts p WHERE p.id = f.pact_id;
ALTER TABLE pact_feed ENABLE TRIGGER pact_feed_append_only;

ALTER TABLE pact_feed ALTER COLUMN org_id SET NOT NULL, ALTER COLUMN seq SET NOT NULL,
    ALTER COLUMN id DROP DEFAULT,
    ADD CONSTRAINT pact_feed_org_seq_unique UNIQUE (org_id, seq);
CREATE INDEX pact_feed_pact_seq_idx ON pact_feed (pact_id, seq);

CREATE FUNCTION pact_feed_number() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT org_id INTO STRICT NEW.org_id FROM pacts WHERE id = NEW.pact_id;
    PERFORM pg_advisory_xact_lock(1702, hashtext(NEW.org_id));
    -- Drawn after the lock: an organization's ids rise with its numbers.
    -- An explicit id (a test's fixture) is kept.
    IF NEW.id IS NULL THEN
        NEW.id := nextval(pg_get_serial_sequence('pact_feed', 'id'));
    END IF;
    -- A statement of its own, so its snapshot is taken after the lock.
    SELECT coalesce(max(seq), 0) + 1 INTO NEW.seq FROM pact_feed WHERE org_id = NEW.org_id;
    RETURN NEW;
END $$;
CREATE TRIGGER pact_feed_numbered BEFORE INSERT ON pact_feed
    FOR EACH ROW EXECUTE FUNCTION pact_feed_number();
