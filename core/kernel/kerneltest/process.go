package kerneltest

import (
	"context"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
)

// Process is a running board process on a World's database, as when
// several pact-board processes share one PostgreSQL: its own connection
// pool, configuration, identity service and kernel, the same keyring, and
// its modules' workers running (Kernel.Run) until Stop or the test's end.
type Process struct {
	Kernel *kernel.Kernel
	DB     *db.DB
	cancel context.CancelFunc
	done   chan struct{}
}

// Process starts a process whose configuration boot.Load reads from env,
// with modules registered in order, and runs its workers.
func (w *World) Process(env map[string]string, modules ...kernel.Module) *Process {
	w.T.Helper()
	d, err := db.Open(context.Background(), w.DSN)
	require.NoError(w.T, err)
	cfg, err := boot.Load(func(k string) string { return env[k] })
	if err != nil {
		d.Close()
	}
	require.NoError(w.T, err)
	log := ledger.New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	p := &Process{DB: d, cancel: cancel, done: make(chan struct{})}
	p.Kernel = kernel.New(kernel.Deps{DB: d, Log: log, Mandates: w.Mandates, Config: cfg,
		Identity: identity.NewService(d, log, &identity.Options{Now: w.Identity.Now})})
	if err := p.Kernel.Register(modules...); err != nil {
		d.Close()
		require.NoError(w.T, err)
	}
	go func() {
		defer close(p.done)
		_ = p.Kernel.Run(ctx)
		d.Close()
	}()
	w.T.Cleanup(p.Stop)
	return p
}

// Stop cancels the process and waits for its workers to return, as a
// process killed between two statements leaves the database. It may be
// called again.
func (p *Process) Stop() {
	p.cancel()
	<-p.done
}
