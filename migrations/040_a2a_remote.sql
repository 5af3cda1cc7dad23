-- Remote A2A agents (docs/a2a.md, "Remote agents"): an agent of client
-- a2a-remote is a remote A2A agent the board drives itself, as a Runner
-- drives a command. A person names its card; the board claims what is
-- delegated to it, sends it over, follows the remote task and reports.
CREATE TABLE a2a_remotes (
    agent_id      text PRIMARY KEY REFERENCES agents (id),
    org_id        text NOT NULL REFERENCES orgs (id),
    card_url      text NOT NULL CHECK (char_length(card_url) BETWEEN 1 AND 2000),
    auth_header   text,
    set_by        text NOT NULL,
    set_at        timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE a2a_remotes IS 'owner: modules/board';
COMMENT ON COLUMN a2a_remotes.auth_header IS 'sealed (core/seal): the Authorization header the remote agent takes';

-- A task sent to a remote agent: the remote task it became, and the board
-- process following it under a lease, so that one board follows it at a
-- time and another takes over when that one dies.
CREATE TABLE a2a_remote_tasks (
    task_id           uuid PRIMARY KEY REFERENCES tasks (id),
    agent_id          text NOT NULL REFERENCES agents (id),
    remote_task_id    text,
    remote_context_id text,
    question          text,
    answered          text,
    follower          text,
    lease_until       timestamptz,
    updated_at        timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE a2a_remote_tasks IS 'owner: modules/board';
COMMENT ON COLUMN a2a_remote_tasks.question IS 'the remote task''s status the board last handed to people as a question: its message id, else its time';
COMMENT ON COLUMN a2a_remote_tasks.answered IS 'the question (as in question) whose answer the remote agent was last sent';

ALTER TABLE a2a_remote_tasks ADD CONSTRAINT a2a_remote_tasks_follower CHECK ((follower IS NULL) = (lease_until IS NULL));
