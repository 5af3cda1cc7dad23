package board_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/sdk/errs"
)

// rulesWorld is the board with ana (owner), val (approver) and vic
// (viewer) in the default organization, which the migrations gave the
// default rules, and bo, owner of acme, made without the board's seeding,
// so it has none.
func rulesWorld(t *testing.T) (*kerneltest.World, *board.Module) {
	t.Helper()
	mod := board.New()
	w := kerneltest.New(t, kerneltest.Options{NoMCP: true}, mod)
	w.Office()
	kerneltest.MakeOrg(t, w.DB, w.Log, w.Identity, w.Issuer.URL, "acme", "bo", nil)
	return w, mod
}

// A new organization starts with the default rules, seeded in the
// transaction that creates it.
func TestNewOrganizationsGetTheDefaultApprovalRules(t *testing.T) {
	w, _ := rulesWorld(t)
	w.Org("zeta", "zoe")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM (SELECT array_agg(action ORDER BY action) AS a FROM approval_actions
		WHERE org_id = 'zeta') r WHERE a = '{customer.message,deploy.*,finance.*}'`))
	require.Equal(t, 3, w.Count(`SELECT count(*) FROM approval_actions WHERE org_id = 'default'`), "others keep theirs")
}

// SetApprovalRules trims, sorts and dedupes, logs the old and new lists,
// and refuses without changing anything.
func TestSetApprovalRules(t *testing.T) {
	w, mod := rulesWorld(t)
	ctx := context.Background()
	rules, err := mod.ApprovalRules(ctx, w.DB, "default")
	require.NoError(t, err)
	require.Equal(t, []string{"customer.message", "deploy.*", "finance.*"}, rules)

	got, err := mod.SetApprovalRules(ctx, "ana", []string{" task.post ", "deploy.*", "task.post"})
	require.NoError(t, err)
	require.Equal(t, []string{"deploy.*", "task.post"}, got, "trimmed, sorted, once each")
	rules, err = mod.ApprovalRules(ctx, w.DB, "default")
	require.NoError(t, err)
	require.Equal(t, got, rules)
	var payload string
	require.NoError(t, w.DB.NewRaw(`SELECT p.content::text FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.approval_rules.update' AND e.outcome = 'ok' AND e.org_id = 'default'`).Scan(ctx, &payload))
	require.JSONEq(t, `{"actions": ["deploy.*", "task.post"], "previous": ["customer.message", "deploy.*", "finance.*"]}`, payload)

	for _, tc := range []struct {
		by      string
		actions []string
		code    errs.Code
	}{
		{"val", []string{"deploy.*"}, errs.Forbidden},
		{"ana", []string{"deploy.*@project:web"}, errs.InvalidRequest},
		{"ana", []string{"deploy now"}, errs.InvalidRequest},
		{"ana", []string{""}, errs.InvalidRequest},
		{"ana", make([]string, 101), errs.InvalidRequest},
	} {
		if len(tc.actions) == 101 {
			for i := range tc.actions {
				tc.actions[i] = fmt.Sprint("a.", i)
			}
		}
		_, err := mod.SetApprovalRules(ctx, tc.by, tc.actions)
		require.Equal(t, tc.code, errs.CodeOf(err), "%v", err)
	}
	rules, err = mod.ApprovalRules(ctx, w.DB, "default")
	require.NoError(t, err)
	require.Equal(t, got, rules, "refusals change nothing")

	got, err = mod.SetApprovalRules(ctx, "ana", nil)
	require.NoError(t, err)
	require.Empty(t, got)
	require.Equal(t, 0, w.Count(`SELECT count(*) FROM approval_actions WHERE org_id = 'default'`))
	_, err = mod.SetApprovalRules(ctx, "bo", []string{"finance.*"})
	require.NoError(t, err)
	require.Equal(t, 0, w.Count(`SELECT count(*) FROM approval_actions WHERE org_id = 'default'`), "each organization its own")
}

func TestApprovalRulesForEachRole(t *testing.T) {
	w, _ := rulesWorld(t)
	for _, r := range []struct {
		id   string
		role identity.Role
	}{{"vic", identity.Viewer}, {"val", identity.Approver}, {"ana", identity.Owner}} {
		t.Run(string(r.role), func(t *testing.T) {
			got := w.Admin(r.id, "GET", "/approval-rules", "")
			require.Equal(t, 200, got.Status, got.Raw)
			require.Equal(t, "no-store", got.Header.Get("Cache-Control"))
			require.Contains(t, got.Body["actions"], "deploy.*")
			got = w.Admin(r.id, "PUT", "/approval-rules", `{"actions": ["deploy.*", "finance.*", "customer.message", "task.post.`+r.id+`"]}`)
			if r.role != identity.Owner {
				require.Equal(t, http.StatusForbidden, got.Status, got.Raw)
				require.Equal(t, map[string]any{"error": "forbidden",
					"message": fmt.Sprintf("%s is %s; this needs owner", r.id, r.role)}, got.Body)
				return
			}
			require.Equal(t, 200, got.Status, got.Raw)
			require.Equal(t, []any{"customer.message", "deploy.*", "finance.*", "task.post.ana"}, got.Body["actions"])
		})
	}
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'admin.approval_rules.update' AND outcome = 'ok'
		AND actor = 'human:ana' AND org_id = 'default'`))
	require.Equal(t, 4, w.Count(`SELECT count(*) FROM approval_actions WHERE org_id = 'default'`))
	require.Equal(t, 0, w.Count(`SELECT count(*) FROM approval_actions WHERE org_id = 'acme'`), "only the caller's organization")
	got := w.Admin("bo", "GET", "/approval-rules", "")
	require.Equal(t, []any{}, got.Body["actions"])

	got = w.Admin("ana", "PUT", "/approval-rules", `{"actions": []}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, []any{}, got.Body["actions"], "an organization may need no approvals")
}

func TestApprovalRulesBadInput(t *testing.T) {
	w, _ := rulesWorld(t)
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
			got := w.Admin("ana", "PUT", "/approval-rules", tc.body)
			require.Equal(t, tc.status, got.Status, got.Raw)
			require.Equal(t, "invalid_request", got.Body["error"], got.Raw)
			require.Contains(t, got.Body["message"], tc.says)
		})
	}
	require.Equal(t, 3, w.Count(`SELECT count(*) FROM approval_actions WHERE org_id = 'default'`), "refusals change nothing")
}
