-- A2A push notifications (docs/a2a.md, "Push notifications"): an agent of
-- client a2a asks the board to POST a task's changes to a URL of its own.
-- The board delivers by state, not by queue: a config is due when its task
-- changed (change_seq) or its thread grew (its message count) since the last
-- delivery, and one delivery carries the task as it stands then. Retries
-- and the lease live on the row (next_attempt_at), so several boards share
-- the work with FOR UPDATE SKIP LOCKED and none holds a lock while it posts.
-- url, token and credentials are sealed (core/seal), for this config alone.
CREATE TABLE a2a_push_configs (
    id                 uuid PRIMARY KEY,
    org_id             text NOT NULL REFERENCES orgs (id),
    agent_id           text NOT NULL REFERENCES agents (id),
    task_id            uuid NOT NULL REFERENCES tasks (id),
    url                text NOT NULL,
    token              text,
    auth_scheme        text CHECK (char_length(auth_scheme) BETWEEN 1 AND 64),
    credentials        text,
    created_at         timestamptz NOT NULL DEFAULT now(),
    -- The task's change_seq and its number of messages in the last delivery
    -- the receiver acknowledged.
    delivered_seq      bigint NOT NULL DEFAULT 0,
    delivered_messages bigint NOT NULL DEFAULT 0,
    -- Attempts since the last success (the claim counts one); the next
    -- attempt, or the end of a claim's lease; why the last one failed; when
    -- the retries ran out.
    attempts           integer NOT NULL DEFAULT 0,
    next_attempt_at    timestamptz NOT NULL DEFAULT now(),
    last_error         text,
    dead_at            timestamptz,
    CHECK ((auth_scheme IS NULL) = (credentials IS NULL))
);
CREATE INDEX a2a_push_configs_task_idx ON a2a_push_configs (task_id, agent_id, created_at);
CREATE INDEX a2a_push_configs_due_idx ON a2a_push_configs (next_attempt_at) WHERE dead_at IS NULL;
COMMENT ON TABLE a2a_push_configs IS 'owner: modules/board';

COMMENT ON COLUMN a2a_push_configs.url IS 'sealed (core/seal): where the agent''s push notifications go';
COMMENT ON COLUMN a2a_push_configs.token IS 'sealed (core/seal): the token the receiver checks (X-A2A-Notification-Token)';
COMMENT ON COLUMN a2a_push_configs.credentials IS 'sealed (core/seal): the credentials of the Authorization the receiver checks';

-- The Standard Webhooks signing key of each agent's push notifications
-- (whsec_), sealed: made with its first config, handed to it only in its
-- extended agent card.
CREATE TABLE a2a_push_signing (
    agent_id    text PRIMARY KEY REFERENCES agents (id),
    org_id      text NOT NULL REFERENCES orgs (id),
    signing_key text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE a2a_push_signing IS 'owner: modules/board';
COMMENT ON COLUMN a2a_push_signing.signing_key IS 'sealed (core/seal): the agent''s push signing secret (whsec_)';
