package people

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// listHumans lists the people of org, by id.
func listHumans(ctx context.Context, tx bun.IDB, org string) ([]Human, error) {
	out := []Human{}
	err := tx.NewRaw(`SELECT id, name, role, email, created_at, disabled_at FROM humans WHERE org_id = ? ORDER BY id`, org).
		Scan(ctx, &out)
	return out, err
}

// listProjects lists the projects of org, by id, with their open tasks;
// only project id when it is given (not_found when org has no such
// project).
func listProjects(ctx context.Context, tx bun.IDB, org, id string) ([]Project, error) {
	out := []Project{}
	err := tx.NewRaw(`SELECT p.id, p.name, p.production, p.frozen, p.created_by, p.created_at,
		(SELECT count(*) FROM tasks t WHERE t.project_id = p.id
			AND t.status IN ('submitted', 'working', 'input_required', 'auth_required')) AS open_tasks
		FROM projects p WHERE p.org_id = ? AND (? = '' OR p.id = ?) ORDER BY p.id`, org, id, id).Scan(ctx, &out)
	if err == nil && id != "" && len(out) == 0 {
		return nil, errs.E(errs.NotFound, "project %s does not exist", id)
	}
	return out, err
}

// listAgents lists the agents of org by id; only agent id when it is given.
func listAgents(ctx context.Context, tx bun.IDB, org, id string) ([]Agent, error) {
	out := []Agent{}
	err := tx.NewRaw(`SELECT a.id, a.owner, a.client, a.status, a.last_seen, a.created_at, a.root_mandate_id,
		a.preferences, a.role_id, a.replaced_by, a.listening_until,
		coalesce((SELECT array_agg(project_id ORDER BY project_id) FROM agent_projects WHERE agent_id = a.id), '{}') AS projects,
		(SELECT count(*) FROM agent_tokens t WHERE t.agent_id = a.id AND t.revoked_at IS NULL AND t.expires_at > now()) AS live_tokens,
		(SELECT count(*) FROM mandates md WHERE md.holder = a.id AND md.revoked_at IS NULL AND md.expires_at > now()) AS live_mandates,
		(SELECT count(*) FROM agent_keys k WHERE k.agent_id = a.id AND k.revoked_at IS NULL) AS live_keys,
		coalesce(a.listening_until > now() - interval '30 seconds', false) AS online
		FROM agents a WHERE a.org_id = ? AND (? = '' OR a.id = ?) ORDER BY a.id`, org, id, id).Scan(ctx, &out)
	return out, err
}
