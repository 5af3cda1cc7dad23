-- Signed checkpoints of the log (docs/log-checkpoints.md).
--
-- A chain's head now also counts its entries: a checkpoint states a
-- chain's size and head together, read from one row that every append
-- updates under the chain's lock. Entries are never deleted (migration 003),
-- so the count only grows.
ALTER TABLE entry_chain_heads ADD COLUMN size bigint NOT NULL DEFAULT 0;
UPDATE entry_chain_heads h SET size = (SELECT count(*) FROM entries e WHERE e.chain_key = h.chain_key);

-- ledger_append as in migration 011, counting the chain's entries.
CREATE OR REPLACE FUNCTION ledger_append(
    p_org text, p_project text, p_task text, p_agent text, p_actor text, p_mandate_chain text[],
    p_action text, p_payload_hash text, p_content jsonb, p_outcome text, p_at timestamptz,
    p_before bytea, p_between bytea, p_after bytea,
    OUT r_id bigint, OUT r_org text, OUT r_chain text, OUT r_hash text)
LANGUAGE plpgsql AS $$
DECLARE
    v_prev text;
    v_payload uuid;
BEGIN
    SELECT o.id, coalesce(p_project, o.system_chain) INTO r_org, r_chain FROM orgs o
     WHERE o.id = coalesce((SELECT org_id FROM projects WHERE id = p_project),
                           (SELECT org_id FROM agents WHERE id = p_agent), p_org, 'default');
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ledger_append: no organization for the entry' USING ERRCODE = 'foreign_key_violation';
    END IF;
    IF r_chain !~ '^[A-Za-z0-9_:-]+$' THEN
        RAISE EXCEPTION 'ledger_append: chain key % would need JSON escaping', r_chain;
    END IF;
    -- Upsert-and-lock the head; the lock is held until the transaction ends,
    -- so appends to one chain queue and never fork.
    INSERT INTO entry_chain_heads (chain_key, last_hash)
         VALUES (r_chain, '0000000000000000000000000000000000000000000000000000000000000000')
    ON CONFLICT (chain_key) DO UPDATE SET chain_key = excluded.chain_key
    RETURNING last_hash INTO v_prev;
    r_hash := encode(sha256(p_before || convert_to(r_chain, 'UTF8') || p_between
                            || convert_to(v_prev, 'UTF8') || p_after), 'hex');
    INSERT INTO payloads (content) VALUES (p_content) RETURNING id INTO v_payload;
    INSERT INTO entries (org_id, chain_key, project_id, task_id, agent_id, actor, mandate_chain, action,
                         payload_hash, payload_ref, outcome, at, prev_hash, hash)
         VALUES (r_org, r_chain, p_project, p_task::uuid, p_agent, p_actor, p_mandate_chain::uuid[], p_action,
                 p_payload_hash, v_payload, p_outcome, p_at, v_prev, r_hash)
    RETURNING id INTO r_id;
    UPDATE entry_chain_heads SET last_hash = r_hash, size = size + 1 WHERE chain_key = r_chain;
END $$;

-- Each checkpoint the board signed: a chain's size and head at a moment,
-- as a C2SP signed note. One per chain and size; never changed or removed,
-- so what was published stays what was signed.
CREATE TABLE log_checkpoints (
    id        bigserial UNIQUE,
    chain_key text NOT NULL,
    size      bigint NOT NULL CHECK (size > 0),
    head_hash text NOT NULL,
    taken_at  timestamptz NOT NULL,
    note      text NOT NULL,
    PRIMARY KEY (chain_key, size)
);
COMMENT ON TABLE log_checkpoints IS 'owner: core/ledger';
CREATE FUNCTION log_checkpoints_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'log checkpoints are append-only' USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER log_checkpoints_no_update_or_delete BEFORE UPDATE OR DELETE ON log_checkpoints
    FOR EACH ROW EXECUTE FUNCTION log_checkpoints_append_only();
CREATE TRIGGER log_checkpoints_no_truncate BEFORE TRUNCATE ON log_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION log_checkpoints_append_only();

-- The witnesses an operator names (PACT_LOG_WITNESSES), each with the id of
-- the last checkpoint it acknowledged: every checkpoint reaches every
-- witness, in order, at least once, whichever board sends it.
CREATE TABLE log_witnesses (
    url               text PRIMARY KEY,
    delivered_through bigint NOT NULL DEFAULT 0,
    last_error        text,
    attempted_at      timestamptz
);
COMMENT ON TABLE log_witnesses IS 'owner: core/ledger';
