package pacts_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
)

// crossOrgSeats counts the seats and pacts whose person or agent belongs to
// another organization than the pact's.
const crossOrgSeats = `SELECT
	(SELECT count(*) FROM pact_seats s JOIN pacts p ON p.id = s.pact_id JOIN humans h ON h.id = s.human_id WHERE h.org_id <> p.org_id) +
	(SELECT count(*) FROM pact_seats s JOIN pacts p ON p.id = s.pact_id JOIN agents a ON a.id = s.agent_id WHERE a.org_id <> p.org_id) +
	(SELECT count(*) FROM pacts p JOIN humans h ON h.id = p.owner_human WHERE h.org_id <> p.org_id)`

// personOperations lists the Admin API operations of the pacts module
// ("METHOD /path", under /admin/api) whose request body names a person
// (a human_id property, at any depth), from the OpenAPI document the board
// serves: an operation added later that takes a person joins the list.
func personOperations(t *testing.T, f *fixture) []string {
	t.Helper()
	resp, err := http.Get(f.URL + "/admin/api/openapi.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&doc))
	var names func(v any, seen map[string]bool) bool
	names = func(v any, seen map[string]bool) bool {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				n := ref[strings.LastIndex(ref, "/")+1:]
				if seen[n] {
					return false
				}
				seen[n] = true
				return names(doc.Components.Schemas[n], seen)
			}
			if props, ok := v["properties"].(map[string]any); ok && props["human_id"] != nil {
				return true
			}
			for _, x := range v {
				if names(x, seen) {
					return true
				}
			}
		case []any:
			for _, x := range v {
				if names(x, seen) {
					return true
				}
			}
		}
		return false
	}
	var out []string
	for path, ops := range doc.Paths {
		if !strings.HasPrefix(path, "/admin/api/pact") {
			continue
		}
		for method, raw := range ops {
			var op struct {
				RequestBody any `json:"requestBody"`
			}
			if json.Unmarshal(raw, &op) == nil && names(op.RequestBody, map[string]bool{}) {
				out = append(out, strings.ToUpper(method)+" "+strings.TrimPrefix(path, "/admin/api"))
			}
		}
	}
	sort.Strings(out)
	return out
}

// disable disables person id, as People's administration does.
func (f *fixture) disable(t *testing.T, id string) {
	t.Helper()
	yes := true
	_, err := f.Identity.SetHumanFields(context.Background(), f.DB, id, identity.HumanFields{Disabled: &yes})
	require.NoError(t, err)
}

