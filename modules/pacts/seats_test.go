package pacts_test

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
	"github.com/pactboard/pact/sdk/errs"
)

// An invited seat writes nothing until it joins; a paused job's writes
// are refused while reads go on, and only an agent whose person is an
// owner or approver pauses or wakes one (PACT-020).
func TestSeatsWriteOnlyJoinedAndAwake(t *testing.T) {
	f := setup(t)
	out, err := f.as("wanda", pacts.ToolCreate, map[string]any{"project_id": "web", "name": "Launch", "purpose": "Ship it",
		"prefix": "W", "invite": []any{map[string]any{"key": "@bram", "prefix": "B"}, map[string]any{"key": "@vera", "prefix": "V"}}})
	require.NoError(t, err)
	id := out["pact_id"].(string)
	_, err = f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Before joining."})
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	e, _ := errs.As(err)
	require.Contains(t, e.Message, "join_pact")
	_, err = f.as("bram", pacts.ToolJoin, map[string]any{"pact_id": id})
	require.NoError(t, err)
	_, err = f.as("vera", pacts.ToolJoin, map[string]any{"pact_id": id})
	require.NoError(t, err)

	_, err = f.as("vera", pacts.ToolSetPaused, map[string]any{"pact_id": id, "key": "@bram", "paused": true})
	require.Equal(t, errs.Forbidden, errs.CodeOf(err), "vera's person is a viewer")
	_, err = f.as("wanda", pacts.ToolSetPaused, map[string]any{"pact_id": id, "key": "@bram", "paused": true})
	require.NoError(t, err)
	_, err = f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "While paused."})
	require.Equal(t, errs.AgentPaused, errs.CodeOf(err))
	got, err := f.as("bram", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err, "a paused pact stays readable")
	for _, s := range got["seats"].([]any) {
		if s.(map[string]any)["key"] == "@bram" {
			require.Equal(t, "paused", s.(map[string]any)["state"])
		}
	}
	_, err = f.as("wanda", pacts.ToolSetPaused, map[string]any{"pact_id": id, "key": "@bram", "paused": false})
	require.NoError(t, err)
	posted, err := f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Awake again."})
	require.NoError(t, err)
	require.Equal(t, "B-001", posted["number"], "the refused writes took no number")
	require.Equal(t, 0, f.Count(`SELECT count(*) FROM pact_messages WHERE body IN ('Before joining.', 'While paused.')`))
}

// Prefixes and keys are unique per pact (PACT-020).
func TestPrefixesAreUniquePerPact(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolInvite, map[string]any{"pact_id": id, "key": "@vera", "prefix": "B"})
	require.Equal(t, errs.IDTaken, errs.CodeOf(err))
	_, err = f.as("wanda", pacts.ToolInvite, map[string]any{"pact_id": id, "key": "@vera", "prefix": "b"})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	_, err = f.as("wanda", pacts.ToolInvite, map[string]any{"pact_id": id, "key": "@vera", "prefix": "VERA"})
	require.NoError(t, err)
}

// pact://pacts/{id} reads the pact as get_pact does, with the agent's
// default mandate, verified and logged like the tool (PACT-021).
func TestThePactResourceReadsThePact(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	res, err := f.Session("bram").ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "pact://pacts/" + id})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Contents[0].Text), &v))
	require.Equal(t, id, v["id"])
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM entries WHERE action = ? AND agent_id = 'bram' AND outcome = 'ok'`, pacts.ToolGet))
	_, err = f.Session("olga").ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "pact://pacts/" + id})
	require.Error(t, err, "olga's projects do not hold the pact")
}

// Every role template grants pact.read and pact.write, and so does the
// default scope of a newly registered agent (the population: the
// role_templates table).
func TestRoleTemplatesAndTheDefaultScopeReachPacts(t *testing.T) {
	f := setup(t)
	templates := f.Count(`SELECT count(*) FROM role_templates`)
	require.Positive(t, templates)
	require.Equal(t, templates, f.Count(`SELECT count(*) FROM role_templates WHERE actions @> '{pact.read,pact.write}'`))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM mandates m JOIN agents a ON a.root_mandate_id = m.id
		WHERE a.id = 'wanda' AND m.scope @> '{pact.read@project:web,pact.write@project:web}'`))
}
