package people_test

import (
	"context"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/modules/people"
	"github.com/pactboard/pact/sdk/errs"
)

func TestPreferences(t *testing.T) {
	ctx := context.Background()
	w, mod := office(t)
	w.Agent("val", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	got, err := mod.Service().SetPreferences(ctx, "val", "code-web", []byte(`{"language": "en", "style": {"short": true}}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"language":"en","style":{"short":true}}`, string(got))
	for name, raw := range map[string]string{
		"array":     `[1]`,
		"string":    `"x"`,
		"malformed": `{"a":`,
		"oversize":  `{"a":"` + strings.Repeat("x", people.MaxPreferences) + `"}`,
	} {
		_, err := mod.Service().SetPreferences(ctx, "val", "code-web", []byte(raw))
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), name)
	}
	a, err := w.Identity.GetAgent(ctx, w.DB, "code-web", "")
	require.NoError(t, err)
	require.JSONEq(t, `{"language":"en","style":{"short":true}}`, string(a.Preferences), "refusals leave preferences as they were")

	// The limit is inclusive: preferences of exactly MaxPreferences
	// characters as compact JSON ({"a":"…"} is 8 around the value) are
	// kept; one character more is refused.
	atLimit := `{"a":"` + strings.Repeat("x", people.MaxPreferences-8) + `"}`
	got, err = mod.Service().SetPreferences(ctx, "val", "code-web", []byte(atLimit))
	require.NoError(t, err, "exactly the limit is allowed")
	require.Equal(t, atLimit, string(got))
	_, err = mod.Service().SetPreferences(ctx, "val", "code-web", []byte(`{"a":"`+strings.Repeat("x", people.MaxPreferences-7)+`"}`))
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "one over the limit is refused")
	a, err = w.Identity.GetAgent(ctx, w.DB, "code-web", "")
	require.NoError(t, err)
	require.JSONEq(t, atLimit, string(a.Preferences), "the preferences at the limit were stored")
	_, err = mod.Service().SetPreferences(ctx, "bo", "code-web", []byte(`{}`))
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
}

func TestIssueAndRevokeTokens(t *testing.T) {
	ctx := context.Background()
	w, mod := office(t)
	first := w.Agent("val", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}}).Token
	auth := func(token string) bool {
		ok, err := w.Identity.AuthenticateAgent(ctx, w.DB, "code-web", token)
		require.NoError(t, err)
		return ok
	}
	second, err := mod.Service().IssueToken(ctx, "val", "code-web", 0)
	require.NoError(t, err)
	require.True(t, auth(second.Token))
	_, err = mod.Service().IssueToken(ctx, "val", "code-web", 400)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "at most 365 days")
	_, err = mod.Service().IssueToken(ctx, "bo", "code-web", 0)
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
	_, err = mod.Service().RevokeTokens(ctx, "vic", "code-web")
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))

	n, err := mod.Service().RevokeTokens(ctx, "val", "code-web")
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	require.False(t, auth(first))
	require.False(t, auth(second.Token))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.token.revoke' AND e.agent_id = 'code-web' AND e.outcome = 'ok'
		AND p.content = '{"agent_id": "code-web", "revoked": 2}'::jsonb`), "the log says how many")

	_, err = mod.Service().SetAgentStatus(ctx, "ana", "code-web", "banned")
	require.NoError(t, err)
	_, err = mod.Service().IssueToken(ctx, "val", "code-web", 0)
	require.Equal(t, errs.AgentPaused, errs.CodeOf(err), "a banned agent gets no tokens")
}

func TestAgentStatusBanNeedsAnOwner(t *testing.T) {
	ctx := context.Background()
	w, mod := office(t)
	w.Agent("val", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	a, err := mod.Service().SetAgentStatus(ctx, "val", "code-web", "paused")
	require.NoError(t, err)
	require.Equal(t, "paused", a.Status)
	_, err = mod.Service().SetAgentStatus(ctx, "val", "code-web", "banned")
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	_, err = mod.Service().SetAgentStatus(ctx, "ana", "code-web", "gone")
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	_, err = mod.Service().SetAgentStatus(ctx, "bo", "code-web", "active")
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
	a, err = mod.Service().SetAgentStatus(ctx, "ana", "code-web", "banned")
	require.NoError(t, err)
	require.Equal(t, "banned", a.Status)
}

// A ban ends the agent's authority: every mandate it holds is revoked, with
// what was delegated under them; undoing a ban needs an owner, as the ban
// did, and gives none of it back (docs/security.md, finding 3).
func TestABanEndsAuthorityAndOnlyAnOwnerUndoesIt(t *testing.T) {
	ctx := context.Background()
	w, mod := office(t)
	w.Agent("val", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}, Delegations: ptr(2)})
	w.Agent("val", kerneltest.AgentInput{ID: "code-api", Client: "code", Projects: []string{"web"}})
	second := w.Mandate("ana", "code-web", "task.read@project:web")
	var child string
	require.NoError(t, w.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		chain, err := w.Mandates.Verify(ctx, tx, w.Root("code-web"), "code-web")
		if err != nil {
			return err
		}
		m, err := w.Mandates.IssueChild(ctx, tx, chain, mandate.ChildInput{Holder: "code-api", Scope: []string{"task.read@project:web"}})
		if err == nil {
			child = m.ID.String()
		}
		return err
	}))
	live := func() int {
		return w.Count(`SELECT count(*) FROM mandates WHERE id IN (?, ?, ?) AND revoked_at IS NULL`, w.Root("code-web"), second, child)
	}
	require.Equal(t, 3, live())
	_, err := mod.Service().SetAgentStatus(ctx, "ana", "code-web", "paused")
	require.NoError(t, err)
	require.Equal(t, 3, live(), "a pause keeps the mandates")

	_, err = mod.Service().SetAgentStatus(ctx, "ana", "code-web", "banned")
	require.NoError(t, err)
	require.Equal(t, 1, live(), "a ban marks what the agent holds; what it delegated dies with its parent")
	_, err = w.Mandates.Verify(ctx, w.DB, child, "code-api")
	require.Equal(t, errs.MandateRevoked, errs.CodeOf(err), "the delegated mandate no longer verifies")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.agent.status' AND e.outcome = 'ok' AND jsonb_array_length(p.content->'mandates_revoked') = 3`),
		"the ban's entry lists what it revoked")

	for _, status := range []string{"active", "paused"} {
		_, err = mod.Service().SetAgentStatus(ctx, "val", "code-web", status)
		require.Equal(t, errs.Forbidden, errs.CodeOf(err), "an approver cannot undo a ban (%s)", status)
	}
	a, err := mod.Service().SetAgentStatus(ctx, "ana", "code-web", "active")
	require.NoError(t, err)
	require.Equal(t, "active", a.Status)
	require.Equal(t, 1, live(), "undoing a ban gives no authority back")
	_, err = w.Mandates.Verify(ctx, w.DB, w.Root("code-web"), "code-web")
	require.Equal(t, errs.MandateRevoked, errs.CodeOf(err))
}

