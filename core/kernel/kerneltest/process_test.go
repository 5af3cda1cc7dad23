package kerneltest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
)

// sampler is a module with one worker that reports its configuration's
// admin UI URL and the projects its database holds, then waits to stop.
type sampler struct{ got chan string }

func (sampler) Name() string { return "sampler" }

func (s sampler) Register(h *kernel.Host) error {
	h.Worker("sample", func(ctx context.Context) error {
		var n int
		if err := h.DB().NewRaw(`SELECT count(*) FROM projects`).Scan(ctx, &n); err != nil {
			return err
		}
		s.got <- fmt.Sprintf("%s %d", h.Config().AdminUIURL, n)
		<-ctx.Done()
		return nil
	})
	return nil
}

// A Process runs its modules' workers over a pool of its own on the World's
// database, with the configuration its environment gives, until Stop.
func TestAProcessRunsItsWorkersOnTheWorldsDatabase(t *testing.T) {
	w := kerneltest.New(t, kerneltest.Options{NoMCP: true})
	w.Office()
	s := sampler{got: make(chan string, 1)}
	p := w.Process(map[string]string{"PACT_ADMIN_UI_URL": "https://ui.test"}, s)
	require.NotSame(t, w.DB, p.DB)
	select {
	case got := <-s.got:
		require.Equal(t, "https://ui.test 3", got)
	case <-time.After(10 * time.Second):
		t.Fatal("the worker never ran")
	}
	p.Stop()
	p.Stop() // again: already stopped
}
