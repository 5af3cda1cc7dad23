-- Every table has one owning package, named in its comment as
-- 'owner: <package path>'. Only the owner writes the table; another package
-- reads it only where core/archtest's allow-list says why
-- (docs/architecture.md, "Table ownership"). From here on, the migration
-- that creates a table declares its owner in the same file.
--
-- The owners are those of issue 10's layout: core/identity keeps the
-- principals; setup codes and roles go to modules/people, approval rules to
-- modules/board, keys, trusted roots and exported credentials to
-- modules/credentials.

-- core/db creates schema_migrations before it applies any file.
COMMENT ON TABLE schema_migrations IS 'owner: core/db';

COMMENT ON TABLE orgs IS 'owner: core/identity';
COMMENT ON TABLE system_state IS 'owner: core/identity';
COMMENT ON TABLE humans IS 'owner: core/identity';
COMMENT ON TABLE projects IS 'owner: core/identity';
COMMENT ON TABLE agents IS 'owner: core/identity';
COMMENT ON TABLE agent_projects IS 'owner: core/identity';
COMMENT ON TABLE agent_tokens IS 'owner: core/identity';

COMMENT ON TABLE mandates IS 'owner: core/mandate';
COMMENT ON TABLE limit_usage IS 'owner: core/mandate';

COMMENT ON TABLE payloads IS 'owner: core/ledger';
COMMENT ON TABLE entries IS 'owner: core/ledger';
COMMENT ON TABLE entry_chain_heads IS 'owner: core/ledger';

COMMENT ON TABLE tasks IS 'owner: modules/board';
COMMENT ON TABLE task_activity IS 'owner: modules/board';
COMMENT ON TABLE task_messages IS 'owner: modules/board';
COMMENT ON TABLE approval_actions IS 'owner: modules/board';

COMMENT ON TABLE context_notes IS 'owner: modules/notes';
COMMENT ON TABLE context_note_versions IS 'owner: modules/notes';

-- The outbox: every module enqueues through core/outbox, in its own
-- transaction; modules/notify delivers.
COMMENT ON TABLE notifications IS 'owner: core/outbox';
COMMENT ON TABLE notification_deliveries IS 'owner: modules/notify';
COMMENT ON TABLE notify_destinations IS 'owner: modules/notify';
COMMENT ON TABLE notify_leases IS 'owner: modules/notify';
COMMENT ON TABLE expiry_notices IS 'owner: modules/notify';

COMMENT ON TABLE role_templates IS 'owner: modules/people';
COMMENT ON TABLE agent_roles IS 'owner: modules/people';
COMMENT ON TABLE setup_codes IS 'owner: modules/people';

COMMENT ON TABLE agent_keys IS 'owner: modules/credentials';
COMMENT ON TABLE trusted_roots IS 'owner: modules/credentials';
COMMENT ON TABLE credential_links IS 'owner: modules/credentials';
COMMENT ON TABLE credential_revocations IS 'owner: modules/credentials';
COMMENT ON TABLE credential_revocation_version IS 'owner: modules/credentials';

-- A task's status is open or terminal, defined once here (the statuses of
-- tasks' CHECK in 004_board.sql and docs/specs/behavior.md §7.1): queries
-- say task_status_is_open(t.status) instead of writing the list out.
-- Every status is exactly one of the two. (A $$ body, not RETURN: the
-- board supports PostgreSQL 13.)
CREATE FUNCTION task_status_is_open(status text) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT status IN ('submitted', 'working', 'input_required', 'auth_required') $$;

CREATE FUNCTION task_status_is_terminal(status text) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT status IN ('completed', 'failed', 'canceled', 'rejected') $$;

COMMENT ON FUNCTION task_status_is_open(text) IS 'owner: modules/board';
COMMENT ON FUNCTION task_status_is_terminal(text) IS 'owner: modules/board';
