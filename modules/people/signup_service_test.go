package people_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/modules/people"
	"github.com/pactboard/pact/sdk/errs"
)

var openSignUp = people.SignUpPolicy{Enabled: true, MaxPerHour: 30}

func signUpAs(sub, email string) people.SignUpInput {
	return people.SignUpInput{Issuer: authtest.DefaultURL, Subject: sub, VerifiedEmail: email,
		OrgName: "  Zoë's Rocket Shop! ", DisplayName: " Zoë ", AcceptTerms: true, TermsVersion: "2026-01"}
}

func TestSignUpMakesASeededOrganization(t *testing.T) {
	ctx := context.Background()
	f := newBoard(t)
	s, err := f.mod.Service().SignUp(ctx, openSignUp, signUpAs("sub-zoe", "Zoe.R@example.com"))
	require.NoError(t, err)
	require.Regexp(t, `^zo-s-rocket-shop-[0-9a-f]{6}$`, s.Org.ID, "slug of the name and 6 hex digits")
	require.Equal(t, "Zoë's Rocket Shop!", s.Org.Name)
	require.Equal(t, "zoe-r", s.Human.ID, "slug of the email's local part")
	require.Equal(t, identity.Owner, s.Human.Role)
	org := s.Org.ID
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM orgs WHERE id = ? AND system_chain = ? AND terms_version = '2026-01'
		AND terms_accepted_at IS NOT NULL AND created_by = 'zoe-r' AND NOT halted`, org, "_system:"+org))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM humans WHERE id = 'zoe-r' AND name = 'Zoë'
		AND auth_issuer = ? AND auth_sub = 'sub-zoe'`, authtest.DefaultURL))
	require.Equal(t, 8, f.Count(`SELECT count(*) FROM agent_roles WHERE org_id = ?`, org))
	require.Equal(t, f.Count(`SELECT count(*) FROM role_templates`), f.Count(`SELECT count(*) FROM agent_roles r
		JOIN role_templates t USING (id, name, client, actions, limits, delegations, settings) WHERE r.org_id = ?`, org))
	// acme is newBoard's, made as sign-up makes one.
	require.Equal(t, []string{"acme", org}, f.stand.orgsCreated(), "the modules seeded it (the board: its approval rules)")
	var first struct {
		Action, Actor, ChainKey string
	}
	require.NoError(t, f.DB.NewRaw(`SELECT action, actor, chain_key FROM entries WHERE org_id = ? ORDER BY id LIMIT 1`, org).
		Scan(ctx, &first.Action, &first.Actor, &first.ChainKey))
	require.Equal(t, "org.created", first.Action)
	require.Equal(t, "human:zoe-r", first.Actor)
	require.Equal(t, "_system:"+org, first.ChainKey)
	vs, err := f.Log.VerifyOrg(ctx, f.DB, org, nil)
	require.NoError(t, err)
	require.Len(t, vs, 1)
	require.True(t, vs[0].OK, vs[0].Reason)

	// The owner works in their own organization and nowhere else.
	p, err := f.Identity.SignIn(ctx, authtest.DefaultURL, "sub-zoe", "")
	require.NoError(t, err)
	require.Equal(t, org, p.OrgID)
	_, err = f.Identity.AddProject(ctx, "zoe-r", "zoe-site", "Site", false)
	require.NoError(t, err)

	// Same local part, another person: the human id gets a suffix.
	s2, err := f.mod.Service().SignUp(ctx, openSignUp, signUpAs("sub-zoe2", "zoe.r@other.example.com"))
	require.NoError(t, err)
	require.Regexp(t, `^zoe-r-[0-9a-f]{4}$`, s2.Human.ID)
	require.NotEqual(t, org, s2.Org.ID)
}

