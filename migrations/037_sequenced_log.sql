-- The sequenced log (docs/log-sequencing.md): a call's transaction stores
-- its entry without taking its chain's head; an integrator gives each
-- committed entry its place and its hash afterwards, chain by chain.
--
-- An entry's place in its chain (its sequence number, the hash before it
-- and its own) moves from entries to entry_places, written once by the
-- integrator and never changed. What the hash covers is unchanged
-- (docs/canonical-json.md): entries hashed before this migration keep
-- their hashes, and their places follow their ids, the order in which the
-- head's lock let them in.
CREATE TABLE entry_places (
    chain_key text NOT NULL,
    seq       bigint NOT NULL CHECK (seq > 0),
    entry_id  bigint NOT NULL UNIQUE REFERENCES entries (id),
    prev_hash text NOT NULL,
    hash      text NOT NULL,
    PRIMARY KEY (chain_key, seq),
    -- Two entries can never follow the same one: a chain cannot fork.
    UNIQUE (chain_key, prev_hash)
);
COMMENT ON TABLE entry_places IS 'owner: core/ledger';

INSERT INTO entry_places (chain_key, seq, entry_id, prev_hash, hash)
SELECT chain_key, row_number() OVER (PARTITION BY chain_key ORDER BY id), id, prev_hash, hash FROM entries;

ALTER TABLE entries DROP COLUMN prev_hash, DROP COLUMN hash;

CREATE FUNCTION entry_places_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'entry places are append-only' USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER entry_places_no_update_or_delete BEFORE UPDATE OR DELETE ON entry_places
    FOR EACH ROW EXECUTE FUNCTION entry_places_append_only();
CREATE TRIGGER entry_places_no_truncate BEFORE TRUNCATE ON entry_places
    FOR EACH STATEMENT EXECUTE FUNCTION entry_places_append_only();

-- The entries committed and not yet integrated, each with the three parts
-- of its canonical JSON around its chain key and previous hash (what
-- ledger_append hashed under the head's lock before). A row leaves the
-- queue in the transaction that gives its entry a place, so an entry is
-- always in exactly one of the two.
CREATE TABLE entry_queue (
    entry_id  bigint PRIMARY KEY REFERENCES entries (id),
    chain_key text NOT NULL,
    m_before  bytea NOT NULL,
    m_between bytea NOT NULL,
    m_after   bytea NOT NULL,
    queued_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX entry_queue_chain_idx ON entry_queue (chain_key, entry_id);
COMMENT ON TABLE entry_queue IS 'owner: core/ledger';

-- ledger_append as in migration 023, without the chain's head: it takes no
-- lock that another append waits for, and returns no hash, which the
-- integrator computes once the entry has committed.
DROP FUNCTION ledger_append(text, text, text, text, text, text[], text, text, jsonb, text, timestamptz,
                            bytea, bytea, bytea);
CREATE FUNCTION ledger_append(
    p_org text, p_project text, p_task text, p_agent text, p_actor text, p_mandate_chain text[],
    p_action text, p_payload_hash text, p_content jsonb, p_outcome text, p_at timestamptz,
    p_before bytea, p_between bytea, p_after bytea,
    OUT r_id bigint, OUT r_org text, OUT r_chain text)
LANGUAGE plpgsql AS $$
DECLARE
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
    INSERT INTO payloads (content) VALUES (p_content) RETURNING id INTO v_payload;
    INSERT INTO entries (org_id, chain_key, project_id, task_id, agent_id, actor, mandate_chain, action,
                         payload_hash, payload_ref, outcome, at)
         VALUES (r_org, r_chain, p_project, p_task::uuid, p_agent, p_actor, p_mandate_chain::uuid[], p_action,
                 p_payload_hash, v_payload, p_outcome, p_at)
    RETURNING id INTO r_id;
    INSERT INTO entry_queue (entry_id, chain_key, m_before, m_between, m_after)
         VALUES (r_id, r_chain, p_before, p_between, p_after);
END $$;

-- ledger_integrate gives up to p_limit of chain p_chain's queued entries
-- their places, in id order among those committed, and moves the chain's
-- head. One integrator at a time works on a chain: with p_wait false a
-- second one skips the chain (and returns nothing), with p_wait true it
-- waits its turn.
-- An integrator that dies mid-batch rolls back whole; the entries stay
-- queued for the next. It returns each entry placed and how long it waited
-- in the queue, in seconds.
CREATE FUNCTION ledger_integrate(p_chain text, p_limit int, p_wait boolean)
RETURNS TABLE (r_entry bigint, r_seq bigint, r_lag double precision)
LANGUAGE plpgsql AS $$
DECLARE
    v_prev text;
    v_size bigint;
    v_hash text;
    q record;
BEGIN
    -- One integrator per chain: the chain's advisory lock (class 1703 in
    -- the board's two-key locks; 1702 is the pacts feed's), held until the
    -- transaction ends. Taken before the head, so that a second integrator
    -- neither waits on a head the first is still inserting, nor, skipping,
    -- blocks at all.
    IF p_wait THEN
        PERFORM pg_advisory_xact_lock(1703, hashtext(p_chain));
    ELSIF NOT pg_try_advisory_xact_lock(1703, hashtext(p_chain)) THEN
        RETURN;
    END IF;
    INSERT INTO entry_chain_heads (chain_key, last_hash)
         VALUES (p_chain, '0000000000000000000000000000000000000000000000000000000000000000')
    ON CONFLICT (chain_key) DO NOTHING;
    SELECT h.last_hash, h.size INTO v_prev, v_size FROM entry_chain_heads h
     WHERE h.chain_key = p_chain FOR UPDATE;
    FOR q IN SELECT * FROM entry_queue WHERE chain_key = p_chain ORDER BY entry_id LIMIT p_limit LOOP
        v_hash := encode(sha256(q.m_before || convert_to(p_chain, 'UTF8') || q.m_between
                                || convert_to(v_prev, 'UTF8') || q.m_after), 'hex');
        v_size := v_size + 1;
        INSERT INTO entry_places (chain_key, seq, entry_id, prev_hash, hash)
             VALUES (p_chain, v_size, q.entry_id, v_prev, v_hash);
        DELETE FROM entry_queue WHERE entry_id = q.entry_id;
        v_prev := v_hash;
        r_entry := q.entry_id;
        r_seq := v_size;
        r_lag := extract(epoch FROM clock_timestamp() - q.queued_at);
        RETURN NEXT;
    END LOOP;
    UPDATE entry_chain_heads SET last_hash = v_prev, size = v_size WHERE chain_key = p_chain;
END $$;
