package identity_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

var open = identity.SignUpPolicy{Enabled: true, MaxPerHour: 30}

func signUpAs(sub, email string) identity.SignUpInput {
	return identity.SignUpInput{Issuer: "https://id.example.com", Subject: sub, VerifiedEmail: email,
		OrgName: "  Zoë's Rocket Shop! ", DisplayName: " Zoë ", AcceptTerms: true, TermsVersion: "2026-01"}
}

func TestSignUpMakesASeededOrganization(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	s, err := f.svc.SignUp(ctx, open, signUpAs("sub-zoe", "Zoe.R@example.com"))
	require.NoError(t, err)
	require.False(t, s.Invited)
	require.Regexp(t, `^zo-s-rocket-shop-[0-9a-f]{6}$`, s.Org.ID, "slug of the name and 6 hex digits")
	require.Equal(t, "Zoë's Rocket Shop!", s.Org.Name)
	require.Equal(t, "zoe-r", s.Human.ID, "slug of the email's local part")
	require.Equal(t, identity.Owner, s.Human.Role)
	require.Equal(t, s.Org.ID, s.Human.OrgID)
	org := s.Org.ID
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM orgs WHERE id = ? AND system_chain = ? AND terms_version = '2026-01'
		AND terms_accepted_at IS NOT NULL AND created_by = 'zoe-r' AND NOT halted`, org, "_system:"+org))
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM humans WHERE id = 'zoe-r' AND name = 'Zoë'
		AND auth_issuer = 'https://id.example.com' AND auth_sub = 'sub-zoe'`))
	require.Equal(t, 8, f.count(t, `SELECT count(*) FROM agent_roles WHERE org_id = ?`, org))
	require.Equal(t, f.count(t, `SELECT count(*) FROM role_templates`), f.count(t, `SELECT count(*) FROM agent_roles r
		JOIN role_templates t USING (id, name, client, actions, limits, delegations, settings) WHERE r.org_id = ?`, org))
	rules, err := f.svc.ApprovalRules(ctx, f.d, org)
	require.NoError(t, err)
	require.Equal(t, []string{"customer.message", "deploy.*", "finance.*"}, rules)
	var first struct {
		Action, Actor, ChainKey string
	}
	require.NoError(t, f.d.NewRaw(`SELECT action, actor, chain_key FROM entries WHERE org_id = ? ORDER BY id LIMIT 1`, org).
		Scan(ctx, &first.Action, &first.Actor, &first.ChainKey))
	require.Equal(t, "org.created", first.Action)
	require.Equal(t, "human:zoe-r", first.Actor)
	require.Equal(t, "_system:"+org, first.ChainKey)
	vs, err := f.log.VerifyOrg(ctx, f.d, org, nil)
	require.NoError(t, err)
	require.Len(t, vs, 1)
	require.True(t, vs[0].OK, vs[0].Reason)

	// The owner works in their own organization and nowhere else.
	p, err := f.svc.SignIn(ctx, "https://id.example.com", "sub-zoe", "")
	require.NoError(t, err)
	require.Equal(t, org, p.OrgID)
	_, err = f.svc.AddProject(ctx, "zoe-r", "zoe-site", "Site", false)
	require.NoError(t, err)
	require.Equal(t, 0, f.count(t, `SELECT count(*) FROM approval_actions WHERE org_id = 'acme'`), "others keep theirs")

	// Same local part, another person: the human id gets a suffix.
	s2, err := f.svc.SignUp(ctx, open, signUpAs("sub-zoe2", "zoe.r@other.example.com"))
	require.NoError(t, err)
	require.Regexp(t, `^zoe-r-[0-9a-f]{4}$`, s2.Human.ID)
	require.NotEqual(t, org, s2.Org.ID)
}

