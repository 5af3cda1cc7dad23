package kernel_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/pgtest"
)

// echo is a section that reads its answer from the database, in the
// transaction it is given, and notes the order sections were asked in.
func echo(ran *[]string, name string) kernel.WhoamiSectionFunc {
	return func(c kernel.WhoamiCaller) (db.Step, func() (any, error)) {
		*ran = append(*ran, name)
		var v string
		return db.Step{SQL: `SELECT $1 || ':' || $2`, Args: []any{name, c.AgentID}, Rows: db.OneRow(&v)},
			func() (any, error) { return v, nil }
	}
}

// Modules register pact_whoami sections through their Host; the serving
// module assembles them in name order, whatever order the modules
// registered in, all read in one round trip of the call's transaction.
func TestWhoamiSectionsAreAssembledInNameOrder(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	var ran []string
	k := kernel.New(kernel.Deps{DB: d})
	require.NoError(t, k.Register(
		moduleFunc{"people", func(h *kernel.Host) error { return h.WhoamiSection("role", echo(&ran, "role")) }},
		moduleFunc{"notes", func(h *kernel.Host) error {
			return h.WhoamiProjectSection("context", func(c kernel.WhoamiCaller, ps []string) (db.Step, func() (map[string]any, error)) {
				var n int
				return db.Step{SQL: `SELECT cardinality($1::text[])`, Args: []any{ps}, Rows: db.OneRow(&n)},
					func() (map[string]any, error) {
						return map[string]any{"p1": []string{"note"}, "elsewhere": n}, nil
					}
			})
		}},
		moduleFunc{"board", func(h *kernel.Host) error {
			require.Same(t, k.Whoami(), h.Whoami())
			return h.WhoamiSection("agent", echo(&ran, "agent"))
		}},
	))
	sections, projects := k.Whoami().Names()
	require.Equal(t, []string{"agent", "role"}, sections)
	require.Equal(t, []string{"context"}, projects)

	caller := kernel.WhoamiCaller{AgentID: "code-web", OrgID: "default"}
	tx, err := d.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	var trips []string
	stop := d.Watch(func(sql string) {
		if !strings.HasPrefix(sql, "<prepare>") { // once per connection
			trips = append(trips, sql)
		}
	})
	got, per, err := k.Whoami().Build(ctx, tx, caller, []string{"p1", "p2"})
	stop()
	require.NoError(t, err)
	require.Len(t, trips, 1, "every section in one round trip")
	require.Equal(t, map[string]any{"agent": "agent:code-web", "role": "role:code-web"}, got)
	require.Equal(t, map[string]map[string]any{
		"p1": {"context": []string{"note"}},
		"p2": {"context": nil},
	}, per, "every project has every field; one the builder left out is nil, one not asked for is dropped")
	require.Equal(t, []string{"agent", "role"}, ran)
}

// A section's error stops the answer and says which module's section
// failed, whether its statement fails or making its value does.
func TestWhoamiSectionErrorsNameTheSection(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	boom := errors.New("boom")
	for _, tt := range []struct {
		name    string
		section kernel.WhoamiSectionFunc
	}{
		{"Value", func(kernel.WhoamiCaller) (db.Step, func() (any, error)) {
			return db.Step{SQL: "SELECT 1"}, func() (any, error) { return nil, boom }
		}},
		{"Rows", func(kernel.WhoamiCaller) (db.Step, func() (any, error)) {
			return db.Step{SQL: "SELECT 1", Rows: func(*db.Tx, pgx.Rows) error { return boom }},
				func() (any, error) { return nil, nil }
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := kernel.New(kernel.Deps{DB: d})
			require.NoError(t, k.Register(moduleFunc{"notes", func(h *kernel.Host) error {
				return h.WhoamiSection("notes", tt.section)
			}}))
			tx, err := d.Begin(ctx)
			require.NoError(t, err)
			defer tx.Rollback(ctx)
			_, _, err = k.Whoami().Build(ctx, tx, kernel.WhoamiCaller{AgentID: "a"}, nil)
			require.ErrorIs(t, err, boom)
			require.ErrorContains(t, err, "pact_whoami section notes.notes")
		})
	}
}

// A section name is a JSON field taken once: a second module, a bad name or
// a missing builder stops the board from starting.
func TestWhoamiRefusesBadSections(t *testing.T) {
	ok := func(kernel.WhoamiCaller) (db.Step, func() (any, error)) { return db.Step{}, nil }
	okProject := func(kernel.WhoamiCaller, []string) (db.Step, func() (map[string]any, error)) { return db.Step{}, nil }
	for _, tt := range []struct {
		name string
		mods []kernel.Module
		want string
	}{
		{"Twice", []kernel.Module{
			moduleFunc{"board", func(h *kernel.Host) error { return h.WhoamiSection("agent", ok) }},
			moduleFunc{"people", func(h *kernel.Host) error { return h.WhoamiSection("agent", ok) }},
		}, "module people: pact_whoami section agent is registered by board and people"},
		{"BadName", []kernel.Module{
			moduleFunc{"board", func(h *kernel.Host) error { return h.WhoamiSection("Agent", ok) }},
		}, `pact_whoami section "Agent" must match`},
		{"NoBuilder", []kernel.Module{
			moduleFunc{"notes", func(h *kernel.Host) error { return h.WhoamiProjectSection("context", nil) }},
		}, "pact_whoami section context needs a builder"},
		{"ProjectTwice", []kernel.Module{
			moduleFunc{"notes", func(h *kernel.Host) error { return h.WhoamiProjectSection("context", okProject) }},
			moduleFunc{"board", func(h *kernel.Host) error { return h.WhoamiProjectSection("context", okProject) }},
		}, "pact_whoami section context is registered by notes and board"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.ErrorContains(t, kernel.New(kernel.Deps{}).Register(tt.mods...), tt.want)
		})
	}
}

// A group of sections is built once per answer, and registers all of its
// names or none of them.
func TestWhoamiSectionGroupIsBuiltOnce(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	w := kernel.New(kernel.Deps{DB: d}).Whoami()
	builds := 0
	group := func(kernel.WhoamiCaller) (db.Step, func() (map[string]any, error)) {
		builds++
		return db.Step{SQL: "SELECT 1"}, func() (map[string]any, error) {
			return map[string]any{"agent": "a", "mandates": []string{"m"}}, nil
		}
	}
	require.NoError(t, w.AddSection("people", "role", echo(new([]string), "role")))
	require.ErrorContains(t, w.AddSectionGroup("board", []string{"agent", "role"}, group), "role is registered by people and board")
	sections, _ := w.Names()
	require.Equal(t, []string{"role"}, sections, "a refused group leaves none of its names")

	require.NoError(t, w.AddSectionGroup("board", []string{"agent", "mandates"}, group))
	tx, err := d.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	out, _, err := w.Build(ctx, tx, kernel.WhoamiCaller{AgentID: "x"}, nil)
	require.NoError(t, err)
	require.Equal(t, 1, builds)
	require.Equal(t, "a", out["agent"])
	require.Equal(t, []string{"m"}, out["mandates"])
	require.Equal(t, "role:x", out["role"])
}
