package pacts_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
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

// recordedOperations are the Admin API's pact operations on one pact or
// decision (a {pact_id} or {decision_id} path parameter) whose least role
// is above viewer, from the OpenAPI document the board serves: "METHOD
// path" with the path under /admin/api.
func recordedOperations(t *testing.T, f *fixture) []string {
	t.Helper()
	resp, err := http.Get(f.URL + "/admin/api/openapi.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	var doc struct {
		Paths map[string]map[string]struct {
			ID   string `json:"operationId"`
			Role string `json:"x-pact-least-role"`
		} `json:"paths"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&doc))
	var out []string
	for path, methods := range doc.Paths {
		for method, op := range methods {
			onOne := strings.Contains(path, "{pact_id}") || strings.Contains(path, "{decision_id}")
			if strings.HasPrefix(op.ID, "pacts-") && onOne && op.Role != "" && op.Role != string(identity.Viewer) {
				out = append(out, strings.ToUpper(method)+" "+strings.TrimPrefix(path, "/admin/api"))
			}
		}
	}
	slices.Sort(out)
	return out
}

// Every operation of recordedOperations, tried by a viewer, is refused at
// the gate and is one more refused entry of the viewer's on the pact's
// record, naming the pact, with nothing else changed (PACT-022).
func TestEveryGateRefusalOnOnePactIsOnItsRecord(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	d := f.raise(t, "wanda", id, "Tone?", "Warm", "Dry")
	ops := recordedOperations(t, f)
	require.NotEmpty(t, ops)
	state := func() string {
		var s string
		require.NoError(t, f.DB.NewRaw(`SELECT concat((SELECT json_agg(p) FROM pacts p WHERE id = ?),
			(SELECT json_agg(s ORDER BY key) FROM pact_seats s WHERE pact_id = ?),
			(SELECT json_agg(d) FROM pact_decisions d WHERE pact_id = ?),
			(SELECT count(*) FROM pact_feed WHERE pact_id = ?))`, id, id, id, id).Scan(context.Background(), &s))
		return s
	}
	before := state()
	vics := func() int {
		entries := ok(t, f.adm("ana", "GET", "/pacts/"+id+"/record?limit=200", nil))["entries"].([]any)
		n := 0
		for _, e := range entries {
			e := e.(map[string]any)
			if e["actor"] == "human:vic" && e["outcome"] == "forbidden" {
				n++
			}
		}
		return n
	}
	fill := strings.NewReplacer("{pact_id}", id, "{decision_id}", d, "{seat}", "@bram")
	for i, op := range ops {
		method, path, _ := strings.Cut(op, " ")
		var body any
		if method != http.MethodGet && method != http.MethodDelete {
			body = map[string]any{}
		}
		refused(t, f.adm("vic", method, fill.Replace(path), body), http.StatusForbidden, "forbidden")
		require.Equal(t, i+1, vics(), "%s: the refusal is on the pact's record", op)
		require.Equal(t, 1, f.Count(`SELECT count(*) FROM entries WHERE actor = 'human:vic' AND outcome = 'forbidden'
			AND project_id = 'web' AND id = (SELECT max(id) FROM entries WHERE actor = 'human:vic')`), "%s: on the project's chain", op)
	}
	require.Equal(t, before, state(), "nothing else changes")
	f.VerifyLog()
}
