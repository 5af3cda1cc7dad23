-- One offer per task (docs/events.md, "Offers"): a task that becomes
-- claimable wakes one agent holding pact_events in its project, not all.
--
-- event_holders: who holds pact_events now, one row per agent (an agent
-- may hold a few calls at once: holds counts them), with the projects it
-- watches and when it was last offered a task, so offers go round.
-- A board that dies leaves holds behind; until bounds them.
CREATE TABLE event_holders (
    agent_id      text PRIMARY KEY,
    projects      text[] NOT NULL,
    holds         int NOT NULL DEFAULT 0 CHECK (holds >= 0),
    until         timestamptz NOT NULL,
    last_offer_at timestamptz
);
COMMENT ON TABLE event_holders IS 'owner: modules/board';
CREATE INDEX event_holders_projects_idx ON event_holders USING gin (projects);

-- task_offers: the current offer of each task, to one holder, for a lease;
-- past the lease, a task still claimable is offered to the next holder.
CREATE TABLE task_offers (
    task_id     uuid PRIMARY KEY,
    agent_id    text,
    offered_at  timestamptz NOT NULL,
    lease_until timestamptz NOT NULL,
    offers      int NOT NULL DEFAULT 1
);
COMMENT ON TABLE task_offers IS 'owner: modules/board';
CREATE INDEX task_offers_lease_idx ON task_offers (lease_until);

-- task_offer offers task p_task of project p_project (organization p_org)
-- to one holder: the one offered longest ago (never, first), not
-- p_skip, skipping holders another transaction is offering to right now.
-- It records the offer with a lease of p_lease seconds, wakes that holder
-- alone (pg_notify on pact_events, the holder's id in the event), and
-- returns the holder, or NULL when nobody holds pact_events there (whoever
-- holds it next finds the task when its call starts).
CREATE FUNCTION task_offer(p_task uuid, p_project text, p_org text, p_lease float8, p_skip text DEFAULT NULL)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    v_agent text;
BEGIN
    SELECT h.agent_id INTO v_agent FROM event_holders h
     WHERE h.projects @> ARRAY[p_project] AND h.holds > 0 AND h.until > now()
       AND h.agent_id IS DISTINCT FROM p_skip
     ORDER BY h.last_offer_at NULLS FIRST, h.agent_id
     LIMIT 1 FOR UPDATE SKIP LOCKED;
    IF v_agent IS NULL THEN
        DELETE FROM task_offers WHERE task_id = p_task;
        RETURN NULL;
    END IF;
    UPDATE event_holders SET last_offer_at = clock_timestamp() WHERE agent_id = v_agent;
    INSERT INTO task_offers (task_id, agent_id, offered_at, lease_until)
         VALUES (p_task, v_agent, now(), now() + make_interval(secs => p_lease))
    ON CONFLICT (task_id) DO UPDATE SET agent_id = excluded.agent_id, offered_at = excluded.offered_at,
        lease_until = excluded.lease_until, offers = task_offers.offers + 1;
    PERFORM pg_notify('pact_events', json_build_object('kind', 'task', 'org_id', p_org, 'project_id', p_project,
        'task_id', p_task, 'agent_id', v_agent, 'offer', true)::text);
    RETURN v_agent;
END $$;
