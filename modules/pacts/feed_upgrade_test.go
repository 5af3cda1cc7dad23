package pacts_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
)

// Migration 029 over a board whose pacts numbered their feed board-wide:
// every number handed out before the upgrade (a Last-Event-ID, a since, a
// message's cursor) still names the same row, so passing it back skips
// nothing and replays nothing; each organization's next number follows its
// own last one, whatever the others wrote.
func TestFeedNumbersHandedOutBeforeTheUpgradeStillHold(t *testing.T) {
	ctx := context.Background()
	d, err := db.Open(ctx, pgtest.NewEmptyDSN(t))
	require.NoError(t, err)
	t.Cleanup(d.Close)
	// The migrations as shipped, up to 028, read from the tree (only
	// core/db imports package migrations).
	before := fstest.MapFS{}
	names, err := fs.Glob(os.DirFS(filepath.Join("..", "..", "migrations")), "*.sql")
	require.NoError(t, err)
	for _, n := range names {
		if n < "029" {
			body, err := os.ReadFile(filepath.Join("..", "..", "migrations", n))
			require.NoError(t, err)
			before[n] = &fstest.MapFile{Data: body}
		}
	}
	_, err = d.MigrateFS(ctx, before)
	require.NoError(t, err)

	const alpha, beta = "a0000000-0000-4000-8000-000000000001", "b0000000-0000-4000-8000-000000000001"
	_, err = d.ExecContext(ctx, `
		INSERT INTO orgs (id, name, system_chain) VALUES ('alpha', 'Alpha', 'alpha-system'), ('beta', 'Beta', 'beta-system');
		INSERT INTO humans (id, org_id, name, role) VALUES ('ana', 'alpha', 'Ana', 'owner'), ('bob', 'beta', 'Bob', 'owner');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('web', 'alpha', 'Web', 'ana'), ('bweb', 'beta', 'Bweb', 'bob');
		INSERT INTO pacts (id, org_id, project_id, name, purpose, owner_human, created_by) VALUES
			(?, 'alpha', 'web', 'Alpha', 'a', 'ana', 'human:ana'), (?, 'beta', 'bweb', 'Beta', 'b', 'bob', 'human:bob')`, alpha, beta)
	require.NoError(t, err)
	add := func(pact string) {
		t.Helper()
		_, err := d.ExecContext(ctx, `INSERT INTO pact_feed (pact_id, kind, actor) VALUES (?, 'message', 'human:x')`, pact)
		require.NoError(t, err)
	}
	// Before the upgrade: ids 1-6, alpha's 1, 4 and 6, beta's the others.
	for _, p := range []string{alpha, beta, beta, alpha, beta, alpha} {
		add(p)
	}
	_, err = d.Migrate(ctx)
	require.NoError(t, err)

	var rows []struct {
		ID  int64  `bun:"id"`
		Org string `bun:"org_id"`
		Seq int64  `bun:"seq"`
	}
	require.NoError(t, d.NewRaw(`SELECT id, org_id, seq FROM pact_feed ORDER BY id`).Scan(ctx, &rows))
	require.Len(t, rows, 6)
	for i, r := range rows {
		require.Equal(t, r.ID, r.Seq, "row %d keeps the number it was handed out under", r.ID)
		require.Equal(t, []string{"alpha", "beta", "beta", "alpha", "beta", "alpha"}[i], r.Org)
	}

	// After it: each organization goes on from its own last number.
	for _, p := range []string{alpha, beta, beta, alpha} {
		add(p)
	}
	seqs := func(org string, after int64) []int64 {
		var out []int64
		require.NoError(t, d.NewRaw(`SELECT seq FROM pact_feed WHERE org_id = ? AND seq > ? ORDER BY seq`, org, after).Scan(ctx, &out))
		return out
	}
	require.Equal(t, []int64{6, 7, 8}, seqs("alpha", 4), "alpha's Last-Event-ID 4 from before the upgrade: nothing skipped")
	require.Equal(t, []int64{5, 6, 7}, seqs("beta", 3))
	var ordered bool
	require.NoError(t, d.NewRaw(`SELECT bool_and(ordered) FROM (SELECT id > lag(id, 1, 0::bigint) OVER (PARTITION BY org_id ORDER BY seq) AS ordered
		FROM pact_feed) o`).Scan(ctx, &ordered))
	require.True(t, ordered, "within an organization, ids rise with numbers")
}
