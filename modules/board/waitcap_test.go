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
	require.Eventually(t, func() bool { return w.Hub.Len() == 2*kernel.MaxWaitsPerAgent }, 10*time.Second, 10*time.Millisecond,
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

// TestRefusedWaitsAreLoggedOnce: the check before pact_wait or pact_events
// waits refuses a call that could not be answered (a mandate revoked, a
// project out of reach) at once, and that refusal is the call's one log
// entry, as every refused call's is. The original did not log it
// (docs/specs/divergences.md, audit item 7): an agent looping on a dead
// mandate would have left no trace.
func TestRefusedWaitsAreLoggedOnce(t *testing.T) {
	w := newWorld(t)
	w.Exec(`UPDATE mandates SET revoked_at = now() WHERE id = ?`, w.Root("gemini-web"))
	for _, tc := range []struct {
		tool, agent string
		args        map[string]any
		code        errs.Code
	}{
		{"pact_wait", "gemini-web", map[string]any{"mandate_id": w.Root("gemini-web"), "seconds": 20}, errs.MandateRevoked},
		{"pact_events", "gemini-web", map[string]any{"mandate_id": w.Root("gemini-web"), "seconds": 20}, errs.MandateRevoked},
		{"pact_events", "code-web", map[string]any{"mandate_id": w.Root("code-web"), "seconds": 20, "project_id": "api"}, errs.ProjectMismatch},
	} {
		before := w.Count(`SELECT count(*) FROM entries WHERE action = ?`, tc.tool)
		w.Refused(tc.code, tc.agent, tc.tool, tc.args)
		require.Equal(t, before+1, w.Count(`SELECT count(*) FROM entries WHERE action = ?`, tc.tool), "%s %s", tc.tool, tc.code)
		require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = ? AND agent_id = ? AND outcome = ?
			AND id = (SELECT max(id) FROM entries)`, tc.tool, tc.agent, string(tc.code)), "%s %s", tc.tool, tc.code)
	}
	require.Zero(t, w.Hub.Len(), "nothing waits")
	w.VerifyLog()
}
