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

// counter is a seam's type, as core/seams declares them: what one module
// asks of another.
type counter interface {
	Counts(ctx context.Context, tx bun.IDB, ids []string) (map[string]int, error)
}

const countsSeam kernel.Seam[counter] = "the counts"

// sqlCounts answers from the database, in the transaction it is given:
// each id's count is its length.
type sqlCounts struct{}

func (sqlCounts) Counts(ctx context.Context, tx bun.IDB, ids []string) (map[string]int, error) {
	var rows []struct {
		ID string `bun:"id"`
		N  int    `bun:"n"`
	}
	if err := tx.NewRaw(`SELECT id, length(id) AS n FROM unnest(?::text[]) AS id`, pgdialect.Array(ids)).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.ID] = r.N
	}
	return out, nil
}

// A module asks a seam through the lookup it got at Register, even when it
// registered before the provider; before any provider is there the
// question is refused as unavailable. The kernel asks the same provider.
func TestSeamsWhateverTheRegistrationOrder(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	var counts func() (counter, error)
	k := kernel.New(kernel.Deps{DB: d})
	require.NoError(t, k.Register(moduleFunc{"people", func(h *kernel.Host) error {
		counts = kernel.Use(h, countsSeam)
		return nil
	}}))
	_, err := counts()
	require.Equal(t, errs.Unavailable, errs.CodeOf(err), "%v", err)
	require.ErrorContains(t, err, "no module provides the counts on this board")

	require.NoError(t, k.Register(moduleFunc{"board", func(h *kernel.Host) error {
		return kernel.Provide(h, countsSeam, counter(sqlCounts{}))
	}}))
	c, err := counts()
	require.NoError(t, err)
	got, err := c.Counts(ctx, d, []string{"web", "infra"})
	require.NoError(t, err)
	require.Equal(t, map[string]int{"web": 3, "infra": 5}, got)
	fromKernel, err := kernel.Use(k, countsSeam)()
	require.NoError(t, err)
	require.Equal(t, c, fromKernel)
}

// Only one module may provide a seam, and not a nil one; seams of another
// type never meet, even under the same name.
func TestSeamRefusals(t *testing.T) {
	k := kernel.New(kernel.Deps{})
	require.NoError(t, k.Register(moduleFunc{"board", func(h *kernel.Host) error {
		return kernel.Provide(h, countsSeam, counter(failing{}))
	}}))
	err := k.Register(moduleFunc{"tasks", func(h *kernel.Host) error { return kernel.Provide(h, countsSeam, counter(sqlCounts{})) }})
	require.ErrorContains(t, err, `module tasks: seam "the counts" is provided by board and tasks`)
	err = kernel.New(kernel.Deps{}).Register(moduleFunc{"board", func(h *kernel.Host) error {
		return kernel.Provide(h, countsSeam, nil)
	}})
	require.ErrorContains(t, err, `module board provides nil for seam "the counts"`)

	const named kernel.Seam[string] = "the counts"
	_, err = kernel.Use(k, named)()
	require.Equal(t, errs.Unavailable, errs.CodeOf(err), "%v", err)
	require.NoError(t, kernel.Provide(k, named, "kept apart"))
	c, err := kernel.Use(k, countsSeam)()
	require.NoError(t, err)
	_, err = c.Counts(context.Background(), nil, nil)
	require.ErrorIs(t, err, errCounts, "the board's provider still answers")
}

// A seam whose absence has a meaning answers its default until a module
// provides it, and the provider from then on.
func TestSeamDefault(t *testing.T) {
	k := kernel.New(kernel.Deps{})
	counts := kernel.UseOr(k, countsSeam, counter(failing{}))
	require.Equal(t, counter(failing{}), counts())
	require.NoError(t, kernel.Provide(k, countsSeam, counter(sqlCounts{})))
	require.Equal(t, counter(sqlCounts{}), counts())
}

type created struct{ org string }

const createdHook kernel.Hook[created] = "created"

// A hook's subscribers run in the order they subscribed, in the
// publisher's transaction, whatever order the publisher registered in; the
// first error stops them and comes back wrapped with the subscriber's
// module. With no subscriber, publishing does nothing.
func TestHooksRunInOrderAndStopAtTheFirstError(t *testing.T) {
	ctx := context.Background()
	k := kernel.New(kernel.Deps{})
	var publish func(context.Context, bun.IDB, created) error
	require.NoError(t, k.Register(moduleFunc{"people", func(h *kernel.Host) error {
		publish = kernel.Publisher(h, createdHook)
		return nil
	}}))
	require.NoError(t, publish(ctx, nil, created{"acme"}))

	var ran []string
	subscribe := func(module string, err error) {
		require.NoError(t, k.Register(moduleFunc{module, func(h *kernel.Host) error {
			return kernel.Subscribe(h, createdHook, func(_ context.Context, _ bun.IDB, e created) error {
				ran = append(ran, module+":"+e.org)
				return err
			})
		}}))
	}
	subscribe("board", nil)
	subscribe("notes", errCounts)
	subscribe("pacts", nil)
	err := publish(ctx, nil, created{"acme"})
	require.ErrorIs(t, err, errCounts)
	require.ErrorContains(t, err, `hook "created" of notes: `)
	require.Equal(t, []string{"board:acme", "notes:acme"}, ran)

	err = k.Register(moduleFunc{"nil", func(h *kernel.Host) error { return kernel.Subscribe(h, createdHook, nil) }})
	require.ErrorContains(t, err, `module nil subscribes nil to hook "created"`)
}

var errCounts = errors.New("counts down")

type failing struct{}

func (failing) Counts(context.Context, bun.IDB, []string) (map[string]int, error) {
	return nil, errCounts
}
