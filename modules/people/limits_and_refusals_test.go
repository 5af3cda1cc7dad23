package people_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/people"
	"github.com/pactboard/pact/sdk/errs"
)

// An organization's name is 1-80 characters, counted as characters, not
// bytes: a name of exactly 80 Thai characters (240 bytes) is stored, and
// one of 81 is refused with invalid_request, leaving the name as it was.
// This pins the upper bound itself, so 80 is allowed and 81 is not.
func TestUpdateOrgNameOfEightyCharactersIsStoredAndEightyOneRefused(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	eighty := strings.Repeat("ก", 80)
	require.Len(t, eighty, 240, "each Thai character is three bytes")

	o, err := b.mod.Service().UpdateOrg(ctx, "ana", people.OrgUpdate{Name: ptr(eighty)})
	require.NoError(t, err, "80 characters is the longest name allowed")
	require.Equal(t, eighty, o.Name)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM orgs WHERE name = ?`, eighty), "the name is stored")

	_, err = b.mod.Service().UpdateOrg(ctx, "ana", people.OrgUpdate{Name: ptr(eighty + "ข")})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "81 characters is too long: %v", err)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM orgs WHERE name = ?`, eighty), "a refused update leaves the name unchanged")
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM orgs WHERE name = ?`, eighty+"ข"))
}

// A banned agent's setup code, unused and unexpired, is refused, and the
// refusal is logged as admin.agent.connect with the reason "banned": the
// code itself was still good, so the log must name the ban rather than the
// catch-all "refused" (kept for a redemption lost to a concurrent one). The
// code stays unused, so the reason cannot come from it having been used.
func TestRedeemingABannedAgentsCodeIsLoggedAsBanned(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("val", "POST", "/agents/hire", `{"role": "code", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	code := got.Body["connect"].(map[string]any)["code"].(string)
	got = b.Admin("ana", "POST", "/agents/code-web/status", `{"status": "banned"}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)

	reasons := func(reason string) int {
		t.Helper()
		return b.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
			WHERE e.action = 'admin.agent.connect' AND e.actor = 'agent:code-web' AND e.outcome <> 'ok'
			AND p.content->>'reason' = ?`, reason)
	}
	got = b.connectCode(t, `{"code": "`+code+`"}`)
	require.Equal(t, http.StatusForbidden, got.Status, got.Raw)
	require.Equal(t, map[string]any{"error": "forbidden", "message": people.RedeemRefused}, got.Body)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM setup_codes WHERE used_at IS NULL`), "the refused code is not spent")
	require.Equal(t, 1, reasons("banned"), "the refusal names the ban")
	require.Equal(t, 0, reasons("refused"))
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM entries WHERE action = 'admin.agent.connect' AND outcome = 'ok'`))
}

// A used code presented again by an active agent is logged with the reason
// "used", whatever the agent's status: the used check comes first.
func TestRedeemingAnActiveAgentsUsedCodeIsLoggedAsUsed(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("val", "POST", "/agents/hire", `{"role": "code", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	code := got.Body["connect"].(map[string]any)["code"].(string)
	require.Equal(t, http.StatusOK, b.connectCode(t, `{"code": "`+code+`"}`).Status)
	require.Equal(t, http.StatusForbidden, b.connectCode(t, `{"code": "`+code+`"}`).Status)
	for reason, want := range map[string]int{"used": 1, "banned": 0, "refused": 0} {
		require.Equal(t, want, b.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
			WHERE e.action = 'admin.agent.connect' AND e.actor = 'agent:code-web' AND e.outcome <> 'ok'
			AND p.content->>'reason' = ?`, reason), reason)
	}
}
