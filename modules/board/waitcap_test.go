package board_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// pact_wait and pact_events share the cap on waiting calls: with four held
// by code-web, a fifth of either is refused rate_limited at once, another
// agent still waits, and the held ones are woken and answered as usual.
func TestPactWaitAndPactEventsShareTheCapOnWaitingCalls(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Talk", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	held := map[string]any{"mandate_id": w.Root("code-web"), "seconds": 20}

	var wg sync.WaitGroup
	errsOf := make(chan error, kernel.MaxWaitsPerAgent)
	for i := range kernel.MaxWaitsPerAgent {
		tool := []string{"pact_wait", "pact_events"}[i%2]
		wg.Go(func() {
			_, err := w.Call("code-web", tool, held)
			errsOf <- err
		})
	}
	require.Eventually(t, func() bool { return w.Hub.Len() == kernel.MaxWaitsPerAgent }, 10*time.Second, 10*time.Millisecond,
		"every call is held")

	for _, tool := range []string{"pact_wait", "pact_events"} {
		start := time.Now()
		e := w.Refused(errs.RateLimited, "code-web", tool, held)
		require.Contains(t, e.Message, "agent code-web already has 4 calls waiting")
		require.Less(t, time.Since(start), 5*time.Second, "refused at once, not after a wait")
	}
	out := w.OK("gemini-web", "pact_wait", map[string]any{"mandate_id": w.Root("gemini-web"), "seconds": 0})
	require.Equal(t, true, out["timed_out"], "another agent is not capped")

	w.OK("gemini-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web"), "body": "here"})
	wg.Wait()
	close(errsOf)
	for err := range errsOf {
		require.NoError(t, err, "the held calls are answered")
	}
	w.OK("code-web", "pact_wait", map[string]any{"mandate_id": w.Root("code-web"), "seconds": 0})
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM entries WHERE agent_id = 'code-web' AND outcome = 'rate_limited'`))
	w.VerifyLog()
}