// Disabling a person ends the authority they gave: every root mandate they
// issued is revoked with what was delegated under it; enabling them again
// gives none of it back (docs/security.md, finding 4).
func TestDisablingAPersonRevokesWhatTheyIssued(t *testing.T) {
	ctx := context.Background()
	w, mod := office(t)
	w.Agent("val", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	byVal := w.Mandate("val", "code-web", "task.read@project:web")
	byAna := w.Mandate("ana", "code-web", "task.read@project:web")
	live := func(id string) bool {
		return w.Count(`SELECT count(*) FROM mandates WHERE id = ? AND revoked_at IS NULL`, id) == 1
	}
	_, err := mod.Service().UpdateHuman(ctx, "ana", "val", people.HumanUpdate{Disabled: ptr(true)})
	require.NoError(t, err)
	require.False(t, live(byVal), "what val issued is revoked")
	require.True(t, live(byAna), "what others issued stands")
	_, err = mod.Service().UpdateHuman(ctx, "ana", "val", people.HumanUpdate{Disabled: ptr(false)})
	require.NoError(t, err)
	require.False(t, live(byVal), "enabling val again gives nothing back")
}

func TestKillSwitches(t *testing.T) {
	ctx := context.Background()
	w, mod := office(t)
	halted := func(org string) bool {
		h, err := w.Identity.Halted(ctx, w.DB, org)
		require.NoError(t, err)
		return h
	}
	require.False(t, halted("default"))
	require.NoError(t, mod.Service().SetOrgHalted(ctx, "ana", true))
	require.True(t, halted("default"))
	require.False(t, halted("acme"), "one organization halting never stops another")
	require.Equal(t, errs.Forbidden, errs.CodeOf(mod.Service().SetOrgHalted(ctx, "val", false)))
	require.NoError(t, mod.Service().SetOrgHalted(ctx, "ana", false))

	require.NoError(t, mod.Service().SetOrgHaltedByOperator(ctx, "acme", true))
	require.True(t, halted("acme"))
	require.Equal(t, errs.NotFound, errs.CodeOf(mod.Service().SetOrgHaltedByOperator(ctx, "nope", true)))
	require.NoError(t, mod.Service().SetOrgHaltedByOperator(ctx, "acme", false))

	require.NoError(t, mod.Service().SetPlatformHalted(ctx, true))
	require.True(t, halted("default"))
	require.True(t, halted("acme"))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE org_id = 'acme' AND action = 'platform.halt' AND actor = 'system'`))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE org_id = 'default' AND action = 'platform.halt'`))
	require.NoError(t, mod.Service().SetPlatformHalted(ctx, false))
	require.False(t, halted("acme"))

	orgs, err := mod.Service().ListOrgs(ctx)
	require.NoError(t, err)
	require.Len(t, orgs, 2)
	require.Equal(t, "acme", orgs[0].ID)
	require.Equal(t, 1, orgs[0].People)
	require.Equal(t, 3, orgs[1].People)
	require.Equal(t, 3, orgs[1].Projects)

	require.NoError(t, mod.Service().RenameOrg(ctx, "acme", " Acme Rockets "))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM orgs WHERE id = 'acme' AND name = 'Acme Rockets'`))
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(mod.Service().RenameOrg(ctx, "acme", "")))
	require.Equal(t, errs.NotFound, errs.CodeOf(mod.Service().RenameOrg(ctx, "nope", "Nope")))
	w.VerifyLog()
}

// An organization's name is 1-80 characters, counted as characters, not
// bytes: the operator's rename keeps a Thai name of exactly 80 (240 bytes)
// and refuses one of 81 with invalid_request, leaving the name as it was.
func TestTheOperatorRenamesAnOrganizationToAtMostEightyCharacters(t *testing.T) {
	ctx := context.Background()
	w, mod := office(t)
	atLimit := strings.Repeat("ก", 80)
	require.NoError(t, mod.Service().RenameOrg(ctx, "acme", atLimit), "exactly 80 characters is allowed")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM orgs WHERE id = 'acme' AND name = ?`, atLimit))

	err := mod.Service().RenameOrg(ctx, "acme", atLimit+"ก")
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "81 characters is one too many: %v", err)
	require.EqualError(t, err, "invalid_request: an organization's name is 1-80 characters")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM orgs WHERE id = 'acme' AND name = ?`, atLimit), "a refusal keeps the name")
}
