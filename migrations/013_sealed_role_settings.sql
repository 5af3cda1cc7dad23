-- A role's secret settings (DATABASE_URL, and any key whose last word is
-- TOKEN, SECRET, PASSWORD, PASSWD, KEY or CREDENTIAL(S)) are stored sealed
-- (core/seal) and handed in clear only to the agent redeeming its setup
-- code (docs/invariants.md SEC-006). Values saved before this migration are
-- sealed by the board at its next start (modules/people's reseal worker),
-- since SQL has no key. The other settings stay in clear: they are limits
-- and names a person reads.
COMMENT ON COLUMN agent_roles.settings IS 'sealed (core/seal): the values of secret-looking keys (DATABASE_URL, *_TOKEN, *_SECRET, *_PASSWORD, *_KEY)';
