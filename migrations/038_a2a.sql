-- A2A (docs/a2a.md): two more kinds of client. An "a2a" agent works the
-- board through its A2A endpoint (/a2a/a/<agent>); an "a2a-remote" agent is
-- a remote A2A agent the board drives itself, as a Runner drives a command.
ALTER TABLE agents DROP CONSTRAINT agents_client_check;
ALTER TABLE agents ADD CONSTRAINT agents_client_check
    CHECK (client IN ('chat', 'cowork', 'design', 'code', 'gemini', 'runner', 'a2a', 'a2a-remote'));
ALTER TABLE role_templates DROP CONSTRAINT role_templates_client_check;
ALTER TABLE role_templates ADD CONSTRAINT role_templates_client_check
    CHECK (client IN ('chat', 'cowork', 'design', 'code', 'gemini', 'runner', 'a2a', 'a2a-remote'));
ALTER TABLE agent_roles DROP CONSTRAINT agent_roles_client_check;
ALTER TABLE agent_roles ADD CONSTRAINT agent_roles_client_check
    CHECK (client IN ('chat', 'cowork', 'design', 'code', 'gemini', 'runner', 'a2a', 'a2a-remote'));

-- A task's state changed: an A2A stream following it (SendStreamingMessage,
-- SubscribeToTask) re-reads it. Raised from the row, so no path that moves a
-- task (a report, a claim, a person's decision, a revocation's cascade, a
-- sweep) can forget it; a heartbeat, which changes neither the status nor
-- the result, raises nothing. The event carries ids only (core/events).
CREATE FUNCTION tasks_state_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('pact_events', json_build_object('kind', 'task_state',
        'project_id', NEW.project_id, 'task_id', NEW.id)::text);
    RETURN NULL;
END $$;
CREATE TRIGGER tasks_state_changed AFTER UPDATE OF status, result, deferred ON tasks FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.result IS DISTINCT FROM NEW.result
          OR OLD.deferred IS DISTINCT FROM NEW.deferred)
    EXECUTE FUNCTION tasks_state_changed();

-- A task handed to people with a question (pact_report status=input_required)
-- is "asked"; one deferred because its agent lacks the authority
-- (pact_defer) is not. Its poster may answer a question (docs/a2a.md,
-- "Answers"); only people resume a deferral.
ALTER TABLE tasks ADD COLUMN asked boolean NOT NULL DEFAULT false;
