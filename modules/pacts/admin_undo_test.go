package pacts_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
)

// Undo of an agent's change (docs/pacts.md, "Undo"; PACT-024): it
// restores exactly what the change replaced, and only where the table says
// it can.

// change is the newest row of "What the agents changed this week" whose
// entry's action is action.
func (f *fixture) change(t *testing.T, action string) map[string]any {
	t.Helper()
	for _, c := range ok(t, f.adm("vic", "GET", "/pacts/changes?limit=200", nil))["changes"].([]any) {
		row := c.(map[string]any)
		if row["entry"].(map[string]any)["action"] == action {
			return row
		}
	}
	t.Fatalf("no change %s listed", action)
	return nil
}

func entryID(row map[string]any) string {
	return fmt.Sprint(int64(row["entry"].(map[string]any)["id"].(float64)))
}

func (f *fixture) undo(row map[string]any) string { return "/pacts/changes/" + entryID(row) + "/undo" }

// read is what bram reads of pact with get_pact: each zone's body and
// each seat's handshake, by seat key.
func (f *fixture) read(t *testing.T, pact string) (zones, handshakes map[string]string) {
	t.Helper()
	out, err := f.as("bram", pacts.ToolGet, map[string]any{"pact_id": pact})
	require.NoError(t, err)
	raw, _ := json.Marshal(out)
	var v struct {
		Sections []struct{ Key, Body string }      `json:"sections"`
		Seats    []struct{ Key, Handshake string } `json:"seats"`
	}
	require.NoError(t, json.Unmarshal(raw, &v))
	zones, handshakes = map[string]string{}, map[string]string{}
	for _, s := range v.Sections {
		zones[s.Key] = s.Body
	}
	for _, s := range v.Seats {
		handshakes[s.Key] = s.Handshake
	}
	return zones, handshakes
}

func TestUndoPutsBackTheZoneTheWriteReplaced(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	for _, body := range []string{"first «draft» ✓", "second"} {
		_, err := f.as("wanda", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "body": body})
		require.NoError(t, err)
	}
	second := f.change(t, pacts.ToolUpdateSection)
	require.Equal(t, "puts back the text zone @wanda had before this write", second["undo"])
	require.Equal(t, "", second["said_yes"], "a pact write needs nobody's yes")

	refused(t, f.adm("vic", "POST", f.undo(second), nil), http.StatusForbidden, "forbidden")
	zones, _ := f.read(t, id)
	require.Equal(t, "second", zones["@wanda"], "a viewer's refused Undo changes nothing")

	did := ok(t, f.adm("ana", "POST", f.undo(second), nil))
	require.Equal(t, id, did["pact_id"])
	zones, _ = f.read(t, id)
	require.Equal(t, "first «draft» ✓", zones["@wanda"], "byte for byte what the write replaced")
	newest := ok(t, f.adm("ana", "GET", "/pacts/"+id+"/record", nil))["entries"].([]any)[0].(map[string]any)
	require.Equal(t, "admin.pact.undo", newest["action"], "the Undo is on the pact's record")
	require.Equal(t, "human:ana", newest["actor"])

	// Once undone, the zone has moved on: neither this change nor the one
	// before it is undone again over it.
	msg := refused(t, f.adm("ana", "POST", f.undo(second), nil), http.StatusConflict, "changed_since")
	require.Contains(t, msg, "written again after this change")
	zones, _ = f.read(t, id)
	require.Equal(t, "first «draft» ✓", zones["@wanda"])
}

func TestUndoRefusesAZoneWrittenSince(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "body": "one"})
	require.NoError(t, err)
	first := f.change(t, pacts.ToolUpdateSection)
	_, err = f.as("wanda", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "body": "two"})
	require.NoError(t, err)
	refused(t, f.adm("ana", "POST", f.undo(first), nil), http.StatusConflict, "changed_since")
	zones, _ := f.read(t, id)
	require.Equal(t, "two", zones["@wanda"], "the newer write stays")
}