func TestSignUpRefusals(t *testing.T) {
	ctx := context.Background()
	f := newBoard(t)
	_, err := f.mod.Service().UpdateHuman(ctx, "ana", "vic", people.HumanUpdate{Email: ptr("vic@example.com"), Disabled: ptr(true)})
	require.NoError(t, err)
	orgs := f.Count(`SELECT count(*) FROM orgs`)
	entries := f.Count(`SELECT count(*) FROM entries`)
	mod := func(fn func(*people.SignUpInput)) people.SignUpInput {
		in := signUpAs("sub-new", "new@example.com")
		fn(&in)
		return in
	}
	for _, tc := range []struct {
		name string
		pol  people.SignUpPolicy
		in   people.SignUpInput
		code errs.Code
		says string
	}{
		{"Bound", openSignUp, signUpAs("sub-ana", "x@example.com"), errs.AlreadyRegistered, "already ana"},
		{"BoundEvenWhenClosed", people.SignUpPolicy{}, signUpAs("sub-ana", ""), errs.AlreadyRegistered, "sign in instead"},
		{"Disabled", openSignUp, signUpAs("sub-vic", "vic@example.com"), errs.AccountDisabled, "disabled"},
		{"Closed", people.SignUpPolicy{MaxPerHour: 30}, signUpAs("sub-new", "new@example.com"), errs.SignupClosed, people.SignupClosedMessage},
		{"NoEmail", openSignUp, signUpAs("sub-new", ""), errs.InvalidRequest, people.NoVerifiedEmail},
		{"Terms", openSignUp, mod(func(in *people.SignUpInput) { in.AcceptTerms = false }), errs.InvalidRequest, people.AcceptTermsMessage},
		{"BlankOrg", openSignUp, mod(func(in *people.SignUpInput) { in.OrgName = "  " }), errs.InvalidRequest, "org_name must be 1-80"},
		{"LongName", openSignUp, mod(func(in *people.SignUpInput) { in.DisplayName = strings.Repeat("n", 81) }), errs.InvalidRequest, "display_name"},
		{"LongTerms", openSignUp, mod(func(in *people.SignUpInput) { in.TermsVersion = strings.Repeat("v", 65) }), errs.InvalidRequest, "terms_version"},
		{"BreakerZero", people.SignUpPolicy{Enabled: true}, signUpAs("sub-new", "new@example.com"), errs.SignupBusy, people.SignupBusyMessage},
		{"NoAccount", openSignUp, signUpAs("", "new@example.com"), errs.Unauthorized, "no account"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.mod.Service().SignUp(ctx, tc.pol, tc.in)
			require.Equal(t, tc.code, errs.CodeOf(err), "%v", err)
			require.Contains(t, err.Error(), tc.says)
		})
	}
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM orgs`), "nothing half-written")
	// Refusals of an account that is a person (Bound, BoundEvenWhenClosed,
	// Disabled) are logged in their organization; the others name none.
	require.Equal(t, entries+3, f.Count(`SELECT count(*) FROM entries`))
	require.Equal(t, 2, f.Count(`SELECT count(*) FROM entries WHERE action = 'admin.signup'
		AND actor = 'human:ana' AND outcome = 'already_registered' AND org_id = 'default'`))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM entries WHERE action = 'admin.signup'
		AND actor = 'human:vic' AND outcome = 'account_disabled'`))
}

func TestSignUpBreaker(t *testing.T) {
	ctx := context.Background()
	f := newBoard(t)
	// Three an hour: newBoard's acme, made as sign-up makes one, is the first.
	pol := people.SignUpPolicy{Enabled: true, MaxPerHour: 3}
	for i := range 2 {
		_, err := f.mod.Service().SignUp(ctx, pol, signUpAs(fmt.Sprint("sub-", i), fmt.Sprintf("p%d@example.com", i)))
		require.NoError(t, err)
	}
	_, err := f.mod.Service().SignUp(ctx, pol, signUpAs("sub-3", "p3@example.com"))
	require.Equal(t, errs.SignupBusy, errs.CodeOf(err))
	// An hour later the breaker closes again.
	f.Exec(`UPDATE orgs SET created_at = now() - interval '61 minutes' WHERE created_by IS NOT NULL`)
	_, err = f.mod.Service().SignUp(ctx, pol, signUpAs("sub-3", "p3@example.com"))
	require.NoError(t, err)
}

