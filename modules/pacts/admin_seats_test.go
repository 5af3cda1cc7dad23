package pacts_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
	"github.com/pactboard/pact/sdk/errs"
)

// Removing a seat revokes it and keeps what it wrote; when fewer than two
// voices remain, the answer warns.
func TestRemovingASeatKeepsItsHistoryAndWarnsAtOneVoice(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	_, err := f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Layout done."})
	require.NoError(t, err)
	refused(t, f.adm("vic", "POST", "/pacts/"+id+"/seats/@bram/remove", nil), http.StatusForbidden, "forbidden")
	got := ok(t, f.adm("ana", "POST", "/pacts/"+id+"/seats/@bram/remove", nil))
	require.Equal(t, pacts.OneVoice, got["warning"])
	require.EqualValues(t, 1, got["live_seats"])
	refused(t, f.adm("ana", "POST", "/pacts/"+id+"/seats/@bram/remove", nil), http.StatusNotFound, "not_found")

	_, err = f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Still here?"})
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	view := ok(t, f.adm("ana", "GET", "/pacts/"+id, nil))["pact"].(map[string]any)
	require.Equal(t, "B-001", view["messages"].([]any)[0].(map[string]any)["number"], "what the seat wrote stays")
	for _, s := range view["seats"].([]any) {
		if s.(map[string]any)["key"] == "@bram" {
			require.Equal(t, "removed", s.(map[string]any)["state"])
		}
	}

	// A third seat brings a second voice back: no warning on removing none.
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/seats", map[string]any{"human_id": "ana", "prefix": "A"}))
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/join", nil))
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/seats", map[string]any{"agent_id": "vera", "prefix": "V"}))
	got = ok(t, f.adm("ana", "POST", "/pacts/"+id+"/seats/@vera/remove", nil))
	require.Nil(t, got["warning"], "two voices remain: wanda and ana")
}

// A closed pact stays readable and accepts no writes, from agents or
// people.
func TestAClosedPactIsReadableAndRefusesWrites(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/close", nil))
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "hello?"})
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	_, err = f.as("wanda", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "body": "x"})
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	refused(t, f.adm("ana", "POST", "/pacts/"+id+"/close", nil), http.StatusForbidden, "forbidden")
	refused(t, f.adm("ana", "POST", "/pacts/"+id+"/seats", map[string]any{"agent_id": "vera", "prefix": "V"}), http.StatusForbidden, "forbidden")
	view, err := f.as("bram", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	require.NotEmpty(t, view["closed_at"])
	require.True(t, ok(t, f.adm("vic", "GET", "/pacts", nil))["pacts"].([]any)[0].(map[string]any)["closed"].(bool))
}

// A closed pact refuses every write any agent's tool makes in it, each
// forbidden saying the pact is closed, and its feed does not move
// (PACT-016). The population: every tool served to an agent that takes a
// pact_id and that toolWrites classifies as a write, from the registry; a
// tool named nowhere below fails as unhandled.
func TestAClosedPactRefusesEveryPactWrite(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolInvite, map[string]any{"pact_id": id, "key": "@vera", "prefix": "V"})
	require.NoError(t, err)
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/close", nil))
	calls := map[string]struct {
		agent string
		args  map[string]any
	}{
		pacts.ToolPost:          {"wanda", map[string]any{"body": "hello?"}},
		pacts.ToolUpdateSection: {"wanda", map[string]any{"body": "x"}},
		pacts.ToolRaise:         {"wanda", map[string]any{"question": "Blue or green?", "options": []any{"Blue", "Green"}}},
		pacts.ToolHandshake:     {"wanda", map[string]any{"handshake": "mornings"}},
		pacts.ToolInvite:        {"wanda", map[string]any{"key": "@olga", "prefix": "O"}},
		pacts.ToolJoin:          {"vera", map[string]any{}},
		pacts.ToolSetPaused:     {"wanda", map[string]any{"key": "@bram", "paused": true}},
	}
	exempt := map[string]string{
		pacts.ToolSetDelivery: "the agent's own delivery setting, no write in the pact",
	}
	feed := f.Count(`SELECT count(*) FROM pact_feed WHERE pact_id = ?`, id)
	tried := map[string]bool{}
	for _, tool := range boardTools(t, f) {
		raw, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(raw, &schema))
		if _, takes := schema.Properties["pact_id"]; !takes || !pacts.ToolWrites(tool.Name) || tried[tool.Name] {
			continue
		}
		if _, ok := exempt[tool.Name]; ok {
			continue
		}
		c, handled := calls[tool.Name]
		require.True(t, handled, "tool %s writes in a pact and is unhandled: try it in a closed pact (PACT-016)", tool.Name)
		c.args["pact_id"] = id
		_, err = f.as(c.agent, tool.Name, c.args)
		require.Equal(t, errs.Forbidden, errs.CodeOf(err), "%s in a closed pact: %v", tool.Name, err)
		e, _ := errs.As(err)
		require.Contains(t, e.Message, "is closed", tool.Name)
		tried[tool.Name] = true
	}
	require.Len(t, tried, len(calls), "every write named is served: %v", tried)
	require.Equal(t, feed, f.Count(`SELECT count(*) FROM pact_feed WHERE pact_id = ?`, id), "nothing was written")
}

