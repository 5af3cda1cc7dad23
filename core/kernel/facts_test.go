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
	"github.com/pactboard/pact/sdk/errs"
)

// sqlFacts answers from the database, in the transaction it is given: each
// project's count is the length of its id.
type sqlFacts struct{}

func (sqlFacts) OpenTaskCounts(ctx context.Context, tx bun.IDB, ps []string) (map[string]int, error) {
	var rows []struct {
		ID string `bun:"id"`
		N  int    `bun:"n"`
	}
	if err := tx.NewRaw(`SELECT id, length(id) AS n FROM unnest(?::text[]) AS id`, pgdialect.Array(ps)).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.ID] = r.N
	}
	return out, nil
}

// A module asks the board's facts through the handle it got at Register,
// even when it registered before the board; before any board is there the
// question is refused as unavailable.
func TestBoardFactsWhateverTheRegistrationOrder(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	var facts kernel.BoardFacts
	k := kernel.New(kernel.Deps{DB: d})
	require.NoError(t, k.Register(moduleFunc{"people", func(h *kernel.Host) error {
		facts = h.BoardFacts()
		return nil
	}}))
	_, err := facts.OpenTaskCounts(ctx, d, []string{"web"})
	require.Equal(t, errs.Unavailable, errs.CodeOf(err), "%v", err)

	require.NoError(t, k.Register(moduleFunc{"board", func(h *kernel.Host) error { return h.ProvideBoardFacts(sqlFacts{}) }}))
	got, err := facts.OpenTaskCounts(ctx, d, []string{"web", "infra"})
	require.NoError(t, err)
	require.Equal(t, map[string]int{"web": 3, "infra": 5}, got)
	require.Same(t, facts, k.BoardFacts())
}

// The provider's errors come back wrapped; only one module may provide the
// facts, and not nil ones.
func TestBoardFactsRefusals(t *testing.T) {
	k := kernel.New(kernel.Deps{})
	require.NoError(t, k.Register(moduleFunc{"board", func(h *kernel.Host) error { return h.ProvideBoardFacts(failing{}) }}))
	_, err := k.BoardFacts().OpenTaskCounts(context.Background(), nil, nil)
	require.ErrorIs(t, err, errFacts)
	require.ErrorContains(t, err, "open task counts: ")

	err = k.Register(moduleFunc{"tasks", func(h *kernel.Host) error { return h.ProvideBoardFacts(sqlFacts{}) }})
	require.ErrorContains(t, err, "module tasks: board facts are provided by board and tasks")
	err = kernel.New(kernel.Deps{}).Register(moduleFunc{"board", func(h *kernel.Host) error { return h.ProvideBoardFacts(nil) }})
	require.ErrorContains(t, err, "module board provides nil board facts")
}

var errFacts = errors.New("facts down")

type failing struct{}

func (failing) OpenTaskCounts(context.Context, bun.IDB, []string) (map[string]int, error) {
	return nil, errFacts
}