func TestSignUpRefusals(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	_, err := f.svc.SignIn(ctx, "https://id.example.com", "sub-ana", "ana@example.com")
	require.NoError(t, err)
	_, err = f.svc.UpdateHuman(ctx, "ana", "vic", identity.HumanUpdate{Email: ptr("vic@example.com"), Disabled: ptr(true)})
	require.NoError(t, err)
	orgs := f.count(t, `SELECT count(*) FROM orgs`)
	entries := f.count(t, `SELECT count(*) FROM entries`)
	mod := func(fn func(*identity.SignUpInput)) identity.SignUpInput {
		in := signUpAs("sub-new", "new@example.com")
		fn(&in)
		return in
	}
	for _, tc := range []struct {
		name string
		pol  identity.SignUpPolicy
		in   identity.SignUpInput
		code errs.Code
		says string
	}{
		{"Bound", open, signUpAs("sub-ana", "x@example.com"), errs.AlreadyRegistered, "already ana"},
		{"BoundEmail", open, signUpAs("sub-other", "ANA@example.com"), errs.AlreadyRegistered, "already ana"},
		{"BoundEvenWhenClosed", identity.SignUpPolicy{}, signUpAs("sub-ana", ""), errs.AlreadyRegistered, "sign in instead"},
		{"Disabled", open, signUpAs("sub-vic", "vic@example.com"), errs.AccountDisabled, "disabled"},
		{"Closed", identity.SignUpPolicy{MaxPerHour: 30}, signUpAs("sub-new", "new@example.com"), errs.SignupClosed, identity.SignupClosedMessage},
		{"NoEmail", open, signUpAs("sub-new", ""), errs.InvalidRequest, identity.NoVerifiedEmail},
		{"Terms", open, mod(func(in *identity.SignUpInput) { in.AcceptTerms = false }), errs.InvalidRequest, identity.AcceptTermsMessage},
		{"BlankOrg", open, mod(func(in *identity.SignUpInput) { in.OrgName = "  " }), errs.InvalidRequest, "org_name must be 1-80"},
		{"LongName", open, mod(func(in *identity.SignUpInput) { in.DisplayName = strings.Repeat("n", 81) }), errs.InvalidRequest, "display_name"},
		{"LongTerms", open, mod(func(in *identity.SignUpInput) { in.TermsVersion = strings.Repeat("v", 65) }), errs.InvalidRequest, "terms_version"},
		{"BreakerZero", identity.SignUpPolicy{Enabled: true}, signUpAs("sub-new", "new@example.com"), errs.SignupBusy, identity.SignupBusyMessage},
		{"NoAccount", open, signUpAs("", "new@example.com"), errs.Unauthorized, "no account"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.SignUp(ctx, tc.pol, tc.in)
			require.Equal(t, tc.code, errs.CodeOf(err), "%v", err)
			require.Contains(t, err.Error(), tc.says)
		})
	}
	require.Equal(t, orgs, f.count(t, `SELECT count(*) FROM orgs`), "nothing half-written")
	// Refusals that name a person (Bound, BoundEmail, BoundEvenWhenClosed,
	// Disabled) are logged in their organization; the others name none.
	require.Equal(t, entries+4, f.count(t, `SELECT count(*) FROM entries`))
	require.Equal(t, 3, f.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.signup'
		AND actor = 'human:ana' AND outcome = 'already_registered' AND org_id = 'default'`))
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.signup'
		AND actor = 'human:vic' AND outcome = 'account_disabled'`))
	require.Equal(t, 2, f.count(t, `SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.signup' AND p.content->>'same_account' = 'false'`),
		"BoundEmail (another account) and Disabled (vic, found by email, never bound)")
}

func TestSignUpBreaker(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	pol := identity.SignUpPolicy{Enabled: true, MaxPerHour: 2}
	for i := range 2 {
		_, err := f.svc.SignUp(ctx, pol, signUpAs(fmt.Sprint("sub-", i), fmt.Sprintf("p%d@example.com", i)))
		require.NoError(t, err)
	}
	_, err := f.svc.SignUp(ctx, pol, signUpAs("sub-3", "p3@example.com"))
	require.Equal(t, errs.SignupBusy, errs.CodeOf(err))
	// An hour later the breaker closes again.
	_, err = f.d.ExecContext(ctx, `UPDATE orgs SET created_at = now() - interval '61 minutes' WHERE created_by IS NOT NULL`)
	require.NoError(t, err)
	_, err = f.svc.SignUp(ctx, pol, signUpAs("sub-3", "p3@example.com"))
	require.NoError(t, err)
}

