-- Roles agents are hired from, the templates a new organization's roles
-- are seeded from, and the one-time setup codes that hand a hired agent its
-- token.

-- The roles every new organization starts with.
CREATE TABLE role_templates (
    id           text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,30}$'),
    name         text NOT NULL CHECK (char_length(btrim(name)) BETWEEN 1 AND 80),
    description  text NOT NULL DEFAULT '' CHECK (char_length(description) <= 2000),
    client       text NOT NULL CHECK (client IN ('chat', 'cowork', 'design', 'code', 'gemini', 'runner')),
    actions      text[] NOT NULL CHECK (cardinality(actions) >= 1),
    limits       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(limits) = 'object'),
    delegations  integer NOT NULL DEFAULT 1 CHECK (delegations BETWEEN 0 AND 5),
    mandate_days real NOT NULL DEFAULT 30 CHECK (mandate_days > 0 AND mandate_days <= 365),
    token_days   real NOT NULL DEFAULT 90 CHECK (token_days > 0 AND token_days <= 365),
    settings     jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(settings) = 'object'),
    instructions text NOT NULL DEFAULT '' CHECK (char_length(instructions) <= 20000),
    position     integer NOT NULL DEFAULT 100
);

-- An organization's roles. Ids repeat across organizations. Archived roles
-- hire no one; agents hired from them keep working.
CREATE TABLE agent_roles (
    org_id       text NOT NULL REFERENCES orgs (id),
    id           text NOT NULL CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,30}$'),
    name         text NOT NULL CHECK (char_length(btrim(name)) BETWEEN 1 AND 80),
    description  text NOT NULL DEFAULT '' CHECK (char_length(description) <= 2000),
    client       text NOT NULL CHECK (client IN ('chat', 'cowork', 'design', 'code', 'gemini', 'runner')),
    actions      text[] NOT NULL CHECK (cardinality(actions) >= 1),
    limits       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(limits) = 'object'),
    delegations  integer NOT NULL DEFAULT 1 CHECK (delegations BETWEEN 0 AND 5),
    mandate_days real NOT NULL DEFAULT 30 CHECK (mandate_days > 0 AND mandate_days <= 365),
    token_days   real NOT NULL DEFAULT 90 CHECK (token_days > 0 AND token_days <= 365),
    settings     jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(settings) = 'object'),
    instructions text NOT NULL DEFAULT '' CHECK (char_length(instructions) <= 20000),
    position     integer NOT NULL DEFAULT 100,
    archived_at  timestamptz,
    updated_at   timestamptz NOT NULL DEFAULT now(),
    updated_by   text,
    PRIMARY KEY (org_id, id)
);

INSERT INTO role_templates (id, name, description, client, actions, limits, delegations, mandate_days, token_days, settings, position) VALUES
('chat', 'Chat', 'A Claude chat app: talks with its person, posts tasks for others and can hand them on.',
    'chat', '{task.read,task.post,task.work,context.write}', '{}', 3, 30, 90, '{}', 10),
('code', 'Code', 'Claude Code in one project''s repository: claims tasks, does them and reports.',
    'code', '{task.read,task.post,task.work,context.write}', '{}', 3, 30, 90, '{}', 20),
('gemini', 'Gemini', 'Gemini CLI in one project''s repository: claims tasks, does them and reports.',
    'gemini', '{task.read,task.post,task.work,context.write}', '{}', 3, 30, 90, '{}', 25),
('runner', 'Runner', 'Headless Claude Code woken by pact-runner for the work delegated to it, within a budget of runs and turns.',
    'runner', '{task.read,task.post,task.work}', '{"runs": 50, "turns": 2000}', 2, 7, 90,
    '{"PACT_RUNNER_MAX_TURNS": "40", "PACT_RUNNER_RUN_TIMEOUT_MINUTES": "30", "PACT_RUNNER_MAX_RUNS_PER_DAY": "20",
      "PACT_RUNNER_WORKERS": "worker-{project}", "PACT_RUNNER_MAX_WAIT_HOURS": "24"}', 30),
('worker', 'Worker', 'A runner that only does the tasks handed to it; it may delegate one level.',
    'runner', '{task.read,task.post,task.work}', '{"runs": 50, "turns": 1000}', 1, 7, 90,
    '{"PACT_RUNNER_MAX_TURNS": "40", "PACT_RUNNER_RUN_TIMEOUT_MINUTES": "30", "PACT_RUNNER_MAX_RUNS_PER_DAY": "20"}', 40),
('secretary', 'Secretary', 'A runner that reads what changed, writes the daily brief and posts follow-ups; it does no work itself.',
    'runner', '{task.read,task.post,report.brief}', '{"runs": 40, "turns": 1200}', 0, 7, 90,
    '{"PACT_RUNNER_ALLOWED_TOOLS": "pact_whoami,pact_list,pact_note,pact_post", "PACT_RUNNER_MAX_TURNS": "40",
      "PACT_RUNNER_RUN_TIMEOUT_MINUTES": "15", "PACT_RUNNER_MAX_RUNS_PER_DAY": "20",
      "PACT_RUNNER_WORKERS": "runner-{project},code-{project}", "PACT_RUNNER_MAX_WAIT_HOURS": "48",
      "PACT_RUNNER_SCHEDULE": "[{\"at\":\"07:30\",\"title\":\"Daily brief\",\"action\":\"report.brief\",\"body\":\"Brief for {date}. Read what changed with pact_list(project_id=\\\"{project}\\\", filter=\\\"all\\\", since={since}).\"}]"}', 50),
('design', 'Design', 'Claude''s design app: drafts designs for tasks and posts what it needs.',
    'design', '{task.read,task.post,task.work}', '{}', 1, 30, 90, '{}', 60),
('cowork', 'Cowork', 'Claude Cowork on its person''s desktop: posts tasks and does its own.',
    'cowork', '{task.read,task.post,task.work}', '{}', 2, 30, 90, '{}', 70);

INSERT INTO agent_roles (org_id, id, name, description, client, actions, limits, delegations, mandate_days,
        token_days, settings, instructions, position)
    SELECT o.id, t.id, t.name, t.description, t.client, t.actions, t.limits, t.delegations, t.mandate_days,
        t.token_days, t.settings, t.instructions, t.position
    FROM orgs o CROSS JOIN role_templates t;

ALTER TABLE agents ADD COLUMN role_id text;
ALTER TABLE agents ADD FOREIGN KEY (org_id, role_id) REFERENCES agent_roles (org_id, id);
-- Agents registered before roles take the role their name and client point
-- to (runner-x, client runner → role runner).
UPDATE agents a SET role_id = r.id FROM agent_roles r
    WHERE r.org_id = a.org_id AND r.id = split_part(a.id, '-', 1) AND r.client = a.client;

-- One-time codes a hired agent's machine trades for its token (POST
-- /connect). Only the code's SHA-256 is kept.
CREATE TABLE setup_codes (
    code_hash  text PRIMARY KEY,
    agent_id   text NOT NULL REFERENCES agents (id),
    created_by text NOT NULL REFERENCES humans (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX setup_codes_agent_idx ON setup_codes (agent_id, created_at);
