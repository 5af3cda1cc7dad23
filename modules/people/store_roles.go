package people

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// The store of agent_roles, in bun's dialect: what the service reads and
// writes of roles, and nothing it decides (docs/architecture.md, "A
// service and a store per module").

const roleCols = `id, org_id, name, description, client, actions, limits, delegations, mandate_days, token_days,
	settings, instructions, position, archived_at, updated_at, updated_by`

// rolesOf lists org's roles by position, then id, their settings as
// stored; archived ones only when archived is set.
func rolesOf(ctx context.Context, tx bun.IDB, org string, archived bool) ([]AgentRole, error) {
	out := []AgentRole{}
	err := tx.NewRaw(`SELECT `+roleCols+` FROM agent_roles WHERE org_id = ? AND (? OR archived_at IS NULL)
		ORDER BY position, id`, org, archived).Scan(ctx, &out)
	return out, err
}

// roleOf is org's role id, archived or not, its settings as stored; nil
// when there is none.
func roleOf(ctx context.Context, tx bun.IDB, org, id string) (*AgentRole, error) {
	var rs []AgentRole
	if err := tx.NewRaw(`SELECT `+roleCols+` FROM agent_roles WHERE org_id = ? AND id = ?`, org, id).Scan(ctx, &rs); err != nil {
		return nil, fmt.Errorf("people.getRole: %w", err)
	}
	if len(rs) == 0 {
		return nil, nil
	}
	return &rs[0], nil
}

// roleRow is a role as saveRole writes it: limits and settings as JSON
// text, the settings already sealed.
type roleRow struct {
	Org, ID, Name, Description, Client string
	Actions                            []string
	Limits, Settings                   string
	Delegations                        int
	MandateDays, TokenDays             float64
	Instructions                       string
	Position                           int
	By                                 string
}

// saveRole inserts r, or replaces the role of that id, un-archiving it.
// The database's refusals come back as they are.
func saveRole(ctx context.Context, tx bun.IDB, r roleRow) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO agent_roles (org_id, id, name, description, client, actions, limits,
			delegations, mandate_days, token_days, settings, instructions, position, updated_by)
		VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?::jsonb, ?, ?, ?)
		ON CONFLICT (org_id, id) DO UPDATE SET name = excluded.name, description = excluded.description,
			client = excluded.client, actions = excluded.actions, limits = excluded.limits,
			delegations = excluded.delegations, mandate_days = excluded.mandate_days,
			token_days = excluded.token_days, settings = excluded.settings,
			instructions = excluded.instructions, position = excluded.position,
			archived_at = NULL, updated_at = now(), updated_by = excluded.updated_by`,
		r.Org, r.ID, r.Name, r.Description, r.Client, pgdialect.Array(r.Actions), r.Limits,
		r.Delegations, r.MandateDays, r.TokenDays, r.Settings, r.Instructions, r.Position, r.By)
	return err
}

// archiveRole archives org's role id (once: a second archive keeps the
// first instant), as changed by person by.
func archiveRole(ctx context.Context, tx bun.IDB, org, id, by string) error {
	_, err := tx.ExecContext(ctx, `UPDATE agent_roles SET archived_at = coalesce(archived_at, now()), updated_at = now(),
		updated_by = ? WHERE org_id = ? AND id = ?`, by, org, id)
	return err
}

// storedSettings are a role's settings as read for resealing; Read is
// their JSON text as read, so the write replaces only what was read.
type storedSettings struct {
	OrgID    string            `bun:"org_id"`
	ID       string            `bun:"id"`
	Settings map[string]string `bun:"settings,type:jsonb"`
	Read     string            `bun:"read"`
}

// rolesWithSettings lists every role of every organization that has
// settings.
func rolesWithSettings(ctx context.Context, d bun.IDB) ([]storedSettings, error) {
	var roles []storedSettings
	if err := d.NewRaw(`SELECT org_id, id, settings, settings::text AS read FROM agent_roles WHERE settings <> '{}'::jsonb`).Scan(ctx, &roles); err != nil {
		return nil, fmt.Errorf("people.resealRoleSettings: %w", err)
	}
	return roles, nil
}

// replaceSettings writes settings (JSON text) over the role of r if its
// settings are still those r read, and reports whether it did: a save in
// between wins.
func replaceSettings(ctx context.Context, d bun.IDB, r storedSettings, settings string) (bool, error) {
	res, err := d.ExecContext(ctx, `UPDATE agent_roles SET settings = ?::jsonb WHERE org_id = ? AND id = ? AND settings = ?::jsonb`,
		settings, r.OrgID, r.ID, r.Read)
	if err != nil {
		return false, fmt.Errorf("people.resealRoleSettings: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
