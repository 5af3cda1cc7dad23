package people

import (
	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/db"
)

// The store's steps of pact_whoami's pipelined transaction, in pgx's
// dialect (core/db.Tx.Pipeline).

// agentRole is the step that reads the role agent of org was hired from
// into *into, leaving it nil when there is none. Roles are keyed by
// (organization, id): role ids repeat in every organization.
func agentRole(agent, org string, into **roleView) db.Step {
	return db.Step{SQL: `SELECT r.id, r.name, r.description, r.instructions
		FROM agents a JOIN agent_roles r ON r.org_id = a.org_id AND r.id = a.role_id
		WHERE a.id = $1 AND a.org_id = $2`, Args: []any{agent, org},
		Rows: func(_ *db.Tx, rows pgx.Rows) error {
			if !rows.Next() {
				return rows.Err()
			}
			r := &roleView{}
			if err := rows.Scan(&r.ID, &r.Name, &r.Description, &r.Instructions); err != nil {
				return err
			}
			*into = r
			return nil
		}}
}
