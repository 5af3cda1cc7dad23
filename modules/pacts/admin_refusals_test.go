package pacts_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// A person below an operation's role is refused at the kernel's gate, and
// the refusal is on the pact's record with who tried it (PACT-022).
func TestGateRefusalsAreOnThePactsRecord(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	refused(t, f.adm("vic", "POST", "/pacts/"+id+"/close", nil), http.StatusForbidden, "forbidden")
	refused(t, f.adm("vic", "POST", "/pacts/"+id+"/seats/@bram/pause", nil), http.StatusForbidden, "forbidden")
	d := f.raise(t, "wanda", id, "Tone?", "Warm", "Dry")
	refused(t, f.adm("vic", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{"choice": "Warm"}), http.StatusForbidden, "forbidden")

	entries := ok(t, f.adm("ana", "GET", "/pacts/"+id+"/record?limit=3", nil))["entries"].([]any)
	var got [][]any
	for _, e := range entries {
		e := e.(map[string]any)
		got = append(got, []any{e["actor"], e["action"], e["outcome"]})
	}
	require.Equal(t, [][]any{
		{"human:vic", "admin.pact.answer", "forbidden"},
		{"agent:wanda", "raise_pact_decision", "ok"},
		{"human:vic", "admin.pact.pause_seat", "forbidden"},
	}, got)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM entries WHERE actor = 'human:vic' AND action = 'admin.pact.close' AND outcome = 'forbidden'
		AND project_id = 'web'`))
	require.Equal(t, 0, f.Count(`SELECT count(*) FROM pacts WHERE closed_at IS NOT NULL`))
	f.VerifyLog()
}
