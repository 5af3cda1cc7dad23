-- An agent's lifecycle (registration, hiring, replacement, status, owner,
-- role, projects and tokens) is decided by modules/people, which now owns
-- the tables that hold it; core/identity reads them, as the principals
-- every call is checked against (docs/architecture.md, "Table ownership").
COMMENT ON TABLE agents IS 'owner: modules/people';
COMMENT ON TABLE agent_projects IS 'owner: modules/people';
COMMENT ON TABLE agent_tokens IS 'owner: modules/people';

-- Presence is not the lifecycle: core/identity stamps when an agent was
-- last seen (after each call commits, batched) and until when it listens
-- (a waiting pact_events). It gets its own table, so that stamping it
-- writes no row of the agent, which every call and log entry naming the
-- agent locks (docs/reliability.md, the claims finding).
CREATE TABLE agent_presence (
    agent_id        text PRIMARY KEY REFERENCES agents (id) ON DELETE CASCADE,
    last_seen       timestamptz,
    listening_until timestamptz
);
COMMENT ON TABLE agent_presence IS 'owner: core/identity';

INSERT INTO agent_presence (agent_id, last_seen, listening_until)
SELECT id, last_seen, listening_until FROM agents WHERE last_seen IS NOT NULL OR listening_until IS NOT NULL;

ALTER TABLE agents DROP COLUMN last_seen, DROP COLUMN listening_until;
