package kerneltest

import (
	"context"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
)

// Twin is a second board process on a World's database, as when several
// pact-board processes share one PostgreSQL: its own kernel, modules and
// event hub (its own LISTEN connection), the same keyring and database.
type Twin struct {
	Kernel *kernel.Kernel
	Hub    *events.Hub
}

// Twin starts a second process with modules registered in order; its hub
// runs until the test ends. Its tools are called through Kernel.Tools().Call
// (no HTTP server of its own).
func (w *World) Twin(modules ...kernel.Module) *Twin {
	w.T.Helper()
	tw := &Twin{Hub: events.NewHub(w.DB.ListenConfig(), nil)}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = tw.Hub.Run(ctx) }()
	w.T.Cleanup(func() { stop(); <-done })
	tw.Kernel = kernel.New(kernel.Deps{DB: w.DB, Log: ledger.New(nil), Mandates: w.Mandates, Identity: w.Identity,
		Events: tw.Hub, Config: w.Config})
	require.NoError(w.T, tw.Kernel.Register(modules...))
	return tw
}

// Exec runs a statement against the database, for a state no service makes
// (a claim gone stale, a project frozen behind the services' back).
func (w *World) Exec(q string, args ...any) {
	w.T.Helper()
	_, err := w.DB.ExecContext(context.Background(), q, args...)
	require.NoError(w.T, err)
}
