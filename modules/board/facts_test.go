package board

import (
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/pgtest"
)

// statuses are the board's task statuses, as its constants spell them.
func statuses() []string {
	return []string{submitted, working, inputRequired, authRequired, completed, failed, canceled, rejected}
}

// The SQL definition of open and terminal (task_status_is_open,
// task_status_is_terminal) agrees with the board's: the population is every
// status the tasks table's CHECK allows, and it is the board's constants.
func TestTaskStatusSQLMatchesTheBoard(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	var def string
	require.NoError(t, d.NewRaw(`SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid = 'tasks'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%status = ANY%'`).Scan(ctx, &def))
	var allowed []string
	for _, m := range regexp.MustCompile(`'([a-z_]+)'`).FindAllStringSubmatch(def, -1) {
		allowed = append(allowed, m[1])
	}
	require.ElementsMatch(t, statuses(), allowed, "the board's constants are the statuses the table allows: %s", def)

	for _, s := range allowed {
		var open, term bool
		require.NoError(t, d.NewRaw(`SELECT task_status_is_open(?), task_status_is_terminal(?)`, s, s).Scan(ctx, &open, &term))
		require.Equal(t, terminal[s], term, "task_status_is_terminal(%q)", s)
		require.Equal(t, !terminal[s], open, "task_status_is_open(%q): every status is open or terminal", s)
	}
	for s := range terminal {
		require.True(t, slices.Contains(allowed, s), "terminal status %q is one the table allows", s)
	}
}

// OpenTaskCounts counts each project's open tasks, and answers 0 for a
// project with none.
func TestOpenTaskCounts(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	err := d.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range []string{
			`INSERT INTO humans (id, org_id, name, role) VALUES ('ana', 'default', 'Ana', 'owner')`,
			`INSERT INTO projects (id, org_id, name, created_by) VALUES ('web', 'default', 'Web', 'ana'),
				('api', 'default', 'API', 'ana'), ('idle', 'default', 'Idle', 'ana')`,
			`INSERT INTO agents (id, org_id, owner, client) VALUES ('code-web', 'default', 'ana', 'code')`,
			`INSERT INTO mandates (id, issuer_kind, issuer, holder, scope, delegations_left, depth, expires_at, signature)
				VALUES ('00000000-0000-0000-0000-000000000001', 'human', 'ana', 'code-web', '{task.post}', 0, 0,
				now() + interval '1 day', 'fixture')`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		for i, s := range statuses() {
			for _, p := range []string{"web", "web", "api"} {
				_, err := tx.ExecContext(ctx, `INSERT INTO tasks (id, project_id, title, created_by, mandate_id, status,
					assignee, assignee_mandate_id) VALUES (gen_random_uuid(), ?, ?, 'code-web', ?, ?, 'code-web', ?)`,
					p, s, "00000000-0000-0000-0000-000000000001", statuses()[i],
					"00000000-0000-0000-0000-000000000001")
				if err != nil {
					return err
				}
			}
		}
		got, err := (&Service{}).OpenTaskCounts(ctx, tx, []string{"web", "api", "idle", "missing"})
		require.NoError(t, err)
		require.Equal(t, map[string]int{"web": 8, "api": 4, "idle": 0, "missing": 0}, got,
			"four of the eight statuses are open: two tasks each in web, one in api")
		return nil
	})
	require.NoError(t, err)
}
