package kernel_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/pgtest"
)

// echo is a section that reads its answer from the database, in the
// transaction it is given, and notes the order sections ran in.
func echo(ran *[]string, name string) kernel.WhoamiSectionFunc {
	return func(ctx context.Context, tx bun.IDB, c kernel.WhoamiCaller) (any, error) {
		*ran = append(*ran, name)
		var v string
		err := tx.NewRaw(`SELECT ? || ':' || ?`, name, c.AgentID).Scan(ctx, &v)
		return v, err
	}
}

// Modules register pact_whoami sections through their Host; the serving
// module assembles them in name order, whatever order the modules
// registered in, each built in the call's transaction.
func TestWhoamiSectionsAreAssembledInNameOrder(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	var ran []string
	k := kernel.New(kernel.Deps{DB: d})
	require.NoError(t, k.Register(
		moduleFunc{"people", func(h *kernel.Host) error { return h.WhoamiSection("role", echo(&ran, "role")) }},
		moduleFunc{"notes", func(h *kernel.Host) error {
			return h.WhoamiProjectSection("context", func(ctx context.Context, tx bun.IDB, c kernel.WhoamiCaller, ps []string) (map[string]any, error) {
				var n int
				if err := tx.NewRaw(`SELECT cardinality(?::text[])`, pgdialect.Array(ps)).Scan(ctx, &n); err != nil {
					return nil, err
				}
				return map[string]any{"p1": []string{"note"}, "elsewhere": n}, nil
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
	err := d.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		got, err := k.Whoami().Sections(ctx, tx, caller)
		require.NoError(t, err)
		require.Equal(t, map[string]any{"agent": "agent:code-web", "role": "role:code-web"}, got)

		per, err := k.Whoami().ProjectSections(ctx, tx, caller, []string{"p1", "p2"})
		require.NoError(t, err)
		require.Equal(t, map[string]map[string]any{
			"p1": {"context": []string{"note"}},
			"p2": {"context": nil},
		}, per, "every project has every field; one the builder left out is nil, one not asked for is dropped")
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"agent", "role"}, ran)
}

// A section's error stops the answer and says which module's section failed.
func TestWhoamiSectionErrorsNameTheSection(t *testing.T) {
	boom := errors.New("boom")
	k := kernel.New(kernel.Deps{})
	require.NoError(t, k.Register(moduleFunc{"notes", func(h *kernel.Host) error {
		return h.WhoamiSection("notes", func(context.Context, bun.IDB, kernel.WhoamiCaller) (any, error) { return nil, boom })
	}}))
	_, err := k.Whoami().Sections(context.Background(), nil, kernel.WhoamiCaller{AgentID: "a"})
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, "pact_whoami section notes.notes")
}

// A section name is a JSON field taken once: a second module, a bad name or
// a missing builder stops the board from starting.
func TestWhoamiRefusesBadSections(t *testing.T) {
	ok := func(context.Context, bun.IDB, kernel.WhoamiCaller) (any, error) { return nil, nil }
	okProject := func(context.Context, bun.IDB, kernel.WhoamiCaller, []string) (map[string]any, error) { return nil, nil }
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
	w := kernel.New(kernel.Deps{DB: pgtest.New(t)}).Whoami()
	builds := 0
	group := func(context.Context, bun.IDB, kernel.WhoamiCaller) (map[string]any, error) {
		builds++
		return map[string]any{"agent": "a", "mandates": []string{"m"}}, nil
	}
	require.NoError(t, w.AddSection("people", "role", echo(new([]string), "role")))
	require.ErrorContains(t, w.AddSectionGroup("board", []string{"agent", "role"}, group), "role is registered by people and board")
	sections, _ := w.Names()
	require.Equal(t, []string{"role"}, sections, "a refused group leaves none of its names")

	require.NoError(t, w.AddSectionGroup("board", []string{"agent", "mandates"}, group))
	out, err := w.Sections(ctx, pgtest.New(t), kernel.WhoamiCaller{AgentID: "x"})
	require.NoError(t, err)
	require.Equal(t, 1, builds)
	require.Equal(t, "a", out["agent"])
	require.Equal(t, []string{"m"}, out["mandates"])
	require.Equal(t, "role:x", out["role"])
}
