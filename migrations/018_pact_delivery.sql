-- How each agent hears of new pact activity without polling (docs/pacts.md,
-- "Delivery without polling"): one setting per agent, covering every pact it
-- sits in, and the queue of webhook sends.

CREATE TABLE pact_delivery (
    agent_id    text PRIMARY KEY REFERENCES agents (id),
    org_id      text NOT NULL REFERENCES orgs (id),
    mode        text NOT NULL CHECK (mode IN ('stream', 'webhook', 'none')),
    url         text CHECK (char_length(url) <= 4000),
    secret      text CHECK (char_length(secret) <= 1000),
    -- Webhook deliveries that failed in a row (each after its retries); a
    -- success resets it. Five switch the webhook off.
    failures    integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
    disabled_at timestamptz,
    -- The one sentence the agent's person was told when it was switched off.
    stuck       text CHECK (char_length(stuck) <= 1000),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CHECK ((mode = 'webhook') = (url IS NOT NULL AND secret IS NOT NULL)),
    CHECK ((disabled_at IS NULL) = (stuck IS NULL))
);
CREATE INDEX pact_delivery_stuck_idx ON pact_delivery (org_id) WHERE disabled_at IS NOT NULL;
COMMENT ON TABLE pact_delivery IS 'owner: modules/pacts';
COMMENT ON COLUMN pact_delivery.url IS 'sealed (core/seal): the agent''s webhook address';
COMMENT ON COLUMN pact_delivery.secret IS 'sealed (core/seal): the agent''s webhook signing secret (whsec_)';

-- One webhook send of one pact_feed row to one agent, written in the
-- transaction that appends the row. Workers of every board process claim
-- due sends under a lease (FOR UPDATE SKIP LOCKED, then lease_owner and
-- lease_expires_at), as the notification outbox does.
CREATE TABLE pact_sends (
    id               bigserial PRIMARY KEY,
    agent_id         text NOT NULL REFERENCES agents (id),
    feed_id          bigint NOT NULL REFERENCES pact_feed (id),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    lease_owner      text,
    lease_expires_at timestamptz,
    last_error       text,
    sent_at          timestamptz,
    dead_at          timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (agent_id, feed_id)
);
CREATE INDEX pact_sends_due_idx ON pact_sends (next_attempt_at) WHERE sent_at IS NULL AND dead_at IS NULL;
COMMENT ON TABLE pact_sends IS 'owner: modules/pacts';
