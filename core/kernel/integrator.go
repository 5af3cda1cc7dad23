package kernel

import (
	"context"
	"time"

	"github.com/pactboard/pact/core/ledger"
)

// LogIntegrator is the module that runs the log's integrator as a worker
// (docs/log-sequencing.md): every board runs one, so entries a board
// committed are placed by it at once, and those of a board that died are
// placed by the others within every.
func LogIntegrator(every time.Duration) Module { return logIntegrator{every: every} }

type logIntegrator struct {
	every time.Duration
}

func (logIntegrator) Name() string { return "log" }

func (m logIntegrator) Register(h *Host) error {
	h.Worker("integrate", func(ctx context.Context) error {
		i := &ledger.Integrator{Log: h.Log(), DB: h.DB(), Every: m.every, Logger: h.Logger().Named("integrate")}
		return i.Run(ctx)
	})
	return nil
}