func TestUndoPutsBackTheHandshake(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolHandshake, map[string]any{"pact_id": id, "handshake": "mornings"})
	require.NoError(t, err)
	_, err = f.as("wanda", pacts.ToolHandshake, map[string]any{"pact_id": id, "handshake": "evenings"})
	require.NoError(t, err)
	latest := f.change(t, pacts.ToolHandshake)
	ok(t, f.adm("ana", "POST", f.undo(latest), nil))
	_, hs := f.read(t, id)
	require.Equal(t, "mornings", hs["@wanda"])
	refused(t, f.adm("ana", "POST", f.undo(latest), nil), http.StatusConflict, "changed_since")
}

func TestUndoWakesTheJobTheAgentPaused(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolSetPaused, map[string]any{"pact_id": id, "key": "@bram", "paused": true})
	require.NoError(t, err)
	pause := f.change(t, pacts.ToolSetPaused)
	require.Equal(t, "wakes @bram's job, if this agent's pause still holds it", pause["undo"])
	_, err = f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "paused?"})
	require.ErrorContains(t, err, "agent_paused")

	ok(t, f.adm("ana", "POST", f.undo(pause), nil))
	_, err = f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "awake"})
	require.NoError(t, err, "the job is woken")
	refused(t, f.adm("ana", "POST", f.undo(pause), nil), http.StatusConflict, "changed_since")

	// A wake has no Undo.
	_, err = f.as("wanda", pacts.ToolSetPaused, map[string]any{"pact_id": id, "key": "@bram", "paused": true})
	require.NoError(t, err)
	_, err = f.as("wanda", pacts.ToolSetPaused, map[string]any{"pact_id": id, "key": "@bram", "paused": false})
	require.NoError(t, err)
	wake := f.change(t, pacts.ToolSetPaused)
	require.Nil(t, wake["undo"])
	require.Contains(t, wake["no_undo"], "pausing a job again is a person's call")
	refused(t, f.adm("ana", "POST", f.undo(wake), nil), http.StatusBadRequest, "invalid_request")
}

// A pause a person took over is not undone by undoing the agent's.
func TestUndoLeavesAPersonsPause(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolSetPaused, map[string]any{"pact_id": id, "key": "@bram", "paused": true})
	require.NoError(t, err)
	pause := f.change(t, pacts.ToolSetPaused)
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/seats/@bram/pause", nil))
	refused(t, f.adm("ana", "POST", f.undo(pause), nil), http.StatusConflict, "changed_since")
	_, err = f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "still paused?"})
	require.ErrorContains(t, err, "agent_paused")
}

func TestUndoRefusesWhatTheTableSaysCannotBeUndone(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Done."})
	require.NoError(t, err)
	for action, why := range map[string]string{
		pacts.ToolPost:   "the thread is append-only",
		pacts.ToolCreate: "close the pact on its page",
		pacts.ToolJoin:   "remove the seat on the pact's page",
	} {
		row := f.change(t, action)
		require.Nil(t, row["undo"], action)
		require.Contains(t, row["no_undo"], why, action)
		msg := refused(t, f.adm("ana", "POST", f.undo(row), nil), http.StatusBadRequest, "invalid_request")
		require.Contains(t, msg, "this change cannot be undone: "+why)
	}
	refused(t, f.adm("ana", "POST", "/pacts/changes/999999999/undo", nil), http.StatusNotFound, "not_found")

	// A person's change is not an agent's: no Undo through this operation.
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/seats/@bram/pause", nil))
	recs := ok(t, f.adm("ana", "GET", "/pacts/"+id+"/record", nil))["entries"].([]any)
	person := recs[0].(map[string]any)
	require.Equal(t, "human:ana", person["actor"])
	refused(t, f.adm("ana", "POST", fmt.Sprintf("/pacts/changes/%d/undo", int64(person["id"].(float64))), nil),
		http.StatusBadRequest, "invalid_request")
}

func TestUndoRefusesInAClosedPact(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	_, err := f.as("wanda", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "body": "one"})
	require.NoError(t, err)
	row := f.change(t, pacts.ToolUpdateSection)
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/close", nil))
	refused(t, f.adm("ana", "POST", f.undo(row), nil), http.StatusForbidden, "forbidden")
	zones, _ := f.read(t, id)
	require.Equal(t, "one", zones["@wanda"])
}
