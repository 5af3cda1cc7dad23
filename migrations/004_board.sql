-- The board: tasks and their lifecycle, heartbeats, approval rules, task
-- messages, project notes, and the notification outbox that the events of
-- all of them feed.

CREATE SEQUENCE task_change_seq;

CREATE TABLE tasks (
    id                   uuid PRIMARY KEY,
    project_id           text NOT NULL REFERENCES projects (id),
    title                text NOT NULL CHECK (char_length(btrim(title)) BETWEEN 1 AND 300),
    body                 text NOT NULL DEFAULT '' CHECK (char_length(body) <= 100000),
    action               text NOT NULL DEFAULT 'task.work',
    created_by           text NOT NULL REFERENCES agents (id),
    mandate_id           uuid NOT NULL REFERENCES mandates (id),
    delegate_to          text REFERENCES agents (id),
    delegated_mandate_id uuid REFERENCES mandates (id),
    assignee             text REFERENCES agents (id),
    assignee_mandate_id  uuid REFERENCES mandates (id),
    status               text NOT NULL CHECK (status IN ('submitted', 'working', 'input_required',
                             'auth_required', 'completed', 'failed', 'canceled', 'rejected')),
    deferred             boolean NOT NULL DEFAULT false,
    defer_reason         text,
    needed_scope         text[],
    result               jsonb,
    answer               text,
    approved_by          text REFERENCES humans (id),
    approved_at          timestamptz,
    claimed_at           timestamptz,
    parent_task_id       uuid REFERENCES tasks (id),
    -- Every update moves a task forward in the `since` cursor of pact_list.
    change_seq           bigint NOT NULL DEFAULT nextval('task_change_seq'),
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    CHECK ((assignee IS NULL) = (assignee_mandate_id IS NULL)),
    CHECK (status <> 'working' OR assignee IS NOT NULL)
);
CREATE INDEX tasks_project_seq_idx ON tasks (project_id, change_seq);
CREATE INDEX tasks_working_idx ON tasks (status) WHERE status = 'working';
CREATE INDEX tasks_parent_idx ON tasks (parent_task_id);
CREATE INDEX tasks_mandates_idx ON tasks (mandate_id);
CREATE INDEX tasks_delegated_idx ON tasks (delegated_mandate_id);
CREATE INDEX tasks_assignee_mandate_idx ON tasks (assignee_mandate_id);

CREATE FUNCTION tasks_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.change_seq := nextval('task_change_seq');
    NEW.updated_at := now();
    RETURN NEW;
END $$;
CREATE TRIGGER tasks_touch BEFORE UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION tasks_touch();
CREATE TRIGGER tasks_never_deleted BEFORE DELETE ON tasks FOR EACH ROW EXECUTE FUNCTION refuse_delete();

ALTER TABLE entries ADD FOREIGN KEY (task_id) REFERENCES tasks (id);

-- The assignee's last heartbeat, kept apart so heartbeats do not move the
-- task in the cursor.
CREATE TABLE task_activity (
    task_id  uuid PRIMARY KEY REFERENCES tasks (id),
    agent_id text NOT NULL REFERENCES agents (id),
    at       timestamptz NOT NULL
);

-- Actions that need a person's approval, per organization. A trailing .*
-- covers every sub-action.
CREATE TABLE approval_actions (
    org_id text NOT NULL REFERENCES orgs (id),
    action text NOT NULL CHECK (action !~ '\s' AND char_length(action) BETWEEN 1 AND 200),
    PRIMARY KEY (org_id, action)
);
INSERT INTO approval_actions (org_id, action) VALUES
    ('default', 'deploy.*'), ('default', 'finance.*'), ('default', 'customer.message');

CREATE TABLE task_messages (
    id         bigserial PRIMARY KEY,
    org_id     text NOT NULL REFERENCES orgs (id),
    task_id    uuid NOT NULL REFERENCES tasks (id),
    from_agent text REFERENCES agents (id),
    from_human text REFERENCES humans (id),
    to_agent   text REFERENCES agents (id), -- NULL: to the people of the organization
    body       text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 8000),
    created_at timestamptz NOT NULL DEFAULT now(),
    read_at    timestamptz,
    CHECK ((from_agent IS NULL) <> (from_human IS NULL))
);
CREATE INDEX task_messages_task_idx ON task_messages (task_id, id);
CREATE INDEX task_messages_unread_idx ON task_messages (to_agent, id) WHERE read_at IS NULL;

CREATE TABLE context_notes (
    project_id  text NOT NULL REFERENCES projects (id),
    key         text NOT NULL CHECK (key ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
    title       text NOT NULL,
    body        text NOT NULL,
    pinned      boolean NOT NULL DEFAULT false,
    version     integer NOT NULL CHECK (version >= 1),
    updated_by  text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    archived_at timestamptz,
    PRIMARY KEY (project_id, key)
);

CREATE TABLE context_note_versions (
    id         bigserial PRIMARY KEY,
    project_id text NOT NULL,
    key        text NOT NULL,
    version    integer NOT NULL,
    title      text NOT NULL,
    body       text,
    archived   boolean NOT NULL DEFAULT false,
    updated_by text NOT NULL,
    at         timestamptz NOT NULL DEFAULT now(),
    erased_at  timestamptz,
    UNIQUE (project_id, key, version),
    FOREIGN KEY (project_id, key) REFERENCES context_notes (project_id, key)
);

-- The notification outbox: a row is written in the transaction of the event
-- that causes it, so a refused call leaves none. Delivery happens later,
-- outside any board transaction.
CREATE TABLE notifications (
    id               bigserial PRIMARY KEY,
    org_id           text NOT NULL REFERENCES orgs (id),
    kind             text NOT NULL CHECK (kind IN ('approval_needed', 'deferred', 'question', 'task_closed',
                         'awaiting_session', 'brief', 'expiring', 'expired', 'message')),
    project_id       text NOT NULL REFERENCES projects (id),
    task_id          uuid REFERENCES tasks (id),
    agent_id         text,
    title            text NOT NULL CHECK (char_length(title) <= 200),
    detail           text,
    -- Receivers drop a repeat delivery of the same key.
    idempotency_key  text NOT NULL UNIQUE DEFAULT ('ntf_' || replace(gen_random_uuid()::text, '-', '')),
    created_at       timestamptz NOT NULL DEFAULT now(),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    lease_owner      text,
    lease_expires_at timestamptz,
    sent_at          timestamptz,
    dead_at          timestamptz,
    last_error       text
);
CREATE INDEX notifications_pending_idx ON notifications (next_attempt_at) WHERE sent_at IS NULL AND dead_at IS NULL;
CREATE INDEX notifications_org_idx ON notifications (org_id);
CREATE INDEX notifications_task_idx ON notifications (task_id);

-- Each expiry warning goes out once per subject and stage.
CREATE TABLE expiry_notices (
    subject   text NOT NULL,
    stage     text NOT NULL CHECK (stage IN ('expiring', 'expired')),
    queued_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (subject, stage)
);
