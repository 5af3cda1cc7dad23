-- Per-run credentials (docs/runner.md, "The session on the board"): a
-- Runner claims a task, then asks pact_run_credential for a token that
-- acts as the agent for that one run: only the tools listed here, each
-- under mandate_id (the claim's mandate or one below it). Only the token's
-- SHA-256 is kept.
--
-- The token lives while the task stays working under the claim it was
-- issued for (the task's assignee is agent_id and its claimed_at is
-- claimed_at: a report, a deferral, a release or a new claim each change
-- one of them) and until expires_at, the run's timeout. The check reads
-- the task row at every request; nothing here is updated when a run ends.
CREATE TABLE run_credentials (
    token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    agent_id   text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    task_id    uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    claimed_at timestamptz NOT NULL,
    mandate_id uuid NOT NULL REFERENCES mandates (id),
    tools      text[] NOT NULL CHECK (cardinality(tools) BETWEEN 1 AND 100),
    issued_at  timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL CHECK (expires_at > issued_at)
);
CREATE INDEX run_credentials_task ON run_credentials (task_id);
CREATE INDEX run_credentials_expires ON run_credentials (expires_at);
COMMENT ON TABLE run_credentials IS 'owner: modules/board';
