package board

import (
	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/db"
)

// The board's own sections of pact_whoami, in pgx's dialect ($n).

// whoamiRow is whoamiOwnSQL's row: the sections as JSON, and the count.
type whoamiRow struct {
	Agent, Mandates, Delegates []byte
	Unread                     int
}

// whoamiOwnStep reads agent's sections (whoamiOwnSQL) into row.
func whoamiOwnStep(agent string, row *whoamiRow) db.Step {
	return db.Step{SQL: whoamiOwnSQL, Args: []any{agent}, Rows: func(_ *db.Tx, rows pgx.Rows) error {
		if !rows.Next() {
			return rows.Err()
		}
		return rows.Scan(&row.Agent, &row.Mandates, &row.Delegates, &row.Unread)
	}}
}

// whoamiOwnSQL reads, in one statement, the caller (its role is the people
// module's section), its live mandates, roots first, the active agents
// sharing a project with it, and how many messages to it are unread.
const whoamiOwnSQL = `SELECT
		(SELECT json_build_object('id', a.id, 'client', a.client, 'owner', a.owner, 'preferences', a.preferences)
			FROM agents a WHERE a.id = $1) AS agent,
		(SELECT coalesce(json_agg(json_build_object('id', m.id, 'parent_id', m.parent_id, 'issuer', m.issuer,
				'scope', m.scope, 'limits', m.limits, 'delegations_left', m.delegations_left, 'expires_at', m.expires_at)
				ORDER BY m.depth, m.created_at), '[]')
			FROM mandates m WHERE m.holder = $1 AND m.revoked_at IS NULL AND m.expires_at > now()) AS mandates,
		(SELECT coalesce(json_agg(d ORDER BY d.id), '[]') FROM (
			SELECT a.id, a.client, array_agg(ap.project_id ORDER BY ap.project_id) AS projects
			FROM agents a JOIN agent_projects ap ON ap.agent_id = a.id
			WHERE a.id <> $1 AND a.status = 'active'
			  AND ap.project_id IN (SELECT project_id FROM agent_projects WHERE agent_id = $1)
			GROUP BY a.id, a.client) d) AS delegates,
		(SELECT count(*) FROM task_messages WHERE to_agent = $1 AND read_at IS NULL) AS unread`
