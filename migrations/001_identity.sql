-- Organizations, people, projects, agents, agent tokens and the kill switches.
-- Ids of people, projects and agents are global (they appear in URLs, tokens
-- and scopes); every other row reaches its organization through them.

CREATE TABLE orgs (
    id                text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9-]{1,40}$'),
    name              text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
    halted            boolean NOT NULL DEFAULT false,
    -- The chain key of this organization's entries that name no project. It
    -- is part of every such entry's hash, so it never changes.
    system_chain      text NOT NULL UNIQUE,
    slack_webhook_url text,
    terms_version     text,
    terms_accepted_at timestamptz,
    created_by        text,
    created_at        timestamptz NOT NULL DEFAULT now()
);
INSERT INTO orgs (id, name, system_chain) VALUES ('default', 'Default organization', '_system');

-- The platform-wide kill switch: one row.
CREATE TABLE system_state (
    id     boolean PRIMARY KEY DEFAULT true CHECK (id),
    halted boolean NOT NULL DEFAULT false
);
INSERT INTO system_state DEFAULT VALUES;

CREATE TABLE humans (
    id          text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
    org_id      text NOT NULL REFERENCES orgs (id),
    name        text NOT NULL CHECK (char_length(btrim(name)) BETWEEN 1 AND 200),
    role        text NOT NULL CHECK (role IN ('owner', 'approver', 'viewer')),
    email       text CHECK (email IS NULL OR email ~ '^[^@\s]+@[^@\s]+$'),
    auth_issuer text,
    auth_sub    text,
    disabled_at timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, org_id)
);
CREATE UNIQUE INDEX humans_email_key ON humans (lower(email));
CREATE UNIQUE INDEX humans_auth_key ON humans (auth_issuer, auth_sub);
CREATE INDEX humans_org_idx ON humans (org_id);

-- Entries, mandates and projects name people, so people are never deleted:
-- they are disabled.
CREATE FUNCTION refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% rows are never deleted', TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER humans_never_deleted BEFORE DELETE ON humans
    FOR EACH ROW EXECUTE FUNCTION refuse_delete();

CREATE TABLE projects (
    id         text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    org_id     text NOT NULL REFERENCES orgs (id),
    name       text NOT NULL CHECK (char_length(btrim(name)) BETWEEN 1 AND 200),
    production boolean NOT NULL DEFAULT false,
    frozen     boolean NOT NULL DEFAULT false,
    created_by text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, org_id),
    FOREIGN KEY (created_by, org_id) REFERENCES humans (id, org_id)
);
CREATE INDEX projects_org_idx ON projects (org_id);

CREATE TABLE agents (
    id              text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    org_id          text NOT NULL REFERENCES orgs (id),
    owner           text NOT NULL,
    client          text NOT NULL CHECK (client IN ('chat', 'cowork', 'design', 'code', 'gemini', 'runner')),
    status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'banned')),
    root_mandate_id uuid,
    last_seen       timestamptz,
    preferences     jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(preferences) = 'object'),
    replaced_by     text REFERENCES agents (id),
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, org_id),
    FOREIGN KEY (owner, org_id) REFERENCES humans (id, org_id)
);
CREATE INDEX agents_org_idx ON agents (org_id);

-- The composite keys make the database refuse an agent linked to another
-- organization's project.
CREATE TABLE agent_projects (
    agent_id   text NOT NULL,
    project_id text NOT NULL,
    org_id     text NOT NULL REFERENCES orgs (id),
    PRIMARY KEY (agent_id, project_id),
    FOREIGN KEY (agent_id, org_id) REFERENCES agents (id, org_id),
    FOREIGN KEY (project_id, org_id) REFERENCES projects (id, org_id)
);
CREATE INDEX agent_projects_project_idx ON agent_projects (project_id);

-- Only the SHA-256 of a token is kept; the token itself is shown once.
CREATE TABLE agent_tokens (
    token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    agent_id   text NOT NULL REFERENCES agents (id),
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_tokens_agent_idx ON agent_tokens (agent_id);
