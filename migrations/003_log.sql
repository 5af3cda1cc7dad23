-- The append-only log: one hash chain per project, one per organization for
-- entries that name no project. Payloads live apart so one can be erased
-- (PDPA) while every hash still verifies.

CREATE TABLE payloads (
    id        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    content   jsonb,
    erased_at timestamptz
);

-- A payload can only be erased: content to NULL, once, with erased_at set.
CREATE FUNCTION payloads_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.id IS DISTINCT FROM OLD.id
       OR OLD.erased_at IS NOT NULL
       OR NEW.content IS NOT NULL
       OR NEW.erased_at IS NULL THEN
        RAISE EXCEPTION 'payloads can only be erased' USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER payloads_erase_only BEFORE UPDATE ON payloads
    FOR EACH ROW EXECUTE FUNCTION payloads_guard();
CREATE TRIGGER payloads_never_deleted BEFORE DELETE ON payloads
    FOR EACH ROW EXECUTE FUNCTION refuse_delete();

CREATE TABLE entries (
    id            bigserial PRIMARY KEY,
    org_id        text NOT NULL REFERENCES orgs (id),
    chain_key     text NOT NULL,
    project_id    text REFERENCES projects (id),
    task_id       uuid,
    agent_id      text REFERENCES agents (id),
    actor         text NOT NULL CHECK (actor = 'system' OR actor ~ '^(agent|human):.+$'),
    mandate_chain uuid[] NOT NULL DEFAULT '{}',
    action        text NOT NULL,
    payload_hash  text NOT NULL,
    payload_ref   uuid NOT NULL REFERENCES payloads (id),
    outcome       text NOT NULL,
    at            timestamptz NOT NULL,
    prev_hash     text NOT NULL,
    hash          text NOT NULL,
    -- Two entries can never follow the same one: a chain cannot fork.
    UNIQUE (chain_key, prev_hash)
);
CREATE INDEX entries_chain_idx ON entries (chain_key, id);
CREATE INDEX entries_task_idx ON entries (task_id);
CREATE INDEX entries_at_idx ON entries (at);
CREATE INDEX entries_org_idx ON entries (org_id, id);

CREATE FUNCTION entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'entries are append-only' USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER entries_no_update_or_delete BEFORE UPDATE OR DELETE ON entries
    FOR EACH ROW EXECUTE FUNCTION entries_append_only();
CREATE TRIGGER entries_no_truncate BEFORE TRUNCATE ON entries
    FOR EACH STATEMENT EXECUTE FUNCTION entries_append_only();

-- The hash of each chain's last entry; locked FOR UPDATE by every append so
-- appends to one chain queue and appends to different chains do not.
CREATE TABLE entry_chain_heads (
    chain_key text PRIMARY KEY,
    last_hash text NOT NULL
);
