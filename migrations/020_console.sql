-- The console's one-time local sign-in codes (docs/console.md, "Local
-- sign-in"): pact-board prints one for the first owner at start when
-- PACT_CONSOLE_LOCAL_SIGNIN is on. Only the code's SHA-256 is kept; a code
-- works once (used_at) and until expires_at.
CREATE TABLE console_codes (
    hash       text PRIMARY KEY CHECK (hash ~ '^[0-9a-f]{64}$'),
    human_id   text NOT NULL REFERENCES humans (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_codes_expires ON console_codes (expires_at);
COMMENT ON TABLE console_codes IS 'owner: modules/console';
