-- The console's sessions (docs/console.md, "Sessions"): the sealed cookie
-- names a record here, and a cookie whose record is gone is refused like an
-- expired one. Sign-in (local link or OIDC) makes the record, sign-out
-- deletes it, so a copied cookie ends with the sign-out, and an OIDC
-- session's refresh token, which only the cookie holds, is never used
-- again. Only the SHA-256 of the session's id is kept.
--
-- human_id is the person the session signs in, once known (an OIDC account
-- that is no person yet has none until it accepts an invitation); org_id
-- is theirs. Deleting a record raises an events stop for that person
-- (notify_stop, migration 027), so their open live streams re-check their
-- session at once and end.
CREATE TABLE console_sessions (
    hash       text PRIMARY KEY CHECK (hash ~ '^[0-9a-f]{64}$'),
    kind       text NOT NULL CHECK (kind IN ('local', 'oidc')),
    human_id   text REFERENCES humans (id) ON DELETE CASCADE,
    org_id     text,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_sessions_expires ON console_sessions (expires_at);
CREATE INDEX console_sessions_human ON console_sessions (human_id);
COMMENT ON TABLE console_sessions IS 'owner: modules/console';

CREATE FUNCTION console_sessions_stop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM notify_stop(OLD.org_id, NULL, OLD.human_id);
    RETURN NULL;
END $$;
CREATE TRIGGER console_sessions_stop AFTER DELETE ON console_sessions FOR EACH ROW
    WHEN (OLD.human_id IS NOT NULL)
    EXECUTE FUNCTION console_sessions_stop();
