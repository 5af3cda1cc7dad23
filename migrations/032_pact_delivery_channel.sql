-- set_pact_delivery's mode channel (docs/pacts.md, "Delivery without
-- polling"; docs/hooks.md, "The channel"): the agent's pact-channel holds
-- GET /pacts/stream for a Claude Code session, as mode stream does. It is
-- recorded apart from stream so that people see how the agent listens.

ALTER TABLE pact_delivery DROP CONSTRAINT pact_delivery_mode_check;
ALTER TABLE pact_delivery ADD CONSTRAINT pact_delivery_mode_check CHECK (mode IN ('stream', 'channel', 'webhook', 'none'));
