package archtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgtest"
)

// The SQL reader finds writes and reads of the population's tables, and
// nothing else: not a column, a function, a word in a comment or a string.
func TestSQLTableUses(t *testing.T) {
	pop := map[string]bool{"tasks": true, "agents": true, "projects": true, "notes": true}
	for _, tt := range []struct {
		name, sql string
		want      []string // "kind table"
	}{
		{"Insert", `INSERT INTO tasks (id) VALUES (?)`, []string{"writes tasks"}},
		{"InsertSelect", `INSERT INTO tasks (id) SELECT id FROM projects p WHERE p.x`, []string{"writes tasks", "reads projects"}},
		{"Update", `UPDATE tasks t SET status = 'canceled' FROM agents a WHERE a.id = t.assignee`, []string{"writes tasks", "reads agents"}},
		{"UpdateOnly", `update only public.tasks set x = 1`, []string{"writes tasks"}},
		{"QuotedQualified", `UPDATE "public"."tasks" SET x = 1`, []string{"writes tasks"}},
		{"Delete", `DELETE FROM tasks USING agents a WHERE a.id = tasks.assignee`, []string{"writes tasks", "reads agents"}},
		{"Truncate", `TRUNCATE TABLE tasks, notes`, []string{"writes tasks", "writes notes"}},
		{"Lock", `LOCK TABLE agents IN SHARE ROW EXCLUSIVE MODE`, []string{"writes agents"}},
		{"Upsert", `INSERT INTO notes (k) VALUES (1) ON CONFLICT (k) DO UPDATE SET k = 2`, []string{"writes notes"}},
		{"ForUpdate", `SELECT 1 FROM tasks WHERE id = ? FOR UPDATE`, []string{"reads tasks"}},
		{"ForUpdateOf", `SELECT 1 FROM tasks t JOIN agents a ON a.id = t.x FOR UPDATE OF t`, []string{"reads tasks", "reads agents"}},
		{"CommaList", `SELECT 1 FROM tasks AS t, agents a, projects WHERE true`, []string{"reads tasks", "reads agents", "reads projects"}},
		{"Subquery", `SELECT (SELECT count(*) FROM tasks t WHERE t.project_id = p.id) FROM projects p`, []string{"reads tasks", "reads projects"}},
		{"LeftJoinLateral", `SELECT 1 FROM x LEFT JOIN LATERAL (SELECT 1 FROM agents) y ON true`, []string{"reads agents"}},
		{"Function", `SELECT 1 FROM unnest(?::text[]) AS tasks(id) JOIN projects(?) ON true`, nil},
		{"Extract", `SELECT extract(epoch FROM tasks) FROM x`, nil},
		{"DistinctFrom", `SELECT 1 FROM x WHERE a IS DISTINCT FROM agents`, nil},
		{"Columns", `SELECT t.tasks, agents, projects.id FROM x t`, nil},
		{"OtherSchema", `SELECT 1 FROM pg_catalog.tasks`, nil},
		{"Comments", "SELECT 1 -- FROM tasks\n/* UPDATE agents /* nested */ SET */ FROM x", nil},
		{"Strings", `SELECT 'DELETE FROM tasks', $$UPDATE agents$$, $q$FROM notes$q$ FROM x WHERE y = $1`, nil},
		{"JoinUsing", `SELECT 1 FROM tasks JOIN agents USING (id)`, []string{"reads tasks", "reads agents"}},
		{"Prose", `tasks are posted by agents`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, u := range tableUses(tt.sql, pop) {
				got = append(got, string(u.kind)+" "+u.table)
			}
			require.Equal(t, tt.want, got)
		})
	}
}