// SEC-017: on every path that seats a person, another organization's
// person — active, a viewer, disabled — answers exactly as an id nobody
// holds (status, code and words, the id swapped), and no seat links to
// them; the organization's own person is seated, and its own disabled
// person is refused in words of their own.
func TestAnotherOrganizationsPersonAnswersLikeAMissingOne(t *testing.T) {
	f := setup(t)
	f.Org("acme", "zed")
	f.Person("zed", "yan", identity.Viewer)
	f.Person("zed", "xia", identity.Approver)
	f.disable(t, "xia")
	f.Person("ana", "una", identity.Viewer)
	f.Person("ana", "uma", identity.Viewer)
	f.disable(t, "uma")
	pact := f.pact(t)

	calls := map[string]func(person string) kerneltest.Reply{
		"POST /pacts": func(person string) kerneltest.Reply {
			return f.adm("ana", "POST", "/pacts", map[string]any{"project_id": "web", "name": "Probe", "purpose": "p", "prefix": "A",
				"invite": []any{map[string]any{"human_id": person, "prefix": "Z"}}})
		},
		"POST /pacts/{pact_id}/seats": func(person string) kerneltest.Reply {
			return f.adm("ana", "POST", "/pacts/"+pact+"/seats", map[string]any{"human_id": person, "prefix": "Z"})
		},
	}
	ops := personOperations(t, f)
	listed := make([]string, 0, len(calls))
	for op := range calls {
		listed = append(listed, op)
	}
	sort.Strings(listed)
	require.Equal(t, ops, listed, "every Admin API operation that names a person is probed here")

	// No MCP tool takes a person: seat keys name agents there.
	tools, err := f.Session("wanda").ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tool := range tools.Tools {
		raw, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		require.NotContains(t, string(raw), "human_id", "tool %s takes a person: probe it here", tool.Name)
	}

	const missing = "nobody"
	for _, op := range ops {
		call := calls[op]
		want := call(missing)
		require.Equal(t, http.StatusNotFound, want.Status, "%s: %s", op, want.Raw)
		require.Equal(t, "not_found", want.Body["error"], "%s: %s", op, want.Raw)
		for _, other := range []string{"zed", "yan", "xia"} {
			got := call(other)
			require.Equal(t, want.Status, got.Status, "%s with %s: %s", op, other, got.Raw)
			require.Equal(t, want.Raw, strings.ReplaceAll(got.Raw, other, missing),
				"%s: another organization's person %s answers as a missing one", op, other)
		}
		msg := refused(t, call("uma"), http.StatusForbidden, "forbidden")
		require.Contains(t, msg, "disabled", "%s: the organization's own disabled person", op)
		ok(t, call("una"))
	}
	require.Zero(t, f.Count(crossOrgSeats), "no seat links to another organization's person")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM pact_seats WHERE human_id = 'una' AND pact_id = ?`, pact))
}

// SEC-017: the database refuses a seat, or a pact's owner, of another
// organization than the pact's, on insert and on update, whatever path
// writes it.
func TestTheDatabaseRefusesSeatsAcrossOrganizations(t *testing.T) {
	f := setup(t)
	f.Org("acme", "zed")
	f.Project("zed", "site", false)
	f.Agent("zed", kerneltest.AgentInput{ID: "zoe", Client: "code", Projects: []string{"site"}, Owner: "zed"})
	pact := f.pact(t)
	ctx := context.Background()
	refusedByDB := func(what, q string, args ...any) {
		t.Helper()
		_, err := f.DB.ExecContext(ctx, q, args...)
		require.Error(t, err, what)
		require.Equal(t, db.ForeignKeyViolation, db.PgCode(err), "%s: %v", what, err)
	}
	refusedByDB("a person of another organization", `INSERT INTO pact_seats (pact_id, key, display_name, prefix, human_id, invited_by)
		VALUES (?, '@zed', 'zed', 'Z', 'zed', 'human:ana')`, pact)
	refusedByDB("an agent of another organization", `INSERT INTO pact_seats (pact_id, key, display_name, prefix, agent_id, invited_by)
		VALUES (?, '@zoe', 'zoe', 'Z', 'zoe', 'human:ana')`, pact)
	refusedByDB("a seat moved to another organization's person", `UPDATE pact_seats SET agent_id = NULL, human_id = 'zed'
		WHERE pact_id = ? AND key = '@bram'`, pact)
	refusedByDB("a seat moved to another organization's agent", `UPDATE pact_seats SET agent_id = 'zoe' WHERE pact_id = ? AND key = '@bram'`, pact)
	refusedByDB("a pact owned by another organization's person", `UPDATE pacts SET owner_human = 'zed' WHERE id = ?`, pact)
	refusedByDB("a pact created for another organization's person", `INSERT INTO pacts (org_id, project_id, name, purpose, owner_human, created_by)
		VALUES ('default', 'web', 'n', 'p', 'zed', 'human:ana')`)

	_, err := f.DB.ExecContext(ctx, `INSERT INTO pact_seats (pact_id, key, display_name, prefix, human_id, invited_by)
		VALUES (?, '@ana', 'ana', 'A', 'ana', 'human:ana')`, pact)
	require.NoError(t, err, "a person of the pact's organization takes a seat")
	require.Zero(t, f.Count(crossOrgSeats))
}
