-- Stops (docs/security.md, "A stop reaches every channel"): whatever ends an
-- agent's or a person's standing wakes every channel the board holds open
-- for them, in every board process, at the commit that makes it. Each
-- channel then re-checks its principal against the database and ends, so a
-- new code path that bans, pauses, revokes, removes, disables or halts
-- cannot forget to tell them: the trigger is on the row, not in the code.
--
-- The notification is an events.Event of kind "stop" on pact_events
-- (core/events): agent_id or human_id names whom it concerns, org_id alone
-- means everyone in the organization (its kill switch), and no id at all
-- means everyone on the board (the platform's kill switch). PostgreSQL
-- folds identical notifications of one transaction into one, so revoking
-- every mandate of an agent wakes each of its channels once.
CREATE FUNCTION notify_stop(org text, agent text, human text) RETURNS void LANGUAGE sql AS $$
    SELECT pg_notify('pact_events', json_strip_nulls(json_build_object(
        'kind', 'stop', 'org_id', org, 'agent_id', agent, 'human_id', human))::text)
$$;

CREATE FUNCTION agents_stop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM notify_stop(NEW.org_id, NEW.id, NULL);
    RETURN NULL;
END $$;
CREATE TRIGGER agents_stop AFTER UPDATE OF status, replaced_by ON agents FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.replaced_by IS DISTINCT FROM NEW.replaced_by)
    EXECUTE FUNCTION agents_stop();

-- A revoked link ends everything delegated under it without marking it, so
-- every holder in its subtree is told.
CREATE FUNCTION mandates_stop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM notify_stop(a.org_id, a.id, NULL)
       FROM agents a
      WHERE a.id IN (WITH RECURSIVE sub (id, holder) AS (
                         SELECT NEW.id, NEW.holder
                         UNION ALL
                         SELECT m.id, m.holder FROM mandates m JOIN sub ON m.parent_id = sub.id)
                     SELECT holder FROM sub);
    RETURN NULL;
END $$;
CREATE TRIGGER mandates_stop AFTER UPDATE OF revoked_at ON mandates FOR EACH ROW
    WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION mandates_stop();

CREATE FUNCTION agent_projects_stop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM notify_stop(OLD.org_id, OLD.agent_id, NULL);
    RETURN NULL;
END $$;
CREATE TRIGGER agent_projects_stop AFTER DELETE ON agent_projects FOR EACH ROW
    EXECUTE FUNCTION agent_projects_stop();

CREATE FUNCTION humans_stop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM notify_stop(NEW.org_id, NULL, NEW.id);
    RETURN NULL;
END $$;
CREATE TRIGGER humans_stop AFTER UPDATE OF disabled_at ON humans FOR EACH ROW
    WHEN (OLD.disabled_at IS NULL AND NEW.disabled_at IS NOT NULL)
    EXECUTE FUNCTION humans_stop();

CREATE FUNCTION orgs_stop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM notify_stop(NEW.id, NULL, NULL);
    RETURN NULL;
END $$;
CREATE TRIGGER orgs_stop AFTER UPDATE OF halted ON orgs FOR EACH ROW
    WHEN (NEW.halted AND NOT OLD.halted)
    EXECUTE FUNCTION orgs_stop();

CREATE FUNCTION system_state_stop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM notify_stop(NULL, NULL, NULL);
    RETURN NULL;
END $$;
CREATE TRIGGER system_state_stop AFTER UPDATE OF halted ON system_state FOR EACH ROW
    WHEN (NEW.halted AND NOT OLD.halted)
    EXECUTE FUNCTION system_state_stop();