// writeFile writes a Go file under root, making its directories.
func writeFile(t *testing.T, root, rel, body string) {
	t.Helper()
	path := filepath.Join(root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
}

// The checker on a synthetic repository: a module that writes another's
// table and reads one it is not allowed to fails, with the package, the
// table, its owner and the line; allowed reads, the owner's own SQL, test
// files and SQL in comments pass.
func TestOwnershipCheckerCatchesViolations(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "modules/people/store.go", "package people\n\n"+
		"const count = `SELECT count(*)\n\tFROM tasks t`\n\n"+ // line 3-4: a read of the board's table
		"// UPDATE tasks SET x = 1 in a comment is no SQL.\n"+
		"func q(set string) string {\n"+
		"\treturn \"UPDATE tasks SET \" + set + \" WHERE id = ?\"\n"+ // line 8: a write, concatenated
		"}\n\n"+
		"const ok = `SELECT a.id FROM agents a`\n") // line 11: allowed below
	writeFile(t, root, "modules/people/store_test.go", "package people\n\nconst fixture = `INSERT INTO tasks (id) VALUES (1)`\n")
	writeFile(t, root, "modules/board/post.go", "package board\n\nconst post = `INSERT INTO tasks (id) VALUES (?)`\n")
	writeFile(t, root, "modules/board/sub/store.go", "package sub\n\nconst s = `UPDATE tasks SET x = 1`\n")
	writeFile(t, root, "core/db/migrate.go", "package db\n\n"+
		"func f(conn interface{ NewSelect() any }) {\n\tconn.NewSelect().Table(\"schema_migrations\")\n"+
		"\tconn.NewInsert().Table(\"tasks\")\n\tconn.NewUpdate().Model(nil)\n}\n")
	owners := map[string]string{"tasks": "modules/board", "agents": "core/identity",
		"schema_migrations": "core/db"}
	pop := map[string]bool{"tasks": true, "agents": true, "schema_migrations": true}
	refs := scanCode(t, root, pop, "core", "modules")
	allowed := []allowance{{"modules/people", "agents", reads, "principals"}}

	got := checkOwnership(owners, refs, allowed)
	require.ElementsMatch(t, []string{
		"modules/people reads tasks (owner: modules/board) at modules/people/store.go:4: " +
			"ask the owner through a kernel seam, or list the read in allowedReads with its reason",
		"modules/people writes tasks (owner: modules/board) at modules/people/store.go:8: " +
			"only the owner writes its table; call the owner's service or a kernel seam",
		"core/db writes tasks (owner: modules/board) at core/db/migrate.go:5: " +
			"only the owner writes its table; call the owner's service or a kernel seam",
		"core/db writes a bun Model with no table name at core/db/migrate.go:6: " +
			"name the table (Table, ModelTableExpr) or write the SQL, so its owner can be checked",
	}, got.violations)
	require.Empty(t, got.unused)

	// allowedReads never excuses a write.
	got = checkOwnership(owners, refs, append(allowed, allowance{"core/db", "tasks", writes, "no"},
		allowance{"modules/people", "tasks", writes, "no"}))
	require.Len(t, got.violations, 4, "%v", got.violations)
	require.Equal(t, []string{"allowance core/db writes tasks excuses nothing: remove it",
		"allowance modules/people writes tasks excuses nothing: remove it"}, got.unused)
}

// An allowance without a reason, or one that excuses nothing, fails: the
// lists only hold what is true today.
func TestAllowancesMustBeHonest(t *testing.T) {
	got := checkOwnership(map[string]string{"tasks": "modules/board"}, nil,
		[]allowance{{"modules/people", "tasks", reads, "joins"}, {"modules/notes", "tasks", reads, ""}})
	require.Equal(t, []string{
		"allowance modules/people reads tasks excuses nothing: remove it",
		"allowance modules/notes reads tasks has no reason",
	}, got.unused)
}

// A table without an owner comment, or whose owner is no package, fails.
func TestATableWithoutAnOwnerFails(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	_, err := d.ExecContext(ctx, `CREATE TABLE stray (id int)`)
	require.NoError(t, err)
	_, err = d.ExecContext(ctx, `CREATE TABLE ghost (id int); COMMENT ON TABLE ghost IS 'owner: modules/ghost'`)
	require.NoError(t, err)
	_, err = d.ExecContext(ctx, `CREATE TABLE vague (id int); COMMENT ON TABLE vague IS 'the board''s'`)
	require.NoError(t, err)
	owners := readOwners(t, d)
	require.Equal(t, "modules/board", owners["tasks"])
	require.Equal(t, "modules/ghost", owners["ghost"])
	require.Equal(t, "", owners["vague"])
	problems := catalogProblems(owners, repoRoot(t))
	require.ElementsMatch(t, []string{
		"table ghost is owned by modules/ghost, which is no package directory",
		"table stray declares no owner: add COMMENT ON TABLE stray IS 'owner: <package>' in a migration (the one that creates it, for a new table)",
		"table vague declares no owner: add COMMENT ON TABLE vague IS 'owner: <package>' in a migration (the one that creates it, for a new table)",
	}, problems)
}

// A write allowance excuses only the test harness's home: the same
// allowance for a module excuses nothing and its write still fails.
func TestOnlyTheHarnessMayBeAllowedAWrite(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "core/kernel/kerneltest/seed.go", "package kerneltest\n\nconst seed = `INSERT INTO agents (id) VALUES (?)`\n")
	writeFile(t, root, "modules/board/seed.go", "package board\n\nconst seed = `INSERT INTO agents (id) VALUES (?)`\n")
	owners := map[string]string{"agents": "modules/people"}
	refs := scanCode(t, root, map[string]bool{"agents": true}, "core", "modules")
	got := checkOwnership(owners, refs, []allowance{{"core/kernel/kerneltest", "agents", writes, "seeds"},
		{"modules/board", "agents", writes, "no"}})
	require.Equal(t, []string{"modules/board writes agents (owner: modules/people) at modules/board/seed.go:3: " +
		"only the owner writes its table; call the owner's service or a kernel seam"}, got.violations)
	require.Equal(t, []string{"allowance modules/board writes agents excuses nothing: remove it"}, got.unused)
}
