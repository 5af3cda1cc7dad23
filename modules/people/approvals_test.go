package people_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
)

func TestApprovalRulesForEachRole(t *testing.T) {
	b := newBoard(t)
	for _, r := range []struct {
		id   string
		role identity.Role
	}{{"vic", identity.Viewer}, {"val", identity.Approver}, {"ana", identity.Owner}} {
		t.Run(string(r.role), func(t *testing.T) {
			got := b.call(t, r.id, "GET", "/approval-rules", "")
			require.Equal(t, 200, got.status, got.raw)
			require.Equal(t, "no-store", got.header.Get("Cache-Control"))
			require.Contains(t, got.body["actions"], "deploy.*")
			got = b.call(t, r.id, "PUT", "/approval-rules", `{"actions": ["deploy.*", "finance.*", "customer.message", "task.post.`+r.id+`"]}`)
			if r.role != identity.Owner {
				require.Equal(t, http.StatusForbidden, got.status, got.raw)
				require.Equal(t, map[string]any{"error": "forbidden",
					"message": fmt.Sprintf("%s is %s; this needs owner", r.id, r.role)}, got.body)
				return
			}
			require.Equal(t, 200, got.status, got.raw)
			require.Equal(t, []any{"customer.message", "deploy.*", "finance.*", "task.post.ana"}, got.body["actions"])
		})
	}
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.approval_rules.update' AND outcome = 'ok'
		AND actor = 'human:ana' AND org_id = 'default'`))
	require.Equal(t, 4, b.count(t, `SELECT count(*) FROM approval_actions WHERE org_id = 'default'`))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM approval_actions WHERE org_id = 'acme'`), "only the caller's organization")
	got := b.call(t, "bo", "GET", "/approval-rules", "")
	require.Equal(t, []any{}, got.body["actions"])

	got = b.call(t, "ana", "PUT", "/approval-rules", `{"actions": []}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, []any{}, got.body["actions"], "an organization may need no approvals")
}

func TestApprovalRulesBadInput(t *testing.T) {
	b := newBoard(t)
	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"Scoped", `{"actions": ["deploy.*@project:web"]}`, 400, "not scopes"},
		{"Blank", `{"actions": [" "]}`, 400, "not a valid action"},
		{"Space", `{"actions": ["deploy now"]}`, 400, "not a valid action"},
		{"NotAList", `{"actions": "deploy.*"}`, 422, ""},
		{"Missing", `{}`, 422, ""},
		{"UnknownField", `{"actions": [], "org": "acme"}`, 422, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := b.call(t, "ana", "PUT", "/approval-rules", tc.body)
			require.Equal(t, tc.status, got.status, got.raw)
			require.Equal(t, "invalid_request", got.body["error"], got.raw)
			require.Contains(t, got.body["message"], tc.says)
		})
	}
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM approval_actions WHERE org_id = 'default'`), "refusals change nothing")
}
