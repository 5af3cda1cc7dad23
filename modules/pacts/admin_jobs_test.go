package pacts_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
)

// The Jobs list shows each pact's name, the first two lines of its
// purpose, its seats, its latest message and its open decisions.
func TestJobsListShowsEachPact(t *testing.T) {
	f := setup(t)
	id := ok(t, f.adm("ana", "POST", "/pacts", map[string]any{"project_id": "web", "name": "Copy", "prefix": "A",
		"purpose": "Write the copy\nfor the launch\nthird line stays out",
		"invite":  []any{map[string]any{"agent_id": "wanda", "prefix": "W"}}}))["pact_id"].(string)
	_, err := f.as("wanda", pacts.ToolJoin, map[string]any{"pact_id": id})
	require.NoError(t, err)
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Draft is up."})
	require.NoError(t, err)
	f.raise(t, "wanda", id, "Tone?", "Warm", "Dry")
	f.pact(t) // another pact in web

	jobs := ok(t, f.adm("vic", "GET", "/pacts?project_id=web", nil))["pacts"].([]any)
	require.Len(t, jobs, 2)
	var job map[string]any
	for _, j := range jobs {
		if j.(map[string]any)["id"] == id {
			job = j.(map[string]any)
		}
	}
	require.Equal(t, "Copy", job["name"])
	require.Equal(t, "Write the copy\nfor the launch", job["purpose"])
	require.EqualValues(t, 1, job["open_decisions"])
	latest := job["latest_message"].(map[string]any)
	require.Equal(t, "W-001", latest["number"])
	require.Equal(t, "@wanda", latest["seat"])
	require.Equal(t, "agent:wanda", latest["author"])
	require.NotEmpty(t, latest["at"])
	seats := job["seats"].([]any)
	require.Len(t, seats, 2)
	require.Equal(t, "@ana", seats[0].(map[string]any)["key"])
	require.Equal(t, "joined", seats[1].(map[string]any)["state"])
	require.Empty(t, ok(t, f.adm("vic", "GET", "/pacts?project_id=ops", nil))["pacts"])
}

// The thread pages backwards from the latest, and the record shows every
// write and every refused one, with who tried it.
func TestThreadPagesAndTheRecordShowsRefusedWrites(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	for i := 1; i <= 5; i++ {
		_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": fmt.Sprintf("note %d", i)})
		require.NoError(t, err)
	}
	page := ok(t, f.adm("vic", "GET", "/pacts/"+id+"/messages?limit=2", nil))
	msgs := page["messages"].([]any)
	require.Equal(t, []any{"W-004", "W-005"}, []any{msgs[0].(map[string]any)["number"], msgs[1].(map[string]any)["number"]})
	before := page["next_before"].(float64)
	page = ok(t, f.adm("vic", "GET", fmt.Sprintf("/pacts/%s/messages?limit=2&before=%.0f", id, before), nil))
	require.Equal(t, "W-002", page["messages"].([]any)[0].(map[string]any)["number"])
	page = ok(t, f.adm("vic", "GET", fmt.Sprintf("/pacts/%s/messages?limit=2&before=%.0f", id, page["next_before"].(float64)), nil))
	require.Len(t, page["messages"], 1)
	require.EqualValues(t, 0, page["next_before"])

	got := ok(t, f.adm("vic", "GET", "/pacts/"+id, nil))
	require.EqualValues(t, 5, got["pact"].(map[string]any)["message_count"])
	require.Len(t, got["pact"].(map[string]any)["sections"], 2)

	_, err := f.as("bram", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "key": "@wanda", "body": "mine"})
	require.Error(t, err)
	refused(t, f.adm("vic", "POST", "/pacts/"+id+"/messages", map[string]any{"body": "let me in"}), http.StatusForbidden, "forbidden")
	rec := ok(t, f.adm("vic", "GET", "/pacts/"+id+"/record?limit=3", nil))
	entries := rec["entries"].([]any)
	require.Len(t, entries, 3)
	newest, next := entries[0].(map[string]any), entries[1].(map[string]any)
	require.Equal(t, []any{"human:vic", "admin.pact.post", "forbidden"}, []any{newest["actor"], newest["action"], newest["outcome"]})
	require.Equal(t, []any{"agent:bram", pacts.ToolUpdateSection, "forbidden"}, []any{next["actor"], next["action"], next["outcome"]})
	require.NotZero(t, rec["next_before"])
	all := ok(t, f.adm("vic", "GET", "/pacts/"+id+"/record?limit=200", nil))["entries"].([]any)
	for _, e := range all {
		require.NotEqual(t, pacts.ToolGet, e.(map[string]any)["action"], "reads are not the record")
	}
	require.Len(t, all, 9, "the creation, the join, five posts, the refused section and the refused post: %v", all)
	require.Equal(t, pacts.ToolCreate, all[len(all)-1].(map[string]any)["action"], "the record starts with the pact's creation")
}