// TestSignUpNeverJoinsAnInvitation: an invited account that signs up makes
// its own organization; the invitation stays pending, for the account to
// accept or leave (docs/security.md, finding 2).
func TestSignUpNeverJoinsAnInvitation(t *testing.T) {
	ctx := context.Background()
	f := newBoard(t)
	_, err := f.Identity.AddHuman(ctx, "ana", identity.HumanInput{ID: "zed", Name: "Zed", Role: identity.Approver, Email: "zed@example.com"})
	require.NoError(t, err)
	s, err := f.mod.Service().SignUp(ctx, openSignUp, signUpAs("sub-zed", "ZED@example.com"))
	require.NoError(t, err)
	require.NotEqual(t, "default", s.Org.ID, "an organization of its own")
	require.Equal(t, identity.Owner, s.Human.Role)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM humans WHERE id = 'zed' AND auth_sub IS NULL`), "zed stays an invitation")
	require.Equal(t, 0, f.Count(`SELECT count(*) FROM entries WHERE org_id = 'default' AND action = 'admin.human.bind'`))
	_, err = f.mod.Service().AcceptInvitation(ctx, authtest.DefaultURL, "sub-zed", "zed@example.com", "zed")
	require.Equal(t, errs.AlreadyRegistered, errs.CodeOf(err), "an account is one person")
}

func TestConcurrentSignUpsOfOneAccountMakeOneOrganization(t *testing.T) {
	ctx := context.Background()
	f := newBoard(t)
	const n = 8
	var wg sync.WaitGroup
	codes := make([]errs.Code, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.mod.Service().SignUp(ctx, openSignUp, signUpAs("sub-twin", "twin@example.com"))
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
	require.Equal(t, 1, f.Count(signedUp))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM humans WHERE auth_sub = 'sub-twin'`))
}

func TestUpdateOrgNeverLogsTheWebhook(t *testing.T) {
	ctx := context.Background()
	f := newBoard(t)
	hook := "https://hooks.slack.com/services/T000/B000/" + strings.Repeat("x", 20) + "abcd"

	o, err := f.mod.Service().UpdateOrg(ctx, "ana", people.OrgUpdate{Name: ptr("  Default Inc "), SlackWebhookURL: ptr(hook)})
	require.NoError(t, err)
	require.Equal(t, "Default Inc", o.Name)
	require.Equal(t, "…abcd", *o.Slack.Hint)
	o, err = f.mod.Service().UpdateOrg(ctx, "ana", people.OrgUpdate{SlackWebhookURL: ptr(" ")})
	require.NoError(t, err)
	require.Nil(t, o.Slack.Hint)
	require.Equal(t, 0, f.Count(`SELECT count(*) FROM payloads WHERE content::text LIKE '%hooks.slack%'`))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM payloads WHERE content->>'slack_webhook' = 'set'`))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM payloads WHERE content->>'slack_webhook' = 'cleared'`))

	for _, tc := range []struct {
		name string
		upd  people.OrgUpdate
		want errs.Code
	}{
		{"Nothing", people.OrgUpdate{}, errs.InvalidRequest},
		{"BlankName", people.OrgUpdate{Name: ptr(" ")}, errs.InvalidRequest},
		{"LongName", people.OrgUpdate{Name: ptr(strings.Repeat("n", 81))}, errs.InvalidRequest},
		{"HTTP", people.OrgUpdate{SlackWebhookURL: ptr("http://hooks.slack.com/services/T/B/x")}, errs.InvalidRequest},
		{"OtherHost", people.OrgUpdate{SlackWebhookURL: ptr("https://hooks.slack.com.evil/services/T/B/x")}, errs.InvalidRequest},
		{"Query", people.OrgUpdate{SlackWebhookURL: ptr("https://hooks.slack.com/services/T/B/x?y=1")}, errs.InvalidRequest},
		{"EmptyPath", people.OrgUpdate{SlackWebhookURL: ptr("https://hooks.slack.com/services/")}, errs.InvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.mod.Service().UpdateOrg(ctx, "ana", tc.upd)
			require.Equal(t, tc.want, errs.CodeOf(err), "%v", err)
		})
	}
	_, err = f.mod.Service().UpdateOrg(ctx, "val", people.OrgUpdate{Name: ptr("X")})
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
}
func ptr[T any](v T) *T { return &v }

// An organization name with no Latin letters or digits gives the id
// org-<6 hex>; an email whose local part is a taken person id gives
// <it>-<4 hex> (docs/specs/behavior.md §10.5, §13 test_signup).
func TestSignUpIDsOfThaiNamesAndTakenIDs(t *testing.T) {
	ctx := context.Background()
	f := newBoard(t)
	in := signUpAs("sub-ana2", "ana@example.org")
	in.OrgName = "บริษัท ทดสอบ"
	s, err := f.mod.Service().SignUp(ctx, openSignUp, in)
	require.NoError(t, err)
	require.Regexp(t, `^org-[0-9a-f]{6}$`, s.Org.ID)
	require.Equal(t, "บริษัท ทดสอบ", s.Org.Name)
	require.Regexp(t, `^ana-[0-9a-f]{4}$`, s.Human.ID, "ana is taken")
}
