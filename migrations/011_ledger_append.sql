-- One round trip per log entry (docs/benchmarks.md, "Round trips"): the
-- entry's organization and chain, the chain head's lock, the hash, the
-- payload, the entry and the new head, in one call.
--
-- The entry's hash is SHA-256 of its canonical JSON (core/ledger), which
-- holds the chain key and the previous hash. The caller computes that JSON
-- around them, in three parts; the chain key is a project id or an
-- organization's system chain, neither of which JSON escapes, and the
-- previous hash is hex.
CREATE FUNCTION ledger_append(
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
    UPDATE entry_chain_heads SET last_hash = r_hash WHERE chain_key = r_chain;
END $$;
