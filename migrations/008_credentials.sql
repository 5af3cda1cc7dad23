-- Ed25519 keys: agents' own (for exported credentials), and the outside
-- keys an organization trusts to issue credentials in a person's name; the
-- links between ledger mandates and the credentials exported from them,
-- and the revocations published for those.

-- One key, one agent: the unique index refuses a key registered twice,
-- even across organizations. kid is the first 16 characters of
-- base64url(sha256(public_key)).
CREATE TABLE agent_keys (
    agent_id   text NOT NULL REFERENCES agents (id),
    kid        text NOT NULL CHECK (kid ~ '^[A-Za-z0-9_-]{16}$'),
    public_key bytea NOT NULL CHECK (length(public_key) = 32),
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by text,
    revoked_at timestamptz,
    PRIMARY KEY (agent_id, kid)
);
CREATE UNIQUE INDEX agent_keys_public_key_idx ON agent_keys (public_key);

-- A trusted root stands for a person of its organization. A revoked root
-- added again trusts credentials from active_since on only.
CREATE TABLE trusted_roots (
    principal    bytea PRIMARY KEY CHECK (length(principal) = 32),
    org_id       text NOT NULL REFERENCES orgs (id),
    human        text NOT NULL,
    label        text CHECK (char_length(label) <= 200),
    created_by   text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    revoked_at   timestamptz,
    active_since timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (human, org_id) REFERENCES humans (id, org_id)
);
CREATE INDEX trusted_roots_human_idx ON trusted_roots (human);
CREATE INDEX trusted_roots_org_idx ON trusted_roots (org_id);

-- Every outside id ever minted for a ledger link.
CREATE TABLE credential_links (
    format      text NOT NULL CHECK (format IN ('tenuo', 'biscuit')),
    external_id text NOT NULL,
    mandate_id  uuid NOT NULL REFERENCES mandates (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (format, external_id)
);
CREATE INDEX credential_links_mandate_idx ON credential_links (mandate_id);

-- Revoked outside ids until their link expires (expired ones drop off the
-- published list).
CREATE TABLE credential_revocations (
    external_id text PRIMARY KEY,
    format      text NOT NULL CHECK (format IN ('tenuo', 'biscuit')),
    revoked_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);

-- Bumped under row lock by every revoke that adds ids.
CREATE TABLE credential_revocation_version (
    format  text PRIMARY KEY CHECK (format IN ('tenuo', 'biscuit')),
    version bigint NOT NULL DEFAULT 0
);
INSERT INTO credential_revocation_version (format, version) VALUES ('tenuo', 0), ('biscuit', 0);