// The open-pact limit is per project and an organization setting; closed
// pacts do not count, through the MCP tool and the Admin API alike.
func TestTheOpenPactLimitCountsOnlyOpenPacts(t *testing.T) {
	f := setup(t)
	require.EqualValues(t, pacts.DefaultOpenCap, ok(t, f.adm("vic", "GET", "/pact-settings", nil))["open_limit"])
	refused(t, f.adm("vic", "PUT", "/pact-settings", map[string]any{"open_limit": 2}), http.StatusForbidden, "forbidden")
	ok(t, f.adm("ana", "PUT", "/pact-settings", map[string]any{"open_limit": 2}))
	require.EqualValues(t, 2, ok(t, f.adm("vic", "GET", "/pact-settings", nil))["open_limit"])

	first := f.pact(t)
	create := map[string]any{"project_id": "web", "name": "Two", "purpose": "p", "prefix": "A"}
	ok(t, f.adm("ana", "POST", "/pacts", create))
	_, err := f.as("wanda", pacts.ToolCreate, map[string]any{"project_id": "web", "name": "Three", "purpose": "p", "prefix": "W"})
	require.Equal(t, errs.LimitExceeded, errs.CodeOf(err))
	refused(t, f.adm("ana", "POST", "/pacts", create), http.StatusBadRequest, "limit_exceeded")
	ok(t, f.adm("ana", "POST", "/pacts", map[string]any{"project_id": "ops", "name": "Ops", "purpose": "p", "prefix": "A"}))

	ok(t, f.adm("ana", "POST", "/pacts/"+first+"/close", nil))
	_, err = f.as("wanda", pacts.ToolCreate, map[string]any{"project_id": "web", "name": "Three", "purpose": "p", "prefix": "W"})
	require.NoError(t, err, "a closed pact does not count")
	refused(t, f.adm("ana", "POST", "/pacts", create), http.StatusBadRequest, "limit_exceeded")
}

// A person takes part from a seat through the Admin API: posts, their own
// zone (another's is refused and shows beside it), their handshake; a
// person pauses and wakes an agent's job.
func TestAPersonTakesPartFromASeat(t *testing.T) {
	f := setup(t)
	id := ok(t, f.adm("ana", "POST", "/pacts", map[string]any{"project_id": "web", "name": "Mixed", "purpose": "p", "prefix": "A",
		"invite": []any{map[string]any{"agent_id": "wanda", "prefix": "W"}, map[string]any{"human_id": "vic", "prefix": "V"}}}))["pact_id"].(string)
	// The log says which pact a person set up; a refused set-up names none.
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.pact.create' AND e.outcome = 'ok' AND e.actor = 'human:ana' AND p.content->>'pact_id' = ?`, id),
		"the set-up's entry names the new pact")
	refused(t, f.adm("ana", "POST", "/pacts", map[string]any{"project_id": "web", "name": "Twice", "purpose": "p", "prefix": "A",
		"invite": []any{map[string]any{"agent_id": "wanda", "prefix": "A"}}}), http.StatusConflict, "id_taken")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.pact.create' AND e.outcome <> 'ok' AND p.content->>'pact_id' IS NULL`),
		"a refused set-up's entry names no pact")
	_, err := f.as("wanda", pacts.ToolJoin, map[string]any{"pact_id": id})
	require.NoError(t, err)
	refused(t, f.adm("vic", "POST", "/pacts/"+id+"/messages", map[string]any{"body": "hi"}), http.StatusForbidden, "forbidden")
	ok(t, f.adm("vic", "POST", "/pacts/"+id+"/join", nil))
	got := ok(t, f.adm("vic", "POST", "/pacts/"+id+"/messages", map[string]any{"body": "Hello from a person."}))
	require.Equal(t, "V-001", got["number"])
	ok(t, f.adm("vic", "PUT", "/pacts/"+id+"/sections/@vic", map[string]any{"body": "I review the copy."}))
	refused(t, f.adm("vic", "PUT", "/pacts/"+id+"/sections/@wanda", map[string]any{"body": "mine"}), http.StatusForbidden, "forbidden")
	ok(t, f.adm("vic", "PUT", "/pacts/"+id+"/handshake", map[string]any{"handshake": "Mornings only."}))

	view, err := f.as("wanda", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	for _, s := range view["sections"].([]any) {
		sec := s.(map[string]any)
		switch sec["key"] {
		case "@vic":
			require.Equal(t, "I review the copy.", sec["body"])
		case "@wanda":
			require.Equal(t, "human:vic", sec["refused_writes"].([]any)[0].(map[string]any)["by"])
		}
	}
	require.Equal(t, "human:vic", view["messages"].([]any)[0].(map[string]any)["author"])

	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/seats/@wanda/pause", nil))
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "x"})
	require.Equal(t, errs.AgentPaused, errs.CodeOf(err))
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/seats/@wanda/wake", nil))
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "back"})
	require.NoError(t, err)
	f.VerifyLog()
}
