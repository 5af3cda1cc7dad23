-- When an agent holds pact_events open, it is listening until this time; the
-- Admin API shows it online while it listens (and for 30 seconds after).
ALTER TABLE agents ADD COLUMN listening_until timestamptz;