func TestSignUpOfAnInvitedPersonJoinsTheirOrganization(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	_, err := f.svc.AddHuman(ctx, "ana", identity.HumanInput{ID: "zed", Name: "Zed", Role: identity.Approver, Email: "zed@example.com"})
	require.NoError(t, err)
	orgs := f.count(t, `SELECT count(*) FROM orgs`)
	s, err := f.svc.SignUp(ctx, open, signUpAs("sub-zed", "ZED@example.com"))
	require.NoError(t, err)
	require.True(t, s.Invited)
	require.Equal(t, "zed", s.Human.ID)
	require.Equal(t, identity.Approver, s.Human.Role, "the role the owner gave")
	require.Equal(t, identity.OrgBrief{ID: "default", Name: "Default organization"}, s.Org)
	require.Equal(t, orgs, f.count(t, `SELECT count(*) FROM orgs`), "no organization is made")
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM humans WHERE id = 'zed' AND auth_sub = 'sub-zed'`))
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM entries WHERE org_id = 'default' AND action = 'admin.human.bind' AND actor = 'human:zed'`))
	_, err = f.svc.SignUp(ctx, open, signUpAs("sub-zed", "zed@example.com"))
	require.Equal(t, errs.AlreadyRegistered, errs.CodeOf(err), "once")
}

func TestConcurrentSignUpsOfOneAccountMakeOneOrganization(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	const n = 8
	var wg sync.WaitGroup
	codes := make([]errs.Code, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.svc.SignUp(ctx, open, signUpAs("sub-twin", "twin@example.com"))
			codes[i] = errs.CodeOf(err)
		}()
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		if c == "" {
			ok++
			continue
		}
		require.Equal(t, errs.AlreadyRegistered, c)
	}
	require.Equal(t, 1, ok, "%v", codes)
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM orgs WHERE created_by IS NOT NULL`))
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM humans WHERE auth_sub = 'sub-twin'`))
}

func TestApprovalRules(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	rules, err := f.svc.ApprovalRules(ctx, f.d, "default")
	require.NoError(t, err)
	require.Equal(t, []string{"customer.message", "deploy.*", "finance.*"}, rules)

	got, err := f.svc.SetApprovalRules(ctx, "ana", []string{" task.post ", "deploy.*", "task.post"})
	require.NoError(t, err)
	require.Equal(t, []string{"deploy.*", "task.post"}, got, "trimmed, sorted, once each")
	rules, err = f.svc.ApprovalRules(ctx, f.d, "default")
	require.NoError(t, err)
	require.Equal(t, got, rules)
	var payload string
	require.NoError(t, f.d.NewRaw(`SELECT p.content::text FROM entries e JOIN payloads p ON p.id = e.payload_ref
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
		_, err := f.svc.SetApprovalRules(ctx, tc.by, tc.actions)
		require.Equal(t, tc.code, errs.CodeOf(err), "%v", err)
	}
	rules, err = f.svc.ApprovalRules(ctx, f.d, "default")
	require.NoError(t, err)
	require.Equal(t, got, rules, "refusals change nothing")

	got, err = f.svc.SetApprovalRules(ctx, "ana", nil)
	require.NoError(t, err)
	require.Empty(t, got)
	require.Equal(t, 0, f.count(t, `SELECT count(*) FROM approval_actions WHERE org_id = 'default'`))
	require.Equal(t, 0, f.count(t, `SELECT count(*) FROM approval_actions WHERE org_id = 'acme'`))
	_, err = f.svc.SetApprovalRules(ctx, "bo", []string{"finance.*"})
	require.NoError(t, err)
	require.Equal(t, 0, f.count(t, `SELECT count(*) FROM approval_actions WHERE org_id = 'default'`), "each organization its own")
}
