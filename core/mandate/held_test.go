package mandate_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/mandate"
)

func (w *world) reach(ctx context.Context, holder, action string, projects ...string) ([]string, error) {
	var out []string
	err := w.tx(func(tx bun.IDB) (err error) {
		out, err = w.svc.Reach(ctx, tx, holder, action, projects)
		return err
	})
	return out, err
}

// Reach answers, in the order asked, the projects some verifying mandate of
// the holder covers: several mandates can each cover a part, so it must
// not stop at the first one.
func TestReachIsTheAskedProjectsSomeVerifyingMandateCovers(t *testing.T) {
	w := newWorld(t)
	w.root("a1", web, nil, 0)                                // older: web only
	w.root("a1", []string{"task.*@project:api"}, nil, 0)     // newer: api only
	docs := w.root("a2", []string{"*@project:docs"}, nil, 1) // revoked below
	w.child(docs, "a3", []string{"task.work@project:docs"}, nil)
	w.root("a3", web, nil, 0)
	w.exec("UPDATE mandates SET revoked_at = now() WHERE id = ?", docs.ID.String())

	for _, tt := range []struct {
		holder, action string
		projects, want []string
	}{
		{"a1", "task.work", nil, nil},
		{"a1", "task.work", []string{}, nil},
		{"a1", "task.work", []string{"web"}, []string{"web"}},
		{"a1", "task.work", []string{"api"}, []string{"api"}},
		{"a1", "task.work", []string{"docs"}, nil},
		{"a1", "task.work", []string{"api", "docs", "web"}, []string{"api", "web"}},
		{"a1", "task.work", []string{"web", "api"}, []string{"web", "api"}},
		{"a1", "note.write", []string{"api", "web"}, nil},
		// a3's child under a revoked root is skipped, not an error; its own
		// root still counts.
		{"a3", "task.work", []string{"docs", "web"}, []string{"web"}},
		{"a2", "task.work", []string{"docs"}, nil},
		{"a7", "task.work", []string{"web"}, nil},
	} {
		got, err := w.reach(w.ctx, tt.holder, tt.action, tt.projects...)
		require.NoError(t, err, "%+v", tt)
		require.Equal(t, tt.want, got, "%+v", tt)
	}
}

func TestReachReturnsTheDatabaseError(t *testing.T) {
	w := newWorld(t)
	w.root("a1", web, nil, 0)
	got, err := w.reach(canceled(), "a1", "task.work", "web")
	require.ErrorIs(t, err, context.Canceled)
	require.Nil(t, got)
}

// covered runs CoversSQL for holder over projects and returns the projects
// it is true for, sorted.
func (w *world) covered(holder, action string, projects ...string) []string {
	w.tb.Helper()
	var out []string
	q := `SELECT p FROM unnest(?::text[]) AS p WHERE ` + mandate.CoversSQL("'"+holder+"'", "p", action) + ` ORDER BY p`
	require.NoError(w.tb, w.d.NewRaw(q, pgdialect.Array(projects)).Scan(w.ctx, &out))
	return out
}

// CoversSQL is true where a live chain's leaf covers the action on the
// project, through any of the action's covering patterns ("*", the action,
// "task.*").
func TestCoversSQLIsTrueWhereALiveChainsLeafCoversTheProject(t *testing.T) {
	w := newWorld(t)
	w.liveRoot("a1", web, 0)
	w.liveRoot("a1", []string{"task.*@project:api"}, 0)
	w.liveRoot("a2", []string{"*@project:docs"}, 0)
	gone := w.liveRoot("a4", []string{"task.work@project:ops"}, 1)
	w.child(gone, "a3", []string{"task.work@project:ops"}, nil)
	w.exec("UPDATE mandates SET revoked_at = now() WHERE id = ?", gone.ID.String())
	all := []string{"api", "docs", "ops", "web"}

	require.Equal(t, []string{"api", "web"}, w.covered("a1", "task.work", all...))
	require.Equal(t, []string{"api", "web"}, w.covered("a1", "task.read", all...))
	require.Equal(t, []string{"api"}, w.covered("a1", "task.claim", all...))
	require.Empty(t, w.covered("a1", "note.write", all...))
	require.Equal(t, []string{"docs"}, w.covered("a2", "note.write", all...))
	require.Empty(t, w.covered("a3", "task.work", all...), "a revoked link above the leaf")
	require.Empty(t, w.covered("a4", "task.work", all...), "a revoked leaf")
	require.Empty(t, w.covered("a1", "task.work"))
}

// The patterns are one SQL array, comma separated: exactly one ", " between
// each two and none before the first.
func TestCoversSQLListsEachCoveringPatternOnce(t *testing.T) {
	got := mandate.CoversSQL("h", "p", "a.b")
	require.Contains(t, got, `cm.scope && ARRAY['*@project:' || p, 'a.b@project:' || p, 'a.b.*@project:' || p, 'a.*@project:' || p]`)
	require.Contains(t, mandate.CoversSQL("h", "p", "it's"), `ARRAY['*@project:' || p, 'it''s@project:' || p, 'it''s.*@project:' || p]`)
}
