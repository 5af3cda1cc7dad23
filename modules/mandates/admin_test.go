package mandates_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/mandate"
)

// listed is the mandate id as the Admin API's list of all serves it.
func (f *fixture) listed(t *testing.T, id string) map[string]any {
	t.Helper()
	got := f.Admin("val", "GET", "/mandates?all=true", "")
	require.Equal(t, 200, got.Status, got.Raw)
	for _, m := range got.Body["mandates"].([]any) {
		if v := m.(map[string]any); v["id"] == id {
			return v
		}
	}
	t.Fatalf("mandate %s is not listed", id)
	return nil
}

// The Admin API's mandate operations, each answered from the service and
// each refusal passed on: a person issues a further root (and is refused a
// scope outside the holder's projects), weighs what revoking it would
// take (the live mandates delegated under it, not itself, and every agent
// that would lose authority), replaces it with limits of its own or the
// old one's, revoking the old with what hangs under it, and revokes a
// mandate. An id that names no mandate is not found in each.
func TestTheAdminAPIIssuesWeighsReplacesAndRevokesMandates(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	f.Agent("val", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	f.Agent("val", kerneltest.AgentInput{ID: "review-web", Client: "code", Projects: []string{"web"}})
	missing := uuid.NewString()

	got := f.Admin("val", "POST", "/mandates", `{"holder":"code-web","scope":["task.read@project:prod"]}`)
	require.Equal(t, 400, got.Status, got.Raw)
	require.Equal(t, "project_mismatch", got.Body["error"])
	got = f.Admin("val", "POST", "/mandates", `{"holder":"code-web","scope":["task.read@project:web"],"limits":{"runs":5}}`)
	require.Equal(t, 201, got.Status, got.Raw)
	id := got.Body["mandate_id"].(string)
	v := f.listed(t, id)
	require.Equal(t, []any{"task.read@project:web"}, v["scope"])
	require.Equal(t, map[string]any{"runs": 5.0}, v["limits"])

	chain, err := f.Mandates.Verify(ctx, f.DB, id, "code-web")
	require.NoError(t, err)
	child, err := f.Mandates.IssueChild(ctx, f.DB, chain, mandate.ChildInput{Holder: "review-web", Scope: []string{"task.read@project:web"}})
	require.NoError(t, err)

	got = f.Admin("val", "GET", "/mandates/"+id+"/impact", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, id, got.Body["mandate_id"])
	require.Equal(t, []any{map[string]any{"id": child.ID.String(), "holder": "review-web", "depth": 1.0}}, got.Body["descendants"])
	require.Equal(t, []any{}, got.Body["tasks"])
	require.Equal(t, []any{"code-web", "review-web"}, got.Body["agents"])
	got = f.Admin("val", "GET", "/mandates/"+missing+"/impact", "")
	require.Equal(t, 404, got.Status, got.Raw)

	got = f.Admin("val", "POST", "/mandates/"+missing+"/replace", `{"scope":["task.read@project:web"]}`)
	require.Equal(t, 404, got.Status, got.Raw)
	got = f.Admin("val", "POST", "/mandates/"+id+"/replace", `{"scope":["task.read@project:web"],"revoke":true}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, id, got.Body["replaced"])
	require.Equal(t, true, got.Body["revoked"])
	require.Equal(t, 1.0, got.Body["descendant_mandates"], "the child under the old root")
	kept := got.Body["mandate_id"].(string)
	require.Equal(t, map[string]any{"runs": 5.0}, f.listed(t, kept)["limits"], "no limits given: the old root's")
	require.NotNil(t, f.listed(t, id)["revoked_at"])

	got = f.Admin("val", "POST", "/mandates/"+kept+"/replace", `{"scope":["task.read@project:web"],"limits":{"runs":2}}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, false, got.Body["revoked"])
	require.Equal(t, 0.0, got.Body["descendant_mandates"])
	require.Equal(t, map[string]any{"runs": 2.0}, f.listed(t, got.Body["mandate_id"].(string))["limits"], "limits given: these")
	require.Nil(t, f.listed(t, kept)["revoked_at"], "not revoked: it runs until it expires")

	got = f.Admin("val", "POST", "/mandates/"+missing+"/revoke", "")
	require.Equal(t, 404, got.Status, got.Raw)
	got = f.Admin("val", "POST", "/mandates/"+kept+"/revoke", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, kept, got.Body["mandate_id"])
	require.Equal(t, 0.0, got.Body["descendant_mandates"])
	require.NotEmpty(t, got.Body["revoked_at"])
}
