-- Claude Code hooks (docs/hooks.md): where each session of an agent has
-- read the board up to, so stop and session-start report each new task
-- once per session. A cursor idle for 30 days is deleted when any cursor
-- of its agent moves.
CREATE TABLE hook_cursors (
    agent_id   text NOT NULL REFERENCES agents (id),
    session_id text NOT NULL CHECK (char_length(session_id) BETWEEN 1 AND 200),
    cursor     bigint NOT NULL CHECK (cursor >= 0),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (agent_id, session_id)
);
CREATE INDEX hook_cursors_updated_idx ON hook_cursors (updated_at);
COMMENT ON TABLE hook_cursors IS 'owner: modules/board';
