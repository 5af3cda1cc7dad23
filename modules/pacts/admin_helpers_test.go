package pacts_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/pacts"
)

// setupAt is setup on a board whose clock is now, returning the module so
// a test can run its sweeps.
func setupAt(t *testing.T, now func() time.Time) (*fixture, *pacts.Module) {
	f := setupWith(t, kerneltest.Options{Now: now}, pacts.Options{})
	return f, f.mod
}

// adm calls the Admin API as person as, with body (nil for none) sent as
// JSON.
func (f *fixture) adm(as, method, path string, body any) kerneltest.Reply {
	f.T.Helper()
	raw := ""
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(f.T, err)
		raw = string(b)
	}
	return f.Admin(as, method, path, raw)
}

// ok requires a 2xx reply and returns its body.
func ok(t *testing.T, r kerneltest.Reply) map[string]any {
	t.Helper()
	require.True(t, r.Status >= 200 && r.Status < 300, "status %d: %s", r.Status, r.Raw)
	return r.Body
}

// refused requires an error reply with code and returns its message.
func refused(t *testing.T, r kerneltest.Reply, status int, code string) string {
	t.Helper()
	require.Equal(t, status, r.Status, r.Raw)
	require.Equal(t, code, r.Body["error"], r.Raw)
	msg, _ := r.Body["message"].(string)
	return msg
}

// raise has agent raise a decision in pact with options and returns its id.
func (f *fixture) raise(t *testing.T, agent, pact, question string, options ...string) string {
	t.Helper()
	opts := make([]any, len(options))
	for i, o := range options {
		opts[i] = o
	}
	out, err := f.as(agent, pacts.ToolRaise, map[string]any{"pact_id": pact, "question": question, "options": opts})
	require.NoError(t, err)
	return out["decision_id"].(string)
}

// storedAnswer reads decision's answer as the database holds it.
func (f *fixture) storedAnswer(t *testing.T, decision string) (answer, kind string) {
	t.Helper()
	var a, k *string
	require.NoError(t, f.DB.NewRaw(`SELECT answer, answer_kind FROM pact_decisions WHERE id = ?`, decision).Scan(context.Background(), &a, &k))
	if a == nil {
		return "", ""
	}
	return *a, *k
}
